import { ByteWindow } from './byte-window.ts';
import type { ItemTable } from './item-table.ts';
import { JsonScanner, NOT_PLAIN, NotPlainJson, numberValues } from './json-scanner.ts';
import { PROVENANCES } from './artifact-enums.ts';
import type { PredictionRow } from './predictions.ts';
import { ByteSink, ByteStringIndex, textOf, U32List, WordCodes } from './text-bytes.ts';

/** The values a predictions artifact declares about itself, row by row (summarised by summarizeDeclaredTable). */
export interface DeclaredColumns {
  /** how many prediction rows */
  rows: number;
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
 * Prediction rows with every text as a range of one UTF-8 buffer (see text-bytes.ts), so 800,000 candidates cost
 * no string each. Made by {@link predictionTableOf} from rows the zod path parsed, or by {@link readPredictionTable}.
 */
export interface PredictionTable extends DeclaredColumns {
  /** the buffer every range below points into */
  text: Uint8Array;
  /** row p's id is text[ids[2p], ids[2p + 1]) */
  ids: Uint32Array;
  /** how many candidates row p lists; -1 when `candidates` is absent or null */
  candidateCounts: Int32Array;
  /** row p's candidates, in order, are the ranges (candidates[2k], candidates[2k + 1]) from candidateIndex[p] on */
  candidateIndex: Uint32Array;
  candidates: Uint32Array;
}

/**
 * One prediction row as {@link readPredictionRows} hands it over: positions in `bytes`, valid only during the call
 * (the object and its arrays are reused for the next row).
 */
export interface PredictionRowBytes {
  bytes: Uint8Array;
  idStart: number;
  idEnd: number;
  /** how many candidates the row lists; -1 when `candidates` is absent or null */
  count: number;
  /** every candidate, in order, as (start, end) pairs (count of them) */
  candidates: Uint32Array;
  /** 0 when absent, else the index in PROVENANCES plus one */
  provenance: number;
  /** the reason's range; start > end when there is none */
  reasonStart: number;
  reasonEnd: number;
  /** the margin's number token; start > end when there is none */
  marginStart: number;
  marginEnd: number;
}

/**
 * Reads a predictions file straight from its bytes, one row at a time, for files in the plain shape: valid UTF-8
 * and JSON, every row as PredictionRow in predictions.ts wants it (mirrored here key by key), and no key twice in
 * a row. Only a window of the file is held (see byte-window.ts): a row is handed to `onRow` while its bytes are in
 * the window, and never looked at again. Whether ids name item rows is for `onRow` to check.
 * @param window the file
 * @param onRow called for each row in file order; returns false to stop (the file is then declined)
 * @returns false when the file is declined (a problem, an unusual shape, a margin JSON.parse reads as Infinity, or
 *   `onRow` said so), for parsePredictions to read and name the problem; else the rows' margins as JSON.parse reads
 *   them (NaN where there is none), which the byte reader converts together at the end
 */
export function readPredictionRows(
  window: ByteWindow,
  onRow: (row: PredictionRowBytes) => boolean,
): Float64Array | false {
  try {
    return new PredictionReader(window, onRow).read();
  } catch (error) {
    if (error instanceof NotPlainJson) return false;
    throw error;
  }
}

/**
 * Reads a whole predictions file into a table, with the byte reader (see readPredictionRows).
 * @param bytes the file's raw bytes (one leading BOM allowed)
 * @param chunkBytes when given, the bytes are read through a window of this size, as a file is (for tests)
 * @returns the table, or undefined when the byte reader declines the file
 */
export function readPredictionTable(bytes: Uint8Array, chunkBytes?: number): PredictionTable | undefined {
  const sink = new ByteSink();
  const ids = new U32List();
  const counts: number[] = [];
  const candidateIndex = new U32List();
  const candidates = new U32List();
  const declared = new DeclaredColumnsBuilder();
  candidateIndex.push(0);
  const copy = (row: PredictionRowBytes, start: number, end: number, into: U32List) => {
    into.push(sink.length);
    sink.reserve(end - start);
    sink.data.set(row.bytes.subarray(start, end), sink.length);
    sink.length += end - start;
    into.push(sink.length);
  };
  let offset = 0;
  const window =
    chunkBytes === undefined
      ? ByteWindow.over(bytes)
      : ByteWindow.reading((target, at, length) => {
          const count = Math.min(length, bytes.length - offset);
          target.set(bytes.subarray(offset, offset + count), at);
          offset += count;
          return count;
        }, chunkBytes);
  const margins = readPredictionRows(window, (row) => {
    copy(row, row.idStart, row.idEnd, ids);
    counts.push(row.count);
    for (let k = 0; k < Math.max(row.count, 0); k++)
      copy(row, row.candidates[2 * k], row.candidates[2 * k + 1], candidates);
    candidateIndex.push(candidates.length / 2);
    declared.add(row);
    return true;
  });
  if (margins === false) return undefined;
  return {
    ...declared.finish(margins),
    text: sink.view(),
    ids: ids.view(),
    candidateCounts: Int32Array.from(counts),
    candidateIndex: candidateIndex.view(),
    candidates: candidates.view(),
  };
}

/**
 * Collects the declared values (provenance, reason, margin) of prediction rows as the byte reader hands them over,
 * copying each distinct reason once.
 */
export class DeclaredColumnsBuilder {
  private readonly provenance = new U32List();
  private readonly reasonOf: number[] = [];
  private readonly reasons: string[] = [];
  private readonly reasonBytes = new ByteSink(256);
  private readonly distinct = new ByteStringIndex(this.reasonBytes.data, 16);

  /** Adds one row's declared values. */
  add(row: PredictionRowBytes): void {
    this.provenance.push(row.provenance);
    if (row.reasonStart > row.reasonEnd) {
      this.reasonOf.push(-1);
      return;
    }
    let index = this.distinct.find(row.bytes, row.reasonStart, row.reasonEnd);
    if (index < 0) {
      const start = this.reasonBytes.length;
      this.reasonBytes.reserve(row.reasonEnd - row.reasonStart);
      this.reasonBytes.data.set(row.bytes.subarray(row.reasonStart, row.reasonEnd), start);
      this.reasonBytes.length += row.reasonEnd - row.reasonStart;
      this.distinct.source = this.reasonBytes.data; // the sink may have moved to a larger buffer
      index = this.distinct.add(start, this.reasonBytes.length);
      this.reasons.push(textOf(this.reasonBytes.data, start, this.reasonBytes.length));
    }
    this.reasonOf.push(index);
  }

  /**
   * The columns of every row added.
   * @param margins each row's margin (NaN when none), as readPredictionRows returned them
   */
  finish(margins: Float64Array): DeclaredColumns {
    return {
      rows: this.provenance.length,
      provenance: Uint8Array.from(this.provenance.view()),
      reasonOf: Int32Array.from(this.reasonOf),
      reasons: this.reasons,
      margins,
    };
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
const KEYS = new WordCodes([
  ['id', KEY_ID],
  ['candidates', KEY_CANDIDATES],
  ['provenance', KEY_PROVENANCE],
  ['reason', KEY_REASON],
  ['margin', KEY_MARGIN],
]);
const PROVENANCE_VALUES = new WordCodes(PROVENANCES.map((value, index) => [value, index + 1]));

/** How many margins are converted to numbers together (see numberValues): a few kilobytes of text per batch. */
const MARGIN_BATCH = 4096;

class PredictionReader {
  private s: JsonScanner;
  private readonly row: PredictionRowBytes;
  /** whether a string of the current row that is handed over was written with escapes */
  private escapedInRow = false;
  private readonly arena = new ByteSink(256);
  // Margin tokens waiting to be converted, MARGIN_BATCH at a time, and the rows they belong to.
  private readonly marginTokens = new ByteSink(MARGIN_BATCH * 32);
  private readonly marginRanges = new U32List(2 * MARGIN_BATCH);
  private readonly marginRows = new U32List(MARGIN_BATCH);
  /** each row's margin once converted; NaN for a row without one (grown as rows come) */
  private margins = new Float64Array(MARGIN_BATCH).fill(NaN);
  private rows = 0;

  constructor(
    private readonly window: ByteWindow,
    private readonly onRow: (row: PredictionRowBytes) => boolean,
  ) {
    this.s = new JsonScanner(window.bytes, window.limit);
    this.row = {
      bytes: window.bytes,
      idStart: 0,
      idEnd: 0,
      count: -1,
      candidates: new Uint32Array(128),
      provenance: 0,
      reasonStart: 1,
      reasonEnd: 0,
      marginStart: 1,
      marginEnd: 0,
    };
  }

  read(): Float64Array {
    // The opening bracket, then each row with the separator before it, is one step: a step that runs past the end
    // of the window is retried from its start once more bytes are in (see refill).
    for (;;) {
      try {
        this.s = new JsonScanner(this.window.bytes, this.window.limit); // (again) from the file's start, BOM and all
        this.s.expect(0x5b);
        break;
      } catch (error) {
        this.refill(error, 0);
      }
    }
    let first = true;
    for (;;) {
      const mark = this.s.pos;
      let done = false;
      try {
        if (this.s.take(0x5d)) {
          this.s.finish();
          done = true;
        } else {
          if (!first) this.s.expect(0x2c);
          this.readRow();
        }
      } catch (error) {
        this.refill(error, mark);
        continue;
      }
      if (done) break;
      first = false;
      const row = this.row;
      if (row.marginStart <= row.marginEnd) this.recordMargin(row.bytes, row.marginStart, row.marginEnd);
      if (this.escapedInRow) this.unescapeRow();
      if (!this.onRow(row)) throw NOT_PLAIN;
      this.rows++;
    }
    this.convertMargins();
    return this.margins.subarray(0, this.rows);
  }

  /**
   * After a step failed: if the file goes on, keeps the window from `mark` (the step's start) and reads more, so the
   * step can be retried; otherwise the failure stands.
   */
  private refill(error: unknown, mark: number): void {
    if (!(error instanceof NotPlainJson) || !this.window.advance(mark)) throw error;
    this.s.bytes = this.window.bytes;
    this.s.limit = this.window.limit;
    this.s.pos = 0;
  }

  private readRow(): void {
    const s = this.s;
    const bytes = s.bytes;
    const row = this.row;
    s.expect(0x7b);
    let seen = 0;
    let count = -1;
    let provenance = 0;
    this.escapedInRow = false;
    row.reasonStart = 1;
    row.reasonEnd = 0;
    row.marginStart = 1;
    row.marginEnd = 0;
    if (!s.take(0x7d)) {
      do {
        s.string();
        if (s.escaped) throw NOT_PLAIN; // an escaped key: leave it to JSON.parse
        const key = KEYS.match(bytes, s.start, s.end, 0);
        if (key === 0 || (seen & key) !== 0) throw NOT_PLAIN; // another key, or a key twice
        seen |= key;
        s.expect(0x3a);
        if (key === KEY_ID) {
          s.string();
          if (s.end === s.start) throw NOT_PLAIN; // ids must not be empty
          row.idStart = s.start;
          row.idEnd = s.end;
          this.escapedInRow ||= s.escaped;
        } else if (key === KEY_CANDIDATES) {
          if (!s.literal('null')) {
            s.expect(0x5b);
            count = 0;
            if (!s.take(0x5d)) {
              do {
                s.string();
                this.recordCandidate(count, s.start, s.end);
                this.escapedInRow ||= s.escaped;
                count++;
              } while (s.take(0x2c));
              s.expect(0x5d);
            }
          }
        } else if (key === KEY_PROVENANCE) {
          s.string();
          if (s.escaped) throw NOT_PLAIN;
          provenance = PROVENANCE_VALUES.match(bytes, s.start, s.end, 0);
          if (provenance === 0) throw NOT_PLAIN;
        } else if (key === KEY_REASON) {
          s.string();
          row.reasonStart = s.start;
          row.reasonEnd = s.end;
          this.escapedInRow ||= s.escaped;
        } else {
          s.number(); // refuses anything but a number token
          row.marginStart = s.start;
          row.marginEnd = s.end;
        }
      } while (s.take(0x2c));
      s.expect(0x7d);
    }
    if ((seen & KEY_ID) === 0) throw NOT_PLAIN;
    row.count = count;
    row.provenance = provenance;
    row.bytes = bytes;
  }

  private recordCandidate(k: number, start: number, end: number): void {
    const row = this.row;
    if (2 * k + 2 > row.candidates.length) {
      const larger = new Uint32Array(2 * row.candidates.length);
      larger.set(row.candidates);
      row.candidates = larger;
    }
    row.candidates[2 * k] = start;
    row.candidates[2 * k + 1] = end;
  }

  /** Keeps the margin's token for the next JSON.parse of MARGIN_BATCH margins. */
  private recordMargin(bytes: Uint8Array, start: number, end: number): void {
    const tokens = this.marginTokens;
    this.marginRanges.push(tokens.length);
    tokens.reserve(end - start);
    // A byte loop, not set(subarray()): a token is a few bytes, and a view per row would be garbage per row.
    const data = tokens.data;
    let at = tokens.length;
    for (let i = start; i < end; i++) data[at++] = bytes[i];
    tokens.length = at;
    this.marginRanges.push(at);
    this.marginRows.push(this.rows);
    if (this.marginRows.length === MARGIN_BATCH) this.convertMargins();
  }

  /** Converts the margins waiting in marginTokens into `margins`, as JSON.parse reads them. */
  private convertMargins(): void {
    const values = numberValues(this.marginTokens.view(), this.marginRanges.view());
    const rows = this.marginRows.data;
    if (this.margins.length < this.rows + 1) {
      const larger = new Float64Array(Math.max(2 * this.margins.length, this.rows + 1)).fill(NaN);
      larger.set(this.margins);
      this.margins = larger;
    }
    for (let k = 0; k < values.length; k++) {
      if (!Number.isFinite(values[k])) throw NOT_PLAIN; // 1e999 parses to Infinity, which zod refuses
      this.margins[rows[k]] = values[k];
    }
    this.marginTokens.length = 0;
    this.marginRanges.length = 0;
    this.marginRows.length = 0;
  }

  /**
   * A row with escaped strings (rare): its id, reason and candidates are rewritten, decoded, into the arena,
   * which the row then points into. JSON.parse of each token gives exactly the string JSON.parse of the file would.
   */
  private unescapeRow(): void {
    const row = this.row;
    const source = row.bytes;
    const arena = this.arena;
    arena.length = 0;
    const rewrite = (start: number, end: number): [number, number] => {
      const at = arena.length;
      const escaped = source.subarray(start, end).includes(0x5c);
      if (escaped) arena.writeText(JSON.parse(textOf(source, start - 1, end + 1)) as string);
      else {
        arena.reserve(end - start);
        arena.data.set(source.subarray(start, end), at);
        arena.length += end - start;
      }
      return [at, arena.length];
    };
    [row.idStart, row.idEnd] = rewrite(row.idStart, row.idEnd);
    if (row.reasonStart <= row.reasonEnd) [row.reasonStart, row.reasonEnd] = rewrite(row.reasonStart, row.reasonEnd);
    for (let k = 0; k < Math.max(row.count, 0); k++)
      [row.candidates[2 * k], row.candidates[2 * k + 1]] = rewrite(row.candidates[2 * k], row.candidates[2 * k + 1]);
    row.marginStart = 1; // recorded already, from the window
    row.marginEnd = 0;
    row.bytes = arena.data;
  }
}
