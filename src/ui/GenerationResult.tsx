/**
 * A generation receipt as the panels show it: its summary numbers (page clock, with the engine's own report beside
 * it), its TTFT and decode-speed strips, and the generation panel's result region with its downloads.
 */
import type { GenerationAnswers } from '../core/generation/generation-answers.ts';
import type { GenerationReceipt, GenerationSample } from '../core/generation/generation-receipt.ts';
import { engineLabel, receiptFileName } from '../core/receipt/receipt-envelope.ts';
import { downloadJson } from '../page/download.ts';
import { FailureAdvice } from './FailureAdvice.tsx';
import { GenerationNextStep } from './GenerationNextStep.tsx';
import { SoftwareAdapterNote } from './ReceiptList.tsx';
import { GenerationChart } from './GenerationChart.tsx';
import { OverlapNote } from './OverlapNote.tsx';
import { ResultRegion } from './ResultRegion.tsx';
import { SaveButtons } from './SaveButtons.tsx';

/** A finished generation run: the receipt, the answers (offered only on request) and the receipt's problems. */
export interface GenerationResult {
  receipt: GenerationReceipt;
  answers: GenerationAnswers;
  problems: string[];
}

function fmt(value: number | null, digits = 1): string {
  return value === null ? '–' : value.toFixed(digits);
}

/** TTFT and decode-speed strips of the ok samples, in run order. */
export function GenerationCharts(props: { samples: GenerationSample[] }) {
  const ok = props.samples.filter((s) => s.outcome === 'ok');
  const ttft = ok.map((s) => s.ttft_ms).filter((v): v is number => v !== null);
  const decode = ok.map((s) => s.decode_tokens_per_s).filter((v): v is number => v !== null);
  return (
    <>
      <GenerationChart values={ttft} label="Time to first token (ms)" unit="ms" testId="gen-ttft-chart" />
      <GenerationChart values={decode} label="Decode speed (tokens/s)" unit="tokens/s" testId="gen-decode-chart" />
    </>
  );
}

/** The summary numbers of a generation receipt (page clock, with the engine's own report beside it when given). */
export function GenerationSummaryTable(props: { receipt: GenerationReceipt }) {
  const { summary, cold, plan } = props.receipt;
  const er = summary.engine_reported;
  return (
    <table class="kv cards" data-testid="generation-summary">
      <tbody>
        <tr>
          <th>TTFT median / p95 (ms)</th>
          <td>
            {fmt(summary.ttft_ms_median)} / {fmt(summary.ttft_ms_p95)}
          </td>
        </tr>
        <tr>
          <th>Decode median (tokens/s)</th>
          <td>{fmt(summary.decode_tokens_per_s_median)}</td>
        </tr>
        <tr>
          <th>Prefill median (tokens/s)</th>
          <td>{fmt(summary.prefill_tokens_per_s_median)}</td>
        </tr>
        <tr>
          <th>End-to-end median (ms)</th>
          <td>{fmt(summary.e2e_ms_median)}</td>
        </tr>
        <tr>
          <th>Cold load · cold TTFT (ms, not in warm stats)</th>
          <td>
            {fmt(cold.load_ms)} · {fmt(cold.warmup_ttft_ms)}
          </td>
        </tr>
        <tr>
          <th>Prompts ok / planned</th>
          <td>
            {summary.ok_samples} / {summary.measured_planned}
          </td>
        </tr>
        <tr>
          <th>
            Failures · truncated at {plan.max_new_tokens} tokens
            {plan.max_new_tokens_overridden ? ' (limit overridden)' : ''}
          </th>
          <td>
            {summary.failures} · {summary.truncations}
          </td>
        </tr>
        <tr>
          <th>Sustained speed (last 5 / first 5)</th>
          <td>{fmt(summary.sustained_speed_ratio, 3)}</td>
        </tr>
        <tr>
          <th>Seeds</th>
          <td>{plan.seed_control === 'seeded' ? plan.seeds!.join(', ') : 'no seed control'}</td>
        </tr>
        {er && (
          <tr>
            <th>Engine's own report: TTFT · decode · e2e (max |clock − engine| TTFT, e2e)</th>
            <td>
              {fmt(er.ttft_ms_median)} ms · {fmt(er.decode_tokens_per_s_median)} tok/s · {fmt(er.e2e_ms_median)} ms (
              {fmt(er.max_abs_ttft_diff_ms)}, {fmt(er.max_abs_e2e_diff_ms)} ms)
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

/**
 * The generation panel's result region (it takes the focus when it appears).
 * @param props.result the receipt, the answers and the receipt's problems (a receipt with problems is never offered)
 * @param props.alternative ", for example <model id>": a model of the panel's list that can run here (the advice
 *   under a failure names it)
 */
export function GenerationResultRegion(props: { result: GenerationResult; alternative?: string }) {
  const { receipt, answers, problems } = props.result;
  const status = receipt.outcome.status;
  const saveAnswers = (say: (note: string) => void) => {
    const name = receiptFileName(receipt, 'answers');
    downloadJson(answers, name);
    say(`Saved as ${name}.`);
  };
  return (
    <ResultRegion
      resultKey={receipt.receipt_id}
      class={`receipt ${status}`}
      testId="generation-receipt"
      outcome={status}
    >
      <h3>
        {engineLabel(receipt.engine)} · {receipt.model.id} ·{' '}
        {receipt.route.completed_ep ?? `requested ${receipt.route.requested_ep}`} ·{' '}
        <strong data-testid="gen-outcome">{status === 'ok' ? '✓ ok' : '✗ failed'}</strong>
      </h3>
      {receipt.outcome.reason && (
        <p class="error" data-testid="gen-failure-reason">
          Failed: {receipt.outcome.reason}
        </p>
      )}
      <FailureAdvice
        reason={receipt.outcome.reason}
        panel="generation"
        testId="gen-advice"
        alternative={props.alternative}
      />
      <SoftwareAdapterNote
        completedEp={receipt.route.completed_ep}
        capabilities={receipt.capabilities}
        testId="gen-software-adapter"
      />
      <OverlapNote overlap={receipt.overlap} />
      <GenerationSummaryTable receipt={receipt} />
      <GenerationCharts samples={receipt.samples} />
      {problems.length === 0 && (
        <SaveButtons
          receipt={receipt}
          label="Download generation receipt"
          ids={{ download: 'gen-download', copy: 'gen-copy', note: 'gen-saved-note' }}
          // A failed run has no answers worth scoring: only its receipt is offered.
          after={(say) =>
            status === 'ok' && (
              <button
                type="button"
                data-testid="gen-download-answers"
                title="The model's answers, for scoring on your own machine. Not part of the receipt."
                onClick={() => saveAnswers(say)}
              >
                Download answers (separate, holds the generated text)
              </button>
            )
          }
        />
      )}
      {problems.length === 0 && <GenerationNextStep receipt={receipt} answersOffered={status === 'ok'} />}
    </ResultRegion>
  );
}
