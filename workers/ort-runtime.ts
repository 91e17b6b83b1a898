/**
 * onnxruntime-web's runtime files, for the ORT adapter and for transformers.js (one onnxruntime-web copy, the
 * `onnxruntime-web/webgpu` entry's JavaScript, which runs any of the WASM builds below).
 *
 * - One build per route: a `wasm` route loads the plain SIMD-threaded build (`ort-wasm-simd-threaded`, about
 *   14 MB, CPU only); a `webgpu` route loads a WebGPU-capable build, which also runs that route's wasm fallback if
 *   the WebGPU session fails: the JSPI build (`.jspi`, about 17 MB) where the browser has JavaScript Promise
 *   Integration (Chromium 137 and later), else the asyncify build (`.asyncify`, about 27 MB: the same engine with its
 *   async calls rewritten by Binaryen's asyncify, which makes the module larger and slower to compile). Where the
 *   context has no usable WebGPU, a `webgpu` route that may fall back loads the plain build instead (only its
 *   fallback can run), and one that may not fails before loading any (workers/engines/route.ts `planRoute`). All
 *   three are assets of the page's own origin (the `?url` imports below are the only variants the build emits). The
 *   page starts a fresh worker for every load, so one worker never needs two.
 * - Its own stage: `runtime_fetch` imports the `.mjs` (the runtime's own import of the same URL then finds it in the
 *   module map) and reads the `.wasm` with progress (into one buffer as it arrives where its length is declared:
 *   `ByteCollector`), hashes it and hands the bytes to the runtime (`env.wasm.wasmBinary`, as an ArrayBuffer so the
 *   runtime wraps them instead of copying them), so the `session` stage compiles and instantiates only, with no
 *   download inside it.
 * - The receipt's `runtime`: the build, and each file with its bytes, the `.wasm`'s SHA-256 and where the bytes
 *   came from (the one cache-state design, see workers/cache-evidence.ts), and how they were fetched
 *   (`fetch_method`): a cold run always past every cache, under URLs unique to the run (`per-run-url`, the `.wasm`
 *   also with `cache: 'no-store'`, its bytes handed to the runtime so nothing compiles it from a cached response);
 *   a warm run's load through the HTTP cache (`shared-url`).
 */
import plainWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import plainMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.mjs?url';
import asyncifyWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import asyncifyMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import jspiWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.jspi.wasm?url';
import jspiMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.jspi.mjs?url';
import type { ExecutionProvider, RuntimeBuild, RuntimeInfo } from '../src/core/receipt/receipt.ts';
import { redactUrl } from '../src/core/text/redact.ts';
import { ByteCollector, declaredBodyLength } from '../src/core/bytes/byte-collector.ts';
import { sha256Hex } from '../src/core/bytes/sha256.ts';
import type { EngineHooks } from '../src/worker-api/worker-messages.ts';
import { runtimeFileFacts, runtimeUrlsFor } from './cache-evidence.ts';

/** The builds the page ships: their `.mjs` and `.wasm` asset URLs (relative to this module). */
const BUILDS: Readonly<Record<'plain' | 'asyncify' | 'jspi', { mjs: string; wasm: string }>> = {
  plain: { mjs: plainMjsUrl, wasm: plainWasmUrl },
  asyncify: { mjs: asyncifyMjsUrl, wasm: asyncifyWasmUrl },
  jspi: { mjs: jspiMjsUrl, wasm: jspiWasmUrl },
};

// Progress callbacks cross the worker boundary as messages: a few per second is enough for a progress bar.
const PROGRESS_INTERVAL_MS = 100;

/** Whether this context has JavaScript Promise Integration (what the JSPI build needs to run). */
export function hasJspi(): boolean {
  const wasm = WebAssembly as unknown as { Suspending?: unknown; promising?: unknown };
  return typeof wasm.Suspending === 'function' && typeof wasm.promising === 'function';
}

/**
 * The build a route loads: for `webgpu` a WebGPU-capable build (JSPI where the browser has it, asyncify otherwise;
 * the route's wasm fallback runs on the same build), the plain build otherwise.
 * @param ep the execution provider the build is for (`runtimeEpFor`: the requested one, or wasm where only a
 *   webgpu route's fallback can run)
 * @param jspi whether the context has JSPI (`hasJspi()`)
 */
export function ortBuildFor(ep: ExecutionProvider, jspi = hasJspi()): 'plain' | 'asyncify' | 'jspi' {
  if (ep !== 'webgpu') return 'plain';
  return jspi ? 'jspi' : 'asyncify';
}

/** A fetched runtime: what to hand onnxruntime-web, and what the receipt records. */
export interface FetchedRuntime {
  build: RuntimeBuild;
  /** For `env.wasm.wasmPaths` (the `.mjs` is already in the module map; the `.wasm` URL is only a name then). */
  paths: { mjs: string; wasm: string };
  /**
   * For `env.wasm.wasmBinary`: the `.wasm` bytes the receipt's SHA-256 is of, as an ArrayBuffer of exactly their
   * length. The runtime's Emscripten glue wraps what it is given in `new Uint8Array(...)`: a view of an ArrayBuffer,
   * but a full copy of a Uint8Array (14 to 27 MB more, on a phone too).
   */
  wasmBinary: ArrayBuffer;
  /** The receipt's `runtime` section. */
  info: RuntimeInfo;
  /** The `runtime_fetch` stage's duration (both files, hashing included). */
  fetchMs: number;
}

/**
 * Fetches the runtime build for `ep` as the `runtime_fetch` stage (announced through `hooks.onStage`, bytes through
 * `hooks.onProgress` with `kind: 'runtime'`).
 * @param ep the execution provider the build is for (`runtimeEpFor`)
 * @param cold a cold run's load (see `runtimeUrlsFor`: URLs unique to the run, past every cache)
 * @param hooks the load's hooks
 * @throws Error naming the file when the server does not answer it
 */
export async function fetchOrtRuntime(
  ep: ExecutionProvider,
  cold: boolean,
  hooks: EngineHooks,
): Promise<FetchedRuntime> {
  const build = ortBuildFor(ep);
  const here = self.location.href;
  const urls = runtimeUrlsFor(
    { wasm: new URL(BUILDS[build].wasm, here).href, mjs: new URL(BUILDS[build].mjs, here).href },
    cold,
  );
  const wasmName = new URL(BUILDS[build].wasm, here).pathname.split('/').pop() ?? 'runtime.wasm';
  hooks.onStage?.('runtime_fetch', 'start');
  const started = performance.now();
  // The same URL onnxruntime-web imports (wasmPaths.mjs): evaluated once, its later import resolves from the module map.
  await import(/* @vite-ignore */ urls.mjs);
  // A cold run's `.wasm` is never read from nor stored in the HTTP cache (its URL is unique to the run as well).
  const response = await fetch(urls.wasm, {
    credentials: 'same-origin',
    ...(cold ? { cache: 'no-store' as const } : {}),
  });
  if (!response.ok) throw new Error(`runtime file ${redactUrl(urls.wasm)} answered HTTP ${response.status}`);
  const bytesTotal = declaredBodyLength(
    response.headers.get('content-encoding'),
    response.headers.get('content-length'),
  );
  const bytes = new ByteCollector(bytesTotal);
  // Progress never passes its total: past it, the total is unknown.
  const report = () =>
    hooks.onProgress?.({
      kind: 'runtime',
      path: wasmName,
      fileIndex: 0,
      fileCount: 1,
      bytesDone: bytes.length,
      bytesTotal: bytesTotal !== null && bytes.length > bytesTotal ? null : bytesTotal,
    });
  let lastReport = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes.push(value);
    const now = performance.now();
    if (now - lastReport >= PROGRESS_INTERVAL_MS) {
      lastReport = now;
      report();
    }
  }
  report();
  const wasmBinary = bytes.finish();
  const sha256 = await sha256Hex(wasmBinary);
  const fetchMs = performance.now() - started;
  hooks.onStage?.('runtime_fetch', 'end');
  // Sizes and cache states from resource timing (after the stage: waiting for timing entries is not part of it);
  // the `.wasm`'s bytes and hash are what the worker read.
  const files = (await runtimeFileFacts(urls.probe)).map((file, index) =>
    urls.probe.urls[index] === urls.wasm ? { ...file, bytes: wasmBinary.byteLength, sha256 } : file,
  );
  const fetchMethod = urls.probe.bypassedHttpCache === null ? ('shared-url' as const) : ('per-run-url' as const);
  return {
    build,
    paths: { mjs: urls.mjs, wasm: urls.wasm },
    wasmBinary,
    info: { build, files, fetch_method: fetchMethod },
    fetchMs,
  };
}
