/** Default comparison tolerances by score kind and dtype (their measured basis is in docs/comparison.md). */
import { describe, expect, it } from 'vitest';
import {
  comparisonTolerance,
  defaultComparisonTolerance,
  scoreKindOf,
} from '../../src/core/comparison/dtype-tolerance.ts';

describe('defaultComparisonTolerance', () => {
  it.each([
    ['logits', 'fp32', 1e-4],
    ['logits', null, 1e-4],
    ['logits', 'fp16', 1e-2],
    ['logits', 'q8', 1e-3],
    ['logits', 'uint8', 1e-3],
    ['logits', 'q4', 1e-3],
    ['logits', 'q4f16', 1e-2],
    ['summed-log-probs', 'fp32', 1e-2],
    ['summed-log-probs', 'fp16', 1e-1],
    ['summed-log-probs', 'q8', 1],
    ['summed-log-probs', 'q4', 1e-2],
    ['logits', 'some-future-dtype', 1e-4],
  ] as const)('%s in %s: %s', (kind, dtype, bound) => {
    const tolerance = defaultComparisonTolerance(kind, dtype);
    expect(tolerance.max_abs_diff).toBe(bound);
    expect(tolerance.reason.length).toBeGreaterThan(20);
  });

  it('is never looser for logits than for summed log-probabilities, nor for fp32 than for a reduced precision', () => {
    for (const dtype of ['fp32', 'fp16', 'q8', 'q4']) {
      expect(defaultComparisonTolerance('logits', dtype).max_abs_diff).toBeLessThanOrEqual(
        defaultComparisonTolerance('summed-log-probs', dtype).max_abs_diff,
      );
      expect(defaultComparisonTolerance('logits', 'fp32').max_abs_diff).toBeLessThanOrEqual(
        defaultComparisonTolerance('logits', dtype).max_abs_diff,
      );
    }
  });
});

describe('comparisonTolerance', () => {
  it('takes the score kind from the task: candidate scorers sum log-probabilities, everything else compares logits', () => {
    expect(scoreKindOf('score-candidates')).toBe('summed-log-probs');
    for (const task of ['raw', 'rerank']) expect(scoreKindOf(task)).toBe('logits');
    expect(comparisonTolerance('score-candidates', 'q4', null)).toEqual({
      max_abs_diff: 1e-2,
      basis: {
        source: 'default',
        score_kind: 'summed-log-probs',
        reason: defaultComparisonTolerance('summed-log-probs', 'q4').reason,
      },
    });
  });

  it('a tolerance someone set wins, also when it is 0, and is recorded as set', () => {
    expect(comparisonTolerance('raw', 'fp32', 0)).toEqual({
      max_abs_diff: 0,
      basis: { source: 'setting', score_kind: 'logits', reason: null },
    });
  });
});
