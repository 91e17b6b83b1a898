/**
 * The walk every receipt kind's validation shares: every string in a value (a parsed receipt, or the JSON as read)
 * that still holds a URL with a query, a fragment or credentials, with its field path.
 */
import { containsUnredactedUrl } from './redact.ts';
import { childPath } from './zod-issues.ts';

/** One string holding an unredacted URL: its path (dot/bracket notation) and what is wrong. */
export interface UnredactedUrlProblem {
  path: string;
  message: string;
}

/**
 * Every string in `value` that holds a URL with a query, fragment or credentials.
 * @param value the value to walk
 */
export function unredactedUrlProblems(value: unknown): UnredactedUrlProblem[] {
  const problems: UnredactedUrlProblem[] = [];
  walk(value, problems, []);
  return problems;
}

function walk(value: unknown, problems: UnredactedUrlProblem[], steps: Array<string | number>): void {
  if (typeof value === 'string') {
    // The path is built only for a problem: most strings hold no URL at all.
    if (containsUnredactedUrl(value))
      problems.push({
        path: steps.reduce<string>(childPath, ''),
        message: 'holds a URL with a query, fragment or credentials',
      });
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      steps.push(index);
      walk(value[index], problems, steps);
      steps.pop();
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      steps.push(key);
      walk((value as Record<string, unknown>)[key], problems, steps);
      steps.pop();
    }
  }
}
