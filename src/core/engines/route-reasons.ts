/**
 * The words a route's failure reasons are made of, in one place. The worker writes them (workers/engines/route.ts,
 * src/browser/webgpu-probe.ts) and the page reads them back to advise what to do (failure-advice.ts), from a run that
 * just failed or from a receipt written earlier, so the two sides must not drift apart. Changing a phrase here changes
 * what new receipts say; older receipts keep the words they were written with, which these same phrases match.
 */

/** How every reason for an unusable WebGPU starts (no `navigator.gpu`, no adapter, a refused adapter request). */
export const WEBGPU_UNAVAILABLE = 'WebGPU is not available';

/** Appended to a `webgpu` route's first failure when the run did not allow falling back to wasm. */
export const NO_FALLBACK_HINT = '(fallback to wasm not allowed for this run)';

/** Joins a route's first failure to its fallback's own failure, when the allowed fallback failed too. */
export const FALLBACK_FAILED_TOO = 'the fallback to wasm failed too';

/**
 * The reason an attempt's session creation failed.
 * @param ep the attempt's execution provider
 * @param message the runtime's own error message (and any detail the loader adds)
 */
export function sessionFailedReason(ep: string, message: string): string {
  return `${sessionFailedPrefix(ep)} ${message}`;
}

/**
 * How a session-creation failure on `ep` starts (to recognise one).
 * @param ep the attempt's execution provider
 */
export function sessionFailedPrefix(ep: string): string {
  return `session creation on ${ep} failed:`;
}

/**
 * A failed route's reason, from its attempts' reasons: the first failure, the hint when fallback was not allowed, and
 * the fallback's own failure when it was tried.
 * @param first the first attempt's reason
 * @param fallbackRefused whether a non-wasm route failed with fallback not allowed
 * @param fallbackReason the fallback attempt's reason, when one was made
 */
export function routeFailureReason(first: string, fallbackRefused: boolean, fallbackReason: string | null): string {
  return `${first}${fallbackRefused ? ` ${NO_FALLBACK_HINT}` : ''}${fallbackReason === null ? '' : `; ${FALLBACK_FAILED_TOO}: ${fallbackReason}`}`;
}
