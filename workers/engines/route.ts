/**
 * The route logic every local-runtime engine shares (ORT and transformers.js): how many WASM threads can really
 * run, whether WebGPU has an adapter, and the attempt / fallback sequence whose record a receipt's `route` holds.
 * One copy, so the honesty rules (a completed EP has a succeeded attempt; a fallback happens only when allowed and
 * carries the first failure as its reason) cannot drift apart between engines.
 */
import { probeWebGpu, webgpuUnavailableReason, type WebGpuFacts } from '../../src/browser/webgpu-probe.ts';
import type { ExecutionProvider, RouteAttempt } from '../../src/core/receipt/receipt.ts';
import { routeFailureReason, sessionFailedReason } from '../../src/core/engines/route-reasons.ts';
import type {
  EngineHooks,
  FetchedFacts,
  LoadedRoute,
  LoadRequest,
  LoadResult,
} from '../../src/worker-api/worker-messages.ts';
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

/**
 * The execution provider whose runtime build a load fetches (ort-runtime.ts `ortBuildFor`): the requested one, except
 * for a `webgpu` request that may fall back where this context has no usable WebGPU. That run can only run its wasm
 * fallback (its webgpu attempt fails before the runtime is asked), so it loads what a wasm route loads: the plain
 * build, 14 MB against the WebGPU-capable builds' 17 (JSPI) and 27 MB (asyncify: Safari's); its wasm timings are a
 * wasm route's; and a model that needs a CPU kernel only the plain build has (GatherBlockQuantized) still runs. Where
 * WebGPU is usable but the session then fails on it, the fallback runs on the WebGPU-capable build already loaded:
 * a worker holds one runtime.
 * @param request the route asked for
 * @param webgpu what this context's WebGPU probe found (null where none was made: a wasm request)
 */
export function runtimeEpFor(
  request: Pick<LoadRequest, 'ep' | 'allowFallback'>,
  webgpu: Pick<WebGpuFacts, 'navigator_gpu' | 'adapter_granted' | 'adapter_error'> | null,
): ExecutionProvider {
  return request.ep === 'webgpu' && request.allowFallback && webgpu !== null && webgpuUnavailableReason(webgpu) !== null
    ? 'wasm'
    : request.ep;
}

/** What a load settles from its route before it downloads anything (`planRoute`). */
export interface RoutePlan {
  /** What this context's WebGPU probe found (null where none was made: a wasm request); `createOnRoute` decides the
   *  route's webgpu attempt on the same facts. */
  webgpu: WebGpuFacts | null;
  /** The execution provider whose runtime build the load fetches (`runtimeEpFor`). */
  runtimeEp: ExecutionProvider;
}

/**
 * Settles a load's route before anything is downloaded: probes this context's WebGPU where the request needs it (a
 * `webgpu` route), once per load, and picks the runtime build from what it found (`runtimeEpFor`). A `webgpu` route
 * that may not fall back, where there is no usable WebGPU, cannot run at all: it fails here, at the `session` stage with
 * the same attempt and words as `createOnRoute` records, before the model or a runtime is fetched. Downloading them
 * first gave the failed receipt nothing to measure and cost a tester the model and the WebGPU-capable runtime (27 MB
 * on a Safari without WebGPU) for a run that could not succeed.
 * @param request the route asked for
 * @param threads the effective thread count, recorded on the failed attempt
 * @param hooks the load's hooks (the refusal is announced as the `session` stage)
 * @throws RouteError when the route cannot run here (its receipt lists no file: none was fetched)
 */
export async function planRoute(
  request: Pick<LoadRequest, 'ep' | 'allowFallback'>,
  threads: number,
  hooks: EngineHooks,
): Promise<RoutePlan> {
  const webgpu = request.ep === 'webgpu' ? await probeWebGpu() : null;
  if (webgpu !== null && !request.allowFallback && webgpuUnavailableReason(webgpu) !== null) {
    // Its only attempt fails on the probe's facts before the runtime would be asked, so `create` is never called.
    await createOnRoute(request, threads, () => Promise.reject(new Error('no runtime was loaded')), null, hooks, {
      webgpu,
    });
  }
  return { webgpu, runtimeEp: runtimeEpFor(request, webgpu) };
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
 * @param fetched the files already fetched, so a RouteError's failed receipt still lists them with their hashes (null:
 *   none, `planRoute`'s refusal)
 * @param options.failureDetail extra words for a failed attempt's reason (for example files the runtime asked for that
 *   the catalog lacks)
 * @param options.webgpu the probe that chose the runtime build (`planRoute`); probed here when absent
 * @throws RouteError when no EP completed, naming the first failure, whether fallback was refused, and the fallback's
 *   own failure when it was tried
 */
export async function createOnRoute(
  request: Pick<LoadRequest, 'ep' | 'allowFallback'>,
  threads: number,
  create: (ep: ExecutionProvider) => Promise<void>,
  fetched: FetchedFacts | null,
  hooks: EngineHooks,
  options: { failureDetail?: () => string; webgpu?: WebGpuFacts | null } = {},
): Promise<RouteOutcome> {
  const failureDetail = options.failureDetail ?? (() => '');
  hooks.onStage?.('session', 'start');
  const sessionStarted = performance.now();
  const attempts: RouteAttempt[] = [];
  const tryEp = async (ep: ExecutionProvider): Promise<boolean> => {
    const started = performance.now();
    // Checked before the runtime is asked, so the reason is ours (and the same words as the capability probe's).
    const unavailable = ep === 'webgpu' ? webgpuUnavailableReason(options.webgpu ?? (await probeWebGpu())) : null;
    if (unavailable) {
      attempts.push({
        ep,
        threads,
        outcome: 'failed',
        reason: unavailable,
        started_at_ms: started,
        ended_at_ms: performance.now(),
      });
      return false;
    }
    try {
      await create(ep);
      attempts.push({
        ep,
        threads,
        outcome: 'succeeded',
        reason: null,
        started_at_ms: started,
        ended_at_ms: performance.now(),
      });
      return true;
    } catch (error) {
      const reason = sessionFailedReason(
        ep,
        `${error instanceof Error ? error.message : String(error)}${failureDetail()}`,
      );
      attempts.push({ ep, threads, outcome: 'failed', reason, started_at_ms: started, ended_at_ms: performance.now() });
      return false;
    }
  };

  const completed = (completedEp: ExecutionProvider, fallbackReason: string | null): RouteOutcome => {
    const sessionMs = performance.now() - sessionStarted;
    hooks.onStage?.('session', 'end');
    return {
      route: { completed_ep: completedEp, fallback_reason: fallbackReason, threads_effective: threads, attempts },
      sessionMs,
    };
  };
  if (await tryEp(request.ep)) return completed(request.ep, null);
  if (request.allowFallback && request.ep !== 'wasm' && (await tryEp('wasm')))
    return completed('wasm', attempts[0].reason);
  // An allowed fallback that failed too is the run's last word: the reason says so, not only the attempts.
  const reason = routeFailureReason(
    attempts[0]?.reason ?? 'unknown failure',
    request.ep !== 'wasm' && !request.allowFallback,
    attempts[1]?.reason ?? null,
  );
  throw new RouteError(reason, attempts, fetched);
}

/**
 * The load result every local-runtime engine returns, as receipt sections.
 * @param engine the engine's name and runtime version
 * @param fetched the fetched files' facts (hashes, integrity, fetch time)
 * @param outcome what `createOnRoute` returned
 * @param runtime the runtime build the session loaded and its fetch (workers/ort-runtime.ts)
 */
export function localLoadResult(
  engine: LoadResult['engine'],
  fetched: FetchedFacts,
  outcome: RouteOutcome,
  runtime: Pick<FetchedRuntime, 'info' | 'fetchMs'>,
): LoadResult {
  return {
    engine,
    route: outcome.route,
    model: fetched.model,
    runtime: runtime.info,
    timings: {
      model_fetch_ms: fetched.timings.model_fetch_ms,
      runtime_fetch_ms: runtime.fetchMs,
      session_create_ms: outcome.sessionMs,
    },
  };
}
