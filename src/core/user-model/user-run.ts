/**
 * A developer's own model as the page runs it: the catalog-shaped entry the engines and receipts take, and the input
 * a bare graph runs on. Names never enter either: the entry's file paths are roles (`onnx-graph`,
 * `onnx-external-data-1`, ...), its id is `user-model`, and the receipt lists each file by bytes and SHA-256 under
 * the marker URL `user-supplied:[redacted]`. The picked paths stay on the page and in the worker, where the runtime
 * needs them (an external data file is found by the name the graph gives it).
 */
import type { CatalogModel } from '../catalog/catalog.ts';
import type { RerankInput } from '../suite/engine-inputs.ts';
import type { UserModel, UserModelFile } from './user-model-files.ts';
import type { InputSizes } from './synthesized-inputs.ts';

/** What a transformers.js folder runs here: a sequence classifier reranks, a causal LM generates. */
export type UserFolderTask = 'rerank' | 'generate';

/** The id every user-supplied model runs under (the receipt's `model.id`): never derived from a name. */
export const USER_MODEL_ID = 'user-model';

/** The URL recorded for every user-supplied file: a redaction marker, so no name or path is kept. */
export const USER_FILE_URL = 'user-supplied:[redacted]';

/** Where transformers.js is told a user's folder lives (answered from the picked bytes in the worker, never fetched). */
export const USER_MODEL_BASE_PATH = 'drb-user-supplied/';

/**
 * The picked files a run hands to the runtime, in order: every file of a bare graph; a folder's files but those of
 * no known role (a README, notes: they are neither read nor hashed).
 * @param model what recogniseUserModel made of the picked files
 */
export function runnableFiles(model: UserModel): UserModelFile[] {
  return model.kind === 'onnx' ? model.files : model.files.filter((f) => f.role !== 'other');
}

/**
 * The catalog-shaped entry of a user's model (no pins: nothing is known in advance, so its receipts say `unpinned`,
 * with each file's bytes and SHA-256 as read), with `runnableFiles` in order. A bare graph's file paths are roles; a
 * transformers.js folder's are its layout's conventional paths (config.json, onnx/model_q4.onnx ...), which
 * transformers.js asks for by name. Neither reaches a receipt.
 * @param model what recogniseUserModel made of the picked files
 * @param folder for a transformers.js folder: its task (from config.json) and the dtype to run
 */
export function userCatalogModel(
  model: UserModel,
  folder: { task: UserFolderTask; dtype: string } | null = null,
): CatalogModel {
  const counts = new Map<string, number>();
  const files = runnableFiles(model).map((f) => {
    if (model.kind === 'transformers') return { path: f.path, bytes: null, sha256: null };
    const n = (counts.get(f.role) ?? 0) + 1;
    counts.set(f.role, n);
    return { path: n === 1 ? f.role : `${f.role}-${n}`, bytes: null, sha256: null };
  });
  return {
    id: USER_MODEL_ID,
    label: model.kind === 'onnx' ? 'Your ONNX graph' : 'Your transformers.js model folder',
    engine: model.kind === 'onnx' ? 'ort' : 'transformers',
    task: model.kind === 'onnx' ? 'raw' : (folder?.task ?? 'rerank'),
    kind: 'user',
    source: { type: 'user-supplied' },
    files,
    dtype: model.kind === 'onnx' ? null : (folder?.dtype ?? model.dtypes[0]),
    licence: "the user's own model (not known to this page)",
    default_input: null,
    notes: null,
  };
}

/** The input a bare graph runs on: built in the worker from the graph's input metadata (synthesized-inputs.ts). */
export interface SynthesizedInputRequest {
  kind: 'synthesized';
  /** `synthesized-b<batch>-s<sequence>`: the receipt's `input.id`. */
  id: string;
  sizes: InputSizes;
  /** Seed of the uniform float values. */
  seed: number;
}

/** The schema id of the recipe whose SHA-256 is the receipt's `input.sha256`. */
export const SYNTHESIZED_INPUT_SCHEMA = 'drb.synthesized-input.v1';

/**
 * The synthesized input for `sizes` and `seed`.
 * @param sizes what symbolic batch and sequence dimensions become
 * @param seed seed of the uniform float values
 */
export function synthesizedInput(sizes: InputSizes, seed: number): SynthesizedInputRequest {
  return { kind: 'synthesized', id: `synthesized-b${sizes.batch}-s${sizes.sequence}`, sizes, seed };
}

/**
 * The bytes whose SHA-256 a receipt records as the synthesized input's: the recipe as canonical JSON. With the
 * graph's own SHA-256 (in `model.files`) it fixes every value the run fed, since the values follow from the recipe
 * and the graph's input metadata alone.
 * @param input the synthesized input
 */
export function synthesizedInputRecipeBytes(input: SynthesizedInputRequest): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify({
      schema: SYNTHESIZED_INPUT_SCHEMA,
      batch: input.sizes.batch,
      sequence: input.sizes.sequence,
      seed: input.seed,
    }),
  );
}

/** A built-in input a user's transformers.js reranker runs on (the catalog's rerank inputs are files; this one ships
 *  with the page): its id is the receipt's `input.id`, the SHA-256 of `builtInInputBytes` its `input.sha256`. */
export interface BuiltInInputRequest {
  kind: 'built-in';
  id: string;
  data: RerankInput;
}

/**
 * The fixed probe pairs a user's cross-encoder reranks, cold and warm, through the folder's own tokenizer: one query
 * and four candidates (two that answer it, in English and Japanese, two that do not), so a working reranker's scores
 * have an order to show. Versioned by its id: change a byte, change the id. The text never enters a receipt (only
 * the id, the hash of these bytes, and the scores' digest do).
 */
export const USER_RERANK_PROBE: BuiltInInputRequest = {
  kind: 'built-in',
  id: 'drb-rerank-probe-v1',
  data: {
    task: 'rerank',
    query: 'How can I make my phone battery last through a long day out?',
    candidates: [
      'Lower the screen brightness and turn off background refresh for apps you rarely use.',
      '画面の明るさを下げ、使わないときは位置情報をオフにすると電池が長持ちします。',
      'The train was twenty minutes late, so I missed the start of the meeting.',
      'Mashed banana can replace eggs in pancake batter.',
    ],
  },
};

/**
 * The bytes whose SHA-256 a receipt records as a built-in input's: its engine input as JSON (task, query,
 * candidates, in that order).
 * @param input the built-in input
 */
export function builtInInputBytes(input: BuiltInInputRequest): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(input.data));
}
