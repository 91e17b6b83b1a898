/**
 * Turns one row's scores into a prediction row in exactly the schema `drb score` reads: candidates reordered by
 * score (highest first), declared provenance, `margin` = top-1 score minus top-2 score, and a machine-readable
 * reason that also carries the abstention decision.
 */
import type { PredictionRow, Provenance } from '../artifacts/predictions.ts';
import type { AbstentionPolicy, SuiteReason } from './abstention-policy.ts';

/** A candidate with the score the engine gave it. */
export interface ScoredCandidate {
  candidate: string;
  score: number;
}

/** The prediction row plus what the receipt counts. */
export interface RankedRow {
  prediction: PredictionRow;
  reason: SuiteReason;
  /** Candidates best first with their scores (kept in memory for the page; never written to a receipt). */
  ranked: ScoredCandidate[];
}

/**
 * Ranks one row.
 * @param id the item id the row belongs to
 * @param candidates the row's candidates in artifact order (may be empty)
 * @param scores one finite score per candidate, higher = better (cross-encoder logit or summed log-probability)
 * @param policy the abstention policy to apply
 * @param provenance the declared producer: `deberta` for cross-encoder rerankers, `lfm` for LLM scoring
 * @throws RangeError when the score count differs from the candidate count or a score is not finite (an engine bug,
 *   never silently ranked)
 */
export function rankCandidates(
  id: string,
  candidates: readonly string[],
  scores: readonly number[],
  policy: AbstentionPolicy,
  provenance: Provenance,
): RankedRow {
  if (scores.length !== candidates.length) {
    throw new RangeError(`row ${JSON.stringify(id)}: ${scores.length} scores for ${candidates.length} candidates`);
  }
  scores.forEach((score, index) => {
    if (!Number.isFinite(score))
      throw new RangeError(`row ${JSON.stringify(id)}: score of candidate [${index}] is not finite (${score})`);
  });
  if (candidates.length === 0) {
    return {
      prediction: { id, candidates: [], provenance, reason: 'no_candidates' },
      reason: 'no_candidates',
      ranked: [],
    };
  }
  // Array.prototype.sort is stable, so equal scores keep the generator's order (its order is a prior, too).
  const ranked = candidates
    .map((candidate, index) => ({ candidate, score: scores[index] }))
    .sort((a, b) => b.score - a.score);
  if (ranked.length === 1) {
    return {
      prediction: { id, candidates: [ranked[0].candidate], provenance, reason: 'single_candidate' },
      reason: 'single_candidate',
      ranked,
    };
  }
  const margin = ranked[0].score - ranked[1].score;
  const abstain = policy.min_margin !== null && margin < policy.min_margin;
  const reason: SuiteReason = abstain ? 'low_margin' : 'accepted';
  return {
    prediction: { id, candidates: abstain ? [] : ranked.map((entry) => entry.candidate), provenance, reason, margin },
    reason,
    ranked,
  };
}
