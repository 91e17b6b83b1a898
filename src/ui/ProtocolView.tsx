/**
 * Protocol mode: the tester's field kit for the physical device procedure. Its first screen is the next action (the
 * card: ProtocolTarget.tsx); a cold run records what the page measures about its start and the tester's two taps
 * (the browser quit and reopened, the site's data cleared) as attested, apart; before the cold step's site-data clear
 * the page hands off what is not in a file yet, and after it takes the files back (SessionExport.tsx). Every URL
 * parameter protocol mode cannot take is refused with one line. This view shares the developer panels' run
 * controller, panel skeleton and progress display.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ParsedAutomation } from '../core/automation/automation.ts';
import type { AutorunPlan } from '../core/automation/autorun-plan.ts';
import type { ModelCatalog } from '../core/catalog/catalog.ts';
import { nextStep, protocolProgress } from '../core/field/field-progress.ts';
import type { Capabilities } from '../core/receipt/receipt.ts';
import { setDrbState } from '../page/drb-state.ts';
import { runsStartedInPage } from '../page/page-start.ts';
import { pageRuns } from '../page/run-gate.ts';
import type { ControllerJournal } from '../page/run-journal.ts';
import { storedSession } from '../page/stored-session.ts';
import { PageFooter } from './PageFooter.tsx';
import { CapabilitySummary, RunningCard } from './ProtocolParts.tsx';
import { ProtocolTarget } from './ProtocolTarget.tsx';
import { useProtocolRun } from './protocol-run.ts';
import { useFieldProtocol, useParamProblems, useStoredReceipts } from './protocol-state.ts';
import { UnreadableStored } from './ReceiptList.tsx';
import { SessionExport } from './SessionExport.tsx';

/**
 * The protocol view.
 * @param props.catalog the page's catalog
 * @param props.automation the parsed URL (its bad parameters are shown here; a run setting it gives must be the
 *   protocol's own)
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
  const paramProblems = useParamProblems(automation, props.protocolId, protocol);
  const stored = useStoredReceipts();
  const [otherTabs, setOtherTabs] = useState<number | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const refused = paramProblems.length > 0 || protocolError !== null;

  useEffect(() => pageRuns.followOtherTabs(setOtherTabs), []);
  useEffect(() => {
    if (refused) setDrbState('failed');
  }, [refused]);

  const counts = protocol ? protocolProgress(stored.receipts, protocol) : null;
  // A cold run is fresh only as the page load's first run (of any panel).
  const step = counts ? nextStep(counts, runsStartedInPage() > 0) : null;

  const { run, start, said, toggleSaid, running, stage, status, downloads, samples, cooling } = useProtocolRun({
    catalog,
    protocol,
    stored,
    automation,
    autorun,
    journal: props.journal,
    paramProblems,
  });

  const runningCard = running && protocol && (
    <RunningCard
      kind={running}
      warmRuns={protocol.warm_runs}
      stage={stage}
      status={status}
      downloads={downloads}
      samples={samples}
      cooling={cooling}
      onCancel={run.cancel}
    />
  );
  return (
    <main class="protocol" data-testid="protocol-view">
      <header class="compact">
        <h1>Field kit</h1>
        <button type="button" class="link" data-testid="to-panels" disabled={run.busy} onClick={props.onPanels}>
          Developer panels
        </button>
      </header>
      {paramProblems.length > 0 && (
        <ul class="error" role="alert" data-testid="param-problems">
          {paramProblems.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
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
      {stored.ready && stored.receipts.length === 0 && !refused && (
        <p class="small" data-testid="take-back-hint">
          Cleared this site's data after handing receipts off? Take the saved files back below ("Take back saved files")
          first: the tally then goes on.
        </p>
      )}
      {protocol && counts && step && !refused && (
        <ProtocolTarget
          protocol={protocol}
          catalog={catalog}
          counts={counts}
          receipts={stored.receipts}
          step={step}
          running={runningCard || null}
          otherTabs={otherTabs}
          said={said}
          onSay={toggleSaid}
          disabled={!run.canStart || !stored.ready}
          onRun={start}
          last={run.result}
          error={run.error}
          onNote={setNote}
        />
      )}
      <SessionExport
        stored={stored}
        protocol={protocol}
        busy={run.busy}
        done={step === 'done'}
        note={note}
        onNote={setNote}
      />
      <CapabilitySummary capabilities={props.capabilities} />
      <PageFooter />
    </main>
  );
}
