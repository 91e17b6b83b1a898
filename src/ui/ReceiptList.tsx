import { useState } from 'preact/hooks';
import { type ChartScale, chartScale } from '../core/stats/chart-scale.ts';
import { bundleFileName } from '../core/field/receipt-bundle.ts';
import { engineLabel, receiptFileName } from '../core/receipt/receipt-envelope.ts';
import type { DeviceReceipt } from '../core/receipt/receipt.ts';
import { softwareAdapterNote } from '../core/receipt/software-adapter.ts';
import { downloadJson } from '../page/download.ts';
import { storedSession } from '../page/stored-session.ts';
import { ColdTimeline } from './ColdTimeline.tsx';
import { OverlapNote } from './OverlapNote.tsx';
import { FailureAdvice } from './FailureAdvice.tsx';
import { NextStep } from './NextStep.tsx';
import { SaveButtons } from './SaveButtons.tsx';
import { WarmChart } from './WarmChart.tsx';

/** The warm chart, for the Run panel's live chart: it comes with this chunk, after the first paint. */
export { WarmChart };
import { useFocusOnMount } from './focus.ts';

/**
 * The line under a WebGPU number measured on a software (fallback) adapter, naming it; nothing otherwise.
 * @param props.completedEp the execution provider the run completed on
 * @param props.capabilities the receipt's capabilities (null: the receipt recorded none)
 * @param props.testId the line's data-testid
 */
export function SoftwareAdapterNote(props: {
  completedEp: string | null;
  capabilities: Pick<DeviceReceipt['capabilities'], 'webgpu'> | null;
  testId: string;
}) {
  const note = props.capabilities === null ? null : softwareAdapterNote(props.completedEp, props.capabilities);
  return note === null ? null : (
    <p class="warn" data-testid={props.testId}>
      {note}
    </p>
  );
}

/**
 * One value axis for warm charts listed together (the warm samples of every receipt given): heights compare across
 * them, on a log axis when they span more than a decade.
 * @param receipts the receipts listed together (cold ones and failed ones add nothing)
 */
export function sharedWarmScale(receipts: readonly DeviceReceipt[]): ChartScale {
  return chartScale(receipts.filter((r) => r.run.kind === 'warm').flatMap((r) => r.timings.warm_samples_ms));
}

function ReceiptItem(props: { receipt: DeviceReceipt; index: number; warmScale: ChartScale }) {
  const { receipt } = props;
  // A new receipt takes the focus: the Run button that had it is disabled during the run.
  const ref = useFocusOnMount<HTMLLIElement>();
  const route = receipt.route;
  return (
    <li
      ref={ref}
      tabIndex={-1}
      class={`receipt ${receipt.outcome.status}`}
      data-testid="receipt"
      data-kind={receipt.run.kind}
      data-outcome={receipt.outcome.status}
    >
      <h3>
        {receipt.run.kind} · {engineLabel(receipt.engine)} · {receipt.model.id} · requested {route.requested_ep}
        {route.completed_ep ? `, ran on ${route.completed_ep}` : ''}
        {route.threads_effective !== null
          ? ` (${route.threads_effective} thread${route.threads_effective === 1 ? '' : 's'})`
          : ''}{' '}
        · <strong data-testid="outcome">{receipt.outcome.status === 'ok' ? '✓ ok' : '✗ failed'}</strong>
      </h3>
      {route.fallback_reason && <p class="warn">Fallback: {route.fallback_reason}</p>}
      <SoftwareAdapterNote
        completedEp={route.completed_ep}
        capabilities={receipt.capabilities}
        testId="software-adapter-note"
      />
      <OverlapNote overlap={receipt.run.overlap} />
      {receipt.outcome.reason && (
        <p class="error" data-testid="failure-reason">
          Failed{receipt.outcome.failed_stage ? ` at ${receipt.outcome.failed_stage}` : ''}: {receipt.outcome.reason}
        </p>
      )}
      <FailureAdvice reason={receipt.outcome.reason} panel="run" testId="failure-advice" />
      {receipt.run.kind === 'cold' && <ColdTimeline receipt={receipt} />}
      {receipt.run.kind === 'warm' && <WarmChart samplesMs={receipt.timings.warm_samples_ms} scale={props.warmScale} />}
      <SaveButtons
        receipt={receipt}
        label={`Download ${receiptFileName(receipt)}`}
        ids={{ download: 'download', copy: 'copy', note: 'saved-note' }}
      />
      <NextStep testId="receipt-next" command={`npx drb receipts summarize ${receiptFileName(receipt)}`}>
        {receipt.outcome.status === 'ok'
          ? 'download the receipt and summarise it with the others of this device (a folder of receipts works too):'
          : 'the failure and its reason are recorded; download the receipt and check it with the others:'}
      </NextStep>
    </li>
  );
}

/** Downloads the whole session (every receipt on the device, the earlier ones included) as one bundle. */
function DownloadSession() {
  const [note, setNote] = useState<string | null>(null);
  return (
    <p class="buttons">
      <button
        type="button"
        data-testid="download-session"
        onClick={async () => {
          const bundle = await storedSession.bundle();
          const name = bundleFileName(null, bundle.created_at);
          downloadJson(bundle, name);
          setNote(`Saved ${bundle.receipts.length} receipt(s) as ${name}.`);
        }}
      >
        Download every receipt of this session
      </button>
      {note && (
        <span role="status" data-testid="download-session-note">
          {note}
        </span>
      )}
    </p>
  );
}

/**
 * Stored items the session could not read back (left on the device, never deleted), one line each, with what the
 * tester can do about them; null when none.
 * @param props.view where the notice stands: protocol mode has the export and delete buttons; the developer panels
 *   send the tester there
 */
export function UnreadableStored(props: { view: 'protocol' | 'panels' }) {
  const lines = storedSession.db.unreadable;
  if (lines.length === 0) return null;
  const one = lines.length === 1;
  return (
    <div class="error" role="alert" data-testid="stored-unreadable">
      <p>
        {lines.length} item{one ? '' : 's'} stored on this device could not be read back, so no export includes{' '}
        {one ? 'it' : 'them'}; {one ? 'it is' : 'they are'} left as stored:
      </p>
      <ul>
        {lines.slice(0, 5).map((line) => (
          <li key={line}>{line}</li>
        ))}
        {lines.length > 5 && <li>and {lines.length - 5} more</li>}
      </ul>
      <p data-testid="stored-unreadable-next">
        {props.view === 'protocol'
          ? `What to do: export the bundle first (it holds every item that could be read) and send the line${one ? '' : 's'} above with it. "Delete the stored session" then deletes ${one ? 'this item' : 'these items'} too.`
          : `What to do: download the session (it holds every item that could be read) and send the line${one ? '' : 's'} above with it. ${one ? 'The item stays' : 'They stay'} on this device until the stored session is deleted in protocol mode.`}
      </p>
    </div>
  );
}

/**
 * This page's latest receipts (at most RunPanel.tsx's `RECEIPTS_LISTED`), newest first, each with its chart and download / copy
 * buttons; the earlier ones are counted, and the whole session downloads as one bundle.
 * @param props.receipts the latest receipts, oldest first
 * @param props.made how many receipts this page made in all
 */
export function ReceiptList(props: { receipts: DeviceReceipt[]; made: number }) {
  if (props.receipts.length === 0) return null;
  // The warm charts listed here share one value axis (19.6 ms and 1161 ms must not look the same).
  const warmScale = sharedWarmScale(props.receipts);
  const earlier = props.made - props.receipts.length;
  return (
    <section class="panel">
      <h2>Receipts</h2>
      {earlier > 0 && (
        <p class="note" data-testid="earlier-receipts">
          {earlier} earlier receipt{earlier === 1 ? '' : 's'} of this page {earlier === 1 ? 'is' : 'are'} not listed
          here
          {storedSession.db.failure === null
            ? ': saved in this session on this device.'
            : ': storage is off, so they stay in this page only.'}
        </p>
      )}
      {earlier > 0 && <DownloadSession />}
      <UnreadableStored view="panels" />
      <ol class="receipts" reversed start={props.made}>
        {props.receipts
          .map((receipt, index) => (
            <ReceiptItem key={receipt.receipt_id} receipt={receipt} index={index} warmScale={warmScale} />
          ))
          .reverse()}
      </ol>
    </section>
  );
}
