/**
 * The arithmetic of causal-LM candidate scoring, kept pure so it is tested in Node against the real runtime:
 * batching (prompt + candidate rows, right-padded, chunked under a logits memory budget) and the log-probability sums.
 */
import { logSoftmaxAt } from './engine-inputs.ts';

/** One model call: which candidates it holds, its padded length, and its int64 inputs ([rows, length], row-major). */
export interface ScoringChunk {
  /** Indices into the continuations, in order. */
  rows: number[];
  length: number;
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
}

/**
 * How many rows of `length` positions one model call may hold so that its float32 logits ([rows, length, vocab])
 * stay under `budgetBytes`: at least one.
 * @param length the longest row's positions
 * @param vocabSize the logits' last dimension
 * @param budgetBytes the largest logits tensor one call may produce
 */
export function rowsPerCall(length: number, vocabSize: number, budgetBytes: number): number {
  return Math.max(1, Math.floor(budgetBytes / (length * vocabSize * 4)));
}

/**
 * Splits the candidates into model calls whose float32 logits ([rows, length, vocab]) stay under `budgetBytes`
 * (at least one row per call), each right-padded to its own longest row. Right padding keeps every row's prompt at the
 * same positions, and a causal model never looks at later (padding) positions.
 * @param prompt the prompt's token ids (with the model's special tokens)
 * @param continuations each candidate's token ids (plus end of sequence, when the model has one)
 * @param padId the id written into padding positions (masked out)
 * @param vocabSize the logits' last dimension, for the budget
 * @param budgetBytes the largest logits tensor one call may produce
 */
export function planScoringChunks(
  prompt: readonly number[],
  continuations: readonly (readonly number[])[],
  padId: number,
  vocabSize: number,
  budgetBytes: number,
): ScoringChunk[] {
  const perChunk = rowsPerCall(
    prompt.length + Math.max(0, ...continuations.map((c) => c.length)),
    vocabSize,
    budgetBytes,
  );
  const chunks: ScoringChunk[] = [];
  for (let first = 0; first < continuations.length; first += perChunk) {
    const rows = Array.from({ length: Math.min(perChunk, continuations.length - first) }, (_, i) => first + i);
    const length = prompt.length + Math.max(0, ...rows.map((r) => continuations[r].length));
    const inputIds = new BigInt64Array(rows.length * length);
    const attentionMask = new BigInt64Array(rows.length * length);
    rows.forEach((r, row) => {
      const sequence = [...prompt, ...continuations[r]];
      for (let t = 0; t < length; t++) {
        inputIds[row * length + t] = BigInt(t < sequence.length ? sequence[t] : padId);
        attentionMask[row * length + t] = t < sequence.length ? 1n : 0n;
      }
    });
    chunks.push({ rows, length, inputIds, attentionMask });
  }
  return chunks;
}

/**
 * Each chunk row's score: the sum over its continuation tokens of log p(token | all tokens before it). The token at
 * position p is predicted by the logits at position p - 1.
 * @param logits the chunk's logits, [rows, length, vocab] row-major
 * @param chunk the chunk they belong to
 * @param promptLength number of prompt tokens (at least 1)
 * @param continuations all candidates' token ids (indexed by `chunk.rows`)
 * @param vocabSize the logits' last dimension
 */
export function sumContinuationLogProbs(
  logits: ArrayLike<number>,
  chunk: ScoringChunk,
  promptLength: number,
  continuations: readonly (readonly number[])[],
  vocabSize: number,
): number[] {
  if (promptLength < 1) throw new RangeError('the prompt needs at least one token to condition on');
  return chunk.rows.map((r, row) => {
    let sum = 0;
    continuations[r].forEach((token, j) => {
      const position = promptLength + j - 1;
      sum += logSoftmaxAt(logits, (row * chunk.length + position) * vocabSize, vocabSize, token);
    });
    return sum;
  });
}
