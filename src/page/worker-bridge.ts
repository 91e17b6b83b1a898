/**
 * The page's side of the bench worker, for every run kind (cold/warm, suite, generation, comparison): the one place
 * that creates the worker, and everything a run needs around its calls.
 *
 * - Life: `WorkerBridge.open` starts a module worker and maps its clock onto the page's; `close` terminates it. A
 *   crash (the Worker's `error` event), a stage that overruns its time limit, or a cancel terminates it too, and the
 *   pending call rejects with a `WorkerFailure`: a run never waits forever on a dead worker.
 * - Time limits: every call runs under its stage's limit (`StageLimits`, stage-limits.ts), restarted whenever the
 *   worker reports that a new stage started.
 * - Hooks: one proxied hooks object per worker; `follow` points it at the current run's listeners, and `unfollow`
 *   makes late messages harmless (hooks travel on their own MessagePort, and WebKit can deliver one after the call's
 *   result).
 * - Results: the worker's failures arrive as data and leave here as errors (`EngineError`, or `IntegrityFailure`
 *   for bytes that differ from a pin), with route attempts already on the page clock.
 * - Cancel: an AbortSignal per run; aborting terminates the worker and the run ends failed with reason `cancelled`.
 *
 * The shape is squoosh's worker bridge (the client owns the worker's lifecycle: calls, abort, shutdown); the
 * interface both sides implement is `BenchWorker` in src/worker-api/worker-messages.ts.
 */
import { proxy, wrap, type Remote } from 'comlink';
import { withinLimit } from '../browser/answer-within.ts';
import type { CatalogInput, CatalogModel } from '../core/catalog/catalog.ts';
import type { RouteAttempt, Stage } from '../core/receipt/receipt.ts';
import type { ResourceTimingLike } from '../core/text/redact.ts';
import type {
  BenchWorker,
  RunDiagnostics,
  EngineFailure,
  EngineInput,
  FetchedFacts,
  FetchProgress,
  InputOutcome,
  LoadedInput,
  LoadOutcome,
  LoadRequest,
  LoadResult,
  RunOutcome,
  RunResult,
  SeriesHooks,
  SeriesOutcome,
  SeriesResult,
  UserSuppliedFile,
} from '../worker-api/worker-messages.ts';
import type { StageLimits } from './stage-limits.ts';

/** The route a load asks for: the execution provider, the WASM threads and whether it may fall back to wasm. */
export type LoadRoute = Pick<LoadRequest, 'ep' | 'threads' | 'allowFallback'>;

/** What else a load is told: where the page is, and the run's own choices (each absent = the default). */
export interface LoadSettings {
  /** The page's base URL (ends in "/"): page-origin model files resolve against it. */
  pageBaseUrl: string;
  /** The dtype to load (transformers.js); absent or null = the catalog's. */
  dtype?: string | null;
  /** A cold run's load (runtime files under a run-unique URL where the HTTP cache cannot be seen). */
  coldStart?: boolean;
  /** A user-supplied model's picked files, in `model.files` order. */
  userFiles?: UserSuppliedFile[];
}

/**
 * The worker's load request for `model` on `route`: the one place a controller's run becomes a `LoadRequest`
 * (cold/warm, generation, suite and comparison runs all load through it).
 * @param model the catalog model (or a user's model as a catalog entry)
 * @param route the execution provider, threads and fallback the run asks for
 * @param settings the page's base URL and the run's dtype, cold start and picked files
 */
export function loadRequest(model: CatalogModel, route: LoadRoute, settings: LoadSettings): LoadRequest {
  return {
    model,
    pageBaseUrl: settings.pageBaseUrl,
    ep: route.ep,
    threads: route.threads,
    allowFallback: route.allowFallback,
    dtype: settings.dtype ?? null,
    ...(settings.coldStart ? { coldStart: true } : {}),
    ...(settings.userFiles ? { userFiles: settings.userFiles } : {}),
  };
}

/** The reason a cancelled run records (`outcome.reason`), for every run kind. */
export const CANCELLED = 'cancelled';

/** Why a worker call did not finish: the worker crashed, a stage overran its limit, the run was cancelled, or the
 *  worker was closed. */
export class WorkerFailure extends Error {
  override name = 'WorkerFailure';
  /**
   * @param message what happened, fit for a receipt
   * @param stage the stage that was running
   * @param cancelled true when the user (or the run's AbortSignal) cancelled the run
   */
  constructor(
    message: string,
    readonly stage: Stage | null,
    readonly cancelled = false,
  ) {
    super(message);
    if (cancelled) this.name = 'Cancelled';
  }
}

/** A failure the engine reported from inside the worker (data that crossed the boundary), thrown on the page. */
export class EngineError extends Error {
  /** The stage the worker was in. */
  readonly stage: Stage | null;
  /** Route attempts made before the failure, on the page clock. */
  readonly attempts: RouteAttempt[];
  /**
   * @param failure the worker's report, attempts already mapped onto the page clock
   * @param samplesMs the timed samples a failed series finished before it failed
   * @param message the receipt's reason (the worker's own message unless a subclass explains more)
   */
  constructor(
    readonly failure: EngineFailure,
    readonly samplesMs: number[] = [],
    message = failure.message,
  ) {
    super(message);
    this.name = failure.name;
    this.stage = failure.stage;
    this.attempts = failure.attempts;
  }
}

/**
 * Bytes that differ from their catalog pin (a model file or the fixed input): the page refuses the run and the
 * receipt records integrity `mismatch`. The message names the file and both hashes, then what to do next.
 */
export class IntegrityFailure extends EngineError {
  /** @param failure the worker's report (its message names the file and both hashes) */
  constructor(failure: EngineFailure) {
    super(
      failure,
      [],
      `${failure.message}. The page refused these bytes: reload the page to fetch the file again; if it still differs, the server holds another file than the catalog pins (a changed upload, or a proxy rewriting it), so report it with this receipt`,
    );
    this.name = 'IntegrityFailure';
  }
}

/**
 * What a load that failed had fetched, for the failed receipt: the engine's own report when it failed in the worker,
 * else what the worker reported as it went (a worker that crashed, overran a time limit or was cancelled reports
 * nothing at the end). Null when nothing had been fetched, or no load ran.
 * @param error what ended the load
 * @param bridge the run's worker bridge (null when none was opened)
 */
export function fetchedBeforeFailure(error: unknown, bridge: WorkerBridge | null): FetchedFacts | null {
  if (error instanceof EngineError && error.failure.fetched) return error.failure.fetched;
  return bridge?.fetched ?? null;
}

/**
 * What the current run listens to. Times are page-clock ms. `onStage` also hears the stage of each call the page
 * starts (`fetch` for a load, `first_inference` for a cold run's inference, ...), so it is the one place a run
 * journals its stages.
 */
export interface RunListener {
  onStage?(stage: Stage, phase: 'start' | 'end', atMs: number): void;
  onProgress?(progress: FetchProgress): void;
  onSample?(index: number, durationMs: number): void;
  onToken?(tokenIndex: number): void;
}

/**
 * Races `promise` against the run's AbortSignal (for page-side work such as the capability probe).
 * @param promise the page-side work
 * @param signal the run's signal; without one, `promise` as it is
 * @param stage the stage to name when the run is cancelled during it
 */
export function cancellable<T>(promise: Promise<T>, signal: AbortSignal | undefined, stage: Stage | null): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new WorkerFailure(CANCELLED, stage, true));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new WorkerFailure(CANCELLED, stage, true));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * `promise` under a page-side stage's time limit (the capability probe has one too), cancellable.
 * @param promise the page-side work
 * @param stage the stage it belongs to
 * @param limitMs that stage's limit
 * @param signal the run's signal
 */
export function pageStage<T>(promise: Promise<T>, stage: Stage, limitMs: number, signal?: AbortSignal): Promise<T> {
  const limited = withinLimit(promise, limitMs, () => {
    const overrun = new WorkerFailure(`stage ${stage} did not finish within its time limit of ${limitMs} ms`, stage);
    // Page-side work, not the worker: named as what it is (the worker, if any, is still alive).
    overrun.name = 'TimeoutError';
    return overrun;
  });
  return cancellable(limited, signal, stage);
}

/** One live bench worker and the run currently using it. */
export class WorkerBridge {
  /** The worker's API (for test hooks such as `crashSoon` and `ping`); runs use the guarded methods below. */
  readonly api: Remote<BenchWorker>;
  private readonly worker: Worker;
  private readonly hooks: SeriesHooks;
  private listener: RunListener | null = null;
  private signal: AbortSignal | null = null;
  private readonly onAbort = () => this.fail(new WorkerFailure(CANCELLED, this.stage, true));
  private dead: WorkerFailure | null = null;
  private rejectCurrent: ((error: WorkerFailure) => void) | null = null;
  private stage: Stage | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** Worker performance.timeOrigin minus the page's: add it to a worker time to get a page time. */
  private clockOffsetMs = 0;
  /** What the current load has fetched so far, as the worker reported it (`onFetched`). */
  private fetchedSoFar: FetchedFacts | null = null;

  private constructor(private readonly limits: StageLimits) {
    // The only place the page constructs the bench worker.
    this.worker = new Worker(new URL('../../workers/bench.worker.ts', import.meta.url), {
      type: 'module',
      name: 'drb-bench',
    });
    this.worker.addEventListener('error', (event) => {
      event.preventDefault();
      const detail = event.message || 'the worker failed to load or threw an uncaught error';
      this.fail(new WorkerFailure(`worker crashed during ${this.stage ?? 'setup'}: ${detail}`, this.stage));
    });
    this.worker.addEventListener('messageerror', () =>
      this.fail(new WorkerFailure('worker sent a message that could not be read', this.stage)),
    );
    this.api = wrap<BenchWorker>(this.worker);
    // One proxy for the worker's life; it forwards to whichever run follows the bridge now. It defines EVERY hook
    // (Required): the worker calls any hook through the proxy, and a hook missing here makes comlink throw
    // "Cannot read properties of undefined (reading 'apply')" in the worker, uncaught (comparisons once proxied an
    // object with onStage only, and every progress message of their loads threw).
    this.hooks = proxy({
      onProgress: (progress: FetchProgress) => this.listener?.onProgress?.(progress),
      onStage: (stage: Stage, phase: 'start' | 'end') => {
        if (this.listener === null) return;
        if (phase === 'start') this.enterStage(stage);
        else this.listener.onStage?.(stage, phase, performance.now());
      },
      onSample: (index: number, durationMs: number) => this.listener?.onSample?.(index, durationMs),
      onToken: (tokenIndex: number) => this.listener?.onToken?.(tokenIndex),
      // Kept whoever follows: the facts belong to the worker's load, not to a listener.
      onFetched: (facts: FetchedFacts) => {
        this.fetchedSoFar = facts;
      },
    } satisfies Required<SeriesHooks>);
  }

  /**
   * Starts a fresh worker and maps its clock onto the page's (under the probe stage's limit).
   * @param limits the run's stage limits
   * @param signal the run's AbortSignal (cancelling terminates the worker)
   */
  static async open(limits: StageLimits, signal?: AbortSignal): Promise<WorkerBridge> {
    const bridge = new WorkerBridge(limits);
    bridge.follow({}, signal);
    const workerOrigin = await bridge.call(null, limits.probe, () => bridge.api.timeOrigin());
    bridge.clockOffsetMs = workerOrigin - performance.timeOrigin;
    if (WorkerBridge.ortLog !== null)
      await bridge.call(null, limits.probe, () => bridge.api.setOrtLog(WorkerBridge.ortLog));
    return bridge;
  }

  /**
   * What the latest load fetched before it ended or died (model files, then the runtime build), as the worker
   * reported each part; null before any was done. A worker that crashes or overruns a time limit sends no failure
   * report, so this is what its run's receipt can still say.
   */
  get fetched(): FetchedFacts | null {
    return this.fetchedSoFar;
  }

  /** Whether the worker crashed, timed out, was cancelled or closed. */
  get isDead(): boolean {
    return this.dead !== null;
  }

  /**
   * Points the worker's hooks at the current run, and lets its signal cancel the run.
   * @param listener the run's listeners
   * @param signal the run's AbortSignal
   */
  follow(listener: RunListener, signal?: AbortSignal): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    this.listener = listener;
    this.signal = signal ?? null;
    if (!signal) return;
    if (signal.aborted) this.onAbort();
    else signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The run ended: late hook messages are ignored, and its signal no longer reaches the worker (a warm run may
   *  reuse the loaded model later). */
  unfollow(): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    this.signal = null;
    this.listener = null;
  }

  /**
   * A worker time on the page clock.
   * @param workerMs a worker `performance.now()` value
   */
  toPageMs(workerMs: number): number {
    return workerMs + this.clockOffsetMs;
  }

  /** The worker clock's now (what `resourceEntries` counts from). */
  workerNow(): number {
    return performance.now() - this.clockOffsetMs;
  }

  /**
   * Fetches the catalog's fixed input in the worker (stage `fetch`).
   * @param input the catalog's input entry
   * @param pageBaseUrl the page's base URL
   * @throws IntegrityFailure when its bytes differ from the pin; EngineError or WorkerFailure otherwise
   */
  async loadInput(input: CatalogInput, pageBaseUrl: string): Promise<LoadedInput> {
    const outcome = await this.call<InputOutcome>('fetch', this.limits.fetch, () =>
      this.api.loadInput(input, pageBaseUrl),
    );
    if (!outcome.ok) throw this.engineError(outcome);
    return { id: outcome.id, sha256: outcome.sha256, bytes: outcome.bytes };
  }

  /**
   * Loads the model on the requested route (stage `fetch`, then whatever stages the worker reports).
   * @param request model, route, threads and dtype
   * @returns the load's receipt sections, route attempts on the page clock
   * @throws IntegrityFailure, EngineError (with the attempts and any files fetched) or WorkerFailure
   */
  async load(request: LoadRequest): Promise<LoadResult> {
    this.fetchedSoFar = null;
    const outcome = await this.call<LoadOutcome>('fetch', this.limits.fetch, () => this.api.load(request, this.hooks));
    if (!outcome.ok) throw this.engineError(outcome);
    const { ok: _ok, ...result } = outcome;
    return { ...result, route: { ...result.route, attempts: this.attemptsToPage(result.route.attempts) } };
  }

  /**
   * Sets an input the page built (a suite row, a prompt).
   * @param input id + task-shaped data
   * @param stage the stage the run is in
   * @param limitMs the time limit (that stage's by default)
   */
  async setInput(input: EngineInput, stage: Stage, limitMs = this.limits[stage]): Promise<void> {
    await this.call(stage, limitMs, () => this.api.setInput(input));
  }

  /**
   * One digested inference on the current input.
   * @param stage the stage it belongs to (`first_inference` for a cold run)
   * @param limitMs the time limit (that stage's by default)
   * @throws EngineError or WorkerFailure
   */
  async runOnce(stage: Stage, limitMs = this.limits[stage]): Promise<RunResult> {
    const outcome = await this.call<RunOutcome>(stage, limitMs, () => this.api.runOnce(this.hooks));
    if (!outcome.ok) throw this.engineError(outcome);
    const { ok: _ok, ...result } = outcome;
    return result;
  }

  /**
   * Untimed warm-up runs, then timed runs (stage `warmup`, then `warm_inference` when the worker says so).
   * @param warmupRuns untimed runs first
   * @param runs timed runs
   * @param driftProbe time the drift probe's kernel in the worker before the first timed run and after each
   * @throws EngineError carrying the samples finished before the failure, or WorkerFailure
   */
  async runSeries(warmupRuns: number, runs: number, driftProbe = false): Promise<SeriesResult> {
    const outcome = await this.call<SeriesOutcome>('warmup', this.limits.warmup, () =>
      this.api.runSeries(warmupRuns, runs, this.hooks, driftProbe),
    );
    if (!outcome.ok) throw this.engineError(outcome, outcome.timings.warm_samples_ms);
    return outcome;
  }

  /**
   * Times the drift probe's reference kernel once in the worker (before and after a cold run), ms.
   * @throws WorkerFailure when the worker is gone or does not answer within 10 s
   */
  async driftProbe(): Promise<number> {
    return this.call(null, 10_000, () => this.api.driftProbe());
  }

  /**
   * The worker's own resource timing entries (model files, input, runtime files) since `sinceWorkerMs`, on the page
   * clock; empty when the worker is gone.
   * @param sinceWorkerMs a `workerNow()` value from the start of the run
   */
  async resourceEntries(sinceWorkerMs: number): Promise<ResourceTimingLike[]> {
    if (this.dead) return [];
    try {
      const entries = await this.call(null, 5_000, () => this.api.resourceEntries(sinceWorkerMs));
      return entries.map((e) => ({ ...e, startTime: this.toPageMs(e.startTime) }));
    } catch {
      // The worker died while we asked: the receipt keeps the page's entries only.
      return [];
    }
  }

  /**
   * What the worker observed of the runtime during the run that just ended (where the nodes ran, the memory read in
   * the worker), for the receipt's `placement` and `memory`; null when the worker is gone or did not answer.
   * @param kind the receipt's run kind
   */
  async diagnostics(kind: 'cold' | 'warm'): Promise<RunDiagnostics | null> {
    if (this.dead) return null;
    try {
      return await this.call(null, 5_000, () => this.api.diagnostics(kind));
    } catch {
      return null;
    }
  }

  /** `ort_log=verbose` (src/core/automation/automation.ts `ortLog`): every worker of this page creates its ORT sessions
   *  with ONNX Runtime's verbose log, and prints their "Node placements" lines to the console. */
  static readonly ortLog: 'verbose' | null =
    typeof location !== 'undefined' && new URLSearchParams(location.search).get('ort_log') === 'verbose'
      ? 'verbose'
      : null;

  /**
   * Terminates the worker (idempotent); a pending call rejects with `reason`.
   * @param reason why, for the pending call's error
   */
  close(reason = 'worker terminated'): void {
    this.unfollow();
    this.fail(new WorkerFailure(reason, this.stage));
  }

  /** Test hook: terminates the worker silently, as the OS killing it would; only the stage time limit notices. */
  killSilently(): void {
    this.worker.terminate();
  }

  /** Test hook (`test_hooks=1` only): every bridge's worker is killed silently as it enters this stage. */
  static killAtStage: Stage | null = null;

  /** Route attempts measured on the worker clock, moved onto the page clock. */
  private attemptsToPage(attempts: readonly RouteAttempt[]): RouteAttempt[] {
    return attempts.map((a) => ({
      ...a,
      started_at_ms: this.toPageMs(a.started_at_ms),
      ended_at_ms: this.toPageMs(a.ended_at_ms),
    }));
  }

  private engineError(failure: EngineFailure, samplesMs: number[] = []): EngineError {
    const onPage: EngineFailure = { ...failure, attempts: this.attemptsToPage(failure.attempts) };
    return failure.integrityMismatch ? new IntegrityFailure(onPage) : new EngineError(onPage, samplesMs);
  }

  /** A new stage starts: its own time limit, and the run hears of it. */
  private enterStage(stage: Stage | null, limitMs = stage ? this.limits[stage] : 0): void {
    this.stage = stage;
    this.clearTimer();
    if (stage !== null && stage === WorkerBridge.killAtStage) this.killSilently();
    if (limitMs > 0) {
      this.timer = setTimeout(() => {
        this.fail(
          new WorkerFailure(
            `stage ${stage ?? 'setup'} did not finish within its time limit of ${limitMs} ms (worker hung or was killed)`,
            stage,
          ),
        );
      }, limitMs);
    }
    if (stage !== null) this.listener?.onStage?.(stage, 'start', performance.now());
  }

  /** One worker call under a time limit; rejects with the WorkerFailure when the worker dies meanwhile. */
  private call<T>(stage: Stage | null, limitMs: number, body: () => Promise<T>): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    this.enterStage(stage, limitMs);
    return new Promise<T>((resolve, reject) => {
      this.rejectCurrent = reject;
      body().then(
        (value) => {
          this.clearTimer();
          this.rejectCurrent = null;
          if (this.dead) reject(this.dead);
          else resolve(value);
        },
        (error: unknown) => {
          this.clearTimer();
          this.rejectCurrent = null;
          reject(this.dead ?? error);
        },
      );
    });
  }

  private fail(failure: WorkerFailure): void {
    if (!this.dead) this.dead = failure;
    this.clearTimer();
    this.worker.terminate();
    const reject = this.rejectCurrent;
    this.rejectCurrent = null;
    reject?.(this.dead);
  }

  private clearTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
