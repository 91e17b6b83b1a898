/**
 * The comparison receipt (`drb.comparison-receipt.v2`): one model, one input (a fixed token input, or candidate rows
 * of a suite for rerankers and candidate scorers), several routes (for example wasm with 1 thread, wasm with 2
 * threads, webgpu) timed in an interleaved shuffled order, with per-route medians, ratios against a chosen baseline
 * and an agreement check of every route's scores against the baseline's.
 *
 * A route whose scores differ from the baseline's by more than the tolerance, or order the candidates differently,
 * is marked invalid and gets no rank and no ratio: a fast wrong answer is never reported as faster.
 *
 * Version 2 adds the `headline`: each valid route's time ratio against the baseline with its bootstrap 95% interval
 * over the interleaved rounds (src/core/stats/intervals.ts) and the verdict that interval supports. A v1 receipt (no
 * headline) is refused by validate: it came from an earlier page version.
 *
 * Split as the device receipt is: this file is the schema; comparison-statistics.ts computes the routes' statistics,
 * agreement, ranks and headline from what the page measured; comparison-invariants.ts holds the rules beyond the
 * schema that `drb receipts validate` and the page check.
 */
import { z } from 'zod';
import { boundDetail, Detail, ErrorCode, Identifier, ReceiptId, textLine } from '../text/bounded-text.ts';

// An item row's id comes from the user's items file: any one line of text, bounded.
const ItemId = textLine(256).pipe(z.string().min(1));
import {
  AppInfo,
  Capabilities,
  EngineInfo,
  ExecutionProvider,
  InputInfo,
  InterruptedRun,
  RunOverlap,
  IsoTime,
  Lifecycle,
  ModelInfo,
  RuntimeInfo,
  SampleStats,
} from '../receipt/receipt.ts';
import { Placement } from '../receipt/ep-placement.ts';
import { OutputCheck } from '../catalog/output-check.ts';
import { ConfidenceInterval, RatioVerdict } from '../stats/intervals.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';
import { DeviceState } from '../device/device-state.ts';
import { Stopping } from './stopping-rule.ts';

export const COMPARISON_RECEIPT_SCHEMA = 'drb.comparison-receipt.v2';

const Ms = z.number().finite().nonnegative();

export const ComparisonRoute = z.strictObject({
  /** Short stable id used in the schedule, e.g. `wasm-1`, `wasm-2`, `webgpu`. */
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/),
  requested_ep: ExecutionProvider,
  /** The EP that really ran (null when the route failed before running); a comparison never falls back. */
  completed_ep: ExecutionProvider.nullable(),
  threads_requested: z.number().int().positive().nullable(),
  threads_effective: z.number().int().positive().nullable(),
  /** Session creation on this route, kept out of the timed samples. */
  session_create_ms: Ms.nullable(),
  /** The runtime build this route loaded (each route loads in its own worker: plain for wasm, JSPI or asyncify for webgpu)
   *  with its files and the `.wasm`'s SHA-256, as in device receipts; null when the route failed before loading one;
   *  absent in receipts written before routes recorded it. Routes on different builds are compared knowingly: see
   *  `runtimeBuildNote`. */
  runtime: RuntimeInfo.nullable().optional(),
  /** Timed inferences in the order they ran (round 1 first). */
  samples_ms: z.array(Ms),
  stats: SampleStats.nullable(),
  /** The scores this route produced (at most 16 shown; the agreement check used all of them) and their digest. */
  output: z
    .strictObject({
      count: z.number().int().nonnegative(),
      head: z.array(z.number().finite()).max(16),
      sha256: z.string().regex(SHA256_PATTERN),
    })
    .nullable(),
  agreement: z
    .strictObject({
      max_abs_diff: z.number().finite().nonnegative(),
      /** For candidate rows: every row's candidates in the same order as the baseline's. */
      same_order: z.boolean(),
      /** Candidate rows only: ids of the rows whose candidate order differs from the baseline's (null for a fixed input). */
      rows_in_other_order: z.array(ItemId).nullable(),
    })
    .nullable(),
  ratio_to_baseline: z.number().finite().positive().nullable(),
  speedup_vs_baseline: z.number().finite().positive().nullable(),
  valid: z.boolean(),
  invalid_reason: Detail.nullable(),
  /** 1 = fastest median among valid routes; null for an invalid route. A route whose headline verdict is
   *  `no-clear-difference` is a tie with the baseline whatever its rank. */
  rank: z.number().int().positive().nullable(),
  error: z.strictObject({ name: ErrorCode, message: Detail }).nullable(),
  /** A route that ran on WebGPU: true when the adapter is a software (fallback) one, such as SwiftShader, so its
   *  timings are not representative of the device's GPU; false on a hardware adapter; null when the browser does not
   *  say, and for a route that did not run on WebGPU. Equals `capabilities.webgpu.is_fallback_adapter` for a WebGPU
   *  route. Absent in receipts made before the page recorded it. */
  software_adapter: z.boolean().nullable().optional(),
  /** Where this route's work ran (as a device receipt's `placement`: ORT's profile of the route's first run); null when
   *  the route failed before it; absent in receipts made before routes recorded it. */
  placement: Placement.nullable().optional(),
  /** A model with trained weights: the correctness check of the route's last run (as a device receipt's `check`). */
  check: OutputCheck.nullable().optional(),
});
export type ComparisonRoute = z.infer<typeof ComparisonRoute>;

/**
 * What a comparison on candidate rows scored: which suite (by the SHA-256 of both artifacts), which rows (ids and
 * candidate counts, in order; no text) and the versioned text template. Each route's scores are the rows' scores
 * concatenated in this order.
 */
export const CandidateRowsInfo = z.strictObject({
  suite_id: Identifier,
  task: z.enum(['rerank', 'score-candidates']),
  /** The scoring-text template id (drb.rerank-pair.v1 or drb.score-prompt.v1), as in suite receipts. */
  text_template: textLine(256).pipe(z.string().min(1)),
  items_sha256: z.string().regex(SHA256_PATTERN),
  candidates_sha256: z.string().regex(SHA256_PATTERN),
  rows: z.array(z.strictObject({ id: ItemId, candidates: z.number().int().positive() })).min(1),
});
export type CandidateRowsInfo = z.infer<typeof CandidateRowsInfo>;

/**
 * The comparison's result in one place: for every valid route other than the baseline (in rank order), median(route)
 * / median(baseline) with its percentile-bootstrap 95% interval, resampling the interleaved rounds as pairs, and
 * whether the interval excludes 1 (`faster`, `slower`) or not (`no-clear-difference`: a tie, whatever the ranks
 * say). `interval` and `verdict` are null when a sample is zero (a timer too coarse for the run). The whole headline
 * is null when the baseline is invalid: then nothing can be compared with it.
 */
export const ComparisonHeadline = z.strictObject({
  baseline_route_id: Identifier,
  routes: z.array(
    z.strictObject({
      route_id: Identifier,
      ratio_to_baseline: z.number().finite().positive(),
      interval: ConfidenceInterval.nullable(),
      verdict: RatioVerdict.nullable(),
    }),
  ),
});
export type ComparisonHeadline = z.infer<typeof ComparisonHeadline>;

/** The agreement bound a comparison (or sweep) holds its routes to, and where it came from. */
export const ComparisonTolerance = z.strictObject({
  max_abs_diff: z.number().finite().nonnegative(),
  /**
   * `source`: `default` = the bound for the score kind and the graph's dtype (src/core/comparison/dtype-tolerance.ts),
   * whose `reason` is given; `setting` = the `tolerance` parameter named it (reason null). `score_kind`: `logits`
   * (a fixed input's outputs, a reranker's pair scores) or `summed-log-probs` (a candidate scorer's). Absent only in
   * receipts of pages that predate it, which always used the one setting (1e-4 unless set).
   */
  basis: z
    .strictObject({
      source: z.enum(['default', 'setting']),
      score_kind: z.enum(['logits', 'summed-log-probs']),
      reason: Detail.nullable(),
    })
    .optional(),
});
export type ComparisonTolerance = z.infer<typeof ComparisonTolerance>;

export const ComparisonReceipt = z.strictObject({
  schema: z.literal(COMPARISON_RECEIPT_SCHEMA),
  receipt_id: ReceiptId,
  created_at: IsoTime,
  evidence_state: z.literal('DEVICE_RECEIPT'),
  app: AppInfo,
  engine: EngineInfo,
  model: ModelInfo,
  /** The input every route scored: a catalog fixed input, or (candidate rows) an id naming the suite and row count
   *  with the SHA-256 of the exact scoring inputs sent to the engine. */
  input: InputInfo,
  /** Set when the comparison ran on candidate rows (rerank / score-candidates models); null for a fixed input. */
  candidate_rows: CandidateRowsInfo.nullable(),
  schedule: z.strictObject({
    seed: z.number().int(),
    rounds: z.number().int().positive(),
    /** Route ids in the order they ran (rounds x routes). */
    order: z.array(Identifier),
  }),
  baseline_route_id: Identifier,
  /** The agreement bound every route is held to, and where it came from. */
  tolerance: ComparisonTolerance,
  routes: z.array(ComparisonRoute).min(2),
  /** Ratios against the baseline with their 95% intervals and verdicts (see ComparisonHeadline); null when the
   *  baseline is invalid. */
  headline: ComparisonHeadline.nullable(),
  /** The declared stopping rule, every round's intervals and why the rounds stopped (src/core/comparison/
   *  stopping-rule.ts). Absent in receipts made before the page recorded it (they ran a fixed number of rounds). */
  stopping: Stopping.optional(),
  /** The device's CPU pressure and the drift probe between rounds (src/core/device/device-state.ts). Absent in
   *  receipts made before the page recorded it. */
  device_state: DeviceState.optional(),
  /** The journal's interrupted run this run found pending at its start (see docs/interrupted-runs.md), or null. */
  previous_run_interrupted: InterruptedRun.nullable(),
  /** Another run during this one (see RunOverlap in src/core/receipt/receipt.ts); absent in receipts made before the page
   *  watched for it. */
  overlap: RunOverlap.optional(),
  capabilities: Capabilities,
  lifecycle: Lifecycle,
  outcome: z.strictObject({ status: z.enum(['ok', 'failed']), reason: Detail.nullable() }),
});
export type ComparisonReceipt = z.infer<typeof ComparisonReceipt>;

/** A route's runtime build as one short label: the build and the first 12 hex digits of its `.wasm`'s SHA-256. */
function buildLabel(runtime: RuntimeInfo): string | null {
  const wasm = runtime.files.find((f) => /\.wasm$/.test(f.url) && f.sha256 !== null);
  if (!runtime.build && !wasm) return null;
  return `${runtime.build ?? 'unknown build'}${wasm?.sha256 ? ` (.wasm ${wasm.sha256.slice(0, 12)})` : ''}`;
}

/**
 * One line when the compared routes ran different runtime builds (another build, or the same build name with other
 * `.wasm` bytes), so a ratio is never read as the execution provider's alone; null when every route that loaded a
 * runtime loaded the same one (or fewer than two recorded one).
 * @param routes the comparison's routes
 */
export function runtimeBuildNote(routes: ReadonlyArray<Pick<ComparisonRoute, 'id' | 'runtime'>>): string | null {
  const labelled = routes.flatMap((r) => {
    const label = r.runtime ? buildLabel(r.runtime) : null;
    return label === null ? [] : [{ id: r.id, label }];
  });
  if (labelled.length < 2 || new Set(labelled.map((r) => r.label)).size === 1) return null;
  return boundDetail(
    `routes ran different runtime builds (${labelled.map((r) => `${r.id}: ${r.label}`).join(', ')}): their time ratios include the build difference`,
  );
}

/** One route's placement in a few words: `webgpu: 2 of 17 nodes on the CPU (LogSoftmax x2)`. */
function placementLabel(id: string, placement: Placement): string {
  if (placement.source === 'webgpu-by-construction') return `${id}: all on WebGPU by construction`;
  const ops = placement.cpu_ops.map((o) => `${o.op} x${o.count}`).join(', ');
  if (placement.cpu_nodes === placement.total_nodes) return `${id}: all ${placement.total_nodes} nodes on the CPU`;
  return `${id}: ${placement.cpu_nodes} of ${placement.total_nodes} nodes on the CPU${ops ? ` (${ops})` : ''}`;
}

/**
 * One line when the compared routes differ in where their work ran beyond their execution providers: a `webgpu` route
 * that ran nodes on the CPU (a partial fallback: its time holds CPU work and copies between CPU and GPU), or two
 * routes of the same EP whose CPU node counts differ; null when no route says, or they do not differ so.
 * @param routes the comparison's routes
 */
export function placementNote(
  routes: ReadonlyArray<Pick<ComparisonRoute, 'id' | 'completed_ep' | 'placement'>>,
): string | null {
  const placed = routes.flatMap((r) => (r.placement ? [{ id: r.id, ep: r.completed_ep, placement: r.placement }] : []));
  if (placed.length === 0) return null;
  const partial = placed.some((r) => r.placement.partial_fallback);
  const sameEpDiffers = placed.some((a) =>
    placed.some((b) => a.ep === b.ep && a.placement.cpu_nodes !== b.placement.cpu_nodes),
  );
  if (!partial && !sameEpDiffers) return null;
  return boundDetail(
    `the routes differ in where their work ran (${placed.map((r) => placementLabel(r.id, r.placement)).join('; ')}): a route's time includes the work it ran on the CPU and the copies between CPU and GPU`,
  );
}
