import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/evidence/target-identity.ts';
import { childPath } from '../../src/core/text/zod-issues.ts';
import { z } from 'zod';

// The straightforward definition canonicalJson was first written as; the loop version must give the same string.
function reference(value: unknown): string {
  const unicode = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(unicode).join(',')}]`;
    if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>)
        .filter(([, item]) => item !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${unicode(item)}`).join(',')}}`;
    }
    return JSON.stringify(v);
  };
  return unicode(value).replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// A seeded generator of JSON-like values: odd keys (astral, quotes, digits, empty), nesting, undefined members.
function generated(seed: number): unknown[] {
  let state = seed;
  const next = (n: number): number => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  const KEYS = ['b', 'a', '', '10', '2', 'Z', 'é', '𠮷', 'a"b', 'line\nbreak', '\u2028', 'ü', 'ascii_key'];
  const STRINGS = ['', 'plain', 'カタカナ', '𠮷野家', 'quote"back\\slash', '\u0000ctl', '\ud800 lone'];
  const value = (depth: number): unknown => {
    const kind = next(depth > 3 ? 5 : 8);
    if (kind === 0) return null;
    if (kind === 1) return next(2) === 0;
    if (kind === 2) return next(1000) / (next(7) + 1) - 300;
    if (kind === 3 || kind === 4) return STRINGS[next(STRINGS.length)];
    if (kind === 5) return Array.from({ length: next(4) }, () => value(depth + 1));
    const out: Record<string, unknown> = {};
    for (let i = next(5); i > 0; i--) out[KEYS[next(KEYS.length)]] = next(6) === 0 ? undefined : value(depth + 1);
    return out;
  };
  return Array.from({ length: 400 }, () => value(0));
}

describe('canonicalJson', () => {
  it('gives exactly the reference definition on generated values, and is pure ASCII', () => {
    for (const value of generated(7)) {
      const got = canonicalJson(value);
      expect(got).toBe(reference(value));
      expect(/^[\x20-\x7e]*$/.test(got)).toBe(true);
    }
  });

  it('does not depend on the order keys were inserted in', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 2 }], c: 'é' } })).toBe(
      canonicalJson({ a: { c: 'é', d: [2, { x: 2, y: 1 }] }, b: 1 }),
    );
    expect(canonicalJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });
});

describe('childPath', () => {
  it('names a key as zod does, for many keys and again after its cache was filled and cleared', () => {
    const keys = [...Array.from({ length: 5000 }, (_, i) => `k${i}`), 'a b', 'é', '1', '', 'a.b', 'constructor'];
    for (const round of [0, 1]) {
      for (const key of keys) {
        const step = z.core.toDotPath([key]);
        const expected = step.startsWith('[') ? `root${step}` : `root.${step}`;
        expect(childPath('root', key), `round ${round} key ${JSON.stringify(key)}`).toBe(expected);
      }
    }
    expect(childPath('', 3)).toBe('[3]');
    expect(childPath('list', 0)).toBe('list[0]');
  });
});
