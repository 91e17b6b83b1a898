/**
 * The sweep panel's result: the outcome, the crossover in one sentence (or "no crossover in the range"), the device's
 * state, each size's ratio with its interval, verdict and why its rounds stopped, and the receipt's Download and Copy
 * buttons (only for a receipt that passed its own checks).
 */
import { crossoverSentence } from '../core/comparison/sweep-statistics.ts';
import type { SweepReceipt } from '../core/comparison/sweep-receipt.ts';
import { engineLabel } from '../core/receipt/receipt-envelope.ts';
import { threeSignificant } from '../core/text/format-number.ts';
import { DeviceStateNote, StoppingNote } from './DeviceStateNote.tsx';
import { ResultRegion } from './ResultRegion.tsx';
import { SaveButtons } from './SaveButtons.tsx';

/** The sweep table's columns; each cell carries its label, shown above the value when the table is cards. */
const SWEEP_COLUMNS = ['size', 'ratio [95% interval]', 'verdict', 'why it stopped'] as const;
/** A finished sweep: the receipt, and its schema or invariant problems (empty for one fit to offer). */
export interface SweepResultData {
  receipt: SweepReceipt;
  problems: string[];
}

/**
 * The sweep's result region (it takes the focus when it appears).
 * @param props.result the receipt and its problems (a receipt with problems is shown, never offered)
 */
export function SweepResult(props: { result: SweepResultData }) {
  const { receipt, problems } = props.result;
  const other = receipt.routes.find((r) => r.id !== receipt.baseline_route_id)!.id;
  const status = receipt.outcome.status;
  return (
    <ResultRegion resultKey={receipt.receipt_id} class={`receipt ${status}`} testId="sweep-receipt" outcome={status}>
      <h3>
        {engineLabel(receipt.engine)} · {receipt.model.id} · {receipt.routes.map((r) => r.id).join(' vs ')} ·{' '}
        <strong>{status === 'ok' ? '✓ ok' : '✗ failed'}</strong>
      </h3>
      {receipt.outcome.reason && <p class="error">Failed: {receipt.outcome.reason}</p>}
      {problems.length > 0 && (
        <p class="error" data-testid="sweep-problems">
          The receipt failed its own checks and is not offered: {problems.join('; ')}
        </p>
      )}
      <p class="verdict" data-testid="sweep-crossover">
        {crossoverSentence(receipt)}
      </p>
      <DeviceStateNote state={receipt.device_state} testId="sweep-device-state" />
      <div class="table-wrap">
        <table class="kv cards" data-testid="sweep-table">
          <caption>
            Time ratio of {other} to {receipt.baseline_route_id} per size (below 1: {other} is faster)
          </caption>
          <thead>
            <tr>
              {SWEEP_COLUMNS.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {receipt.points.map((p) => (
              <tr key={p.size} class={p.valid ? '' : 'invalid'}>
                <td data-label={SWEEP_COLUMNS[0]}>{p.size}</td>
                <td data-label={SWEEP_COLUMNS[1]}>
                  {p.ratio_to_baseline === null || p.interval === null
                    ? `invalid: ${p.invalid_reason ?? ''}`
                    : `${threeSignificant(p.ratio_to_baseline)}x [${threeSignificant(p.interval.low)}, ${threeSignificant(p.interval.high)}]`}
                </td>
                <td data-label={SWEEP_COLUMNS[2]}>
                  {p.verdict === 'no-clear-difference' ? 'no clear difference (tie)' : (p.verdict ?? '–')}
                </td>
                <td data-label={SWEEP_COLUMNS[3]}>
                  <StoppingNote stopping={p.stopping} testId={`sweep-stopping-${p.size}`} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {problems.length === 0 && (
        <SaveButtons
          receipt={receipt}
          label="Download sweep receipt"
          ids={{ download: 'sweep-download', copy: 'sweep-copy', note: 'sweep-saved-note' }}
        />
      )}
    </ResultRegion>
  );
}
