/**
 * Protocol mode: the tester's field kit for the physical device procedure. It shows the target, what to do before the
 * next step, one large button for that step, progress against the protocol's minimums, the session stored on this
 * device (it survives a killed tab), the tester's sheet, and one bundle to hand back (share sheet, download or copy).
 * The developer panels are one tap away; this view shares their run controller, panel skeleton and progress display.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ParsedAutomation } from '../core/automation/automation.ts';
import { protocolRunProblem, type AutorunPlan, type ColdOrWarm } from '../core/automation/autorun-plan.ts';
import type { ModelCatalog } from '../core/catalog/catalog.ts';
import { protocolProgress } from '../core/field/field-progress.ts';
import type { Capabilities, DeviceReceipt, ModelStatus } from '../core/receipt/receipt.ts';
import { setDrbState } from '../page/drb-state.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { RunController } from '../page/run-controller.ts';
import type { ControllerJournal } from '../page/run-journal.ts';
import { storedSession, storeThenShow } from '../page/stored-session.ts';
import { PageFooter } from './PageFooter.tsx';
import { usePanelRun } from './panel-run.ts';
import { CapabilitySummary, LastOutcome } from './ProtocolParts.tsx';
import { ProtocolTarget } from './ProtocolTarget.tsx';
import { useFieldProtocol, useStoredReceipts } from './protocol-state.ts';
import { UnreadableStored } from './ReceiptList.tsx';
import { NO_DOWNLOADS, RunProgress, withProgress, type Downloads } from './RunProgress.tsx';
import { SessionExport } from './SessionExport.tsx';

/**
 * The protocol view.
 * @param props.catalog the page's catalog
 * @param props.automation the parsed URL (its bad parameters are shown here, and its run settings held to the
 *   protocol's when it asks for a run)
 * @param props.autorun what the URL's `autorun` runs here: the protocol's steps, or the line refusing it
 * @param props.protocolId the field protocol to follow (the URL's `protocol`, else the default)
 * @param props.capabilities the capability probe (null while it runs)
 * @param props.journal the page's run journal
 * @param props.onPanels switches to the developer panels
 */
export function ProtocolView(props: {
  catalog: ModelCatalog;
  automation: ParsedAutomation;
  autorun: Pick<AutorunPlan, 'protocolRuns' | 'refusal'>;
  protocolId: string;
  capabilities: Capabilities | null;
  journal: ControllerJournal;
  onPanels(): void;
}) {
  const { catalog, automation, autorun } = props;
  const { protocol, error: protocolError } = useFieldProtocol(props.protocolId, catalog);
  const stored = useStoredReceipts();
  const [status, setStatus] = useState<ModelStatus>('idle');
  const [downloads, setDownloads] = useState<Downloads>(NO_DOWNLOADS);
  const [samples, setSamples] = useState(0);
  const [coldRanThisLoad, setColdRanThisLoad] = useState(false);
  const controller = useMemo(
    () => new RunController(livePageFacts(automation.settings.stageTimeoutMs, props.journal)),
    [],
  );
  useEffect(() => {
    if (protocolError !== null) setDrbState('failed');
  }, [protocolError]);

  const counts = protocol ? protocolProgress(stored.receipts, protocol) : null;

  /** Runs the protocol's steps (a tap runs one; `autorun=cold,warm` two), each stored as it is made. */
  const steps = (kinds: readonly ColdOrWarm[]): Promise<boolean> => {
    if (!protocol) return Promise.resolve(false);
    const model = catalog.models.find((m) => m.id === protocol.model)!;
    const input = catalog.inputs.find((i) => i.id === protocol.input)!;
    const { ep, threads, warm_runs: warmRuns } = protocol;
    const name = kinds.length === 1 ? `${kinds[0]} run` : `${kinds.join(' + ')} runs`;
    return run.start(name, async ({ signal, show }) => {
      let allOk = true;
      for (const kind of kinds) {
        if (signal.aborted) break;
        setDownloads(NO_DOWNLOADS);
        setSamples(0);
        if (kind === 'cold') setColdRanThisLoad(true);
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
        if (receipt.outcome.status !== 'ok') allOk = false;
      }
      return allOk;
    });
  };

  // The last run's receipt is the run's result; a tapped run sets the automation state, as an automated one does.
  // The URL's autorun waits for the protocol and the stored session (a refusal needs neither); `idle` once both are
  // there and nothing was asked.
  const requested = autorun.protocolRuns.length > 0 || autorun.refusal !== null;
  const run = usePanelRun<DeviceReceipt>({
    paramErrors: automation.errors,
    tapsSetState: true,
    ready: autorun.refusal !== null || (protocol !== null && stored.ready),
    check: () => autorun.refusal ?? (requested && protocol ? protocolRunProblem(protocol, automation) : null),
    autorun: requested ? () => steps(autorun.protocolRuns) : null,
    onReady: () => setDrbState('idle'),
  });

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
      {automation.errors.map((line) => (
        <p key={line} class="error" role="alert" data-testid="param-error">
          {line}
        </p>
      ))}
      <UnreadableStored view="protocol" />
      {protocol && counts && (
        <ProtocolTarget
          protocol={protocol}
          catalog={catalog}
          counts={counts}
          coldRanThisLoad={coldRanThisLoad}
          busy={busy}
          disabled={idle}
          onRun={(kind) => void steps([kind])}
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
        <p class="error" role="alert" data-testid="protocol-run-error">
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
