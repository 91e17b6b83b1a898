/**
 * The numbers of a comparison, from what the page measured on each route: per-route statistics (src/core/stats/
 * stats.ts), agreement of every route's scores with the baseline's, validity, ratios and ranks, and the headline's
 * ratios with their bootstrap intervals over the interleaved rounds (src/core/stats/intervals.ts). Nothing is
 * re-implemented here: the medians and intervals are the statistics module's, so the page, the invariants and the
 * receipts summary compute every number the same way.
 */
import type { Placement } from '../receipt/ep-placement.ts';
import type { OutputCheck } from '../catalog/output-check.ts';
import { boundDetail } from '../text/bounded-text.ts';
import type { RuntimeInfo } from '../receipt/receipt.ts';
import { bootstrapRatioOfMedians, ratioVerdict } from '../stats/intervals.ts';
import { summarize } from '../stats/stats.ts';
import type { ComparisonHeadline, ComparisonRoute } from './comparison-receipt.ts';

/** What the page measured on one route, before any comparison. */
export interface RouteMeasurement {
  id: string;
  requested_ep: 'wasm' | 'webgpu';
  completed_ep: 'wasm' | 'webgpu' | null;
  threads_requested: number | null;
  threads_effective: number | null;
  session_create_ms: number | null;
  /** The runtime the route's load used (null or absent when it failed before loading one). */
  runtime?: RuntimeInfo | null;
  samples_ms: number[];
  /** Every score (or output value) the route produced for the input (candidate rows: concatenated in row order);
   *  null when it produced none. */
  scores: number[] | null;
  scores_sha256: string | null;
  error: { name: string; message: string } | null;
  /** Where the route's work ran (the worker's diagnostics); absent or null when not known. */
  placement?: Placement | null;
  /** The trained model's correctness check of the route's last run; absent or null for models without one. */
  check?: OutputCheck | null;
}

/** Candidate order: indices sorted by descending score, ties kept in index order (a stable sort). */
export function scoreOrder(scores: readonly number[]): number[] {
  return scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
}

/** One candidate row's slice of a route's scores: the row id and how many candidates (scores) it has. */
export interface ScoreGroup {
  id: string;
  count: number;
}

/** The agreement of one route with the baseline. */
export type Agreement = NonNullable<ComparisonRoute['agreement']>;

function sameOrder(a: readonly number[], b: readonly number[]): boolean {
  const x = scoreOrder(a);
  const y = scoreOrder(b);
  return x.every((v, i) => v === y[i]);
}

/**
 * Agreement of `scores` with the baseline's: largest absolute difference and whether the candidate order is the same.
 * Without groups the whole output is one ordering (a fixed input's logits); with groups each candidate row is ordered
 * on its own (a candidate never competes with another row's), and the rows whose order differs are named.
 * @param baseline the baseline route's scores
 * @param scores another route's scores for the same input (same length)
 * @param groups the candidate rows the scores are made of, in order (their counts sum to the score count); null for
 *   a fixed input
 */
export function agreement(baseline: readonly number[], scores: readonly number[], groups: readonly ScoreGroup[] | null = null): Agreement {
  if (baseline.length !== scores.length) throw new RangeError(`score counts differ: ${baseline.length} vs ${scores.length}`);
  let maxAbsDiff = 0;
  for (let i = 0; i < scores.length; i++) maxAbsDiff = Math.max(maxAbsDiff, Math.abs(scores[i] - baseline[i]));
  if (groups === null) return { max_abs_diff: maxAbsDiff, same_order: sameOrder(baseline, scores), rows_in_other_order: null };
  const total = groups.reduce((sum, g) => sum + g.count, 0);
  if (total !== scores.length) throw new RangeError(`the rows hold ${total} candidates, the scores are ${scores.length}`);
  const other: string[] = [];
  let start = 0;
  for (const group of groups) {
    const end = start + group.count;
    if (!sameOrder(baseline.slice(start, end), scores.slice(start, end))) other.push(group.id);
    start = end;
  }
  return { max_abs_diff: maxAbsDiff, same_order: other.length === 0, rows_in_other_order: other };
}

/**
 * Compares the routes: statistics, agreement with the baseline, validity, ratios and ranks (valid routes only).
 * @param measurements one per route, in the order the user listed them
 * @param baselineId the route every ratio and agreement refers to
 * @param toleranceAbs the largest absolute score difference still counted as agreeing
 * @param groups the candidate rows every route scored, in order; null for a fixed input (one ordering)
 */
export function compareRoutes(
  measurements: readonly RouteMeasurement[],
  baselineId: string,
  toleranceAbs: number,
  groups: readonly ScoreGroup[] | null = null,
): ComparisonRoute[] {
  const expectedCount = groups === null ? null : groups.reduce((sum, g) => sum + g.count, 0);
  const baseline = measurements.find((m) => m.id === baselineId);
  if (!baseline) throw new RangeError(`baseline route "${baselineId}" is not among the routes`);
  const baselineMedian = summarize(baseline.samples_ms)?.median ?? null;
  const routes: ComparisonRoute[] = measurements.map((m) => {
    const stats = summarize(m.samples_ms);
    let agree: ComparisonRoute['agreement'] = null;
    let invalid: string | null = null;
    if (m.error !== null || m.completed_ep === null) invalid = `route failed: ${m.error?.message ?? 'no EP completed'}`;
    else if (m.completed_ep !== m.requested_ep) invalid = `ran on ${m.completed_ep}, not the requested ${m.requested_ep}`;
    else if (stats === null) invalid = 'no timed samples';
    else if (m.scores === null) invalid = 'produced no scores';
    else if (baseline.scores === null) invalid = 'the baseline produced no scores to agree with';
    else if (m.scores.length !== baseline.scores.length) invalid = `produced ${m.scores.length} scores, the baseline ${baseline.scores.length}`;
    else if (expectedCount !== null && m.scores.length !== expectedCount) invalid = `produced ${m.scores.length} scores for rows holding ${expectedCount} candidates`;
    else {
      agree = agreement(baseline.scores, m.scores, groups);
      if (agree.max_abs_diff > toleranceAbs) invalid = `scores differ from the baseline by ${agree.max_abs_diff} (tolerance ${toleranceAbs})`;
      else if (agree.rows_in_other_order !== null && agree.rows_in_other_order.length > 0) {
        invalid = boundDetail(`orders the candidates of row ${agree.rows_in_other_order.map((id) => JSON.stringify(id)).join(', ')} differently from the baseline`);
      } else if (!agree.same_order) invalid = 'orders the candidates differently from the baseline';
    }
    const valid = invalid === null;
    const ratio = valid && baselineMedian !== null && baselineMedian > 0 && stats!.median > 0 ? stats!.median / baselineMedian : null;
    return {
      id: m.id,
      requested_ep: m.requested_ep,
      completed_ep: m.completed_ep,
      threads_requested: m.threads_requested,
      threads_effective: m.threads_effective,
      session_create_ms: m.session_create_ms,
      runtime: m.runtime ?? null,
      samples_ms: [...m.samples_ms],
      stats,
      output: m.scores === null || m.scores_sha256 === null ? null : { count: m.scores.length, head: m.scores.slice(0, 16), sha256: m.scores_sha256 },
      agreement: agree,
      ratio_to_baseline: ratio,
      speedup_vs_baseline: ratio === null ? null : 1 / ratio,
      valid,
      invalid_reason: invalid,
      rank: null,
      error: m.error,
      ...(m.placement !== undefined ? { placement: m.placement } : {}),
      ...(m.check !== undefined ? { check: m.check } : {}),
    };
  });
  // Rank valid routes by median; ties share the better rank's order by listing position (stable sort).
  const ranked = routes.filter((r) => r.valid).sort((a, b) => a.stats!.median - b.stats!.median);
  ranked.forEach((r, i) => (r.rank = i + 1));
  return routes;
}

/**
 * The headline of a comparison: every valid non-baseline route's ratio to the baseline with its bootstrap interval
 * over the interleaved rounds (paired: round i of the route with round i of the baseline) and its verdict.
 * Deterministic (declared seed), so `checkComparisonReceipt` recomputes it from the samples.
 * @param routes the compared routes (compareRoutes' result)
 * @param baselineId the baseline route
 * @returns null when the baseline is missing or invalid
 */
export function comparisonHeadline(routes: readonly ComparisonRoute[], baselineId: string): ComparisonHeadline | null {
  const baseline = routes.find((r) => r.id === baselineId);
  if (!baseline || !baseline.valid) return null;
  const others = routes
    .filter((r) => r.id !== baselineId && r.valid && r.ratio_to_baseline !== null)
    .sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity));
  return {
    baseline_route_id: baselineId,
    routes: others.map((r) => {
      // Valid routes ran every round, so samples pair by round; should counts ever differ, resample each side alone.
      const paired = r.samples_ms.length === baseline.samples_ms.length;
      const result = bootstrapRatioOfMedians(baseline.samples_ms, r.samples_ms, { paired });
      return {
        route_id: r.id,
        ratio_to_baseline: r.ratio_to_baseline!,
        interval: result?.interval ?? null,
        verdict: result === null ? null : ratioVerdict(result.interval),
      };
    }),
  };
}
