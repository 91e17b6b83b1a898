/**
 * What the bring-your-own-model panel was given: picked or dropped files (a dropped folder is walked), recognised by
 * src/core/user-model/ (roles, never names), and a transformers.js folder's task read from its config.json. The file
 * and folder names stay here: no receipt, download name or stored item ever holds one.
 */
import { useRef, useState } from 'preact/hooks';
import { filesForDtype } from '../core/catalog/transformers-dtype.ts';
import { walkDroppedEntries, type DroppedEntry } from '../core/user-model/folder-walk.ts';
import { ONNX_HEAD_BYTES, onnxFramingProblem } from '../core/user-model/onnx-framing.ts';
import { recogniseUserModel, userModelTasks, type UserModel } from '../core/user-model/user-model-files.ts';
import { userCatalogModel, type UserFolderTask } from '../core/user-model/user-run.ts';

/** What was picked: the files with their paths inside what was picked (never shown, stored or recorded), what they
 *  are, a transformers.js folder's task (from its config.json), and the pick's number (a warm run reuses a loaded
 *  model only for the same pick). */
export type Picked =
  | { files: File[]; model: UserModel; task: UserFolderTask | null; pick: number }
  | { problem: string };

/** Files with their paths inside what was picked (a folder pick's `webkitRelativePath`, a walked drop's path, or the
 *  bare name). */
type Listed = ReadonlyArray<{ path: string; file: File }>;

/**
 * Recognises picked or dropped files, and reads a transformers.js folder's config.json for its task (only the
 * architecture's name is read).
 * @param files the files with their paths inside what was picked
 * @param pick the pick's number
 */
async function recognise(files: Listed, pick: number): Promise<Picked | null> {
  if (files.length === 0) return null;
  const model = recogniseUserModel(files.map((f) => ({ path: f.path, bytes: f.file.size })));
  if ('problem' in model) return model;
  const picked = files.map((f) => f.file);
  // Every graph is checked to be framed as ONNX before the runtime sees it (a renamed JSON file, an error page): the
  // head of each is read here, nothing more.
  for (const graph of model.files.filter((f) => f.role === 'onnx-graph')) {
    const file = picked[graph.index];
    const head = new Uint8Array(await file.slice(0, ONNX_HEAD_BYTES).arrayBuffer());
    const problem = onnxFramingProblem(head, file.size);
    // A bare graph is named by its role (its name is the user's); a folder's graph by its place in the layout.
    if (problem !== null) return { problem: `${model.kind === 'onnx' ? 'the .onnx file' : graph.path}: ${problem}` };
  }
  if (model.kind === 'onnx') return { files: picked, model, task: null, pick };
  const config = model.files.find((f) => f.path === 'config.json')!;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await picked[config.index].text());
  } catch {
    return { problem: 'config.json is not JSON' };
  }
  const tasks = userModelTasks(parsed);
  if ('problem' in tasks) return tasks;
  return { files: picked, model, task: tasks.tasks.includes('rerank') ? 'rerank' : 'generate', pick };
}

/** The files of a file input, with the paths a folder pick gives them. */
export function listed(list: FileList | null): Listed {
  return Array.from(list ?? [], (file) => ({ path: file.webkitRelativePath || file.name, file }));
}

/**
 * What the panel calls each file a receipt lists: its role (a bare graph's) or its place in the folder's layout
 * (config.json, onnx/model_q4.onnx: conventional names, never the user's), in the order the run read them.
 * @param model the recognised model
 * @param task the receipt's task (`generate`, or a reranker's)
 * @param dtype the dtype that ran (null: the folder's first)
 */
export function fileLabels(model: UserModel, task: string, dtype: string | null): string[] {
  if (model.kind === 'onnx') return userCatalogModel(model).files.map((f) => f.path);
  const ran = dtype ?? model.dtypes[0];
  const folder = { task: task === 'generate' ? ('generate' as const) : ('rerank' as const), dtype: ran };
  return filesForDtype(userCatalogModel(model, folder), ran).map((f) => f.path);
}

/**
 * What the panel says it recognised in a pick.
 * @param picked a recognised pick
 */
export function pickDescription(picked: Exclude<Picked, { problem: string }>): string {
  const { model } = picked;
  if (model.kind === 'onnx') {
    const external = model.files.length > 1 ? ` with ${model.files.length - 1} external data file(s)` : '';
    return `An ONNX graph${external}, ${picked.files.reduce((sum, f) => sum + f.size, 0)} bytes.`;
  }
  const what =
    picked.task === 'generate'
      ? 'a causal LM; it generates the built-in prompt set'
      : 'a sequence classifier; it reranks the built-in probe pairs';
  return `A transformers.js model folder (${model.dtypes.join(', ')}): ${what}, through transformers.js, in the dtype chosen.`;
}

/** The panel's pick: what was picked, the dtype chosen, and the two ways in (a file input, a drop). */
export interface UserModelPick {
  picked: Picked | null;
  dtype: string | null;
  setDtype(dtype: string): void;
  /** A file input's files. */
  choose(listing: Listed): void;
  /** A drop: a dropped folder is walked (its entries must be taken during the event itself). */
  drop(transfer: DataTransfer | null): void;
}

/**
 * The panel's pick state.
 * @param onPick called when a new pick starts (the panel forgets the last pick's results)
 */
export function useUserModelPick(onPick: () => void): UserModelPick {
  const [picked, setPicked] = useState<Picked | null>(null);
  const [dtype, setDtype] = useState<string | null>(null);
  // Picks are numbered: a slow walk or recognition (a dropped folder being listed, a config.json being read) never
  // overwrites a later pick's.
  const latestPick = useRef(0);
  const take = async (listing: Listed | { problem: string } | Promise<Listed | { problem: string }>) => {
    const n = ++latestPick.current;
    onPick();
    const files = await listing;
    const result = 'problem' in files ? files : await recognise(files, n);
    if (latestPick.current !== n) return;
    setPicked(result);
    setDtype(
      result !== null && !('problem' in result) && result.model.kind === 'transformers' ? result.model.dtypes[0] : null,
    );
  };
  const drop = (transfer: DataTransfer | null) => {
    const items = Array.from(transfer?.items ?? []).filter((item) => item.kind === 'file');
    const entries = items.map((item) => (item.webkitGetAsEntry?.() ?? null) as DroppedEntry | null);
    if (entries.length === 0 || entries.every((e) => e === null)) void take(listed(transfer?.files ?? null));
    else void take(walkDroppedEntries<File>(entries).then((walked) => ('problem' in walked ? walked : walked.files)));
  };
  return { picked, dtype, setDtype, choose: (listing) => void take(listing), drop };
}
