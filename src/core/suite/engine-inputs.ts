/**
 * The task-shaped inputs the transformers.js engine accepts through the engine interface's `EngineInput.data`.
 * Parsed at the worker boundary with `safeParse`, so a page bug shows as one clear message, not a runtime crash.
 */
import { z } from 'zod';

/** Cross-encoder rerank: score each (query, candidate) pair. */
export const RerankInput = z.strictObject({
  task: z.literal('rerank'),
  query: z.string(),
  candidates: z.array(z.string()).min(1, 'needs at least one candidate'),
});
export type RerankInput = z.infer<typeof RerankInput>;

/** Causal-LM scoring: sum of the candidate's token log-probabilities (plus end of sequence) after the prompt. */
export const ScoreCandidatesInput = z.strictObject({
  task: z.literal('score-candidates'),
  prompt: z.string(),
  candidates: z.array(z.string()).min(1, 'needs at least one candidate'),
});
export type ScoreCandidatesInput = z.infer<typeof ScoreCandidatesInput>;

/** Either scoring input. */
export const ScoringInput = z.discriminatedUnion('task', [RerankInput, ScoreCandidatesInput]);
export type ScoringInput = z.infer<typeof ScoringInput>;

/**
 * Log-softmax of one row of logits at one index, in float64: logit[index] - log(sum(exp(logits - max))).
 * Written by hand (no tensor library in the page's pure core) and stable for large logits by subtracting the max.
 * @param logits the vocabulary logits of one position (any numeric array view)
 * @param offset where the position's row starts inside `logits`
 * @param vocabSize the row length
 * @param index the token whose log-probability is wanted
 */
export function logSoftmaxAt(logits: ArrayLike<number>, offset: number, vocabSize: number, index: number): number {
  let max = Number.NEGATIVE_INFINITY;
  for (let v = 0; v < vocabSize; v++) if (logits[offset + v] > max) max = logits[offset + v];
  let sum = 0;
  for (let v = 0; v < vocabSize; v++) sum += Math.exp(logits[offset + v] - max);
  return logits[offset + index] - max - Math.log(sum);
}
