/**
 * A score report's rates against its own counts (the cross-field layer for `drb.score-report.v2`; see
 * src/core/receipt/receipt-invariants.ts for receipts): every rate is the count behind it over the rows it is of
 * (metrics.ts computes them so), the parts add up, the diagnosis names what the counts say, and the input and per-row
 * figures agree with the metrics. `drb receipts validate` and the receipts report refuse a report that breaks one.
 */
import type { ScoreMetrics, ScoreReport } from './score-report.ts';

/** One contradiction in a score report: the field path and what is wrong. */
export interface ScoreReportProblem {
  path: string;
  message: string;
}

// Rates are stored as the double division gives them; a hand-edited rate differs by far more.
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * The metrics' own rules: every rate is its count over the rows it is of, the parts add up, no count exceeds what it
 * is part of. A score report's `metrics` and a comparison report's two `runs` are held to them.
 * @param m the metrics
 * @param at their field path (`metrics`, `runs.baseline`)
 */
export function checkScoreMetrics(m: ScoreMetrics, at: string): ScoreReportProblem[] {
  const problems: ScoreReportProblem[] = [];
  const rate = (field: keyof typeof m, value: number | null, count: number, of: number, what: string) => {
    const expected = of === 0 ? null : count / of;
    if (expected === null ? value !== null : value === null || !close(value, expected)) {
      problems.push({ path: `${at}.${field}`, message: `is ${value}, but ${what} give ${expected}` });
    }
  };
  rate(
    'effective_acc_at_1',
    m.effective_acc_at_1,
    m.correct_rows,
    m.rows,
    `correct_rows / rows (${m.correct_rows} / ${m.rows})`,
  );
  rate(
    'candidate_recall_at_k',
    m.candidate_recall_at_k,
    m.candidate_recall_hits,
    m.rows,
    `candidate_recall_hits / rows (${m.candidate_recall_hits} / ${m.rows})`,
  );
  rate(
    'abstention_rate',
    m.abstention_rate,
    m.abstained_rows,
    m.rows,
    `abstained_rows / rows (${m.abstained_rows} / ${m.rows})`,
  );
  rate(
    'overcorrection_rate',
    m.overcorrection_rate,
    m.overcorrected_rows,
    m.clean_rows,
    `overcorrected_rows / clean_rows (${m.overcorrected_rows} / ${m.clean_rows})`,
  );
  const headroom = m.candidate_recall_hits / m.rows - m.correct_rows / m.rows;
  if (!close(m.reranking_headroom, headroom))
    problems.push({
      path: `${at}.reranking_headroom`,
      message: `is ${m.reranking_headroom}, but the counts give ${headroom}`,
    });
  for (const field of [
    'correct_rows',
    'candidate_recall_hits',
    'abstained_rows',
    'clean_rows',
    'rows_over_candidate_limit',
    'improved',
    'worsened',
    'unchanged',
  ] as const) {
    if (m[field] > m.rows)
      problems.push({ path: `${at}.${field}`, message: `is ${m[field]}, more than ${at}.rows (${m.rows})` });
  }
  if (m.overcorrected_rows > m.clean_rows)
    problems.push({
      path: `${at}.overcorrected_rows`,
      message: `is ${m.overcorrected_rows}, more than ${at}.clean_rows (${m.clean_rows})`,
    });
  if (m.improved + m.worsened + m.unchanged !== m.rows) {
    problems.push({
      path: `${at}.unchanged`,
      message: `improved + worsened + unchanged is ${m.improved + m.worsened + m.unchanged}, but ${at}.rows is ${m.rows}`,
    });
  }
  const accepted = m.rows - m.abstained_rows;
  if (m.accepted_candidate_miss + m.selection_error > accepted) {
    problems.push({
      path: `${at}.selection_error`,
      message: `accepted_candidate_miss + selection_error is ${m.accepted_candidate_miss + m.selection_error}, more than the ${accepted} accepted rows`,
    });
  }
  if ((accepted === 0) !== (m.accepted_accuracy === null)) {
    problems.push({
      path: `${at}.accepted_accuracy`,
      message: `is ${m.accepted_accuracy}, but ${accepted} row(s) were accepted`,
    });
  } else if (m.accepted_accuracy !== null) {
    // accepted_accuracy x accepted is the number of correct accepted rows: a whole number, at most the correct rows.
    const correctAccepted = m.accepted_accuracy * accepted;
    if (
      Math.abs(correctAccepted - Math.round(correctAccepted)) > 1e-6 * Math.max(1, accepted) ||
      Math.round(correctAccepted) > m.correct_rows
    ) {
      problems.push({
        path: `${at}.accepted_accuracy`,
        message: `is ${m.accepted_accuracy}, which is no whole number of correct rows among the ${accepted} accepted`,
      });
    }
  }
  if (m.mrr_at_k > m.candidate_recall_at_k + 1e-9)
    problems.push({
      path: `${at}.mrr_at_k`,
      message: `is ${m.mrr_at_k}, more than candidate_recall_at_k (${m.candidate_recall_at_k}): each hit adds at most 1 / rows`,
    });
  return problems;
}

/**
 * Every contradiction inside a schema-valid score report.
 * @param report the parsed report
 */
export function checkScoreReport(report: ScoreReport): ScoreReportProblem[] {
  const m = report.metrics;
  const problems = checkScoreMetrics(m, 'metrics');
  const diagnosis =
    m.selection_error === 0 && m.accepted_candidate_miss === 0
      ? 'none'
      : m.selection_error > m.accepted_candidate_miss
        ? 'selection_error'
        : m.accepted_candidate_miss > m.selection_error
          ? 'candidate_miss'
          : 'tie';
  if (report.diagnosis.dominant_error !== diagnosis) {
    problems.push({
      path: 'diagnosis.dominant_error',
      message: `is ${report.diagnosis.dominant_error}, but selection_error ${m.selection_error} and accepted_candidate_miss ${m.accepted_candidate_miss} give ${diagnosis}`,
    });
  }
  if (report.inputs.items.rows !== m.rows)
    problems.push({
      path: 'inputs.items.rows',
      message: `is ${report.inputs.items.rows}, but metrics.rows is ${m.rows}`,
    });
  if (report.declared.prediction_rows !== report.inputs.predictions.rows) {
    problems.push({
      path: 'declared.prediction_rows',
      message: `is ${report.declared.prediction_rows}, but inputs.predictions.rows is ${report.inputs.predictions.rows}`,
    });
  }
  if (report.per_row !== undefined) {
    const rows = report.per_row;
    if (rows.length !== m.rows)
      problems.push({ path: 'per_row', message: `holds ${rows.length} rows, but metrics.rows is ${m.rows}` });
    else {
      const tally = (pick: (r: (typeof rows)[number]) => boolean) => rows.filter(pick).length;
      const checks: Array<[keyof typeof m, number]> = [
        ['correct_rows', tally((r) => r.correct)],
        ['abstained_rows', tally((r) => r.abstained)],
        ['candidate_recall_hits', tally((r) => r.rank !== null)],
        ['overcorrected_rows', tally((r) => r.overcorrected)],
        ['improved', tally((r) => r.change === 'improved')],
        ['worsened', tally((r) => r.change === 'worsened')],
      ];
      for (const [field, count] of checks) {
        if (m[field] !== count)
          problems.push({ path: `metrics.${field}`, message: `is ${m[field]}, but per_row gives ${count}` });
      }
    }
  }
  return problems;
}
