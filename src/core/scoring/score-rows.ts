import { ArtifactError, quoteId } from '../artifacts/artifact-error.ts';
import type { ItemLabel, ItemRow } from '../artifacts/items.ts';
import type { PredictionRow } from '../artifacts/predictions.ts';
import { CodePointLevenshtein } from './levenshtein.ts';

/** How a row's effective MinCER moved against its input MinCER. */
export type RowChange = 'improved' | 'worsened' | 'unchanged';

/** What scoring found for one item row. Every metric is an aggregate of these. */
export interface RowOutcome {
  /** the item row's id */
  id: string;
  label: ItemLabel;
  /** no prediction row, or candidates missing / null / empty: the effective output is the input */
  abstained: boolean;
  /** the effective output (top-1 candidate, or the input on abstention) is one of the references */
  correct: boolean;
  /** 1-based rank of the first reference among the first K candidates; null when none (or abstained) */
  rank: number | null;
  inputMinCer: number;
  effectiveMinCer: number;
  change: RowChange;
  /** how many candidates the prediction supplied (0 on abstention), before the K cut-off */
  candidatesSupplied: number;
  /** a `clean` row whose effective output differs from its input */
  overcorrected: boolean;
}

/**
 * Minimum CER of `hypothesis` over `references`: min over refs of Levenshtein(ref, hyp) / codePointLength(ref).
 * @param hypothesis the text being judged (an input or an effective output)
 * @param references the row's acceptable outputs (non-empty strings, at least one)
 * @param levenshtein the scratch-owning distance calculator to reuse
 */
export function minCer(hypothesis: string, references: readonly string[], levenshtein: CodePointLevenshtein): number {
  return levenshtein.minCer(hypothesis, references);
}

/**
 * Lines predictions up with the item rows and checks that each one names an item row.
 * @param items the parsed item rows
 * @param predictions the parsed prediction rows (ids already unique)
 * @param predictionsFileName the predictions file's display name, for the error message
 * @param itemsFileName the items file's display name, for the error message
 * @returns one entry per item row, in item order: its prediction, or undefined when it has none
 * @throws ArtifactError when a prediction id names no item row
 */
export function indexPredictions(
  items: readonly ItemRow[],
  predictions: readonly PredictionRow[],
  predictionsFileName: string,
  itemsFileName: string,
): (PredictionRow | undefined)[] {
  const rowById = new Map<string, number>();
  for (let r = 0; r < items.length; r++) rowById.set(items[r].id, r);
  // An array aligned with the items, not a second Map keyed by id: one hash table fewer on 100,000-row files.
  const byRow: (PredictionRow | undefined)[] = new Array(items.length).fill(undefined);
  for (const prediction of predictions) {
    const row = rowById.get(prediction.id);
    if (row === undefined) {
      throw new ArtifactError(predictionsFileName, `id ${quoteId(prediction.id)}`, `names no item row in ${itemsFileName}`);
    }
    byRow[row] = prediction;
  }
  return byRow;
}

/**
 * Scores every item row against its prediction (if any), in item order.
 * @param items the parsed item rows
 * @param predictionsByRow each item row's prediction or undefined, in item order (see indexPredictions)
 * @param candidateLimit K: only the first K candidates count for recall, rank, candidate miss and selection error
 */
export function scoreRows(
  items: readonly ItemRow[],
  predictionsByRow: readonly (PredictionRow | undefined)[],
  candidateLimit: number,
): RowOutcome[] {
  if (!Number.isInteger(candidateLimit) || candidateLimit < 1) {
    throw new RangeError(`candidate limit must be a whole number >= 1, got ${candidateLimit}`);
  }
  let longest = 0;
  for (const item of items) {
    if (item.input.length > longest) longest = item.input.length;
    for (const reference of item.references) if (reference.length > longest) longest = reference.length;
  }
  const levenshtein = new CodePointLevenshtein(longest);
  const outcomes: RowOutcome[] = new Array(items.length);
  for (let r = 0; r < items.length; r++) {
    const item = items[r];
    const candidates = predictionsByRow[r]?.candidates;
    const abstained = candidates == null || candidates.length === 0;
    const supplied = abstained ? 0 : candidates.length;
    const effective = abstained ? item.input : candidates[0];
    const references = item.references;
    const correct = references.includes(effective);
    let rank: number | null = null;
    if (!abstained) {
      const limit = Math.min(supplied, candidateLimit);
      for (let i = 0; i < limit; i++) {
        if (references.includes(candidates[i])) {
          rank = i + 1;
          break;
        }
      }
    }
    const inputMinCer = minCer(item.input, references, levenshtein);
    const effectiveMinCer = abstained ? inputMinCer : correct ? 0 : minCer(effective, references, levenshtein);
    outcomes[r] = {
      id: item.id,
      label: item.label,
      abstained,
      correct,
      rank,
      inputMinCer,
      effectiveMinCer,
      change: effectiveMinCer < inputMinCer ? 'improved' : effectiveMinCer > inputMinCer ? 'worsened' : 'unchanged',
      candidatesSupplied: supplied,
      overcorrected: item.label === 'clean' && effective !== item.input,
    };
  }
  return outcomes;
}
