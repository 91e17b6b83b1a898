/**
 * The engine interface: what every engine adapter (ORT, transformers.js, WebLLM) implements inside the bench worker.
 *
 * One adapter instance holds at most one loaded model. The worker calls, in order:
 *   1. `load(request, hooks)`: fetch the model files (progress + SHA-256 through `fetchModelFiles` in model-fetch.ts),
 *      create the session on the requested route, and report every route attempt honestly;
 *   2. `run(input, options, hooks)` any number of times: one inference on the current input, timed by the adapter
 *      around the runtime call only, returning an output digest (never text) when `options.digest` asks for one;
 *   3. `dispose()`.
 * Task-specific engines (rerank, score-candidates, generate) take their own `input.data` shape and may return
 * extra numbers in `RunResult.values` / `RunResult.metrics`; the page never puts text into a receipt.
 *
 * The types that cross to the page (requests, results, hooks) live in src/worker-api/worker-messages.ts; what engines can
 * do, in src/core/engines/engine-capabilities.ts.
 */
import type { EngineName } from '../../src/core/receipt/receipt.ts';
import type { SessionPlacement } from '../../src/core/receipt/ep-placement.ts';
import type {
  EngineHooks,
  EngineInput,
  FetchedFacts,
  LoadRequest,
  LoadResult,
  RunOptions,
  RunResult,
} from '../../src/worker-api/worker-messages.ts';

/** What every engine adapter implements. Errors thrown carry a message fit for a receipt (URLs redacted by the caller). */
export interface Engine {
  readonly name: EngineName;
  /**
   * Fetches the model's files and creates the session on the requested route.
   * @param request model, route, threads and dtype
   * @param hooks progress and stage callbacks (the page's proxy)
   * @throws IntegrityError when a file differs from its pin; RouteError when no route could create the session
   */
  load(request: LoadRequest, hooks: EngineHooks): Promise<LoadResult>;
  /**
   * One inference on `input`.
   * @param input the current input (a fixed input, a suite row, a prompt)
   * @param options whether to digest the output
   * @param hooks `onToken` for generate tasks
   */
  run(input: EngineInput, options: RunOptions, hooks: EngineHooks): Promise<RunResult>;
  /** Releases the session and its memory. */
  dispose(): Promise<void>;
  /**
   * ORT-backed engines: where each session's nodes ran, from ORT's profiler over the first run after the session was
   * created (null before that run ended, or when the profile could not be read: `placementProblem` says why).
   */
  placement?(): SessionPlacement[] | null;
  /** Why `placement()` is null after a run (the profile was not printed or did not parse), else null. */
  placementProblem?(): string | null;
  /** What of the runtime's memory this engine lets the worker observe (runtime-observer.ts): its WebAssembly memory
   *  (onnxruntime-web's, instantiated in this worker) and GPU buffers (a device the worker handed the runtime). An
   *  engine without it observes neither; `why` says what each lacks. */
  readonly memoryObservation?: { wasm: boolean; gpu: boolean; why: string };
}

/** Thrown when a loaded file's bytes or hash differ from its catalog pin; the page records integrity `mismatch`. */
export class IntegrityError extends Error {
  override name = 'IntegrityError';
}

/** Thrown when the requested route cannot run and fallback is not allowed (or also failed). */
export class RouteError extends Error {
  override name = 'RouteError';
  /**
   * @param message the first failure's reason, with a hint when fallback was not allowed
   * @param attempts every attempt made, so the failed receipt can still list them
   * @param fetched the files fetched before the route failed (with their hashes and fetch time), if any
   */
  constructor(
    message: string,
    readonly attempts: LoadResult['route']['attempts'],
    readonly fetched: FetchedFacts | null = null,
  ) {
    super(message);
  }
}
