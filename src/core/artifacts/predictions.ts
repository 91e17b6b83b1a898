import { z } from 'zod';
import { ArtifactError, decodeJsonBytes, quoteId, typeName, type Utf8Decoder } from './artifact-error.ts';
import { PROVENANCES } from './artifact-enums.ts';
import { rowIssueError } from './row-issue-error.ts';
import { RowId, usableId } from './items.ts';

export { ArtifactError } from './artifact-error.ts';

/** Who produced a row's candidates, as declared by the artifact (never checked, never used by a metric). */
export const Provenance = z.enum(PROVENANCES);
export type Provenance = z.infer<typeof Provenance>;

/**
 * One prediction row: `{id, candidates, provenance?, reason?, margin?}`. `candidates` missing, null or `[]` means
 * the row abstains (its effective output is the item's input); an empty string inside a non-empty list is a real
 * candidate. `reason` is a free machine-readable string and `margin` a finite number; both are declared values.
 * The scorer's byte reader (prediction-table.ts) checks the same rules without zod: a change here needs the same
 * change there (score-byte-readers.test.ts fails when the byte reader accepts a row this schema refuses).
 */
export const PredictionRow = z.strictObject({
  id: RowId,
  candidates: z.array(z.string()).nullable().optional(),
  provenance: Provenance.optional(),
  reason: z.string().optional(),
  margin: z.number({ error: (issue) => `must be a finite number, got ${typeName(issue.input)}` }).optional(),
});
export type PredictionRow = z.infer<typeof PredictionRow>;

/** A predictions file: a JSON array of rows (zero rows is allowed: every item row then abstains). */
export const PredictionsFile = z.array(PredictionRow);
export type PredictionsFile = z.infer<typeof PredictionsFile>;

/**
 * Parses a predictions artifact from its raw bytes. Whether each id names an item row is checked by the scorer,
 * which sees both files.
 * @param bytes the file's raw bytes (UTF-8, one leading BOM accepted)
 * @param fileName the name to show in error messages (the path as the user gave it)
 * @param fastDecode a faster UTF-8 decoder, if the caller has one (see decodeJsonBytes)
 * @returns the rows in file order
 * @throws ArtifactError on the first problem: bad encoding/JSON, a wrong type anywhere, an unknown key, a duplicate id
 */
export function parsePredictions(bytes: Uint8Array, fileName: string, fastDecode?: Utf8Decoder): PredictionRow[] {
  return parsePredictionsValue(decodeJsonBytes(bytes, fileName, fastDecode), fileName);
}

/**
 * Checks an already-decoded JSON value as a predictions artifact (for callers that had to look inside the file
 * first, such as `drb compare`, which also accepts score reports).
 * @param value the result of JSON.parse on the file
 * @param fileName the name to show in error messages
 */
export function parsePredictionsValue(value: unknown, fileName: string): PredictionRow[] {
  if (!Array.isArray(value)) {
    throw new ArtifactError(fileName, '$', `expected a JSON array of prediction rows, got ${typeName(value)}`);
  }
  const rows: PredictionRow[] = new Array(value.length);
  const seen = new Map<string, number>();
  for (let index = 0; index < value.length; index++) {
    const raw: unknown = value[index];
    let row: PredictionRow;
    if (isPlainPredictionRow(raw)) row = raw;
    else {
      const parsed = PredictionRow.safeParse(raw);
      if (!parsed.success) throw rowIssueError(fileName, index, usableId(raw, 'id'), parsed.error);
      row = parsed.data;
    }
    const earlier = seen.get(row.id);
    if (earlier !== undefined) {
      throw new ArtifactError(fileName, `id ${quoteId(row.id)}`, `duplicate id (rows [${earlier}] and [${index}])`);
    }
    seen.set(row.id, index);
    rows[index] = row;
  }
  return rows;
}

/**
 * True only for a row PredictionRow accepts as it is. Written by hand for speed (zod's safeParse is most of the
 * validation time on large files); anything this refuses goes through zod, which stays the source of truth for the
 * result and the error message. A unit test checks that this never accepts a row zod refuses.
 */
export function isPlainPredictionRow(raw: unknown): raw is PredictionRow {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  const row = raw as Record<string, unknown>;
  for (const key in row) {
    if (key !== 'id' && key !== 'candidates' && key !== 'provenance' && key !== 'reason' && key !== 'margin')
      return false;
  }
  if (typeof row.id !== 'string' || row.id === '') return false;
  const candidates = row.candidates;
  if (candidates !== undefined && candidates !== null) {
    if (!Array.isArray(candidates)) return false;
    for (const candidate of candidates) if (typeof candidate !== 'string') return false;
  }
  const provenance = row.provenance;
  if (
    provenance !== undefined &&
    provenance !== 'provider' &&
    provenance !== 'deberta' &&
    provenance !== 'lfm' &&
    provenance !== 'rule' &&
    provenance !== 'unspecified'
  ) {
    return false;
  }
  if (row.reason !== undefined && typeof row.reason !== 'string') return false;
  return row.margin === undefined || (typeof row.margin === 'number' && Number.isFinite(row.margin));
}
