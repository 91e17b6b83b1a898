import { describe, expect, it } from 'vitest';
import { median, percentile, summarize } from '../../src/core/stats/stats.ts';

describe('statistics (hand-checked)', () => {
  it.each([
    [[5], 5],
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[10, 10, 10, 40], 10],
  ])('median(%j) = %d', (samples, expected) => {
    expect(median(samples)).toBe(expected);
  });

  it('nearest-rank p95: rank ceil(0.95 n), always an observed sample', () => {
    // n = 20: rank 19 -> the 19th smallest.
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(percentile(twenty, 95)).toBe(19);
    // n = 10: rank ceil(9.5) = 10 -> the maximum.
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).toBe(10);
    // n = 1: the only sample.
    expect(percentile([7.5], 95)).toBe(7.5);
    // Order of input does not matter.
    expect(percentile([9, 1, 5, 3, 7], 50)).toBe(5);
    expect(percentile([9, 1, 5, 3, 7], 100)).toBe(9);
  });

  it('summarize gives count, median, p95, min, max, mean; null for no samples', () => {
    expect(summarize([4, 1, 3, 2])).toEqual({ count: 4, median: 2.5, p95: 4, min: 1, max: 4, mean: 2.5 });
    expect(summarize([])).toBeNull();
    expect(median([])).toBeNull();
  });

  it('refuses non-finite samples and out-of-range percentiles', () => {
    expect(() => summarize([1, Number.NaN])).toThrow(RangeError);
    expect(() => percentile([1], 0)).toThrow(RangeError);
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });
});
