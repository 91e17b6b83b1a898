import { matchWord, RangeWriter, type ItemTable } from './item-table.ts';
import { JsonScanner, NOT_PLAIN, NotPlainJson, numberValues } from './json-scanner.ts';
import type { PredictionRow, Provenance } from './predictions.ts';
import { ByteSink, ByteStringIndex, textOf, U32List } from './text-bytes.ts';

/** Provenance values by their code in {@link PredictionTable.provenance} minus one (code 0: absent). */
export const PROVENANCES: readonly Provenance[] = ['provider', 'deberta', 'lfm', 'rule', 'unspecified'];

/**
 * Prediction rows as the scorer works on them: every text is a range of one UTF-8 buffer (see text-bytes.ts), so
 * 800,000 candidates cost no string each. Made by {@link readPredictionTable} straight from the file's bytes, or by
 * {@link predictionTableOf} from rows the zod path parsed.
 */
export interface PredictionTable {
  /** how many rows */
  rows: number;
  /** the buffer every range below points into */
  text: Uint8Array;
  /** row p's id is text[ids[2p], ids[2p + 1]) */
  ids: Uint32Array;
  /** how many candidates row p lists; -1 when `candidates` is absent or null */
  candidateCounts: Int32Array;
  /** row p's candidates, in order, are the ranges (candidates[2k], candidates[2k + 1]) from candidateIndex[p] on */
  candidateIndex: Uint32Array;
  candidates: Uint32Array;
  /** row p's provenance: 0 when absent, else PROVENANCES[code - 1] */
  provenance: Uint8Array;
  /** row p's reason as an index into `reasons`, or -1 when absent */
  reasonOf: Int32Array;
  /** the distinct reasons, in the order they first appear */
  reasons: string[];
  /** row p's margin, or NaN when absent (a margin is always finite) */
  margins: Float64Array;
}

/**
 * Reads a predictions file straight from its bytes, for files in the plain shape: valid UTF-8 and JSON, every row
 * as PredictionRow in predictions.ts wants it (mirrored here key by key), and no key twice in a row. Ids are checked
 * against the items (unknown or repeated) by matchPredictions.
 * @param bytes the file's raw bytes (one leading BOM allowed)
 * @returns the table; or undefined for anything else, which parsePredictions then reads (and names the problem, if any)
 */
export function readPredictionTable(bytes: Uint8Array): PredictionTable | undefined {
  try {
    return new PredictionReader(bytes).read();
  } catch (error) {
    if (error instanceof NotPlainJson) return undefined;
    throw error;
  }
}

/**
 * The table of rows already parsed and checked by parsePredictions (the zod path).
 * @param rows the parsed rows
 */
export function predictionTableOf(rows: readonly PredictionRow[]): PredictionTable {
  const sink = new ByteSink();
  const ids = new Uint32Array(rows.length * 2);
  const candidateCounts = new Int32Array(rows.length);
  const candidateIndex = new Uint32Array(rows.length + 1);
  const candidates = new U32List();
  const provenance = new Uint8Array(rows.length);
  const reasonOf = new Int32Array(rows.length);
  const reasons: string[] = [];
  const reasonIndex = new Map<string, number>();
  const margins = new Float64Array(rows.length);
  rows.forEach((row, p) => {
    ids[2 * p] = sink.length;
    sink.writeText(row.id);
    ids[2 * p + 1] = sink.length;
    candidateCounts[p] = row.candidates == null ? -1 : row.candidates.length;
    for (const candidate of row.candidates ?? []) {
      candidates.push(sink.length);
      sink.writeText(candidate);
      candidates.push(sink.length);
    }
    candidateIndex[p + 1] = candidates.length / 2;
    provenance[p] = row.provenance === undefined ? 0 : PROVENANCES.indexOf(row.provenance) + 1;
    if (row.reason === undefined) reasonOf[p] = -1;
    else {
      let index = reasonIndex.get(row.reason);
      if (index === undefined) {
        index = reasons.push(row.reason) - 1;
        reasonIndex.set(row.reason, index);
      }
      reasonOf[p] = index;
    }
    margins[p] = row.margin ?? NaN;
  });
  return {
    rows: rows.length,
    text: sink.view(),
    ids,
    candidateCounts,
    candidateIndex,
    candidates: candidates.view(),
    provenance,
    reasonOf,
    reasons,
    margins,
  };
}

/** Where each item row's prediction is, or the first prediction that cannot be placed. */
export interface PredictionMatch {
  /** for each item row, the index of the prediction row naming it, or -1 */
  byRow: Int32Array;
  /** the first prediction row (in file order) whose id names no item row or an item row already named; -1 if none */
  problem: number;
}

/**
 * Lines the predictions up with the item rows by id, comparing the ids' bytes.
 * @param items the item table
 * @param predictions the prediction table
 */
export function matchPredictions(items: ItemTable, predictions: PredictionTable): PredictionMatch {
  const byRow = new Int32Array(items.rows).fill(-1);
  const ids = predictions.ids;
  for (let p = 0; p < predictions.rows; p++) {
    const row = items.index.find(predictions.text, ids[2 * p], ids[2 * p + 1]);
    if (row < 0 || byRow[row] >= 0) return { byRow, problem: p };
    byRow[row] = p;
  }
  return { byRow, problem: -1 };
}

/** Row p's id as a string. */
export function predictionId(table: PredictionTable, p: number): string {
  return textOf(table.text, table.ids[2 * p], table.ids[2 * p + 1]);
}

const KEY_ID = 1;
const KEY_CANDIDATES = 2;
const KEY_PROVENANCE = 4;
const KEY_REASON = 8;
const KEY_MARGIN = 16;
const KEYS: [string, number][] = [
  ['id', KEY_ID],
  ['candidates', KEY_CANDIDATES],
  ['provenance', KEY_PROVENANCE],
  ['reason', KEY_REASON],
  ['margin', KEY_MARGIN],
];
const PROVENANCE_VALUES: [string, number][] = PROVENANCES.map((value, index) => [value, index + 1]);

class PredictionReader {
  private readonly s: JsonScanner;
  private readonly writer: RangeWriter;
  private readonly ids = new U32List();
  private readonly candidateCounts = new U32List(); // count + 1, so that "absent or null" (-1) fits unsigned
  private readonly candidateIndex = new U32List();
  private readonly candidates = new U32List();
  private readonly provenance = new U32List();
  private readonly reasons = new U32List(); // the reason's range, or (1, 0) when absent
  private readonly marginRanges = new U32List(); // the margin's number token, for the rows that have one
  private readonly marginRow = new U32List(); // which row each of those is

  constructor(bytes: Uint8Array) {
    this.s = new JsonScanner(bytes);
    this.writer = new RangeWriter(this.s);
  }

  read(): PredictionTable {
    const s = this.s;
    s.expect(0x5b);
    this.candidateIndex.push(0);
    if (!s.take(0x5d)) {
      do this.row();
      while (s.take(0x2c));
      s.expect(0x5d);
    }
    s.finish();
    return this.table();
  }

  private row(): void {
    const s = this.s;
    const bytes = s.bytes;
    s.expect(0x7b);
    let seen = 0;
    let count = -1;
    let provenance = 0;
    let hasReason = false;
    if (!s.take(0x7d)) {
      do {
        s.string();
        if (s.escaped) throw NOT_PLAIN; // an escaped key: leave it to JSON.parse
        const key = matchWord(bytes, s.start, s.end, KEYS, 0);
        if (key === 0 || (seen & key) !== 0) throw NOT_PLAIN; // another key, or a key twice
        seen |= key;
        s.expect(0x3a);
        if (key === KEY_ID) {
          s.string();
          if (s.end === s.start) throw NOT_PLAIN; // ids must not be empty
          this.writer.push(this.ids);
        } else if (key === KEY_CANDIDATES) {
          if (!s.literal('null')) {
            s.expect(0x5b);
            count = 0;
            if (!s.take(0x5d)) {
              do {
                s.string();
                this.writer.push(this.candidates);
                count++;
              } while (s.take(0x2c));
              s.expect(0x5d);
            }
          }
        } else if (key === KEY_PROVENANCE) {
          s.string();
          if (s.escaped) throw NOT_PLAIN;
          provenance = matchWord(bytes, s.start, s.end, PROVENANCE_VALUES, 0);
          if (provenance === 0) throw NOT_PLAIN;
        } else if (key === KEY_REASON) {
          s.string();
          this.writer.push(this.reasons);
          hasReason = true;
        } else {
          s.number(); // refuses anything but a number token
          this.marginRanges.push(s.start);
          this.marginRanges.push(s.end);
          this.marginRow.push(this.provenance.length);
        }
      } while (s.take(0x2c));
      s.expect(0x7d);
    }
    if ((seen & KEY_ID) === 0) throw NOT_PLAIN;
    if (!hasReason) {
      this.reasons.push(1);
      this.reasons.push(0);
    }
    this.candidateCounts.push(count + 1);
    this.candidateIndex.push(this.candidates.length / 2);
    this.provenance.push(provenance);
  }

  private table(): PredictionTable {
    const rows = this.provenance.length;
    const text = this.writer.text();
    const candidateCounts = new Int32Array(rows);
    for (let p = 0; p < rows; p++) candidateCounts[p] = this.candidateCounts.data[p] - 1;
    // Distinct reasons by their bytes, so 100,000 rows that say "accepted" make one string, not 100,000.
    const ranges = this.reasons.view();
    const distinct = new ByteStringIndex(text, 16);
    const reasons: string[] = [];
    const reasonOf = new Int32Array(rows);
    for (let p = 0; p < rows; p++) {
      const start = ranges[2 * p];
      const end = ranges[2 * p + 1];
      if (start > end) {
        reasonOf[p] = -1;
        continue;
      }
      const added = distinct.add(start, end);
      if (added >= 0) reasons.push(textOf(text, start, end));
      reasonOf[p] = added >= 0 ? added : -added - 1;
    }
    const margins = new Float64Array(rows).fill(NaN);
    const values = numberValues(this.s.bytes, this.marginRanges.view());
    for (let k = 0; k < values.length; k++) {
      if (!Number.isFinite(values[k])) throw NOT_PLAIN; // 1e999 parses to Infinity, which zod refuses
      margins[this.marginRow.data[k]] = values[k];
    }
    return {
      rows,
      text,
      ids: this.ids.view(),
      candidateCounts,
      candidateIndex: this.candidateIndex.view(),
      candidates: this.candidates.view(),
      provenance: Uint8Array.from(this.provenance.view()),
      reasonOf,
      reasons,
      margins,
    };
  }
}
