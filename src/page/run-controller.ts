/**
 * Runs cold and warm measurements through the bench worker and turns each into a validated device receipt.
 *
 * Cold: a fresh worker (no session, no runtime initialised): fetch input and model, create the session, one timed
 * inference. Warm: on the live session (created first, untimed for the receipt, when none matches), one untimed
 * warm-up, then N timed runs. Every stage runs under a time limit; a crash or overrun terminates the worker and the
 * run ends `failed` with the reason. Numbered steps keep the orchestration readable.
 */
import type { CatalogInput, CatalogModel } from '../core/catalog.ts';
import { redactUrl, toResourceEntry } from '../core/redact.ts';
import type { Capabilities, DeviceReceipt, ModelStatus, RunKind, Stage } from '../core/receipt.ts';
import type { FetchProgress, LoadResult } from '../../workers/engines/engine.ts';
import type { EngineFailure, InputOutcome, LoadOutcome, RunOutcome, SeriesOutcome } from '../../workers/bench-worker-api.ts';
import { basicCapabilities } from './capability-probe.ts';
import { LifecycleRecorder } from './lifecycle.ts';
import { assembleReceipt, type AssembledReceipt, type RunRecord } from './receipt-assembly.ts';
import { WorkerFailure, WorkerHandle } from './worker-client.ts';
import type { JournalEvent } from './run-journal.ts';
import type { PageFacts } from './page-facts.ts';

/** Per-stage time limits in ms. Generous defaults: real models on phones can take minutes to fetch and compile. */
export type StageLimits = Record<Stage, number>;
export const DEFAULT_STAGE_LIMITS: Readonly<StageLimits> = Object.freeze({
  probe: 30_000,
  fetch: 15 * 60_000,
  session: 5 * 60_000,
  first_inference: 5 * 60_000,
  warmup: 5 * 60_000,
  warm_inference: 30 * 60_000,
});

/** What to run. */
export interface RunRequest {
  kind: RunKind;
  model: CatalogModel;
  input: CatalogInput;
  ep: 'wasm' | 'webgpu';
  threads: number | null;
  allowFallback: boolean;
  warmRuns: number;
}

/** How the UI follows a run (all page-clock ms). */
export interface RunUiHooks {
  onStatus?(status: ModelStatus, atMs: number): void;
  onProgress?(progress: FetchProgress): void;
  onStage?(stage: Stage, phase: 'start' | 'end', atMs: number): void;
  onSample?(index: number, durationMs: number): void;
}

/** Page facts the controller needs; injected so the controller holds no UI. */
export interface RunEnvironment extends PageFacts {
  /** The interrupted previous run to record in the next receipt (journal), consumed once. */
  takePreviousRunInterrupted?: () => DeviceReceipt['run']['previous_run_interrupted'];
  /** Called before each stage (run journal); `null` stage = the run ended cleanly. */
  onJournal?: (event: JournalEvent) => void;
}

class RunFailed extends Error {
  constructor(
    message: string,
    readonly stage: Stage | null,
    readonly name2: string,
  ) {
    super(message);
  }
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

/** `promise`, or a RunFailed when it takes longer than `limitMs` (page-side stages have time limits too). */
function withLimit<T>(promise: Promise<T>, limitMs: number, stage: Stage): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new RunFailed(`stage ${stage} did not finish within its time limit of ${limitMs} ms`, stage, 'TimeoutError')), limitMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function liveKey(request: RunRequest): string {
  return JSON.stringify([request.model.id, request.input.id, request.ep, request.threads, request.allowFallback]);
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

/** Owns the worker and the live session; one run at a time. */
export class RunController {
  private handle: WorkerHandle | null = null;
  private live: { key: string; load: LoadResult; input: { id: string; sha256: string } } | null = null;
  private running = false;

  constructor(private readonly env: RunEnvironment) {}

  /** The current worker, for test hooks (crash / kill). */
  get worker(): WorkerHandle | null {
    return this.handle;
  }

  /** Whether a session is live for `request`'s model/route (a warm run would reuse it). */
  hasLiveSession(request: RunRequest): boolean {
    return this.live?.key === liveKey(request) && this.handle !== null && !this.handle.isDead;
  }

  /**
   * Runs `request` and returns the assembled, validated receipt (failed runs give failed receipts; never throws for
   * an engine or worker failure).
   * @param request what to run
   * @param ui progress hooks
   */
  async run(request: RunRequest, ui: RunUiHooks = {}): Promise<AssembledReceipt> {
    if (this.running) throw new Error('a run is already in progress');
    this.running = true;
    try {
      return await this.runInner(request, ui);
    } finally {
      this.running = false;
    }
  }

  private async runInner(request: RunRequest, ui: RunUiHooks): Promise<AssembledReceipt> {
    const { env } = this;
    const startedAtMs = performance.now();
    const runId = crypto.randomUUID();
    const lifecycle = new LifecycleRecorder();
    lifecycle.start();
    const record: RunRecord = {
      receiptId: crypto.randomUUID(),
      createdAt: '',
      runId,
      kind: request.kind,
      startedAt: new Date().toISOString(),
      startedAtMs,
      endedAtMs: startedAtMs,
      warmRunsRequested: request.kind === 'warm' ? request.warmRuns : null,
      app: { ...env.app, pageUrl: env.pageUrl() },
      engine: { name: request.model.engine, version: 'unknown' },
      request: { ep: request.ep, threads: request.threads, allowFallback: request.allowFallback },
      attempts: [],
      completedEp: null,
      fallbackReason: null,
      threadsEffective: null,
      model: request.model,
      files: [],
      integrity: 'not-loaded',
      // The pinned hash until the page has hashed the served bytes itself (replaced below on load).
      input: { id: request.input.id, sha256: request.input.sha256 },
      output: null,
      fetchMs: null,
      sessionMs: null,
      firstInferenceMs: null,
      warmupMs: null,
      warmSamplesMs: [],
      inferencesCompleted: 0,
      transitions: [{ status: 'idle', at_ms: startedAtMs }],
      navigation: null,
      resources: [],
      capabilities: null as unknown as Capabilities,
      lifecycle: null as unknown as DeviceReceipt['lifecycle'],
      errors: [],
      failure: null,
      previousRunInterrupted: env.takePreviousRunInterrupted?.() ?? null,
    };
    // Set once the run has ended. Hook messages travel on their own MessagePort, and WebKit can deliver one AFTER
    // the call's result: a late "session start" must neither append a status to the finished (already validated)
    // receipt nor reopen the run in the journal (H5, WebKit lane).
    let ended = false;
    const setStatus = (status: ModelStatus) => {
      if (ended) return;
      const at = performance.now();
      record.transitions.push({ status, at_ms: at });
      ui.onStatus?.(status, at);
    };
    const journal = (stage: Stage | null) =>
      env.onJournal?.({ runId, mode: 'single', kind: request.kind, stage, modelId: request.model.id, requestedEp: request.ep });
    let workerSince = 0;
    // Warm samples reach the UI in batches (every UI_SAMPLE_INTERVAL_MS): re-rendering the live chart per sample
    // would compete with the runtime's threads for the device's cores and slow the very runs being measured.
    const samples = new SampleBatcher((index, durationMs) => ui.onSample?.(index, durationMs));

    try {
      // 1. Probe (the page context; cheap, and storage or adapter state may have changed since load).
      journal('probe');
      record.capabilities = await withLimit(env.probe(), env.limits.probe, 'probe');

      // 2. Worker: a fresh one for a cold run or when no live session matches; otherwise reuse.
      const reuse = request.kind === 'warm' && this.hasLiveSession(request);
      if (!reuse) {
        this.disposeWorker('replaced by a new run');
        this.handle = new WorkerHandle();
        await this.handle.syncClock(env.limits.probe);
      }
      const handle = this.handle!;
      workerSince = performance.now() - handle.clockOffsetMs;
      const toPage = (workerMs: number) => workerMs + handle.clockOffsetMs;
      const stageHooks = handle.proxy({
        onProgress: (p: FetchProgress) => ui.onProgress?.(p),
        onStage: (stage: Stage, phase: 'start' | 'end') => {
          if (ended) return;
          if (phase === 'start') {
            handle.enterStage(stage);
            journal(stage);
            if (stage === 'session') setStatus('creating_session');
          }
          ui.onStage?.(stage, phase, performance.now());
        },
        onSample: (index: number, durationMs: number) => samples.push(index, durationMs),
      });
      const limitFor = (stage: Stage) => env.limits[stage];

      // 3. Input and model (skipped when a warm run reuses the live session).
      if (reuse) {
        const live = this.live!;
        this.applyLoad(record, live.load, toPage);
        record.input = live.input;
      } else {
        this.live = null;
        setStatus('fetching');
        journal('fetch');
        const input = await handle.call<InputOutcome>('fetch', env.limits.fetch, () => handle.api.loadInput(request.input, env.pageBaseUrl), limitFor);
        if (!input.ok) throw this.engineFailure(record, input);
        record.input = { id: input.id, sha256: input.sha256 };
        const load = await handle.call<LoadOutcome>(
          'fetch',
          env.limits.fetch,
          () =>
            handle.api.load(
              { model: request.model, pageBaseUrl: env.pageBaseUrl, ep: request.ep, threads: request.threads, allowFallback: request.allowFallback, dtype: null },
              stageHooks,
            ),
          limitFor,
        );
        if (!load.ok) throw this.engineFailure(record, load);
        this.applyLoad(record, load, toPage);
        this.live = { key: liveKey(request), load, input: record.input };
        if (request.kind === 'cold') {
          record.fetchMs = load.fetchMs;
          record.sessionMs = load.sessionMs;
        }
      }
      setStatus('ready');

      // 4. Inference: one timed run (cold) or warm-up + N timed runs (warm).
      setStatus('running');
      if (request.kind === 'cold') {
        journal('first_inference');
        const first = await handle.call<RunOutcome>('first_inference', env.limits.first_inference, () => handle.api.runOnce(stageHooks), limitFor);
        if (!first.ok) throw this.engineFailure(record, first);
        record.firstInferenceMs = first.durationMs;
        record.output = first.output;
        record.inferencesCompleted = 1;
      } else {
        journal('warmup');
        const series = await handle.call<SeriesOutcome>('warmup', env.limits.warmup, () => handle.api.runSeries(1, request.warmRuns, stageHooks), limitFor);
        record.warmSamplesMs = series.samplesMs;
        record.inferencesCompleted = series.samplesMs.length;
        if (!series.ok) throw this.engineFailure(record, series);
        record.warmupMs = series.warmupMs;
        record.output = series.last.output;
      }
      setStatus('done');
      journal(null);
    } catch (error) {
      const failure =
        error instanceof RunFailed
          ? { reason: error.message, stage: error.stage, name: error.name2 }
          : error instanceof WorkerFailure
            ? { reason: error.message, stage: error.stage, name: error.name }
            : { reason: error instanceof Error ? error.message : String(error), stage: null, name: error instanceof Error ? error.name : 'Error' };
      if (error instanceof WorkerFailure) this.disposeWorker(error.message);
      else if (!(error instanceof RunFailed)) this.disposeWorker('unexpected failure');
      // A failed warm series may have collected samples: they are recorded, but a failed run never claims stats
      // it did not finish (the receipt keeps the samples it got and is marked failed).
      record.failure = { reason: failure.reason, stage: failure.stage };
      record.errors.push({ stage: failure.stage, name: failure.name, message: failure.reason });
      setStatus('failed');
      journal(null);
    }

    ended = true;
    samples.flush();

    // 5. Page facts after the run: lifecycle, navigation, resources (page and worker timelines).
    if (record.capabilities === null) record.capabilities = basicCapabilities('the capability probe did not finish');
    record.lifecycle = lifecycle.stop();
    record.navigation = navigationEntry();
    const origin = location.origin;
    const pageEntries = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((e) => e.startTime >= startedAtMs);
    record.resources = pageEntries.map((e) => toResourceEntry(e, origin));
    if (this.handle && !this.handle.isDead) {
      try {
        const handle = this.handle;
        const workerEntries = await handle.call(null, 5_000, () => handle.api.resourceEntries(workerSince));
        for (const e of workerEntries) record.resources.push(toResourceEntry({ ...e, startTime: e.startTime + handle.clockOffsetMs }, origin));
      } catch {
        // The worker died while we asked: the receipt keeps the page's entries only.
      }
    }
    record.resources.sort((a, b) => a.start_ms - b.start_ms);
    record.endedAtMs = performance.now();
    record.createdAt = new Date().toISOString();
    return assembleReceipt(record);
  }

  /** Terminates the worker and forgets the live session. */
  disposeWorker(reason: string): void {
    this.handle?.terminate(reason);
    this.handle = null;
    this.live = null;
  }

  private applyLoad(record: RunRecord, load: LoadResult, toPage: (ms: number) => number): void {
    record.engine = load.engine;
    record.attempts = load.attempts.map((a) => ({ ...a, started_at_ms: toPage(a.started_at_ms), ended_at_ms: toPage(a.ended_at_ms) }));
    record.completedEp = load.completedEp;
    record.fallbackReason = load.fallbackReason;
    record.threadsEffective = load.threadsEffective;
    record.files = load.files;
    record.integrity = load.integrity;
  }

  private engineFailure(record: RunRecord, failure: EngineFailure): RunFailed {
    if (failure.attempts.length > 0 && record.attempts.length === 0) {
      const offset = this.handle?.clockOffsetMs ?? 0;
      record.attempts = failure.attempts.map((a) => ({ ...a, started_at_ms: a.started_at_ms + offset, ended_at_ms: a.ended_at_ms + offset }));
    }
    if (failure.integrityMismatch) record.integrity = 'mismatch';
    if (failure.fetched) {
      record.files = failure.fetched.files;
      record.integrity = failure.fetched.integrity;
      if (record.kind === 'cold') record.fetchMs = failure.fetched.fetchMs;
    }
    // A failed load leaves no usable session.
    if (failure.stage === 'fetch' || failure.stage === 'session') this.live = null;
    return new RunFailed(failure.message, failure.stage, failure.name);
  }
}
