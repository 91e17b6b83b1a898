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
 * - `mannKendall`: the Mann–Kendall test of "no monotonic trend" over run index, the significance beside that slope
 *   (the drift probe's trend test, src/core/device/drift-probe.ts).
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

/** The result of a Mann–Kendall trend test over run index. */
export interface MannKendallResult {
  /** Kendall's S: the number of later-higher pairs minus later-lower pairs (positive = values rise over the run). */
  s: number;
  /** The two-sided p-value of "no monotonic trend". */
  pValue: number;
  /** `exact`: the permutation distribution of S (no ties, at most EXACT_MANN_KENDALL_MAX values); `normal`: the
   *  normal approximation with the tie-corrected variance and a continuity correction. */
  method: 'exact' | 'normal';
}

/** Up to this many values without ties the Mann–Kendall p-value is exact (the normal approximation is rough below
 *  about ten values). */
export const EXACT_MANN_KENDALL_MAX = 50;

/**
 * Complementary error function, erfc(x), with fractional error below 1.2e-7 everywhere (the Chebyshev fit of Press
 * et al., "Numerical Recipes in C", 2nd ed. 1992, section 6.2, `erfcc`).
 * @param x any finite number
 */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/**
 * The number of permutations of n distinct values with each inversion count (the Mahonian numbers), as fractions of
 * n!: the null distribution of Kendall's S = n(n-1)/2 - 2 x inversions.
 */
function inversionDistribution(n: number): Float64Array {
  let dist = new Float64Array([1]);
  for (let k = 2; k <= n; k++) {
    // Inserting the k-th value adds 0..k-1 inversions, each equally likely.
    const next = new Float64Array(dist.length + k - 1);
    for (let i = 0; i < dist.length; i++) for (let j = 0; j < k; j++) next[i + j] += dist[i] / k;
    dist = next;
  }
  return dist;
}

/**
 * The Mann–Kendall test for a monotonic trend in `values` over their run index (Mann, "Nonparametric tests against
 * trend", Econometrica 13, 1945; Kendall, "Rank Correlation Methods", 4th ed. 1975, ch. 4): S counts every pair
 * i < j as +1 when the later value is higher and -1 when lower. Without ties and with at most
 * EXACT_MANN_KENDALL_MAX values the p-value is exact (S's permutation distribution); otherwise it uses the normal
 * approximation with Kendall's tie-corrected variance n(n-1)(2n+5)/18 - sum t(t-1)(2t+5)/18 and a continuity
 * correction of 1. Robust to outliers: only the order of values matters.
 * @param values the values in the order they were measured
 * @returns S, its two-sided p-value and the method, or null with fewer than 3 values
 */
export function mannKendall(values: readonly number[]): MannKendallResult | null {
  const n = values.length;
  if (n < 3) return null;
  for (const v of values) if (!Number.isFinite(v)) throw new RangeError(`value is not a finite number: ${v}`);
  let s = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) s += Math.sign(values[j] - values[i]);
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const ties = [...counts.values()].filter((t) => t > 1);
  if (ties.length === 0 && n <= EXACT_MANN_KENDALL_MAX) {
    const dist = inversionDistribution(n);
    const pairs = (n * (n - 1)) / 2;
    // P(|S| >= |s|), S = pairs - 2 x inversions; summed from the tails so the small probabilities keep their digits.
    let p = 0;
    for (let inv = 0; inv < dist.length; inv++) if (Math.abs(pairs - 2 * inv) >= Math.abs(s)) p += dist[inv];
    return { s, pValue: Math.min(1, p), method: 'exact' };
  }
  let variance = n * (n - 1) * (2 * n + 5);
  for (const t of ties) variance -= t * (t - 1) * (2 * t + 5);
  variance /= 18;
  if (variance <= 0) return { s, pValue: 1, method: 'normal' };
  const z = s > 0 ? (s - 1) / Math.sqrt(variance) : s < 0 ? (s + 1) / Math.sqrt(variance) : 0;
  return { s, pValue: Math.min(1, erfc(Math.abs(z) / Math.SQRT2)), method: 'normal' };
}
