/**
 * The drift probe's record in a receipt: the kernel's id and constants and the schemas. Light (no statistics): the
 * receipt schema needs it before the page's first paint; the kernel and the trend are in drift-probe.ts, which
 * re-exports all of this.
 */
import { z } from 'zod';

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
