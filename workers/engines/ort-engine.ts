/**
 * The onnxruntime-web adapter for `raw` models (the generated cross-encoder-shaped fixtures): inputs input_ids,
 * attention_mask, token_type_ids (int64 [batch, seq]), output logits (float32).
 *
 * Uses the `onnxruntime-web/webgpu` entry's JavaScript, which runs any of the page's WASM builds: the plain
 * SIMD-threaded build on a `wasm` route, a WebGPU-capable build (JSPI, or asyncify where the browser has no JSPI) on
 * a `webgpu` route (workers/ort-runtime.ts fetches it from
 * the page's own origin as the `runtime_fetch` stage and hands its bytes to the runtime).
 */
import * as ort from 'onnxruntime-web/webgpu';
import { parseFixedInput, type FixedInput } from '../../src/core/catalog/catalog.ts';
import { sha256Hex } from '../../src/core/bytes/sha256.ts';
import { fetchedFacts, fetchModelFiles, readUserFiles } from '../model-fetch.ts';
import { buildInputValues, planInputs, type GraphInputMetadata } from '../../src/core/user-model/synthesized-inputs.ts';
import type { SynthesizedInputRequest } from '../../src/core/user-model/user-run.ts';
import type {
  EngineHooks,
  EngineInput,
  LoadRequest,
  LoadResult,
  RunOptions,
  RunResult,
  UserSuppliedFile,
} from '../../src/worker-api/worker-messages.ts';
import type { Engine } from './engine.ts';
import { createOnRoute, effectiveThreads, localLoadResult, planRoute } from './route.ts';
import { fetchOrtRuntime } from '../ort-runtime.ts';
import { armWasmMemoryWatch, observedGpuDevice } from '../runtime-observer.ts';
import type { SessionPlacement } from '../../src/core/receipt/ep-placement.ts';
import { finishProfiling, ortVerboseLog, profiledSessionOptions, withOrtLog } from './ort-profile.ts';
import { isTrainedInput, parseTrainedInput } from '../../src/core/catalog/trained-inputs.ts';
import { trainedFeeds, trainedRun, type TrainedFeeds, type TrainedSession } from './trained-run.ts';

const OUTPUT_HEAD_LENGTH = 16;

/** The ORT engine: one InferenceSession on one EP. */
export class OrtEngine implements Engine {
  readonly name = 'ort' as const;
  private session: ort.InferenceSession | null = null;
  private feeds: { id: string; feeds: Record<string, ort.Tensor> } | null = null;
  /** Where the session's nodes ran, once its first (profiled) run ended. */
  private placements: SessionPlacement[] | null = null;
  private profileProblem: string | null = null;
  private profiling = false;
  /** The model's other files (a recognition dictionary), by path, for the trained models' checks. */
  private auxFiles = new Map<string, Uint8Array>();
  /** A trained model's prepared input (built once per input id). */
  private trained: { id: string; feeds: TrainedFeeds } | null = null;
  readonly memoryObservation = { wasm: true, gpu: true, why: '' };

  async load(request: LoadRequest, hooks: EngineHooks): Promise<LoadResult> {
    // The wasm backend initialises once per worker: these settings hold for the worker's life, which is why the
    // page creates a fresh worker for every cold run.
    ort.env.wasm.proxy = false;
    ort.env.logLevel = ortVerboseLog() ? 'verbose' : 'error';
    const threadsEffective = effectiveThreads(request.threads);
    ort.env.wasm.numThreads = threadsEffective;

    // Before any download: a route that cannot run here fails now (planRoute).
    const plan = await planRoute(request, threadsEffective, hooks);
    hooks.onStage?.('fetch', 'start');
    const user = request.model.source.type === 'user-supplied';
    if (user && request.userFiles === undefined) throw new Error('a user-supplied model needs its picked files');
    const fetched = user
      ? await readUserFiles(request.model, request.userFiles!, hooks)
      : await fetchModelFiles(request.model, request.pageBaseUrl, hooks);
    hooks.onStage?.('fetch', 'end');
    hooks.onFetched?.(fetchedFacts(fetched));
    // One graph; a user's graph may bring external data files, which the runtime finds by the names the graph gives
    // them (the picked names, relative to the graph's folder).
    const graphAt = user
      ? request.model.files.findIndex((f) => f.path === 'onnx-graph')
      : request.model.files.findIndex((f) => f.path.endsWith('.onnx'));
    const externalData = user ? externalDataOf(request.userFiles!, graphAt, fetched.buffers) : [];
    // A catalog model may bring other files beside its graph (a recognition dictionary): kept for the run's check.
    this.auxFiles = new Map(
      user ? [] : request.model.files.flatMap((f, i) => (i === graphAt ? [] : [[f.path, fetched.buffers[i]] as const])),
    );
    if (
      graphAt === -1 ||
      fetched.buffers.length !== 1 + externalData.length + this.auxFiles.size ||
      [...this.auxFiles.keys()].some((p) => p.endsWith('.onnx'))
    ) {
      throw new Error(
        `the ort engine expects one .onnx file (and its external data), the model lists ${fetched.buffers.length} files`,
      );
    }
    // After the model fetch, as its own stage; a cold run's under URLs unique to the run (see runtimeUrlsFor). The
    // build is the route's, or the plain one where only a wasm fallback can run (planRoute).
    const runtime = await fetchOrtRuntime(plan.runtimeEp, request.coldStart === true, hooks);
    ort.env.wasm.wasmPaths = runtime.paths;
    ort.env.wasm.wasmBinary = runtime.wasmBinary;

    const facts = fetchedFacts(fetched, runtime);
    hooks.onFetched?.(facts);
    const route = await createOnRoute(
      request,
      threadsEffective,
      async (ep) => {
        // The runtime is instantiated by the first session: its WebAssembly memory is caught then (runtime-observer.ts).
        armWasmMemoryWatch();
        // On WebGPU the runtime gets a device whose buffers the worker counts (the receipt's memory.gpu_buffers),
        // and the layout the catalog entry asks for, if any (recorded in the receipt's route.webgpu_layout).
        const layout = request.model.webgpu_layout;
        const provider =
          ep === 'webgpu'
            ? {
                name: 'webgpu' as const,
                device: (await observedGpuDevice()) as never,
                ...(layout !== undefined ? { preferredLayout: layout } : {}),
              }
            : ep;
        this.session = await withOrtLog(() =>
          ort.InferenceSession.create(fetched.buffers[graphAt], {
            executionProviders: [provider],
            ...(externalData.length > 0 ? { externalData } : {}),
            graphOptimizationLevel: 'all',
            // The profiler on for the first run (where each node ran); errors only in the log (the "nodes not
            // assigned to the preferred EP" warning is what the profile counts), unless a developer asked for it.
            ...profiledSessionOptions(),
          }),
        );
        this.profiling = true;
        this.placements = null;
        this.profileProblem = null;
      },
      facts,
      hooks,
      { webgpu: plan.webgpu },
    ).finally(() => {
      // The runtime has compiled its module (or failed): the bytes need not stay referenced for the worker's life.
      ort.env.wasm.wasmBinary = undefined;
    });
    const result = localLoadResult({ name: 'ort', version: ort.env.versions.web ?? 'unknown' }, facts, route, runtime);
    const layout = result.route.completed_ep === 'webgpu' ? (request.model.webgpu_layout ?? null) : null;
    return { ...result, route: { ...result.route, webgpu_layout: layout } };
  }

  async run(input: EngineInput, options: RunOptions): Promise<RunResult> {
    if (this.session === null) throw new Error('no ORT session: load a model first');
    const result = isTrainedInput(input.data)
      ? await this.runTrained(input, options)
      : await this.runFeeds(input, options);
    if (this.profiling) {
      // After the first run's timed window: the profile is read and profiling ends, so later runs run unprofiled.
      this.profiling = false;
      const session = this.session;
      const profile = await finishProfiling([{ name: 'model', session }]);
      this.placements = profile.placements;
      this.profileProblem = profile.problem;
    }
    return result;
  }

  placement(): SessionPlacement[] | null {
    return this.placements;
  }

  placementProblem(): string | null {
    return this.profileProblem;
  }

  /** A model with trained weights on its catalog input (OCR lines, a VAD clip): the model's own run and check. */
  private async runTrained(input: EngineInput, options: RunOptions): Promise<RunResult> {
    const session = this.session!;
    const trained: TrainedSession = {
      run: (feeds) => withOrtLog(() => session.run(feeds as Record<string, ort.Tensor>)),
      tensor: (type, data, dims) => new ort.Tensor(type, data, dims),
      outputNames: session.outputNames,
    };
    if (this.trained?.id !== input.id)
      this.trained = {
        id: input.id,
        feeds: trainedFeeds(trained, parseTrainedInput(input.data, `input ${input.id}`), this.auxFiles),
      };
    return trainedRun(trained, this.trained.feeds, options.digest);
  }

  private async runFeeds(input: EngineInput, options: RunOptions): Promise<RunResult> {
    const feeds = this.feedsFor(input);
    const started = performance.now();
    const results = await withOrtLog(() => this.session!.run(feeds));
    const durationMs = performance.now() - started;
    const name = this.session!.outputNames[0];
    const tensor = results[name];
    // Float32 for the fixtures; a user's graph may answer in another element type, whose values are shown as numbers.
    const data = tensor.data as (Float32Array | Int32Array | BigInt64Array | Uint8Array) & ArrayBufferView;
    const head = Array.from({ length: Math.min(OUTPUT_HEAD_LENGTH, data.length) }, (_, i) => Number(data[i]));
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const output = options.digest
      ? { name, dims: tensor.dims.map(Number), head, sha256: await sha256Hex(bytes) }
      : null;
    for (const t of Object.values(results)) t.dispose();
    return { durationMs, output };
  }

  async dispose(): Promise<void> {
    const session = this.session;
    this.session = null;
    this.feeds = null;
    this.trained = null;
    this.placements = null;
    if (session) await session.release();
  }

  /** Input tensors built once per input id, so warm samples time the session call alone. */
  private feedsFor(input: EngineInput): Record<string, ort.Tensor> {
    if (this.feeds?.id === input.id) return this.feeds.feeds;
    if ((input.data as SynthesizedInputRequest | null)?.kind === 'synthesized') {
      const feeds = this.synthesizedFeeds(input.data as SynthesizedInputRequest);
      this.feeds = { id: input.id, feeds };
      return feeds;
    }
    const fixed: FixedInput = parseFixedInput(input.data, `input ${input.id}`);
    const dims = [fixed.input_ids.length, fixed.input_ids[0].length];
    const tensor = (rows: number[][]) =>
      new ort.Tensor(
        'int64',
        BigInt64Array.from(rows.flat(), (v) => BigInt(v)),
        dims,
      );
    const feeds = {
      input_ids: tensor(fixed.input_ids),
      attention_mask: tensor(fixed.attention_mask),
      token_type_ids: tensor(fixed.token_type_ids),
    };
    this.feeds = { id: input.id, feeds };
    return feeds;
  }

  /** A user's graph's inputs, built from its own input metadata; a graph with inputs this page cannot build is
   *  refused with one line per input (synthesized-inputs.ts). */
  private synthesizedFeeds(request: SynthesizedInputRequest): Record<string, ort.Tensor> {
    const session = this.session!;
    const metadata: GraphInputMetadata[] = session.inputMetadata.map((m) =>
      m.isTensor ? { name: m.name, isTensor: true, type: m.type, shape: m.shape } : { name: m.name, isTensor: false },
    );
    const plan = planInputs(metadata, request.sizes);
    if (!plan.ok) throw new Error(`the graph's inputs cannot be built here: ${plan.problems.join('; ')}`);
    const values = buildInputValues(plan.inputs, request.seed);
    return Object.fromEntries(plan.inputs.map((p) => [p.name, new ort.Tensor(p.type, values.get(p.name)!, p.dims)]));
  }
}

/**
 * The external data files of a user's graph as onnxruntime-web takes them: each file's path relative to the graph's
 * folder (the name the graph's `location` gives), with its bytes.
 * @param picked the picked files
 * @param graphAt the graph's index among them
 * @param buffers the files' bytes, in the same order
 */
function externalDataOf(
  picked: readonly UserSuppliedFile[],
  graphAt: number,
  buffers: readonly Uint8Array[],
): Array<{ path: string; data: Uint8Array }> {
  const graphPath = picked[graphAt]?.path ?? '';
  const folder = graphPath.includes('/') ? graphPath.slice(0, graphPath.lastIndexOf('/') + 1) : '';
  return picked
    .map((f, i) => ({ path: f.path.startsWith(folder) ? f.path.slice(folder.length) : f.path, data: buffers[i] }))
    .filter((_, i) => i !== graphAt);
}
