/**
 * The bootstrap intervals against values derived independently of the code under test: for small samples the
 * bootstrap distribution can be written down exactly (every resample is equally likely), and its nearest-rank
 * 2.5% and 97.5% points are what a seeded Monte Carlo bootstrap must land on when the exact distribution leaves a
 * clear margin around those ranks. The exact distributions below were enumerated with python3 (itertools.product
 * over all index tuples, statistics.median, fractions for the binomial sums); each derivation is written out.
 */
import { describe, expect, it } from 'vitest';
import { threeSignificant } from '../../src/core/text/format-number.ts';
import {
  BOOTSTRAP_RESAMPLES,
  BOOTSTRAP_SEED,
  bootstrapMedian,
  bootstrapPooledMedian,
  bootstrapRatioOfMedians,
  ConfidenceInterval,
  percentileEnds,
  ratioSentence,
  ratioVerdict,
} from '../../src/core/stats/intervals.ts';
import { lastFifthRatio, theilSenSlope } from '../../src/core/stats/sample-order.ts';

describe('percentileEnds (Efron & Tibshirani 1993, 13.3: the B*alpha-th and B*(1-alpha)-th ordered replications)', () => {
  it('B = 2000 at 95%: the 50th and the 1950th smallest', () => {
    const reps = Array.from({ length: 2000 }, (_, i) => 2000 - i); // 2000 .. 1, unsorted on purpose
    expect(percentileEnds(reps, 0.95)).toEqual({ low: 50, high: 1950 });
  });
  it('B = 40 at 90%: ranks ceil(2) = 2 and ceil(38) = 38', () => {
    expect(
      percentileEnds(
        Array.from({ length: 40 }, (_, i) => i + 1),
        0.9,
      ),
    ).toEqual({ low: 2, high: 38 });
  });
  it('B = 1: both ends are the one replication', () => {
    expect(percentileEnds([7], 0.95)).toEqual({ low: 7, high: 7 });
  });
});

describe('bootstrapMedian (independent samples)', () => {
  // 11 samples; sorted: 15.7 15.9 16.0 16.1 16.3 16.6 16.8 17.0 17.2 18.4 22.9, median x(6) = 16.6.
  // The resample median is at most x(j) exactly when at least 6 of the 11 draws are among the j smallest, so
  // P(median* <= x(j)) = P(Binomial(11, j/11) >= 6):
  //   j = 2: 0.00721, j = 3: 0.05125, ..., j = 8: 0.94875, j = 9: 0.99279.
  // The 2.5% point is x(3) = 16.0 and the 97.5% point x(9) = 17.2; with B = 2000 the Monte Carlo error of those
  // probabilities is about 0.0035, far from the margins (0.018 and 0.026), so the seeded bootstrap lands there.
  const samples = [16.6, 15.9, 17.2, 16.1, 18.4, 16.0, 15.7, 22.9, 16.3, 16.8, 17.0];

  it("lands on the exact bootstrap distribution's 2.5% and 97.5% points", () => {
    const result = bootstrapMedian(samples)!;
    expect(result.estimate).toBe(16.6);
    expect(result.interval).toEqual({
      low: 16.0,
      high: 17.2,
      level: 0.95,
      method: 'percentile-bootstrap',
      resampled: 'samples',
      resamples: BOOTSTRAP_RESAMPLES,
      seed: BOOTSTRAP_SEED,
    });
    expect(ConfidenceInterval.safeParse(result.interval).success).toBe(true);
  });

  it('is a function of the samples, not of their order, and reproducible', () => {
    const a = bootstrapMedian(samples, { seed: 3, resamples: 500 });
    const b = bootstrapMedian([...samples].reverse(), { seed: 3, resamples: 500 });
    expect(b).toEqual(a);
    expect(bootstrapMedian(samples, { seed: 3, resamples: 500 })).toEqual(a);
  });

  it('no samples: no interval; one sample: the sample itself', () => {
    expect(bootstrapMedian([])).toBeNull();
    expect(bootstrapMedian([4.2])!.interval).toMatchObject({ low: 4.2, high: 4.2 });
  });

  it('refuses non-finite samples and bad options', () => {
    expect(() => bootstrapMedian([1, Number.NaN])).toThrow(RangeError);
    expect(() => bootstrapMedian([1], { resamples: 0 })).toThrow(RangeError);
    expect(() => bootstrapMedian([1], { level: 1 })).toThrow(RangeError);
    expect(() => bootstrapMedian([1], { seed: 0.5 })).toThrow(RangeError);
  });
});

describe('bootstrapPooledMedian (whole receipts resampled)', () => {
  it('three receipts: the exact distribution of 27 equally likely receipt triples', () => {
    // Receipts [1, 2], [3, 4, 5], [10]; pooled median 3.5. Enumerating the 27 ordered triples of receipts and
    // taking the median of each pooled triple gives: 1.5 (1 of 27), 2 (6), 3.5 (9), 4 (4), 5 (3), 6 (3), 10 (1);
    // cumulative 0.037, 0.259, ..., 0.852, 0.963, 1. The 2.5% point is 1.5 and the 97.5% point 10, each with a
    // margin of 0.012, i.e. 11 Monte Carlo standard errors at B = 20000.
    const result = bootstrapPooledMedian([[1, 2], [3, 4, 5], [10]], { resamples: 20_000 })!;
    expect(result.estimate).toBe(3.5);
    expect(result.interval).toMatchObject({ low: 1.5, high: 10, resampled: 'receipts', resamples: 20_000 });
  });

  it('two receipts: medians 2, 6.5 and 11 with probabilities 1/4, 1/2, 1/4', () => {
    // (A, A) -> median of [1, 2, 3] = 2; (B, B) -> 11; (A, B) or (B, A) -> median of [1, 2, 3, 10, 11, 12] = 6.5.
    const result = bootstrapPooledMedian([
      [1, 2, 3],
      [10, 11, 12],
    ])!;
    expect(result.estimate).toBe(6.5);
    expect(result.interval).toMatchObject({ low: 2, high: 11, resampled: 'receipts' });
  });

  it('one receipt: its samples are resampled, and the interval says so', () => {
    const result = bootstrapPooledMedian([[], [16.6, 15.9, 17.2, 16.1, 18.4, 16.0, 15.7, 22.9, 16.3, 16.8, 17.0]])!;
    expect(result.interval).toMatchObject({ low: 16.0, high: 17.2, resampled: 'samples' });
  });

  it('receipt order does not matter', () => {
    const receipts = [
      [5, 6, 7],
      [1, 2],
      [9, 3, 4, 8],
    ];
    expect(bootstrapPooledMedian([...receipts].reverse())).toEqual(bootstrapPooledMedian(receipts));
    expect(bootstrapPooledMedian([[], []])).toBeNull();
  });
});

describe('bootstrapRatioOfMedians', () => {
  // The captured comparison fixture's wasm-1 (baseline) and wasm-2 samples, 4 interleaved rounds.
  const wasm1 = [0.4, 0.265, 0.405, 0.29];
  const wasm2 = [0.5, 0.305, 0.34, 0.25];

  it('paired rounds: the exact distribution over all 4^4 = 256 round resamples', () => {
    // Point estimate: median(wasm-2) / median(wasm-1) = 0.3225 / 0.345 = 0.934783.
    // Enumerating the 256 index tuples (the same tuple picks both routes' samples: rounds stay paired), the ratio's
    // smallest value 0.34 / 0.405 = 0.839506 has probability 13/256 = 0.0508 and the largest 0.5 / 0.4 = 1.25 has
    // 13/256, the next below it (1.210526) reaching a cumulative 0.9492. So the 2.5% point is 0.839506 and the
    // 97.5% point 1.25 (margins 0.026 at least, over 5 Monte Carlo standard errors at B = 2000).
    const result = bootstrapRatioOfMedians(wasm1, wasm2)!;
    expect(result.estimate).toBeCloseTo(0.3225 / 0.345, 12);
    expect(result.interval.low).toBeCloseTo(0.34 / 0.405, 12);
    expect(result.interval.high).toBeCloseTo(1.25, 12);
    expect(result.interval.resampled).toBe('rounds');
    expect(ratioVerdict(result.interval)).toBe('no-clear-difference');
  });

  it('pairing removes drift both routes shared; resampling each side alone does not', () => {
    // The candidate is exactly 0.9x the baseline in every round, while rounds drift from 10 to 50 ms.
    // Paired: every resample's ratio is exactly 0.9, so the interval is [0.9, 0.9]: faster.
    const base = [10, 20, 30, 40, 50];
    const cand = base.map((v) => v * 0.9);
    const paired = bootstrapRatioOfMedians(base, cand)!;
    expect(paired.interval.low).toBeCloseTo(0.9, 12);
    expect(paired.interval.high).toBeCloseTo(0.9, 12);
    expect(ratioVerdict(paired.interval)).toBe('faster');
    // Unpaired: each side's resample median is x(j) with P = 0.05792, 0.25952, 0.36512, 0.25952, 0.05792
    // (P(Binomial(5, j/5) >= 3) differenced); the ratio 0.9 x(i) / x(j) then has the exact distribution
    // ..., 0.225 (cumulative 0.0184), 0.3 (0.0395), ..., 2.25 (0.9605), 2.7 (0.9816), ...: the 2.5% point is
    // 0.3 and the 97.5% point 2.7 (margins 0.0066, six Monte Carlo standard errors at B = 20000).
    const unpaired = bootstrapRatioOfMedians(base, cand, { paired: false, resamples: 20_000 })!;
    expect(unpaired.estimate).toBeCloseTo(0.9, 12);
    expect(unpaired.interval.low).toBeCloseTo(0.3, 12);
    expect(unpaired.interval.high).toBeCloseTo(2.7, 12);
    expect(unpaired.interval.resampled).toBe('samples');
    expect(ratioVerdict(unpaired.interval)).toBe('no-clear-difference');
  });

  it('identical routes are no clear difference, never a winner', () => {
    const same = bootstrapRatioOfMedians(wasm1, [...wasm1])!;
    expect(same.interval).toMatchObject({ low: 1, high: 1 });
    expect(ratioVerdict(same.interval)).toBe('no-clear-difference');
  });

  it('round order does not change the interval; the seed is recorded', () => {
    const a = bootstrapRatioOfMedians(wasm1, wasm2, { seed: 11 })!;
    const b = bootstrapRatioOfMedians([...wasm1].reverse(), [...wasm2].reverse(), { seed: 11 })!;
    expect(b).toEqual(a);
    expect(a.interval.seed).toBe(11);
  });

  it('no ratio without samples above zero; paired sides must have the same count', () => {
    expect(bootstrapRatioOfMedians([], [])).toBeNull();
    expect(bootstrapRatioOfMedians([1, 0], [1, 2])).toBeNull();
    expect(() => bootstrapRatioOfMedians([1, 2], [1])).toThrow(/same count/);
    expect(bootstrapRatioOfMedians([1, 2], [1], { paired: false })).not.toBeNull();
  });
});

describe('ratioVerdict and ratioSentence', () => {
  it.each([
    [{ low: 0.81, high: 0.97 }, 'faster'],
    [{ low: 1.01, high: 1.3 }, 'slower'],
    [{ low: 0.81, high: 1.05 }, 'no-clear-difference'],
    [{ low: 1, high: 1.2 }, 'no-clear-difference'],
    [{ low: 0.9, high: 1 }, 'no-clear-difference'],
  ] as const)('%j -> %s', (interval, verdict) => {
    expect(ratioVerdict(interval)).toBe(verdict);
  });

  it('one sentence with 3 significant digits', () => {
    const interval = {
      low: 0.8123,
      high: 1.0498,
      level: 0.95,
      method: 'percentile-bootstrap',
      resampled: 'rounds',
      resamples: 2000,
      seed: 1,
    } as const;
    expect(ratioSentence('wasm-2', 'wasm-1', 0.92, interval)).toBe(
      'wasm-2 took 0.92x the time of wasm-1; 95% interval 0.812 to 1.05: no clear difference',
    );
    expect(ratioSentence('webgpu', 'wasm-1', 35.4927, { ...interval, low: 30.01, high: 41.26 })).toBe(
      'webgpu took 35.5x the time of wasm-1; 95% interval 30 to 41.3: slower',
    );
    expect(ratioSentence('b', 'a', 0.5, null)).toBe(
      'b took 0.5x the time of a; no interval (a zero or missing sample)',
    );
  });
});

describe('threeSignificant', () => {
  it.each([
    [0.92, '0.92'],
    [0.9347826, '0.935'],
    [1.0504, '1.05'],
    [16.6349, '16.6'],
    [999.6, '1000'],
    [12345.6, '12346'],
    [0.000123456, '0.000123'],
    [-0.5, '-0.5'],
    [0, '0'],
  ])('%d -> %s', (value, text) => {
    expect(threeSignificant(value)).toBe(text);
  });
});

describe('sample order: thermal slope and drift', () => {
  it('lastFifthRatio: median of the last fifth over the first fifth', () => {
    // 20 samples: fifth = 4. First [10, 11, 12, 13] -> 11.5; last [14, 15, 16, 100] -> 15.5; 15.5 / 11.5.
    const twenty = [10, 11, 12, 13, ...Array.from({ length: 12 }, () => 20), 14, 15, 16, 100];
    expect(lastFifthRatio(twenty)).toBeCloseTo(15.5 / 11.5, 12);
    // 7 samples: fifth = 1, the last over the first.
    expect(lastFifthRatio([4, 9, 9, 9, 9, 9, 6])).toBe(1.5);
    expect(lastFifthRatio([1, 2, 3, 4])).toBeNull();
    expect(lastFifthRatio([0, 1, 1, 1, 1])).toBeNull();
  });

  it('theilSenSlope: the median of the pairwise slopes', () => {
    // [10, 12, 11, 15, 14]: the 10 pairwise slopes sorted are -1, -1, 0.5, 2/3, 1, 1.5, 1.5, 5/3, 2, 4 -> (1 + 1.5) / 2.
    expect(theilSenSlope([10, 12, 11, 15, 14])).toBe(1.25);
    // One jump does not move it: a flat run with one outlier has slope 0.
    expect(theilSenSlope([5, 5, 5, 50, 5, 5])).toBe(0);
    expect(theilSenSlope([3])).toBeNull();
  });
});
