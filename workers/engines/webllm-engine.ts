/**
 * The WebLLM adapter (@mlc-ai/web-llm) for `generate` models: streamed chat completions timed by the worker's own
 * clock, with WebLLM's self-reported `usage.extra` kept beside each sample.
 *
 * Order of `load` (each step numbered in the code):
 *   1. refuse anything but a webgpu route (WebLLM has no wasm path, so there is nothing to fall back to);
 *   2. the capability gate (navigator.gpu, an adapter, `shader-f16` for f16 quantisations) from our own WebGPU probe,
 *      BEFORE WebLLM's code is even imported: WebLLM downloads the model config and library before it checks WebGPU;
 *   3. import WebLLM lazily (this file is itself only imported when a WebLLM model is selected);
 *   4. create the engine and load the model, timing the parameter download apart from GPU loading;
 *   5. read back from WebLLM's Cache API storage every file that load used (config, model library, tokenizer, tensor
 *      cache manifest, weight shards), hash each in this worker, and check the catalog's pins (mismatch = refusal):
 *      webllm-cache.ts.
 *
 * WebLLM's error classes are minified in its bundle: errors are matched on `err.name`, never `instanceof`.
 * Everything that touches the browser or WebLLM comes in through `WebLlmDeps`, so a Node contract test can drive the
 * adapter with a fake MLC engine implementing the same methods.
 */
import type { CatalogModel } from '../../src/core/catalog/catalog.ts';
import { parseGenerateInput } from '../../src/core/generation/generate-input.ts';
import {
  fromWebLlmUsage,
  timeGeneration,
  type StreamObservation,
} from '../../src/core/generation/generation-timing.ts';
import { webLlmGate, type WebGpuProbe } from '../../src/core/generation/webllm-gate.ts';
import type { RouteAttempt } from '../../src/core/receipt/receipt.ts';
import { sha256Hex } from '../../src/core/bytes/sha256.ts';
import { probeWebGpu } from '../../src/browser/webgpu-probe.ts';
import type {
  EngineHooks,
  EngineInput,
  LoadRequest,
  LoadResult,
  RunOptions,
  RunResult,
} from '../../src/worker-api/worker-messages.ts';
import { RouteError, type Engine } from './engine.ts';
import {
  hashWebLlmFiles,
  storedWebLlmUrls,
  WEBLLM_CACHE_BACKEND,
  webLlmIntegrity,
  type CacheStorageLike,
} from './webllm-cache.ts';

/** The slice of a WebLLM model record this adapter reads or writes (see web-llm's `ModelRecord`). */
export interface MlcModelRecord {
  model: string;
  model_id: string;
  model_lib: string;
  /** Set on records whose files are named by a package manifest (not read back by this adapter). */
  model_manifest?: string;
  required_features?: string[];
  overrides?: Record<string, unknown>;
  integrity?: { config?: string; model_lib?: string; tokenizer?: Record<string, string>; onFailure?: 'error' | 'warn' };
  [key: string]: unknown;
}

/** WebLLM's init progress report. */
export interface MlcInitProgress {
  progress: number;
  timeElapsed: number;
  text: string;
}

/** One chunk of a streamed chat completion (only the fields read here). */
export interface MlcChunk {
  choices: Array<{ delta?: { content?: string | null }; finish_reason?: string | null }>;
  usage?: { completion_tokens: number; prompt_tokens: number; extra?: unknown } | null;
}

/** The MLCEngine methods this adapter calls; a fake implementing them drives the contract test. */
export interface MlcEngineLike {
  reload(modelId: string): Promise<void>;
  resetChat(): Promise<void>;
  unload(): Promise<void>;
  chat: {
    completions: {
      create(request: {
        messages: Array<{ role: 'user'; content: string }>;
        stream: true;
        stream_options: { include_usage: true };
        max_tokens: number;
        temperature: number;
        seed?: number;
      }): Promise<AsyncIterable<MlcChunk>>;
    };
  };
}

/** The parts of the `@mlc-ai/web-llm` module this adapter uses. */
export interface WebLlmModule {
  MLCEngine: new (config: {
    appConfig: { model_list: MlcModelRecord[]; cacheBackend: typeof WEBLLM_CACHE_BACKEND };
    initProgressCallback: (report: MlcInitProgress) => void;
  }) => MlcEngineLike;
  prebuiltAppConfig: { model_list: MlcModelRecord[] };
}

/** Everything from outside: WebGPU, the WebLLM module, its cache storage, the clock. */
export interface WebLlmDeps {
  probeWebGpu(): Promise<WebGpuProbe>;
  importWebLlm(): Promise<WebLlmModule>;
  /** The Cache API WebLLM stores its downloads in; null where the context has none (e.g. not a secure context). */
  cacheStorage(): CacheStorageLike | null;
  now(): number;
  /** WebLLM's npm version, for the receipt. */
  version: string;
}

// Kept in sync with package.json by hand: WebLLM does not export its version, and the receipt must name it.
export const WEBLLM_VERSION = '0.2.86';

const browserDeps: WebLlmDeps = {
  // The one WebGPU probe (the capability probe's), run in this worker: the gate reads its features.
  probeWebGpu,
  // The only import of WebLLM in the project: a dynamic one, so its code is a separate chunk fetched on this path only.
  importWebLlm: async () => (await import('@mlc-ai/web-llm')) as unknown as WebLlmModule,
  cacheStorage: () => (typeof caches === 'undefined' ? null : caches),
  now: () => performance.now(),
  version: WEBLLM_VERSION,
};

/** The MLC model id a catalog entry names: the Hugging Face repo's name (`mlc-ai/<model_id>`). */
export function mlcModelId(model: CatalogModel): string {
  if (model.source.type !== 'huggingface')
    throw new Error(`WebLLM model "${model.id}" must come from a Hugging Face repo`);
  return model.source.repo.split('/')[1];
}

/** Hex SHA-256 to the SRI form WebLLM's integrity option takes (`sha256-<base64>`). */
export function hexToSri(hex: string): string {
  let binary = '';
  for (let i = 0; i < hex.length; i += 2) binary += String.fromCharCode(parseInt(hex.slice(i, i + 2), 16));
  return `sha256-${btoa(binary)}`;
}

/**
 * The WebLLM model record for a catalog entry: WebLLM's prebuilt record (model library URL, overrides) with the
 * model URL pinned to the catalog's revision and SRI hashes for the files the catalog pins.
 * @param model the catalog entry (engine webllm, Hugging Face source)
 * @param prebuilt WebLLM's prebuilt model list
 */
export function modelRecordFor(model: CatalogModel, prebuilt: readonly MlcModelRecord[]): MlcModelRecord {
  const id = mlcModelId(model);
  const record = prebuilt.find((r) => r.model_id === id);
  if (!record) throw new Error(`WebLLM ${WEBLLM_VERSION} has no prebuilt model library for "${id}"`);
  const source = model.source as { repo: string; revision: string | null };
  const pinned = (path: string) => model.files.find((f) => f.path === path)?.sha256 ?? null;
  const integrity: NonNullable<MlcModelRecord['integrity']> = { onFailure: 'error' };
  const config = pinned('mlc-chat-config.json');
  if (config) integrity.config = hexToSri(config);
  const tokenizer: Record<string, string> = {};
  for (const name of ['tokenizer.json', 'tokenizer_config.json', 'tokenizer.model']) {
    const hash = pinned(name);
    if (hash) tokenizer[name] = hexToSri(hash);
  }
  if (Object.keys(tokenizer).length > 0) integrity.tokenizer = tokenizer;
  return {
    ...record,
    model:
      source.revision === null
        ? `https://huggingface.co/${source.repo}`
        : `https://huggingface.co/${source.repo}/resolve/${source.revision}`,
    ...(Object.keys(integrity).length > 1 ? { integrity } : {}),
  };
}

// WebLLM's progress text says "<n>MB fetched" / "<n>MB loaded" (MiB, rounded up); the fraction is exact.
const PROGRESS_MIB = /(\d+)MB (fetched|loaded)/;

/** The WebLLM engine: one MLCEngine with one model. */
export class WebLlmEngine implements Engine {
  readonly name = 'webllm' as const;
  private engine: MlcEngineLike | null = null;

  /** @param deps browser and WebLLM access (the defaults); a contract test passes fakes */
  constructor(private readonly deps: WebLlmDeps = browserDeps) {}

  async load(request: LoadRequest, hooks: EngineHooks): Promise<LoadResult> {
    const { model } = request;
    if (model.engine !== 'webllm' || model.task !== 'generate')
      throw new Error(`model "${model.id}" is not a WebLLM generate model`);
    const attempts: RouteAttempt[] = [];
    const fail = (reason: string, startedAtMs: number): never => {
      attempts.push({
        ep: 'webgpu',
        threads: null,
        outcome: 'failed',
        reason,
        started_at_ms: startedAtMs,
        ended_at_ms: this.deps.now(),
      });
      throw new RouteError(reason, attempts);
    };

    // 1. WebLLM only runs on WebGPU: a wasm request is refused, and there is no wasm route to fall back to.
    if (request.ep !== 'webgpu') {
      const t = this.deps.now();
      attempts.push({
        ep: request.ep,
        threads: request.threads,
        outcome: 'failed',
        reason: 'WebLLM runs on WebGPU only: choose webgpu under Execution provider',
        started_at_ms: t,
        ended_at_ms: t,
      });
      throw new RouteError('WebLLM runs on WebGPU only: choose webgpu under Execution provider', attempts);
    }

    // 2. The capability gate, before any WebLLM code or model byte is fetched.
    hooks.onStage?.('probe', 'start');
    const gateStarted = this.deps.now();
    const probe = await this.deps.probeWebGpu();
    const gate = webLlmGate(probe, model.dtype);
    hooks.onStage?.('probe', 'end');
    if (!gate.ok)
      fail(
        `WebLLM capability gate: ${gate.reason}${request.allowFallback ? ' (WebLLM has no wasm route to fall back to)' : ''}`,
        gateStarted,
      );

    // 3. + 4. Import WebLLM, then load: parameter download (fetch) first, then loading onto the GPU (session). What its
    // cache holds before the load tells the receipt which files did not cross the network.
    const storedBefore = await storedWebLlmUrls(this.deps.cacheStorage());
    hooks.onStage?.('fetch', 'start');
    const loadStarted = this.deps.now();
    let fetchEndedAt: number | null = null;
    let record: MlcModelRecord;
    try {
      const webllm = await this.deps.importWebLlm();
      record = modelRecordFor(model, webllm.prebuiltAppConfig.model_list);
      // The record may declare features of its own (WebLLM's required_features): gate again with them, still before
      // the engine is created.
      const second = webLlmGate(probe, model.dtype, record.required_features ?? []);
      if (!second.ok) fail(`WebLLM capability gate: ${second.reason}`, gateStarted);
      const onProgress = (report: MlcInitProgress) => {
        const now = this.deps.now();
        // The download phase ends when WebLLM starts loading cached shards onto the GPU.
        if (fetchEndedAt === null && report.text.startsWith('Loading model from cache')) {
          fetchEndedAt = now;
          hooks.onStage?.('fetch', 'end');
          hooks.onStage?.('session', 'start');
        }
        const mib = PROGRESS_MIB.exec(report.text);
        const bytesDone = mib ? Number(mib[1]) * 1024 * 1024 : 0;
        hooks.onProgress?.({
          kind: 'model',
          path: mlcModelId(model),
          fileIndex: 0,
          fileCount: 1,
          bytesDone,
          // Derived from WebLLM's exact fraction and its MiB-rounded count: approximate, shown for the progress bar only.
          bytesTotal: mib && report.progress > 0 ? Math.round(bytesDone / report.progress) : null,
        });
      };
      this.engine = new webllm.MLCEngine({
        appConfig: { model_list: [record], cacheBackend: WEBLLM_CACHE_BACKEND },
        initProgressCallback: onProgress,
      });
      await this.engine.reload(record.model_id);
    } catch (error) {
      if (error instanceof RouteError) throw error;
      const err = error as Error;
      // Matched by name: WebLLM's classes are minified. Device loss and missing features are route failures.
      const routeNames = [
        'WebGPUNotAvailableError',
        'WebGPUNotFoundError',
        'ShaderF16SupportError',
        'FeatureSupportError',
        'DeviceLostError',
      ];
      if (routeNames.includes(err?.name)) fail(`WebLLM: ${err.name}: ${err.message}`, loadStarted);
      throw error;
    }
    const loadedAt = this.deps.now();
    if (fetchEndedAt === null) {
      // WebLLM never reported a GPU-loading phase (an unusual progress text): the whole load counts as fetch.
      hooks.onStage?.('fetch', 'end');
      hooks.onStage?.('session', 'start');
    }
    hooks.onStage?.('session', 'end');
    const fetchEnd = fetchEndedAt ?? loadedAt;
    attempts.push({
      ep: 'webgpu',
      threads: null,
      outcome: 'succeeded',
      reason: null,
      started_at_ms: loadStarted,
      ended_at_ms: loadedAt,
    });

    // 5. Hash what WebLLM loaded (read back from its cache) and apply the catalog's pins; a refusal unloads the model.
    const hashStarted = this.deps.now();
    const readBack = await hashWebLlmFiles(record, this.deps.cacheStorage());
    let checked: ReturnType<typeof webLlmIntegrity>;
    try {
      checked = webLlmIntegrity(model, readBack, storedBefore);
    } catch (error) {
      await this.dispose();
      throw error;
    }
    // Hashing counts as fetch time, as for every engine (model-fetch.ts hashes inside its fetch).
    const hashMs = this.deps.now() - hashStarted;
    return {
      engine: { name: 'webllm', version: this.deps.version },
      route: { completed_ep: 'webgpu', fallback_reason: null, threads_effective: null, attempts },
      // WebLLM reads its own Cache API store before the network (the files' cache states say which it did).
      model: { files: checked.files, integrity: checked.integrity, fetch_method: 'engine-storage' },
      // WebLLM's runtime is part of the page's code; its model library is one of the model files.
      runtime: { build: null, files: [] },
      timings: {
        model_fetch_ms: fetchEnd - loadStarted + hashMs,
        runtime_fetch_ms: null,
        session_create_ms: loadedAt - fetchEnd,
      },
      ...(readBack.problems.length > 0
        ? { loadErrors: readBack.problems.map((message) => ({ name: 'WebLlmFilesNotHashed', message })) }
        : {}),
    };
  }

  async run(input: EngineInput, _options: RunOptions, hooks: EngineHooks): Promise<RunResult> {
    if (this.engine === null) throw new Error('no WebLLM model is loaded');
    const step = parseGenerateInput(input.data);
    // Every prompt starts from an empty conversation: no KV-cache prefix reuse between measured prompts.
    await this.engine.resetChat();
    let text = '';
    let deltas = 0;
    let firstAt: number | null = null;
    let lastAt: number | null = null;
    let finish: StreamObservation['finish_reason'] = null;
    let usage: MlcChunk['usage'] = null;
    const requestAt = this.deps.now();
    const stream = await this.engine.chat.completions.create({
      messages: [{ role: 'user', content: step.text }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: step.max_new_tokens,
      temperature: step.temperature,
      ...(step.seed === null ? {} : { seed: step.seed }),
    });
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      const content = choice?.delta?.content;
      if (content) {
        const now = this.deps.now();
        firstAt ??= now;
        lastAt = now;
        text += content;
        // Incremented on its own line: inside `onToken?.(...)` it would be skipped when no hook is given.
        deltas++;
        hooks.onToken?.(deltas - 1);
      }
      if (choice?.finish_reason) {
        const reason = choice.finish_reason;
        finish = reason === 'stop' || reason === 'length' || reason === 'abort' ? reason : 'other';
      }
      if (chunk.usage) usage = chunk.usage;
    }
    const endAt = this.deps.now();
    const observed: StreamObservation = {
      request_at_ms: requestAt,
      first_token_at_ms: firstAt,
      last_token_at_ms: lastAt,
      end_at_ms: endAt,
      prompt_tokens: usage?.prompt_tokens ?? null,
      // The engine's count is exact; stream deltas can merge tokens, so they are only the fallback.
      output_tokens: usage?.completion_tokens ?? deltas,
      finish_reason: finish,
      max_new_tokens: step.max_new_tokens,
    };
    const sample = timeGeneration(observed, fromWebLlmUsage(usage?.extra));
    return {
      durationMs: sample.e2e_ms,
      output: {
        name: 'generated_tokens',
        dims: [sample.output_tokens],
        head: [],
        sha256: await sha256Hex(new TextEncoder().encode(text)),
      },
      generation: { sample, text, finish_reason: finish },
    };
  }

  async dispose(): Promise<void> {
    const engine = this.engine;
    this.engine = null;
    if (engine) await engine.unload();
  }
}
