import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildGenerationPlan, DECLARED_SEEDS } from '../../src/core/generation/generation-plan.ts';
import {
  checkGenerationReceipt,
  GenerationReceipt,
  summarizeGeneration,
  sustainedSpeedRatio,
  type GenerationSample,
} from '../../src/core/generation/generation-receipt.ts';
import { fromWebLlmUsage, timeGeneration } from '../../src/core/generation/generation-timing.ts';
import { parsePromptSet, PromptSetError } from '../../src/core/generation/prompt-set.ts';
import { GenerationAnswers } from '../../src/core/generation/generation-answers.ts';
import { makeGenerationReceipt, okSample } from './generation-fixtures.ts';

const promptSetText = readFileSync(new URL('../../public/prompts/drb-gen-ja-en-v1.json', import.meta.url), 'utf8');

describe('prompt set', () => {
  it('parses the shipped set: 10 measured prompts in both languages, ids unique, warm-up apart', () => {
    const set = parsePromptSet(promptSetText, 'drb-gen-ja-en-v1.json');
    expect(set.id).toBe('drb-gen-ja-en-v1');
    expect(set.prompts).toHaveLength(10);
    expect(new Set(set.prompts.map((p) => p.lang))).toEqual(new Set(['ja', 'en']));
    expect(set.prompts.map((p) => p.id)).not.toContain(set.warmup.id);
  });

  it('refuses bad JSON, a wrong field and a duplicate id with one line naming file and place', () => {
    expect(() => parsePromptSet('{', 'p.json')).toThrow(/^p\.json: \(root\): is not valid JSON/);
    const json = JSON.parse(promptSetText);
    json.prompts[3].lang = 'fr';
    expect(() => parsePromptSet(JSON.stringify(json), 'p.json')).toThrow(/^p\.json: prompts\[3\]\.lang: /);
    const dup = JSON.parse(promptSetText);
    dup.prompts[5].id = dup.prompts[0].id;
    expect(() => parsePromptSet(JSON.stringify(dup), 'p.json')).toThrowError(
      new PromptSetError('p.json: ja-train-delay: duplicate prompt id'),
    );
    const few = JSON.parse(promptSetText);
    few.prompts = few.prompts.slice(0, 9);
    expect(() => parsePromptSet(JSON.stringify(few), 'p.json')).toThrow(/^p\.json: prompts: /);
  });

  it('accepts a UTF-8 BOM', () => {
    expect(parsePromptSet(`\uFEFF${promptSetText}`, 'p.json').prompts).toHaveLength(10);
  });
});

describe('generation plan', () => {
  const set = parsePromptSet(promptSetText, 'p.json');

  it('is one warm-up, then every prompt in file order per repetition, with the declared seeds', () => {
    const plan = buildGenerationPlan(set, 2, true);
    expect(plan.steps).toHaveLength(1 + 2 * 10);
    expect(plan.steps[0]).toEqual({
      kind: 'warmup',
      prompt_id: 'warmup',
      repetition: null,
      prompt_index: null,
      seed: 17,
    });
    expect(plan.steps[1]).toEqual({
      kind: 'measured',
      prompt_id: 'ja-train-delay',
      repetition: 1,
      prompt_index: 0,
      seed: 17,
    });
    expect(plan.steps[11]).toEqual({
      kind: 'measured',
      prompt_id: 'ja-train-delay',
      repetition: 2,
      prompt_index: 0,
      seed: 29,
    });
    expect(plan.steps[20].prompt_id).toBe('en-explain-cache');
    expect(plan.seed_control).toBe('seeded');
    expect(plan.seeds).toEqual([17, 29]);
    expect(DECLARED_SEEDS).toEqual([17, 29, 41]);
  });

  it('records "no seed control" and passes no seed when the engine cannot take one', () => {
    const plan = buildGenerationPlan(set, 3, false);
    expect(plan.seed_control).toBe('no-seed-control');
    expect(plan.seeds).toBeNull();
    expect(plan.steps.every((s) => s.seed === null)).toBe(true);
  });

  it('records a token-limit override instead of applying it silently', () => {
    expect(buildGenerationPlan(set, 1, true)).toMatchObject({ max_new_tokens: 128, max_new_tokens_overridden: false });
    expect(buildGenerationPlan(set, 1, true, undefined, 8)).toMatchObject({
      max_new_tokens: 8,
      max_new_tokens_overridden: true,
    });
    expect(() => buildGenerationPlan(set, 1, true, undefined, 0)).toThrow(/max new tokens/);
  });

  it("a temperature override (0: greedy, as a user's own model runs) is the plan's temperature; a bad one is refused", () => {
    expect(buildGenerationPlan(set, 1, true).temperature).toBe(set.controls.temperature);
    expect(buildGenerationPlan(set, 1, true, undefined, null, 0).temperature).toBe(0);
    expect(() => buildGenerationPlan(set, 1, true, undefined, null, -1)).toThrow(/temperature/);
    expect(() => buildGenerationPlan(set, 1, true, undefined, null, Number.NaN)).toThrow(/temperature/);
  });

  it('refuses more repetitions than declared seeds', () => {
    expect(() => buildGenerationPlan(set, 4, true)).toThrow(/repetitions must be an integer from 1 to 3/);
    expect(() => buildGenerationPlan(set, 0, true)).toThrow(RangeError);
  });
});

describe('generation timing', () => {
  it('times TTFT, prefill and decode speed from the page clock and sets the engine report beside it', () => {
    const sample = timeGeneration(
      {
        request_at_ms: 100,
        first_token_at_ms: 150,
        last_token_at_ms: 350,
        end_at_ms: 360,
        prompt_tokens: 20,
        output_tokens: 11,
        finish_reason: 'stop',
        max_new_tokens: 128,
      },
      { ttft_ms: 45, e2e_ms: 250, prefill_tokens_per_s: 444, decode_tokens_per_s: 52 },
    );
    // 10 tokens after the first over 200 ms = 50 tokens/s; 20 prompt tokens over 50 ms = 400 tokens/s.
    expect(sample).toEqual({
      prompt_tokens: 20,
      output_tokens: 11,
      truncated: false,
      ttft_ms: 50,
      e2e_ms: 260,
      prefill_tokens_per_s: 400,
      decode_tokens_per_s: 50,
      engine_reported: { ttft_ms: 45, e2e_ms: 250, prefill_tokens_per_s: 444, decode_tokens_per_s: 52 },
      clock_minus_engine: { ttft_ms: 5, e2e_ms: 10, decode_tokens_per_s: -2 },
    });
  });

  it('flags truncation from the finish reason, or from the token count when the engine names none', () => {
    const base = {
      request_at_ms: 0,
      first_token_at_ms: 10,
      last_token_at_ms: 20,
      end_at_ms: 20,
      prompt_tokens: null,
      output_tokens: 8,
      max_new_tokens: 8,
    };
    expect(timeGeneration({ ...base, finish_reason: 'length' }, null).truncated).toBe(true);
    expect(timeGeneration({ ...base, finish_reason: 'stop' }, null).truncated).toBe(false);
    expect(timeGeneration({ ...base, finish_reason: null }, null).truncated).toBe(true);
    expect(timeGeneration({ ...base, finish_reason: null, output_tokens: 7 }, null).truncated).toBe(false);
  });

  it('has no decode speed for a single token and no TTFT without a token', () => {
    const one = timeGeneration(
      {
        request_at_ms: 0,
        first_token_at_ms: 5,
        last_token_at_ms: 5,
        end_at_ms: 6,
        prompt_tokens: 3,
        output_tokens: 1,
        finish_reason: 'stop',
        max_new_tokens: 8,
      },
      null,
    );
    expect(one.decode_tokens_per_s).toBeNull();
    expect(one.clock_minus_engine).toBeNull();
    const none = timeGeneration(
      {
        request_at_ms: 0,
        first_token_at_ms: null,
        last_token_at_ms: null,
        end_at_ms: 6,
        prompt_tokens: 3,
        output_tokens: 0,
        finish_reason: 'stop',
        max_new_tokens: 8,
      },
      null,
    );
    expect(none.ttft_ms).toBeNull();
    expect(none.prefill_tokens_per_s).toBeNull();
  });

  it('converts WebLLM usage.extra seconds to milliseconds and refuses a report with holes', () => {
    expect(
      fromWebLlmUsage({
        e2e_latency_s: 0.25,
        prefill_tokens_per_s: 444,
        decode_tokens_per_s: 52,
        time_to_first_token_s: 0.045,
        time_per_output_token_s: 0.02,
      }),
    ).toEqual({
      ttft_ms: 45,
      e2e_ms: 250,
      prefill_tokens_per_s: 444,
      decode_tokens_per_s: 52,
    });
    expect(
      fromWebLlmUsage({
        e2e_latency_s: 0.25,
        prefill_tokens_per_s: 444,
        decode_tokens_per_s: Number.NaN,
        time_to_first_token_s: 0.045,
      }),
    ).toBeNull();
    expect(fromWebLlmUsage(undefined)).toBeNull();
  });
});

describe('generation summary', () => {
  it('computes the sustained-speed ratio as median(last five) / median(first five), in run order', () => {
    expect(sustainedSpeedRatio([10, 12, 11, 9, 10, 20, 20, 5, 6, 5, 7, 5])).toBeCloseTo(5 / 10, 12);
    expect(sustainedSpeedRatio([10, 10, 10, 10, 10, 8, 8, 8, 8, 8])).toBeCloseTo(0.8, 12);
    expect(sustainedSpeedRatio([10, 10, 10, 10, 10, 8, 8, 8, 8])).toBeNull();
  });

  it('takes medians and a nearest-rank p95 over ok samples only, counting failures and truncations', () => {
    const samples: GenerationSample[] = [
      okSample(1, 0, { ttft_ms: 10, decode_tokens_per_s: 40, e2e_ms: 100 }),
      okSample(1, 1, { ttft_ms: 20, decode_tokens_per_s: 30, e2e_ms: 300, truncated: true }),
      okSample(1, 2, { ttft_ms: 40, decode_tokens_per_s: 20, e2e_ms: 200 }),
      okSample(1, 3, { ttft_ms: 30, decode_tokens_per_s: 10, e2e_ms: 400 }),
      {
        ...okSample(1, 4, {}),
        outcome: 'failed',
        ttft_ms: null,
        e2e_ms: null,
        output_tokens: null,
        truncated: null,
        decode_tokens_per_s: null,
        error: { name: 'Error', message: 'device lost' },
      },
    ];
    const summary = summarizeGeneration(samples, 10);
    expect(summary).toMatchObject({
      measured_planned: 10,
      ok_samples: 4,
      failures: 1,
      truncations: 1,
      ttft_ms_median: 25,
      ttft_ms_p95: 40,
      decode_tokens_per_s_median: 25,
      e2e_ms_median: 250,
      sustained_speed_ratio: null,
      engine_reported: null,
    });
  });
});

describe('generation receipt', () => {
  it('validates a complete receipt and its invariants', () => {
    const receipt = makeGenerationReceipt();
    expect(GenerationReceipt.safeParse(receipt).success).toBe(true);
    expect(checkGenerationReceipt(receipt)).toEqual([]);
  });

  it('refuses prompt or answer text smuggled into a sample (strict objects)', () => {
    const receipt = makeGenerationReceipt() as unknown as { samples: Array<Record<string, unknown>> };
    receipt.samples[0].text = 'the answer';
    const parsed = GenerationReceipt.safeParse(receipt);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0].path).toEqual(['samples', 0]);
  });

  it('catches a summary that the samples do not give, a wrong seed, and an ok outcome with failures', () => {
    const receipt = makeGenerationReceipt();
    receipt.summary.ttft_ms_median = 1;
    receipt.samples[3].seed = 99;
    receipt.samples[4] = { ...receipt.samples[4], outcome: 'failed', error: { name: 'Error', message: 'x' } };
    const problems = checkGenerationReceipt(receipt).map((p) => p.path);
    expect(problems).toContain('samples[3].seed');
    expect(problems).toContain('outcome.status');
    expect(problems.some((p) => p.startsWith('summary.'))).toBe(true);
  });

  it('refuses an ok outcome that is missing planned samples', () => {
    const receipt = makeGenerationReceipt();
    receipt.samples = receipt.samples.slice(0, 5);
    receipt.summary = summarizeGeneration(receipt.samples, 10);
    expect(checkGenerationReceipt(receipt)).toContainEqual({
      path: 'samples',
      message: 'an ok run holds all 10 planned samples, not 5',
    });
  });

  it('answers artifact is separate and links by receipt id', () => {
    const answers = {
      schema: 'drb.generation-answers.v1',
      receipt_id: 'gen-0123456789',
      created_at: '2026-11-29T12:00:00.000Z',
      engine: { name: 'webllm', version: '0.2.86' },
      model_id: 'webllm-qwen2.5-0.5b-instruct-q4f16_1',
      prompt_set: { id: 'drb-gen-ja-en-v1', version: 1, sha256: 'a'.repeat(64) },
      answers: [
        { prompt_id: 'ja-train-delay', repetition: 1, seed: 17, text: 'はい', output_tokens: 2, truncated: false },
      ],
    };
    expect(GenerationAnswers.safeParse(answers).success).toBe(true);
    expect(GenerationReceipt.safeParse(answers).success).toBe(false);
  });
});
