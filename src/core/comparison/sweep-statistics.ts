/**
 * The numbers of a sweep, from what the page measured at each size: each point's statistics, agreement gate,
 * validity, ratio and paired bootstrap interval (src/core/stats/ and comparison-statistics.ts's `agreement`, the
 * same as a comparison's), and the crossover over the valid points (`bootstrapCrossover` in src/core/stats/
 * intervals.ts). Deterministic, so sweep-invariants.ts recomputes every number from the samples.
 */
import { bootstrapCrossover, bootstrapRatioOfMedians, ratioVerdict, type CrossoverEnd } from '../stats/intervals.ts';
import { summarize } from '../stats/stats.ts';
import { threeSignificant } from '../text/format-number.ts';
import { boundDetail } from '../text/bounded-text.ts';
import { agreement } from './comparison-statistics.ts';
import type { Stopping } from './stopping-rule.ts';
import { SWEEP_RECEIPT_SCHEMA, type Crossover, type SweepPoint, type SweepReceipt } from './sweep-receipt.ts';

/** What the page measured on one route at one size. */
export interface SweepRouteMeasurement {
  route_id: string;
  samples_ms: number[];
  /** The last round's scores (null when none). */
  scores: number[] | null;
  scores_sha256: string | null;
  error: { name: string; message: string } | null;
}

/** What the page measured at one size. */
export interface SweepPointMeasurement {
  size: number;
  input: SweepPoint['input'];
  schedule: SweepPoint['schedule'];
  stopping: Stopping;
  /** Both routes, in the receipt's route order. */
  routes: [SweepRouteMeasurement, SweepRouteMeasurement];
}

/**
 * One point: statistics, the agreement gate, validity and the ratio with its interval.
 * @param m what the page measured at this size
 * @param baselineId the baseline route
 * @param toleranceAbs the largest absolute score difference still counted as agreeing
 */
export function sweepPoint(m: SweepPointMeasurement, baselineId: string, toleranceAbs: number): SweepPoint {
  const base = m.routes.find((r) => r.route_id === baselineId)!;
  const other = m.routes.find((r) => r.route_id !== baselineId)!;
  let invalid: string | null = null;
  let agree: SweepPoint['agreement'] = null;
  const failed = m.routes.find((r) => r.error !== null);
  if (failed) invalid = `route ${failed.route_id} failed: ${failed.error!.message}`;
  else if (m.routes.some((r) => r.samples_ms.length !== m.schedule.rounds || r.samples_ms.length === 0))
    invalid = 'a route did not run every round';
  else if (base.scores === null || other.scores === null) invalid = 'a route produced no scores';
  else if (base.scores.length !== other.scores.length)
    invalid = `produced ${other.scores.length} scores, the baseline ${base.scores.length}`;
  else {
    const a = agreement(base.scores, other.scores);
    agree = { max_abs_diff: a.max_abs_diff, same_order: a.same_order };
    if (a.max_abs_diff > toleranceAbs)
      invalid = `scores differ from the baseline by ${a.max_abs_diff} (tolerance ${toleranceAbs})`;
    else if (!a.same_order) invalid = 'orders the outputs differently from the baseline';
  }
  const valid = invalid === null;
  const result = valid ? bootstrapRatioOfMedians(base.samples_ms, other.samples_ms, { paired: true }) : null;
  return {
    size: m.size,
    input: m.input,
    schedule: m.schedule,
    routes: m.routes.map((r) => ({
      route_id: r.route_id,
      samples_ms: [...r.samples_ms],
      stats: summarize(r.samples_ms),
      output:
        r.scores === null || r.scores_sha256 === null
          ? null
          : { count: r.scores.length, head: r.scores.slice(0, 16), sha256: r.scores_sha256 },
      error: r.error,
    })),
    stopping: m.stopping,
    agreement: agree,
    valid,
    invalid_reason: invalid === null ? null : boundDetail(invalid),
    ratio_to_baseline: result?.estimate ?? null,
    interval: result?.interval ?? null,
    verdict: result === null ? null : ratioVerdict(result.interval),
  };
}

/** Which route a point's interval favours: `candidate` (the other route) when it is clearly faster, `baseline` when
 *  the other is clearly slower, null for no clear difference or no interval. */
function favoured(point: SweepPoint): 'candidate' | 'baseline' | null {
  if (point.verdict === 'faster') return 'candidate';
  if (point.verdict === 'slower') return 'baseline';
  return null;
}

/**
 * The crossover over the valid points that have an interval (the others are listed in `invalid_sizes`).
 * @param points the sweep's points, smallest size first
 * @param baselineId the baseline route
 * @param otherId the other route
 */
export function sweepCrossover(points: readonly SweepPoint[], baselineId: string, otherId: string): Crossover {
  const usable = points.filter((p) => p.valid && p.interval !== null && p.ratio_to_baseline !== null);
  const invalid_sizes = points.filter((p) => !usable.includes(p)).map((p) => p.size);
  const range = usable.length === 0 ? null : { smallest: usable[0].size, largest: usable.at(-1)!.size };
  const idOf = (side: 'candidate' | 'baseline' | null) =>
    side === null ? null : side === 'candidate' ? otherId : baselineId;
  const none = { winner: null, first_clear_size: null, estimate: null, interval: null, invalid_sizes };
  if (usable.length < 2)
    return {
      status: 'too-few-points',
      range,
      ahead_at_start: usable.length === 0 ? null : idOf(favoured(usable[0])),
      ...none,
    };
  const start = favoured(usable[0]);
  const turn = usable.find((p) => {
    const side = favoured(p);
    return side !== null && side !== start;
  });
  if (turn === undefined) return { status: 'none-in-range', range, ahead_at_start: idOf(start), ...none };
  const side = favoured(turn)!;
  const { estimate, interval } = bootstrapCrossover(
    usable.map((p) => ({
      size: p.size,
      baseline: p.routes.find((r) => r.route_id === baselineId)!.samples_ms,
      candidate: p.routes.find((r) => r.route_id === otherId)!.samples_ms,
    })),
    side,
  );
  const end: CrossoverEnd = estimate === -Infinity ? 'below-range' : estimate === Infinity ? 'beyond-range' : estimate;
  return {
    status: 'crossover',
    range,
    ahead_at_start: idOf(start),
    winner: idOf(side),
    first_clear_size: turn.size,
    estimate: end,
    interval,
    invalid_sizes,
  };
}

const UNITS: Record<SweepReceipt['dimension'], string> = { 'sequence-length': 'tokens' };

function endText(end: CrossoverEnd, units: string): string {
  if (end === 'below-range') return 'below the smallest size';
  if (end === 'beyond-range') return 'beyond the largest size';
  return `${threeSignificant(end)} ${units}`;
}

/**
 * The crossover in one sentence for people, e.g. "wasm-2 starts to win at 128 tokens (its interval first clear of 1
 * there; the median ratios cross at about 97.4 tokens, 95% interval 70.1 to 121 tokens)" or "No crossover in 8 to
 * 512 tokens: wasm-1 is ahead at the smallest size and no size turns it". Route ids are given as they are: the
 * caller escapes for Markdown or HTML.
 * @param receipt a sweep receipt
 */
export function crossoverSentence(receipt: Pick<SweepReceipt, 'crossover' | 'dimension'>): string {
  const c = receipt.crossover;
  const units = UNITS[receipt.dimension];
  const left =
    c.invalid_sizes.length === 0
      ? ''
      : ` (left out, invalid or without an interval: ${c.invalid_sizes.join(', ')} ${units})`;
  if (c.status === 'too-few-points') return `No crossover can be told: fewer than two valid sizes${left}`;
  const range = `${c.range!.smallest} to ${c.range!.largest} ${units}`;
  if (c.status === 'none-in-range') {
    const who =
      c.ahead_at_start === null
        ? 'neither route is clearly ahead at the smallest size, and none is at any larger size'
        : `${c.ahead_at_start} is ahead at the smallest size and no size turns it`;
    return `No crossover in ${range}: ${who}${left}`;
  }
  const interval =
    c.interval === null
      ? ''
      : `, ${Math.round(c.interval.level * 100)}% interval ${endText(c.interval.low, units)} to ${endText(c.interval.high, units)}`;
  return `${c.winner} starts to win at ${c.first_clear_size} ${units} in ${range} (its interval first clear of 1 there; the median ratios cross at ${endText(c.estimate!, units)}${interval})${left}`;
}

/** Everything a sweep receipt holds that the page measured or knew, before the points are judged. */
export type SweepDraft = Omit<SweepReceipt, 'schema' | 'evidence_state' | 'points' | 'crossover' | 'outcome'> & {
  points: SweepPointMeasurement[];
  /** The run was cancelled (the receipt then fails with reason `cancelled`). */
  cancelled: boolean;
};

/**
 * The sweep receipt from a draft: every point judged (`sweepPoint`), the crossover over the valid ones, and the
 * outcome: failed when cancelled, when a route failed to load, or when no size is valid; ok otherwise.
 * @param draft what the page measured
 */
export function buildSweepReceipt(draft: SweepDraft): SweepReceipt {
  const { points: measured, cancelled, ...rest } = draft;
  const points = measured.map((m) => sweepPoint(m, draft.baseline_route_id, draft.tolerance.max_abs_diff));
  const otherId = draft.routes.find((r) => r.id !== draft.baseline_route_id)!.id;
  const failedRoute = draft.routes.find((r) => r.error !== null);
  const reason = cancelled
    ? 'cancelled'
    : failedRoute
      ? `route ${failedRoute.id} failed to load: ${failedRoute.error!.message}`
      : points.some((p) => p.valid)
        ? null
        : 'no size of the ladder is valid (every point failed or disagreed)';
  return {
    schema: SWEEP_RECEIPT_SCHEMA,
    ...rest,
    evidence_state: 'DEVICE_RECEIPT',
    points,
    crossover: sweepCrossover(points, draft.baseline_route_id, otherId),
    outcome: reason === null ? { status: 'ok', reason: null } : { status: 'failed', reason: boundDetail(reason) },
  } as SweepReceipt;
}
