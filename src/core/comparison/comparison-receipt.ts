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
 */
import { z } from 'zod';
import { boundDetail, Detail, EngineVersion, ErrorCode, Identifier, ReceiptId, textLine, Version } from '../text/bounded-text.ts';

// An item row's id comes from the user's items file: any one line of text, bounded.
const ItemId = textLine(256).pipe(z.string().min(1));
import { AppInfo, Capabilities, EngineInfo, ExecutionProvider, InputInfo, InterruptedRun, RunOverlap, IsoTime, Lifecycle, ModelInfo, RuntimeInfo, SampleStats } from '../receipt/receipt.ts';
import { comparisonTolerance } from './dtype-tolerance.ts';
import { Placement } from '../receipt/ep-placement.ts';
import { OutputCheck } from '../catalog/output-check.ts';
import { bootstrapRatioOfMedians, ConfidenceInterval, ratioVerdict, RatioVerdict } from '../stats/intervals.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';
import { summarize } from '../stats/stats.ts';

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
  output: z.strictObject({ count: z.number().int().nonnegative(), head: z.array(z.number().finite()).max(16), sha256: z.string().regex(SHA256_PATTERN) }).nullable(),
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
  tolerance: z.strictObject({
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
  }),
  routes: z.array(ComparisonRoute).min(2),
  /** Ratios against the baseline with their 95% intervals and verdicts (see ComparisonHeadline); null when the
   *  baseline is invalid. */
  headline: ComparisonHeadline.nullable(),
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

/** True when two headlines hold the same routes and numbers (equal to 1e-9 relative: JSON keeps every bit anyway). */
function sameHeadline(a: ComparisonHeadline | null, b: ComparisonHeadline | null): boolean {
  if (a === null || b === null) return a === b;
  const close = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
  return (
    a.baseline_route_id === b.baseline_route_id &&
    a.routes.length === b.routes.length &&
    a.routes.every((r, i) => {
      const o = b.routes[i];
      const ri = r.interval;
      const oi = o.interval;
      return (
        r.route_id === o.route_id &&
        close(r.ratio_to_baseline, o.ratio_to_baseline) &&
        r.verdict === o.verdict &&
        (ri === null || oi === null
          ? ri === oi
          : close(ri.low, oi.low) && close(ri.high, oi.high) && ri.level === oi.level && ri.resampled === oi.resampled && ri.resamples === oi.resamples && ri.seed === oi.seed)
      );
    })
  );
}

/** One broken rule of a comparison receipt. */
export interface ComparisonProblem {
  path: string;
  message: string;
}

/**
 * Rules beyond the schema: the schedule is a permutation of all routes per round, every route's samples and
 * statistics match, invalid routes have no rank or ratio, ranks follow the medians, the headline is the one the
 * samples give (ratios, intervals, verdicts), and ok means the baseline is valid.
 * @param receipt a receipt that already passed `ComparisonReceipt.safeParse`
 */
export function checkComparisonReceipt(receipt: ComparisonReceipt): ComparisonProblem[] {
  const problems: ComparisonProblem[] = [];
  const ids = receipt.routes.map((r) => r.id);
  if (new Set(ids).size !== ids.length) problems.push({ path: 'routes', message: 'route ids must be unique' });
  const { order, rounds } = receipt.schedule;
  if (order.length !== rounds * ids.length) {
    problems.push({ path: 'schedule.order', message: `holds ${order.length} slots, expected ${rounds} x ${ids.length}` });
  } else {
    for (let r = 0; r < rounds; r++) {
      const slice = order.slice(r * ids.length, (r + 1) * ids.length);
      if ([...slice].sort().join('\n') !== [...ids].sort().join('\n')) {
        problems.push({ path: `schedule.order`, message: `round ${r + 1} is not one run of every route` });
      }
    }
  }
  const baseline = receipt.routes.find((r) => r.id === receipt.baseline_route_id);
  if (!baseline) problems.push({ path: 'baseline_route_id', message: 'names no route' });
  receipt.routes.forEach((route, i) => {
    const at = `routes[${i}]`;
    const stats = summarize(route.samples_ms);
    if ((stats === null) !== (route.stats === null) || (stats && route.stats && Math.abs(stats.median - route.stats.median) > 1e-9)) {
      problems.push({ path: `${at}.stats`, message: 'does not match the samples' });
    }
    if (route.valid) {
      if (route.invalid_reason !== null) problems.push({ path: `${at}.invalid_reason`, message: 'a valid route has no invalid reason' });
      if (route.agreement === null) problems.push({ path: `${at}.agreement`, message: 'a valid route was checked for agreement' });
      else if (route.agreement.max_abs_diff > receipt.tolerance.max_abs_diff || !route.agreement.same_order) {
        problems.push({ path: `${at}.valid`, message: 'is true although the route disagrees with the baseline' });
      }
      if (route.completed_ep !== route.requested_ep) problems.push({ path: `${at}.completed_ep`, message: 'a valid route ran on its requested EP' });
      if (route.rank === null) problems.push({ path: `${at}.rank`, message: 'a valid route is ranked' });
    } else {
      if (route.invalid_reason === null) problems.push({ path: `${at}.invalid_reason`, message: 'an invalid route must say why' });
      if (route.rank !== null) problems.push({ path: `${at}.rank`, message: 'an invalid route is never ranked' });
      if (route.ratio_to_baseline !== null || route.speedup_vs_baseline !== null) {
        problems.push({ path: `${at}.ratio_to_baseline`, message: 'an invalid route gets no ratio' });
      }
    }
  });
  const valid = receipt.routes.filter((r) => r.valid && r.rank !== null && r.stats !== null).sort((a, b) => a.rank! - b.rank!);
  valid.forEach((r, i) => {
    if (r.rank !== i + 1) problems.push({ path: `routes.${r.id}.rank`, message: 'ranks must be 1..n without gaps' });
    if (i > 0 && r.stats!.median < valid[i - 1].stats!.median) {
      problems.push({ path: `routes.${r.id}.rank`, message: 'is ranked behind a slower route' });
    }
  });
  const rows = receipt.candidate_rows;
  const rowIds = new Set(rows?.rows.map((r) => r.id) ?? []);
  const candidateTotal = rows?.rows.reduce((sum, r) => sum + r.candidates, 0) ?? null;
  if (rows && rowIds.size !== rows.rows.length) problems.push({ path: 'candidate_rows.rows', message: 'row ids must be unique' });
  if (rows && rows.task !== receipt.model.task) problems.push({ path: 'candidate_rows.task', message: `is ${rows.task}, the model's task is ${receipt.model.task}` });
  receipt.routes.forEach((route, i) => {
    const at = `routes[${i}]`;
    if (candidateTotal !== null && route.output !== null && route.output.count !== candidateTotal) {
      problems.push({ path: `${at}.output.count`, message: `is ${route.output.count}, the candidate rows hold ${candidateTotal} candidates` });
    }
    if (route.agreement === null) return;
    const other = route.agreement.rows_in_other_order;
    if (rows === null && other !== null) problems.push({ path: `${at}.agreement.rows_in_other_order`, message: 'is only set for candidate rows' });
    if (rows !== null && other === null) problems.push({ path: `${at}.agreement.rows_in_other_order`, message: 'must list the rows in another order (or be empty)' });
    if (other !== null && rows !== null) {
      if (route.agreement.same_order !== (other.length === 0)) problems.push({ path: `${at}.agreement.same_order`, message: 'must be true exactly when no row is in another order' });
      for (const id of other) if (!rowIds.has(id)) problems.push({ path: `${at}.agreement.rows_in_other_order`, message: `names no compared row "${id}"` });
    }
  });
  const basis = receipt.tolerance.basis;
  if (basis) {
    const expected = comparisonTolerance(receipt.model.task, receipt.model.dtype, basis.source === 'setting' ? receipt.tolerance.max_abs_diff : null);
    if (basis.score_kind !== expected.basis.score_kind) {
      problems.push({ path: 'tolerance.basis.score_kind', message: `is ${basis.score_kind}, but a ${receipt.model.task} model's scores are ${expected.basis.score_kind}` });
    }
    if (basis.source === 'default' && (receipt.tolerance.max_abs_diff !== expected.max_abs_diff || basis.reason !== expected.basis.reason)) {
      problems.push({ path: 'tolerance', message: `is not the default for ${expected.basis.score_kind} in ${receipt.model.dtype ?? 'fp32'} (${expected.max_abs_diff})` });
    }
    if (basis.source === 'setting' && basis.reason !== null) problems.push({ path: 'tolerance.basis.reason', message: 'a tolerance someone set has no default reason' });
  }
  receipt.routes.forEach((route, i) => {
    if (route.software_adapter === undefined) return;
    const expected = route.completed_ep === 'webgpu' ? receipt.capabilities.webgpu.is_fallback_adapter : null;
    if (route.software_adapter !== expected) {
      problems.push({ path: `routes[${i}].software_adapter`, message: `is ${route.software_adapter}, the route ran on ${route.completed_ep ?? 'no EP'} with capabilities.webgpu.is_fallback_adapter ${receipt.capabilities.webgpu.is_fallback_adapter}` });
    }
  });
  receipt.routes.forEach((route, i) => {
    const placement = route.placement;
    if (!placement) return;
    if (placement.partial_fallback !== (route.completed_ep === 'webgpu' && placement.cpu_nodes > 0)) {
      problems.push({ path: `routes[${i}].placement.partial_fallback`, message: `is ${placement.partial_fallback} but the route completed on ${route.completed_ep ?? 'no EP'} with ${placement.cpu_nodes} CPU node(s)` });
    }
    if (placement.cpu_nodes > placement.total_nodes) problems.push({ path: `routes[${i}].placement.cpu_nodes`, message: 'is more than total_nodes' });
  });
  receipt.routes.forEach((route, i) => {
    const check = route.check;
    if (check && check.passed !== (check.cases_passed === check.cases)) problems.push({ path: `routes[${i}].check.passed`, message: `is ${check.passed} but ${check.cases_passed} of ${check.cases} cases passed` });
  });
  if (!sameHeadline(receipt.headline, comparisonHeadline(receipt.routes, receipt.baseline_route_id))) {
    problems.push({ path: 'headline', message: 'does not match the ratios and bootstrap intervals recomputed from the routes\' samples' });
  }
  if (receipt.outcome.status === 'ok') {
    if (!baseline?.valid) problems.push({ path: 'outcome.status', message: 'is "ok" but the baseline route is not valid' });
    if (receipt.outcome.reason !== null) problems.push({ path: 'outcome.reason', message: 'an ok outcome carries no reason' });
  } else if (receipt.outcome.reason === null || receipt.outcome.reason.trim() === '') {
    problems.push({ path: 'outcome.reason', message: 'a failed comparison must say why' });
  }
  return problems;
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
export function placementNote(routes: ReadonlyArray<Pick<ComparisonRoute, 'id' | 'completed_ep' | 'placement'>>): string | null {
  const placed = routes.flatMap((r) => (r.placement ? [{ id: r.id, ep: r.completed_ep, placement: r.placement }] : []));
  if (placed.length === 0) return null;
  const partial = placed.some((r) => r.placement.partial_fallback);
  const sameEpDiffers = placed.some((a) => placed.some((b) => a.ep === b.ep && a.placement.cpu_nodes !== b.placement.cpu_nodes));
  if (!partial && !sameEpDiffers) return null;
  return boundDetail(
    `the routes differ in where their work ran (${placed.map((r) => placementLabel(r.id, r.placement)).join('; ')}): a route's time includes the work it ran on the CPU and the copies between CPU and GPU`,
  );
}

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
