/**
 * One way to turn a zod issue into text, for every reader that validates with `safeParse`: the field path in
 * zod's own dot/bracket notation (`route.attempts[0].ep`, `meta["odd key"]`), or `(root)` for the value itself.
 */
import { z } from 'zod';
import { memoizeStringCheck } from './string-memo.ts';

/** What a problem about the parsed value as a whole names instead of a field path. */
export const ROOT_PATH = '(root)';

/**
 * A zod issue path as text: zod's own `toDotPath`, so the notation is the one zod documents and quotes odd keys.
 * @param path the issue's `path`
 * @returns the dot/bracket path, or `(root)` for an empty path
 */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? ROOT_PATH : z.core.toDotPath(path);
}

/**
 * One problem line per issue: `<field path>: <message>`.
 * @param error the error from a failed `safeParse`
 */
export function issueLines(error: z.ZodError): string[] {
  return error.issues.map(issueLine);
}

/**
 * The first issue as `<field path>: <message>` (readers that stop at the first problem).
 * @param error the error from a failed `safeParse`
 */
export function firstIssueLine(error: z.ZodError): string {
  return issueLine(error.issues[0]);
}

function issueLine(issue: z.core.$ZodIssue): string {
  return `${issuePath(issue.path)}: ${issue.message}`;
}

/**
 * The path of `key` inside the value at `parent`, in the notation `issuePath` uses, for walkers that build paths
 * as they go (so their problems and zod's name the same field the same way).
 * @param parent the parent's path ('' for the root value)
 * @param key an object key or an array index
 */
export function childPath(parent: string, key: string | number): string {
  const step = typeof key === 'number' ? `[${key}]` : keyStep(key);
  return parent === '' || step.startsWith('[') ? `${parent}${step}` : `${parent}.${step}`;
}

// Walkers call childPath for every key of every receipt, and receipts repeat the same few hundred keys: zod's
// toDotPath per call was a tenth of `drb receipts validate`'s CPU. Bounded, so a stranger's file of a million
// distinct keys cannot grow it without limit.
const keyStep = memoizeStringCheck((key) => z.core.toDotPath([key]), 4_096);
