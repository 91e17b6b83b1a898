import { ArtifactError, quoteId } from '../artifacts/artifact-error.ts';
import { ITEM_LABELS } from '../artifacts/artifact-enums.ts';
import { itemId, itemTableOf, type ItemTable } from '../artifacts/item-table.ts';
import type { ItemLabel, ItemRow } from '../artifacts/items.ts';
import { predictionTableOf, type PredictionTable } from '../artifacts/prediction-table.ts';
import type { PredictionRow } from '../artifacts/predictions.ts';
import { bytesEqual, decodeCodePoints } from '../artifacts/text-bytes.ts';
import { CodePointLevenshtein } from './levenshtein.ts';

/** How a row's effective MinCER moved against its input MinCER. */
export type RowChange = 'improved' | 'worsened' | 'unchanged';

/** The code of `clean` in ItemTable.labels. */
const CLEAN = ITEM_LABELS.indexOf('clean');

/** Changes by their code in RowOutcomes.changes. */
const CHANGES: readonly RowChange[] = ['unchanged', 'improved', 'worsened'];

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
      throw new ArtifactError(
        predictionsFileName,
        `id ${quoteId(prediction.id)}`,
        `names no item row in ${itemsFileName}`,
      );
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
  return scoreTables(itemTableOf(items), predictionTableOf(listed), byRow, candidateLimit).toArray();
}

/**
 * Scores every item row against its prediction (if any), in item order, from tables (see RowScorer).
 * @param items the item table
 * @param predictions the prediction table
 * @param byRow for each item row, the index of its prediction row, or -1 (see matchPredictions)
 * @param candidateLimit K: only the first K candidates count for recall, rank, candidate miss and selection error
 */
export function scoreTables(
  items: ItemTable,
  predictions: PredictionTable,
  byRow: Int32Array,
  candidateLimit: number,
): RowOutcomes {
  const scorer = new RowScorer(items, candidateLimit);
  for (let r = 0; r < items.rows; r++) {
    const p = byRow[r];
    if (p < 0) continue;
    const count = predictions.candidateCounts[p];
    scorer.predict(r, predictions.text, predictions.candidates, predictions.candidateIndex[p], count);
  }
  return scorer.finish();
}

/**
 * The scorer itself, one item row at a time, on texts held as UTF-8 bytes (see text-bytes.ts): equal strings have
 * equal bytes, so `===` becomes a byte comparison, and Levenshtein reads code points decoded straight from the
 * bytes. Predictions arrive in any order through {@link predict} (straight from a file being read, or from a
 * table), which writes each row's outcome into the columns of the RowOutcomes it returns at the end; {@link finish}
 * scores what is left (the rows with no prediction or no candidate, and the input MinCER of the rows whose top
 * candidate is a reference) and returns the outcomes in item order.
 */
export class RowScorer {
  private readonly outcomes: RowOutcomes;
  private readonly counts: Int32Array; // candidates the row's prediction lists; -1: absent or null; -2: no prediction
  private readonly levenshtein = new CodePointLevenshtein(64);
  // Scratch code points: a text has at most as many code points as bytes; grown on demand.
  private hypothesis = new Uint32Array(256);
  private referenceCodes = new Uint32Array(1024);
  private starts = new Uint32Array(8);
  private lengths = new Uint32Array(8);

  /**
   * @param items the item table
   * @param candidateLimit K: only the first K candidates count for recall, rank, candidate miss and selection error
   */
  constructor(
    private readonly items: ItemTable,
    readonly candidateLimit: number,
  ) {
    if (!Number.isInteger(candidateLimit) || candidateLimit < 1) {
      throw new RangeError(`candidate limit must be a whole number >= 1, got ${candidateLimit}`);
    }
    this.outcomes = new RowOutcomes(items);
    this.counts = new Int32Array(items.rows).fill(-2);
  }

  /** True when item row r already has its prediction. */
  predicted(r: number): boolean {
    return this.counts[r] !== -2;
  }

  /**
   * Scores item row r's prediction.
   * @param r the item row the prediction names
   * @param bytes the buffer the candidates are in
   * @param ranges candidate k (in list order) is bytes[ranges[2(first + k)], ranges[2(first + k) + 1]), for every
   *   candidate the prediction lists: this is where only the first K of them are made to count
   * @param first where the row's candidates start in `ranges`
   * @param count how many candidates the prediction lists; -1 when `candidates` is absent or null
   */
  predict(r: number, bytes: Uint8Array, ranges: Uint32Array, first: number, count: number): void {
    this.counts[r] = count;
    if (count <= 0) return; // an abstention: finish() scores it with the input
    const items = this.items;
    const outcomes = this.outcomes;
    const text = items.text;
    const firstRef = items.refIndex[r];
    const referenceCount = items.refIndex[r + 1] - firstRef;
    const effectiveStart = ranges[2 * first];
    const effectiveEnd = ranges[2 * first + 1];
    const correct = isReference(bytes, effectiveStart, effectiveEnd, text, items.refs, firstRef, referenceCount);
    const limit = Math.min(count, this.candidateLimit);
    let rank = 0;
    for (let i = 0; i < limit; i++) {
      const c = first + i;
      if (isReference(bytes, ranges[2 * c], ranges[2 * c + 1], text, items.refs, firstRef, referenceCount)) {
        rank = i + 1;
        break;
      }
    }
    outcomes.correct[r] = correct ? 1 : 0;
    outcomes.ranks[r] = rank;
    outcomes.supplied[r] = count;
    const inputStart = items.inputs[2 * r];
    const inputEnd = items.inputs[2 * r + 1];
    if (!correct) {
      // The references are decoded once for both MinCERs of the row: the effective output's, and the input's
      // (which finish() computes for the other rows).
      this.decodeReferences(r);
      outcomes.effectiveMinCers[r] = this.minCerOf(bytes, effectiveStart, effectiveEnd, referenceCount);
      outcomes.inputMinCers[r] = this.minCerOf(text, inputStart, inputEnd, referenceCount);
    }
    // Only a `clean` row can be overcorrected: its effective output differs from its input.
    const overcorrected =
      items.labels[r] === CLEAN && !bytesEqual(bytes, effectiveStart, effectiveEnd, text, inputStart, inputEnd);
    outcomes.overcorrected[r] = overcorrected ? 1 : 0;
  }

  /** Scores every input not scored yet, and every row without a candidate, and returns all outcomes in item order. */
  finish(): RowOutcomes {
    const items = this.items;
    const text = items.text;
    const outcomes = this.outcomes;
    for (let r = 0; r < items.rows; r++) {
      const firstRef = items.refIndex[r];
      const referenceCount = items.refIndex[r + 1] - firstRef;
      const inputStart = items.inputs[2 * r];
      const inputEnd = items.inputs[2 * r + 1];
      const abstained = this.counts[r] <= 0;
      if (abstained || outcomes.correct[r] === 1) {
        // predict() left this row's input MinCER to here (no candidate, or a top candidate that is a reference).
        this.decodeReferences(r);
        outcomes.inputMinCers[r] = this.minCerOf(text, inputStart, inputEnd, referenceCount);
      }
      if (abstained) {
        // An abstention: the effective output is the input.
        outcomes.abstained[r] = 1;
        outcomes.correct[r] = isReference(text, inputStart, inputEnd, text, items.refs, firstRef, referenceCount)
          ? 1
          : 0;
        outcomes.effectiveMinCers[r] = outcomes.inputMinCers[r];
      }
      outcomes.settle(r);
    }
    return outcomes;
  }

  /** The MinCER of bytes[start, end) over the references decodeReferences last decoded (referenceCount of them). */
  private minCerOf(bytes: Uint8Array, start: number, end: number, referenceCount: number): number {
    const m = this.decodeHypothesis(bytes, start, end);
    const { hypothesis, referenceCodes, starts, lengths } = this;
    return this.levenshtein.minCerOfCodes(hypothesis, 0, m, referenceCodes, starts, lengths, referenceCount);
  }

  /** Decodes item row r's references into referenceCodes / starts / lengths. */
  private decodeReferences(r: number): void {
    const { text, refs, refIndex } = this.items;
    const first = refIndex[r];
    const count = refIndex[r + 1] - first;
    let total = 0;
    for (let k = first; k < first + count; k++) total += refs[2 * k + 1] - refs[2 * k];
    if (this.referenceCodes.length < total)
      this.referenceCodes = new Uint32Array(Math.max(total, 2 * this.referenceCodes.length));
    if (this.starts.length < count) {
      this.starts = new Uint32Array(count);
      this.lengths = new Uint32Array(count);
    }
    let at = 0;
    for (let k = 0; k < count; k++) {
      const ref = first + k;
      this.starts[k] = at;
      this.lengths[k] = decodeCodePoints(text, refs[2 * ref], refs[2 * ref + 1], this.referenceCodes, at);
      at += this.lengths[k];
    }
  }

  /** Decodes bytes[start, end) into the hypothesis buffer and returns its length in code points. */
  private decodeHypothesis(bytes: Uint8Array, start: number, end: number): number {
    if (this.hypothesis.length < end - start)
      this.hypothesis = new Uint32Array(Math.max(end - start, 2 * this.hypothesis.length));
    return decodeCodePoints(bytes, start, end, this.hypothesis, 0);
  }
}

/**
 * Every item row's outcome, column by column (a few bytes per row, no object per row); {@link at} gives one row as
 * a RowOutcome, with its id as a string.
 */
export class RowOutcomes {
  readonly rows: number;
  readonly abstained: Uint8Array;
  readonly correct: Uint8Array;
  /** 1-based rank, 0 for none */
  readonly ranks: Int32Array;
  readonly inputMinCers: Float64Array;
  readonly effectiveMinCers: Float64Array;
  /** candidates supplied (0 on abstention) */
  readonly supplied: Int32Array;
  readonly overcorrected: Uint8Array;
  /** 1 for a `clean` row */
  readonly clean: Uint8Array;
  /** the change of MinCER: 0 unchanged, 1 improved, 2 worsened (see CHANGES) */
  readonly changes: Uint8Array;

  /** Empty columns for the rows of `items` (filled by RowScorer), or the outcomes already made as objects. */
  constructor(private readonly items: ItemTable | readonly RowOutcome[]) {
    const rows = 'rows' in items ? items.rows : items.length;
    this.rows = rows;
    this.abstained = new Uint8Array(rows);
    this.correct = new Uint8Array(rows);
    this.ranks = new Int32Array(rows);
    this.inputMinCers = new Float64Array(rows);
    this.effectiveMinCers = new Float64Array(rows);
    this.supplied = new Int32Array(rows);
    this.overcorrected = new Uint8Array(rows);
    this.clean = new Uint8Array(rows);
    this.changes = new Uint8Array(rows);
    if ('rows' in items) {
      for (let r = 0; r < rows; r++) this.clean[r] = items.labels[r] === CLEAN ? 1 : 0;
      return;
    }
    items.forEach((o, r) => {
      this.abstained[r] = o.abstained ? 1 : 0;
      this.correct[r] = o.correct ? 1 : 0;
      this.ranks[r] = o.rank ?? 0;
      this.inputMinCers[r] = o.inputMinCer;
      this.effectiveMinCers[r] = o.effectiveMinCer;
      this.supplied[r] = o.candidatesSupplied;
      this.overcorrected[r] = o.overcorrected ? 1 : 0;
      this.clean[r] = o.label === 'clean' ? 1 : 0;
      this.changes[r] = CHANGES.indexOf(o.change);
    });
  }

  /** Sets row r's change from its two MinCERs, once both are in. */
  settle(r: number): void {
    const input = this.inputMinCers[r];
    const effective = this.effectiveMinCers[r];
    this.changes[r] = effective < input ? 1 : effective > input ? 2 : 0;
  }

  /** Row r's outcome as an object. */
  at(r: number): RowOutcome {
    const items = this.items;
    if (!('rows' in items)) return items[r];
    return {
      id: itemId(items, r),
      label: ITEM_LABELS[items.labels[r]],
      abstained: this.abstained[r] === 1,
      correct: this.correct[r] === 1,
      rank: this.ranks[r] === 0 ? null : this.ranks[r],
      inputMinCer: this.inputMinCers[r],
      effectiveMinCer: this.effectiveMinCers[r],
      change: CHANGES[this.changes[r]],
      candidatesSupplied: this.supplied[r],
      overcorrected: this.overcorrected[r] === 1,
    };
  }

  /** Every row's outcome as an object, in item order. */
  toArray(): RowOutcome[] {
    const out: RowOutcome[] = new Array(this.rows);
    for (let r = 0; r < this.rows; r++) out[r] = this.at(r);
    return out;
  }
}

/** True when bytes[start, end) equals one of the row's references (refs first..first+count-1 in `text`). */
function isReference(
  bytes: Uint8Array,
  start: number,
  end: number,
  text: Uint8Array,
  refs: Uint32Array,
  first: number,
  count: number,
): boolean {
  for (let k = first; k < first + count; k++)
    if (bytesEqual(bytes, start, end, text, refs[2 * k], refs[2 * k + 1])) return true;
  return false;
}
