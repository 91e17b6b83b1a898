import { describe, expect, it } from 'vitest';
import { CodePointLevenshtein, codePointLength } from '../../src/core/scoring/levenshtein.ts';

/** Textbook full-matrix Levenshtein over Array.from code points: the reference the optimised one must agree with. */
function referenceDistance(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  const d: number[][] = [];
  for (let i = 0; i <= x.length; i++) d.push([i, ...new Array<number>(y.length).fill(0)]);
  for (let j = 0; j <= y.length; j++) d[0][j] = j;
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
  }
  return d[x.length][y.length];
}

describe('CodePointLevenshtein', () => {
  const lev = new CodePointLevenshtein(1); // tiny start so the buffers must grow

  it.each([
    ['kitten', 'sitting', 3],
    ['', '', 0],
    ['', 'abc', 3],
    ['abc', '', 3],
    ['flaw', 'lawn', 2],
    ['ab', 'ba', 2],
    // 𠮷 (U+20BB7) is one character: two UTF-16 units, but one edit.
    ['𠮷野家', '吉野家', 1],
    ['𠮷', '𠮷𠮷', 1],
    ['𠮷', '', 1],
    ['𠮷田', '吉田', 1],
    ['😀😁', '😁😀', 2],
    // No normalisation: full-width, case, composed/decomposed and whitespace all differ.
    ['ＡＢＣ', 'ABC', 3],
    ['a', 'A', 1],
    ['\u00e9', 'e\u0301', 2],
    ['a b', 'ab', 1],
    ['日本語の文章です', '日本の文章でした', 3],
    ['セイネンシ', '青年誌', 5],
  ])('distance(%j, %j) = %i', (a, b, expected) => {
    expect(lev.distance(a, b)).toBe(expected);
    expect(lev.distance(b, a)).toBe(expected);
    expect(referenceDistance(a, b)).toBe(expected);
  });

  it('agrees with the textbook algorithm on random strings drawn from BMP and astral characters', () => {
    const alphabet = ['a', 'b', 'ア', 'イ', '亜', '𠮷', '😀', '\ud800']; // includes a lone surrogate
    let seed = 12345;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const randomString = () => {
      let text = '';
      const length = Math.floor(next() * 12);
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)];
      return text;
    };
    for (let trial = 0; trial < 2000; trial++) {
      const a = randomString();
      const b = randomString();
      expect(lev.distance(a, b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBe(referenceDistance(a, b));
    }
  });

  it('agrees with the textbook algorithm across pattern blocks (lengths up to 150 code points, small alphabet)', () => {
    const alphabet = ['a', 'b', 'c', 'ア', '亜', '𠮷'];
    let seed = 777;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const randomString = (max: number) => {
      let text = '';
      const length = Math.floor(next() * max);
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)];
      return text;
    };
    for (let trial = 0; trial < 600; trial++) {
      const a = randomString(150);
      // Half the time a near copy, so long common runs and block boundaries (31/32/33, 63/64/65) get exercised.
      const b =
        next() < 0.5
          ? randomString(150)
          : Array.from(a)
              .map((ch) => (next() < 0.1 ? alphabet[Math.floor(next() * 6)] : ch))
              .join('') + randomString(3);
      expect(lev.distance(a, b), `${a.length} vs ${b.length}`).toBe(referenceDistance(a, b));
    }
    for (const length of [31, 32, 33, 63, 64, 65, 96, 97]) {
      const a = 'ab'.repeat(length).slice(0, length);
      const b = `${'ba'.repeat(length).slice(0, length)}c`;
      expect(lev.distance(a, b), `length ${length}`).toBe(referenceDistance(a, b));
      expect(lev.distance('x'.repeat(length), 'y'.repeat(length + 40))).toBe(length + 40);
    }
  });

  it('minCer reuses one packed hypothesis across references and agrees with the textbook algorithm', () => {
    const alphabet = ['a', 'b', 'ア', '亜', '𠮷'];
    let seed = 4242;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const randomString = (min: number, max: number) => {
      let text = '';
      const length = min + Math.floor(next() * (max - min + 1));
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)];
      return text;
    };
    for (let trial = 0; trial < 400; trial++) {
      const hypothesis = randomString(0, 70);
      const references = Array.from({ length: 1 + Math.floor(next() * 4) }, () => randomString(1, 70));
      const expected = Math.min(
        ...references.map((ref) => referenceDistance(ref, hypothesis) / Array.from(ref).length),
      );
      expect(lev.minCer(hypothesis, references)).toBe(expected);
    }
    expect(lev.minCer('𠮷', ['𠮷田', '吉'])).toBe(0.5);
    expect(lev.minCer('', ['abc'])).toBe(1);
    expect(lev.minCer('abc', ['x', 'abc'])).toBe(0);
    expect(() => lev.minCer('a', [''])).toThrow(RangeError);
    expect(() => lev.minCer('a'.repeat(40), [''])).toThrow(RangeError);
  });

  it('handles strings longer than its initial buffers', () => {
    const a = '亜'.repeat(300) + '𠮷'.repeat(50);
    const b = `${'亜'.repeat(299)}吉${'𠮷'.repeat(49)}`;
    expect(lev.distance(a, b)).toBe(2);
  });
});

describe('codePointLength', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['𠮷野家', 3],
    ['😀', 1],
    ['\ud800', 1],
    ['\ud800a', 2],
    ['e\u0301', 2],
  ])('codePointLength(%j) = %i', (text, expected) => {
    expect(codePointLength(text)).toBe(expected);
    expect(codePointLength(text)).toBe(Array.from(text).length);
  });
});
