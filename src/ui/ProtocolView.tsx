/**
 * Protocol mode: the tester's field kit for the physical device procedure. It shows the target, what to do before the
 * next step, one large button for that step, progress against the protocol's minimums, the session stored on this
 * device (it survives a killed tab), the tester's sheet, and one bundle to hand back (share sheet, download or copy).
 * The developer panels are one tap away; this view shares their run controller, panel skeleton and progress display.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { AutomationSettings } from '../core/automation/automation.ts';
import type { ModelCatalog } from '../core/catalog/catalog.ts';
import { protocolProgress } from '../core/field/field-progress.ts';
import type { Capabilities, DeviceReceipt, ModelStatus } from '../core/receipt/receipt.ts';
import { setDrbState } from '../page/drb-state.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { RunController } from '../page/run-controller.ts';
import type { ControllerJournal } from '../page/run-journal.ts';
import { storedSession, storeThenShow } from '../page/stored-session.ts';
import { PageFooter } from './PageFooter.tsx';
import { usePanelRun } from './panel-run.tsx';
import { CapabilitySummary, LastOutcome } from './ProtocolParts.tsx';
import { ProtocolTarget } from './ProtocolTarget.tsx';
import { useFieldProtocol, useStoredReceipts } from './protocol-state.ts';
import { UnreadableStored } from './ReceiptList.tsx';
import { NO_DOWNLOADS, RunProgress, withProgress, type Downloads } from './RunProgress.tsx';
import { SessionExport } from './SessionExport.tsx';

/**
 * The protocol view.
 * @param props.catalog the page's catalog
 * @param props.automation the page's URL settings
 * @param props.protocolId the field protocol to follow (the URL's `protocol`, else the default)
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
  const { protocol, error: protocolError } = useFieldProtocol(props.protocolId, catalog);
  const stored = useStoredReceipts();
  const [status, setStatus] = useState<ModelStatus>('idle');
  const [downloads, setDownloads] = useState<Downloads>(NO_DOWNLOADS);
  const [samples, setSamples] = useState(0);
  const [coldRanThisLoad, setColdRanThisLoad] = useState(false);
  const controller = useMemo(() => new RunController(livePageFacts(a.stageTimeoutMs, props.journal)), []);
  // The last run's receipt is the run's result; a tapped run sets the automation state, as an automated one does.
  const run = usePanelRun<DeviceReceipt>({ tapsSetState: true });

  useEffect(() => {
    if (protocolError !== null) setDrbState('failed');
    else if (protocol !== null) setDrbState('idle');
  }, [protocol, protocolError]);

  const counts = protocol ? protocolProgress(stored.receipts, protocol) : null;

  const start = (kind: 'cold' | 'warm') => {
    if (!protocol) return;
    const model = catalog.models.find((m) => m.id === protocol.model)!;
    const input = catalog.inputs.find((i) => i.id === protocol.input)!;
    void run.start(`${kind} run`, async ({ signal, show }) => {
      setDownloads(NO_DOWNLOADS);
      setSamples(0);
      if (kind === 'cold') setColdRanThisLoad(true);
      const { ep, threads, warm_runs: warmRuns } = protocol;
      const { receipt, problems } = await controller.run(
        { kind, model, input, ep, threads, allowFallback: false, warmRuns },
        {
          onStatus: setStatus,
          onProgress: (p) => setDownloads((prev) => withProgress(prev, p)),
          onSample: (i) => setSamples(i + 1),
        },
        signal,
      );
      if (problems.length > 0) throw new Error(problems[0]);
      await storeThenShow([{ kind: 'device-receipt', data: receipt }], () => {
        stored.add(receipt);
        show(receipt);
      });
      return receipt.outcome.status === 'ok';
    });
  };

  const busy = run.busy;
  const last = run.result;
  const idle = !run.canStart || !stored.ready;
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
      {storedSession.db.failure && (
        <p class="error" role="alert" data-testid="storage-failure">
          {storedSession.db.failure}
        </p>
      )}
      <UnreadableStored view="protocol" />
      {protocol && counts && (
        <ProtocolTarget
          protocol={protocol}
          catalog={catalog}
          counts={counts}
          coldRanThisLoad={coldRanThisLoad}
          busy={busy}
          disabled={idle}
          onRun={start}
        />
      )}
      {(busy || last) && (
        <RunProgress
          status={status}
          downloads={downloads}
          samplesDone={samples}
          samplesTotal={busy && protocol ? protocol.warm_runs : null}
        />
      )}
      {run.error && (
        <p class="error" role="alert">
          {run.error}
        </p>
      )}
      {last && !busy && <LastOutcome receipt={last} />}
      <SessionExport stored={stored} protocol={protocol} busy={busy} />
      <CapabilitySummary capabilities={props.capabilities} />
      <PageFooter />
    </main>
  );
}
