/**
 * The device receipt (`drb.device-receipt.v2`): what one cold or warm run measured on one device.
 *
 * Every object is strict (unknown keys are refused), so a receipt cannot smuggle input or output text in a
 * field the schema does not know. URLs are stored redacted to origin + path (see redact.ts); times are
 * milliseconds, `*_at_ms` relative to the page's performance time origin.
 */
import { z } from 'zod';
import {
  Detail,
  EngineVersion,
  ErrorCode,
  GitCommit,
  Identifier,
  OriginPathUrl,
  ReceiptId,
  RedactedUrl,
  RunId,
  Token,
  Version,
  WebGpuFeature,
  WebGpuLimitName,
  textLine,
} from '../text/bounded-text.ts';
import { EngineName, ExecutionProvider, ModelTask } from '../engines/engine-capabilities.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';
import { CacheFacts, CacheState } from './cache-state.ts';
import { DeviceState } from '../device/device-state-schema.ts';
import { ColdStartAttestation, ColdStartFacts } from './attestation.ts';
import { Placement } from './ep-placement.ts';
import { MemoryFigures } from './memory-figures.ts';
import { OutputCheck } from '../catalog/output-check.ts';

export { RedactedUrl } from '../text/bounded-text.ts';
export { CacheState, ColdStartAttestation, ColdStartFacts };

/** v2: new fields of this round (the device-details choice first); a v1 receipt is refused with one line. */
export const DEVICE_RECEIPT_SCHEMA = 'drb.device-receipt.v2';

const Sha256 = z.string().regex(SHA256_PATTERN, 'expected a lowercase hex SHA-256');
const Ms = z.number().finite().nonnegative();
export const IsoTime = z.string().datetime({ offset: true });

// The engines, what they run on and the model tasks are defined with the engine capability table (one place to
// add an engine); a receipt names them with the same enums.
export { EngineName, ExecutionProvider, ModelTask };

export const RunKind = z.enum(['cold', 'warm']);
export type RunKind = z.infer<typeof RunKind>;

/** The model status machine the page shows and records. */
export const ModelStatus = z.enum(['idle', 'fetching', 'creating_session', 'ready', 'running', 'done', 'failed']);
export type ModelStatus = z.infer<typeof ModelStatus>;

/** The stages that are timed (and journaled) separately. */
export const Stage = z.enum([
  'probe',
  'fetch',
  'runtime_fetch',
  'session',
  'first_inference',
  'warmup',
  'warm_inference',
]);
export type Stage = z.infer<typeof Stage>;

export const SampleStats = z.strictObject({
  count: z.number().int().positive(),
  median: Ms,
  p95: Ms,
  min: Ms,
  max: Ms,
  mean: Ms,
});

export const RouteAttempt = z.strictObject({
  ep: ExecutionProvider,
  threads: z.number().int().positive().nullable(),
  outcome: z.enum(['succeeded', 'failed']),
  reason: Detail.nullable(),
  started_at_ms: Ms,
  ended_at_ms: Ms,
});
export type RouteAttempt = z.infer<typeof RouteAttempt>;

export const Route = z.strictObject({
  requested_ep: ExecutionProvider,
  completed_ep: ExecutionProvider.nullable(),
  fallback_reason: Detail.nullable(),
  allow_fallback: z.boolean(),
  threads_requested: z.number().int().positive().nullable(),
  /** Threads ORT actually used (1 when the page is not cross-origin isolated, whatever was requested). */
  threads_effective: z.number().int().positive().nullable(),
  attempts: z.array(RouteAttempt),
  /** The layout the WebGPU EP was asked to prefer (onnxruntime-web's `preferredLayout`, from the catalog entry's
   *  `webgpu_layout`) when the run completed on WebGPU with one set; null: the EP's own default, or no WebGPU
   *  session. Absent in receipts made before it was recorded. */
  webgpu_layout: z.enum(['NCHW', 'NHWC']).nullable().optional(),
});
export type Route = z.infer<typeof Route>;

/** One model file as loaded: the URL redacted (origin + path), the bytes the browser hashed, the catalog's pins, and
 *  where the bytes came from (`cache_state`: network, the HTTP cache, the engine's own storage, or unknown and why). */
export const ModelFile = z.strictObject({
  url: RedactedUrl,
  bytes: z.number().int().nonnegative(),
  sha256: Sha256,
  expected_bytes: z.number().int().nonnegative().nullable(),
  expected_sha256: Sha256.nullable(),
  ...CacheFacts.shape,
});
export type ModelFile = z.infer<typeof ModelFile>;

/**
 * One runtime file the run loaded (onnxruntime-web's `.wasm` and `.mjs`): which build it is and where its bytes came
 * from. `bytes` is the size of the bytes the worker read (the `.wasm`, which it fetches, hashes and hands to the
 * runtime) or the body size resource timing reports (the `.mjs`, imported; null when hidden); `sha256` is set when the
 * worker read the bytes itself (the `.wasm`), null when the runtime loaded the file on its own.
 */
export const RuntimeFile = z.strictObject({
  url: RedactedUrl,
  bytes: z.number().int().nonnegative().nullable(),
  sha256: Sha256.nullable(),
  ...CacheFacts.shape,
});
export type RuntimeFile = z.infer<typeof RuntimeFile>;

/**
 * Which onnxruntime-web WASM build ran: `plain` (`ort-wasm-simd-threaded`, CPU only, what a `wasm` route loads),
 * `jspi` (`ort-wasm-simd-threaded.jspi`, the WebGPU-capable build a `webgpu` route loads where the browser has
 * JavaScript Promise Integration, also running its wasm fallback), `asyncify` (`ort-wasm-simd-threaded.asyncify`,
 * the WebGPU-capable build a `webgpu` route loads elsewhere, and every route before the page chose per route),
 * `jsep` (another WebGPU-capable build, not shipped by the page).
 */
export const RuntimeBuild = z.enum(['plain', 'asyncify', 'jsep', 'jspi']);
export type RuntimeBuild = z.infer<typeof RuntimeBuild>;

/** How a load fetched its runtime files (see RuntimeInfo.fetch_method). */
export const RuntimeFetchMethod = z.enum(['per-run-url', 'shared-url']);
export type RuntimeFetchMethod = z.infer<typeof RuntimeFetchMethod>;

/** How a load fetched its model files: `no-store` (every file fetched by the page with `cache: 'no-store'`: past the
 *  HTTP cache, never stored in it), `engine-storage` (the engine reads its own store, the Cache API or IndexedDB,
 *  before the network, as WebLLM does), `picked-files` (read from files picked on the device: no network). */
export const ModelFetchMethod = z.enum(['no-store', 'engine-storage', 'picked-files']);
export type ModelFetchMethod = z.infer<typeof ModelFetchMethod>;

/**
 * The runtime files a load used, in load order (empty when the engine's runtime is part of the page's own code), and
 * which build they are (null when there is no runtime file; absent in receipts written before the page chose the
 * build per route, when every ORT run loaded the asyncify build).
 */
export const RuntimeInfo = z.strictObject({
  build: RuntimeBuild.nullable().optional(),
  files: z.array(RuntimeFile).max(32),
  /** How the runtime files were fetched: `per-run-url` (a cold run's way past every cache: the `.mjs` imported and the
   *  `.wasm` fetched with `cache: 'no-store'` under a query unique to the run, its bytes handed to the runtime, so
   *  neither the HTTP cache nor a compiled-code cache keyed by URL can serve them), `shared-url` (the build's own URLs,
   *  through the HTTP cache: a warm run's load). Absent in receipts made before cold runs bypassed every cache. */
  fetch_method: RuntimeFetchMethod.optional(),
});
export type RuntimeInfo = z.infer<typeof RuntimeInfo>;

/**
 * The origin's storage around the run: usage before and after (navigator.storage.estimate; null where the browser
 * has none) and the Cache API caches that existed before the run (the engines' own stores, e.g. `transformers-cache`,
 * `webllm/model`; names that are not plain ids are counted, not recorded).
 */
export const SiteStorage = z.strictObject({
  usage_before_bytes: z.number().nonnegative().nullable(),
  usage_after_bytes: z.number().nonnegative().nullable(),
  cache_names_before: z.array(Identifier).max(64),
  other_caches_before: z.number().int().nonnegative(),
});
export type SiteStorage = z.infer<typeof SiteStorage>;

/**
 * The Screen Wake Lock during the run: `held` from start to end; `released` acquired but released by the browser
 * before the end (the page was hidden, the battery got low); `refused` the browser declined the request;
 * `unsupported` the browser offers no wake lock.
 */
export const WakeLockState = z.enum(['held', 'released', 'refused', 'unsupported']);
export type WakeLockState = z.infer<typeof WakeLockState>;

export const ModelInfo = z.strictObject({
  id: Identifier,
  /** `fixture`: generated by this project with random weights (pipeline checks, not quality); `real`: a catalog
   *  model; `user`: a model the developer picked on their own device (`source: user-supplied`). */
  kind: z.enum(['fixture', 'real', 'user']),
  task: ModelTask,
  dtype: Token.nullable(),
  /** `user-supplied`: read from files picked on the device, each listed by bytes and SHA-256 only (its `url` is the
   *  marker `user-supplied:[redacted]`: no file or folder name is recorded). */
  source: z.enum(['page-origin', 'huggingface', 'other', 'user-supplied']),
  revision: Identifier.nullable(),
  /** `verified`: every loaded file matched its pinned SHA-256; `unpinned`: the catalog pins no hash;
   *  `mismatch`: a file differed from its pin and the run refused it; `not-loaded`: the run ended before loading. */
  integrity: z.enum(['verified', 'unpinned', 'mismatch', 'not-loaded']),
  files: z.array(ModelFile),
  /** How the files were fetched (see ModelFetchMethod); absent in receipts made before it was recorded. */
  fetch_method: ModelFetchMethod.optional(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

export const InputInfo = z.strictObject({
  id: Identifier,
  sha256: Sha256,
});

export const OutputDigest = z.strictObject({
  /** Output tensor name and dimensions; never text. */
  name: Identifier,
  dims: z.array(z.number().int().nonnegative()).max(16),
  /** The first values of the numeric output (at most 16), for cross-provider agreement checks. */
  head: z.array(z.number().finite()).max(16),
  /** SHA-256 of the output tensor's raw little-endian bytes. */
  sha256: Sha256,
});
export type OutputDigest = z.infer<typeof OutputDigest>;

export const Timings = z.strictObject({
  model_fetch_ms: Ms.nullable(),
  /** The runtime's own download (its `.wasm` read and hashed by the page, its `.mjs` imported) before the session
   *  stage, so `session_create_ms` holds no download; null when not reached or when the engine has no runtime file to
   *  fetch; absent in receipts written before the runtime fetch was its own stage. */
  runtime_fetch_ms: Ms.nullable().optional(),
  session_create_ms: Ms.nullable(),
  first_inference_ms: Ms.nullable(),
  warmup_ms: Ms.nullable(),
  warm_samples_ms: z.array(Ms),
  warm_stats: SampleStats.nullable(),
  total_ms: Ms,
});
export type Timings = z.infer<typeof Timings>;

export const StatusTransition = z.strictObject({
  status: ModelStatus,
  at_ms: Ms,
});

export const Navigation = z.strictObject({
  url: RedactedUrl,
  type: Token,
  redirect_count: z.number().int().nonnegative(),
  response_start_ms: Ms.nullable(),
  dom_content_loaded_ms: Ms.nullable(),
  load_event_end_ms: Ms.nullable(),
  duration_ms: Ms.nullable(),
  transfer_size: z.number().int().nonnegative().nullable(),
  decoded_body_size: z.number().int().nonnegative().nullable(),
});

export const ResourceEntry = z.strictObject({
  url: RedactedUrl,
  initiator_type: Token,
  start_ms: Ms,
  duration_ms: Ms,
  cross_origin: z.boolean(),
  /** null with `size_unknown: true` when a cross-origin server did not expose sizes (no Timing-Allow-Origin). */
  transfer_size: z.number().int().nonnegative().nullable(),
  encoded_body_size: z.number().int().nonnegative().nullable(),
  decoded_body_size: z.number().int().nonnegative().nullable(),
  size_unknown: z.boolean(),
});
export type ResourceEntry = z.infer<typeof ResourceEntry>;

export const WebGpuCapabilities = z.strictObject({
  /** navigator.gpu exists: a diagnostic only, not a claim that the WebGPU route works. */
  navigator_gpu: z.boolean(),
  adapter_granted: z.boolean(),
  adapter_error: Detail.nullable(),
  adapter_info: z
    .strictObject({
      vendor: textLine(256),
      architecture: textLine(256),
      device: textLine(256),
      description: textLine(256),
    })
    .nullable(),
  is_fallback_adapter: z.boolean().nullable(),
  features: z.array(WebGpuFeature).max(256),
  limits: z
    .record(WebGpuLimitName, z.number())
    .refine((limits) => Object.keys(limits).length <= 128, { message: 'holds more than 128 limits' })
    .nullable(),
});

const BrandVersion = z.strictObject({ brand: textLine(128), version: textLine(64) });

/**
 * How much of the device a receipt records. `reduced` (the default): what a device pass needs to tell targets apart:
 * browser brands with their major versions, platform and mobile flag, and the user agent with every version cut to
 * its major (Chromium's own reduced form). `full`: the tester chose to share the full user agent and the
 * high-entropy client hints (platform version, CPU architecture, device model, full browser versions).
 */
export const DeviceDetails = z.enum(['reduced', 'full']);
export type DeviceDetails = z.infer<typeof DeviceDetails>;

export const Capabilities = z.strictObject({
  /** The tester's choice of how much of the device is recorded (see DeviceDetails). */
  device_details: DeviceDetails,
  user_agent: textLine(1024),
  ua_client_hints: z
    .strictObject({
      brands: z.array(BrandVersion).max(16),
      mobile: z.boolean(),
      platform: textLine(128),
      platform_version: textLine(64).nullable(),
      architecture: textLine(64).nullable(),
      model: textLine(128).nullable(),
      full_version_list: z.array(BrandVersion).max(16).nullable(),
    })
    .nullable(),
  platform: textLine(128).nullable(),
  cross_origin_isolated: z.boolean(),
  shared_array_buffer: z.boolean(),
  wasm: z.strictObject({ supported: z.boolean(), simd: z.boolean(), threads: z.boolean() }),
  hardware_concurrency: z.number().int().positive().nullable(),
  /** navigator.deviceMemory, only where the browser has it (never estimated). */
  device_memory_gb: z.number().positive().nullable(),
  /** performance.memory, only where the browser has it (Chromium); null on Safari and WebKit. */
  js_heap: z
    .strictObject({
      js_heap_size_limit: z.number().nonnegative(),
      total_js_heap_size: z.number().nonnegative(),
      used_js_heap_size: z.number().nonnegative(),
    })
    .nullable(),
  storage: z.strictObject({
    quota_bytes: z.number().nonnegative().nullable(),
    usage_bytes: z.number().nonnegative().nullable(),
    persisted: z.boolean().nullable(),
  }),
  webgpu: WebGpuCapabilities,
});
export type Capabilities = z.infer<typeof Capabilities>;

export const Lifecycle = z.strictObject({
  visibility_at_start: z.enum(['visible', 'hidden', 'prerender', 'unknown']),
  hidden_during_run: z.boolean(),
  frozen_during_run: z.boolean(),
  events: z.array(z.strictObject({ type: Token, at_ms: Ms })).max(10_000),
});

/** The run kinds the journal follows: a plain cold/warm run (its receipt is a device receipt), a suite, a
 *  generation or a side-by-side comparison run (each with its own receipt). */
export const RunMode = z.enum(['single', 'suite', 'generation', 'comparison']);
export type RunMode = z.infer<typeof RunMode>;

/** Journaled stages: the device run's stages plus `rows`, the row-by-row scoring of a suite run (generation runs
 *  use probe, fetch, session, warmup and warm_inference; comparisons fetch, session, warmup and warm_inference). */
export const JournalStage = z.enum([...Stage.options, 'rows']);
export type JournalStage = z.infer<typeof JournalStage>;

/** What the journal found when the page loaded: the previous run did not finish (tab killed or reloaded). */
export const InterruptedRun = z.strictObject({
  run_id: RunId,
  /** Absent in receipts written before suite, generation and comparison runs were journaled: a `single` run. */
  run_mode: RunMode.optional(),
  /** cold or warm for a `single` run; null for the other modes (a suite, generation or comparison run has both). */
  run_kind: RunKind.nullable(),
  stage: JournalStage,
  stage_started_at: IsoTime,
  model_id: Identifier,
  requested_ep: ExecutionProvider,
});
export type InterruptedRun = z.infer<typeof InterruptedRun>;

/**
 * Whether another run overlapped this one (the page's own runs share its cores with the one being measured, and so do
 * runs in other tabs of the site: timings of overlapping runs are not representative). `this_page`: another run of
 * this page ran at some time during this run. `other_tabs`: another tab of the site ran one (seen through Web Locks
 * and a BroadcastChannel, see src/page/run-gate.ts); null when this browser cannot tell (no Web Locks or no
 * BroadcastChannel) and none was seen. Absent in receipts made before the page watched for overlapping runs.
 * `drb receipts summarize` and `review` set overlapping receipts aside from the counts and statistics.
 */
export const RunOverlap = z.strictObject({
  this_page: z.boolean(),
  other_tabs: z.boolean().nullable(),
});
export type RunOverlap = z.infer<typeof RunOverlap>;

/** True when a receipt's `overlap` says another run ran during it (absent or all-false: none seen). */
export function overlapped(overlap: RunOverlap | undefined): boolean {
  return overlap !== undefined && (overlap.this_page || overlap.other_tabs === true);
}

/** An error the run met: a code (the error's name) and a bounded detail (its message, URLs redacted). */
export const ReceiptError = z.strictObject({
  stage: Stage.nullable(),
  name: ErrorCode,
  message: Detail,
});

/** The engine that ran, and its version as the runtime reports it (every receipt kind carries it). */
export const EngineInfo = z.strictObject({ name: EngineName, version: EngineVersion });
export type EngineInfo = z.infer<typeof EngineInfo>;

/** Which build of the page made a receipt (every receipt kind carries it). */
export const AppInfo = z.strictObject({
  name: z.literal('device-receipts-bench'),
  version: Version,
  commit: GitCommit.nullable(),
  page_url: OriginPathUrl,
});
export type AppInfo = z.infer<typeof AppInfo>;

export const DeviceReceipt = z.strictObject({
  schema: z.literal(DEVICE_RECEIPT_SCHEMA),
  receipt_id: ReceiptId,
  created_at: IsoTime,
  evidence_state: z.literal('DEVICE_RECEIPT'),
  app: AppInfo,
  run: z.strictObject({
    id: RunId,
    kind: RunKind,
    started_at: IsoTime,
    warm_runs_requested: z.number().int().positive().nullable(),
    inferences_completed: z.number().int().nonnegative(),
    previous_run_interrupted: InterruptedRun.nullable(),
    /** Cold runs: true when any model or runtime byte came from a cache (not a truly cold run), false when every
     *  file crossed the network, null when a file's source is unknown. Always null for a warm run. */
    cold_from_cache: z.boolean().nullable(),
    wake_lock: WakeLockState,
    /** Another run during this one (see RunOverlap); absent in receipts made before the page watched for it. */
    overlap: RunOverlap.optional(),
    /** Cold runs: what the page measured about its own start (navigation type, back/forward cache, first document
     *  of the tab, earlier runs of the page, navigation start to first result); null for a warm run. Absent in
     *  receipts made before cold runs recorded it. */
    cold_start: ColdStartFacts.nullable().optional(),
    /** Cold runs: what a tester (an explicit tap in protocol mode) or a driver stated about the start, which no page
     *  can measure: the browser quit and reopened, the site's website data cleared. Kept apart from every measured
     *  field; empty for a warm run and for a cold run nobody attested. Absent in receipts made before it existed. */
    attestations: z.array(ColdStartAttestation).max(8).optional(),
  }),
  engine: EngineInfo,
  route: Route,
  model: ModelInfo,
  runtime: RuntimeInfo,
  site_storage: SiteStorage,
  input: InputInfo,
  output: OutputDigest.nullable(),
  /** A model with trained weights: whether its output was right on the fixed input (see output-check.ts); null for a
   *  model without a check or a run with no output; absent in receipts written before checks existed. */
  check: OutputCheck.nullable().optional(),
  /** ORT-backed sessions: which execution provider each node ran on, from ORT's profiler over the first run after
   *  the session was created (see ep-placement.ts); WebLLM: on WebGPU by construction; null when the run ended before
   *  the profile was read; absent in receipts written before placement was recorded. */
  placement: Placement.nullable().optional(),
  /** The memory the model really took, as the browser measured it (see memory-figures.ts); absent in receipts
   *  written before it was recorded. */
  memory: MemoryFigures.optional(),
  timings: Timings,
  status_transitions: z.array(StatusTransition).min(1),
  navigation: Navigation.nullable(),
  resources: z.array(ResourceEntry),
  capabilities: Capabilities,
  lifecycle: Lifecycle,
  errors: z.array(ReceiptError),
  /** The device's CPU pressure around the run, the drift probe (between warm runs; before and after a cold run) and,
   *  in protocol mode, the cooldown before it (src/core/device/device-state.ts). Absent in receipts made before the
   *  page recorded it. */
  device_state: DeviceState.optional(),
  outcome: z.strictObject({
    status: z.enum(['ok', 'failed']),
    reason: Detail.nullable(),
    failed_stage: Stage.nullable(),
  }),
});
export type DeviceReceipt = z.infer<typeof DeviceReceipt>;
