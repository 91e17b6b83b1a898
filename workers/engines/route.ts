/**
 * The route logic every local-runtime engine shares (ORT and transformers.js): how many WASM threads can really
 * run, whether WebGPU has an adapter, and the attempt / fallback sequence whose record a receipt's `route` holds.
 * One copy, so the honesty rules (a completed EP has a succeeded attempt; a fallback happens only when allowed and
 * carries the first failure as its reason) cannot drift apart between engines.
 */
import type { ExecutionProvider, RouteAttempt } from '../../src/core/receipt.ts';
import { RouteError, type EngineHooks, type LoadRequest } from './engine.ts';

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

/** Why WebGPU cannot run here, or null when an adapter was granted. Checked before the runtime so the reason is ours. */
export async function webgpuUnavailableReason(): Promise<string | null> {
  const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
  if (!gpu) return 'WebGPU is not available: navigator.gpu is missing in this browser';
  try {
    const adapter = await gpu.requestAdapter();
    return adapter ? null : 'WebGPU is not available: navigator.gpu exists but no adapter was granted';
  } catch (error) {
    return `WebGPU is not available: requestAdapter failed (${error instanceof Error ? error.message : String(error)})`;
  }
}

/** What `createOnRoute` returns: the attempts made, the EP that completed (differing from the request only by an
 *  allowed fallback), and the time the session stage took (every attempt, fallback included). */
export interface RouteOutcome {
  attempts: RouteAttempt[];
  completedEp: ExecutionProvider;
  fallbackReason: string | null;
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
 * @throws RouteError when no EP completed, naming the first failure and whether fallback was refused
 */
export async function createOnRoute(
  request: Pick<LoadRequest, 'ep' | 'allowFallback'>,
  threads: number,
  create: (ep: ExecutionProvider) => Promise<void>,
  fetched: ConstructorParameters<typeof RouteError>[2],
  hooks: EngineHooks,
  failureDetail: () => string = () => '',
): Promise<RouteOutcome> {
  hooks.onStage?.('session', 'start');
  const sessionStarted = performance.now();
  const attempts: RouteAttempt[] = [];
  const tryEp = async (ep: ExecutionProvider): Promise<boolean> => {
    const started = performance.now();
    const unavailable = ep === 'webgpu' ? await webgpuUnavailableReason() : null;
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
    return { attempts, completedEp, fallbackReason, sessionMs };
  };
  if (await tryEp(request.ep)) return completed(request.ep, null);
  if (request.allowFallback && request.ep !== 'wasm' && (await tryEp('wasm'))) return completed('wasm', attempts[0].reason);
  const first = attempts[0]?.reason ?? 'unknown failure';
  const hint = request.ep !== 'wasm' && !request.allowFallback ? ' (fallback to wasm not allowed; tick "allow fallback" to permit it)' : '';
  throw new RouteError(`${first}${hint}`, attempts, fetched);
}
