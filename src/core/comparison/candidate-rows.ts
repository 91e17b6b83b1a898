/**
 * The candidate rows a side-by-side comparison scores with a reranker or a candidate scorer: the first rows of a
 * suite that have candidates, turned into the same engine inputs a suite run sends (same versioned text templates),
 * so "same candidate order" in a comparison is about real candidates, row by row.
 */
import type { RerankInput, ScoreCandidatesInput } from '../suite/engine-inputs.ts';
import { RERANK_PAIR_TEMPLATE_ID, rerankQuery, SCORE_PROMPT_TEMPLATE_ID, scorePrompt } from '../suite/scoring-text.ts';
import type { SuiteRow } from '../suite/suite-plan.ts';
import type { ScoreGroup } from './comparison-statistics.ts';

/** One row as the engine gets it (id = the item id). */
export interface ComparisonRow {
  id: string;
  data: RerankInput | ScoreCandidatesInput;
}

/** The rows a comparison scores, with what its receipt records about them. */
export interface ComparisonRows {
  rows: ComparisonRow[];
  /** Row ids and candidate counts in order: how a route's concatenated scores split into rows. */
  groups: ScoreGroup[];
  /** drb.rerank-pair.v1 or drb.score-prompt.v1. */
  textTemplate: string;
  /** The receipt's `input.id`: `<suite id>:first-<n>-rows`. */
  inputId: string;
}

/**
 * Picks the first `count` rows (items order) that have at least one candidate and builds their engine inputs.
 * @param suiteId the suite the rows come from (named in the input id)
 * @param rows the suite's rows, as `planSuite` joined them
 * @param task the model's task: decides the text template (cross-encoder pair, or causal-LM prompt)
 * @param count how many rows to take (fewer when the suite has fewer rows with candidates)
 * @throws RangeError when count is not a positive integer or no row has a candidate
 */
export function comparisonRows(suiteId: string, rows: readonly SuiteRow[], task: 'rerank' | 'score-candidates', count: number): ComparisonRows {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`the row count must be a positive integer, got ${count}`);
  const picked = rows.filter((row) => row.candidates.length > 0).slice(0, count);
  if (picked.length === 0) throw new RangeError(`suite ${suiteId} has no row with candidates to compare on`);
  return {
    rows: picked.map((row) => ({
      id: row.id,
      data:
        task === 'rerank'
          ? { task, query: rerankQuery(row.context, row.input), candidates: [...row.candidates] }
          : { task, prompt: scorePrompt(row.context, row.input), candidates: [...row.candidates] },
    })),
    groups: picked.map((row) => ({ id: row.id, count: row.candidates.length })),
    textTemplate: task === 'rerank' ? RERANK_PAIR_TEMPLATE_ID : SCORE_PROMPT_TEMPLATE_ID,
    inputId: `${suiteId}:first-${picked.length}-rows`,
  };
}

/**
 * The exact bytes whose SHA-256 a candidate-rows comparison records as `input.sha256`: the UTF-8 JSON of the engine
 * inputs in row order. Two comparisons with the same hash scored the same texts with the same template.
 * @param rows the rows from `comparisonRows`
 */
export function comparisonRowsBytes(rows: readonly ComparisonRow[]): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(rows.map((row) => row.data)));
}
