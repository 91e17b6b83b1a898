/**
 * Protocol mode: the tester's field kit for the physical device procedure. It shows the target, what to do before the
 * next step, one large button for that step, progress against the protocol's minimums, the session stored on this
 * device (it survives a killed tab), the session sheet, and one bundle to hand back (share sheet, download or copy).
 * The developer panels are one tap away; this view shares their run controller code, progress display and buttons.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ModelCatalog } from '../core/catalog/catalog.ts';
import type { AutomationSettings } from '../core/automation/automation.ts';
import { parseProtocol, protocolCatalogProblems, protocolPath, type Protocol } from '../core/field/field-protocol.ts';
import { isProtocolReceipt, nextStep, progressLine, protocolProgress } from '../core/field/field-progress.ts';
import { artifactFileName } from '../core/receipt/receipt-envelope.ts';
import { ReceiptBundle, type SessionSheet } from '../core/field/receipt-bundle.ts';
import type { Capabilities, DeviceReceipt, ModelStatus } from '../core/receipt/receipt.ts';
import { firstIssueLine } from '../core/text/zod-issues.ts';
import { copyJson, downloadJson } from '../page/download.ts';
import { setDrbState } from '../page/drb-state.ts';
import { pageRuns } from '../page/run-gate.ts';
import { refusedLine, usePageRun } from './page-runs.tsx';
import { FailureAdvice } from './FailureAdvice.tsx';
import { UnreadableStored } from './ReceiptList.tsx';
import { livePageFacts } from '../page/page-facts.ts';
import { RunController } from '../page/run-controller.ts';
import type { ControllerJournal } from '../page/run-journal.ts';
import { pageSession } from '../page/session.ts';
import { SESSION_DB } from '../page/session-store.ts';
import { canShareFiles, shareJson } from '../page/share.ts';
import { CANNOT_CLEAR, clearSiteModels, type ClearReport } from '../page/site-storage.ts';
import { CapabilityPanel } from './CapabilityPanel.tsx';
import { NO_DOWNLOADS, RunProgress, withProgress, type Downloads } from './RunProgress.tsx';
import { SessionSheetForm } from './SessionSheetForm.tsx';

/** The short capability summary protocol mode shows (the full lists sit behind a disclosure). */
function CapabilitySummary(props: { capabilities: Capabilities | null }) {
  const c = props.capabilities;
  if (!c) return <p aria-busy="true">Checking this browser…</p>;
  const gpu = c.webgpu;
  const adapter = gpu.adapter_granted
    ? `yes${gpu.adapter_info ? ` (${[gpu.adapter_info.vendor, gpu.adapter_info.architecture].filter(Boolean).join(' ') || 'no details'})` : ''}${gpu.is_fallback_adapter ? ', a software adapter' : ''}`
    : 'no';
  return (
    <section class="panel" data-testid="capability-summary">
      <h2>This browser</h2>
      <ul class="facts">
        <li>WebGPU adapter: {adapter}</li>
        <li>Cross-origin isolated: {c.cross_origin_isolated ? 'yes' : 'no (one WASM thread only)'}</li>
        <li>Threads (hardware concurrency): {c.hardware_concurrency ?? 'not exposed'}</li>
        <li>Memory API: {c.js_heap || c.device_memory_gb !== null ? 'present' : 'none (as on Safari: never estimated)'}</li>
      </ul>
      <details>
        <summary>Everything the probe found</summary>
        <CapabilityPanel capabilities={c} />
      </details>
    </section>
  );
}

/** The cold procedure: what the page does itself and what only the tester can do. */
function ColdSteps(props: { onClear(): void; clearing: boolean; cleared: ClearReport | null }) {
  return (
    <div data-testid="cold-steps">
      <p>Before a cold run (the page must start as if for the first time):</p>
      <ol class="steps">
        <li>Close every other tab of this site.</li>
        <li>
          Clear what the page can clear:{' '}
          <button type="button" class="secondary" data-testid="clear-models" disabled={props.clearing} onClick={props.onClear}>
            Clear this site's stored models
          </button>{' '}
          (Cache API, IndexedDB and the private file system of this site; your receipts are kept).
        </li>
        <li>
          What no page can clear: {CANNOT_CLEAR.join('; ')}. Clearing website data in the browser's settings also deletes the
          receipts stored here: export them first.
        </li>
        <li>Quit the browser and open this page again, then tap Cold run.</li>
      </ol>
      {props.cleared && (
        <p role="status" data-testid="clear-report">
          Cleared: {props.cleared.cleared.join('; ') || 'nothing'}.{props.cleared.failed.length > 0 ? ` Not cleared: ${props.cleared.failed.join('; ')}.` : ''}
        </p>
      )}
    </div>
  );
}

/** When a receipt was made, for the session list (local time, minutes). */
function shortTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** The stored session: counts per target and each receipt with its time and outcome, with export and delete. */
function StoredSession(props: { receipts: unknown[] }) {
  const device = props.receipts.filter((r): r is DeviceReceipt => (r as DeviceReceipt).schema === 'drb.device-receipt.v2');
  const targets = new Map<string, number>();
  for (const r of device) {
    const key = `${r.model.id} · ${r.route.requested_ep}${r.route.threads_requested === null ? '' : ` ${r.route.threads_requested}t`}`;
    targets.set(key, (targets.get(key) ?? 0) + 1);
  }
  const others = props.receipts.length - device.length;
  return (
    <div data-testid="stored-session">
      <p>
        Stored on this device: {props.receipts.length} receipt(s)
        {targets.size > 0 ? ` (${[...targets].map(([k, n]) => `${k}: ${n}`).join('; ')}${others > 0 ? `; ${others} of other kinds` : ''})` : ''}.
      </p>
      {device.length > 0 && (
        <details>
          <summary>Every stored receipt</summary>
          <ol class="stored" reversed>
            {[...device].reverse().map((r) => (
              <li key={r.receipt_id} data-testid="stored-receipt" data-kind={r.run.kind} data-outcome={r.outcome.status}>
                {shortTime(r.created_at)} · {r.run.kind} · <strong>{r.outcome.status === 'ok' ? 'ok' : '✗ failed'}</strong>
                {r.run.kind === 'cold' && r.outcome.status === 'ok' && (r.run.cold_from_cache === false ? ' · truly cold' : r.run.cold_from_cache ? ' · served from a cache: not counted' : ' · cache state unknown: not counted')}
                {r.run.previous_run_interrupted ? ' · after an interrupted run' : ''}
              </li>
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}

/**
 * The protocol view.
 * @param props.catalog the page's catalog
 * @param props.automation the page's URL settings (`protocol` picks the target)
 * @param props.capabilities the capability probe (null while it runs)
 * @param props.journal the page's run journal
 * @param props.onPanels switches to the developer panels
 */
export function ProtocolView(props: {
  catalog: ModelCatalog;
  automation: Readonly<AutomationSettings>;
  protocolId: string;
  capabilities: Capabilities | null;
  journal: ControllerJournal;
  onPanels(): void;
}) {
  const { catalog, automation: a } = props;
  const file = protocolPath(props.protocolId);
  const [protocol, setProtocol] = useState<Protocol | null>(null);
  const [protocolError, setProtocolError] = useState<string | null>(null);
  // Every receipt of the session, read back from the device once at load, then grown by each run here (the field
  // kit's sessions are a protocol's few dozen runs; the bundle is built from these within the tester's tap).
  const [receipts, setReceipts] = useState<unknown[]>([]);
  const [sessionReady, setSessionReady] = useState(false);
  const [sheet, setSheet] = useState<SessionSheet | null>(null);
  const [status, setStatus] = useState<ModelStatus>('idle');
  const [progress, setProgress] = useState<Downloads>(NO_DOWNLOADS);
  const [samples, setSamples] = useState(0);
  const [busy, setBusy] = useState(false);
  const [coldRanThisLoad, setColdRanThisLoad] = useState(false);
  const [last, setLast] = useState<DeviceReceipt | null>(null);
  const [runProblem, setRunProblem] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [clearing, setClearing] = useState(false);
  const [cleared, setCleared] = useState<ClearReport | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const controller = useMemo(() => new RunController(livePageFacts(a.stageTimeoutMs, props.journal)), []);
  const pageRun = usePageRun();

  useEffect(() => {
    // Only a deletion empties the session; every receipt made here is added by `run`.
    const off = pageSession.subscribe(() => {
      if (pageSession.counts.receipts === 0) setReceipts([]);
    });
    void pageSession.ready.then(async () => {
      setReceipts(await pageSession.allReceipts());
      setSheet(pageSession.sheet);
      setSessionReady(true);
    });
    // The protocol file is read at run time, so a bad file says so on the page (one line: file and field).
    void (async () => {
      try {
        const response = await fetch(new URL(file, livePageFacts(null).pageBaseUrl), { cache: 'no-store' });
        if (!response.ok) throw new Error(`answered HTTP ${response.status}`);
        let value: unknown;
        try {
          value = await response.json();
        } catch {
          throw new Error('(document): not valid JSON');
        }
        const parsed = parseProtocol(value, file, props.protocolId);
        if (!parsed.ok) return setProtocolError(parsed.line);
        const problems = protocolCatalogProblems(parsed.protocol, catalog, file);
        if (problems.length > 0) return setProtocolError(problems[0]);
        pageSession.protocol = parsed.protocol;
        setProtocol(parsed.protocol);
      } catch (error) {
        setProtocolError(`${file}: ${(error as Error).message}`);
      }
    })();
    return off;
  }, []);
  useEffect(() => {
    if (protocolError !== null) setDrbState('failed');
    else if (protocol !== null) setDrbState('idle');
  }, [protocol, protocolError]);

  const counts = protocol ? protocolProgress(receipts, protocol) : null;
  const step = counts ? nextStep(counts, coldRanThisLoad) : null;

  const run = async (kind: 'cold' | 'warm') => {
    if (!protocol) return;
    const model = catalog.models.find((m) => m.id === protocol.model)!;
    const input = catalog.inputs.find((i) => i.id === protocol.input)!;
    // One run at a time, page-wide: a second run would share the device's cores with this one.
    const claim = pageRuns.claim(`${kind} run`);
    if (claim === null) {
      setRunProblem(refusedLine(pageRuns.owner));
      return;
    }
    setBusy(true);
    try {
      setRunProblem(null);
      setDrbState('running');
      setProgress(NO_DOWNLOADS);
      setSamples(0);
      if (kind === 'cold') setColdRanThisLoad(true);
      const { receipt, problems } = await controller.run(
        { kind, model, input, ep: protocol.ep, threads: protocol.threads, allowFallback: false, warmRuns: protocol.warm_runs },
        { onStatus: setStatus, onProgress: (p) => setProgress((prev) => withProgress(prev, p)), onSample: (i) => setSamples(i + 1) },
      );
      if (problems.length > 0) {
        setRunProblem(problems[0]);
        setDrbState('failed');
      } else {
        // Stored on the device before it is shown.
        await pageSession.offerReceipt(receipt);
        setReceipts((prev) => [...prev, receipt]);
        setLast(receipt);
        setDrbState(receipt.outcome.status === 'ok' ? 'done' : 'failed');
      }
    } finally {
      claim.release();
    }
    setBusy(false);
  };

  const bundleName = () =>
    artifactFileName({
      model: protocol?.model ?? 'session',
      route: protocol ? `${protocol.ep}${protocol.threads === null ? '' : `-${protocol.threads}`}` : 'any',
      kind: 'bundle',
      createdAt: new Date().toISOString(),
    });
  const checkedBundle = (): ReceiptBundle | null => {
    const checked = ReceiptBundle.safeParse(pageSession.bundleOf(receipts));
    if (checked.success) return checked.data;
    setNote(`The bundle cannot be made: ${firstIssueLine(checked.error)}`);
    return null;
  };
  const onShare = async () => {
    const bundle = checkedBundle();
    if (!bundle) return;
    const outcome = await shareJson(bundle, bundleName());
    setNote(outcome === 'shared' ? 'Shared.' : outcome === 'downloaded' ? `Saved as ${bundleName()}.` : outcome === 'cancelled' ? 'Sharing cancelled.' : 'Sharing failed: use Download or Copy.');
  };

  const target = protocol && catalog.models.find((m) => m.id === protocol.model);
  return (
    <main class="protocol" data-testid="protocol-view">
      <header>
        <h1>Device Receipts Bench: field kit</h1>
        <p class="sub">
          Runs stay on this phone until you share them. Nothing is sent anywhere.{' '}
          <button type="button" class="link" data-testid="to-panels" disabled={busy} onClick={props.onPanels}>
            Developer panels
          </button>
        </p>
      </header>
      {protocolError && (
        <p class="error" role="alert" data-testid="protocol-error">
          {protocolError}
        </p>
      )}
      {pageSession.store.failure && (
        <p class="error" role="alert" data-testid="storage-failure">
          {pageSession.store.failure}
        </p>
      )}
      <UnreadableStored view="protocol" />
      {protocol && counts && (
        <section class="panel" data-testid="protocol-target">
          <h2>{protocol.title}</h2>
          <p class="facts-line">
            {protocol.model} · {protocol.engine} · {protocol.ep}
            {protocol.threads === null ? ' (default threads)' : ` · ${protocol.threads} thread${protocol.threads === 1 ? '' : 's'}`} · input {protocol.input} ·{' '}
            {protocol.warm_runs} timed runs per warm receipt
          </p>
          {target?.kind === 'fixture' && <p class="note">A fixture with random weights: it checks the procedure and the device, not a real model.</p>}
          <p class="progress-line" data-testid="protocol-progress" aria-live="polite">
            {progressLine(counts)}
          </p>
          {step === 'cold' && <ColdSteps clearing={clearing} cleared={cleared} onClear={async () => {
            setClearing(true);
            setCleared(await clearSiteModels([SESSION_DB]));
            setClearing(false);
          }} />}
          {step === 'warm' && <p data-testid="warm-steps">Next: a warm receipt on this same page (keep the screen on and the page in front).</p>}
          {step === 'done' && <p data-testid="done-steps">Both minimums are met. Fill in the session sheet and share the bundle below.</p>}
          {step !== 'done' && (
            <button type="button" class="big" data-testid="protocol-next" disabled={busy || pageRun !== null || !sessionReady} onClick={() => void run(step === 'cold' ? 'cold' : 'warm')}>
              {busy ? 'Running…' : step === 'cold' ? 'Cold run' : `Warm run (${protocol.warm_runs} timed runs)`}
            </button>
          )}
          {step !== 'done' && !busy && (
            <p class="small">
              Or:{' '}
              <button type="button" class="link" data-testid="protocol-other" disabled={pageRun !== null || !sessionReady} onClick={() => void run(step === 'cold' ? 'warm' : 'cold')}>
                {step === 'cold' ? 'a warm run instead' : 'a cold run now (after the cold steps)'}
              </button>
            </p>
          )}
        </section>
      )}
      {(busy || last) && <RunProgress status={status} downloads={progress} samplesDone={samples} samplesTotal={busy && protocol ? protocol.warm_runs : null} />}
      {runProblem && <p class="error" role="alert">{runProblem}</p>}
      {last && !busy && (
        <p class={last.outcome.status === 'ok' ? 'ok' : 'error'} role="status" data-testid="last-outcome">
          Last run: {last.run.kind}, {last.outcome.status === 'ok' ? 'ok' : `failed: ${last.outcome.reason ?? ''}`}
          {last.run.kind === 'cold' && last.outcome.status === 'ok'
            ? last.run.cold_from_cache === false
              ? ' (truly cold: every file came over the network)'
              : last.run.cold_from_cache
                ? ' (served from a cache: not counted as cold; do the cold steps first)'
                : ' (the cache state of a file is unknown: not counted as cold)'
            : ''}
          {last.run.wake_lock !== 'held' ? ` · screen wake lock: ${last.run.wake_lock}` : ''}
        </p>
      )}
      {last && !busy && <FailureAdvice reason={last.outcome.reason} panel="protocol" testId="protocol-advice" />}
      <section class="panel" data-testid="session">
        <h2>Your session</h2>
        {sessionReady ? <StoredSession receipts={receipts} /> : <p>Loading the stored session…</p>}
        {sheet && (
          <SessionSheetForm
            sheet={sheet}
            onChange={(next) => {
              setSheet(next);
              void pageSession.setSheet(next);
            }}
          />
        )}
        <div class="buttons">
          <button type="button" class="big" data-testid="export-share" disabled={!sessionReady || receipts.length === 0} onClick={() => void onShare()}>
            {canShareFiles() ? 'Share the bundle' : 'Download the bundle'}
          </button>
          {canShareFiles() && <button type="button" data-testid="export-download" disabled={!sessionReady || receipts.length === 0} onClick={() => {
            const bundle = checkedBundle();
            if (bundle) {
              downloadJson(bundle, bundleName());
              setNote(`Saved as ${bundleName()}.`);
            }
          }}>
            Download
          </button>}
          <button type="button" data-testid="export-copy" disabled={!sessionReady || receipts.length === 0} onClick={async () => {
            const bundle = checkedBundle();
            if (bundle) setNote((await copyJson(bundle)) ? 'Copied the bundle.' : 'Copy failed: use Download.');
          }}>
            Copy
          </button>
          {!confirmDelete ? (
            <button type="button" class="secondary" data-testid="delete-session" disabled={busy || (receipts.length === 0 && pageSession.store.unreadable.length === 0)} onClick={() => setConfirmDelete(true)}>
              Delete the stored session
            </button>
          ) : (
            <button type="button" class="danger" data-testid="delete-confirm" onClick={async () => {
              await pageSession.clear();
              setConfirmDelete(false);
              setNote('The stored session was deleted.');
            }}>
              Delete {receipts.length} receipt(s){pageSession.store.unreadable.length > 0 ? ` and ${pageSession.store.unreadable.length} unreadable item(s)` : ''} from this device
            </button>
          )}
        </div>
        {note && <p role="status" data-testid="export-note">{note}</p>}
        {receipts.some((r) => !isProtocolReceipt(r, protocol ?? ({} as Protocol))) && protocol && (
          <p class="small">The bundle holds every stored receipt, also those of other targets.</p>
        )}
      </section>
      <CapabilitySummary capabilities={props.capabilities} />
      <footer>
        <small>
          device-receipts-bench {__DRB_VERSION__} · commit {__DRB_COMMIT__ ?? 'unknown'}
        </small>
      </footer>
    </main>
  );
}
