/**
 * A comparison report's numbers against each other (the cross-field layer for `drb.compare-report.v1`, what
 * `drb compare` writes; score-report-invariants.ts holds a score report's): each run's metrics keep a score report's
 * rules, both runs and the items count the same rows, each paired outcome's counts add up to the rows, its sign test
 * p-value is the one its counts give and its net change is the runs' own difference, and the broken and fixed rows are
 * as many as the paired counts say, each on the side its ranks and MinCERs put it. `drb receipts validate` and
 * `drb gate escalation` (which decides a promotion from `paired`) refuse a report that breaks one.
 */
import type { ChangedRow, CompareReport, PairedCounts } from './compare-report.ts';
import type { ScoreMetrics } from './score-report.ts';
import { checkScoreMetrics } from './score-report-invariants.ts';
import { signTestPValue } from './sign-test.ts';

/** One contradiction in a comparison report: the field path and what is wrong. */
export interface CompareReportProblem {
  path: string;
  message: string;
}

// The p-value is stored as the double the sign test computes; an edited one differs by far more.
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * One paired outcome: better + worse + tied is the rows, discordant is better + worse, the p-value is the sign test's
 * on better and worse, and better - worse is the candidate's count minus the baseline's.
 */
function checkPaired(
  counts: PairedCounts,
  at: string,
  rows: number,
  what: string,
  baselineCount: number,
  candidateCount: number,
  problems: CompareReportProblem[],
): void {
  const { better, worse, tied, discordant } = counts;
  if (better + worse + tied !== rows)
    problems.push({
      path: `${at}.tied`,
      message: `better + worse + tied is ${better + worse + tied}, but the runs have ${rows} rows`,
    });
  if (discordant !== better + worse)
    problems.push({ path: `${at}.discordant`, message: `is ${discordant}, but better + worse is ${better + worse}` });
  const p = signTestPValue(better, worse);
  if (!close(counts.sign_test_p_value, p))
    problems.push({
      path: `${at}.sign_test_p_value`,
      message: `is ${counts.sign_test_p_value}, but the sign test on ${better} better and ${worse} worse gives ${p}`,
    });
  if (better - worse !== candidateCount - baselineCount)
    problems.push({
      path: `${at}.better`,
      message: `better - worse is ${better - worse}, but the runs' ${what} go from ${baselineCount} to ${candidateCount} (${candidateCount - baselineCount})`,
    });
  if (worse > baselineCount)
    problems.push({ path: `${at}.worse`, message: `is ${worse}, more than the baseline's ${what} (${baselineCount})` });
  if (better > candidateCount)
    problems.push({
      path: `${at}.better`,
      message: `is ${better}, more than the candidate's ${what} (${candidateCount})`,
    });
}

/** Whether one side of a changed row is correct: its effective MinCER is 0 (scoring makes correct exactly so). */
function sideProblems(row: ChangedRow, side: 'baseline' | 'candidate', correct: boolean, limit: number): string[] {
  const rank = row[`${side}_rank`];
  const abstained = row[`${side}_abstained`];
  const minCer = row[`${side}_effective_min_cer`];
  const out: string[] = [];
  if ((minCer === 0) !== correct)
    out.push(
      `${side}_effective_min_cer is ${minCer} on the ${side}'s ${correct ? 'correct' : 'wrong'} side (a row is correct exactly when it is 0)`,
    );
  if (abstained && rank !== null) out.push(`${side}_rank is ${rank} on a row the ${side} abstained on`);
  if (!abstained && (rank === 1) !== correct)
    out.push(
      `${side}_rank is ${rank} on the ${side}'s ${correct ? 'correct' : 'wrong'} side (a row that did not abstain is correct exactly at rank 1)`,
    );
  if (rank !== null && rank > limit) out.push(`${side}_rank is ${rank}, beyond candidate_limit (${limit})`);
  return out;
}

/**
 * Every contradiction inside a schema-valid comparison report.
 * @param report the parsed report
 */
export function checkCompareReport(report: CompareReport): CompareReportProblem[] {
  const problems: CompareReportProblem[] = [];
  const base: ScoreMetrics = report.runs.baseline;
  const cand: ScoreMetrics = report.runs.candidate;
  problems.push(...checkScoreMetrics(base, 'runs.baseline'), ...checkScoreMetrics(cand, 'runs.candidate'));
  if (cand.rows !== base.rows)
    problems.push({
      path: 'runs.candidate.rows',
      message: `is ${cand.rows}, but runs.baseline.rows is ${base.rows} (both runs score the same item rows)`,
    });
  if (report.inputs.items.rows !== base.rows)
    problems.push({
      path: 'inputs.items.rows',
      message: `is ${report.inputs.items.rows}, but runs.baseline.rows is ${base.rows}`,
    });
  if (cand.clean_rows !== base.clean_rows)
    problems.push({
      path: 'runs.candidate.clean_rows',
      message: `is ${cand.clean_rows}, but runs.baseline.clean_rows is ${base.clean_rows} (the same items)`,
    });
  for (const side of ['baseline', 'candidate'] as const) {
    const input = report.inputs[side];
    if (input.kind === 'score-report' && input.rows !== base.rows)
      problems.push({
        path: `inputs.${side}.rows`,
        message: `is ${input.rows}, but a score report compared holds one entry per item row (${base.rows})`,
      });
  }
  const rows = base.rows;
  checkPaired(
    report.paired.effective_correct,
    'paired.effective_correct',
    rows,
    'correct_rows',
    base.correct_rows,
    cand.correct_rows,
    problems,
  );
  checkPaired(
    report.paired.candidate_recall_hit,
    'paired.candidate_recall_hit',
    rows,
    'candidate_recall_hits',
    base.candidate_recall_hits,
    cand.candidate_recall_hits,
    problems,
  );
  const paired = report.paired.effective_correct;
  if (report.broken.length !== paired.worse)
    problems.push({
      path: 'broken',
      message: `lists ${report.broken.length} rows, but paired.effective_correct.worse is ${paired.worse}`,
    });
  if (report.fixed.length !== paired.better)
    problems.push({
      path: 'fixed',
      message: `lists ${report.fixed.length} rows, but paired.effective_correct.better is ${paired.better}`,
    });
  const seen = new Set<string>();
  for (const [list, baselineCorrect] of [
    ['broken', true],
    ['fixed', false],
  ] as const) {
    report[list].forEach((row, i) => {
      const at = `${list}[${i}]`;
      if (seen.has(row.id))
        problems.push({ path: `${at}.id`, message: 'names a row already listed (a row changes at most once)' });
      seen.add(row.id);
      const found = [
        ...sideProblems(row, 'baseline', baselineCorrect, report.candidate_limit),
        ...sideProblems(row, 'candidate', !baselineCorrect, report.candidate_limit),
      ];
      for (const message of found)
        problems.push({
          path: at,
          message: `${message}: not a row the candidate ${list === 'broken' ? 'broke' : 'fixed'}`,
        });
    });
  }
  return problems;
}
