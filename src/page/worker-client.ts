/**
 * The page's side of the bench worker: creates the module worker, wraps it with comlink, and turns a crash (the
 * Worker's `error` event) or a stage that overruns its time limit into a rejected promise, terminating the worker.
 * A run never waits forever on a dead worker.
 */
import { proxy, wrap, type Remote } from 'comlink';
import type { Stage } from '../core/receipt.ts';
import type { BenchWorkerApi } from '../../workers/bench-worker-api.ts';

/** Why a worker call did not finish: crashed, overran its stage time limit, or was terminated. */
export class WorkerFailure extends Error {
  override name = 'WorkerFailure';
  /** @param stage the stage that was running */
  constructor(message: string, readonly stage: Stage | null) {
    super(message);
  }
}

/** One live worker. */
export class WorkerHandle {
  readonly api: Remote<BenchWorkerApi>;
  private readonly worker: Worker;
  private dead: WorkerFailure | null = null;
  private rejectCurrent: ((error: WorkerFailure) => void) | null = null;
  private stage: Stage | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** Worker performance.timeOrigin minus the page's: add it to a worker time to get a page time. */
  clockOffsetMs = 0;

  constructor() {
    this.worker = new Worker(new URL('../../workers/bench.worker.ts', import.meta.url), { type: 'module', name: 'drb-bench' });
    this.worker.addEventListener('error', (event) => {
      event.preventDefault();
      const detail = event.message || 'the worker failed to load or threw an uncaught error';
      this.fail(new WorkerFailure(`worker crashed during ${this.stage ?? 'setup'}: ${detail}`, this.stage));
    });
    this.worker.addEventListener('messageerror', () => this.fail(new WorkerFailure('worker sent a message that could not be read', this.stage)));
    this.api = wrap<BenchWorkerApi>(this.worker);
  }

  /** Maps the worker clock onto the page clock (call once after creation). */
  async syncClock(limitMs: number): Promise<void> {
    const workerOrigin = await this.call(null, limitMs, () => this.api.timeOrigin());
    this.clockOffsetMs = workerOrigin - performance.timeOrigin;
  }

  /** Whether the worker crashed, timed out or was terminated. */
  get isDead(): boolean {
    return this.dead !== null;
  }

  /**
   * Runs one worker call under a stage time limit; `enterStage` (passed to hooks) restarts the limit for a new stage.
   * @param stage the stage the call starts in
   * @param limitMs the time limit for that stage (and each later one, unless `limitFor` says otherwise)
   * @param body the call
   * @param limitFor the limit of a stage entered during the call
   */
  call<T>(stage: Stage | null, limitMs: number, body: () => Promise<T>, limitFor: (stage: Stage) => number = () => limitMs): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    this.limitFor = limitFor;
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

  private limitFor: (stage: Stage) => number = () => 0;

  /** Called from stage hooks: a new stage starts with its own time limit. */
  enterStage(stage: Stage | null, limitMs = stage ? this.limitFor(stage) : 0): void {
    this.stage = stage;
    this.clearTimer();
    if (limitMs > 0) {
      this.timer = setTimeout(() => {
        this.fail(new WorkerFailure(`stage ${stage ?? 'setup'} did not finish within its time limit of ${limitMs} ms (worker hung or was killed)`, stage));
      }, limitMs);
    }
  }

  /** Wraps page-side hooks for comlink. */
  proxy<T extends object>(hooks: T): T {
    return proxy(hooks);
  }

  /** Terminates the worker (idempotent); a pending call rejects with `reason`. */
  terminate(reason = 'worker terminated'): void {
    this.fail(new WorkerFailure(reason, this.stage));
  }

  /** Test hook: terminates the worker silently, as the OS killing it would; only the stage time limit notices. */
  killSilently(): void {
    this.worker.terminate();
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
