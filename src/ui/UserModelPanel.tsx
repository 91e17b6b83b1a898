/**
 * Bring your own model: a developer picks (or drops) one `.onnx` graph, with its external data files if it has any,
 * and runs it cold and warm on this device from those files. The files are recognised by src/core/user-model/ (roles,
 * never names), read and hashed in the worker, and run by the ORT engine on inputs built from the graph's own input
 * metadata (a graph whose inputs this page cannot build is refused with a line per input). The receipts say
 * `source: user-supplied`, `kind: user`, `integrity: unpinned`, and list every file by its bytes and SHA-256 only:
 * no file or folder name reaches a receipt, a download name or the page's artifacts.
 *
 * A transformers.js folder (config.json, tokenizer files, onnx/model*.onnx) runs through transformers.js instead: its
 * task from config.json's architecture (a sequence classifier, or a causal LM's forward pass), its first dtype, on
 * synthesized token ids; files of no known role in it are neither read nor hashed.
 */
import { useMemo, useState } from 'preact/hooks';
import type { DeviceReceipt } from '../core/receipt.ts';
import { artifactFileName, receiptNameParts } from '../core/receipt-envelope.ts';
import { recogniseUserModel, userModelTasks, type UserModel } from '../core/user-model/user-model-files.ts';
import { runnableFiles, synthesizedInput, userCatalogModel } from '../core/user-model/user-run.ts';
import { downloadJson } from '../page/download.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { RunController } from '../page/run-controller.ts';
import { pageRuns } from '../page/run-gate.ts';
import type { ControllerJournal } from '../page/run-journal.ts';
import { pageSession } from '../page/session.ts';
import { CancelButton } from './CancelButton.tsx';
import { EpSelect } from './EpSelect.tsx';
import { BadParamsNote, PageBusyNote, refusedLine, usePageRun } from './page-runs.tsx';

/** What symbolic dimensions become, and the seed of float inputs, for every user graph. */
const SIZES = { batch: 1, sequence: 16 };
const SEED = 42;

type Picked = { files: File[]; model: UserModel } | { problem: string };

/** Recognises picked or dropped files (a folder pick gives each file's path inside the folder). */
function recognise(list: FileList | null): Picked | null {
  const files = Array.from(list ?? []);
  if (files.length === 0) return null;
  const model = recogniseUserModel(files.map((f) => ({ path: f.webkitRelativePath || f.name, bytes: f.size })));
  return 'problem' in model ? model : { files, model };
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
  const controller = useMemo(() => new RunController(livePageFacts(props.stageTimeoutMs, props.journal)), []);
  const pageRun = usePageRun();
  const [picked, setPicked] = useState<Picked | null>(null);
  const [pick, setPick] = useState(0);
  const [ep, setEp] = useState<'wasm' | 'webgpu'>('wasm');
  const [warmRuns, setWarmRuns] = useState(10);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [receipts, setReceipts] = useState<DeviceReceipt[]>([]);
  const [cancel, setCancel] = useState<AbortController | null>(null);

  const choose = (list: FileList | null) => {
    setPicked(recognise(list));
    setPick((n) => n + 1);
    setReceipts([]);
    setError(null);
  };

  const run = async () => {
    if (picked === null || 'problem' in picked) return;
    // A folder's task comes from its config.json (only its architecture name is read); it runs its first dtype.
    let folder: { task: 'rerank' | 'score-candidates'; dtype: string } | null = null;
    if (picked.model.kind === 'transformers') {
      const config = picked.model.files.find((f) => f.path === 'config.json')!;
      let parsed: unknown;
      try {
        parsed = JSON.parse(await picked.files[config.index].text());
      } catch {
        setError('These files cannot be run: config.json is not JSON.');
        return;
      }
      const tasks = userModelTasks(parsed);
      if ('problem' in tasks) {
        setError(`These files cannot be run: ${tasks.problem}.`);
        return;
      }
      folder = { task: tasks.tasks.includes('rerank') ? 'rerank' : 'score-candidates', dtype: picked.model.dtypes[0] };
    }
    const claim = pageRuns.claim('your model: cold + warm');
    if (claim === null) {
      setError(refusedLine(pageRuns.owner));
      return;
    }
    const abort = new AbortController();
    setCancel(abort);
    setBusy(true);
    setError(null);
    setReceipts([]);
    const model = userCatalogModel(picked.model, folder);
    const files = runnableFiles(picked.model).map((f) => ({ path: f.path, blob: picked.files[f.index] }));
    try {
      for (const kind of ['cold', 'warm'] as const) {
        if (abort.signal.aborted) break;
        setStatus(`${kind} run`);
        const { receipt, problems } = await controller.run(
          { kind, model, input: synthesizedInput(SIZES, SEED), ep, threads: null, allowFallback: false, warmRuns, user: { files, pick: String(pick) } },
          {},
          abort.signal,
        );
        if (problems.length > 0) {
          setError(`The ${kind} receipt failed its own checks and is not offered: ${problems.join('; ')}`);
          break;
        }
        // Stored on the device before it is shown: a tab killed afterwards loses nothing.
        await pageSession.offerReceipt(receipt);
        setReceipts((prev) => [...prev, receipt]);
        if (receipt.outcome.status !== 'ok') break;
      }
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      claim.release();
      setCancel(null);
      setBusy(false);
      setStatus(null);
    }
  };

  const model = picked !== null && !('problem' in picked) ? picked.model : null;
  return (
    <section class="panel" data-testid="user-model-panel">
      <h2>Your own model</h2>
      <p class="note">
        Pick one <code>.onnx</code> graph (with its external data files, if it has any) to run it cold and warm here, on
        inputs built from the graph's own input metadata. The files are read and hashed on this device and never
        uploaded; the receipts list them by size and SHA-256 only, never by name.
      </p>
      <div
        class="controls drop-zone"
        data-testid="user-model-drop"
        onDragOver={(e) => e.preventDefault()}
        onDrop={(e) => {
          e.preventDefault();
          if (!busy) choose(e.dataTransfer?.files ?? null);
        }}
      >
        <label>
          Files (or drop them here)
          <input type="file" multiple disabled={busy} data-testid="user-model-files" onChange={(e) => choose(e.currentTarget.files)} />
        </label>
        <label>
          A model folder
          <input type="file" multiple disabled={busy} data-testid="user-model-folder" {...{ webkitdirectory: true }} onChange={(e) => choose(e.currentTarget.files)} />
        </label>
        <EpSelect value={ep} busy={busy} testId="user-model-ep" onChange={setEp} />
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
      </div>
      {picked !== null && 'problem' in picked && (
        <p class="error" data-testid="user-model-problem">
          These files cannot be run: {picked.problem}.
        </p>
      )}
      {model && (
        <p class="note" data-testid="user-model-recognised">
          {model.kind === 'onnx'
            ? `An ONNX graph${model.files.length > 1 ? ` with ${model.files.length - 1} external data file(s)` : ''}, ${picked !== null && !('problem' in picked) ? picked.files.reduce((s, f) => s + f.size, 0) : 0} bytes.`
            : `A transformers.js model folder (${model.dtypes.join(', ')}): its ${model.dtypes[0]} graph runs, through transformers.js, on synthesized token ids.`}
        </p>
      )}
      <div class="buttons">
        <button type="button" disabled={busy || pageRun !== null || paramErrors.length > 0 || model === null} data-testid="user-model-run" onClick={() => void run()}>
          Run cold + warm
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
            {r.run.kind} · {r.route.completed_ep ?? 'failed'} · <strong>{r.outcome.status}</strong>
          </h3>
          {r.outcome.reason && <p class="error">Failed: {r.outcome.reason}</p>}
          <ul>
            {r.model.files.map((f, i) => (
              <li key={i}>
                {r.model.task === 'raw' && model ? userCatalogModel(model).files[i]?.path : `file ${i + 1}`}: {f.bytes} bytes, SHA-256 <code>{f.sha256}</code>
              </li>
            ))}
          </ul>
          <button type="button" data-testid={`user-model-download-${r.run.kind}`} onClick={() => downloadJson(r, artifactFileName(receiptNameParts(r)))}>
            Download receipt
          </button>
        </div>
      ))}
    </section>
  );
}
