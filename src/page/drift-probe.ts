/**
 * The drift probe on the page's main thread: times the fixed reference kernel (src/core/device/drift-probe.ts) once.
 * Comparisons and sweeps run it before their first round and after each, while every route's worker is idle, so the
 * probe measures the device, not the model.
 */
import { DRIFT_KERNEL_WORK, driftKernel } from '../core/device/drift-probe.ts';

/** The kernel's last result, exported so its work is observable and never optimised away. */
export let driftProbeSink = 0;

let compiled = false;

/** Times the reference kernel once on this thread, ms (the first call runs it once untimed, so no probe times the
 *  engine compiling it). */
export function timeDriftProbe(): number {
  if (!compiled) {
    driftProbeSink = driftKernel(DRIFT_KERNEL_WORK);
    compiled = true;
  }
  const t0 = performance.now();
  driftProbeSink = driftKernel(DRIFT_KERNEL_WORK);
  return performance.now() - t0;
}
