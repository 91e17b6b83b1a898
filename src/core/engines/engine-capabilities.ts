/**
 * What each engine can do, as one table that the panels, the run controllers and the catalog check all read
 * (transformers.js keeps its task-to-pipeline table the same way). The table's rows also define the engine names
 * (`EngineName`) receipts and URL parameters use. Adding an engine is its adapter in workers/engines/ (with its
 * line in the worker's engine registry, which the type checker asks for), one row here and its catalog entries; no
 * string comparison on engine names anywhere else.
 */
import { z } from 'zod';

/** Where a model runs: WebAssembly on the CPU, or WebGPU. */
export const ExecutionProvider = z.enum(['wasm', 'webgpu']);
export type ExecutionProvider = z.infer<typeof ExecutionProvider>;

/** What a model does: `raw` (a plain forward pass on token ids), `rerank` (a cross-encoder), `score-candidates` (a
 *  causal LM summing candidate log-probabilities) or `generate` (a causal LM generating text). */
export const ModelTask = z.enum(['rerank', 'score-candidates', 'generate', 'raw']);
export type ModelTask = z.infer<typeof ModelTask>;

/** The part of a catalog model (src/core/catalog/catalog.ts) the table is asked about. */
export interface ModelShape {
  engine: EngineName;
  task: ModelTask;
  /** The fixed input a plain cold/warm run uses; null when the model's task brings its own inputs. */
  default_input: string | null;
}

/** One engine's abilities. */
export interface EngineCapabilities {
  /** The catalog tasks its adapter runs (the catalog refuses a model with any other task on this engine). */
  tasks: readonly ModelTask[];
  /** Plain cold/warm runs on a catalog fixed input (the Run panel and autorun=cold,warm). */
  coldWarm: boolean;
  /** Side-by-side route comparisons (the Compare panel), on a fixed input or on candidate rows. */
  compare: boolean;
  /** Suite runs: rerank or score every row's candidates (the Suite panel). */
  suite: boolean;
  /** Generation runs on a prompt set (the Generation panel). */
  generate: boolean;
  /** The execution providers it can run on. */
  devices: readonly ExecutionProvider[];
  /** Hosts its runtime fetches from besides the model files (the page's CSP allows them when the catalog has one of
   *  its models): WebLLM 0.2.86 downloads its prebuilt model libraries (.wasm) from GitHub. */
  runtimeHosts: readonly string[];
  /** Whether the run can pick the model's dtype (transformers.js picks the ONNX file by dtype: fp32, fp16, q8 ...). */
  dtypeChoice: boolean;
  /** Whether its sampler takes a seed, so a generation plan can declare one per repetition. WebLLM's chat
   *  completions accept `seed`; transformers.js 4.x samples from its seedable global Mersenne Twister, which the
   *  worker seeds before each generation. */
  seedControl: boolean;
}

/** The table: one row per engine. Its keys are the engine names receipts and URL parameters use. */
const TABLE = {
  ort: {
    tasks: ['raw'],
    coldWarm: true,
    compare: true,
    suite: false,
    generate: false,
    devices: ['wasm', 'webgpu'],
    runtimeHosts: [],
    dtypeChoice: false,
    seedControl: false,
  },
  transformers: {
    tasks: ['rerank', 'score-candidates', 'generate'],
    coldWarm: true,
    compare: true,
    suite: true,
    generate: true,
    devices: ['wasm', 'webgpu'],
    runtimeHosts: [],
    dtypeChoice: true,
    seedControl: true,
  },
  webllm: {
    tasks: ['generate'],
    coldWarm: false,
    compare: false,
    suite: false,
    generate: true,
    devices: ['webgpu'],
    runtimeHosts: ['https://raw.githubusercontent.com'],
    dtypeChoice: false,
    seedControl: true,
  },
} as const satisfies Record<string, EngineCapabilities>;

/** An engine's name, as receipts, the catalog and the `engine` URL parameter write it: a row of the table. */
export type EngineName = keyof typeof TABLE;
export const EngineName = z.enum(Object.keys(TABLE) as [EngineName, ...EngineName[]]);

/** What each engine can do. */
export const ENGINE_CAPABILITIES: Readonly<Record<EngineName, Readonly<EngineCapabilities>>> = Object.freeze(TABLE);

/** The engines that offer run kind `kind` (for messages that name them). */
export function enginesFor(
  kind: keyof Pick<EngineCapabilities, 'coldWarm' | 'compare' | 'suite' | 'generate'>,
): EngineName[] {
  return EngineName.options.filter((name) => ENGINE_CAPABILITIES[name][kind]);
}

/** The tasks whose models score candidate lists (a suite run's rows, a comparison's candidate rows). */
export const CANDIDATE_TASKS: readonly ModelTask[] = Object.freeze(['rerank', 'score-candidates']);

/**
 * Whether `model` scores candidate lists (rerank or score-candidates).
 * @param model a catalog entry
 */
export function scoresCandidates<M extends ModelShape>(model: M): model is M & { task: 'rerank' | 'score-candidates' } {
  return CANDIDATE_TASKS.includes(model.task);
}

/** The run kinds a page offers, one per panel. */
export type RunKindName = 'cold-warm' | 'compare' | 'suite' | 'generate';

/**
 * Whether `model` can run as `kind`: its engine can, and the model has what that kind runs on (a fixed input for
 * cold/warm runs; a fixed input or candidate rows for comparisons; candidate scoring for suites; a generate task
 * for generation runs).
 * @param model a catalog entry
 * @param kind the run kind
 */
export function canRun(model: ModelShape, kind: RunKindName): boolean {
  const engine = ENGINE_CAPABILITIES[model.engine];
  switch (kind) {
    case 'cold-warm':
      return engine.coldWarm && model.default_input !== null;
    case 'compare':
      return engine.compare && (model.default_input !== null || scoresCandidates(model));
    case 'suite':
      return engine.suite && scoresCandidates(model);
    case 'generate':
      return engine.generate && model.task === 'generate';
  }
}
