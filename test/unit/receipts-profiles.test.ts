/** Budget profiles and the LLM memory-fit formula, against hand-computed values. */
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_LLM_CONFIGS,
  DEFAULT_MEMORY_BUDGET_BYTES,
  findLlmConfig,
  fitStatus,
  kvCacheBytes,
  memoryFit,
  weightsBytes,
  type LlmConfig,
} from '../../src/core/evidence/memory-fit.ts';
import { BUILTIN_PROFILES, evaluateProfile, findProfile } from '../../src/core/evidence/profiles.ts';
import { ReceiptsSummarizer } from '../../src/core/evidence/receipts-summarizer.ts';
import { buildReceipt } from './receipts-builder.ts';

describe('budget profiles', () => {
  it('are versioned and name entry, mainstream and performance', () => {
    expect(BUILTIN_PROFILES.schema).toBe('drb.budget-profiles.v1');
    expect(BUILTIN_PROFILES.profiles.map((p) => p.name)).toEqual(['entry', 'mainstream', 'performance']);
  });

  it('pass, fail and not-measured per gate; memory only gates where measured', () => {
    const mainstream = findProfile(BUILTIN_PROFILES, 'mainstream');
    const within = { cold_load_p95_ms: 10_000, warm_p95_ms: 250, model_bytes: 500_000_000, js_heap_bytes: null };
    const verdict = evaluateProfile(within, mainstream);
    expect(verdict.verdict).toBe('pass');
    expect(verdict.gates.map((g) => g.status)).toEqual(['pass', 'pass', 'pass', 'not-measured', 'not-measured']);
    expect(verdict.gates.map((g) => g.gate)).toEqual([
      'cold_load_p95_ms',
      'warm_p95_ms',
      'model_bytes',
      'js_heap_bytes',
      'memory_bytes',
    ]);
    expect(evaluateProfile({ ...within, js_heap_bytes: 2 ** 31 }, mainstream).verdict).toBe('fail');
    // The memory budget: the model's measured WebAssembly memory plus GPU buffers.
    expect(evaluateProfile({ ...within, memory_bytes: 2 ** 31 }, mainstream).verdict).toBe('fail');
    expect(evaluateProfile({ ...within, memory_bytes: 2 ** 20 }, mainstream).gates.at(-1)).toMatchObject({
      gate: 'memory_bytes',
      status: 'pass',
      measured: 2 ** 20,
    });
    expect(evaluateProfile({ ...within, warm_p95_ms: 250.01 }, mainstream).verdict).toBe('fail');
    expect(evaluateProfile({ ...within, warm_p95_ms: null }, mainstream).verdict).toBe('incomplete');
  });
});

describe('memory fit', () => {
  const qwen = findLlmConfig(BUILTIN_LLM_CONFIGS, 'webllm-qwen2.5-0.5b-instruct-q4f16_1')!;

  it("matches hand-computed values for Qwen2.5-0.5B's published config", () => {
    expect(qwen).not.toBeNull();
    // head_dim = 896 / 14 = 64; KV = 2 * 24 layers * 2 KV heads * 64 * 8192 tokens * 2 bytes (fp16) = 100,663,296
    expect(kvCacheBytes(qwen, 8192)).toBe(100_663_296);
    // 494,032,768 parameters at 4 bits = 247,016,384 bytes
    expect(weightsBytes(qwen)).toBe(247_016_384);
    expect(memoryFit(qwen)).toEqual({
      weights_bytes: 247_016_384,
      kv_cache_bytes: 100_663_296,
      total_bytes: 347_679_680,
      context_tokens: 8192,
      budget_bytes: 8 * 1024 ** 3,
      fits: true,
    });
    expect(DEFAULT_MEMORY_BUDGET_BYTES).toBe(8_589_934_592);
  });

  it("uses Qwen3-0.6B's explicit head_dim (128, not 1024 / 16)", () => {
    const qwen3 = findLlmConfig(BUILTIN_LLM_CONFIGS, 'qwen3-0.6b-q4')!;
    // 2 * 28 layers * 8 KV heads * 128 * 8192 * 2 bytes = 939,524,096; 596,049,920 params * 4 bits / 8 = 298,024,960
    expect(kvCacheBytes(qwen3, 8192)).toBe(939_524_096);
    expect(memoryFit(qwen3)).toMatchObject({ weights_bytes: 298_024_960, total_bytes: 1_237_549_056, fits: true });
  });

  it('uses an explicit head_dim, and says when a model does not fit', () => {
    const big: LlmConfig = {
      ...qwen,
      model_ids: ['big'],
      num_hidden_layers: 80,
      num_key_value_heads: 8,
      head_dim: 128,
      parameters: 70e9,
      weight_bits: 4,
    };
    // 2 * 80 * 8 * 128 * 8192 * 2 = 2,684,354,560; weights 35e9
    expect(kvCacheBytes(big, 8192)).toBe(2_684_354_560);
    const fit = memoryFit(big);
    expect(fit.fits).toBe(false);
    expect(fitStatus(fit, 0)).toBe('does-not-fit');
    expect(fitStatus(memoryFit(qwen), 0)).toBe('fits');
    expect(fitStatus(memoryFit(qwen), 1)).toBe('fits-but-failed');
  });

  it('is shown beside a target of a known LLM, marked fits-but-failed when its runs failed there', async () => {
    const s = new ReceiptsSummarizer();
    s.addReceipt(buildReceipt({ kind: 'cold', modelId: 'webllm-qwen2.5-0.5b-instruct-q4f16_1' }));
    s.addReceipt(
      buildReceipt({
        kind: 'cold',
        modelId: 'webllm-qwen2.5-0.5b-instruct-q4f16_1',
        failed: { stage: 'session', reason: 'device lost' },
      }),
    );
    s.addReceipt(buildReceipt({ kind: 'cold' }));
    const summary = await s.finish();
    const llm = summary.targets.filter((t) => t.identity.model.id.startsWith('webllm-qwen'));
    expect(llm.map((t) => t.memory_fit?.status)).toEqual(['fits-but-failed', 'fits-but-failed']);
    expect(llm[0].memory_fit?.estimate.total_bytes).toBe(347_679_680);
    expect(summary.targets.find((t) => t.identity.model.id === 'ort-tiny-xenc')!.memory_fit).toBeNull();
  });
});
