/**
 * The candidates artifact a suite run reranks: `[{id, candidates}]`, one row per item row, as written by a
 * candidate generator. Parsing reuses the items/predictions error conventions (one `ArtifactError` line naming
 * the file and the row) so the page and the CLI report a bad file the same way.
 */
import { z } from 'zod';
import { ArtifactError, decodeJsonBytes, quoteId, typeName } from '../artifacts/artifact-error.ts';
import { rowIssueError } from '../artifacts/row-issue-error.ts';
import { RowId, usableId, type ItemRow } from '../artifacts/items.ts';

/** One candidates row: the item id and its finite candidate list (an empty string is a real candidate). */
export const CandidatesRow = z.strictObject({
  id: RowId,
  candidates: z.array(z.string({ error: (issue) => `must be a string, got ${typeName(issue.input)}` })),
});
export type CandidatesRow = z.infer<typeof CandidatesRow>;

/** A candidates file: a JSON array of rows. */
export const CandidatesFile = z.array(CandidatesRow);
export type CandidatesFile = z.infer<typeof CandidatesFile>;

/**
 * Parses a candidates artifact from its raw bytes.
 * @param bytes the file's raw bytes (UTF-8, one leading BOM accepted)
 * @param fileName the display name used in error messages (the name the user picked)
 * @returns the rows in file order
 * @throws ArtifactError on the first problem: bad encoding or JSON, not an array, no rows, a wrong type or unknown
 *   key in a row, a duplicate id
 */
export function parseCandidates(bytes: Uint8Array, fileName: string): CandidatesRow[] {
  const value = decodeJsonBytes(bytes, fileName);
  if (!Array.isArray(value)) {
    throw new ArtifactError(fileName, '$', `expected a JSON array of candidate rows, got ${typeName(value)}`);
  }
  if (value.length === 0) throw new ArtifactError(fileName, '$', 'the candidates file has no rows');
  const rows: CandidatesRow[] = new Array(value.length);
  const seen = new Map<string, number>();
  for (let index = 0; index < value.length; index++) {
    const raw: unknown = value[index];
    const parsed = CandidatesRow.safeParse(raw);
    if (!parsed.success) throw rowIssueError(fileName, index, usableId(raw, 'id'), parsed.error);
    const earlier = seen.get(parsed.data.id);
    if (earlier !== undefined) {
      throw new ArtifactError(
        fileName,
        `id ${quoteId(parsed.data.id)}`,
        `duplicate id (rows [${earlier}] and [${index}])`,
      );
    }
    seen.set(parsed.data.id, index);
    rows[index] = parsed.data;
  }
  return rows;
}

/**
 * Checks that every candidates row names an item row.
 * @param rows the parsed candidates rows
 * @param items the parsed item rows they must refer to
 * @param fileName the candidates file's display name, for the message
 * @throws ArtifactError naming the first row whose id is not an item id
 */
export function checkCandidatesAgainstItems(
  rows: readonly CandidatesRow[],
  items: readonly ItemRow[],
  fileName: string,
): void {
  const itemIds = new Set(items.map((item) => item.id));
  for (const row of rows) {
    if (!itemIds.has(row.id))
      throw new ArtifactError(fileName, `id ${quoteId(row.id)}`, 'names no row of the items file');
  }
}
