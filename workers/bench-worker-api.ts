/**
 * The object the bench worker exposes through comlink: `BenchWorker` (src/worker-api/worker-messages.ts), which the page
 * calls through its worker bridge (src/page/worker-bridge.ts). The worker entry (bench.worker.ts) only exposes an
 * instance; everything is here, so Node tests can drive it.
 *
 * Engine failures are returned as plain `EngineFailure` objects, not thrown: comlink keeps only name/message/stack of
 * a thrown error, and a failed receipt still needs the route attempts and the stage where it failed.
 */
import { parseFixedInput, type CatalogInput } from '../src/core/catalog/catalog.ts';
import type { RouteAttempt, Stage } from '../src/core/receipt/receipt.ts';
import { redactUrl, redactUrlsInText, type ResourceTimingLike } from '../src/core/text/redact.ts';
import { sha256Hex } from '../src/core/bytes/sha256.ts';
import { DRIFT_KERNEL_WORK, driftKernel } from '../src/core/device/drift-probe.ts';
import type {
  BenchWorker,
  EngineFailure,
  EngineHooks,
  EngineInput,
  FetchedFacts,
  InputOutcome,
  LoadOutcome,
  LoadRequest,
  RunOutcome,
  RunResult,
  SeriesHooks,
  SeriesOutcome,
} from '../src/worker-api/worker-messages.ts';
import type { Engine } from './engines/engine.ts';
import { engineFactories } from './engines/engine-registry.ts';
import { isTrainedInput, parseTrainedInput } from '../src/core/catalog/trained-inputs.ts';
import { placementOf, webgpuByConstruction } from '../src/core/receipt/ep-placement.ts';
import type { ExecutionProvider } from '../src/core/receipt/receipt.ts';
import { WorkerMemory } from './memory-points.ts';
import { setOrtVerboseLog } from './engines/ort-profile.ts';
import type { RunDiagnostics } from '../src/worker-api/worker-messages.ts';

/** What the worker cannot observe of an engine that declares nothing (`Engine.memoryObservation`), and why. */
const UNOBSERVED: Partial<Record<string, { wasm: boolean; gpu: boolean; why: string }>> = {
  webllm: {
    wasm: false,
    gpu: false,
    why: 'WebLLM runs its own WebAssembly runtime (TVM) and requests its own GPUDevice; it takes no device from the page (it has no option for one), so neither its memory nor its GPU buffers are observed',
  },
};

/** The one channel `nextMacrotask` posts through, and who waits on its messages (first in, first out). */
let yieldChannel: MessageChannel | null = null;
const yieldWaiters: Array<() => void> = [];

/**
 * Resolves on a fresh macrotask. A runtime call can resolve as a microtask chain that never lets the worker's event
 * loop turn; yielding between samples (outside the timed window) keeps the worker answering messages mid-series.
 * MessageChannel instead of setTimeout(0): nested timers are clamped to 4 ms, a message is not. One channel for the
 * worker's life, not one per yield: a long session yields thousands of times, and every channel is a pair of
 * entangled ports the browser tracks (WebKit registers each one outside the web process).
 */
function nextMacrotask(): Promise<void> {
  if (yieldChannel === null) {
    yieldChannel = new MessageChannel();
    yieldChannel.port1.onmessage = () => yieldWaiters.shift()?.();
  }
  const channel = yieldChannel;
  return new Promise((resolve) => {
    yieldWaiters.push(resolve);
    channel.port2.postMessage(null);
  });
}

function failure(error: unknown, stage: Stage | null, attempts: RouteAttempt[] = []): EngineFailure {
  const err = error instanceof Error ? error : new Error(String(error));
  const carried = (err as Error & { attempts?: RouteAttempt[] }).attempts;
  const fetched = (err as Error & { fetched?: FetchedFacts | null }).fetched ?? null;
  return {
    ok: false,
    name: err.name,
    message: redactUrlsInText(err.message || String(error)),
    stage,
    attempts: carried ?? attempts,
    integrityMismatch: err.name === 'IntegrityError',
    fetched,
  };
}

/** The worker-side API: holds one engine with at most one loaded model, and the fixed input. */
export class BenchWorkerApi implements BenchWorker {
  private engine: Engine | null = null;
  private input: EngineInput | null = null;
  /** The drift kernel's last result, public (as the page's `driftProbeSink`) so its work is observable and never
   *  optimised away. */
  probeSink = 0;
  private probeCompiled = false;
  /** The EP the loaded session completed on (for the placement's partial-fallback flag). */
  private completedEp: ExecutionProvider | null = null;
  private readonly memory = new WorkerMemory();

  /** The empty call, for measuring comlink round-trip overhead. */
  ping(): void {}

  /**
   * Resource timing entries of the worker's own fetches (model files, input, runtime files) since `sinceMs` (worker
   * clock); the page's timeline does not see them.
   * @param sinceMs worker performance.now() value to start from
   */
  resourceEntries(sinceMs: number): ResourceTimingLike[] {
    return (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((e) => e.startTime >= sinceMs)
      .map((e) => ({
        name: e.name,
        initiatorType: e.initiatorType,
        startTime: e.startTime,
        duration: e.duration,
        transferSize: e.transferSize,
        encodedBodySize: e.encodedBodySize,
        decodedBodySize: e.decodedBodySize,
      }));
  }

  /** The worker's `performance.timeOrigin`, so the page can map worker times onto its own clock. */
  timeOrigin(): number {
    return performance.timeOrigin;
  }

  /**
   * Fetches the fixed input artifact, hashes its bytes and keeps it parsed for `runOnce`/`runSeries`.
   * @param input the catalog's input entry (pinned bytes and SHA-256)
   * @param pageBaseUrl the page's base URL the input path resolves against
   */
  async loadInput(input: CatalogInput, pageBaseUrl: string): Promise<InputOutcome> {
    try {
      const url = new URL(input.path, pageBaseUrl).href;
      const response = await fetch(url, { cache: 'no-store', credentials: 'same-origin' });
      if (!response.ok) throw new Error(`input ${redactUrl(url)} answered HTTP ${response.status}`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      const sha256 = await sha256Hex(bytes);
      if (sha256 !== input.sha256) {
        const err = new Error(
          `integrity failure: input ${input.id} has SHA-256 ${sha256}, the catalog pins ${input.sha256}`,
        );
        err.name = 'IntegrityError';
        throw err;
      }
      const json: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
      const parsed = isTrainedInput(json) ? parseTrainedInput(json, input.path) : parseFixedInput(json, input.path);
      this.input = { id: parsed.id, data: parsed };
      return { ok: true, id: parsed.id, sha256, bytes: bytes.byteLength };
    } catch (error) {
      return failure(error, 'fetch');
    }
  }

  /**
   * Sets an input the page built itself (suite rows, prompts); the engine validates its shape.
   * @param input id + task-shaped data
   */
  setInput(input: EngineInput): void {
    this.input = input;
  }

  /**
   * Creates the engine for `request.model.engine` and loads the model on the requested route.
   * @param request model, route and threads
   * @param hooks progress/stage callbacks (a `Comlink.proxy` from the page)
   */
  async load(request: LoadRequest, hooks: EngineHooks): Promise<LoadOutcome> {
    let stage: Stage = 'fetch';
    const tracking: EngineHooks = {
      onProgress: (p) => hooks.onProgress?.(p),
      onFetched: (facts) => hooks.onFetched?.(facts),
      onStage: (s, phase) => {
        if (phase === 'start') stage = s;
        hooks.onStage?.(s, phase);
      },
    };
    try {
      await this.dispose();
      this.engine = await engineFactories[request.model.engine]();
      const result = await this.engine.load(request, tracking);
      this.completedEp = result.route.completed_ep;
      const observed = this.engine.memoryObservation ??
        UNOBSERVED[this.engine.name] ?? { wasm: false, gpu: false, why: "this engine's runtime is not observed" };
      this.memory.sessionCreated({
        wasm: observed.wasm ? null : observed.why,
        gpu:
          result.route.completed_ep !== 'webgpu'
            ? 'the route ran on the CPU (wasm): no GPU device was used'
            : observed.gpu
              ? null
              : observed.why,
      });
      return { ok: true, ...result };
    } catch (error) {
      return failure(error, stage);
    }
  }

  /**
   * One inference on the current input (the cold run's first inference).
   * @param hooks stage callbacks
   */
  async runOnce(hooks: EngineHooks): Promise<RunOutcome> {
    try {
      const { engine, input } = this.ready();
      const result = await engine.run(input, { digest: true }, hooks);
      this.memory.mark('after_last_run');
      return { ok: true, ...result };
    } catch (error) {
      return failure(error, 'first_inference');
    }
  }

  /**
   * `warmupRuns` untimed runs, then `runs` timed runs of the same input; samples are runtime-call times measured here
   * in the worker, so the page's messaging never enters a sample.
   * @param warmupRuns untimed runs first (the protocol uses one)
   * @param runs timed runs
   * @param hooks `onSample` per timed run, `onStage` for warmup / warm_inference
   * @param probe time the drift probe's reference kernel before the first timed run and after each (never inside a
   *   sample): the device's own speed beside the model's
   */
  async runSeries(warmupRuns: number, runs: number, hooks: SeriesHooks, probe = false): Promise<SeriesOutcome> {
    const samplesMs: number[] = [];
    const probeMs: number[] = [];
    let stage: Stage = 'warmup';
    try {
      const { engine, input } = this.ready();
      let warmupMs: number | null = null;
      if (warmupRuns > 0) {
        hooks.onStage?.('warmup', 'start');
        const t0 = performance.now();
        for (let i = 0; i < warmupRuns; i++) await engine.run(input, { digest: false }, hooks);
        warmupMs = performance.now() - t0;
        hooks.onStage?.('warmup', 'end');
      }
      // The receipt's own field names from here on: the samples are what `timings.warm_samples_ms` records.
      stage = 'warm_inference';
      this.memory.mark('before_timed_runs');
      hooks.onStage?.('warm_inference', 'start');
      let last: RunResult | null = null;
      if (probe) probeMs.push(this.driftProbe());
      for (let i = 0; i < runs; i++) {
        last = await engine.run(input, { digest: i === runs - 1 }, hooks);
        samplesMs.push(last.durationMs);
        hooks.onSample?.(i, last.durationMs);
        if (probe) probeMs.push(this.driftProbe());
        await nextMacrotask();
      }
      hooks.onStage?.('warm_inference', 'end');
      this.memory.mark('after_last_run');
      if (last === null) throw new Error('no timed runs were requested');
      return {
        ok: true,
        timings: { warmup_ms: warmupMs, warm_samples_ms: samplesMs },
        last,
        ...(probe ? { drift_probe_ms: probeMs } : {}),
      };
    } catch (error) {
      return { ...failure(error, stage), timings: { warm_samples_ms: samplesMs } };
    }
  }

  /** Times the drift probe's reference kernel once here in the worker, ms (the first call runs it once untimed, so no
   *  probe times the engine compiling it). */
  driftProbe(): number {
    if (!this.probeCompiled) {
      this.probeSink = driftKernel(DRIFT_KERNEL_WORK);
      this.probeCompiled = true;
    }
    const t0 = performance.now();
    // The result is kept (in a field) so the kernel's work cannot be optimised away.
    this.probeSink = driftKernel(DRIFT_KERNEL_WORK);
    return performance.now() - t0;
  }

  /**
   * What this worker observed during the receipt's run that just ended: where the session's nodes ran (ORT's profile
   * of its first run; WebLLM: WebGPU by construction) and the memory figures read here. The next receipt on the same
   * session did not load it: its load figures are not repeated.
   * @param kind the receipt's run kind
   */
  diagnostics(kind: 'cold' | 'warm'): RunDiagnostics {
    const engine = this.engine;
    let placement: RunDiagnostics['placement'] = null;
    if (engine?.name === 'webllm') placement = webgpuByConstruction();
    else {
      const sessions = engine?.placement?.() ?? null;
      if (sessions !== null) {
        placement = placementOf(
          sessions,
          this.completedEp,
          "counted from ONNX Runtime's profiler over the session's first run (a cold run's first inference, or the warm-up of a warm run that loaded the model); nodes of a subgraph branch that run did not take are not counted",
        );
      }
    }
    const memory = this.memory.sections(kind);
    this.memory.runStarts();
    return { placement, memory };
  }

  /**
   * Turns ORT's verbose session log on for this worker's sessions (before its first load).
   * @param level `verbose`, or null for off
   */
  setOrtLog(level: 'verbose' | null): void {
    setOrtVerboseLog(level === 'verbose');
  }

  /** Releases the session and its memory. */
  async dispose(): Promise<void> {
    const engine = this.engine;
    this.engine = null;
    if (engine) await engine.dispose();
  }

  /**
   * Test hook: throws an uncaught error from a timer so the Worker's `error` event fires in the page, exactly as a
   * runtime crash would. Only reachable when the page was opened with the `test_hooks=1` parameter.
   */
  crashSoon(afterMs: number): void {
    setTimeout(() => {
      throw new Error('deliberate worker crash (test hook)');
    }, afterMs);
  }

  private ready(): { engine: Engine; input: EngineInput } {
    if (this.engine === null) throw new Error('no model is loaded in the worker');
    if (this.input === null) throw new Error('no input is set in the worker');
    return { engine: this.engine, input: this.input };
  }
}
