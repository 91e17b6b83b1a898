/**
 * The engine interface: what every engine adapter (ORT, transformers.js, WebLLM) implements inside the bench worker.
 *
 * One adapter instance holds at most one loaded model. The worker calls, in order:
 *   1. `load(request, hooks)`: fetch the model files (progress + SHA-256 through `fetchModelFiles` in model-fetch.ts),
 *      create the session on the requested route, and report every route attempt honestly;
 *   2. `run(input, hooks)` any number of times: one inference on the fixed input, timed by the adapter around the
 *      runtime call only, returning an output digest (never text);
 *   3. `dispose()`.
 * Task-specific engines (rerank, score-candidates, generate) take their own `input.data` shape and may return
 * extra numbers in `RunResult.values` / `RunResult.metrics`; the page never puts text into a receipt.
 *
 * All types here cross the comlink boundary: plain data only (no class instances, no functions except in hooks,
 * which the page wraps with `Comlink.proxy`).
 */
import type { CatalogModel } from '../../src/core/catalog.ts';
import type { EngineName, ExecutionProvider, RouteAttempt, Stage } from '../../src/core/receipt.ts';
import type { GeneratedOutput } from '../../src/core/generation/generate-input.ts';

/** Progress of the model download: `bytesTotal` null while unknown (no Content-Length and no pinned size). */
export interface FetchProgress {
  /** Path of the file being fetched (relative to the model folder). */
  path: string;
  fileIndex: number;
  fileCount: number;
  /** Bytes received so far over all files. */
  bytesDone: number;
  /** Expected bytes over all files, when every file's size is known. */
  bytesTotal: number | null;
}

/** Callbacks from the worker to the page; the page passes them wrapped in `Comlink.proxy`. All optional to call. */
export interface EngineHooks {
  /** Download progress (throttled by the fetcher, at most a few per second plus the final one). */
  onProgress?(progress: FetchProgress): void;
  /** A stage started or ended; `atMs` is the worker's performance.now() converted to the page clock by the caller. */
  onStage?(stage: Stage, phase: 'start' | 'end'): void;
  /** One generated token (generate task only), for streaming UIs; no token text crosses into receipts. */
  onToken?(tokenIndex: number): void;
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
}

/** One model file as loaded: the URL is redacted by the fetcher (origin + path). */
export interface LoadedFile {
  url: string;
  bytes: number;
  sha256: string;
  expected_bytes: number | null;
  expected_sha256: string | null;
}

/** The result of `load`: what really happened, for the receipt's engine, route, model and timings sections. */
export interface LoadResult {
  engine: { name: EngineName; version: string };
  /** Every route tried, in order, with outcome and reason; times are worker performance.now() ms. */
  attempts: RouteAttempt[];
  /** The EP the session really runs on (a succeeded attempt); load throws when none succeeded. */
  completedEp: ExecutionProvider;
  /** Why completedEp differs from the request; null when it does not. */
  fallbackReason: string | null;
  /** Threads the runtime really uses (1 without cross-origin isolation), null when not applicable (webgpu-only). */
  threadsEffective: number | null;
  files: LoadedFile[];
  integrity: 'verified' | 'unpinned';
  /** Problems that did not stop the load (e.g. WebLLM files that could not be read back and hashed), URLs redacted;
   *  the page records each as a receipt `errors` entry of the load stage. Absent when there were none. */
  loadErrors?: Array<{ name: string; message: string }>;
  fetchMs: number;
  /** Session creation including WASM compile / shader setup. */
  sessionMs: number;
}

/** The fixed input handed to `run`: its id, and the parsed artifact whose shape the engine's task defines. */
export interface EngineInput {
  id: string;
  data: unknown;
}

/** A digest of the output for receipts and cross-provider agreement checks (never text). */
export interface OutputDigestData {
  name: string;
  dims: number[];
  /** First values (at most 16). */
  head: number[];
  /** SHA-256 of the raw little-endian output bytes; null when the run was asked not to digest. */
  sha256: string | null;
}

/** One inference. */
export interface RunResult {
  /** Time of the runtime call alone (input tensors prepared before, digest computed after). */
  durationMs: number;
  output: OutputDigestData;
  /** Full numeric output where a task needs it (e.g. one score per candidate); never written to a device receipt. */
  values?: number[];
  /** Engine-specific timing numbers (e.g. ttft_ms, decode_tokens_per_s) for task receipts. */
  metrics?: Record<string, number>;
  /** Generate task only (H6): the timed sample and the text; the text goes only to the answers artifact, never a receipt. */
  generation?: GeneratedOutput;
}

/** Options for `run`. */
export interface RunOptions {
  /** Skip the output digest (SHA-256) to keep warm samples lean; the last sample of a series always digests. */
  digest: boolean;
}

/** What every engine adapter implements. Errors thrown carry a message fit for a receipt (URLs redacted by the caller). */
export interface Engine {
  readonly name: EngineName;
  load(request: LoadRequest, hooks: EngineHooks): Promise<LoadResult>;
  run(input: EngineInput, options: RunOptions, hooks: EngineHooks): Promise<RunResult>;
  dispose(): Promise<void>;
}

/** Thrown when a loaded file's bytes or hash differ from its catalog pin; the page records integrity `mismatch`. */
export class IntegrityError extends Error {
  override name = 'IntegrityError';
}

/** Thrown when the requested route cannot run and fallback is not allowed (or also failed). */
export class RouteError extends Error {
  override name = 'RouteError';
  /**
   * @param attempts every attempt made, so the failed receipt can still list them
   * @param fetched the files fetched before the route failed (with their hashes and fetch time), if any
   */
  constructor(
    message: string,
    readonly attempts: RouteAttempt[],
    readonly fetched: { files: LoadedFile[]; integrity: 'verified' | 'unpinned'; fetchMs: number } | null = null,
  ) {
    super(message);
  }
}
