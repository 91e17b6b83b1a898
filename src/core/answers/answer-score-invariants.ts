/**
 * An answer score report's numbers against its own case decisions (the cross-field layer for `drb.answer-score.v1`,
 * what `drb score-answers` writes; score-report-invariants.ts holds the scorer's): the quality weights are the
 * tool's, every repetition decides every case of the set once and its metrics are the ones its decisions give, the
 * mean is the mean of the repetitions and the worst is the worst of them, and `complete` agrees with `missing`.
 * `drb receipts summarize` ranks generation rows by `mean` and `worst`, so an edited report (a quality score raised
 * over its own decisions) is refused by it, by `drb receipts validate` and by the receipts report.
 */
import { meanOf, QUALITY_WEIGHTS, repetitionMetrics, worstOf, type AnswerScoreReport } from './answer-score.ts';

/** One contradiction in an answer score report: the field path and what is wrong. */
export interface AnswerScoreProblem {
  path: string;
  message: string;
}

// Rates are stored as the double division gives them; an edited one differs by far more.
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** The first field where `stated` differs from `made` (numbers within 1e-9 relative, null only with null). */
function firstDifference(stated: Record<string, unknown>, made: Record<string, unknown>): string | null {
  for (const [key, value] of Object.entries(made)) {
    const given = stated[key];
    const same = typeof value === 'number' && typeof given === 'number' ? close(value, given) : Object.is(value, given);
    if (!same) return key;
  }
  return null;
}

/**
 * Every contradiction inside a schema-valid answer score report.
 * @param report the parsed report
 */
export function checkAnswerScoreReport(report: AnswerScoreReport): AnswerScoreProblem[] {
  const problems: AnswerScoreProblem[] = [];
  const weights = firstDifference(report.quality_weights, QUALITY_WEIGHTS);
  if (weights !== null)
    problems.push({
      path: `quality_weights.${weights}`,
      message: `is ${report.quality_weights[weights as keyof typeof QUALITY_WEIGHTS]}, but drb weighs it ${QUALITY_WEIGHTS[weights as keyof typeof QUALITY_WEIGHTS]}`,
    });
  const required = new Set(report.required_repetitions.map((r) => r.repetition));
  const seen = new Set<number>();
  report.repetitions.forEach((rep, i) => {
    const at = `repetitions[${i}]`;
    if (!required.has(rep.repetition) || seen.has(rep.repetition))
      problems.push({
        path: `${at}.repetition`,
        message: `is ${rep.repetition}: not a required repetition, or one given twice`,
      });
    seen.add(rep.repetition);
    const ids = new Set(rep.cases.map((c) => c.case_id));
    if (rep.cases.length !== report.inputs.cases.cases || ids.size !== rep.cases.length)
      problems.push({
        path: `${at}.cases`,
        message: `holds ${rep.cases.length} decisions (${ids.size} distinct cases), but the case set has ${report.inputs.cases.cases}: each case is decided once`,
      });
    const made = repetitionMetrics(rep.cases);
    const field = firstDifference(rep.metrics, made);
    if (field !== null)
      problems.push({
        path: `${at}.metrics.${field}`,
        message: `is ${rep.metrics[field as keyof typeof made]}, but its case decisions give ${made[field as keyof typeof made]}`,
      });
  });
  const mean = meanOf(report.repetitions);
  if (mean === null || report.mean === null) {
    if (mean !== report.mean)
      problems.push({
        path: 'mean',
        message: `is ${JSON.stringify(report.mean)}, but ${report.repetitions.length} repetition(s) are present`,
      });
  } else {
    const field = firstDifference(report.mean, mean);
    if (field !== null)
      problems.push({
        path: `mean.${field}`,
        message: `is ${report.mean[field as keyof typeof mean]}, but the repetitions give ${mean[field as keyof typeof mean]}`,
      });
  }
  const worst = worstOf(report.repetitions);
  if (worst === null || report.worst === null) {
    if ((worst === null) !== (report.worst === null))
      problems.push({
        path: 'worst',
        message: `does not name the worst of the ${report.repetitions.length} repetition(s)`,
      });
  } else if (
    report.worst.repetition !== worst.repetition ||
    firstDifference(report.worst.metrics, worst.metrics) !== null
  ) {
    problems.push({
      path: 'worst',
      message: `names repetition ${report.worst.repetition}, but the worst repetition (lowest quality score, then pass rate) is ${worst.repetition} with its metrics`,
    });
  }
  if (report.complete !== (report.missing.length === 0))
    problems.push({
      path: 'complete',
      message: `is ${report.complete}, but missing lists ${report.missing.length} line(s)`,
    });
  if (report.complete && report.repetitions.length !== report.required_repetitions.length)
    problems.push({
      path: 'complete',
      message: `is true with ${report.repetitions.length} of ${report.required_repetitions.length} required repetitions`,
    });
  return problems;
}
