/**
 * How far two execution providers' scores may differ and still count as agreeing, by what is compared and the dtype
 * of the graph, when a comparison does not name its own tolerance. Two providers running the same graph differ only
 * by arithmetic (summation order, fused operations, transcendental approximations, and half precision where the graph
 * asks for it); a route beyond these bounds is not slower or faster, it computes something else, and the comparison
 * marks it invalid. Measured values behind each bound are in docs/comparison.md.
 */

/** What a comparison's scores are: one output value each (logits of a fixed input, a reranker's pair scores), or a
 *  causal LM's candidate scores, each a sum of log-probabilities over every token of a candidate. */
export type ScoreKind = 'logits' | 'summed-log-probs';

/** A default tolerance and why it is that size. */
export interface DtypeTolerance {
  max_abs_diff: number;
  reason: string;
}

const LOGITS: Readonly<Record<string, DtypeTolerance>> = {
  fp32: {
    max_abs_diff: 1e-4,
    reason: 'float32 everywhere: only summation order and fused operations differ (about 1e-6 here)',
  },
  fp16: {
    max_abs_diff: 1e-2,
    reason: 'half precision keeps 11 significant bits (relative step 5e-4), and each layer adds its rounding',
  },
  q8: {
    max_abs_diff: 1e-3,
    reason:
      'activations are re-quantized to 8 bits at run time, so an upstream difference can move a value across a rounding boundary and shift a score by one quantization step',
  },
  q4: {
    max_abs_diff: 1e-3,
    reason:
      'the same 4-bit weights are dequantized by different kernels, which may accumulate in another order or in half precision',
  },
};

const SUMMED: Readonly<Record<string, DtypeTolerance>> = {
  fp32: {
    max_abs_diff: 1e-2,
    reason:
      'a candidate score sums one log-probability per token, each from a softmax over the whole vocabulary, so provider rounding adds up with candidate length (up to 2.4e-3 here on scores near -125)',
  },
  fp16: { max_abs_diff: 1e-1, reason: 'half precision (relative step 5e-4) summed over every token of a candidate' },
  q8: {
    max_abs_diff: 1,
    reason:
      "activations are re-quantized to 8 bits at run time with a scale from each tensor's range, so a last-bit difference upstream can flip a value by a whole quantization step, and the flips add up over every token of a candidate (0.40 here on scores of -114 to -188, while either provider's q8 scores sit up to 0.8 from the fp32 ones)",
  },
  q4: {
    max_abs_diff: 1e-2,
    reason: '4-bit weights dequantized by different kernels, summed over every token of a candidate (3.3e-3 here)',
  },
};

/** Dtypes that share another's bounds. */
const SAME_AS: Readonly<Record<string, string>> = { int8: 'q8', uint8: 'q8', q4f16: 'fp16', bnb4: 'q4' };

/**
 * The default tolerance of a comparison.
 * @param kind what the scores are
 * @param dtype the graph's dtype (transformers.js name); null for a graph with no dtype choice (treated as fp32)
 */
export function defaultComparisonTolerance(kind: ScoreKind, dtype: string | null): DtypeTolerance {
  const table = kind === 'logits' ? LOGITS : SUMMED;
  const key = dtype === null ? 'fp32' : (SAME_AS[dtype] ?? dtype);
  return table[key] ?? table.fp32;
}

/**
 * What a comparison's scores are, from the model's task: a fixed input's output values and a reranker's pair scores
 * are single logits; a candidate scorer's are sums of token log-probabilities.
 * @param task the catalog model's task
 */
export function scoreKindOf(task: string): ScoreKind {
  return task === 'score-candidates' ? 'summed-log-probs' : 'logits';
}

/** The tolerance a comparison runs with, and where it came from (the receipt's `tolerance` section). */
export interface ComparisonTolerance {
  max_abs_diff: number;
  basis: {
    /** `default`: the bound for this score kind and dtype, with its reason; `setting`: the tolerance parameter. */
    source: 'default' | 'setting';
    score_kind: ScoreKind;
    /** The default's reason; null for a tolerance someone set. */
    reason: string | null;
  };
}

/**
 * The tolerance of a comparison: the one set (URL `tolerance`), or the default for the model's score kind and dtype.
 * @param task the model's task (decides the score kind)
 * @param dtype the graph's dtype as the receipt records it (`model.dtype`)
 * @param setting the tolerance someone set, or null for the default
 */
export function comparisonTolerance(task: string, dtype: string | null, setting: number | null): ComparisonTolerance {
  const kind = scoreKindOf(task);
  if (setting !== null) return { max_abs_diff: setting, basis: { source: 'setting', score_kind: kind, reason: null } };
  const bound = defaultComparisonTolerance(kind, dtype);
  return { max_abs_diff: bound.max_abs_diff, basis: { source: 'default', score_kind: kind, reason: bound.reason } };
}
