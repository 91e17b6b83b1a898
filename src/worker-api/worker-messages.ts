/**
 * The bench worker's boundary: every type that crosses between the page (src/page/worker-bridge.ts) and the worker
 * (workers/bench-worker-api.ts), in one module that both import. The worker implements `BenchWorker`; the page calls
 * it through comlink as `Remote<BenchWorker>`, so both sides are checked against the same interface (the shape
 * web-llm uses for its worker engine; comlink removes the message switch).
 *
 * Everything here is plain data: comlink structured-clones it. Callbacks cross only inside hooks objects, which the
 * page wraps with `Comlink.proxy`. A thrown error arrives as name, message and stack only, so failures the page
 * must act on travel as data (`EngineFailure`), never as a thrown class.
 *
 * Results are shaped as the receipt's own sections (`engine`, `route`, `model`, `timings`), typed from the receipt
 * schema, so a receipt field measured in the worker flows to the receipt without being renamed or copied field by
 * field on the way.
 */
import type { CatalogInput, CatalogModel } from '../core/catalog/catalog.ts';
import type { GeneratedOutput } from '../core/generation/generate-input.ts';
import type {
  EngineInfo,
  ExecutionProvider,
  ModelFetchMethod,
  ModelFile,
  OutputDigest,
  Route,
  RuntimeInfo,
  Stage,
  Timings,
} from '../core/receipt/receipt.ts';
import type { ResourceTimingLike } from '../core/text/redact.ts';
import type { OutputCheck } from '../core/catalog/output-check.ts';
import type { Placement } from '../core/receipt/ep-placement.ts';
import type { GpuBuffers, WasmMemory } from '../core/receipt/memory-figures.ts';

/** Progress of the model download: `bytesTotal` null while unknown (no Content-Length and no pinned size). */
export interface FetchProgress {
  /** Whose bytes: the model's files (the `fetch` stage) or the runtime's `.wasm` (the `runtime_fetch` stage). */
  kind: 'model' | 'runtime';
  /** Path of the file being fetched (relative to the model folder; the file name for the runtime). */
  path: string;
  fileIndex: number;
  fileCount: number;
  /** Bytes received so far over all files. */
  bytesDone: number;
  /** Expected bytes over all files, when every file's size is known. */
  bytesTotal: number | null;
}

/** Callbacks from the worker to the page (a `Comlink.proxy` on the page side). Every one is optional to call. */
export interface EngineHooks {
  /** Download progress (throttled by the fetcher, at most a few per second plus the final one). */
  onProgress?(progress: FetchProgress): void;
  /** A stage started or ended in the worker; the page restarts that stage's time limit and journals it. */
  onStage?(stage: Stage, phase: 'start' | 'end'): void;
  /** One generated token (generate task only), for streaming UIs; no token text crosses into receipts. */
  onToken?(tokenIndex: number): void;
  /** What a load has fetched so far, reported as each part is done (the model's files, then with the runtime build):
   *  a run whose worker then dies or overruns a time limit, and so sends no failure of its own, still records them. */
  onFetched?(facts: FetchedFacts): void;
}

/** Hooks for a timed series: one call per timed sample, so the page can draw the strip chart live. */
export interface SeriesHooks extends EngineHooks {
  onSample?(index: number, durationMs: number): void;
}

/** One file a developer picked: its path inside what was picked and its bytes (a File or Blob). */
export interface UserSuppliedFile {
  path: string;
  blob: Blob;
}

/** What the page asks an engine to load. */
export interface LoadRequest {
  model: CatalogModel;
  /** The page's base URL (origin + base path, ends in "/"); page-origin model files resolve against it. */
  pageBaseUrl: string;
  ep: ExecutionProvider;
  /** WASM thread count asked for (null = engine default). Ignored by webgpu-only engines. */
  threads: number | null;
  /** When the requested EP cannot run, may the engine fall back to wasm (recorded as a fallback)? */
  allowFallback: boolean;
  /** dtype override (transformers.js); null = the catalog's dtype. */
  dtype: string | null;
  /** A user-supplied model (`model.source.type` `user-supplied`): the picked files, in `model.files` order, each with
   *  its path inside what was picked (the runtime finds external data by that name). Read, hashed and handed to the
   *  runtime in the worker; the path never leaves it. */
  userFiles?: UserSuppliedFile[];
  /** A cold run's load: where the HTTP cache cannot be seen (no resource timing sizes), the runtime files are loaded
   *  under a URL unique to the run so a cached copy cannot pass for a cold start. Absent = false. */
  coldStart?: boolean;
}

/** The receipt's `model` facts a load establishes: every file hashed in the worker. Never `mismatch`: a file that
 *  differs from its pin stops the load (an `EngineFailure` with `integrityMismatch`). */
export interface LoadedModel {
  files: ModelFile[];
  integrity: 'verified' | 'unpinned';
  /** How the files were fetched (the receipt's `model.fetch_method`). */
  fetch_method?: ModelFetchMethod;
}

/** The receipt's `route` facts a load establishes (the request's own fields are the page's). Attempt times are
 *  the worker's clock until the page's session maps them onto the page clock. */
export type LoadedRoute = Pick<Route, 'fallback_reason' | 'threads_effective' | 'attempts' | 'webgpu_layout'> & {
  /** The EP the session really runs on: a succeeded attempt (a load with none fails). */
  completed_ep: ExecutionProvider;
};

/** What the files cost before a route failed: the failed receipt still lists them, with their hashes. */
export interface FetchedFacts {
  model: LoadedModel;
  timings: { model_fetch_ms: number };
  /** The runtime build fetched before the session stage, and its fetch time (absent when none was fetched). */
  runtime?: { info: RuntimeInfo; fetchMs: number };
}

/** The result of `load`, as receipt sections: what really happened. */
export interface LoadResult {
  engine: EngineInfo;
  route: LoadedRoute;
  model: LoadedModel;
  /** The runtime files the load used (build and cache state; empty when the runtime is part of the page's code). */
  runtime: RuntimeInfo;
  /** Fetch (download + hashing), the runtime's fetch (null when the engine fetched no runtime file) and session
   *  creation (WASM compile and instantiation, graph optimisation, shader setup; no download), apart. */
  timings: { model_fetch_ms: number; runtime_fetch_ms: number | null; session_create_ms: number };
  /** Problems that did not stop the load (e.g. WebLLM files that could not be read back and hashed), URLs redacted;
   *  each becomes a receipt `errors` entry of the load stage. Absent when there were none. */
  loadErrors?: Array<{ name: string; message: string }>;
}

/** An input the engine runs on: its id, and the data whose shape the engine's task defines. */
export interface EngineInput {
  id: string;
  data: unknown;
}

/** One inference. */
export interface RunResult {
  /** Time of the runtime call alone (input tensors prepared before, digest computed after). */
  durationMs: number;
  /** The output digest (never text); null when the run was asked not to digest (warm samples but the last). */
  output: OutputDigest | null;
  /** Full numeric output where a task needs it (e.g. one score per candidate); never written to a device receipt. */
  values?: number[];
  /** Engine-specific timing numbers (e.g. row_ms, tokenize_ms) for task receipts. */
  metrics?: Record<string, number>;
  /** Generate task only: the timed sample and the text; the text goes only to the answers artifact, never a receipt. */
  generation?: GeneratedOutput;
  /** A model with trained weights: whether the output was right on its fixed input (the receipt's `check`). */
  check?: OutputCheck;
}

/**
 * What the worker observed of the runtime during a receipt's run (`BenchWorker.diagnostics`): where the session's nodes
 * ran and the memory figures read in the worker, as the receipt's `placement` and part of its `memory`.
 */
export interface RunDiagnostics {
  placement: Placement | null;
  memory: { wasm: WasmMemory; gpu_buffers: GpuBuffers };
}

/** Options for `run`. */
export interface RunOptions {
  /** Compute the output digest (SHA-256); warm samples skip it to stay lean, the last sample of a series digests. */
  digest: boolean;
}

/** A failure inside the worker, as plain data (a thrown error would lose everything but name and message). */
export interface EngineFailure {
  ok: false;
  name: string;
  /** URLs already redacted. */
  message: string;
  /** The stage the worker was in. */
  stage: Stage | null;
  /** Every route attempt made before the failure (worker clock). */
  attempts: Route['attempts'];
  /** A file's bytes differed from its catalog pin (the page refuses the run and records integrity `mismatch`). */
  integrityMismatch: boolean;
  /** Files fetched before the failure (a route that failed after a successful fetch), else null. */
  fetched: FetchedFacts | null;
}

export type LoadOutcome = ({ ok: true } & LoadResult) | EngineFailure;

/** A loaded fixed input: its id and the SHA-256 of the artifact bytes exactly as served. */
export interface LoadedInput {
  id: string;
  sha256: string;
  bytes: number;
}
export type InputOutcome = ({ ok: true } & LoadedInput) | EngineFailure;

export type RunOutcome = ({ ok: true } & RunResult) | EngineFailure;

/** A timed series, as the receipt's timing fields: every sample (ms) and the untimed warm-up, plus the last run. */
export interface SeriesResult {
  ok: true;
  timings: Pick<Timings, 'warmup_ms' | 'warm_samples_ms'>;
  last: RunResult;
  /** With the drift probe asked for: the reference kernel's times, before the first timed run and after each (so
   *  runs + 1 of them), timed in the worker; absent otherwise. */
  drift_probe_ms?: number[];
}
/** A failed series keeps the samples it finished (a failed receipt records them, and claims no statistics). */
export type SeriesOutcome = SeriesResult | (EngineFailure & { timings: Pick<Timings, 'warm_samples_ms'> });

/**
 * What the bench worker exposes. One model and one input at a time; the page owns the worker's life (one worker
 * per cold run, terminated on a crash, a time limit or a cancel).
 */
export interface BenchWorker {
  /** The empty call, for measuring the messaging round trip. */
  ping(): void;
  /** The worker's `performance.timeOrigin`, so the page can map worker times onto its own clock. */
  timeOrigin(): number;
  /** Resource timing entries of the worker's own fetches since `sinceMs` (worker clock). */
  resourceEntries(sinceMs: number): ResourceTimingLike[];
  /** Fetches the catalog's fixed input, checks its pinned SHA-256 and keeps it for the runs. */
  loadInput(input: CatalogInput, pageBaseUrl: string): Promise<InputOutcome>;
  /** Sets an input the page built itself (suite rows, prompts); the engine validates its shape. */
  setInput(input: EngineInput): void;
  /** Creates the engine for the model and loads it on the requested route. */
  load(request: LoadRequest, hooks: EngineHooks): Promise<LoadOutcome>;
  /** One digested inference on the current input. */
  runOnce(hooks: EngineHooks): Promise<RunOutcome>;
  /** `warmupRuns` untimed runs, then `runs` timed ones; samples are timed in the worker around the runtime call. */
  runSeries(warmupRuns: number, runs: number, hooks: SeriesHooks, driftProbe?: boolean): Promise<SeriesOutcome>;
  /** Times the drift probe's reference kernel once in the worker, ms (src/core/device/drift-probe.ts). */
  driftProbe(): number;
  /** Releases the session and its memory. */
  dispose(): Promise<void>;
  /** What the worker observed of the runtime during the receipt's run that just ended (placement, memory); read once
   *  per receipt, after its last inference. */
  diagnostics(kind: 'cold' | 'warm'): RunDiagnostics;
  /** Turns ORT's verbose session log on for this worker's sessions (`ort_log=verbose`: its "Node placements" lines are
   *  printed to the console), before its first load. */
  setOrtLog(level: 'verbose' | null): void;
  /** Test hook (`test_hooks=1`): an uncaught error from a timer, exactly as a runtime crash would raise. */
  crashSoon(afterMs: number): void;
}
