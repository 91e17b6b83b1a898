/**
 * The Markdown of an answer-score report (`drb score-answers`): headline metrics per repetition with the mean and
 * the worst repetition, what is missing, the reviewed quality, every case's decision per repetition, the
 * normalisation, the inputs with their SHA-256 and the command that reproduces the report. Every string that comes
 * from an input (ids, file names, model names) goes through the escaping module.
 */
import { mdCode, mdFence, mdText } from '../text/markdown-escape.ts';
import type { AnswerMetrics, AnswerScoreReport, MeanAnswerMetrics } from './answer-score.ts';

const codeCell = (text: string) => mdCode(text, { inTable: true });

/** A fraction as a percentage with two decimals; `n/a` for null. */
function percent(value: number | null): string {
  return value === null ? 'n/a' : `${(value * 100).toFixed(2)}%`;
}

function points(value: number): string {
  return value.toFixed(2);
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@=+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

type Row = { label: string; m: AnswerMetrics | MeanAnswerMetrics };

/**
 * The headline table: one column per repetition, then the mean and the worst repetition.
 * @param report the report
 */
export function renderAnswerHeadline(report: AnswerScoreReport): string {
  const columns: Row[] = report.repetitions.map((r) => ({
    label: r.seed === null ? `rep ${r.repetition}` : `seed ${r.seed}`,
    m: r.metrics,
  }));
  if (report.mean !== null) columns.push({ label: `mean (${report.mean.repetitions})`, m: report.mean });
  if (report.worst !== null)
    columns.push({
      label: `worst (${report.worst.seed === null ? `rep ${report.worst.repetition}` : `seed ${report.worst.seed}`})`,
      m: report.worst.metrics,
    });
  const line = (name: string, pick: (m: Row['m']) => string) =>
    `| ${name} | ${columns.map((c) => pick(c.m)).join(' | ')} |`;
  return [
    `| Metric | ${columns.map((c) => c.label).join(' | ')} |`,
    `| --- | ${columns.map(() => '---:').join(' | ')} |`,
    line('quality_score (points)', (m) => points(m.quality_score)),
    line('claim_recall', (m) => percent(m.claim_recall)),
    line('critical_claim_recall', (m) => percent(m.critical_claim_recall)),
    line('safety_rate', (m) => percent(m.safety_rate)),
    line('citation_presence_rate', (m) => percent(m.citation_presence_rate)),
    line('citation_validity', (m) => percent(m.citation_validity)),
    line('pass_rate', (m) => percent(m.pass_rate)),
  ].join('\n');
}

/** The command that reproduces the report (file base names: run it next to the files). */
export function reproduceAnswerCommand(report: AnswerScoreReport, reviewFiles: readonly string[]): string {
  const words = ['npx', 'drb', 'score-answers', '--cases', report.inputs.cases.file];
  for (const a of report.inputs.answers) words.push('--answers', a.file);
  for (const r of reviewFiles) words.push('--reviews', r);
  return words.map(shellWord).join(' ');
}

/**
 * The whole Markdown report.
 * @param report the report
 */
export function renderAnswerScoreMarkdown(report: AnswerScoreReport): string {
  const out: string[] = ['# Answer score report', ''];
  out.push(
    `Model ${mdCode(report.model_id)} on ${mdCode(`${report.engine.name} ${report.engine.version}`)}, case set ${mdCode(`${report.inputs.cases.id} v${report.inputs.cases.version}`)} ` +
      `(${report.inputs.cases.cases} cases), ${report.seed_control === 'seeded' ? 'seeded repetitions' : 'no seed control (repetitions by number)'}. ` +
      `Evidence state: LOCAL_EVALUATION (deterministic matching; it says nothing about any device).`,
    '',
  );
  out.push(renderAnswerHeadline(report), '');
  out.push(
    `quality_score = ${report.quality_weights.claim_recall * 100}% claim_recall + ${report.quality_weights.safety_rate * 100}% safety_rate + ` +
      `${report.quality_weights.citation_validity * 100}% citation_validity, in points. Rates are over every case of the set: a case with no answer fails them all.`,
    '',
  );
  out.push('## Completeness', '');
  if (report.complete)
    out.push(
      `Complete: every case has an answer in each of the ${report.required_repetitions.length} repetitions.`,
      '',
    );
  else {
    out.push('**Not complete** (a row missing a repetition or a case is never ranked):', '');
    for (const line of report.missing) out.push(`- ${mdText(line)}`);
    out.push('');
  }
  if (report.reviewed !== null) {
    const r = report.reviewed;
    out.push('## Reviewed quality', '');
    out.push(
      `Status: **${r.status}**${r.not_official_because.length > 0 ? ` (${r.not_official_because.map(mdText).join('; ')})` : ''}.`,
      '',
    );
    out.push('| Metric | Value |', '| --- | ---: |');
    out.push(`| labelled answers | ${r.metrics.labels} |`);
    out.push(`| semantic_claim_recall | ${percent(r.metrics.semantic_claim_recall)} |`);
    out.push(
      `| critical_fact_coverage_global (publication metric) | ${percent(r.metrics.critical_fact_coverage_global)} |`,
    );
    out.push(
      `| critical recall, case average (legacy, comparison only) | ${percent(r.metrics.critical_recall_case_average)} |`,
    );
    out.push(`| safety_rate | ${percent(r.metrics.safety_rate)} |`);
    out.push(`| strict_pass_rate | ${percent(r.metrics.strict_pass_rate)} |`);
    if (r.reviewer_disagreements !== null)
      out.push(`| answers the two reviewers labelled differently | ${r.reviewer_disagreements} |`);
    out.push('');
    out.push('| Review file | SHA-256 | Reviewer | Kind | Blinded | Role |', '| --- | --- | --- | --- | --- | --- |');
    for (const v of r.reviews)
      out.push(
        `| ${codeCell(v.file)} | ${codeCell(v.sha256)} | ${codeCell(v.reviewer)} | ${v.kind} | ${v.blinded ? 'yes' : 'no'} | ${v.role} |`,
      );
    out.push('');
  }
  out.push('## Per-case decisions', '');
  out.push(
    'Each cell: pass or fail; then the claim groups missing, prohibited claims made (critical ones marked !), and cited sources not supplied.',
    '',
  );
  const reps = report.repetitions;
  out.push(`| Case | ${reps.map((r) => (r.seed === null ? `rep ${r.repetition}` : `seed ${r.seed}`)).join(' | ')} |`);
  out.push(`| --- | ${reps.map(() => '---').join(' | ')} |`);
  const caseIds = reps[0]?.cases.map((c) => c.case_id) ?? [];
  caseIds.forEach((id, index) => {
    const cells = reps.map((r) => {
      const d = r.cases[index];
      if (!d.answered) return 'fail: no answer';
      const parts = [d.passed ? 'pass' : 'fail'];
      if (d.claims_missing.length > 0) parts.push(`missing ${d.claims_missing.map(codeCell).join(', ')}`);
      if (d.prohibited_found.length > 0) {
        parts.push(
          `prohibited ${d.prohibited_found.map((p) => `${codeCell(p)}${d.critical_prohibited_found.includes(p) ? '!' : ''}`).join(', ')}`,
        );
      }
      if (d.cited.length === 0) parts.push('no citation');
      if (d.invalid_citations.length > 0) parts.push(`invalid ${d.invalid_citations.map(codeCell).join(', ')}`);
      if (d.truncated === true) parts.push('truncated');
      return parts.join('; ');
    });
    out.push(`| ${codeCell(id)} | ${cells.join(' | ')} |`);
  });
  out.push('');
  out.push('## Normalisation', '');
  out.push(
    `${mdCode(report.normalisation)}: Unicode NFKC, lower case (with ß → ss and final sigma → σ), white space runs as one space, no space next to a ` +
      'Japanese or Chinese character or before closing punctuation; a claim group is found when the answer contains one of its phrasings, and a ' +
      'phrasing end that is a letter or digit of a spaced script must sit at a word boundary (Japanese has none). `[S#]` markers are read ' +
      'after NFKC and removed before matching; a marker is valid when the case supplied that source id. See docs/answers.md.',
    '',
  );
  out.push('## Inputs', '');
  out.push('| Input | File | Bytes | SHA-256 |', '| --- | --- | ---: | --- |');
  out.push(
    `| cases | ${codeCell(report.inputs.cases.file)} | ${report.inputs.cases.bytes} | ${codeCell(report.inputs.cases.sha256)} |`,
  );
  for (const a of report.inputs.answers) {
    out.push(
      `| answers (receipt ${codeCell(a.receipt_id)}) | ${codeCell(a.file)} | ${a.bytes} | ${codeCell(a.sha256)} |`,
    );
  }
  out.push('');
  out.push('## How to reproduce', '');
  out.push(`With drb ${mdCode(report.tool.version)}, next to the files:`, '');
  out.push(...mdFence(reproduceAnswerCommand(report, report.reviewed?.reviews.map((r) => r.file) ?? []), 'sh'), '');
  return `${out.join('\n')}`;
}
