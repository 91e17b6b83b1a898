/**
 * Confidence intervals for medians and for ratios of medians: the percentile bootstrap (Efron & Tibshirani, "An
 * Introduction to the Bootstrap", Chapman & Hall 1993, ch. 13.3: resample the data with replacement B times,
 * recompute the statistic each time, and take the B*alpha/2-th and B*(1-alpha/2)-th of the ordered replications as
 * the interval's ends). One implementation for the whole project: comparison receipts, the receipts summary and
 * the receipts report all call these functions, so every interval a user sees was computed the same way.
 *
 * What is resampled matters more than how often:
 * - interleaved comparison rounds are resampled as pairs (round i of the baseline with round i of the other route),
 *   because both routes ran side by side in that round and share its slow drift (throttling, a background task);
 *   resampling each route on its own would count that shared drift as noise twice (E&T 1993 ch. 9.3 resample the
 *   unit that was sampled independently; for paired data that is the pair);
 * - warm samples of one target are resampled by receipt (a cluster bootstrap: Davison & Hinkley, "Bootstrap Methods
 *   and their Application", 1997, ch. 3.8), because the samples of one receipt share one page session and one thermal
 *   state; with a single receipt only its samples can be resampled, and the interval says so (`resampled`).
 *
 * Reproducible by construction: the resampling indices come from mulberry32 seeded with a declared seed (recorded
 * with every interval), and the input is put in a canonical order first, so the interval is a function of the
 * samples alone, not of their order or of the JavaScript engine. Nearest-rank picks of the ordered replications,
 * as in src/core/stats/stats.ts, so each end is an observed replication.
 */
import { z } from 'zod';
import { threeSignificant } from '../text/format-number.ts';
import { mulberry32 } from './mulberry32.ts';
import { median } from './stats.ts';

/** Resamples per interval. E&T 1993 (ch. 19.3) suggest B of 1000 to 2000 for percentile intervals. */
export const BOOTSTRAP_RESAMPLES = 2000;
/** The seed every interval in receipts and summaries uses (declared, so anyone can recompute the same interval). */
export const BOOTSTRAP_SEED = 20261201;
/** Confidence level of every interval reported. */
export const BOOTSTRAP_LEVEL = 0.95;

/**
 * A stored confidence interval with everything needed to recompute it: the ends, the level, the method, what was
 * resampled (`rounds` = interleaved comparison rounds as pairs, `receipts` = whole receipts as clusters,
 * `samples` = single samples), the number of resamples and the seed.
 */
export const ConfidenceInterval = z.strictObject({
  low: z.number().finite(),
  high: z.number().finite(),
  level: z.number().gt(0).lt(1),
  method: z.literal('percentile-bootstrap'),
  resampled: z.enum(['rounds', 'receipts', 'samples']),
  resamples: z.number().int().positive(),
  seed: z.number().int(),
});
export type ConfidenceInterval = z.infer<typeof ConfidenceInterval>;

/** How to bootstrap: resamples B, confidence level and PRNG seed (the defaults are the project's declared ones). */
export interface BootstrapOptions {
  /** B, the number of resamples (default BOOTSTRAP_RESAMPLES). */
  resamples?: number;
  /** The confidence level, e.g. 0.95 (default BOOTSTRAP_LEVEL). */
  level?: number;
  /** The mulberry32 seed (default BOOTSTRAP_SEED). */
  seed?: number;
}

function resolve(options: BootstrapOptions): Required<BootstrapOptions> {
  const resamples = options.resamples ?? BOOTSTRAP_RESAMPLES;
  const level = options.level ?? BOOTSTRAP_LEVEL;
  const seed = options.seed ?? BOOTSTRAP_SEED;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  return { resamples, level, seed };
}

function checkFinite(values: readonly number[], what: string): void {
  for (const v of values) if (!Number.isFinite(v)) throw new RangeError(`${what}: sample is not a finite number: ${v}`);
}

/**
 * The ends of a percentile interval from B replications: the values at nearest ranks ceil(B * (1 - level) / 2) and
 * ceil(B * (1 + level) / 2) of the sorted replications (B = 2000, level 0.95: the 50th and the 1950th).
 * @param replications the bootstrap replications (sorted here, in place)
 * @param level the confidence level
 */
export function percentileEnds(replications: number[], level: number): { low: number; high: number } {
  const b = replications.length;
  if (b === 0) throw new RangeError('no replications');
  replications.sort((x, y) => x - y);
  // Rounded to 1e-9 first: 0.975 * 2000 is 1950.0000000000002 in binary floating point, and ceil would skip a rank.
  const rank = (q: number) => Math.min(b, Math.max(1, Math.ceil(Math.round(q * b * 1e9) / 1e9)));
  return { low: replications[rank((1 - level) / 2) - 1], high: replications[rank((1 + level) / 2) - 1] };
}

/**
 * Samples grouped into clusters that are resampled whole, laid out for a fast weighted median: every value in
 * ascending order with the cluster it belongs to. The median of a resample is then the weighted median of these
 * values, each weighted by how many times its cluster was drawn: one pass, no sort per resample.
 */
interface ClusterLayout {
  values: Float64Array;
  clusterOf: Int32Array;
  sizes: Int32Array;
}

function layout(clusters: ReadonlyArray<readonly number[]>): ClusterLayout {
  const entries: Array<{ value: number; cluster: number }> = [];
  clusters.forEach((c, cluster) => c.forEach((value) => entries.push({ value, cluster })));
  entries.sort((a, b) => a.value - b.value || a.cluster - b.cluster);
  return {
    values: Float64Array.from(entries, (e) => e.value),
    clusterOf: Int32Array.from(entries, (e) => e.cluster),
    sizes: Int32Array.from(clusters, (c) => c.length),
  };
}

/** The median of the multiset in which cluster c's values appear weights[c] times (mean of the two middle ranks for an even total). */
function weightedMedian(l: ClusterLayout, weights: Int32Array): number {
  let total = 0;
  for (let c = 0; c < weights.length; c++) total += weights[c] * l.sizes[c];
  const lowRank = (total + 1) >> 1; // 1-based rank of the lower middle value
  const highRank = (total >> 1) + 1; // equal to lowRank for an odd total
  const { values, clusterOf } = l;
  // Two tight scans (this loop is where a bootstrap spends its time): up to the lower middle rank, then on to the upper.
  let seen = 0;
  let i = 0;
  for (; i < values.length; i++) {
    seen += weights[clusterOf[i]];
    if (seen >= lowRank) break;
  }
  const low = values[i];
  for (; seen < highRank; ) seen += weights[clusterOf[++i]];
  return (low + values[i]) / 2;
}

/** Draws `count` indices in [0, count) with replacement into `weights` (how often each was drawn). */
function draw(random: () => number, weights: Int32Array): void {
  weights.fill(0);
  const n = weights.length;
  for (let i = 0; i < n; i++) weights[Math.floor(random() * n)]++;
}

/** Lexicographic order of two sorted number arrays, then by length: a canonical order for clusters. */
function compareSorted(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** A bootstrap estimate with its interval. */
export interface BootstrapResult {
  /** The statistic on the original samples. */
  estimate: number;
  interval: ConfidenceInterval;
}

/**
 * Percentile-bootstrap interval of the median of pooled samples, resampling whole clusters (receipts) with
 * replacement, or single samples when every cluster holds one sample.
 * @param clusters the samples, grouped by the unit that was sampled independently (empty clusters are ignored)
 * @param resampled what a cluster is, recorded with the interval (`receipts` or `samples`)
 * @param options resamples, level and seed (the declared defaults when omitted)
 * @returns null when there are no samples
 */
function clusteredMedian(
  clusters: ReadonlyArray<readonly number[]>,
  resampled: 'receipts' | 'samples',
  options: BootstrapOptions,
): BootstrapResult | null {
  const { resamples, level, seed } = resolve(options);
  // Canonical order (each cluster sorted, clusters sorted): the interval depends on the samples, not their order.
  const canonical = clusters
    .filter((c) => c.length > 0)
    .map((c) => {
      checkFinite(c, 'median interval');
      return [...c].sort((a, b) => a - b);
    })
    .sort(compareSorted);
  if (canonical.length === 0) return null;
  const l = layout(canonical);
  const estimate = weightedMedian(l, new Int32Array(canonical.length).fill(1));
  const random = mulberry32(seed);
  const weights = new Int32Array(canonical.length);
  const replications = new Array<number>(resamples);
  for (let b = 0; b < resamples; b++) {
    draw(random, weights);
    replications[b] = weightedMedian(l, weights);
  }
  const { low, high } = percentileEnds(replications, level);
  return { estimate, interval: { low, high, level, method: 'percentile-bootstrap', resampled, resamples, seed } };
}

/**
 * Percentile-bootstrap confidence interval of the median of independent samples (each sample resampled on its own).
 * @param samples the samples (any order; at least one)
 * @param options resamples, level and seed (the declared defaults when omitted)
 * @returns the median and its interval (`resampled: "samples"`), or null for no samples
 */
export function bootstrapMedian(samples: readonly number[], options: BootstrapOptions = {}): BootstrapResult | null {
  return clusteredMedian(
    samples.map((s) => [s]),
    'samples',
    options,
  );
}

/**
 * Percentile-bootstrap confidence interval of the median of every sample of several receipts pooled, resampling
 * whole receipts (a cluster bootstrap), because samples of one receipt are not independent of each other. With a
 * single receipt there is nothing to resample between receipts, so its samples are resampled on their own and the
 * interval says `resampled: "samples"`: it then covers the noise within that one run only.
 * @param receipts each receipt's samples (receipts with no samples are ignored)
 * @param options resamples, level and seed (the declared defaults when omitted)
 * @returns the pooled median and its interval, or null for no samples
 */
export function bootstrapPooledMedian(
  receipts: ReadonlyArray<readonly number[]>,
  options: BootstrapOptions = {},
): BootstrapResult | null {
  const nonEmpty = receipts.filter((r) => r.length > 0);
  if (nonEmpty.length === 1) return bootstrapMedian(nonEmpty[0], options);
  return clusteredMedian(nonEmpty, 'receipts', options);
}

/**
 * median(candidate) / median(baseline): the ratio the bootstrap below gives an interval for; null when a side has no
 * sample or a sample not above 0 (a time of 0 has no ratio).
 * @param baseline the baseline route's times
 * @param candidate the other route's times
 */
export function ratioOfMedians(baseline: readonly number[], candidate: readonly number[]): number | null {
  if (baseline.length === 0 || candidate.length === 0) return null;
  if (baseline.some((v) => v <= 0) || candidate.some((v) => v <= 0)) return null;
  return median(candidate)! / median(baseline)!;
}

/**
 * Percentile-bootstrap confidence interval of median(candidate) / median(baseline), for run times: below 1 the
 * candidate took less time. Paired (the default for interleaved comparisons): `baseline[i]` and `candidate[i]` ran in
 * the same round, and rounds are resampled as pairs. Unpaired: each side is resampled on its own (two independent
 * sets of runs). The interval is computed only when every sample of both sides is above zero, since a zero median
 * (a timer too coarse for the run) gives no ratio.
 * @param baseline the baseline route's samples (round order when paired)
 * @param candidate the other route's samples (same length and round order when paired)
 * @param options resamples, level, seed, and `paired` (default true)
 * @returns the ratio of the medians and its interval (`resampled: "rounds"` when paired, `"samples"` otherwise), or
 *   null when either side is empty or holds a sample that is not above zero
 */
export function bootstrapRatioOfMedians(
  baseline: readonly number[],
  candidate: readonly number[],
  options: BootstrapOptions & { paired?: boolean } = {},
): BootstrapResult | null {
  const { resamples, level, seed } = resolve(options);
  const paired = options.paired ?? true;
  checkFinite(baseline, 'ratio interval, baseline');
  checkFinite(candidate, 'ratio interval, candidate');
  if (paired && baseline.length !== candidate.length) {
    throw new RangeError(
      `paired samples need the same count: ${baseline.length} baseline vs ${candidate.length} candidate`,
    );
  }
  const estimate = ratioOfMedians(baseline, candidate);
  if (estimate === null) return null;
  const random = mulberry32(seed);
  const replications = new Array<number>(resamples);
  if (paired) {
    // Canonical order of the pairs, then one layout per side whose clusters are the rounds.
    const pairs = baseline.map((b, i) => [b, candidate[i]] as const).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    const base = layout(pairs.map((p) => [p[0]]));
    const cand = layout(pairs.map((p) => [p[1]]));
    const weights = new Int32Array(pairs.length);
    for (let b = 0; b < resamples; b++) {
      draw(random, weights);
      replications[b] = weightedMedian(cand, weights) / weightedMedian(base, weights);
    }
  } else {
    const base = layout([...baseline].sort((x, y) => x - y).map((v) => [v]));
    const cand = layout([...candidate].sort((x, y) => x - y).map((v) => [v]));
    const wb = new Int32Array(baseline.length);
    const wc = new Int32Array(candidate.length);
    for (let b = 0; b < resamples; b++) {
      draw(random, wb);
      draw(random, wc);
      replications[b] = weightedMedian(cand, wc) / weightedMedian(base, wb);
    }
  }
  const { low, high } = percentileEnds(replications, level);
  return {
    estimate,
    interval: {
      low,
      high,
      level,
      method: 'percentile-bootstrap',
      resampled: paired ? 'rounds' : 'samples',
      resamples,
      seed,
    },
  };
}

/**
 * What an interval of a time ratio (candidate / baseline) supports: `faster` when the whole interval is below 1,
 * `slower` when it is above 1, and `no-clear-difference` when it contains 1, which is a tie and must never be shown
 * as a rank or a winner.
 */
export const RatioVerdict = z.enum(['faster', 'slower', 'no-clear-difference']);
export type RatioVerdict = z.infer<typeof RatioVerdict>;

/**
 * The verdict of a time-ratio interval (candidate / baseline): does it exclude 1, and on which side.
 * @param interval the interval's ends
 */
export function ratioVerdict(interval: { low: number; high: number }): RatioVerdict {
  if (interval.high < 1) return 'faster';
  if (interval.low > 1) return 'slower';
  return 'no-clear-difference';
}

/**
 * One sentence for a ratio and its interval, e.g. "wasm-2 took 0.92x the time of wasm-1; 95% interval 0.81 to 1.05:
 * no clear difference". Route ids are passed as they are: the caller escapes for Markdown or HTML.
 * @param routeId the route measured against the baseline
 * @param baselineId the baseline route
 * @param ratio median(route) / median(baseline)
 * @param interval its interval, or null when none could be computed (then the sentence says so)
 */
export function ratioSentence(
  routeId: string,
  baselineId: string,
  ratio: number,
  interval: ConfidenceInterval | null,
): string {
  const head = `${routeId} took ${threeSignificant(ratio)}x the time of ${baselineId}`;
  if (interval === null) return `${head}; no interval (a zero or missing sample)`;
  const verdict = ratioVerdict(interval);
  const said = verdict === 'no-clear-difference' ? 'no clear difference' : verdict;
  return `${head}; ${Math.round(interval.level * 100)}% interval ${threeSignificant(interval.low)} to ${threeSignificant(interval.high)}: ${said}`;
}

/** One point of a sweep as the crossover statistics read it: its size and the paired samples of the two routes. */
export interface CrossoverPoint {
  size: number;
  /** The baseline route's samples, in round order. */
  baseline: readonly number[];
  /** The other route's samples, paired with the baseline's by round. */
  candidate: readonly number[];
}

/**
 * Where a curve of time ratios (candidate / baseline, one per size, sizes ascending) crosses over to `favoured`'s side
 * for good: after the last size at which `favoured` is not ahead, interpolated linearly in log(size) and log(ratio)
 * between that size and the next. `favoured` is ahead where the ratio is below 1 (`candidate`) or above 1
 * (`baseline`). -Infinity: ahead at every size (the crossing lies below the range); +Infinity: not ahead at the
 * largest size (no crossing in the range).
 * @param sizes the sizes, ascending
 * @param ratios the ratio at each size (all above zero)
 * @param favoured the route that wins beyond the crossing
 */
export function crossingSize(
  sizes: readonly number[],
  ratios: readonly number[],
  favoured: 'candidate' | 'baseline',
): number {
  const lead = (r: number) => (favoured === 'candidate' ? -Math.log(r) : Math.log(r)); // > 0: favoured is ahead
  let last = -1;
  for (let i = 0; i < ratios.length; i++) if (!(lead(ratios[i]) > 0)) last = i;
  if (last === -1) return -Infinity;
  if (last === ratios.length - 1) return Infinity;
  const a = lead(ratios[last]);
  const b = lead(ratios[last + 1]);
  const t = a === b ? 0 : a / (a - b);
  const la = Math.log(sizes[last]);
  const lb = Math.log(sizes[last + 1]);
  return Math.exp(la + t * (lb - la));
}

/** An end of a crossover interval: a size, or the side of the swept range it lies beyond. */
export const CrossoverEnd = z.union([z.number().finite().positive(), z.enum(['below-range', 'beyond-range'])]);
export type CrossoverEnd = z.infer<typeof CrossoverEnd>;

/** The crossover size's bootstrap interval. An end outside the swept range says on which side it lies. */
export const CrossoverInterval = z.strictObject({
  low: CrossoverEnd,
  high: CrossoverEnd,
  level: z.number().gt(0).lt(1),
  method: z.literal('percentile-bootstrap'),
  resampled: z.literal('rounds'),
  resamples: z.number().int().positive(),
  seed: z.number().int(),
  /** Share of resamples whose crossing lies below the range, and beyond it. */
  below_range_share: z.number().min(0).max(1),
  beyond_range_share: z.number().min(0).max(1),
});
export type CrossoverInterval = z.infer<typeof CrossoverInterval>;

/**
 * The crossover size with its percentile-bootstrap interval: each resample redraws the rounds of every point on its
 * own (as pairs: both routes of one round together; the points ran one after the other, so they are independent),
 * recomputes each point's ratio of medians and the crossing (`crossingSize`), and the interval's ends are the
 * nearest-rank percentiles of those crossings, a crossing beyond the range counting as +Infinity and below it as
 * -Infinity (an infinite end is reported as `below-range` or `beyond-range`). Deterministic: mulberry32 from the declared seed, and each
 * point's pairs put in a canonical order first.
 * @param points the sweep's valid points, sizes ascending, every sample above zero
 * @param favoured the route that wins beyond the crossing
 * @param options resamples, level and seed (the declared defaults when omitted)
 * @returns the crossing of the points' own ratios, and its interval
 */
export function bootstrapCrossover(
  points: readonly CrossoverPoint[],
  favoured: 'candidate' | 'baseline',
  options: BootstrapOptions = {},
): { estimate: number; interval: CrossoverInterval } {
  const { resamples, level, seed } = resolve(options);
  if (points.length < 2) throw new RangeError('a crossover needs at least two points');
  const layouts = points.map((p, i) => {
    checkFinite(p.baseline, `crossover point ${i}, baseline`);
    checkFinite(p.candidate, `crossover point ${i}, candidate`);
    if (p.baseline.length !== p.candidate.length || p.baseline.length === 0)
      throw new RangeError(`crossover point ${i}: paired samples need the same non-zero count`);
    if (p.baseline.some((v) => v <= 0) || p.candidate.some((v) => v <= 0))
      throw new RangeError(`crossover point ${i}: every sample must be above zero`);
    const pairs = p.baseline.map((b, j) => [b, p.candidate[j]] as const).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    return {
      base: layout(pairs.map((x) => [x[0]])),
      cand: layout(pairs.map((x) => [x[1]])),
      weights: new Int32Array(pairs.length),
    };
  });
  const sizes = points.map((p) => p.size);
  const estimate = crossingSize(
    sizes,
    points.map((p) => median(p.candidate)! / median(p.baseline)!),
    favoured,
  );
  const random = mulberry32(seed);
  const crossings = new Array<number>(resamples);
  const ratios = new Array<number>(points.length);
  for (let b = 0; b < resamples; b++) {
    layouts.forEach((l, i) => {
      draw(random, l.weights);
      ratios[i] = weightedMedian(l.cand, l.weights) / weightedMedian(l.base, l.weights);
    });
    crossings[b] = crossingSize(sizes, ratios, favoured);
  }
  const below = crossings.filter((c) => c === -Infinity).length;
  const beyond = crossings.filter((c) => c === Infinity).length;
  const { low, high } = percentileEnds(crossings, level);
  const end = (v: number): CrossoverEnd => (v === -Infinity ? 'below-range' : v === Infinity ? 'beyond-range' : v);
  return {
    estimate,
    interval: {
      low: end(low),
      high: end(high),
      level,
      method: 'percentile-bootstrap',
      resampled: 'rounds',
      resamples,
      seed,
      below_range_share: below / resamples,
      beyond_range_share: beyond / resamples,
    },
  };
}
