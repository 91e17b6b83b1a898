/**
 * Order statistics used everywhere a receipt or summary reports a distribution.
 *
 * Percentiles use the nearest-rank method (the value at rank ceil(p/100 * n) of the sorted samples;
 * https://en.wikipedia.org/wiki/Percentile#The_nearest-rank_method): every reported p95 is an observed sample,
 * so anyone can recompute it from the samples in a receipt without choosing an interpolation rule.
 * The median is the usual one (mean of the two middle values for an even count).
 */

/** Sorted copy of finite samples; throws on a non-finite value so a NaN never hides inside a statistic. */
function sortedFinite(samples: readonly number[]): number[] {
  for (const value of samples) {
    if (!Number.isFinite(value)) throw new RangeError(`sample is not a finite number: ${value}`);
  }
  return [...samples].sort((a, b) => a - b);
}

/** Median of `samples` (mean of the two middle values for an even count); null for no samples. */
export function median(samples: readonly number[]): number | null {
  const sorted = sortedFinite(samples);
  const n = sorted.length;
  if (n === 0) return null;
  const mid = n >> 1;
  return n % 2 === 1 ? sorted[mid] : midpoint(sorted[mid - 1], sorted[mid]);
}

/** (a + b) / 2 without overflow: the same bits as the plain sum whenever that sum is finite. */
function midpoint(a: number, b: number): number {
  const sum = a + b;
  return Number.isFinite(sum) ? sum / 2 : a / 2 + b / 2;
}

/** Nearest-rank percentile `p` (0 < p <= 100) of `samples`; null for no samples. */
export function percentile(samples: readonly number[], p: number): number | null {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  const sorted = sortedFinite(samples);
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(rank, 1) - 1];
}

/** The summary every timed series reports. `count` is the number of samples it was computed from. */
export interface SampleStats {
  count: number;
  median: number;
  p95: number;
  min: number;
  max: number;
  mean: number;
}

/** Summary of a non-empty series; null for an empty one (an empty series has no statistics, not zeros). */
export function summarize(samples: readonly number[]): SampleStats | null {
  const sorted = sortedFinite(samples);
  const n = sorted.length;
  if (n === 0) return null;
  let total = 0;
  for (const value of sorted) total += value;
  // Finite samples whose sum overflows (extreme timings): the mean of the scaled samples, still finite.
  let mean = total / n;
  if (!Number.isFinite(total)) {
    mean = 0;
    for (const value of sorted) mean += value / n;
  }
  return {
    count: n,
    median: median(sorted)!,
    p95: percentile(sorted, 95)!,
    min: sorted[0],
    max: sorted[n - 1],
    mean,
  };
}
