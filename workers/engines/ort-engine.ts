/**
 * The onnxruntime-web adapter for `raw` models (the generated cross-encoder-shaped fixtures): inputs input_ids,
 * attention_mask, token_type_ids (int64 [batch, seq]), output logits (float32).
 *
 * Uses the `onnxruntime-web/webgpu` entry's JavaScript, which runs either WASM build: the plain SIMD-threaded build
 * on a `wasm` route, the WebGPU-capable asyncify build on a `webgpu` route (workers/ort-runtime.ts fetches it from
 * the page's own origin as the `runtime_fetch` stage and hands its bytes to the runtime).
 */
import * as ort from 'onnxruntime-web/webgpu';
import { parseFixedInput, type FixedInput } from '../../src/core/catalog.ts';
import { sha256Hex } from '../../src/core/sha256.ts';
import { fetchModelFiles } from '../model-fetch.ts';
import type { EngineHooks, EngineInput, FetchedFacts, LoadRequest, LoadResult, RunOptions, RunResult } from '../../src/worker-api/protocol.ts';
import type { Engine } from './engine.ts';
import { createOnRoute, effectiveThreads, localLoadResult } from './route.ts';
import { fetchOrtRuntime } from '../ort-runtime.ts';

const OUTPUT_HEAD_LENGTH = 16;

/** The ORT engine: one InferenceSession on one EP. */
export class OrtEngine implements Engine {
  readonly name = 'ort' as const;
  private session: ort.InferenceSession | null = null;
  private feeds: { id: string; feeds: Record<string, ort.Tensor> } | null = null;

  async load(request: LoadRequest, hooks: EngineHooks): Promise<LoadResult> {
    // The wasm backend initialises once per worker: these settings hold for the worker's life, which is why the
    // page creates a fresh worker for every cold run.
    ort.env.wasm.proxy = false;
    ort.env.logLevel = 'error';
    const threadsEffective = effectiveThreads(request.threads);
    ort.env.wasm.numThreads = threadsEffective;

    hooks.onStage?.('fetch', 'start');
    const fetched = await fetchModelFiles(request.model, request.pageBaseUrl, hooks);
    hooks.onStage?.('fetch', 'end');
    if (fetched.buffers.length !== 1) throw new Error(`the ort engine expects one .onnx file, the catalog lists ${fetched.buffers.length}`);
    // After the model fetch, whose timing entries tell whether this context shows sizes (see runtimeUrlsFor).
    const runtime = await fetchOrtRuntime(request.ep, request.coldStart === true, hooks);
    ort.env.wasm.wasmPaths = runtime.paths;
    ort.env.wasm.wasmBinary = runtime.wasmBinary;

    const fetchedFacts: FetchedFacts = {
      model: { files: fetched.files, integrity: fetched.integrity },
      timings: { model_fetch_ms: fetched.fetchMs },
      runtime: { info: runtime.info, fetchMs: runtime.fetchMs },
    };
    const route = await createOnRoute(
      request,
      threadsEffective,
      async (ep) => {
        this.session = await ort.InferenceSession.create(fetched.buffers[0], {
          executionProviders: [ep],
          graphOptimizationLevel: 'all',
          // Errors only: the "nodes not assigned to the preferred EP" warning is expected on webgpu (shape ops on CPU).
          logSeverityLevel: 3,
        });
      },
      fetchedFacts,
      hooks,
    ).finally(() => {
      // The runtime has compiled its module (or failed): the bytes need not stay referenced for the worker's life.
      ort.env.wasm.wasmBinary = undefined;
    });
    return localLoadResult({ name: 'ort', version: ort.env.versions.web ?? 'unknown' }, fetchedFacts, route, runtime);
  }

  async run(input: EngineInput, options: RunOptions): Promise<RunResult> {
    if (this.session === null) throw new Error('no ORT session: load a model first');
    const feeds = this.feedsFor(input);
    const started = performance.now();
    const results = await this.session.run(feeds);
    const durationMs = performance.now() - started;
    const name = this.session.outputNames[0];
    const tensor = results[name];
    const data = tensor.data as Float32Array;
    const head = Array.from(data.subarray(0, OUTPUT_HEAD_LENGTH));
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const output = options.digest ? { name, dims: tensor.dims.map(Number), head, sha256: await sha256Hex(bytes) } : null;
    for (const t of Object.values(results)) t.dispose();
    return { durationMs, output };
  }

  async dispose(): Promise<void> {
    const session = this.session;
    this.session = null;
    this.feeds = null;
    if (session) await session.release();
  }

  /** Input tensors built once per input id, so warm samples time the session call alone. */
  private feedsFor(input: EngineInput): Record<string, ort.Tensor> {
    if (this.feeds?.id === input.id) return this.feeds.feeds;
    const fixed: FixedInput = parseFixedInput(input.data, `input ${input.id}`);
    const dims = [fixed.input_ids.length, fixed.input_ids[0].length];
    const tensor = (rows: number[][]) => new ort.Tensor('int64', BigInt64Array.from(rows.flat(), (v) => BigInt(v)), dims);
    const feeds = {
      input_ids: tensor(fixed.input_ids),
      attention_mask: tensor(fixed.attention_mask),
      token_type_ids: tensor(fixed.token_type_ids),
    };
    this.feeds = { id: input.id, feeds };
    return feeds;
  }
}
