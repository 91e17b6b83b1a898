import { describe, expect, it } from 'vitest';
import { signTestPValue } from '../../src/core/scoring/sign-test.ts';

/** Exact p with BigInt arithmetic: 2 * sum_{i<=k} C(n, i) / 2^n, capped at 1. Slow, exact, independent. */
function exactPValue(better: number, worse: number): number {
  const n = better + worse;
  if (n === 0) return 1;
  const k = Math.min(better, worse);
  let choose = 1n;
  let tail = 0n;
  for (let i = 0; i <= k; i++) {
    if (i > 0) choose = (choose * BigInt(n - i + 1)) / BigInt(i);
    tail += choose;
  }
  const numerator = 2n * tail;
  const denominator = 1n << BigInt(n);
  if (numerator >= denominator) return 1;
  // Keep 64 significant bits of the ratio before converting it to a double.
  const shift = n - numerator.toString(2).length + 64;
  return Number((numerator << BigInt(shift)) / denominator) * 2 ** -shift;
}

describe('signTestPValue', () => {
  // Values published in ../shared/reference/rag-pipeline-evaluations.md (four decimals) and textbook cases.
  it.each([
    [26, 6, 0.0005],
    [6, 26, 0.0005],
    [29, 15, 0.0488],
    [16, 25, 0.211],
    [16, 21, 0.5114],
    [22, 21, 1],
  ])('better %i, worse %i gives p = %f to four decimals', (better, worse, expected) => {
    expect(signTestPValue(better, worse)).toBeCloseTo(expected, 4);
  });

  it.each([
    [0, 0, 1],
    [1, 0, 1],
    [0, 5, 0.0625], // 2 * (1/2)^5
    [0, 10, 0.001953125], // 2 * (1/2)^10
    [1, 4, 0.375], // 2 * (1 + 5) / 32
    [3, 3, 1],
  ])('better %i, worse %i gives exactly %f', (better, worse, expected) => {
    expect(signTestPValue(better, worse)).toBeCloseTo(expected, 12);
  });

  it('matches exact BigInt arithmetic for small and large runs without overflow or underflow', () => {
    for (const [better, worse] of [
      [5, 12],
      [40, 60],
      [500, 500],
      [480, 520],
      [700, 300],
      [500, 560],
      [3000, 3100],
      [5000, 5100],
      [20000, 20500],
      [1200, 0],
    ]) {
      const p = signTestPValue(better, worse);
      const exact = exactPValue(better, worse);
      expect(Number.isFinite(p)).toBe(true);
      if (exact > 1e-300) expect(Math.abs(p - exact) / exact, `${better} vs ${worse}`).toBeLessThan(1e-9);
      else expect(p).toBeLessThan(1e-300);
    }
  });

  it('refuses counts that are not whole and non-negative', () => {
    expect(() => signTestPValue(-1, 2)).toThrow(RangeError);
    expect(() => signTestPValue(1.5, 2)).toThrow(RangeError);
  });
});
