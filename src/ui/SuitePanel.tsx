/**
 * The suite-run panel: pick the demo suite or your own items + candidates files, a reranker or candidate scorer, the
 * route and the abstention threshold; follow rows done / total, elapsed time and time left; download the
 * predictions artifact (for `drb score`) and the suite receipt. Chosen files are only read, never written.
 * Also runs `autorun=suite` for the automation contract and puts both artifacts into `window.drbArtifacts`.
 */
import { storedSession } from '../page/stored-session.ts';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ParsedAutomation } from '../core/automation/automation.ts';
import type { CatalogModel, ModelCatalog } from '../core/catalog/catalog.ts';
import { canRun, ENGINE_CAPABILITIES, enginesFor } from '../core/engines/engine-capabilities.ts';
import type { ItemFormat } from '../core/artifacts/items.ts';
import { marginPolicy } from '../core/suite/abstention-policy.ts';
import { availableDtypes } from '../core/catalog/transformers-dtype.ts';
import { DEMO_SUITE_ID } from '../core/suite/suite-manifest.ts';
import type { SuiteReceipt } from '../core/suite/suite-receipt.ts';
import type { FetchProgress } from '../worker-api/worker-messages.ts';
import { setDrbState } from '../page/drb-state.ts';
import { threeSignificant } from '../core/text/format-number.ts';
import { BadParamsNote, PageBusyNote, runAsPageRun, usePageRun } from './page-runs.tsx';
import { OverlapNote } from './OverlapNote.tsx';
import { FailureAdvice } from './FailureAdvice.tsx';
import { ResultRegion } from './ResultRegion.tsx';
import { ThreadsSelect } from './ThreadsSelect.tsx';
import { copyJson, downloadJsonBytes, downloadReceipt } from '../page/download.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { loadShippedSuite, runSuite, type SuiteProgress, type SuiteRequest } from '../page/suite-controller.ts';
import type { ControllerJournal } from '../page/run-journal.ts';
import { CancelButton } from './CancelButton.tsx';
import { EpSelect } from './EpSelect.tsx';
import { ModelSelect } from './ModelSelect.tsx';

/** Models a suite can run (rerankers and candidate scorers on an engine with suite runs). */
function suiteModels(catalog: ModelCatalog): CatalogModel[] {
  return catalog.models.filter((m) => canRun(m, 'suite'));
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

interface Result {
  receipt: SuiteReceipt;
  problems: string[];
  predictions: Uint8Array | null;
  predictionsFileName: string;
}

/**
 * @param props.catalog the page's catalog (the panel offers its transformers rerank / score-candidates models)
 * @param props.automation the parsed URL parameters (`autorun=suite`, `suite`, `model`, `ep`, `threads`, `min_margin`)
 * @param props.journal the page's run journal (the run's stages are journaled; its receipt records a pending interruption)
 */
export function SuitePanel(props: { catalog: ModelCatalog; automation: ParsedAutomation; journal?: ControllerJournal }) {
  const models = useMemo(() => suiteModels(props.catalog), [props.catalog]);
  const a = props.automation.settings;
  const requested = a.model !== null ? models.find((m) => m.id === a.model) : undefined;
  const [modelId, setModelId] = useState(requested?.id ?? models[0]?.id ?? '');
  const [ep, setEp] = useState<'wasm' | 'webgpu'>(a.ep);
  const [threads, setThreads] = useState<number | null>(a.threads);
  const [allowFallback, setAllowFallback] = useState(a.allowFallback);
  /** null = the catalog's dtype for the model. */
  const [dtype, setDtype] = useState<string | null>(a.dtype);
  const [threshold, setThreshold] = useState(a.minMargin === null ? '' : String(a.minMargin));
  const [source, setSource] = useState<'demo' | 'files'>('demo');
  const [format, setFormat] = useState<ItemFormat>('generic');
  const [itemsFile, setItemsFile] = useState<File | null>(null);
  const [candidatesFile, setCandidatesFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [phase, setPhase] = useState<string>('idle');
  const [download, setDownload] = useState<FetchProgress | null>(null);
  const [rows, setRows] = useState<SuiteProgress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<Result | null>(null);
  const [cancel, setCancel] = useState<AbortController | null>(null);
  // "Saved as ..." after a download, "Copied." after a copy (it belongs to the result shown, cleared by a new run).
  const [saved, setSaved] = useState<string | null>(null);
  const pageRun = usePageRun();

  const start = async (
    choice: { modelId: string; ep: 'wasm' | 'webgpu'; threads: number | null; allowFallback: boolean; dtype: string | null; threshold: string; suiteId: string | null },
    automated: boolean,
  ) => {
    const ok = await runAsPageRun('suite run', { setBusy, setCancel, setError }, async (signal) => {
      setError(null);
      setResult(null);
      setSaved(null);
      setRows(null);
      setDownload(null);
      if (automated) setDrbState('running');
      try {
        const model = models.find((m) => m.id === choice.modelId);
        if (!model) throw new Error(`Invalid model param: '${choice.modelId}' is not a reranker or candidate scorer on the ${enginesFor('suite').join(' or ')} engine`);
        const minMargin = choice.threshold.trim() === '' ? null : Number(choice.threshold);
        if (minMargin !== null && !(Number.isFinite(minMargin) && minMargin >= 0)) throw new Error(`margin threshold must be a number >= 0, got '${choice.threshold}'`);
        const facts = livePageFacts(a.stageTimeoutMs, props.journal);
        let inputs: Pick<SuiteRequest, 'format' | 'items' | 'candidates' | 'suiteId'>;
        if (choice.suiteId !== null) {
          inputs = { suiteId: choice.suiteId, ...(await loadShippedSuite(facts.pageBaseUrl, choice.suiteId)) };
        } else {
          if (!itemsFile || !candidatesFile) throw new Error('choose both an items file and a candidates file');
          // Read-only: the bytes are copied into memory; the user's files are never written.
          inputs = {
            suiteId: null,
            format,
            items: { bytes: new Uint8Array(await itemsFile.arrayBuffer()), fileName: itemsFile.name },
            candidates: { bytes: new Uint8Array(await candidatesFile.arrayBuffer()), fileName: candidatesFile.name },
          };
        }
        const outcome = await runSuite(
          facts,
          { model, ep: choice.ep, threads: choice.threads, allowFallback: choice.allowFallback, dtype: choice.dtype, policy: marginPolicy(minMargin), ...inputs },
          { onPhase: setPhase, onProgress: setDownload, onRows: setRows },
          signal,
        );
        if (outcome.refused !== null) {
          setPhase('refused');
          setError(outcome.refused);
          return false;
        }
        // Stored on the device before they are shown: a tab killed afterwards loses nothing.
        if (outcome.problems.length === 0) {
          if (outcome.predictions) {
            const rowsJson: unknown = JSON.parse(new TextDecoder().decode(outcome.predictions));
            await storedSession.offerArtifact('predictions', rowsJson);
          }
          await storedSession.offerArtifact('suite-receipt', outcome.receipt);
        }
        setResult(outcome);
        return outcome.problems.length === 0 && outcome.receipt.outcome.status === 'ok';
      } catch (caught) {
        setPhase('failed');
        throw caught;
      }
    });
    if (automated) setDrbState(ok ? 'done' : 'failed');
  };

  useEffect(() => {
    if (!a.autorun.includes('suite') || props.automation.errors.length > 0) return;
    if (a.engine !== null && !ENGINE_CAPABILITIES[a.engine].suite) {
      setError(`Invalid engine param: '${a.engine}', suite runs use the ${enginesFor('suite').join(' or ')} engine`);
      setDrbState('failed');
      return;
    }
    void start(
      { modelId: a.model ?? models[0]?.id ?? '', ep: a.ep, threads: a.threads, allowFallback: a.allowFallback, dtype: a.dtype, threshold: a.minMargin === null ? '' : String(a.minMargin), suiteId: a.suite ?? DEMO_SUITE_ID },
      true,
    );
  }, []);

  const model = models.find((m) => m.id === modelId);
  const receipt = result?.receipt;
  const stats = receipt?.timings.row_latency_stats;
  return (
    <section class="panel" data-testid="suite-panel">
      <h2>Suite run (reranking → predictions for drb score)</h2>
      <div class="controls">
        <label>
          Suite
          <select value={source} disabled={busy} data-testid="suite-source" onChange={(e) => setSource(e.currentTarget.value as 'demo' | 'files')}>
            <option value="demo">demo suite ({DEMO_SUITE_ID}, AJIMEE rows, CC BY-SA 3.0)</option>
            <option value="files">my files…</option>
          </select>
        </label>
        {source === 'files' && (
          <>
            <label>
              Items file
              <input type="file" accept=".json,application/json" disabled={busy} data-testid="suite-items" onChange={(e) => setItemsFile(e.currentTarget.files?.[0] ?? null)} />
            </label>
            <label>
              Items format
              <select value={format} disabled={busy} data-testid="suite-format" onChange={(e) => setFormat(e.currentTarget.value as ItemFormat)}>
                <option value="generic">generic</option>
                <option value="ajimee">ajimee</option>
              </select>
            </label>
            <label>
              Candidates file
              <input type="file" accept=".json,application/json" disabled={busy} data-testid="suite-candidates" onChange={(e) => setCandidatesFile(e.currentTarget.files?.[0] ?? null)} />
            </label>
          </>
        )}
        <ModelSelect
          models={models}
          value={modelId}
          busy={busy}
          testId="suite-model"
          onChange={(id) => {
            setModelId(id);
            setDtype(null);
          }}
        />
        <label>
          dtype
          <select value={dtype ?? ''} disabled={busy} data-testid="suite-dtype" onChange={(e) => setDtype(e.currentTarget.value === '' ? null : e.currentTarget.value)}>
            <option value="">catalog default ({model?.dtype ?? 'fp32'})</option>
            {model &&
              availableDtypes(model).map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
          </select>
        </label>
        <EpSelect value={ep} busy={busy} testId="suite-ep" onChange={setEp} />
        <ThreadsSelect value={threads} busy={busy} testId="suite-threads" onChange={setThreads} />
        <label class="check">
          <input type="checkbox" checked={allowFallback} disabled={busy} data-testid="suite-allow-fallback" onChange={(e) => setAllowFallback(e.currentTarget.checked)} />
          allow fallback to wasm
        </label>
        <label>
          Abstain below margin
          <input type="text" inputMode="decimal" placeholder="never" value={threshold} disabled={busy} data-testid="suite-threshold" onInput={(e) => setThreshold(e.currentTarget.value)} />
        </label>
      </div>
      {model?.kind === 'fixture' && <p class="note">Fixture with random weights: the ranking is a pipeline check, not a quality result.</p>}
      <p class="note">
        Margin = top-1 score minus top-2 score ({model?.task === 'score-candidates' ? 'summed log-probabilities' : 'cross-encoder logits'}). A row below the
        threshold keeps its input (candidates [], reason low_margin).
      </p>
      <div class="buttons">
        <button
          type="button"
          disabled={busy || pageRun !== null || props.automation.errors.length > 0 || !model}
          data-testid="suite-run"
          onClick={() => void start({ modelId, ep, threads, allowFallback, dtype, threshold, suiteId: source === 'demo' ? DEMO_SUITE_ID : null }, false)}
        >
          Run suite
        </button>
        <CancelButton onCancel={cancel ? () => cancel.abort() : null} testId="suite-cancel" />
        <PageBusyNote owner={pageRun} ownBusy={busy} testId="suite-page-busy" />
        <BadParamsNote errors={props.automation.errors} testId="suite-bad-params" />
        <span data-testid="suite-phase" role="status">
          {phase}
        </span>
      </div>
      {download && phase === 'load' && (
        <p>
          Download: {download.bytesDone} / {download.bytesTotal ?? 'unknown'} bytes (file {download.fileIndex + 1} of {download.fileCount})
        </p>
      )}
      {rows && (
        <p data-testid="suite-rows">
          Rows {rows.rowsDone} / {rows.rowsTotal} · elapsed {seconds(rows.elapsedMs)} · {rows.rowsDone === rows.rowsTotal ? 'all rows done' : rows.etaMs === null ? 'estimating time left' : `about ${seconds(rows.etaMs)} left`}
          <progress max={rows.rowsTotal} value={rows.rowsDone} />
        </p>
      )}
      {error && (
        <p class="banner error" data-testid="suite-error">
          {error}
        </p>
      )}
      {result && result.problems.length > 0 && (
        <div class="banner error" data-testid="suite-problems">
          The suite receipt failed validation and is not offered: {result.problems.join('; ')}
        </div>
      )}
      {receipt && result.problems.length === 0 && (
        <ResultRegion resultKey={receipt.receipt_id} class={`receipt ${receipt.outcome.status}`} testId="suite-result" outcome={receipt.outcome.status}>
          <p>
            Outcome: <strong data-testid="suite-outcome">{receipt.outcome.status === 'ok' ? '✓ ok' : '✗ failed'}</strong>
            {receipt.outcome.reason && ` – ${receipt.outcome.reason}`}
          </p>
          <FailureAdvice reason={receipt.outcome.reason} panel="suite" testId="suite-advice" />
          <OverlapNote overlap={receipt.overlap} />
          <p>
            Rows: {receipt.rows.accepted} ranked, {receipt.rows.low_margin} low_margin, {receipt.rows.single_candidate} single_candidate, {receipt.rows.no_candidates}{' '}
            no_candidates (of {receipt.rows.total}).
            {stats && ` Row latency median ${threeSignificant(stats.median)} ms, p95 ${threeSignificant(stats.p95)} ms, min ${threeSignificant(stats.min)} ms, max ${threeSignificant(stats.max)} ms.`}
            {receipt.timings.model_load_ms !== null && ` Model load ${seconds(receipt.timings.model_load_ms)} (kept out of row latencies).`}
          </p>
          <div class="buttons">
            {result.predictions && (
              <button
                type="button"
                data-testid="download-predictions"
                onClick={() => {
                  downloadJsonBytes(result.predictions!, result.predictionsFileName);
                  setSaved(`Saved as ${result.predictionsFileName}.`);
                }}
              >
                Download predictions
              </button>
            )}
            <button
              type="button"
              data-testid="download-suite-receipt"
              onClick={() => setSaved(`Saved as ${downloadReceipt(receipt)}.`)}
            >
              Download suite receipt
            </button>
            {/* Copy beside Download: where downloads are awkward (iOS), the receipt still leaves the page. */}
            <button type="button" data-testid="suite-copy" onClick={async () => setSaved((await copyJson(receipt)) ? 'Copied.' : 'Copy failed: use Download.')}>
              Copy receipt
            </button>
            {saved && (
              <span role="status" data-testid="suite-saved-note">
                {saved}
              </span>
            )}
          </div>
        </ResultRegion>
      )}
    </section>
  );
}
