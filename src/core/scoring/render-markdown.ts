import { mdCode, mdFence, mdText } from '../text/markdown-escape.ts';
import type { CompareReport, ChangedRow } from './compare-report.ts';
import type { ScoreMetrics, ScoreReport } from './score-report.ts';

// The Markdown is assembled from plain template strings: a handful of fixed tables does not need a Markdown or
// templating library, and plain strings keep the output byte-stable.

/** Most changed rows a compare Markdown lists per section; the JSON always holds all of them. */
export const MARKDOWN_ROW_LIST_LIMIT = 100;

/** A fraction as a percentage with two decimals (`18.89%`); `n/a (why)` for null. */
function percent(value: number | null, whyNull = 'not defined'): string {
  return value === null ? `n/a (${whyNull})` : `${(value * 100).toFixed(2)}%`;
}

// Ids, reasons, file names and dataset fields come from the input files and flags: every one goes through the
// escaping module (inline text, a code span in a table cell, or a fenced block), never straight into the Markdown.
const cell = mdText;
const codeCell = (text: string) => mdCode(text, { inTable: true });

/** Quotes a shell word only when it needs it (POSIX single quotes; by hand: one regex, no dependency needed). */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@=+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The headline table (Markdown) that `drb score` prints and puts at the top of its report.
 * @param metrics the run's metrics
 * @param candidateLimit K, for the row labels
 */
export function renderHeadlineTable(metrics: ScoreMetrics, candidateLimit: number): string {
  const m = metrics;
  const accepted = m.rows - m.abstained_rows;
  const rows: [string, string][] = [
    ['Rows', String(m.rows)],
    ['Effective Acc@1', `${percent(m.effective_acc_at_1)} (${m.correct_rows}/${m.rows})`],
    [
      `Candidate Recall@${candidateLimit}`,
      `${percent(m.candidate_recall_at_k)} (${m.candidate_recall_hits}/${m.rows})`,
    ],
    [`MRR@${candidateLimit}`, m.mrr_at_k.toFixed(4)],
    ['Mean input MinCER', percent(m.mean_input_min_cer)],
    ['Mean effective MinCER', percent(m.mean_effective_min_cer)],
    ['Abstention rate', `${percent(m.abstention_rate)} (${m.abstained_rows}/${m.rows})`],
    [
      'Accepted accuracy',
      m.accepted_accuracy === null
        ? percent(null, 'every row abstained')
        : `${percent(m.accepted_accuracy)} (of ${accepted} non-abstained)`,
    ],
    [
      'Overcorrection rate',
      m.overcorrection_rate === null
        ? percent(null, 'no clean rows')
        : `${percent(m.overcorrection_rate)} (${m.overcorrected_rows}/${m.clean_rows} clean)`,
    ],
    ['Improved / worsened / unchanged', `${m.improved} / ${m.worsened} / ${m.unchanged}`],
    [`Accepted candidate miss (no reference in top ${candidateLimit})`, String(m.accepted_candidate_miss)],
    ['Selection error (reference in top k, wrong top-1)', String(m.selection_error)],
    [`Reranking headroom (Recall@${candidateLimit} − Acc@1)`, `${(m.reranking_headroom * 100).toFixed(2)} points`],
  ];
  return ['| Metric | Value |', '| --- | ---: |', ...rows.map(([name, value]) => `| ${name} | ${value} |`)].join('\n');
}

/** The command that reproduces a score report, with file base names (run it next to the two files). */
export function reproduceScoreCommand(report: ScoreReport): string {
  const words = [
    'npx',
    'drb',
    'score',
    '--items',
    report.inputs.items.file,
    '--predictions',
    report.inputs.predictions.file,
  ];
  words.push('--format', report.dataset.format, '--candidate-limit', String(report.candidate_limit));
  if (report.dataset.verification === 'declared' || report.dataset.verification === 'compatible-unverified') {
    if (report.dataset.name !== null) words.push('--dataset-name', report.dataset.name);
    if (report.dataset.revision !== null) words.push('--dataset-revision', report.dataset.revision);
    if (report.dataset.license !== null) words.push('--dataset-license', report.dataset.license);
  }
  if (report.per_row !== undefined) words.push('--per-row');
  return words.map(shellWord).join(' ');
}

function verificationText(report: Pick<ScoreReport, 'dataset'>): string {
  switch (report.dataset.verification) {
    case 'pinned-sha256-match':
      return 'the item bytes match the pinned AJIMEE SHA-256, so the official name, revision and licence are attached';
    case 'compatible-unverified':
      return 'AJIMEE field names, but the item bytes do NOT match the pinned SHA-256: the official identity is not attached';
    default:
      return 'name, revision and licence are as declared on the command line (not verified)';
  }
}

function datasetSection(report: Pick<ScoreReport, 'dataset'>): string[] {
  const d = report.dataset;
  return [
    '## Dataset',
    '',
    '| Field | Value |',
    '| --- | --- |',
    `| Name | ${cell(d.name ?? '(not declared)')} |`,
    `| Revision | ${cell(d.revision ?? '(not declared)')} |`,
    `| Licence | ${cell(d.license ?? '(not declared)')} |`,
    `| Format | ${d.format} |`,
    `| Verification | \`${d.verification}\`: ${verificationText(report)} |`,
  ];
}

/**
 * The readable companion of a score report: headline table, error breakdown, declared values, inputs with hashes,
 * and how to reproduce. Deterministic (no timestamps), like the JSON.
 * @param report the report to render
 */
export function renderScoreMarkdown(report: ScoreReport): string {
  const m = report.metrics;
  const candidateLimit = report.candidate_limit;
  const accepted = m.rows - m.abstained_rows;
  const correctAccepted = accepted - m.selection_error - m.accepted_candidate_miss;
  const d = report.declared;
  const lines: string[] = [
    '# Score report',
    '',
    `Evidence state: \`${report.evidence_state}\`. A pinned item artifact and a predictions artifact were scored by the local CLI;`,
    'this says nothing about any device.',
    '',
    `Schema \`${report.schema}\`, ${report.tool.name} ${cell(report.tool.version)}, ` +
      `candidate limit K = ${candidateLimit}.`,
    '',
    '## Headline',
    '',
    renderHeadlineTable(m, candidateLimit),
    '',
    '## Error breakdown',
    '',
    '| Rows | Count |',
    '| --- | ---: |',
    `| Non-abstained, top-1 correct | ${correctAccepted} |`,
    `| Non-abstained, selection error (a reference in the top ${candidateLimit}, wrong top-1) | ${m.selection_error} |`,
    `| Non-abstained, candidate miss (no reference in the top ${candidateLimit}) | ${m.accepted_candidate_miss} |`,
    `| Abstained (effective output = input) | ${m.abstained_rows} |`,
    `| Supplied more than K = ${candidateLimit} candidates (the rest were ignored) | ${m.rows_over_candidate_limit} |`,
    '',
    `Diagnosis: ${report.diagnosis.text}`,
    '',
    '## Declared values',
    '',
    `${d.note} ${d.prediction_rows} prediction rows.`,
    '',
    '| Provenance | Rows |',
    '| --- | ---: |',
    ...(['provider', 'deberta', 'lfm', 'rule', 'unspecified', 'absent'] as const).map(
      (key) => `| ${key} | ${d.provenance[key]} |`,
    ),
    '',
    '| Reason | Rows |',
    '| --- | ---: |',
    ...d.reasons.map((r) => `| ${codeCell(r.reason)} | ${r.count} |`),
    `| (absent) | ${d.reason_absent} |`,
    '',
    `Margin: declared on ${d.margin.count} rows${d.margin.mean === null ? '' : `, mean ${d.margin.mean}`}.`,
    '',
    ...datasetSection(report),
    '',
    '## Inputs',
    '',
    '| Input | File | Bytes | Rows | SHA-256 |',
    '| --- | --- | ---: | ---: | --- |',
    `| Items | ${cell(report.inputs.items.file)} | ${report.inputs.items.bytes} | ${report.inputs.items.rows} | \`${report.inputs.items.sha256}\` |`,
    `| Predictions | ${cell(report.inputs.predictions.file)} | ${report.inputs.predictions.bytes} | ${report.inputs.predictions.rows} | \`${report.inputs.predictions.sha256}\` |`,
    '',
    '## How to reproduce',
    '',
    'Next to the two input files (check their SHA-256 first, e.g. `sha256sum` on each), run:',
    '',
    ...mdFence(reproduceScoreCommand(report), 'sh'),
    '',
    'With the same drb version, the JSON report it writes is byte-for-byte identical to this one.',
    '',
  ];
  return lines.join('\n');
}

function pairedRow(name: string, counts: CompareReport['paired']['effective_correct']): string {
  return `| ${name} | ${counts.better} | ${counts.worse} | ${counts.tied} | ${counts.sign_test_p_value.toPrecision(4)} |`;
}

function changedRows(title: string, rows: readonly ChangedRow[]): string[] {
  const lines = [`## ${title} (${rows.length})`, ''];
  if (rows.length === 0) return [...lines, 'None.', ''];
  lines.push(
    '| Id | Label | Baseline rank | Candidate rank | Baseline effective MinCER | Candidate effective MinCER |',
  );
  lines.push('| --- | --- | ---: | ---: | ---: | ---: |');
  const rank = (value: number | null, abstained: boolean) =>
    abstained ? 'abstained' : value === null ? 'none' : String(value);
  for (const row of rows.slice(0, MARKDOWN_ROW_LIST_LIMIT)) {
    lines.push(
      `| ${codeCell(row.id)} | ${row.label} | ${rank(row.baseline_rank, row.baseline_abstained)} | ${rank(row.candidate_rank, row.candidate_abstained)} | ${percent(row.baseline_effective_min_cer)} | ${percent(row.candidate_effective_min_cer)} |`,
    );
  }
  if (rows.length > MARKDOWN_ROW_LIST_LIMIT)
    lines.push('', `(${rows.length - MARKDOWN_ROW_LIST_LIMIT} more in the JSON report.)`);
  return [...lines, ''];
}

/**
 * The headline of a comparison (Markdown): both runs' main metrics side by side and the paired counts.
 * @param report the comparison report
 */
export function renderCompareHeadline(report: CompareReport): string {
  const candidateLimit = report.candidate_limit;
  const b = report.runs.baseline;
  const c = report.runs.candidate;
  const row = (name: string, pick: (m: ScoreMetrics) => string) => `| ${name} | ${pick(b)} | ${pick(c)} |`;
  return [
    '| Metric | Baseline | Candidate |',
    '| --- | ---: | ---: |',
    row('Effective Acc@1', (m) => percent(m.effective_acc_at_1)),
    row(`Candidate Recall@${candidateLimit}`, (m) => percent(m.candidate_recall_at_k)),
    row(`MRR@${candidateLimit}`, (m) => m.mrr_at_k.toFixed(4)),
    row('Mean effective MinCER', (m) => percent(m.mean_effective_min_cer)),
    row('Abstention rate', (m) => percent(m.abstention_rate)),
    row('Overcorrection rate', (m) => percent(m.overcorrection_rate, 'no clean rows')),
    '',
    '| Paired outcome | Candidate better | Candidate worse | Tied | Sign test p (two-sided) |',
    '| --- | ---: | ---: | ---: | ---: |',
    pairedRow('Effective correctness', report.paired.effective_correct),
    pairedRow(`Recall@${candidateLimit} hit`, report.paired.candidate_recall_hit),
  ].join('\n');
}

/**
 * The readable companion of a comparison report: both runs' metrics, the paired tests, the rows the candidate broke
 * (first) and fixed, inputs with hashes, and how to reproduce.
 * @param report the comparison report
 */
export function renderCompareMarkdown(report: CompareReport): string {
  const i = report.inputs;
  const command = [
    'npx',
    'drb',
    'compare',
    '--items',
    i.items.file,
    '--baseline',
    i.baseline.file,
    '--candidate',
    i.candidate.file,
    '--format',
    report.dataset.format,
    '--candidate-limit',
    String(report.candidate_limit),
  ]
    .map(shellWord)
    .join(' ');
  return [
    '# Paired comparison',
    '',
    `Evidence state: \`${report.evidence_state}\`. Schema \`${report.schema}\`, ${report.tool.name} ${cell(report.tool.version)}, K = ${report.candidate_limit}.`,
    'Both runs are scored row by row against the same item bytes. The sign test is exact and two-sided over the',
    'discordant rows only (binomial, p = 0.5); tied rows carry no information about which run is better.',
    '',
    '## Headline',
    '',
    renderCompareHeadline(report),
    '',
    ...changedRows('Rows the candidate broke', report.broken),
    ...changedRows('Rows the candidate fixed', report.fixed),
    ...datasetSection(report),
    '',
    '## Inputs',
    '',
    '| Input | Kind | File | Bytes | Rows | SHA-256 |',
    '| --- | --- | --- | ---: | ---: | --- |',
    `| Items | items | ${cell(i.items.file)} | ${i.items.bytes} | ${i.items.rows} | \`${i.items.sha256}\` |`,
    `| Baseline | ${i.baseline.kind} | ${cell(i.baseline.file)} | ${i.baseline.bytes} | ${i.baseline.rows} | \`${i.baseline.sha256}\` |`,
    `| Candidate | ${i.candidate.kind} | ${cell(i.candidate.file)} | ${i.candidate.bytes} | ${i.candidate.rows} | \`${i.candidate.sha256}\` |`,
    '',
    '## How to reproduce',
    '',
    'Next to the three input files (check their SHA-256 first), run:',
    '',
    ...mdFence(command, 'sh'),
    '',
  ].join('\n');
}
