import { ArtifactError, quoteId } from '../artifacts/artifact-error.ts';
import { itemId, itemTableOf, ITEM_LABELS, type ItemTable } from '../artifacts/item-table.ts';
import type { ItemLabel, ItemRow } from '../artifacts/items.ts';
import { predictionTableOf, type PredictionTable } from '../artifacts/prediction-table.ts';
import type { PredictionRow } from '../artifacts/predictions.ts';
import { bytesEqual, decodeCodePoints } from '../artifacts/text-bytes.ts';
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
  const listed: PredictionRow[] = [];
  const byRow = new Int32Array(items.length).fill(-1);
  predictionsByRow.forEach((prediction, r) => {
    if (prediction === undefined) return;
    byRow[r] = listed.length;
    listed.push(prediction);
  });
  return scoreTables(itemTableOf(items), predictionTableOf(listed), byRow, candidateLimit);
}

/**
 * Scores every item row against its prediction (if any), in item order: the scorer itself, on tables whose texts
 * are UTF-8 bytes (equal strings have equal bytes, so `===` becomes a byte comparison, and Levenshtein reads code
 * points decoded straight from the bytes).
 * @param items the item table
 * @param predictions the prediction table
 * @param byRow for each item row, the index of its prediction row, or -1 (see matchPredictions)
 * @param candidateLimit K: only the first K candidates count for recall, rank, candidate miss and selection error
 */
export function scoreTables(items: ItemTable, predictions: PredictionTable, byRow: Int32Array, candidateLimit: number): RowOutcome[] {
  if (!Number.isInteger(candidateLimit) || candidateLimit < 1) {
    throw new RangeError(`candidate limit must be a whole number >= 1, got ${candidateLimit}`);
  }
  const text = items.text;
  const { inputs, refIndex, refs } = items;
  const candidateText = predictions.text;
  const { candidates, candidateIndex, candidateCounts } = predictions;
  // Scratch code-point buffers, sized once: a text has at most as many code points as bytes.
  let longestText = 0;
  let longestReferences = 0;
  let mostReferences = 0;
  for (let r = 0; r < items.rows; r++) {
    longestText = Math.max(longestText, inputs[2 * r + 1] - inputs[2 * r]);
    let total = 0;
    for (let k = refIndex[r]; k < refIndex[r + 1]; k++) total += refs[2 * k + 1] - refs[2 * k];
    longestReferences = Math.max(longestReferences, total);
    mostReferences = Math.max(mostReferences, refIndex[r + 1] - refIndex[r]);
  }
  for (let p = 0; p < predictions.rows; p++) {
    if (candidateCounts[p] > 0) {
      const first = candidateIndex[p];
      longestText = Math.max(longestText, candidates[2 * first + 1] - candidates[2 * first]);
    }
  }
  const hypothesis = new Uint32Array(Math.max(1, longestText));
  const referenceCodes = new Uint32Array(Math.max(1, longestReferences));
  const starts = new Uint32Array(Math.max(1, mostReferences));
  const lengths = new Uint32Array(Math.max(1, mostReferences));
  const levenshtein = new CodePointLevenshtein(64);
  const outcomes: RowOutcome[] = new Array(items.rows);
  for (let r = 0; r < items.rows; r++) {
    const firstRef = refIndex[r];
    const referenceCount = refIndex[r + 1] - firstRef;
    let at = 0;
    for (let k = 0; k < referenceCount; k++) {
      const ref = firstRef + k;
      starts[k] = at;
      lengths[k] = decodeCodePoints(text, refs[2 * ref], refs[2 * ref + 1], referenceCodes, at);
      at += lengths[k];
    }
    const inputStart = inputs[2 * r];
    const inputEnd = inputs[2 * r + 1];
    const m = decodeCodePoints(text, inputStart, inputEnd, hypothesis, 0);
    const inputMinCer = levenshtein.minCerOfCodes(hypothesis, 0, m, referenceCodes, starts, lengths, referenceCount);

    const p = byRow[r];
    const count = p < 0 ? -1 : candidateCounts[p];
    const abstained = count <= 0;
    const supplied = abstained ? 0 : count;
    // The effective output: the top candidate, or the input on abstention.
    const effectiveText = abstained ? text : candidateText;
    const effectiveStart = abstained ? inputStart : candidates[2 * candidateIndex[p]];
    const effectiveEnd = abstained ? inputEnd : candidates[2 * candidateIndex[p] + 1];
    const correct = isReference(effectiveText, effectiveStart, effectiveEnd, text, refs, firstRef, referenceCount);
    let rank: number | null = null;
    if (!abstained) {
      const limit = Math.min(supplied, candidateLimit);
      for (let i = 0; i < limit; i++) {
        const c = candidateIndex[p] + i;
        if (isReference(candidateText, candidates[2 * c], candidates[2 * c + 1], text, refs, firstRef, referenceCount)) {
          rank = i + 1;
          break;
        }
      }
    }
    let effectiveMinCer = inputMinCer;
    if (!abstained) {
      if (correct) effectiveMinCer = 0;
      else {
        const e = decodeCodePoints(effectiveText, effectiveStart, effectiveEnd, hypothesis, 0);
        effectiveMinCer = levenshtein.minCerOfCodes(hypothesis, 0, e, referenceCodes, starts, lengths, referenceCount);
      }
    }
    const label = ITEM_LABELS[items.labels[r]];
    outcomes[r] = {
      id: itemId(items, r),
      label,
      abstained,
      correct,
      rank,
      inputMinCer,
      effectiveMinCer,
      change: effectiveMinCer < inputMinCer ? 'improved' : effectiveMinCer > inputMinCer ? 'worsened' : 'unchanged',
      candidatesSupplied: supplied,
      overcorrected: label === 'clean' && !abstained && !bytesEqual(effectiveText, effectiveStart, effectiveEnd, text, inputStart, inputEnd),
    };
  }
  return outcomes;
}

/** True when bytes[start, end) equals one of the row's references (refs first..first+count-1 in `text`). */
function isReference(bytes: Uint8Array, start: number, end: number, text: Uint8Array, refs: Uint32Array, first: number, count: number): boolean {
  for (let k = first; k < first + count; k++) if (bytesEqual(bytes, start, end, text, refs[2 * k], refs[2 * k + 1])) return true;
  return false;
}
