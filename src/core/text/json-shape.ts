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
export function jsonShapeProblems(value: unknown, skip?: (path: string) => boolean, maxProblems = 100): ShapeProblem[] {
  const problems: ShapeProblem[] = [];
  // A node's path is built only when something needs it (a problem, or `skip`): building one for every key of every
  // receipt was most of this scan's cost in `drb receipts export`.
  const stack: ShapeFrame[] = [{ node: value, parent: null, key: '', depth: 0, path: '' }];
  while (stack.length > 0 && problems.length < maxProblems) {
    const frame = stack.pop()!;
    const { node, depth } = frame;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      problems.push({
        path: framePath(frame) || '(root)',
        message: `is nested deeper than ${MAX_JSON_DEPTH} levels; no drb artifact is`,
      });
      return problems;
    }
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        const child: ShapeFrame = { node: node[i], parent: frame, key: i, depth: depth + 1 };
        if (skip === undefined || !skip(framePath(child))) stack.push(child);
      }
      continue;
    }
    const keys = Object.keys(node);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      const child: ShapeFrame = {
        node: (node as Record<string, unknown>)[key],
        parent: frame,
        key,
        depth: depth + 1,
      };
      if (SPECIAL_KEYS.has(key)) {
        problems.push({
          path: framePath(child),
          message: `a key named ${key} is never a drb field (a copy of the object would drop it and what it holds)`,
        });
        continue;
      }
      if (skip === undefined || !skip(framePath(child))) stack.push(child);
    }
  }
  return problems;
}

/** A node the shape scan has still to look at: its parent and key give its path when one is needed. */
interface ShapeFrame {
  node: unknown;
  parent: ShapeFrame | null;
  key: string | number;
  depth: number;
  path?: string;
}

function framePath(frame: ShapeFrame): string {
  if (frame.path === undefined) frame.path = childPath(framePath(frame.parent!), frame.key);
  return frame.path;
}
