import { ITEM_LABELS } from './artifact-enums.ts';
import type { ItemFormat, ItemRow } from './items.ts';
import { JsonScanner, NOT_PLAIN, NotPlainJson } from './json-scanner.ts';
import { ByteSink, ByteStringIndex, bytesEqual, textOf, U32List, WordCodes } from './text-bytes.ts';

// Label codes in ItemTable.labels: the index in ITEM_LABELS.
const CLEAN = ITEM_LABELS.indexOf('clean');
const UNSPECIFIED = ITEM_LABELS.indexOf('unspecified');

/**
 * Item rows as the scorer works on them: every text is a range of one UTF-8 buffer (see text-bytes.ts), so a large
 * items file stays one buffer plus a few integer arrays. Made by {@link readItemTable} straight from the file's
 * bytes, or by {@link itemTableOf} from rows the zod path parsed.
 */
export interface ItemTable {
  /** how many rows */
  rows: number;
  /** the buffer every range below points into */
  text: Uint8Array;
  /** row r's id is text[ids[2r], ids[2r + 1]) */
  ids: Uint32Array;
  /** row r's input is text[inputs[2r], inputs[2r + 1]) */
  inputs: Uint32Array;
  /** row r's references are the ranges (refs[2k], refs[2k + 1]) for k from refIndex[r] to refIndex[r + 1] - 1 */
  refIndex: Uint32Array;
  refs: Uint32Array;
  /** row r's label as an index into ITEM_LABELS (artifact-enums.ts) */
  labels: Uint8Array;
  /** the ids, to find a row by the bytes of its id */
  index: ByteStringIndex;
}

/** Row r's id as a string. */
export function itemId(table: ItemTable, r: number): string {
  return textOf(table.text, table.ids[2 * r], table.ids[2 * r + 1]);
}

/** The rows of a table as objects (for the few callers that want them; the scorer works on the table). */
export function itemRowsOf(table: ItemTable): ItemRow[] {
  const rows: ItemRow[] = new Array(table.rows);
  for (let r = 0; r < table.rows; r++) {
    const references: string[] = [];
    for (let k = table.refIndex[r]; k < table.refIndex[r + 1]; k++)
      references.push(textOf(table.text, table.refs[2 * k], table.refs[2 * k + 1]));
    rows[r] = {
      id: itemId(table, r),
      input: textOf(table.text, table.inputs[2 * r], table.inputs[2 * r + 1]),
      references,
      label: ITEM_LABELS[table.labels[r]],
    };
  }
  return rows;
}

/**
 * Reads an items file straight from its bytes, for files in the plain shape: valid UTF-8 and JSON, every row as its
 * schema wants it (GenericItemRow or AjimeeItemRow in items.ts, mirrored here key by key), no key twice in a row,
 * unique ids, at least one row, and `clean` rows whose input is a reference.
 * @param bytes the file's raw bytes (one leading BOM allowed)
 * @param format the file's layout
 * @returns the table; or undefined for anything else, which parseItems then reads (and names the problem, if any)
 */
export function readItemTable(bytes: Uint8Array, format: ItemFormat): ItemTable | undefined {
  if (format !== 'generic' && format !== 'ajimee') return undefined; // parseItems names the unknown format
  try {
    return new ItemReader(bytes, format).read();
  } catch (error) {
    if (error instanceof NotPlainJson) return undefined;
    throw error;
  }
}

/**
 * The table of rows already parsed and checked by parseItems (the zod path).
 * @param rows the parsed rows (unique ids)
 */
export function itemTableOf(rows: readonly ItemRow[]): ItemTable {
  const sink = new ByteSink();
  const ids = new Uint32Array(rows.length * 2);
  const inputs = new Uint32Array(rows.length * 2);
  const refIndex = new Uint32Array(rows.length + 1);
  const refs = new U32List();
  const labels = new Uint8Array(rows.length);
  const put = (value: string, into: Uint32Array, at: number) => {
    into[at] = sink.length;
    sink.writeText(value);
    into[at + 1] = sink.length;
  };
  rows.forEach((row, r) => {
    put(row.id, ids, 2 * r);
    put(row.input, inputs, 2 * r);
    for (const reference of row.references) {
      refs.push(sink.length);
      sink.writeText(reference);
      refs.push(sink.length);
    }
    refIndex[r + 1] = refs.length / 2;
    labels[r] = ITEM_LABELS.indexOf(row.label);
  });
  const text = sink.view();
  const index = ByteStringIndex.ofRanges(text, ids);
  if (index === undefined) throw new RangeError('item ids must be unique');
  return { rows: rows.length, text, ids, inputs, refIndex, refs: refs.view(), labels, index };
}

// Keys, as bytes, and what each one is in its format.
const KEY_ID = 1;
const KEY_INPUT = 2;
const KEY_REFERENCES = 4;
const KEY_LABEL = 8;
const KEY_OTHER = 16;
const GENERIC_KEYS = new WordCodes([
  ['id', KEY_ID],
  ['input', KEY_INPUT],
  ['references', KEY_REFERENCES],
  ['label', KEY_LABEL],
]);
const AJIMEE_KEYS = new WordCodes([
  ['index', KEY_ID],
  ['input', KEY_INPUT],
  ['expected_output', KEY_REFERENCES],
]);
const LABEL_VALUES = new WordCodes(ITEM_LABELS.map((label, code) => [label, code]));

/**
 * Records string tokens as ranges of the table's text: the file's own bytes when the token has no escape, or its
 * decoded form appended to `arena` (numbered after the file's bytes, which the final text buffer puts first).
 */
class RangeWriter {
  readonly arena = new ByteSink(256);

  constructor(readonly scanner: JsonScanner) {}

  /** Pushes the range of the string token the scanner just read. */
  push(out: U32List): void {
    const s = this.scanner;
    if (!s.escaped) {
      out.push(s.start);
      out.push(s.end);
      return;
    }
    // Escapes are rare: JSON.parse of the token itself gives exactly the string JSON.parse of the file would.
    const value = JSON.parse(textOf(s.bytes, s.start - 1, s.end + 1)) as string;
    const start = s.bytes.length + this.arena.length;
    this.arena.writeText(value);
    out.push(start);
    out.push(s.bytes.length + this.arena.length);
  }

  /** The table's text: the file's bytes, followed by the decoded escaped strings when there were any. */
  text(): Uint8Array {
    const bytes = this.scanner.bytes;
    if (this.arena.length === 0) return bytes;
    const text = new Uint8Array(bytes.length + this.arena.length);
    text.set(bytes);
    text.set(this.arena.view(), bytes.length);
    return text;
  }
}

class ItemReader {
  private readonly s: JsonScanner;
  private readonly writer: RangeWriter;
  private readonly keys: WordCodes;
  private readonly ids: U32List;
  private readonly inputs: U32List;
  private readonly refIndex: U32List;
  private readonly refs: U32List;
  private readonly labels: U32List;

  constructor(
    bytes: Uint8Array,
    private readonly format: ItemFormat,
  ) {
    // Sized for rows of about 128 bytes or more (real rows hold more), so that a large file rarely grows a list:
    // each growth copies the list into fresh memory, which is slow to touch on these machines.
    const rows = (bytes.length >>> 7) + 16;
    this.ids = new U32List(2 * rows);
    this.inputs = new U32List(2 * rows);
    this.refIndex = new U32List(rows + 1);
    this.refs = new U32List(4 * rows);
    this.labels = new U32List(rows);
    this.s = new JsonScanner(bytes);
    this.writer = new RangeWriter(this.s);
    this.keys = format === 'ajimee' ? AJIMEE_KEYS : GENERIC_KEYS;
  }

  read(): ItemTable {
    const s = this.s;
    s.expect(0x5b);
    if (s.take(0x5d)) throw NOT_PLAIN; // zero rows: parseItems says so
    this.refIndex.push(0);
    do this.row();
    while (s.take(0x2c));
    s.expect(0x5d);
    s.finish();
    return this.table();
  }

  private row(): void {
    const s = this.s;
    const bytes = s.bytes;
    s.expect(0x7b);
    let seen = 0;
    let label = UNSPECIFIED;
    if (!s.take(0x7d)) {
      do {
        s.string();
        if (s.escaped) throw NOT_PLAIN; // an escaped key: leave it to JSON.parse
        const key = this.keys.match(bytes, s.start, s.end, KEY_OTHER);
        s.expect(0x3a);
        if (key === KEY_OTHER) {
          if (this.format !== 'ajimee') throw NOT_PLAIN; // generic rows allow no other keys
          s.skipValue();
          continue;
        }
        if ((seen & key) !== 0) throw NOT_PLAIN; // a key twice: JSON.parse keeps the last, zod sees that one
        seen |= key;
        if (key === KEY_ID) {
          s.string();
          if (s.end === s.start) throw NOT_PLAIN; // ids must not be empty
          this.writer.push(this.ids);
        } else if (key === KEY_INPUT) {
          s.string();
          this.writer.push(this.inputs);
        } else if (key === KEY_REFERENCES) {
          s.expect(0x5b);
          if (s.take(0x5d)) throw NOT_PLAIN; // at least one reference
          do {
            s.string();
            if (s.end === s.start) throw NOT_PLAIN; // references must not be empty
            this.writer.push(this.refs);
          } while (s.take(0x2c));
          s.expect(0x5d);
        } else {
          s.string();
          if (s.escaped) throw NOT_PLAIN;
          label = LABEL_VALUES.match(bytes, s.start, s.end, -1);
          if (label < 0) throw NOT_PLAIN;
        }
      } while (s.take(0x2c));
      s.expect(0x7d);
    }
    if ((seen & (KEY_ID | KEY_INPUT | KEY_REFERENCES)) !== (KEY_ID | KEY_INPUT | KEY_REFERENCES)) throw NOT_PLAIN;
    this.refIndex.push(this.refs.length / 2);
    this.labels.push(label);
  }

  private table(): ItemTable {
    const rows = this.labels.length;
    const text = this.writer.text();
    const ids = this.ids.view();
    const inputs = this.inputs.view();
    const refIndex = this.refIndex.view();
    const refs = this.refs.view();
    const labels = Uint8Array.from(this.labels.view());
    const index = ByteStringIndex.ofRanges(text, ids);
    if (index === undefined) throw NOT_PLAIN; // a duplicate id: parseItems names both rows
    for (let r = 0; r < rows; r++) {
      if (labels[r] === CLEAN) {
        let found = false;
        for (let k = refIndex[r]; k < refIndex[r + 1] && !found; k++) {
          found = bytesEqual(text, refs[2 * k], refs[2 * k + 1], text, inputs[2 * r], inputs[2 * r + 1]);
        }
        if (!found) throw NOT_PLAIN; // parseItems explains that a clean row's input must be a reference
      }
    }
    return { rows, text, ids, inputs, refIndex, refs, labels, index };
  }
}
