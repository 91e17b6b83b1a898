import { useState } from 'preact/hooks';
import { artifactFileName, receiptNameParts } from '../core/receipt-envelope.ts';
import type { DeviceReceipt } from '../core/receipt.ts';
import { copyJson, downloadJson } from '../page/download.ts';
import { ColdTimeline } from './ColdTimeline.tsx';
import { OverlapNote } from './OverlapNote.tsx';
import { FailureAdvice } from './FailureAdvice.tsx';
import { WarmChart } from './WarmChart.tsx';
import { useFocusOnMount } from './focus.ts';

function ReceiptItem(props: { receipt: DeviceReceipt; index: number }) {
  const { receipt } = props;
  const [copied, setCopied] = useState<string | null>(null);
  // A new receipt takes the focus: the Run button that had it is disabled during the run.
  const ref = useFocusOnMount<HTMLLIElement>();
  const name = artifactFileName(receiptNameParts(receipt));
  const route = receipt.route;
  return (
    <li ref={ref} tabIndex={-1} class={`receipt ${receipt.outcome.status}`} data-testid="receipt" data-kind={receipt.run.kind} data-outcome={receipt.outcome.status}>
      <h3>
        {receipt.run.kind} · {receipt.engine.name} {receipt.engine.version} · {receipt.model.id} · requested {route.requested_ep}
        {route.completed_ep ? `, ran on ${route.completed_ep}` : ''}
        {route.threads_effective !== null ? ` (${route.threads_effective} thread${route.threads_effective === 1 ? '' : 's'})` : ''} ·{' '}
        <strong data-testid="outcome">{receipt.outcome.status === 'ok' ? '✓ ok' : '✗ failed'}</strong>
      </h3>
      {route.fallback_reason && <p class="warn">Fallback: {route.fallback_reason}</p>}
      <OverlapNote overlap={receipt.run.overlap} />
      {receipt.outcome.reason && (
        <p class="error" data-testid="failure-reason">
          Failed{receipt.outcome.failed_stage ? ` at ${receipt.outcome.failed_stage}` : ''}: {receipt.outcome.reason}
        </p>
      )}
      <FailureAdvice reason={receipt.outcome.reason} panel="run" testId="failure-advice" />
      {receipt.run.kind === 'cold' && <ColdTimeline receipt={receipt} />}
      {receipt.run.kind === 'warm' && <WarmChart samplesMs={receipt.timings.warm_samples_ms} />}
      <div class="buttons">
        <button type="button" data-testid="download" onClick={() => {
            downloadJson(receipt, name);
            setCopied(`Saved as ${name}.`);
          }}>
          Download {name}
        </button>
        <button
          type="button"
          data-testid="copy"
          onClick={async () => setCopied((await copyJson(receipt)) ? 'Copied.' : 'Copy failed: use Download.')}
        >
          Copy receipt
        </button>
        {copied && (
          <span role="status" data-testid="saved-note">
            {copied}
          </span>
        )}
      </div>
    </li>
  );
}

/** Every receipt produced on this page, newest first, each with its chart and download / copy buttons. */
export function ReceiptList(props: { receipts: DeviceReceipt[] }) {
  if (props.receipts.length === 0) return null;
  return (
    <section class="panel">
      <h2>Receipts</h2>
      <ol class="receipts" reversed>
        {props.receipts
          .map((receipt, index) => <ReceiptItem key={receipt.receipt_id} receipt={receipt} index={index} />)
          .reverse()}
      </ol>
    </section>
  );
}
