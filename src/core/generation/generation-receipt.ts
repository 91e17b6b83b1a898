/**
 * The generation receipt (`drb.generation-receipt.v2`): what one generation run (warm-up + measured prompts x
 * repetitions) measured on one device. It holds timings and token counts only: never a prompt or an answer (the
 * answers travel in a separate artifact the user downloads on purpose, see generation-answers.ts).
 *
 * Warm statistics come from the measured samples only; the cold load (engine/model load) and the warm-up are
 * recorded apart and never enter them. The primary timings are the page's own clock; an engine's self-report
 * (WebLLM's usage.extra) sits beside each sample with the difference.
 */
import { z } from 'zod';
import { Detail, ErrorCode, Identifier, ReceiptId } from '../text/bounded-text.ts';
import {
  AppInfo,
  Capabilities,
  EngineInfo,
  InterruptedRun,
  RunOverlap,
  IsoTime,
  Lifecycle,
  ModelInfo,
  Route,
  RuntimeInfo,
} from '../receipt/receipt.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';
import { median, percentile } from '../stats/stats.ts';

export const GENERATION_RECEIPT_SCHEMA = 'drb.generation-receipt.v2';

/** How many samples each end of the run contributes to the sustained-speed ratio. */
export const SUSTAINED_WINDOW = 5;

const Ms = z.number().finite().nonnegative();
const Rate = z.number().finite().nonnegative();
const Diff = z.number().finite();
const Sha256 = z.string().regex(SHA256_PATTERN, 'expected a lowercase hex SHA-256');

export const GenerationStage = z.enum(['gate', 'load', 'warmup', 'measured']);
export type GenerationStage = z.infer<typeof GenerationStage>;

export const EngineReportedTiming = z.strictObject({
  ttft_ms: Ms,
  e2e_ms: Ms,
  prefill_tokens_per_s: Rate,
  decode_tokens_per_s: Rate,
});

export const GenerationSample = z.strictObject({
  repetition: z.number().int().positive(),
  prompt_id: Identifier,
  prompt_index: z.number().int().nonnegative(),
  seed: z.number().int().nullable(),
  outcome: z.enum(['ok', 'failed']),
  prompt_tokens: z.number().int().nonnegative().nullable(),
  output_tokens: z.number().int().nonnegative().nullable(),
  truncated: z.boolean().nullable(),
  ttft_ms: Ms.nullable(),
  e2e_ms: Ms.nullable(),
  prefill_tokens_per_s: Rate.nullable(),
  decode_tokens_per_s: Rate.nullable(),
  engine_reported: EngineReportedTiming.nullable(),
  clock_minus_engine: z
    .strictObject({ ttft_ms: Diff.nullable(), e2e_ms: Diff, decode_tokens_per_s: Diff.nullable() })
    .nullable(),
  error: z.strictObject({ name: ErrorCode, message: Detail }).nullable(),
});
export type GenerationSample = z.infer<typeof GenerationSample>;

export const GenerationSummary = z.strictObject({
  measured_planned: z.number().int().nonnegative(),
  ok_samples: z.number().int().nonnegative(),
  failures: z.number().int().nonnegative(),
  truncations: z.number().int().nonnegative(),
  ttft_ms_median: Ms.nullable(),
  /** Nearest-rank p95 (stats.ts), so it is an observed sample. */
  ttft_ms_p95: Ms.nullable(),
  decode_tokens_per_s_median: Rate.nullable(),
  prefill_tokens_per_s_median: Rate.nullable(),
  e2e_ms_median: Ms.nullable(),
  output_tokens_median: z.number().nonnegative().nullable(),
  /** Median decode speed of the last five measured samples over the first five, in execution order; null under ten. */
  sustained_speed_ratio: z.number().finite().positive().nullable(),
  /** The engine's self-report summarised the same way (null when the engine gives none), with the largest gaps. */
  engine_reported: z
    .strictObject({
      ttft_ms_median: Ms.nullable(),
      decode_tokens_per_s_median: Rate.nullable(),
      e2e_ms_median: Ms.nullable(),
      max_abs_ttft_diff_ms: Ms.nullable(),
      max_abs_e2e_diff_ms: Ms.nullable(),
    })
    .nullable(),
});
export type GenerationSummary = z.infer<typeof GenerationSummary>;

export const GenerationError = z.strictObject({
  stage: GenerationStage,
  prompt_id: Identifier.nullable(),
  repetition: z.number().int().positive().nullable(),
  name: ErrorCode,
  message: Detail,
});
export type GenerationError = z.infer<typeof GenerationError>;

export const GenerationReceipt = z.strictObject({
  schema: z.literal(GENERATION_RECEIPT_SCHEMA),
  receipt_id: ReceiptId,
  created_at: IsoTime,
  evidence_state: z.literal('DEVICE_RECEIPT'),
  app: AppInfo,
  engine: EngineInfo,
  route: Route,
  model: ModelInfo,
  /** The runtime build the load used and its files with the `.wasm`'s SHA-256, as in device receipts (build null and
   *  no files when the load did not complete, or for WebLLM); absent in receipts written before it. */
  runtime: RuntimeInfo.optional(),
  prompt_set: z.strictObject({
    id: Identifier,
    version: z.number().int().positive(),
    /** SHA-256 of the prompt-set file bytes that ran. */
    sha256: Sha256,
    measured_prompts: z.number().int().positive(),
  }),
  plan: z.strictObject({
    repetitions: z.number().int().positive(),
    seed_control: z.enum(['seeded', 'no-seed-control']),
    seeds: z.array(z.number().int()).nullable(),
    max_new_tokens: z.number().int().positive(),
    /** True when the run replaced the prompt set's token limit (results then differ from a default run's). */
    max_new_tokens_overridden: z.boolean(),
    temperature: z.number().nonnegative(),
    warmup_prompt_id: Identifier,
  }),
  /** Where the timings come from: always the page clock; `engine_reported` fields are the engine's own words. */
  timing_source: z.literal('page-clock'),
  cold: z.strictObject({
    /** Engine + model load (download, compile, weights to device), kept out of every warm statistic. */
    load_ms: Ms.nullable(),
    /** The untimed warm-up's duration, recorded for the record only. */
    warmup_e2e_ms: Ms.nullable(),
    /** TTFT of the warm-up: the first generation after the load, i.e. the cold TTFT (never in the warm TTFT stats). */
    warmup_ttft_ms: Ms.nullable(),
  }),
  samples: z.array(GenerationSample),
  summary: GenerationSummary,
  /** The journal's interrupted run this run found pending at its start (see docs/interrupted-runs.md), or null. */
  previous_run_interrupted: InterruptedRun.nullable(),
  /** Another run during this one (see RunOverlap in src/core/receipt/receipt.ts); absent in receipts made before the page
   *  watched for it. */
  overlap: RunOverlap.optional(),
  capabilities: Capabilities,
  lifecycle: Lifecycle,
  errors: z.array(GenerationError),
  outcome: z.strictObject({ status: z.enum(['ok', 'failed']), reason: Detail.nullable() }),
});
export type GenerationReceipt = z.infer<typeof GenerationReceipt>;

function nonNull(values: ReadonlyArray<number | null>): number[] {
  return values.filter((v): v is number => v !== null);
}

/**
 * Sustained-speed ratio: median decode speed of the last SUSTAINED_WINDOW samples over the first SUSTAINED_WINDOW,
 * taken over the whole run in execution order (so thermal throttling across repetitions shows); null with fewer
 * than twice the window of decode speeds.
 * @param decodeTokensPerSInOrder decode speeds of the ok samples, in the order they ran
 */
export function sustainedSpeedRatio(decodeTokensPerSInOrder: readonly number[]): number | null {
  const n = decodeTokensPerSInOrder.length;
  if (n < 2 * SUSTAINED_WINDOW) return null;
  const first = median(decodeTokensPerSInOrder.slice(0, SUSTAINED_WINDOW))!;
  const last = median(decodeTokensPerSInOrder.slice(n - SUSTAINED_WINDOW))!;
  return first > 0 && last > 0 ? last / first : null;
}

/**
 * The summary of a run's samples (failed samples count as failures and enter no statistic).
 * @param samples measured samples in execution order
 * @param measuredPlanned how many measured samples the plan held (repetitions x prompts)
 */
export function summarizeGeneration(samples: readonly GenerationSample[], measuredPlanned: number): GenerationSummary {
  const ok = samples.filter((s) => s.outcome === 'ok');
  const ttft = nonNull(ok.map((s) => s.ttft_ms));
  const decode = nonNull(ok.map((s) => s.decode_tokens_per_s));
  const withReport = ok.filter((s) => s.engine_reported !== null);
  const maxAbs = (values: number[]) => (values.length === 0 ? null : Math.max(...values.map(Math.abs)));
  return {
    measured_planned: measuredPlanned,
    ok_samples: ok.length,
    failures: samples.length - ok.length,
    truncations: ok.filter((s) => s.truncated === true).length,
    ttft_ms_median: median(ttft),
    ttft_ms_p95: percentile(ttft, 95),
    decode_tokens_per_s_median: median(decode),
    prefill_tokens_per_s_median: median(nonNull(ok.map((s) => s.prefill_tokens_per_s))),
    e2e_ms_median: median(nonNull(ok.map((s) => s.e2e_ms))),
    output_tokens_median: median(nonNull(ok.map((s) => s.output_tokens))),
    sustained_speed_ratio: sustainedSpeedRatio(decode),
    engine_reported:
      withReport.length === 0
        ? null
        : {
            ttft_ms_median: median(withReport.map((s) => s.engine_reported!.ttft_ms)),
            decode_tokens_per_s_median: median(withReport.map((s) => s.engine_reported!.decode_tokens_per_s)),
            e2e_ms_median: median(withReport.map((s) => s.engine_reported!.e2e_ms)),
            max_abs_ttft_diff_ms: maxAbs(nonNull(withReport.map((s) => s.clock_minus_engine?.ttft_ms ?? null))),
            max_abs_e2e_diff_ms: maxAbs(nonNull(withReport.map((s) => s.clock_minus_engine?.e2e_ms ?? null))),
          },
  };
}

/** One broken rule of a generation receipt: field path and problem. */
export interface GenerationProblem {
  path: string;
  message: string;
}

const TOLERANCE = 1e-6;
function close(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));
}

/**
 * Rules beyond the schema: the summary is exactly what the samples give, samples follow the plan's order and seeds,
 * ok samples are fully timed, and the outcome is honest (ok only when every planned prompt ran and none failed).
 * @param receipt a receipt that already passed `GenerationReceipt.safeParse`
 */
export function checkGenerationReceipt(receipt: GenerationReceipt): GenerationProblem[] {
  const problems: GenerationProblem[] = [];
  const { plan, samples, summary, outcome } = receipt;
  const planned = plan.repetitions * receipt.prompt_set.measured_prompts;
  if (summary.measured_planned !== planned) {
    problems.push({
      path: 'summary.measured_planned',
      message: `is ${summary.measured_planned} but the plan gives ${planned}`,
    });
  }
  if (plan.seed_control === 'seeded' && (plan.seeds === null || plan.seeds.length !== plan.repetitions)) {
    problems.push({ path: 'plan.seeds', message: 'a seeded plan declares one seed per repetition' });
  }
  if (plan.seed_control === 'no-seed-control' && plan.seeds !== null) {
    problems.push({ path: 'plan.seeds', message: 'must be null when the engine has no seed control' });
  }
  let previous = -1;
  samples.forEach((s, i) => {
    const at = `samples[${i}]`;
    const order = (s.repetition - 1) * receipt.prompt_set.measured_prompts + s.prompt_index;
    if (s.repetition > plan.repetitions || s.prompt_index >= receipt.prompt_set.measured_prompts) {
      problems.push({ path: at, message: 'lies outside the plan' });
    } else if (order <= previous) {
      problems.push({ path: at, message: 'is out of the plan order (repetition, then prompt index)' });
    }
    previous = order;
    const expectedSeed = plan.seeds === null ? null : (plan.seeds[s.repetition - 1] ?? null);
    if (s.seed !== expectedSeed)
      problems.push({ path: `${at}.seed`, message: `is ${s.seed} but the plan gives ${expectedSeed}` });
    if (s.outcome === 'ok') {
      for (const key of ['output_tokens', 'truncated', 'e2e_ms'] as const) {
        if (s[key] === null) problems.push({ path: `${at}.${key}`, message: 'an ok sample must have it' });
      }
      if (s.error !== null) problems.push({ path: `${at}.error`, message: 'an ok sample carries no error' });
    } else if (s.error === null) {
      problems.push({ path: `${at}.error`, message: 'a failed sample must say why' });
    }
  });
  const recomputed = summarizeGeneration(samples, planned);
  for (const key of Object.keys(recomputed) as Array<keyof GenerationSummary>) {
    if (key === 'engine_reported') {
      const a = summary.engine_reported;
      const b = recomputed.engine_reported;
      if ((a === null) !== (b === null)) {
        problems.push({ path: 'summary.engine_reported', message: 'does not match the samples' });
      } else if (a !== null && b !== null) {
        for (const k of Object.keys(b) as Array<keyof typeof b>) {
          if (!close(a[k], b[k]))
            problems.push({ path: `summary.engine_reported.${k}`, message: `is ${a[k]} but the samples give ${b[k]}` });
        }
      }
    } else if (!close(summary[key], recomputed[key])) {
      problems.push({ path: `summary.${key}`, message: `is ${summary[key]} but the samples give ${recomputed[key]}` });
    }
  }
  if (outcome.status === 'ok') {
    if (samples.length !== planned)
      problems.push({
        path: 'samples',
        message: `an ok run holds all ${planned} planned samples, not ${samples.length}`,
      });
    if (recomputed.failures > 0) problems.push({ path: 'outcome.status', message: 'is "ok" although samples failed' });
    if (outcome.reason !== null) problems.push({ path: 'outcome.reason', message: 'an ok outcome carries no reason' });
    if (receipt.route.completed_ep === null)
      problems.push({ path: 'route.completed_ep', message: 'an ok run completed on some EP' });
  } else if (outcome.reason === null || outcome.reason.trim() === '') {
    problems.push({ path: 'outcome.reason', message: 'a failed run must say why' });
  }
  return problems;
}
