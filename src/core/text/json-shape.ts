/**
 * Checks on parsed JSON that come before any schema: keys that JavaScript objects treat specially, and nesting deeper
 * than any drb artifact has. JSON.parse keeps a `__proto__` key as an own property, but copying the object (zod's
 * records, `Object.assign`, assignment in a loop) turns it into the copy's prototype: the key and everything under
 * it vanish before a schema, a text scan or a URL scan sees them. So such a key is refused wherever it is, on the
 * value exactly as parsed. Deep nesting is refused before a recursive walker runs out of stack on it. Iterative: a
 * hostile document cannot overflow the stack here either.
 */
import { childPath } from './zod-issues.ts';

/** Keys refused in every drb artifact: a copy of the object drops them (see the module comment). */
export const SPECIAL_KEYS: ReadonlySet<string> = new Set(['__proto__']);

/** The deepest nesting of objects and arrays any drb artifact needs (a receipt is about 6 levels deep). */
export const MAX_JSON_DEPTH = 64;

/** One problem with the shape of a parsed value: the field path and what is wrong. */
export interface ShapeProblem {
  path: string;
  message: string;
}

/**
 * Special keys anywhere in `value` (own properties, as JSON.parse made them) and nesting deeper than MAX_JSON_DEPTH,
 * as problems with their field paths. Stops at the first nesting problem (everything under it is not looked at).
 * @param value parsed JSON
 * @param skip field paths whose subtrees are not looked at (a bundle's receipts, checked as documents of their own)
 * @param maxProblems at most this many problems are returned
 */
export function jsonShapeProblems(
  value: unknown,
  skip: (path: string) => boolean = () => false,
  maxProblems = 100,
): ShapeProblem[] {
  const problems: ShapeProblem[] = [];
  const stack: Array<{ node: unknown; path: string; depth: number }> = [{ node: value, path: '', depth: 0 }];
  while (stack.length > 0 && problems.length < maxProblems) {
    const { node, path, depth } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      problems.push({
        path: path || '(root)',
        message: `is nested deeper than ${MAX_JSON_DEPTH} levels; no drb artifact is`,
      });
      return problems;
    }
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        const child = childPath(path, i);
        if (!skip(child)) stack.push({ node: node[i], path: child, depth: depth + 1 });
      }
      continue;
    }
    const keys = Object.keys(node);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      const child = childPath(path, key);
      if (SPECIAL_KEYS.has(key)) {
        problems.push({
          path: child,
          message: `a key named ${key} is never a drb field (a copy of the object would drop it and what it holds)`,
        });
        continue;
      }
      if (!skip(child)) stack.push({ node: (node as Record<string, unknown>)[key], path: child, depth: depth + 1 });
    }
  }
  return problems;
}
