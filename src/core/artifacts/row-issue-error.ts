import type { z } from 'zod';
import { issuePath } from '../text/zod-issues.ts';
import { ArtifactError, quoteId } from './artifact-error.ts';

// Apart from artifact-error.ts because these load zod, which the scorer's byte readers never need (start-up time
// counts in drb score's throughput).

/**
 * Where a problem sits inside row `index` of an artifact array: `id "7" references[1]` when the row has a usable
 * string id (people search their files by id), else `[3].references[1]`.
 * @param index the row's position in the top-level array
 * @param id the row's id when it is a non-empty string, else undefined
 * @param path the field path inside the row
 */
export function rowLocation(index: number, id: string | undefined, path: readonly PropertyKey[]): string {
  const field = path.length === 0 ? '' : issuePath(path);
  if (id !== undefined) return field === '' ? `id ${quoteId(id)}` : `id ${quoteId(id)} ${field}`;
  if (field === '') return `[${index}]`;
  return field.startsWith('[') ? `[${index}]${field}` : `[${index}].${field}`;
}

/** Turns the first issue of a failed row parse into an ArtifactError located at that row. */
export function rowIssueError(
  fileName: string,
  index: number,
  id: string | undefined,
  error: z.ZodError,
): ArtifactError {
  const issue = error.issues[0];
  return new ArtifactError(fileName, rowLocation(index, id, issue.path), issue.message);
}
