/**
 * The sweep receipt (`drb.sweep-receipt.v1`): two routes of one model, interleaved and paired, over a declared ladder
 * of work sizes (the catalog's sweep ladder: for the ORT fixtures, the sequence length of the input), with the
 * agreement gate at every point, each point's time ratio with its bootstrap interval, and the crossover: the size
 * from which the other route wins, with its bootstrap interval, or "no crossover in the range".
 *
 * Its own receipt kind, on the one envelope every receipt shares (src/core/receipt/receipt-envelope.ts): app, engine,
 * model, capabilities, lifecycle, overlap, interruption and outcome as in the other kinds. Split as the device and
 * comparison receipts are: this file is the schema; sweep-statistics.ts computes each point and the crossover;
 * sweep-invariants.ts holds the rules beyond the schema.
 */
import { z } from 'zod';
import { Detail, ErrorCode, Identifier, ReceiptId } from '../text/bounded-text.ts';
import {
  AppInfo,
  Capabilities,
  EngineInfo,
  ExecutionProvider,
  InputInfo,
  InterruptedRun,
  IsoTime,
  Lifecycle,
  ModelInfo,
  RunOverlap,
  RuntimeInfo,
  SampleStats,
} from '../receipt/receipt.ts';
import { ConfidenceInterval, CrossoverEnd, CrossoverInterval, RatioVerdict } from '../stats/intervals.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';
import { DeviceState } from '../device/device-state.ts';
import { ComparisonTolerance } from './comparison-receipt.ts';
import { Stopping, StoppingRule } from './stopping-rule.ts';

export const SWEEP_RECEIPT_SCHEMA = 'drb.sweep-receipt.v1';

const Ms = z.number().finite().nonnegative();
const RouteId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/);

/** One of the two routes: what it asked for and what its one load established (each route loads once, in its own
 *  worker, and runs every size). */
export const SweepRoute = z.strictObject({
  id: RouteId,
  requested_ep: ExecutionProvider,
  completed_ep: ExecutionProvider.nullable(),
  threads_requested: z.number().int().positive().nullable(),
  threads_effective: z.number().int().positive().nullable(),
  session_create_ms: Ms.nullable(),
  runtime: RuntimeInfo.nullable(),
  /** As in comparison receipts: a WebGPU route on a software (fallback) adapter; null off WebGPU or unknown. */
  software_adapter: z.boolean().nullable(),
  /** Why the route failed to load (null when it loaded). */
  error: z.strictObject({ name: ErrorCode, message: Detail }).nullable(),
});
export type SweepRoute = z.infer<typeof SweepRoute>;

/** One route at one size: its timed samples in round order, their statistics, the last round's scores. */
export const SweepPointRoute = z.strictObject({
  route_id: RouteId,
  samples_ms: z.array(Ms).max(200),
  stats: SampleStats.nullable(),
  output: z
    .strictObject({
      count: z.number().int().nonnegative(),
      head: z.array(z.number().finite()).max(16),
      sha256: z.string().regex(SHA256_PATTERN),
    })
    .nullable(),
  /** Why this route stopped at this size (null when it ran every round). */
  error: z.strictObject({ name: ErrorCode, message: Detail }).nullable(),
});
export type SweepPointRoute = z.infer<typeof SweepPointRoute>;

/** One size of the ladder. */
export const SweepPoint = z.strictObject({
  /** The work size (the sequence length, for `sequence-length`). */
  size: z.number().int().positive(),
  /** The catalog input of this size and the SHA-256 of its bytes as served. */
  input: InputInfo,
  /** The interleaved order at this size: each round a shuffled permutation of the two routes, from `seed` (the
   *  receipt's seed plus the point's index). */
  schedule: z.strictObject({
    seed: z.number().int(),
    rounds: z.number().int().nonnegative(),
    order: z.array(Identifier),
  }),
  /** Both routes, in the receipt's route order. */
  routes: z.array(SweepPointRoute).length(2),
  /** The stopping rule at this point: every round's interval and why the rounds stopped. */
  stopping: Stopping,
  /** The last round's scores of the other route against the baseline's (null when either produced none). */
  agreement: z.strictObject({ max_abs_diff: z.number().finite().nonnegative(), same_order: z.boolean() }).nullable(),
  /** A point is valid when both routes ran every round and agree within the tolerance; an invalid point has no
   *  ratio and takes no part in the crossover. */
  valid: z.boolean(),
  invalid_reason: Detail.nullable(),
  /** median(other) / median(baseline) at this size, with its paired bootstrap interval and verdict. */
  ratio_to_baseline: z.number().finite().positive().nullable(),
  interval: ConfidenceInterval.nullable(),
  verdict: RatioVerdict.nullable(),
});
export type SweepPoint = z.infer<typeof SweepPoint>;

/**
 * Where one route starts to win. `crossover`: at `first_clear_size` the ratio's interval first lies clear of 1 in
 * `winner`'s favour, `winner` not being ahead at the smallest valid size; `none-in-range`: no size changes who is
 * ahead (`ahead_at_start` says who was, null for a tie); `too-few-points`: fewer than two valid points.
 * `estimate` is where the curve of median ratios crosses to the winner's side for good (interpolated in log size and
 * log ratio), with its bootstrap interval over the rounds of every point.
 */
export const Crossover = z.strictObject({
  status: z.enum(['crossover', 'none-in-range', 'too-few-points']),
  /** The smallest and largest valid sizes (null without a valid point). */
  range: z.strictObject({ smallest: z.number().int().positive(), largest: z.number().int().positive() }).nullable(),
  /** The route ahead (interval clear of 1) at the smallest valid size; null: neither is. */
  ahead_at_start: RouteId.nullable(),
  /** The route that starts to win at the crossover; null without one. */
  winner: RouteId.nullable(),
  first_clear_size: z.number().int().positive().nullable(),
  estimate: CrossoverEnd.nullable(),
  interval: CrossoverInterval.nullable(),
  /** Sizes left out of the crossover because their point is invalid. */
  invalid_sizes: z.array(z.number().int().positive()),
});
export type Crossover = z.infer<typeof Crossover>;

export const SweepReceipt = z.strictObject({
  schema: z.literal(SWEEP_RECEIPT_SCHEMA),
  receipt_id: ReceiptId,
  created_at: IsoTime,
  evidence_state: z.literal('DEVICE_RECEIPT'),
  app: AppInfo,
  engine: EngineInfo,
  model: ModelInfo,
  /** What a size measures: `sequence-length` (tokens of the input, for encoders and rerankers). */
  dimension: z.enum(['sequence-length']),
  /** The two routes: the baseline and the other. */
  routes: z.array(SweepRoute).length(2),
  baseline_route_id: RouteId,
  tolerance: ComparisonTolerance,
  /** The schedule seed of the sweep: point i uses seed + i. */
  seed: z.number().int(),
  /** The stopping rule every point ran under. */
  rule: StoppingRule,
  /** The ladder, smallest size first (points after a failure that ended the sweep are absent). */
  points: z.array(SweepPoint).min(1).max(32),
  crossover: Crossover,
  previous_run_interrupted: InterruptedRun.nullable(),
  overlap: RunOverlap,
  capabilities: Capabilities,
  lifecycle: Lifecycle,
  /** CPU pressure over the whole sweep and the drift probe between rounds (across every point, in order). */
  device_state: DeviceState,
  outcome: z.strictObject({ status: z.enum(['ok', 'failed']), reason: Detail.nullable() }),
});
export type SweepReceipt = z.infer<typeof SweepReceipt>;
