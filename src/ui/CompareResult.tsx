/**
 * What the comparison panel shows besides its controls: what a comparison does, and its result (the outcome, the
 * tolerance used, the verdict lines, why the rounds stopped, the device's state, the per-route table and the
 * receipt's Download and Copy buttons, only for a receipt that passed its own checks).
 */
import { runtimeBuildNote, type ComparisonReceipt } from '../core/comparison/comparison-receipt.ts';
import { comparisonVerdicts } from '../core/comparison/comparison-verdict.ts';
import { engineLabel, receiptFileName } from '../core/receipt/receipt-envelope.ts';
import { threeSignificant } from '../core/text/format-number.ts';
import { CompareTable } from './CompareTable.tsx';
import { DeviceStateNote, StoppingNote } from './DeviceStateNote.tsx';
import { FailureAdvice } from './FailureAdvice.tsx';
import { OverlapNote } from './OverlapNote.tsx';
import { ResultRegion } from './ResultRegion.tsx';
import { NextStep } from './NextStep.tsx';
import { SaveButtons } from './SaveButtons.tsx';

/** A finished comparison: the receipt, and its schema or invariant problems (empty for one fit to offer). */
export interface ComparisonResult {
  receipt: ComparisonReceipt;
  problems: string[];
}

/**
 * What a comparison does, above the panel's controls.
 * @param props.suiteId the suite whose candidate rows rerankers and candidate scorers score
 * @param props.seed the schedule's seed
 * @param props.tolerance the URL's agreement tolerance (null: the default for the model's score kind and dtype)
 */
export function CompareIntro(props: { suiteId: string; seed: number; tolerance: number | null }) {
  return (
    <p class="note">
      The same model and input on each route (a reranker or candidate scorer scores the first candidate rows of the
      suite {props.suiteId}, and every row's candidate order must agree), one worker per route, timed in a shuffled
      interleaved order (seed {props.seed}) so drift hits every route alike. A route whose scores differ from the
      baseline by more than{' '}
      {props.tolerance === null
        ? 'the tolerance for its kind of scores and its dtype (the receipt says which, and why)'
        : threeSignificant(props.tolerance)}{' '}
      or order them differently is invalid and never ranked. A route whose 95% interval of the time ratio contains 1 is
      no clear difference: a tie, not a win.
    </p>
  );
}

/**
 * The comparison's result region (it takes the focus when it appears).
 * @param props.result the receipt and its problems (a receipt with problems is shown, never offered)
 */
export function CompareResult(props: { result: ComparisonResult }) {
  const { receipt, problems } = props.result;
  const verdicts = comparisonVerdicts(receipt);
  const invalidCount = receipt.routes.filter((r) => !r.valid).length;
  const tolerance = receipt.tolerance;
  const basis =
    tolerance.basis?.source === 'default'
      ? `, the default for ${tolerance.basis.score_kind}: ${tolerance.basis.reason}`
      : ', as set';
  const buildNote = runtimeBuildNote(receipt.routes);
  const status = receipt.outcome.status;
  return (
    <ResultRegion
      resultKey={receipt.receipt_id}
      class={`receipt ${status}`}
      testId="comparison-receipt"
      outcome={status}
    >
      <h3>
        {engineLabel(receipt.engine)} · {receipt.model.id} · {receipt.input.id} · {receipt.schedule.rounds} rounds ·{' '}
        <strong data-testid="cmp-outcome">{status === 'ok' ? '✓ ok' : '✗ failed'}</strong>
        {invalidCount > 0 && (
          <span data-testid="cmp-invalid-count">
            {' '}
            · {invalidCount} of {receipt.routes.length} routes invalid
          </span>
        )}
      </h3>
      {receipt.outcome.reason && <p class="error">Failed: {receipt.outcome.reason}</p>}
      <FailureAdvice
        reason={receipt.outcome.reason ?? receipt.routes.find((r) => !r.valid)?.invalid_reason ?? null}
        panel="comparison"
        testId="cmp-advice"
      />
      <OverlapNote overlap={receipt.overlap} />
      <p class="note" data-testid="cmp-tolerance">
        Tolerance {threeSignificant(tolerance.max_abs_diff)} ({receipt.model.dtype ?? 'fp32'}
        {basis})
      </p>
      <div data-testid="cmp-verdict">
        {verdicts.lead.map((line) => (
          <p key={line} class="verdict">
            {line}.
          </p>
        ))}
      </div>
      <StoppingNote stopping={receipt.stopping} testId="comparison-stopping" />
      <DeviceStateNote state={receipt.device_state} testId="comparison-device-state" />
      <CompareTable receipt={receipt} verdicts={verdicts.routes} />
      {buildNote !== null && (
        <p class="note" data-testid="cmp-runtime-note">
          Runtime: {buildNote}.
        </p>
      )}
      {problems.length === 0 && (
        <SaveButtons
          receipt={receipt}
          label="Download comparison receipt"
          ids={{ download: 'cmp-download', copy: 'cmp-copy', note: 'cmp-saved-note' }}
        />
      )}
      {problems.length === 0 && (
        <NextStep
          testId="cmp-next"
          command={`npx drb receipts report ${receiptFileName(receipt)} --out comparison-report`}
        >
          {status === 'ok'
            ? 'download the receipt and turn it into a report with its figures (open comparison-report/index.html):'
            : 'change what the lines above name and press Run comparison again; the receipt records this failure:'}
        </NextStep>
      )}
    </ResultRegion>
  );
}
