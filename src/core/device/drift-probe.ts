/**
 * The drift probe: a small fixed reference kernel, the same work every time, timed between comparison rounds (on the
 * page's main thread) or between warm runs (in the bench worker), so a receipt says whether the device itself slowed
 * down while it measured (heat, throttling, a background task), apart from the model it measured.
 *
 * Its trend over probe index is reported three ways, each from the statistics module (src/core/stats/):
 * - the Mann–Kendall test of "no monotonic trend" (`mannKendall`, its p-value and S);
 * - the Theil–Sen slope of the probe times, ms per probe (`theilSenSlope`);
 * - the sustained-speed ratio of docs/shared posa-bench-methodology.md ("last five / first five"): the median speed
 *   of the last five probes over the median speed of the first five (speed = 1 / time; below 1 = the device slowed).
 *   With fewer than ten probes, the last and first half (floor) of them.
 * A receipt whose sustained-speed ratio is below 1 - `max_slowdown` (the declared bound) slowed beyond the bound;
 * the receipts summary flags it.
 */
import { median } from '../stats/stats.ts';
import { mannKendall, theilSenSlope } from '../stats/sample-order.ts';
import {
  DEFAULT_DRIFT_MAX_SLOWDOWN,
  DRIFT_KERNEL_ID,
  DRIFT_KERNEL_WORK,
  DRIFT_TREND_LEVEL,
  type DriftProbe,
  type DriftTrend,
  SUSTAINED_WINDOW,
} from './drift-probe-schema.ts';

export * from './drift-probe-schema.ts';

/**
 * The reference kernel: `work` steps of xorshift32 folded into a float accumulator, returned so the work cannot be
 * optimised away. Pure and deterministic (the same value every run, in every engine); its time is what is measured.
 * @param work the number of steps (DRIFT_KERNEL_WORK for every recorded probe)
 */
export function driftKernel(work: number): number {
  let x = 0x9e3779b9 | 0;
  let acc = 0;
  for (let i = 0; i < work; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    acc = acc * 0.999 + (x & 0xffff) * 1e-4;
  }
  return acc + (x >>> 0);
}

/**
 * The trend of probe times in run order; null with fewer than 3 probes.
 * @param samplesMs the probe times, in the order they ran
 */
export function driftTrend(samplesMs: readonly number[]): DriftTrend | null {
  const test = mannKendall(samplesMs);
  if (test === null) return null;
  const window = Math.min(SUSTAINED_WINDOW, Math.floor(samplesMs.length / 2));
  const first = median(samplesMs.slice(0, window))!;
  const last = median(samplesMs.slice(samplesMs.length - window))!;
  const direction = test.pValue < DRIFT_TREND_LEVEL ? (test.s > 0 ? 'slowing' : 'speeding') : 'none';
  return {
    mann_kendall_s: test.s,
    p_value: test.pValue,
    method: test.method,
    direction,
    theil_sen_ms_per_probe: theilSenSlope(samplesMs)!,
    // Speed is 1 / time, so median speed last / first = median time first / last.
    sustained_speed_ratio: first > 0 && last > 0 ? first / last : null,
    window,
  };
}

/**
 * The drift probe record from its times: the trend, and whether it slowed beyond the bound.
 * @param samplesMs the probe times in run order
 * @param where the context and placement the probes ran in
 * @param maxSlowdown the declared bound (DEFAULT_DRIFT_MAX_SLOWDOWN unless a protocol declares another)
 */
export function driftProbeRecord(
  samplesMs: readonly number[],
  where: Pick<DriftProbe, 'context' | 'placement'>,
  maxSlowdown: number = DEFAULT_DRIFT_MAX_SLOWDOWN,
): DriftProbe {
  const trend = driftTrend(samplesMs);
  const ratio = trend?.sustained_speed_ratio ?? null;
  return {
    kernel: DRIFT_KERNEL_ID,
    work: DRIFT_KERNEL_WORK,
    ...where,
    samples_ms: [...samplesMs],
    trend,
    max_slowdown: maxSlowdown,
    slowed_beyond_bound: ratio === null ? null : ratio < 1 - maxSlowdown,
  };
}
