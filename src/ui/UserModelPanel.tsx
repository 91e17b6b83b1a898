/**
 * Bring your own model: a developer picks (or drops) one `.onnx` graph, with its external data files if it has any,
 * or a transformers.js model folder, and runs it on this device from those files. The files are recognised by
 * src/core/user-model/ (roles, never names), read and hashed in the worker, and run through the engines and
 * controllers the catalog's models use:
 *
 * - a bare graph: cold and warm on the ORT engine (RunController), on inputs built from the graph's own input
 *   metadata (a graph whose inputs this page cannot build is refused with a line per input);
 * - a transformers.js folder (config.json, tokenizer files, onnx/model*.onnx), in the dtype chosen from those it has:
 *   a sequence classifier reranks the page's built-in probe pairs through the folder's own tokenizer, cold and warm
 *   (RunController); a causal LM generates the built-in prompt set, greedily (GenerationController). Files of no
 *   known role, and the other dtypes' graphs, are neither read nor hashed.
 *
 * The receipts say `source: user-supplied`, `kind: user`, `integrity: unpinned`, and list every file read by its
 * bytes and SHA-256 only: no file or folder name reaches a receipt, a download name or what the page stores.
 */
import { useMemo, useRef, useState } from 'preact/hooks';
import type { GenerationReceipt } from '../core/generation/generation-receipt.ts';
import type { DeviceReceipt } from '../core/receipt/receipt.ts';
import { filesForDtype } from '../core/catalog/transformers-dtype.ts';
import { walkDroppedEntries, type DroppedEntry } from '../core/user-model/folder-walk.ts';
import { recogniseUserModel, userModelTasks, type UserModel } from '../core/user-model/user-model-files.ts';
import { runnableFiles, synthesizedInput, USER_RERANK_PROBE, userCatalogModel, type UserFolderTask } from '../core/user-model/user-run.ts';
import { downloadReceipt } from '../page/download.ts';
import { GenerationController, loadPromptSet } from '../page/generation-controller.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { RunController } from '../page/run-controller.ts';
import type { ControllerJournal } from '../page/run-journal.ts';
import { storedSession } from '../page/stored-session.ts';
import { CancelButton } from './CancelButton.tsx';
import { EpSelect } from './EpSelect.tsx';
import { ThreadsSelect } from './ThreadsSelect.tsx';
import { GenerationSummaryTable } from './GenerationPanel.tsx';
import { BadParamsNote, PageBusyNote, runAsPageRun, usePageRun } from './page-runs.tsx';
import { ResultRegion } from './ResultRegion.tsx';

/** What symbolic dimensions become, and the seed of float inputs, for every user graph. */
const SIZES = { batch: 1, sequence: 16 };
const SEED = 42;

/** The prompt set a user's causal LM generates (the generation panel's own, fetched from the page's origin). */
const PROMPT_SET_ID = 'drb-gen-ja-en-v1';

/** What was picked: the files with their paths inside what was picked (never shown, stored or recorded), what they
 *  are, and a transformers.js folder's task (from its config.json). */
type Picked = { files: File[]; model: UserModel; task: UserFolderTask | null } | { problem: string };

/**
 * Recognises picked or dropped files, and reads a transformers.js folder's config.json for its task (only the
 * architecture's name is read).
 * @param files the files with their paths inside what was picked (a folder pick's `webkitRelativePath`, a walked
 *   drop's path, or the bare name)
 */
async function recognise(files: ReadonlyArray<{ path: string; file: File }>): Promise<Picked | null> {
  if (files.length === 0) return null;
  const model = recogniseUserModel(files.map((f) => ({ path: f.path, bytes: f.file.size })));
  if ('problem' in model) return model;
  const picked = files.map((f) => f.file);
  if (model.kind === 'onnx') return { files: picked, model, task: null };
  const config = model.files.find((f) => f.path === 'config.json')!;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await picked[config.index].text());
  } catch {
    return { problem: 'config.json is not JSON' };
  }
  const tasks = userModelTasks(parsed);
  if ('problem' in tasks) return tasks;
  return { files: picked, model, task: tasks.tasks.includes('rerank') ? 'rerank' : 'generate' };
}

/** The files of a file input, with the paths a folder pick gives them. */
function listed(list: FileList | null): Array<{ path: string; file: File }> {
  return Array.from(list ?? [], (file) => ({ path: file.webkitRelativePath || file.name, file }));
}

/**
 * The bring-your-own-model panel.
 * @param props.stageTimeoutMs the URL's stage time limit (null = the page's defaults)
 * @param props.journal the page's run journal
 * @param props.paramErrors the URL's bad parameters (the panel runs nothing while there are any)
 */
export function UserModelPanel(props: {
  stageTimeoutMs: number | null;
  journal?: ControllerJournal;
  /** The URL's bad parameters: while any is there, the panel runs nothing (as every panel). */
  paramErrors?: readonly string[];
}) {
  const paramErrors = props.paramErrors ?? [];
  const facts = useMemo(() => livePageFacts(props.stageTimeoutMs, props.journal), []);
  const controller = useMemo(() => new RunController(facts), []);
  const generator = useMemo(() => new GenerationController(facts), []);
  const pageRun = usePageRun();
  const [picked, setPicked] = useState<Picked | null>(null);
  const [pick, setPick] = useState(0);
  const [dtype, setDtype] = useState<string | null>(null);
  const [ep, setEp] = useState<'wasm' | 'webgpu'>('wasm');
  const [threads, setThreads] = useState<number | null>(null);
  const [warmRuns, setWarmRuns] = useState(10);
  const [maxNewTokens, setMaxNewTokens] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [receipts, setReceipts] = useState<DeviceReceipt[]>([]);
  const [generation, setGeneration] = useState<GenerationReceipt | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [cancel, setCancel] = useState<AbortController | null>(null);

  // Picks are numbered: a slow walk or recognition (a dropped folder being listed, a config.json being read) never
  // overwrites a later pick's.
  const latestPick = useRef(0);
  type Listed = ReadonlyArray<{ path: string; file: File }> | { problem: string };
  const choose = async (listing: Listed | Promise<Listed>) => {
    const n = ++latestPick.current;
    setPick(n);
    setReceipts([]);
    setGeneration(null);
    setSaved(null);
    setError(null);
    const files = await listing;
    const result = 'problem' in files ? files : await recognise(files);
    if (latestPick.current !== n) return;
    setPicked(result);
    setDtype(result !== null && !('problem' in result) && result.model.kind === 'transformers' ? result.model.dtypes[0] : null);
  };

  // A drop: a dropped folder is walked (src/core/user-model/folder-walk.ts); the entries must be taken during the
  // event itself.
  const dropped = (transfer: DataTransfer | null) => {
    const items = Array.from(transfer?.items ?? []).filter((item) => item.kind === 'file');
    const entries = items.map((item) => (item.webkitGetAsEntry?.() ?? null) as DroppedEntry | null);
    if (entries.length === 0 || entries.every((e) => e === null)) {
      void choose(listed(transfer?.files ?? null));
      return;
    }
    void choose(walkDroppedEntries<File>(entries).then((walked) => ('problem' in walked ? walked : walked.files)));
  };

  const runFiles = (model: UserModel, folder: { task: UserFolderTask; dtype: string } | null, files: File[]) => {
    const catalogModel = userCatalogModel(model, folder);
    return { catalogModel, files: runnableFiles(model).map((f) => ({ path: f.path, blob: files[f.index] })) };
  };

  const run = async () => {
    if (picked === null || 'problem' in picked) return;
    const folder = picked.task !== null && picked.model.kind === 'transformers' ? { task: picked.task, dtype: dtype ?? picked.model.dtypes[0] } : null;
    await runAsPageRun(folder?.task === 'generate' ? 'your model: generation' : 'your model: cold + warm', { setBusy, setCancel, setError }, async (signal) => {
      setError(null);
      setSaved(null);
      setReceipts([]);
      setGeneration(null);
      const { catalogModel, files } = runFiles(picked.model, folder, picked.files);
      if (folder?.task === 'generate') {
        // The generation panel's path: the built-in prompt set, one warm-up, every prompt once, greedily.
        setStatus('loading the prompt set');
        const prompts = await loadPromptSet(new URL(import.meta.env.BASE_URL, location.href).href, PROMPT_SET_ID);
        const out = await generator.run(
          { model: catalogModel, ep, threads, allowFallback: false, prompts, repetitions: 1, maxNewTokens, temperature: 0, userFiles: files },
          { onPhase: (phase) => setStatus(phase), onSample: (done, total) => setStatus(`measured · prompt ${done} / ${total}`) },
          signal,
        );
        if (out.problems.length > 0) {
          setError(`The generation receipt failed its own checks and is not offered: ${out.problems.join('; ')}`);
          return false;
        }
        // Stored on the device before it is shown. The answers (the generated text) are not kept: the receipt is
        // what this panel offers.
        await storedSession.offerArtifact('generation-receipt', out.receipt);
        setGeneration(out.receipt);
        return true;
      }
      const input = folder === null ? synthesizedInput(SIZES, SEED) : USER_RERANK_PROBE;
      for (const kind of ['cold', 'warm'] as const) {
        if (signal.aborted) return false;
        setStatus(`${kind} run`);
        const { receipt, problems } = await controller.run(
          { kind, model: catalogModel, input, ep, threads, allowFallback: false, warmRuns, user: { files, pick: String(pick) } },
          {},
          signal,
        );
        if (problems.length > 0) {
          setError(`The ${kind} receipt failed its own checks and is not offered: ${problems.join('; ')}`);
          return false;
        }
        // Stored on the device before it is shown: a tab killed afterwards loses nothing.
        await storedSession.offerReceipt(receipt);
        setReceipts((prev) => [...prev, receipt]);
        if (receipt.outcome.status !== 'ok') return false;
      }
      return true;
    });
    setStatus(null);
  };

  const ok = picked !== null && !('problem' in picked) ? picked : null;
  const model = ok?.model ?? null;
  // What the panel calls each file a receipt lists: its role (a bare graph's) or its place in the folder's layout
  // (config.json, onnx/model_q4.onnx: conventional names, never the user's), in the order the run read them.
  const fileLabels = (task: string, dtypeRun: string | null): string[] => {
    if (model === null) return [];
    if (model.kind === 'onnx') return userCatalogModel(model).files.map((f) => f.path);
    return filesForDtype(userCatalogModel(model, { task: task === 'generate' ? 'generate' : 'rerank', dtype: dtypeRun ?? model.dtypes[0] }), dtypeRun ?? model.dtypes[0]).map((f) => f.path);
  };
  const fileList = (files: DeviceReceipt['model']['files'], labels: string[]) => (
    <ul>
      {files.map((f, i) => (
        <li key={i}>
          {labels[i] ?? `file ${i + 1}`}: {f.bytes} bytes, SHA-256 <code>{f.sha256}</code>
        </li>
      ))}
    </ul>
  );
  const generate = ok?.task === 'generate';
  return (
    <section class="panel" data-testid="user-model-panel">
      <h2>Your own model</h2>
      <p class="note">
        Pick one <code>.onnx</code> graph (with its external data files, if it has any) to run it cold and warm here, on
        inputs built from the graph's own input metadata; or a transformers.js model folder (<code>config.json</code>,
        tokenizer files, <code>onnx/model*.onnx</code>): a reranker reranks the page's built-in probe pairs cold and
        warm, a causal LM generates the built-in prompt set greedily. The files are read and hashed on this device and
        never uploaded; the receipts list them by size and SHA-256 only, never by name.
      </p>
      <div
        class="controls drop-zone"
        data-testid="user-model-drop"
        onDragOver={(e) => e.preventDefault()}
        onDrop={(e) => {
          e.preventDefault();
          if (!busy) dropped(e.dataTransfer);
        }}
      >
        <label>
          Files (or drop files or a folder here)
          <input type="file" multiple disabled={busy} data-testid="user-model-files" onChange={(e) => void choose(listed(e.currentTarget.files))} />
        </label>
        <label>
          A model folder
          <input type="file" multiple disabled={busy} data-testid="user-model-folder" {...{ webkitdirectory: true }} onChange={(e) => void choose(listed(e.currentTarget.files))} />
        </label>
        {model?.kind === 'transformers' && (
          <label>
            Dtype
            <select value={dtype ?? model.dtypes[0]} disabled={busy} data-testid="user-model-dtype" onChange={(e) => setDtype(e.currentTarget.value)}>
              {model.dtypes.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
          </label>
        )}
        <EpSelect value={ep} busy={busy} testId="user-model-ep" onChange={setEp} />
        <ThreadsSelect value={threads} busy={busy} testId="user-model-threads" onChange={setThreads} />
        {generate ? (
          <label>
            Max new tokens
            <input
              type="number"
              min={1}
              max={4096}
              placeholder="the prompt set's"
              value={maxNewTokens ?? ''}
              disabled={busy}
              data-testid="user-model-max-new-tokens"
              onInput={(e) => {
                const text = e.currentTarget.value;
                const n = Number(text);
                if (text === '') setMaxNewTokens(null);
                else if (Number.isInteger(n) && n >= 1 && n <= 4096) setMaxNewTokens(n);
              }}
            />
          </label>
        ) : (
          <label>
            Warm runs
            <input
              type="number"
              min={1}
              max={1000}
              value={warmRuns}
              disabled={busy}
              data-testid="user-model-warm-runs"
              onInput={(e) => {
                const n = Number(e.currentTarget.value);
                if (Number.isInteger(n) && n >= 1 && n <= 1000) setWarmRuns(n);
              }}
            />
          </label>
        )}
      </div>
      {picked !== null && 'problem' in picked && (
        <p class="error" data-testid="user-model-problem">
          These files cannot be run: {picked.problem}.
        </p>
      )}
      {ok && (
        <p class="note" data-testid="user-model-recognised">
          {ok.model.kind === 'onnx'
            ? `An ONNX graph${ok.model.files.length > 1 ? ` with ${ok.model.files.length - 1} external data file(s)` : ''}, ${ok.files.reduce((sum, f) => sum + f.size, 0)} bytes.`
            : `A transformers.js model folder (${ok.model.dtypes.join(', ')}): ${
                ok.task === 'generate' ? 'a causal LM; it generates the built-in prompt set' : 'a sequence classifier; it reranks the built-in probe pairs'
              }, through transformers.js, in the dtype chosen.`}
        </p>
      )}
      <div class="buttons">
        <button type="button" disabled={busy || pageRun !== null || paramErrors.length > 0 || model === null} data-testid="user-model-run" onClick={() => void run()}>
          {generate ? 'Run generation' : 'Run cold + warm'}
        </button>
        <CancelButton onCancel={cancel ? () => cancel.abort() : null} testId="user-model-cancel" />
        <PageBusyNote owner={pageRun} ownBusy={busy} testId="user-model-page-busy" />
        <BadParamsNote errors={paramErrors} testId="user-model-bad-params" />
        {busy && <span role="status">{status}</span>}
      </div>
      {error && <p class="error">{error}</p>}
      {receipts.map((r) => (
        <div key={r.receipt_id} class={`receipt ${r.outcome.status}`} data-testid={`user-model-receipt-${r.run.kind}`} data-outcome={r.outcome.status}>
          <h3>
            {r.run.kind} · {r.route.completed_ep ?? 'failed'}
            {r.model.dtype ? ` · ${r.model.dtype}` : ''} · <strong>{r.outcome.status}</strong>
          </h3>
          {r.outcome.reason && <p class="error">Failed: {r.outcome.reason}</p>}
          {fileList(r.model.files, fileLabels(r.model.task, r.model.dtype))}
          <button type="button" data-testid={`user-model-download-${r.run.kind}`} onClick={() => downloadReceipt(r)}>
            Download receipt
          </button>
        </div>
      ))}
      {generation && (
        <ResultRegion resultKey={generation.receipt_id} class={`receipt ${generation.outcome.status}`} testId="user-model-generation" outcome={generation.outcome.status}>
          <h3>
            generation · {generation.route.completed_ep ?? 'failed'} · {generation.model.dtype} · <strong>{generation.outcome.status}</strong>
          </h3>
          {generation.outcome.reason && <p class="error">Failed: {generation.outcome.reason}</p>}
          <GenerationSummaryTable receipt={generation} />
          {fileList(generation.model.files, fileLabels('generate', generation.model.dtype))}
          <button
            type="button"
            data-testid="user-model-download-generation"
            onClick={() => setSaved(`Saved as ${downloadReceipt(generation)}.`)}
          >
            Download generation receipt
          </button>
          {saved && <span role="status">{saved}</span>}
        </ResultRegion>
      )}
    </section>
  );
}
