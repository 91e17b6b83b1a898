/**
 * Deep equality of two recomputed values where numbers may differ in their last bits: a number recomputed in Node
 * from a receipt's samples can differ by an ulp from the one a browser computed (engines do not promise correctly
 * rounded `Math.exp` or `Math.log`), so invariants compare numbers to a relative 1e-9 and everything else exactly.
 */

/**
 * True when `a` and `b` have the same shape and values, numbers equal within `relative` (of the larger magnitude,
 * at least 1), strings, booleans and nulls exactly.
 * @param a one value (JSON-like)
 * @param b the other
 * @param relative the relative tolerance for numbers (default 1e-9)
 */
export function sameWithin(a: unknown, b: unknown, relative = 1e-9): boolean {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return false;
    if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
    return Math.abs(a - b) <= relative * Math.max(1, Math.abs(a), Math.abs(b));
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameWithin(x, b[i], relative))
    );
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
    const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
    return (
      ka.length === kb.length &&
      ka.every(
        (k) =>
          Object.hasOwn(b, k) &&
          sameWithin((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], relative),
      )
    );
  }
  return a === b;
}
