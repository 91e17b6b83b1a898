/**
 * What a developer's own model is, from the files they picked or dropped (relative paths as the browser gives them,
 * sizes): one `.onnx` graph (with its external data files, if any) for the ORT engine, or a transformers.js model
 * folder (`config.json`, `tokenizer.json`, `onnx/model{suffix}.onnx`) for rerank, candidate scoring or generation.
 *
 * The paths are used here to recognise the layout and, later, to hand each file to the runtime under the name it
 * asks for; they never reach a receipt: a receipt lists each file by its role, bytes and SHA-256 only.
 */
import { dtypeOfFile } from '../catalog/transformers-dtype.ts';

/** One picked file. */
export interface PickedFile {
  /** The path relative to what was picked (`webkitRelativePath`, or the bare name for a single file). */
  path: string;
  bytes: number;
}

/** What a file is for, as a receipt may say it (never its name). */
export type UserFileRole =
  | 'onnx-graph'
  | 'onnx-external-data'
  | 'config'
  | 'generation-config'
  | 'tokenizer'
  | 'tokenizer-config'
  | 'other';

/** A recognised file: its index in the picked list, its path inside the model folder, and its role. */
export interface UserModelFile {
  index: number;
  /** Path inside the model folder (the common top folder removed), the name the runtime will ask for. */
  path: string;
  role: UserFileRole;
}

/** A bare ONNX graph for the ORT engine. */
export interface OnnxUserModel {
  kind: 'onnx';
  files: UserModelFile[];
}

/** A transformers.js model folder. */
export interface TransformersUserModel {
  kind: 'transformers';
  files: UserModelFile[];
  /** The dtypes it has graphs for (transformers.js suffixes), in the suffix table's order. */
  dtypes: string[];
}

export type UserModel = OnnxUserModel | TransformersUserModel;

/** The most files a picked model may have (a folder with more is refused rather than walked). */
export const MAX_USER_FILES = 2000;

const quoted = (text: string) => JSON.stringify(text);

const ROLES: Readonly<Record<string, UserFileRole>> = {
  'config.json': 'config',
  'generation_config.json': 'generation-config',
  'tokenizer.json': 'tokenizer',
  'tokenizer_config.json': 'tokenizer-config',
};

function roleOf(path: string): UserFileRole {
  if (ROLES[path]) return ROLES[path];
  if (/\.onnx$/.test(path)) return 'onnx-graph';
  if (/\.onnx(_data(_\d+)?|\.data)$/.test(path)) return 'onnx-external-data';
  return 'other';
}

/**
 * Recognises the picked files, or says in one line what is wrong (without quoting a name the user did not type:
 * messages name only the conventional files that are missing).
 * @param picked the files as picked, in the browser's order
 * @returns the model, or `{ problem }`
 */
export function recogniseUserModel(picked: readonly PickedFile[]): UserModel | { problem: string } {
  if (picked.length === 0) return { problem: 'no file was picked' };
  if (picked.length > MAX_USER_FILES)
    return { problem: `${picked.length} files were picked; a model folder here holds at most ${MAX_USER_FILES}` };
  for (const file of picked) {
    const parts = file.path.split('/');
    if (
      file.path === '' ||
      file.path.startsWith('/') ||
      parts.includes('..') ||
      parts.includes('') ||
      /[\\\u0000]/.test(file.path)
    ) {
      return { problem: 'a picked file has a path that is not inside the picked folder' };
    }
  }
  // A folder pick gives "<folder>/config.json": drop the folder, which is the user's name, not the model's layout.
  const tops = new Set(picked.map((f) => f.path.split('/')[0]));
  const stripTop = picked.length > 0 && tops.size === 1 && picked.every((f) => f.path.includes('/'));
  const files: UserModelFile[] = picked.map((f, index) => {
    const path = stripTop ? f.path.slice(f.path.indexOf('/') + 1) : f.path;
    return { index, path, role: roleOf(path) };
  });
  if (new Set(files.map((f) => f.path)).size !== files.length)
    return { problem: 'two picked files have the same path' };

  const graphs = files.filter((f) => f.role === 'onnx-graph');
  if (files.some((f) => f.path === 'config.json')) {
    for (const needed of ['tokenizer.json', 'tokenizer_config.json']) {
      if (!files.some((f) => f.path === needed))
        return {
          problem: `the folder has config.json but no ${needed}: a transformers.js model needs both tokenizer files`,
        };
    }
    const dtypes = new Set<string>();
    for (const graph of graphs) {
      const dtype = /^onnx\/model(_[a-z0-9]+)?\.onnx$/.test(graph.path) ? dtypeOfFile(graph.path) : null;
      if (dtype === null)
        return {
          problem:
            'the folder has an ONNX graph outside onnx/model{_dtype}.onnx, which transformers.js would not load (encoder-decoder and multi-file exports are not supported)',
        };
      dtypes.add(dtype);
    }
    if (dtypes.size === 0) return { problem: 'the folder has config.json but no onnx/model*.onnx graph' };
    const order = ['fp32', 'fp16', 'int8', 'uint8', 'q8', 'q4', 'q4f16', 'bnb4'];
    return { kind: 'transformers', files, dtypes: order.filter((d) => dtypes.has(d)) };
  }
  if (graphs.length !== 1) {
    return {
      problem:
        graphs.length === 0
          ? 'no .onnx file was picked'
          : `${graphs.length} .onnx files were picked; pick one graph (with its external data files), or a transformers.js model folder with config.json`,
    };
  }
  const others = files.filter((f) => f.role !== 'onnx-graph' && f.role !== 'onnx-external-data');
  if (others.length > 0)
    return {
      problem: `besides the .onnx graph and its external data, ${others.length} other file(s) were picked; pick a folder with config.json for a transformers.js model`,
    };
  return { kind: 'onnx', files };
}

/**
 * The task a transformers.js folder's config names (from `architectures`), or a line saying it is not one this page
 * runs. The config is the user's file: only two string fields are read, and only their shape is echoed back.
 * @param config the parsed config.json
 */
export function userModelTasks(
  config: unknown,
): { tasks: Array<'rerank' | 'score-candidates' | 'generate'> } | { problem: string } {
  const architectures = (config as { architectures?: unknown } | null)?.architectures;
  const first = Array.isArray(architectures) && typeof architectures[0] === 'string' ? architectures[0] : null;
  if (first === null) return { problem: 'config.json names no architectures, so the task cannot be told' };
  if (/ForSequenceClassification$/.test(first)) return { tasks: ['rerank'] };
  if (/(ForCausalLM|LMHeadModel)$/.test(first)) return { tasks: ['generate', 'score-candidates'] };
  return {
    problem: `config.json's architecture is not a sequence classifier or a causal LM (${quoted(first.slice(0, 60))}), which are what this page runs`,
  };
}
