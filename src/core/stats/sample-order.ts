/**
 * What the order of a run's samples says: did the run slow down as it went (heat, throttling) or drift?
 *
 * - `lastFifthRatio`: the median of the last fifth of the samples over the median of the first fifth. For run
 *   times above 1 means the run got slower (the thermal slope); for speeds (decode tokens/s) below 1 means it got
 *   slower (the sustained-speed ratio of MLPerf-style mobile benchmarks, there "last five / first five questions").
 *   Medians rather than means, so one jump does not decide it.
 * - `theilSenSlope`: the Theil–Sen estimator of the trend, the median of the slopes between every pair of samples
 *   (Sen, "Estimates of the regression coefficient based on Kendall's tau", JASA 63, 1968), in value units per
 *   run. Robust to a few jumps, unlike a least-squares line.
 */
import { median } from './stats.ts';

/**
 * Median of the last fifth over the median of the first fifth of `samples` (in run order). A fifth is
 * floor(n / 5) samples, so 20 samples compare samples 1-4 with 17-20.
 * @param samples the values in the order they were measured
 * @returns the ratio, or null with fewer than 5 samples or a first-fifth median that is not above zero
 */
export function lastFifthRatio(samples: readonly number[]): number | null {
  const fifth = Math.floor(samples.length / 5);
  if (fifth < 1) return null;
  const first = median(samples.slice(0, fifth))!;
  const last = median(samples.slice(samples.length - fifth))!;
  const ratio = first > 0 ? last / first : null;
  // Extreme timings (a tiny first fifth, a huge last one) can overflow: no ratio then, rather than Infinity.
  return ratio !== null && Number.isFinite(ratio) ? ratio : null;
}

/**
 * Theil–Sen slope of `samples` against their run index (0, 1, 2, ...): the median over all pairs i < j of
 * (samples[j] - samples[i]) / (j - i), in value units per run. O(n^2) pairs: 1000 samples (the page's largest warm
 * run) make about half a million.
 * @param samples the values in the order they were measured
 * @returns the slope, or null with fewer than 2 samples
 */
export function theilSenSlope(samples: readonly number[]): number | null {
  const n = samples.length;
  if (n < 2) return null;
  const slopes = new Float64Array((n * (n - 1)) / 2);
  let k = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) slopes[k++] = (samples[j] - samples[i]) / (j - i);
  slopes.sort();
  const mid = slopes.length >> 1;
  if (slopes.length % 2 === 1) return slopes[mid];
  const sum = slopes[mid - 1] + slopes[mid];
  return Number.isFinite(sum) ? sum / 2 : slopes[mid - 1] / 2 + slopes[mid] / 2;
}
