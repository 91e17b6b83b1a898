import { z } from 'zod';
import { ArtifactError, decodeJsonBytes, quoteId, typeName, type Utf8Decoder } from './artifact-error.ts';
import { ITEM_FORMATS, ITEM_LABELS } from './artifact-enums.ts';
import { rowIssueError } from './row-issue-error.ts';

export { ArtifactError } from './artifact-error.ts';

/** Which item file layout to read: our generic one, or AJIMEE-Bench's `evaluation_items.json`. */
export const ItemFormat = z.enum(ITEM_FORMATS);
export type ItemFormat = z.infer<typeof ItemFormat>;

/** A row's declared role: `clean` rows are controls whose input is already correct (they feed overcorrection). */
export const ItemLabel = z.enum(ITEM_LABELS);
export type ItemLabel = z.infer<typeof ItemLabel>;

/**
 * Row ids are non-empty strings. Numbers are refused rather than converted, so `7` and `"7"` can never be two
 * spellings of one row across an items file and a predictions file.
 */
export const RowId = z
  .string({ error: (issue) => `id must be a string, got ${typeName(issue.input)}` })
  .min(1, 'id must not be empty');

/** An acceptable output: a non-empty string (an empty reference would make CER divide by zero). */
const Reference = z.string().min(1, 'must not be an empty string (CER divides by the reference length)');
const References = z.array(Reference).min(1, 'must list at least one reference');

/**
 * One row of a generic items file: `{id, input, references, label?}`; no other keys (a typo in a key is an error).
 * The scorer's byte reader (item-table.ts) checks the same rules without zod: a change here needs the same change
 * there (score-byte-readers.test.ts fails when the byte reader accepts a row this schema refuses).
 */
export const GenericItemRow = z.strictObject({
  id: RowId,
  input: z.string(),
  references: References,
  label: ItemLabel.optional(),
});
export type GenericItemRow = z.infer<typeof GenericItemRow>;

/** A generic items file: a JSON array of rows. */
export const GenericItemsFile = z.array(GenericItemRow);
export type GenericItemsFile = z.infer<typeof GenericItemsFile>;

/**
 * One row of AJIMEE-Bench's `evaluation_items.json`. Only `index`, `input` and `expected_output` are read; other
 * fields (context_text, original_text, ...) are allowed and ignored, so the upstream file
 * is read as published.
 * The scorer's byte reader (item-table.ts) mirrors this schema too.
 */
export const AjimeeItemRow = z.looseObject({
  index: RowId,
  input: z.string(),
  expected_output: References,
});
export type AjimeeItemRow = z.infer<typeof AjimeeItemRow>;

/** An AJIMEE items file: a JSON array of rows. */
export const AjimeeItemsFile = z.array(AjimeeItemRow);
export type AjimeeItemsFile = z.infer<typeof AjimeeItemsFile>;

/** A parsed item row, whatever the file format: what every scorer and suite run works on. */
export const ItemRow = z.strictObject({
  id: RowId,
  input: z.string(),
  references: References,
  label: ItemLabel,
});
export type ItemRow = z.infer<typeof ItemRow>;

/**
 * Parses an items artifact from its raw bytes.
 * @param bytes the file's raw bytes (UTF-8, one leading BOM accepted)
 * @param fileName the name to show in error messages (the path as the user gave it)
 * @param format `generic` (`{id, input, references, label?}`; missing label = unspecified) or `ajimee`
 *   (`index` as id, `expected_output` as references, label always `unspecified`)
 * @param fastDecode a faster UTF-8 decoder, if the caller has one (see decodeJsonBytes)
 * @returns the rows in file order
 * @throws ArtifactError on the first problem: bad encoding/JSON, a wrong type anywhere, an empty references list or
 *   empty-string reference, a duplicate id, a `clean` row whose input is not a reference, or zero rows
 */
export function parseItems(
  bytes: Uint8Array,
  fileName: string,
  format: ItemFormat,
  fastDecode?: Utf8Decoder,
): ItemRow[] {
  if (!ItemFormat.safeParse(format).success) {
    throw new ArtifactError(
      fileName,
      '$',
      `unknown items format ${JSON.stringify(format)} (expected generic or ajimee)`,
    );
  }
  const value = decodeJsonBytes(bytes, fileName, fastDecode);
  if (!Array.isArray(value)) {
    throw new ArtifactError(fileName, '$', `expected a JSON array of item rows, got ${typeName(value)}`);
  }
  if (value.length === 0) throw new ArtifactError(fileName, '$', 'the items file has no rows');
  const rows: ItemRow[] = new Array(value.length);
  const seen = new Map<string, number>();
  const idKey = format === 'ajimee' ? 'index' : 'id';
  for (let index = 0; index < value.length; index++) {
    const raw: unknown = value[index];
    const rawId = usableId(raw, idKey);
    let row: ItemRow;
    if (format === 'ajimee') {
      let data: AjimeeItemRow;
      if (isPlainAjimeeRow(raw)) data = raw;
      else {
        const parsed = AjimeeItemRow.safeParse(raw);
        if (!parsed.success) throw rowIssueError(fileName, index, rawId, parsed.error);
        data = parsed.data;
      }
      row = { id: data.index, input: data.input, references: data.expected_output, label: 'unspecified' };
    } else {
      if (isPlainGenericRow(raw)) {
        // The value is our own fresh JSON.parse result, so completing it in place is safe and spares 100,000
        // short-lived copies on a large file.
        if (raw.label === undefined) raw.label = 'unspecified';
        row = raw as ItemRow;
      } else {
        const parsed = GenericItemRow.safeParse(raw);
        if (!parsed.success) throw rowIssueError(fileName, index, rawId, parsed.error);
        const { id, input, references, label } = parsed.data;
        row = { id, input, references, label: label ?? 'unspecified' };
      }
      if (row.label === 'clean' && !row.references.includes(row.input)) {
        throw new ArtifactError(
          fileName,
          `id ${quoteId(row.id)} input`,
          'label is clean but the input is not one of its references',
        );
      }
    }
    const earlier = seen.get(row.id);
    if (earlier !== undefined) {
      throw new ArtifactError(
        fileName,
        `id ${quoteId(row.id)}`,
        `duplicate ${idKey} (rows [${earlier}] and [${index}])`,
      );
    }
    seen.set(row.id, index);
    rows[index] = row;
  }
  return rows;
}

// Fast paths, written by hand because they matter for speed: zod's safeParse costs about 3 µs per row, which is most
// of the validation time on a 100,000-row file. Each check accepts only rows its zod schema also accepts (a unit
// test checks this on thousands of generated rows); anything else goes through zod, whose result and error message
// remain the single source of truth.

/** True only for a row GenericItemRow accepts as it is. */
export function isPlainGenericRow(raw: unknown): raw is GenericItemRow {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  const row = raw as Record<string, unknown>;
  for (const key in row) {
    if (key !== 'id' && key !== 'input' && key !== 'references' && key !== 'label') return false;
  }
  const label = row.label;
  return (
    typeof row.id === 'string' &&
    row.id !== '' &&
    typeof row.input === 'string' &&
    isReferenceList(row.references) &&
    (label === undefined || label === 'clean' || label === 'typo' || label === 'unspecified')
  );
}

/** True only for a row AjimeeItemRow accepts as it is (other keys allowed, as in the schema). */
export function isPlainAjimeeRow(raw: unknown): raw is AjimeeItemRow {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  const row = raw as Record<string, unknown>;
  return (
    typeof row.index === 'string' &&
    row.index !== '' &&
    typeof row.input === 'string' &&
    isReferenceList(row.expected_output)
  );
}

function isReferenceList(value: unknown): value is string[] {
  if (!Array.isArray(value) || value.length === 0) return false;
  for (const reference of value) if (typeof reference !== 'string' || reference === '') return false;
  return true;
}

/** The row's id when it is a non-empty string (so messages can name the row by it), else undefined. */
export function usableId(raw: unknown, key: string): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const id = (raw as Record<string, unknown>)[key];
  return typeof id === 'string' && id !== '' ? id : undefined;
}
