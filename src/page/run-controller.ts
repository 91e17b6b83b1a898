/**
 * Cold and warm device runs: each becomes a validated device receipt, built directly from what the run measures.
 *
 * Cold: a fresh worker (no loaded model, no runtime initialised): fetch input and model, create the runtime's
 * session, one timed inference. Warm: on the loaded model (loaded first, untimed for the receipt, when none matches), one untimed
 * warm-up, then N timed runs. The worker bridge (worker-bridge.ts) puts every stage under its time limit; a
 * crash, an overrun or a cancel ends the run `failed` with the reason. Numbered steps keep the orchestration readable.
 */
import type { CatalogInput, CatalogModel } from '../core/catalog/catalog.ts';
import {
  draftDeviceReceipt,
  finishDeviceReceipt,
  type DeviceReceiptDraft,
  type FinishedReceipt,
} from '../core/receipt/device-receipt-builder.ts';
import { redactUrl, toResourceEntry } from '../core/text/redact.ts';
import type { ColdStartAttestation, DeviceReceipt, ModelStatus, RunKind, Stage } from '../core/receipt/receipt.ts';
import type { FetchedFacts, FetchProgress, LoadResult, UserSuppliedFile } from '../worker-api/worker-messages.ts';
import { sha256Hex } from '../core/bytes/sha256.ts';
import {
  builtInInputBytes,
  synthesizedInputRecipeBytes,
  type BuiltInInputRequest,
  type SynthesizedInputRequest,
} from '../core/user-model/user-run.ts';
import { basicCapabilities } from './capability-probe.ts';
import { LifecycleRecorder } from './lifecycle.ts';
import type { PageFacts } from './page-facts.ts';
import { pageStartFacts, runsStartedInPage } from './page-start.ts';
import { openRunJournal } from './run-journal.ts';
import { watchOverlap, type OverlapWatch } from './run-gate.ts';
import { siteStorageBefore, storageUsageBytes } from './site-storage.ts';
import { holdWakeLock } from './wake-lock.ts';
import { coolDown, noteRunEnded } from './cooldown.ts';
import { pressureMonitor } from './pressure-monitor.ts';
import { driftProbeRecord } from '../core/device/drift-probe.ts';
import type { CooldownRule } from '../core/device/device-state.ts';
import {
  EngineError,
  fetchedBeforeFailure,
  IntegrityFailure,
  loadRequest,
  pageStage,
  WorkerFailure,
  WorkerBridge,
} from './worker-bridge.ts';
import { UaMemoryProbe } from './ua-memory.ts';
import { runDiagnostics } from './run-diagnostics.ts';

/** The bridge's class, for the test hooks in the page's first script (lazy-run-controller.ts). */
export { WorkerBridge };

/** What to run. */
export interface RunRequest {
  kind: RunKind;
  model: CatalogModel;
  /** The catalog's fixed input; (a user's bare graph) inputs built in the worker from the graph's metadata; or (a
   *  user's reranker) the page's built-in probe pairs. */
  input: CatalogInput | SynthesizedInputRequest | BuiltInInputRequest;
  /** A user-supplied model's picked files, in `model.files` order, and a token naming this pick (a warm run reuses a
   *  loaded model only for the same pick). */
  user?: { files: UserSuppliedFile[]; pick: string };
  ep: 'wasm' | 'webgpu';
  threads: number | null;
  allowFallback: boolean;
  warmRuns: number;
  /** Protocol mode: record the device's state (CPU pressure, the drift probe in the worker) and wait out the
   *  protocol's declared cooldown first (null: none declared). Absent: neither. */
  deviceState?: { cooldown: CooldownRule | null; driftMaxSlowdown: number };
  /** A cold run: what the tester (a tap in protocol mode) or a driver stated about its start before it began, which
   *  no page can measure (the browser quit and reopened, the site's data cleared); recorded as attested. */
  attestations?: ColdStartAttestation[];
}

/** How the UI follows a run (all page-clock ms). */
export interface RunUiHooks {
  onStatus?(status: ModelStatus, atMs: number): void;
  onProgress?(progress: FetchProgress): void;
  onStage?(stage: Stage, phase: 'start' | 'end', atMs: number): void;
  onSample?(index: number, durationMs: number): void;
  /** The page is waiting out the protocol's cooldown: the minimum pause, or for nominal CPU pressure, up to `ms`. */
  onCooldown?(what: 'pause' | 'nominal', ms: number): void;
}

/** How often buffered warm samples are handed to the UI. */
const UI_SAMPLE_INTERVAL_MS = 250;

/** Buffers (index, durationMs) pairs and hands them on together at most every UI_SAMPLE_INTERVAL_MS. */
class SampleBatcher {
  private pending: number[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  constructor(private readonly deliver: (index: number, durationMs: number) => void) {}

  push(index: number, durationMs: number): void {
    this.pending.push(index, durationMs);
    this.timer ??= setTimeout(() => this.flush(), UI_SAMPLE_INTERVAL_MS);
  }

  /** Delivers everything buffered now (called by the timer and at the end of the run). */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const pending = this.pending;
    this.pending = [];
    for (let i = 0; i < pending.length; i += 2) this.deliver(pending[i], pending[i + 1]);
  }
}

/** What a loaded model was loaded for: a warm run reuses it only when all of it matches (the dtype too: one picked
 *  folder can hold several). */
function liveKey(request: RunRequest): string {
  return JSON.stringify([
    request.model.id,
    request.model.dtype ?? null,
    request.user?.pick ?? null,
    request.input.id,
    request.ep,
    request.threads,
    request.allowFallback,
  ]);
}

/** The input's SHA-256 before the run: the pin of a catalog input (replaced by the served bytes' hash on load), the
 *  hash of a synthesized input's recipe (with the graph's hash it fixes every value fed), or of a built-in input's
 *  engine input. */
async function inputSha256(input: RunRequest['input']): Promise<string> {
  if ('sha256' in input) return input.sha256;
  return sha256Hex(input.kind === 'built-in' ? builtInInputBytes(input) : synthesizedInputRecipeBytes(input));
}

function navigationEntry(): DeviceReceipt['navigation'] {
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  if (!nav) return null;
  const nonNeg = (v: number) => (Number.isFinite(v) && v > 0 ? v : null);
  return {
    url: redactUrl(nav.name),
    type: nav.type,
    redirect_count: nav.redirectCount,
    response_start_ms: nonNeg(nav.responseStart),
    dom_content_loaded_ms: nonNeg(nav.domContentLoadedEventEnd),
    load_event_end_ms: nonNeg(nav.loadEventEnd),
    duration_ms: nonNeg(nav.duration),
    transfer_size: Number.isFinite(nav.transferSize) ? Math.round(nav.transferSize) : null,
    decoded_body_size: Number.isFinite(nav.decodedBodySize) ? Math.round(nav.decodedBodySize) : null,
  };
}

/**
 * Writes a load's receipt sections into the draft (the worker returns them in the receipt's shape).
 * @param draft the run's receipt draft
 * @param load the load result, attempts on the page clock
 */
function applyLoad(draft: DeviceReceiptDraft, load: LoadResult): void {
  draft.engine = load.engine;
  draft.route = { ...draft.route, ...load.route };
  draft.model = { ...draft.model, ...load.model };
  draft.runtime = load.runtime;
}

/** Owns the loaded model (a warm run reuses it); one run at a time. */
export class RunController {
  private bridge: WorkerBridge | null = null;
  private live: { key: string; load: LoadResult; input: DeviceReceipt['input'] } | null = null;
  private running = false;

  constructor(private readonly env: PageFacts) {}

  /** The current worker bridge, for test hooks (crash / kill / ping). */
  get worker(): WorkerBridge | null {
    return this.bridge;
  }

  /** Whether a model is loaded for `request`'s model/route (a warm run would reuse it). */
  hasLoadedModel(request: RunRequest): boolean {
    return this.live?.key === liveKey(request) && this.bridge !== null && !this.bridge.isDead;
  }

  /**
   * Runs `request` and returns the finished, validated receipt (failed and cancelled runs give failed receipts; never
   * throws for an engine or worker failure).
   * @param request what to run
   * @param ui progress hooks
   * @param signal cancels the run (it ends `failed`, reason `cancelled`)
   */
  async run(request: RunRequest, ui: RunUiHooks = {}, signal?: AbortSignal): Promise<FinishedReceipt> {
    if (this.running) throw new Error('a run is already in progress');
    this.running = true;
    const runId = crypto.randomUUID();
    // Runs this page started before this one (a cold run is fresh only as the page's first).
    const runsBefore = runsStartedInPage();
    // From the run's start to its end: any other run of this page or of another tab makes the receipt say so.
    const overlap = watchOverlap(runId);
    try {
      return await this.runInner(request, ui, runId, overlap, signal, runsBefore);
    } finally {
      void overlap.finish();
      this.running = false;
    }
  }

  private async runInner(
    request: RunRequest,
    ui: RunUiHooks,
    runId: string,
    overlap: OverlapWatch,
    signal: AbortSignal | undefined,
    runsBefore: number,
  ): Promise<FinishedReceipt> {
    const { env } = this;
    // Protocol mode: the declared cooldown, then the CPU pressure at the start, both before the run's clock starts.
    const watched = request.deviceState ?? null;
    const monitor = watched ? await pressureMonitor() : null;
    const cooldown = watched?.cooldown ? await coolDown(watched.cooldown, monitor!, ui.onCooldown, signal) : null;
    const pressure = monitor ? await monitor.begin(signal) : null;
    const probes: number[] = [];
    const startedAtMs = performance.now();
    const lifecycle = new LifecycleRecorder();
    lifecycle.start();
    // The screen stays on while the run measures (a locked phone hides the page); the receipt says whether it did.
    const wakeLock = await holdWakeLock();
    // What this origin stored before the run (engine caches, usage): the evidence that a cold run started cold.
    const storageBefore = await siteStorageBefore();
    const journal = await openRunJournal(env.journal, {
      runId,
      mode: 'single',
      kind: request.kind,
      modelId: request.model.id,
      requestedEp: request.ep,
    });
    const draft = draftDeviceReceipt({
      receiptId: crypto.randomUUID(),
      runId,
      kind: request.kind,
      startedAt: new Date().toISOString(),
      startedAtMs,
      warmRuns: request.kind === 'warm' ? request.warmRuns : null,
      build: env.build,
      pageUrl: env.pageUrl(),
      model: request.model,
      input: { id: request.input.id, sha256: await inputSha256(request.input) },
      request,
      previousRunInterrupted: journal.previous,
      // A cold run records its start: measured by the page, attested by the tester (or a driver), kept apart.
      coldStart: pageStartFacts(runsBefore),
      attestations: request.attestations,
    });
    draft.site_storage = storageBefore;
    // Set once the run has ended: a late status must not append to the finished (already validated) receipt.
    let ended = false;
    const setStatus = (status: ModelStatus) => {
      if (ended) return;
      const at = performance.now();
      draft.status_transitions.push({ status, at_ms: at });
      ui.onStatus?.(status, at);
    };
    let failure: { reason: string; stage: Stage | null } | null = null;
    let workerSince = 0;
    // Warm samples reach the UI in batches (every UI_SAMPLE_INTERVAL_MS): re-rendering the live chart per sample
    // would compete with the runtime's threads for the device's cores and slow the very runs being measured.
    const samples = new SampleBatcher((index, durationMs) => ui.onSample?.(index, durationMs));
    // Every sample the worker reported as it went: what a series that dies mid-way (crash, overrun, cancel) finished.
    const heard: number[] = [];
    // The bridge while its load is under way (what it fetched belongs in a receipt of a load that fails).
    let loading: WorkerBridge | null = null;
    const uaMemory = new UaMemoryProbe();

    try {
      // 1. Probe (the page context; cheap, and storage or adapter state may have changed since load).
      journal.stage('probe');
      draft.capabilities = await pageStage(env.probe(), 'probe', env.limits.probe, signal);

      // 2. Worker: a fresh one for a cold run or when no loaded model matches; otherwise reuse.
      const reuse = request.kind === 'warm' && this.hasLoadedModel(request);
      if (!reuse) {
        this.disposeWorker('replaced by a new run');
        this.bridge = await WorkerBridge.open(env.limits, signal);
      }
      const bridge = this.bridge!;
      bridge.follow(
        {
          onProgress: (p) => ui.onProgress?.(p),
          onStage: (stage, phase, atMs) => {
            if (phase === 'start') {
              journal.stage(stage);
              if (stage === 'session') setStatus('creating_session');
            }
            ui.onStage?.(stage, phase, atMs);
          },
          onSample: (index, durationMs) => {
            heard[index] = durationMs;
            samples.push(index, durationMs);
          },
        },
        signal,
      );
      workerSince = bridge.workerNow();

      // 3. Input and model (skipped when a warm run reuses the loaded model).
      if (reuse) {
        const live = this.live!;
        applyLoad(draft, live.load);
        draft.input = live.input;
      } else {
        this.live = null;
        setStatus('fetching');
        if ('sha256' in request.input) {
          const input = await bridge.loadInput(request.input, env.pageBaseUrl);
          draft.input = { id: input.id, sha256: input.sha256 };
        } else if (request.input.kind === 'built-in') {
          // The page's own input (a user's reranker's probe pairs): handed over as the engine input it is.
          await bridge.setInput({ id: request.input.id, data: request.input.data }, 'fetch');
        } else {
          // Built in the worker from the graph's input metadata once the runtime's session exists (the first run builds it).
          await bridge.setInput({ id: request.input.id, data: request.input }, 'fetch');
        }
        loading = bridge;
        const coldStart = request.kind === 'cold';
        const settings = { pageBaseUrl: env.pageBaseUrl, coldStart, userFiles: request.user?.files };
        uaMemory.mark('before_load');
        const load = await bridge.load(loadRequest(request.model, request, settings));
        loading = null;
        uaMemory.mark('after_session');
        applyLoad(draft, load);
        this.live = { key: liveKey(request), load, input: draft.input };
        if (request.kind === 'cold') Object.assign(draft.timings, load.timings);
      }
      setStatus('ready');

      // 4. Inference: one timed run (cold) or warm-up + N timed runs (warm).
      setStatus('running');
      if (request.kind === 'cold') {
        if (watched) probes.push(await bridge.driftProbe());
        const first = await bridge.runOnce('first_inference');
        // The first result, on the page's clock (its origin is navigation start): what a page can time of
        // launch-to-result, the browser's own launch not in it.
        if (draft.run.cold_start) draft.run.cold_start.navigation_to_result_ms = performance.now();
        draft.timings.first_inference_ms = first.durationMs;
        draft.output = first.output;
        draft.check = first.check ?? null;
        draft.run.inferences_completed = 1;
        if (watched) probes.push(await bridge.driftProbe());
      } else {
        const series = await bridge.runSeries(1, request.warmRuns, watched !== null);
        probes.push(...(series.drift_probe_ms ?? []));
        // Sample messages travel on the hooks' own port and may arrive after the series' result (the hooks are
        // unfollowed then): the samples not yet heard reach the UI from the result, so the count shown is the receipt's.
        series.timings.warm_samples_ms.forEach((ms, i) => {
          if (heard[i] === undefined) {
            heard[i] = ms;
            samples.push(i, ms);
          }
        });
        Object.assign(draft.timings, series.timings);
        draft.run.inferences_completed = series.timings.warm_samples_ms.length;
        draft.output = series.last.output;
        draft.check = series.last.check ?? null;
      }
      uaMemory.mark('after_last_run');
      setStatus('done');
    } catch (error) {
      failure = this.recordFailure(draft, error, heard, loading);
      setStatus('failed');
    }
    journal.end();
    ended = true;
    samples.flush();
    this.bridge?.unfollow();

    // Where the work ran and the memory it took (the worker's diagnostics, the page's memory points).
    const { errors: diagnosticErrors, ...observed } = await runDiagnostics(this.bridge, request.kind, uaMemory);
    Object.assign(draft, observed);
    draft.errors.push(...diagnosticErrors);

    // 5. Page facts after the run: lifecycle, navigation, resources (page and worker timelines).
    const origin = location.origin;
    const pageEntries = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter(
      (e) => e.startTime >= startedAtMs,
    );
    draft.resources = pageEntries.map((e) => toResourceEntry(e, origin));
    if (this.bridge)
      for (const e of await this.bridge.resourceEntries(workerSince)) draft.resources.push(toResourceEntry(e, origin));
    draft.resources.sort((a, b) => a.start_ms - b.start_ms);
    draft.navigation = navigationEntry();
    draft.site_storage.usage_after_bytes = await storageUsageBytes();
    draft.run.wake_lock = await wakeLock.end();
    draft.run.overlap = await overlap.finish();
    if (watched && pressure) {
      const placement = request.kind === 'cold' ? 'around-run' : 'between-warm-runs';
      draft.device_state = {
        pressure: pressure.record(),
        drift_probe: driftProbeRecord(probes, { context: 'worker', placement }, watched.driftMaxSlowdown),
        cooldown,
      };
      noteRunEnded();
    }
    return finishDeviceReceipt(
      {
        ...draft,
        capabilities: draft.capabilities ?? basicCapabilities('the capability probe did not finish'),
        lifecycle: lifecycle.stop(),
      },
      { createdAt: new Date().toISOString(), startedAtMs, endedAtMs: performance.now(), failure },
    );
  }

  /**
   * Records what a failed run still knows (attempts, files fetched, samples finished) and returns the failure.
   * A failed warm series keeps the samples it finished: from the worker's report, or when the worker died (crash,
   * time limit, cancel) from the samples it reported one by one.
   * @param draft the run's receipt draft
   * @param error what ended the run
   * @param heard the samples the worker reported during the series, by index
   * @param loading the bridge whose load was under way when the run failed, else null
   */
  private recordFailure(
    draft: DeviceReceiptDraft,
    error: unknown,
    heard: readonly number[],
    loading: WorkerBridge | null,
  ): { reason: string; stage: Stage | null } {
    let stage: Stage | null = null;
    const name = error instanceof Error ? error.name : 'Error';
    const reason = error instanceof Error ? error.message : String(error);
    // What a load that failed had fetched (model files, the runtime build): from the engine's report, or from what
    // the worker said as it went when it died (crash, time limit, cancel) and could report nothing.
    applyFetched(draft, fetchedBeforeFailure(error, loading));
    if (error instanceof EngineError) {
      stage = error.stage;
      if (error.attempts.length > 0 && draft.route.attempts.length === 0) draft.route.attempts = error.attempts;
      if (error instanceof IntegrityFailure) draft.model.integrity = 'mismatch';
      if (error.samplesMs.length > 0) {
        draft.timings.warm_samples_ms = error.samplesMs;
        draft.run.inferences_completed = error.samplesMs.length;
      }
      // A failed load leaves no usable model.
      if (stage === 'fetch' || stage === 'session') this.live = null;
    } else if (error instanceof WorkerFailure) {
      stage = error.stage;
      const finished = heard.filter((ms) => ms !== undefined);
      if (draft.run.kind === 'warm' && finished.length > 0) {
        draft.timings.warm_samples_ms = finished;
        draft.run.inferences_completed = finished.length;
      }
      // A worker that crashed, overran or was cancelled is gone; a page-side failure (the probe) leaves it alive.
      if (this.bridge?.isDead) this.disposeWorker(error.message);
    } else {
      this.disposeWorker('unexpected failure');
    }
    draft.errors.push({ stage, name, message: reason });
    return { reason, stage };
  }

  /** Terminates the worker and forgets the loaded model. */
  disposeWorker(reason: string): void {
    this.bridge?.close(reason);
    this.bridge = null;
    this.live = null;
  }
}

/**
 * Writes what a load that failed had fetched into the failed receipt's draft: the model files and their hashes, the
 * runtime build, and (cold runs) their fetch times.
 * @param draft the run's receipt draft
 * @param fetched what the load fetched; null leaves the draft as it is
 */
function applyFetched(draft: DeviceReceiptDraft, fetched: FetchedFacts | null): void {
  if (!fetched) return;
  draft.model = { ...draft.model, ...fetched.model };
  if (draft.run.kind === 'cold') draft.timings.model_fetch_ms = fetched.timings.model_fetch_ms;
  if (fetched.runtime) {
    draft.runtime = fetched.runtime.info;
    if (draft.run.kind === 'cold') draft.timings.runtime_fetch_ms = fetched.runtime.fetchMs;
  }
}
