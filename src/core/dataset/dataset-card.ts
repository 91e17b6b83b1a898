/**
 * The dataset card (`dataset.json`, `drb.dataset-card.v1`) that `drb receipts export` writes beside the tables: the
 * dataset version, what made it, the licence the publisher declared, every table with its file, row count and column
 * documentation, and every input file with its SHA-256, so anyone can check which receipts a published dataset holds.
 * It holds no time of its own: the same inputs give the same card.
 */
import { z } from 'zod';
import { Identifier, textLine, Version } from '../text/bounded-text.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';
import { DATASET_VERSION, TABLE_COLUMNS, TABLE_DOCS, TABLE_NAMES, type TableName } from './dataset-tables.ts';

/** The card's schema id. */
export const DATASET_CARD_SCHEMA = 'drb.dataset-card.v1';

/** The formats `drb receipts export` writes. */
export const DatasetFormat = z.enum(['parquet', 'csv', 'jsonl']);
export type DatasetFormat = z.infer<typeof DatasetFormat>;

const Text = textLine(4096);
const Count = z.number().int().nonnegative();
const Sha256 = z.string().regex(SHA256_PATTERN, 'expected a lowercase hex SHA-256');

/** How an input file was taken. */
export const InputUse = z.enum(['receipt', 'bundle', 'copy', 'not-a-receipt', 'skipped-invalid']);
export type InputUse = z.infer<typeof InputUse>;

export const DatasetCard = z.strictObject({
  schema: z.literal(DATASET_CARD_SCHEMA),
  dataset_version: z.literal(DATASET_VERSION),
  generator: z.strictObject({ name: z.literal('drb receipts export'), drb_version: Version }),
  /** The licence the publisher declared with `--license` (an SPDX id such as CC-BY-4.0, or any one line). */
  license: textLine(256).pipe(z.string().min(1)),
  format: DatasetFormat,
  /** Parquet: the column-chunk codec; csv and jsonl are not compressed. */
  compression: z.enum(['SNAPPY', 'none']),
  tables: z.array(
    z.strictObject({
      name: z.enum(TABLE_NAMES),
      file: Identifier,
      rows: Count,
      description: Text,
      columns: z.array(
        z.strictObject({
          name: Identifier,
          type: z.enum(['string', 'int64', 'double', 'boolean', 'timestamp']),
          description: Text,
        }),
      ),
    }),
  ),
  counts: z.strictObject({
    input_files: Count,
    receipts: Count,
    device_receipts: Count,
    generation_receipts: Count,
    suite_receipts: Count,
    comparison_receipts: Count,
    /** Byte-identical copies of a receipt already exported (a receipt counts once). */
    copies: Count,
    /** Valid drb artifacts that are not receipts (summaries, reviews, score reports ...): not exported. */
    not_receipts: Count,
    /** Files (or bundled receipts) left out with `--skip-invalid`. */
    skipped_invalid: Count,
  }),
  /** Every input file: as shown, its bytes and SHA-256, how it was taken and how many receipts it gave. */
  inputs: z.array(
    z.strictObject({ file: Text, bytes: Count, sha256: Sha256.nullable(), taken_as: InputUse, receipts: Count }),
  ),
  /** What `--skip-invalid` left out, with the first problem of each. */
  skipped: z.array(z.strictObject({ file: Text, problem: Text })),
  /** How values are written in this format (CSV quoting and its formula guard, null, timestamps). */
  notes: z.array(Text),
});
export type DatasetCard = z.infer<typeof DatasetCard>;

/** The card's description of every table (names, files, documented columns) before the row counts are known. */
export function tableEntries(format: DatasetFormat, rows: Readonly<Record<TableName, number>>): DatasetCard['tables'] {
  return TABLE_NAMES.map((name) => ({
    name,
    file: `${name}.${format}`,
    rows: rows[name],
    description: TABLE_DOCS[name],
    columns: TABLE_COLUMNS[name].map((column) => ({ name: column.name, type: column.type, description: column.doc })),
  }));
}

/** How each format writes values (the card's `notes`). */
export function formatNotes(format: DatasetFormat): string[] {
  if (format === 'parquet') {
    return [
      'Parquet: strings UTF8 byte arrays, integers INT64, decimals DOUBLE, booleans BOOLEAN, timestamps INT64 TIMESTAMP(MILLIS, UTC); every column optional (null where a receipt kind has no such value); SNAPPY-compressed column chunks.',
    ];
  }
  if (format === 'csv') {
    return [
      'CSV (RFC 4180): a header row, comma-separated, LF line ends; string values always double-quoted with quotes doubled; null is an empty unquoted field; booleans true/false; timestamps ISO 8601 UTC.',
      "Formula guard: a string value that starts with =, +, -, @, a tab or a carriage return is written with a leading apostrophe (') so a spreadsheet never runs it as a formula; the Parquet and JSONL files hold the value unchanged.",
    ];
  }
  return [
    'JSON Lines: one JSON object per row, keys in column order; null where a receipt kind has no such value; timestamps ISO 8601 UTC strings.',
  ];
}
