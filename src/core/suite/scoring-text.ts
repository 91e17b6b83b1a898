/**
 * The exact text each engine scores, versioned so a suite receipt can say which one was used.
 * Changing either template means a new id: scores made with different texts are not comparable.
 */

/** Id of the cross-encoder pairing: (query, candidate) with query = context + input. */
export const RERANK_PAIR_TEMPLATE_ID = 'drb.rerank-pair.v1';

/** Id of the causal-LM scoring prompt below. */
export const SCORE_PROMPT_TEMPLATE_ID = 'drb.score-prompt.v1';

/**
 * The first text of a cross-encoder pair: the left context followed by the input, separated by one space when there
 * is a context (so a reading never fuses with the last word of the context).
 * @param context the row's left context ('' for none)
 * @param input the row's input (reading or typo text)
 */
export function rerankQuery(context: string, input: string): string {
  return context === '' ? input : `${context} ${input}`;
}

/**
 * The prompt a causal LM continues with each candidate; the candidate's score is the sum of its tokens'
 * log-probabilities after this prompt. Japanese labels because the target data is Japanese kana-kanji conversion.
 * @param context the row's left context ('' for none)
 * @param input the row's input
 */
export function scorePrompt(context: string, input: string): string {
  return `文脈: ${context}\n読み: ${input}\n変換: `;
}
