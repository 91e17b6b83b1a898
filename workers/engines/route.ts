/**
 * The route logic every local-runtime engine shares (ORT and transformers.js): how many WASM threads can really
 * run, whether WebGPU has an adapter, and the attempt / fallback sequence whose record a receipt's `route` holds.
 * One copy, so the honesty rules (a completed EP has a succeeded attempt; a fallback happens only when allowed and
 * carries the first failure as its reason) cannot drift apart between engines.
 */
import { probeWebGpu, webgpuUnavailableReason } from '../../src/browser/webgpu-probe.ts';
import type { ExecutionProvider, RouteAttempt } from '../../src/core/receipt.ts';
import type { EngineHooks, FetchedFacts, LoadedRoute, LoadRequest, LoadResult } from '../../src/worker-api/protocol.ts';
import { RouteError } from './engine.ts';
import type { FetchedRuntime } from '../ort-runtime.ts';

/** ORT's own default for numThreads (half the cores, at most 4), made explicit so the receipt can record it. */
function defaultThreads(): number {
  return Math.min(4, Math.ceil((navigator.hardwareConcurrency || 1) / 2));
}

/**
 * The WASM thread count the runtime will really use for `requested` (null = the runtime's default).
 * Without cross-origin isolation there is no SharedArrayBuffer and ORT runs one thread whatever is asked. Check
 * SharedArrayBuffer itself too: WebKitGTK reports crossOriginIsolated true yet hides it (unless
 * JSC_useSharedArrayBuffer=1), and ORT then silently runs one thread; the receipt must not claim more.
 */
export function effectiveThreads(requested: number | null): number {
  return self.crossOriginIsolated && typeof SharedArrayBuffer === 'function' ? (requested ?? defaultThreads()) : 1;
}

/** What `createOnRoute` returns: the receipt's route facts (the attempts made, the EP that completed, differing
 *  from the request only by an allowed fallback) and the time the session stage took (every attempt included). */
export interface RouteOutcome {
  route: LoadedRoute;
  sessionMs: number;
}

/**
 * Creates a session on the requested EP, and on wasm after it only when the request allows fallback. Every try is an
 * attempt in the record; WebGPU without an adapter fails before the runtime is asked. The whole sequence is the
 * `session` stage: it is announced through `hooks.onStage` (which restarts that stage's time limit) and timed.
 * @param request the route asked for (ep, allowFallback)
 * @param threads the effective thread count, recorded on every attempt
 * @param create makes the session on one EP; throws when it cannot
 * @param failureDetail extra words for a failed attempt's reason (for example files the runtime asked for that the catalog lacks)
 * @param fetched the files already fetched, so a RouteError's failed receipt still lists them with their hashes
 * @throws RouteError when no EP completed, naming the first failure, whether fallback was refused, and the fallback's
 *   own failure when it was tried
 */
export async function createOnRoute(
  request: Pick<LoadRequest, 'ep' | 'allowFallback'>,
  threads: number,
  create: (ep: ExecutionProvider) => Promise<void>,
  fetched: FetchedFacts,
  hooks: EngineHooks,
  failureDetail: () => string = () => '',
): Promise<RouteOutcome> {
  hooks.onStage?.('session', 'start');
  const sessionStarted = performance.now();
  const attempts: RouteAttempt[] = [];
  const tryEp = async (ep: ExecutionProvider): Promise<boolean> => {
    const started = performance.now();
    // Checked before the runtime is asked, so the reason is ours (and the same words as the capability probe's).
    const unavailable = ep === 'webgpu' ? webgpuUnavailableReason(await probeWebGpu()) : null;
    if (unavailable) {
      attempts.push({ ep, threads, outcome: 'failed', reason: unavailable, started_at_ms: started, ended_at_ms: performance.now() });
      return false;
    }
    try {
      await create(ep);
      attempts.push({ ep, threads, outcome: 'succeeded', reason: null, started_at_ms: started, ended_at_ms: performance.now() });
      return true;
    } catch (error) {
      const reason = `session creation on ${ep} failed: ${error instanceof Error ? error.message : String(error)}${failureDetail()}`;
      attempts.push({ ep, threads, outcome: 'failed', reason, started_at_ms: started, ended_at_ms: performance.now() });
      return false;
    }
  };

  const completed = (completedEp: ExecutionProvider, fallbackReason: string | null): RouteOutcome => {
    const sessionMs = performance.now() - sessionStarted;
    hooks.onStage?.('session', 'end');
    return { route: { completed_ep: completedEp, fallback_reason: fallbackReason, threads_effective: threads, attempts }, sessionMs };
  };
  if (await tryEp(request.ep)) return completed(request.ep, null);
  if (request.allowFallback && request.ep !== 'wasm' && (await tryEp('wasm'))) return completed('wasm', attempts[0].reason);
  const first = attempts[0]?.reason ?? 'unknown failure';
  const hint = request.ep !== 'wasm' && !request.allowFallback ? ' (fallback to wasm not allowed for this run)' : '';
  // An allowed fallback that failed too is the run's last word: the reason says so, not only the attempts.
  const fallback = attempts.length > 1 ? `; the fallback to wasm failed too: ${attempts[1].reason}` : '';
  throw new RouteError(`${first}${hint}${fallback}`, attempts, fetched);
}

/**
 * The load result every local-runtime engine returns, as receipt sections.
 * @param engine the engine's name and runtime version
 * @param fetched the fetched files' facts (hashes, integrity, fetch time)
 * @param outcome what `createOnRoute` returned
 * @param runtime the runtime build the session loaded and its fetch (workers/ort-runtime.ts)
 */
export function localLoadResult(engine: LoadResult['engine'], fetched: FetchedFacts, outcome: RouteOutcome, runtime: Pick<FetchedRuntime, 'info' | 'fetchMs'>): LoadResult {
  return {
    engine,
    route: outcome.route,
    model: fetched.model,
    runtime: runtime.info,
    timings: { model_fetch_ms: fetched.timings.model_fetch_ms, runtime_fetch_ms: runtime.fetchMs, session_create_ms: outcome.sessionMs },
  };
}
