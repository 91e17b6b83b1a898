/**
 * Loading a catalog model into transformers.js (@huggingface/transformers), shared by every transformers task
 * (rerank and score-candidates here, generate in transformers-generate.ts).
 *
 * How files reach the runtime: the shared `fetchModelFiles` downloads every catalog file (progress, SHA-256,
 * refusal of a changed byte), then transformers.js is pointed at the model's real location (the page's own
 * `models/` folder, or the Hugging Face repo at its pinned revision) with `env.fetch` replaced by a hook that
 * answers exactly those URLs from the verified bytes. So transformers.js builds its usual URLs, but it never sees
 * a byte the receipt did not hash, and a file the catalog does not list is answered 404 and reported.
 *
 * One onnxruntime-web copy: transformers.js imports `onnxruntime-web/webgpu`, the same entry the ORT adapter uses
 * (package.json `overrides` removes transformers' nested copy). Its runtime build follows the route like the ORT
 * adapter's (the plain build for `wasm`, JSPI or asyncify for `webgpu`; transformers.js itself picks the plain build where it
 * knows WebGPU is absent), fetched from the page's origin as the `runtime_fetch` stage by workers/ort-runtime.ts.
 */
import {
  AutoModelForCausalLM,
  AutoModelForSequenceClassification,
  AutoTokenizer,
  env,
  LogLevel,
  type PreTrainedModel,
  type PreTrainedTokenizer,
} from '@huggingface/transformers';
import { modelFileUrl, type CatalogModel } from '../../src/core/catalog/catalog.ts';
import { filesForDtype } from '../../src/core/catalog/transformers-dtype.ts';
import { redactUrl } from '../../src/core/text/redact.ts';
import { fetchedFacts, fetchModelFiles, readUserFiles, type FetchedModel } from '../model-fetch.ts';
import { USER_MODEL_BASE_PATH, USER_MODEL_ID } from '../../src/core/user-model/user-run.ts';
import type { EngineHooks, LoadRequest, LoadResult } from '../../src/worker-api/worker-messages.ts';
import { createOnRoute, effectiveThreads, localLoadResult, planRoute } from './route.ts';
import { fetchOrtRuntime } from '../ort-runtime.ts';
import { armWasmMemoryWatch, observedGpuDevice } from '../runtime-observer.ts';
import { ortVerboseLog, profiledSessionOptions, withOrtLog } from './ort-profile.ts';

/** Which transformers.js auto class a task needs. */
export type TransformersModelKind = 'sequence-classification' | 'causal-lm';

/** A loaded model (its tokenizer and its ONNX Runtime sessions), for the task code (rerank / score / generate). */
export interface TransformersModel {
  tokenizer: PreTrainedTokenizer;
  model: PreTrainedModel;
  kind: TransformersModelKind;
}

/** The version string recorded in receipts: transformers.js plus the onnxruntime-web it runs on. */
export function transformersVersion(): string {
  const ortVersion = (env.backends.onnx as { versions?: { web?: string } }).versions?.web ?? 'unknown';
  return `${env.version} (onnxruntime-web ${ortVersion})`;
}

/**
 * Where transformers.js should look for `model`: the id it is given, the revision, and the environment switches.
 * Page-origin models load as local models (`allowRemoteModels` off, `localModelPath` = the folder's parent path on
 * this origin, an absolute path, not a URL: transformers.js mis-joins an http URL there); Hugging Face models load as
 * remote models at their pinned revision ('main' only when the catalog pins none, and the receipt then says unpinned).
 */
function locate(
  model: CatalogModel,
  pageBaseUrl: string,
): { id: string; revision: string; local: boolean; localModelPath: string | null } {
  if (model.source.type === 'page-origin') {
    const folder = model.source.base_path.replace(/\/$/, '');
    const slash = folder.lastIndexOf('/');
    const parent = slash === -1 ? '' : `${folder.slice(0, slash)}/`;
    return {
      id: folder.slice(slash + 1),
      revision: 'main',
      local: true,
      localModelPath: new URL(parent, pageBaseUrl).pathname,
    };
  }
  // A user's folder is a local model at a path of the page's own that nothing serves: every file is answered from the
  // picked bytes by the fetch hook, and transformers.js sees only the folder's conventional names.
  if (model.source.type === 'user-supplied')
    return {
      id: USER_MODEL_ID,
      revision: 'main',
      local: true,
      localModelPath: new URL(USER_MODEL_BASE_PATH, pageBaseUrl).pathname,
    };
  return { id: model.source.repo, revision: model.source.revision ?? 'main', local: false, localModelPath: null };
}

/**
 * Builds the `env.fetch` replacement: answers the catalog's URLs from verified bytes (honouring a `Range` header,
 * which transformers.js uses for size probes), and answers anything else 404 while recording it.
 * @param urls absolute file URL -> verified bytes
 * @param pageBaseUrl base for the relative paths transformers.js passes for local models
 * @param unlisted collects every URL that was asked for but is not in the catalog (redacted)
 * @param probeAliases URL at the `main` revision -> the pinned revision's URL, for existence probes only (see below)
 */
function servingFetch(
  urls: Map<string, Uint8Array>,
  pageBaseUrl: string,
  unlisted: string[],
  probeAliases: Map<string, string>,
) {
  return async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input), pageBaseUrl).href;
    const range = new Headers(init?.headers).get('range');
    // transformers.js 4.3.2's get_tokenizer_files probes tokenizer_config.json with a one-byte Range request at
    // revision "main" whatever revision the caller gave; the real download then uses the pinned revision. So a
    // Range probe of a `main` URL is answered from the pinned file (it only decides that the file exists).
    const bytes = urls.get(url) ?? (range ? urls.get(probeAliases.get(url) ?? '') : undefined);
    if (bytes === undefined) {
      unlisted.push(redactUrl(url));
      return new Response(null, { status: 404, statusText: 'not in the model catalog' });
    }
    const match = range ? /^bytes=(\d+)-(\d*)$/.exec(range) : null;
    if (match) {
      const start = Number(match[1]);
      const end = match[2] === '' ? bytes.byteLength - 1 : Math.min(Number(match[2]), bytes.byteLength - 1);
      return new Response(bytes.slice(start, end + 1), {
        status: 206,
        headers: {
          'content-length': String(end + 1 - start),
          'content-range': `bytes ${start}-${end}/${bytes.byteLength}`,
        },
      });
    }
    // A copy, so the runtime may transfer or detach it without touching the verified original.
    return new Response(bytes.slice(), { status: 200, headers: { 'content-length': String(bytes.byteLength) } });
  };
}

/**
 * Fetches, verifies and loads `request.model` on the requested route.
 * @param request model, route, threads, dtype override, fallback permission
 * @param hooks `onProgress` for the download, `onStage` for fetch / session
 * @param kind which auto class to load (sequence classification for rerankers, causal LM for scoring / generation)
 * @returns the loaded model and the facts for the receipt
 * @throws IntegrityError when a file differs from its pin; RouteError when no route could create the session
 */
export async function loadTransformersModel(
  request: LoadRequest,
  hooks: EngineHooks,
  kind: TransformersModelKind,
): Promise<{ loaded: TransformersModel; result: LoadResult }> {
  const { pageBaseUrl } = request;
  const dtype = request.dtype ?? request.model.dtype ?? 'fp32';
  // Only the files this dtype needs are fetched and hashed (and only they are served to the runtime).
  const model: CatalogModel = { ...request.model, files: filesForDtype(request.model, dtype) };
  // Runtime settings hold for the worker's life (the wasm backend initialises once): the page uses a fresh worker
  // per cold run, which is also why a thread count can be honoured.
  const threadsEffective = effectiveThreads(request.threads);
  const wasm = (
    env.backends.onnx as {
      wasm: { wasmPaths: unknown; wasmBinary?: ArrayBufferLike | Uint8Array; numThreads: number; proxy: boolean };
    }
  ).wasm;
  wasm.numThreads = threadsEffective;
  wasm.proxy = false;
  env.logLevel = LogLevel.ERROR;
  // A developer's `ort_log=verbose`: onnxruntime-web's own level (transformers.js set it from its own just now).
  if (ortVerboseLog()) (env.backends.onnx as { logLevel?: string }).logLevel = 'verbose';
  // No Cache API and no blob-URL wasm factory: a cold run must fetch for real, and the CSP allows no blob: scripts.
  env.useBrowserCache = false;
  env.useWasmCache = false;
  env.useCustomCache = false;
  env.useFSCache = false;

  // Before any download: a route that cannot run here fails now (planRoute).
  const plan = await planRoute(request, threadsEffective, hooks);
  hooks.onStage?.('fetch', 'start');
  const user = request.model.source.type === 'user-supplied';
  if (user && request.userFiles === undefined) throw new Error('a user-supplied model needs its picked files');
  const fetched: FetchedModel = user
    ? await readUserFiles(
        model,
        model.files.map((f) => request.userFiles![request.model.files.indexOf(f)]),
        hooks,
      )
    : await fetchModelFiles(model, pageBaseUrl, hooks);
  hooks.onStage?.('fetch', 'end');
  hooks.onFetched?.(fetchedFacts(fetched));
  // After the model fetch, as its own stage; a cold run's under URLs unique to the run (see runtimeUrlsFor). The
  // build is the route's, or the plain one where only a wasm fallback can run (planRoute).
  const runtime = await fetchOrtRuntime(plan.runtimeEp, request.coldStart === true, hooks);
  wasm.wasmPaths = runtime.paths;
  wasm.wasmBinary = runtime.wasmBinary;

  const where = locate(model, pageBaseUrl);
  env.allowLocalModels = where.local;
  env.allowRemoteModels = !where.local;
  if (where.localModelPath !== null) env.localModelPath = where.localModelPath;
  const urls = new Map<string, Uint8Array>();
  const fileUrl = (file: CatalogModel['files'][number]) =>
    user
      ? new URL(`${USER_MODEL_BASE_PATH}${USER_MODEL_ID}/${file.path}`, pageBaseUrl).href
      : modelFileUrl(model, file, pageBaseUrl);
  model.files.forEach((file, index) => urls.set(fileUrl(file), fetched.buffers[index]));
  const unlisted: string[] = [];
  const probeAliases = new Map<string, string>();
  if (!where.local && where.revision !== 'main') {
    for (const url of urls.keys())
      probeAliases.set(url.replace(`/resolve/${encodeURIComponent(where.revision)}/`, '/resolve/main/'), url);
  }
  env.fetch = servingFetch(urls, pageBaseUrl, unlisted, probeAliases);

  const externalDataChunks = model.files.filter((f) => /\.onnx_data(?:_\d+)?$/.test(f.path)).length;
  const facts = fetchedFacts(fetched, runtime);
  hooks.onFetched?.(facts);
  let loaded: TransformersModel | null = null;
  const route = await createOnRoute(
    request,
    threadsEffective,
    async (ep) => {
      const options = { revision: where.revision, local_files_only: where.local };
      const tokenizer = await AutoTokenizer.from_pretrained(where.id, options);
      const Auto = kind === 'causal-lm' ? AutoModelForCausalLM : AutoModelForSequenceClassification;
      // `dtype` picks the file (fp32 -> onnx/model.onnx, q8 -> model_quantized.onnx, q4 -> model_q4.onnx, ...). When the
      // catalog lists external data (`…onnx_data`, `…onnx_data_1`, ...) transformers.js is told how many chunks to ask
      // for; otherwise the model's config decides (many exports do not declare it, and the load would then fail).
      const external = externalDataChunks > 0 ? { use_external_data_format: externalDataChunks } : {};
      // The runtime is instantiated by the first session: its WebAssembly memory is caught then (runtime-observer.ts).
      armWasmMemoryWatch();
      // transformers.js passes `session_options` to onnxruntime-web: the profiler on for the first run (where each
      // node ran) and, on WebGPU, a device whose buffers the worker counts (its own choice of EPs is kept otherwise).
      const session_options = {
        ...profiledSessionOptions(),
        ...(ep === 'webgpu'
          ? { executionProviders: [{ name: 'webgpu' as const, device: (await observedGpuDevice()) as never }] }
          : {}),
      };
      const pretrained = await withOrtLog(() =>
        Auto.from_pretrained(where.id, {
          ...options,
          ...external,
          device: ep,
          dtype: dtype as 'fp32',
          session_options,
        }),
      );
      loaded = { tokenizer, model: pretrained, kind };
    },
    facts,
    hooks,
    {
      failureDetail: () =>
        unlisted.length > 0 ? ` (asked for files the catalog does not list: ${unlisted.join(', ')})` : '',
      webgpu: plan.webgpu,
    },
  ).finally(() => {
    // The runtime has compiled its module (or failed): the bytes need not stay referenced for the worker's life.
    wasm.wasmBinary = undefined;
  });
  // createOnRoute returns only after `create` succeeded, which set the loaded model.
  if (loaded === null) throw new Error('transformers.js reported success without a loaded model');
  return {
    loaded,
    result: localLoadResult({ name: 'transformers', version: transformersVersion() }, facts, route, runtime),
  };
}
