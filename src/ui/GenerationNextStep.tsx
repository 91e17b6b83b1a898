/**
 * The line that ends a generation result: score its answers (the answer-case set), or summarise its receipt, with the
 * command and the file name the panel saves under.
 */
import type { GenerationReceipt } from '../core/generation/generation-receipt.ts';
import { receiptFileName } from '../core/receipt/receipt-envelope.ts';
import { NextStep } from './NextStep.tsx';

/** The prompt set whose answers `drb score-answers` scores (public/prompts/). */
const ANSWER_CASES = 'drb-answer-cases-ja-en-v1';

/**
 * What to do next with a generation run: score its answers (the answer-case set), or summarise its receipt.
 * @param props.receipt the generation receipt
 * @param props.answersOffered whether the Download answers button is there
 */
export function GenerationNextStep(props: { receipt: GenerationReceipt; answersOffered: boolean }) {
  const { receipt } = props;
  if (receipt.outcome.status !== 'ok') {
    return (
      <NextStep testId="gen-next">
        the run failed, so there are no answers to score; change what the lines above name and press Run generation
        again. The receipt records the failure.
      </NextStep>
    );
  }
  if (props.answersOffered && receipt.prompt_set.id === ANSWER_CASES) {
    return (
      <NextStep
        testId="gen-next"
        command={`npx drb score-answers --cases public/prompts/${ANSWER_CASES}.json --answers ${receiptFileName(receipt, 'answers')}`}
      >
        download the answers and score them against the case set:
      </NextStep>
    );
  }
  return (
    <NextStep testId="gen-next" command={`npx drb receipts summarize ${receiptFileName(receipt)}`}>
      download the receipt and summarise it with the other generation receipts of this device:
    </NextStep>
  );
}
