import { PROVENANCES } from '../artifacts/artifact-enums.ts';
import { predictionTableOf, type DeclaredColumns } from '../artifacts/prediction-table.ts';
import type { PredictionRow } from '../artifacts/predictions.ts';
import type { DeclaredValues, ErrorDiagnosis, ScoreMetrics } from './score-report.ts';
import { RowOutcomes, type RowOutcome } from './score-rows.ts';

/**
 * Aggregates row outcomes into the run's metrics (sums in item order, so the same inputs give the same bits).
 * @param outcomes one outcome per item row (at least one)
 * @param candidateLimit K, used to count rows that supplied more than K candidates
 */
export function computeMetrics(outcomes: readonly RowOutcome[] | RowOutcomes, candidateLimit: number): ScoreMetrics {
  const columns = outcomes instanceof RowOutcomes ? outcomes : new RowOutcomes(outcomes);
  const rows = columns.rows;
  if (rows === 0) throw new RangeError('cannot compute metrics over zero rows');
  let correct = 0;
  let hits = 0;
  let abstained = 0;
  let correctAccepted = 0;
  let clean = 0;
  let overcorrected = 0;
  let improved = 0;
  let worsened = 0;
  let miss = 0;
  let selection = 0;
  let overLimit = 0;
  let inputCerSum = 0;
  let effectiveCerSum = 0;
  let reciprocalRankSum = 0;
  for (let r = 0; r < rows; r++) {
    const isCorrect = columns.correct[r] === 1;
    const rank = columns.ranks[r];
    if (isCorrect) correct++;
    if (rank !== 0) {
      hits++;
      reciprocalRankSum += 1 / rank;
    }
    if (columns.abstained[r] === 1) abstained++;
    else {
      if (isCorrect) correctAccepted++;
      if (rank === 0) miss++;
      else if (!isCorrect) selection++;
    }
    if (columns.clean[r] === 1) {
      clean++;
      if (columns.overcorrected[r] === 1) overcorrected++;
    }
    const change = columns.changes[r];
    if (change === 1) improved++;
    else if (change === 2) worsened++;
    if (columns.supplied[r] > candidateLimit) overLimit++;
    inputCerSum += columns.inputMinCers[r];
    effectiveCerSum += columns.effectiveMinCers[r];
  }
  const accepted = rows - abstained;
  return {
    rows,
    effective_acc_at_1: correct / rows,
    candidate_recall_at_k: hits / rows,
    mean_input_min_cer: inputCerSum / rows,
    mean_effective_min_cer: effectiveCerSum / rows,
    abstention_rate: abstained / rows,
    accepted_accuracy: accepted === 0 ? null : correctAccepted / accepted,
    overcorrection_rate: clean === 0 ? null : overcorrected / clean,
    improved,
    worsened,
    unchanged: rows - improved - worsened,
    accepted_candidate_miss: miss,
    selection_error: selection,
    mrr_at_k: reciprocalRankSum / rows,
    // Can be negative: an abstained row whose input is already a reference counts for Acc@1 but never for recall.
    reranking_headroom: hits / rows - correct / rows,
    correct_rows: correct,
    candidate_recall_hits: hits,
    abstained_rows: abstained,
    clean_rows: clean,
    overcorrected_rows: overcorrected,
    rows_over_candidate_limit: overLimit,
  };
}

/**
 * The protocol's escalation rule as a one-line diagnosis: a larger reranker can only fix selection errors (a
 * reference was among the first K but not on top); it cannot repair candidate misses.
 * @param metrics the run's metrics
 */
export function diagnoseErrors(metrics: ScoreMetrics): ErrorDiagnosis {
  const selection = metrics.selection_error;
  const miss = metrics.accepted_candidate_miss;
  if (selection === 0 && miss === 0) {
    return {
      dominant_error: 'none',
      text: 'No errors among non-abstained rows: neither reranking nor candidate generation has anything to fix here.',
    };
  }
  if (selection > miss) {
    return {
      dominant_error: 'selection_error',
      text: `Selection errors dominate (${selection} vs ${miss} candidate misses): the reference is usually among the first K, so a stronger reranker is worth trying.`,
    };
  }
  if (miss > selection) {
    return {
      dominant_error: 'candidate_miss',
      text: `Candidate misses dominate (${miss} vs ${selection} selection errors): improve candidate generation first; a larger reranker cannot repair missing candidates.`,
    };
  }
  return {
    dominant_error: 'tie',
    text: `Selection errors and candidate misses are equal (${selection} each): neither dominates, so escalating the reranker is not indicated yet.`,
  };
}

/**
 * Counts the declared provenance, reason and margin values of a predictions artifact.
 * @param predictions every prediction row (including rows of abstention)
 */
export function summarizeDeclared(predictions: readonly PredictionRow[]): DeclaredValues {
  return summarizeDeclaredTable(predictionTableOf(predictions));
}

/**
 * Counts the declared provenance, reason and margin values of a predictions artifact.
 * @param predictions the declared values of every prediction row (including rows of abstention)
 */
export function summarizeDeclaredTable(predictions: DeclaredColumns): DeclaredValues {
  const provenance = { provider: 0, deberta: 0, lfm: 0, rule: 0, unspecified: 0, absent: 0 };
  const reasonCounts = new Array<number>(predictions.reasons.length).fill(0);
  let reasonAbsent = 0;
  let marginCount = 0;
  let marginSum = 0;
  for (let p = 0; p < predictions.rows; p++) {
    const code = predictions.provenance[p];
    if (code === 0) provenance.absent++;
    else provenance[PROVENANCES[code - 1]]++;
    const reason = predictions.reasonOf[p];
    if (reason < 0) reasonAbsent++;
    else reasonCounts[reason]++;
    const margin = predictions.margins[p];
    if (!Number.isNaN(margin)) {
      marginCount++;
      marginSum += margin; // in file order, so the same file gives the same bits
    }
  }
  // An array sorted by count then by reason (code-unit order) rather than an object: JSON objects reorder
  // integer-like keys, and a stable order is what makes the report byte-for-byte reproducible.
  const reasonList = predictions.reasons.map((reason, index) => ({ reason, count: reasonCounts[index] }));
  reasonList.sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0));
  return {
    note: 'Declared by the predictions artifact; not verified and not used by any metric.',
    prediction_rows: predictions.rows,
    provenance,
    reasons: reasonList,
    reason_absent: reasonAbsent,
    margin: { count: marginCount, mean: marginCount === 0 ? null : marginSum / marginCount },
  };
}
