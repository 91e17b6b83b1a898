/**
 * Generation receipts (`drb.generation-receipt.v2`) in `drb receipts validate` and `summarize`: validation
 * problems, generation targets with TTFT / decode statistics, and memory fit beside the measured result.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GenerationReceipt } from '../../src/core/generation/generation-receipt.ts';
import { ReceiptsSummarizer } from '../../src/core/evidence/receipts-summarizer.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import { makeGenerationReceipt } from './generation-fixtures.ts';
import { buildReceipt } from './receipts-builder.ts';
import { runCli } from './cli-harness.ts';
import { testTempDir } from '../temp-dir.ts';

let n = 0;
function generation(change: (r: GenerationReceipt) => void = () => {}): GenerationReceipt {
  const r = makeGenerationReceipt();
  r.receipt_id = `gen-${String(++n).padStart(8, '0')}`;
  change(r);
  return r;
}

const QWEN = 'webllm-qwen2.5-0.5b-instruct-q4f16_1';

describe('generation receipts', () => {
  it('validate: accepted as generation receipts, with text and summary problems reported by path', () => {
    expect(validateReceipt(generation())).toMatchObject({ kind: 'generation-receipt', problems: [] });
    const bad = generation() as unknown as Record<string, any>;
    bad.samples[0].output_text = 'answer';
    bad.summary.ttft_ms_median = 1;
    bad.route.fallback_reason = 'why';
    const problems = validateReceipt(bad).problems.map((p) => `${p.path}: ${p.message}`);
    expect(problems).toContain(
      'samples[0].output_text: looks like a text field: receipts never hold input, output or typed text',
    );
    const typed = generation();
    typed.summary.ttft_ms_median = 1;
    typed.route.fallback_reason = 'why';
    typed.errors.push({
      stage: 'load',
      prompt_id: null,
      repetition: null,
      name: 'Error',
      message: 'GET https://h.example/m?token=1 failed',
    });
    const lines = validateReceipt(typed).problems.map((p) => `${p.path}: ${p.message}`);
    expect(lines).toContain('summary.ttft_ms_median: is 1 but the samples give 44.5');
    expect(lines).toContain('route.fallback_reason: is set although the requested EP completed');
    expect(lines).toContain(`errors[0].message: holds a URL with a query, fragment or credentials`);
  });

  it('summarize: a generation target with load, TTFT, decode statistics and memory fit; never DEVICE_PASS', async () => {
    const s = new ReceiptsSummarizer();
    s.addGenerationReceipt(generation((r) => (r.model.id = QWEN)));
    s.addGenerationReceipt(
      generation((r) => {
        r.model.id = QWEN;
        r.cold.load_ms = 2000;
      }),
    );
    s.addGenerationReceipt(
      generation((r) => {
        r.model.id = QWEN;
        r.lifecycle = { ...r.lifecycle, hidden_during_run: true };
      }),
    );
    s.addReceipt(buildReceipt({ kind: 'cold' }));
    const summary = await s.finish();
    expect(ReceiptsSummary.safeParse(summary).success).toBe(true);
    expect(summary.inputs).toMatchObject({ receipts_valid: 1, generation_receipts_valid: 3 });
    expect(summary.generation_targets).toHaveLength(1);
    const [g] = summary.generation_targets;
    expect(g.key).toMatch(/^g-[0-9a-f]{12}$/);
    expect(g.counts).toMatchObject({ receipts: 3, ok: 3, clean: 2, noisy: 1, ok_samples: 30 });
    expect(g.load_ms).toMatchObject({ count: 2, median: 1617, p95: 2000 });
    // ttft 40..49 twice: median 44.5, nearest-rank p95 of 20 values = 19th = 49
    expect(g.ttft_ms).toMatchObject({ count: 20, median: 44.5, p95: 49, min: 40 });
    expect(g.decode_tokens_per_s).toMatchObject({ count: 20, median: 75.5 });
    // Both clean receipts hold TTFT 40..49, so every receipt resample has the pooled median 44.5.
    expect(g.ttft_median_interval).toMatchObject({ low: 44.5, high: 44.5, resampled: 'receipts' });
    // Decode 80, 79, ..., 71 tokens/s in plan order: last fifth [72, 71] (71.5) over first fifth [80, 79] (79.5).
    expect(g.decode_sustained_ratio).toMatchObject({ count: 2, median: 71.5 / 79.5 });
    expect(g.memory_fit).toMatchObject({ status: 'fits', estimate: { total_bytes: 347_679_680 } });
    expect(
      g.profiles.find((p) => p.profile === 'performance')!.gates.find((x) => x.gate === 'warm_p95_ms'),
    ).toMatchObject({ measured: 49, status: 'pass' });
    expect(g.evidence.state).toBe('DEVICE_RECEIPT');
    expect(g.evidence.not_higher_because[0]).toContain('DEVICE_PASS is defined for the cold/warm procedure');
  });

  it('marks an LLM that should fit but failed on the device as fits-but-failed', async () => {
    const s = new ReceiptsSummarizer();
    s.addGenerationReceipt(generation((r) => (r.model.id = QWEN)));
    s.addGenerationReceipt(
      generation((r) => {
        r.model.id = QWEN;
        r.samples = [];
        r.summary = {
          ...r.summary,
          ok_samples: 0,
          ttft_ms_median: null,
          ttft_ms_p95: null,
          decode_tokens_per_s_median: null,
          prefill_tokens_per_s_median: null,
          e2e_ms_median: null,
          output_tokens_median: null,
          sustained_speed_ratio: null,
        };
        r.errors = [{ stage: 'load', prompt_id: null, repetition: null, name: 'Error', message: 'device lost' }];
        r.outcome = { status: 'failed', reason: 'GPU device lost while loading' };
      }),
    );
    const [g] = (await s.finish()).generation_targets;
    expect(g.counts).toMatchObject({ ok: 1, failed: 1 });
    expect(g.failures.by_reason).toEqual([{ stage: 'load', reason: 'GPU device lost while loading', count: 1 }]);
    expect(g.memory_fit?.status).toBe('fits-but-failed');
  });

  it('drb receipts summarize writes generation targets into summary.json and summary.md', async () => {
    const d = testTempDir('drb-gen-');
    writeFileSync(join(d, 'g1.json'), JSON.stringify(generation((r) => (r.model.id = QWEN))));
    writeFileSync(join(d, 'c1.json'), JSON.stringify(buildReceipt({ kind: 'cold' })));
    const validate = await runCli(['receipts', 'validate', d]);
    expect(validate).toMatchObject({ code: 0, stdout: 'ok: 2 receipt(s) valid\n' });
    const out = join(d, 'out');
    const run = await runCli(['receipts', 'summarize', d, '--out', out]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('and 1 generation receipt(s) into 1 generation target(s)');
    const md = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(md).toContain('## Generation targets');
    expect(md).toMatch(
      /\| g-[0-9a-f]{12} \| webllm-qwen2\.5-0\.5b-instruct-q4f16_1 \| transformers \| wasm \| 1 \/ 1 \| 1234 \| 44\.5 \/ 49\.0 \| 75\.5 \| fits \| DEVICE_RECEIPT \|/,
    );
  });
});
