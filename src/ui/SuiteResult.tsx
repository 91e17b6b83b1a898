/**
 * A suite run's progress and result: its outcome, the row counts and row latencies, and the downloads (the
 * predictions artifact for `drb score`, the suite receipt, and a copy of the receipt).
 */
import { threeSignificant } from '../core/text/format-number.ts';
import type { SuiteReceipt } from '../core/suite/suite-receipt.ts';
import type { FetchProgress } from '../worker-api/worker-messages.ts';
import { downloadJsonBytes } from '../page/download.ts';
import type { SuiteProgress } from '../page/suite-controller.ts';
import { FailureAdvice } from './FailureAdvice.tsx';
import { NextStep } from './NextStep.tsx';
import { SoftwareAdapterNote } from './ReceiptList.tsx';
import { OverlapNote } from './OverlapNote.tsx';
import { ResultRegion } from './ResultRegion.tsx';
import { SaveButtons } from './SaveButtons.tsx';

/** A finished suite run: the receipt, its problems, and the predictions artifact's exact bytes and file name. */
export interface SuiteResult {
  receipt: SuiteReceipt;
  problems: string[];
  predictions: Uint8Array | null;
  predictionsFileName: string;
}

/** Milliseconds as seconds for people. */
function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * How far a running suite is: the model's download while it loads, then rows done / total, elapsed time and time left.
 * @param props.phase the run's phase
 * @param props.download the model download's latest progress
 * @param props.rows the row loop's latest progress
 */
export function SuiteProgressLines(props: {
  phase: string;
  download: FetchProgress | null;
  rows: SuiteProgress | null;
}) {
  const { download, rows } = props;
  const phase = props.phase;
  return (
    <>
      {download && phase === 'load' && (
        <p>
          Download: {download.bytesDone} / {download.bytesTotal ?? 'unknown'} bytes (file {download.fileIndex + 1} of{' '}
          {download.fileCount})
        </p>
      )}
      {rows && (
        <p data-testid="suite-rows">
          Rows {rows.rowsDone} / {rows.rowsTotal} · elapsed {seconds(rows.elapsedMs)} ·{' '}
          {rows.rowsDone === rows.rowsTotal
            ? 'all rows done'
            : rows.etaMs === null
              ? 'estimating time left'
              : `about ${seconds(rows.etaMs)} left`}
          <progress max={rows.rowsTotal} value={rows.rowsDone} />
        </p>
      )}
    </>
  );
}

/**
 * What to do with a suite run's predictions: the `drb score` command that scores the downloaded file against the
 * suite's items (the shipped suite's own path, or the items file the tester picked).
 * @param props.receipt the suite receipt
 * @param props.predictionsFileName the name the predictions download under (null: the run made none)
 */
export function SuiteNextStep(props: { receipt: SuiteReceipt; predictionsFileName: string | null }) {
  const { receipt, predictionsFileName } = props;
  if (predictionsFileName === null) {
    return (
      <NextStep testId="suite-next">
        the run made no predictions to score; change what the lines above name and press Run suite again.
      </NextStep>
    );
  }
  const items = receipt.suite.id === null ? '<your items file>' : `public/suites/${receipt.suite.id}/items.json`;
  return (
    <NextStep
      testId="suite-next"
      command={`npx drb score --items ${items} --format ${receipt.suite.format} --predictions ${predictionsFileName}`}
    >
      download the predictions and score them on your machine (nothing is uploaded):
    </NextStep>
  );
}

/**
 * The suite panel's result region (it takes the focus when it appears); only a receipt that passed its own checks.
 * @param props.result the receipt, with its predictions
 */
export function SuiteResultRegion(props: { result: SuiteResult }) {
  const { receipt, predictions, predictionsFileName } = props.result;
  const stats = receipt.timings.row_latency_stats;
  const rows = receipt.rows;
  const status = receipt.outcome.status;
  return (
    <ResultRegion resultKey={receipt.receipt_id} class={`receipt ${status}`} testId="suite-result" outcome={status}>
      <p>
        Outcome: <strong data-testid="suite-outcome">{status === 'ok' ? '✓ ok' : '✗ failed'}</strong>
        {receipt.outcome.reason && ` – ${receipt.outcome.reason}`}
      </p>
      <FailureAdvice reason={receipt.outcome.reason} panel="suite" testId="suite-advice" />
      <OverlapNote overlap={receipt.overlap} />
      <SoftwareAdapterNote
        completedEp={receipt.route.completed_ep}
        capabilities={receipt.capabilities}
        testId="suite-software-adapter"
      />
      <p>
        Rows: {rows.accepted} ranked, {rows.low_margin} low_margin, {rows.single_candidate} single_candidate,{' '}
        {rows.no_candidates} no_candidates (of {rows.total}).
        {stats &&
          ` Row latency median ${threeSignificant(stats.median)} ms, p95 ${threeSignificant(stats.p95)} ms, min ${threeSignificant(stats.min)} ms, max ${threeSignificant(stats.max)} ms.`}
        {receipt.timings.model_load_ms !== null &&
          ` Model load ${seconds(receipt.timings.model_load_ms)} (kept out of row latencies).`}
      </p>
      {/* Copy beside Download: where downloads are awkward (iOS), the receipt still leaves the page. */}
      <SaveButtons
        receipt={receipt}
        label="Download suite receipt"
        ids={{ download: 'download-suite-receipt', copy: 'suite-copy', note: 'suite-saved-note' }}
        before={(say) =>
          predictions && (
            <button
              type="button"
              data-testid="download-predictions"
              onClick={() => {
                downloadJsonBytes(predictions, predictionsFileName);
                say(`Saved as ${predictionsFileName}.`);
              }}
            >
              Download predictions
            </button>
          )
        }
      />
      <SuiteNextStep receipt={receipt} predictionsFileName={predictions ? predictionsFileName : null} />
    </ResultRegion>
  );
}
