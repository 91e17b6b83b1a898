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
import { z } from 'zod';
import { median } from '../stats/stats.ts';
import { mannKendall, theilSenSlope } from '../stats/sample-order.ts';

/** The kernel's id: a new kernel (other work) gets a new id, so probe times are only compared within one kernel. */
export const DRIFT_KERNEL_ID = 'drb.drift-kernel.v1';

/** xorshift32 steps per probe: about 1 to 3 ms in V8 on a laptop core, a few ms on a phone. */
export const DRIFT_KERNEL_WORK = 1 << 20;

/** The default bound: a sustained-speed ratio below 0.9 (the device ran more than 10% slower at the end) is flagged. */
export const DEFAULT_DRIFT_MAX_SLOWDOWN = 0.1;

/** The significance level at which the Mann–Kendall test names a direction. */
export const DRIFT_TREND_LEVEL = 0.05;

/** At most this many probes are compared at each end for the sustained-speed ratio (posa-bench: five). */
export const SUSTAINED_WINDOW = 5;

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

const Ms = z.number().finite().nonnegative();

/** The trend of the probe times over probe index (null fields: too few probes for that measure). */
export const DriftTrend = z.strictObject({
  /** Mann–Kendall S over the probe times (positive = the kernel took longer as the run went on). */
  mann_kendall_s: z.number().int(),
  /** Two-sided p-value of "no monotonic trend". */
  p_value: z.number().min(0).max(1),
  /** `exact` permutation distribution, or `normal` approximation (ties or many probes). */
  method: z.enum(['exact', 'normal']),
  /** `slowing` / `speeding` when p < 0.05 (DRIFT_TREND_LEVEL), else `none`. */
  direction: z.enum(['slowing', 'speeding', 'none']),
  /** Theil–Sen slope of the probe times, ms per probe. */
  theil_sen_ms_per_probe: z.number().finite(),
  /** Median speed of the last `window` probes over the first `window` (below 1 = the device slowed); null when a
   *  median time is zero (a timer too coarse for the kernel). */
  sustained_speed_ratio: z.number().finite().positive().nullable(),
  /** How many probes were compared at each end: min(5, floor(n / 2)). */
  window: z.number().int().positive(),
});
export type DriftTrend = z.infer<typeof DriftTrend>;

/** The drift probe's record in a receipt. */
export const DriftProbe = z.strictObject({
  kernel: z.literal(DRIFT_KERNEL_ID),
  /** xorshift32 steps per probe (DRIFT_KERNEL_WORK). */
  work: z.number().int().positive(),
  /** Where it ran: the page's main thread (between comparison rounds) or the bench worker (between warm runs). */
  context: z.enum(['page', 'worker']),
  /** `between-rounds`: before the first round and after each (a comparison or a sweep point); `between-warm-runs`:
   *  before the first timed warm run and after each; `around-run`: before and after a cold run. */
  placement: z.enum(['between-rounds', 'between-warm-runs', 'around-run']),
  /** Every probe's time, in the order they ran. */
  samples_ms: z.array(Ms).max(2001),
  /** The trend; null with fewer than 3 probes. */
  trend: DriftTrend.nullable(),
  /** The declared bound: a sustained-speed ratio below 1 - max_slowdown is flagged. */
  max_slowdown: z.number().gt(0).lt(1),
  /** True when the sustained-speed ratio is below the bound; null when there is no ratio. */
  slowed_beyond_bound: z.boolean().nullable(),
});
export type DriftProbe = z.infer<typeof DriftProbe>;

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
