/**
 * The cross-field rules of a comparison report (`drb.compare-report.v1`, src/core/scoring/compare-report-invariants.ts):
 * every report `buildCompareReport` makes from random runs (predictions and `--per-row` score reports, abstentions,
 * clean rows, overcorrections) keeps them; each rule refuses the edit it is for; and `drb receipts validate` refuses
 * the hostile compare-report cases (test/fixtures/hostile) with one line naming the field.
 */
import { describe, expect, it } from 'vitest';
import { buildCompareReport, type CompareReport } from '../../src/core/scoring/compare-report.ts';
import { checkCompareReport } from '../../src/core/scoring/compare-report-invariants.ts';
import { signTestPValue } from '../../src/core/scoring/sign-test.ts';
import { mulberry32 } from '../../src/core/stats/mulberry32.ts';
import { HOSTILE_CASES } from '../fixtures/hostile/hostile-fixtures.ts';
import { displayPath } from '../../src/cli/receipt-files.ts';
import { runCli } from './cli-harness.ts';
import { join } from 'node:path';

const bytesOf = (value: unknown, name: string) => ({
  bytes: new TextEncoder().encode(JSON.stringify(value)),
  fileName: name,
  reportName: name,
});

/** Random items (some clean) and two random runs over them: hits at rank 1 or 2, misses, abstentions. */
function randomRuns(seed: number) {
  const random = mulberry32(seed);
  const rows = 5 + Math.floor(random() * 40);
  const items = Array.from({ length: rows }, (_, i) => {
    const clean = random() < 0.25;
    return { id: `r${i}`, input: clean ? `R${i}` : `I${i}`, references: [`R${i}`], label: clean ? 'clean' : 'typo' };
  });
  const run = () =>
    items.flatMap((item, i) => {
      const pick = random();
      if (pick < 0.15) return []; // abstains: no row
      if (pick < 0.5) return [{ id: item.id, candidates: [`R${i}`, 'W'] }];
      if (pick < 0.7) return [{ id: item.id, candidates: ['W', `R${i}`] }];
      return [{ id: item.id, candidates: ['W', 'V'] }];
    });
  return { items, baseline: run(), candidate: run() };
}

async function report(seed: number): Promise<CompareReport> {
  const { items, baseline, candidate } = randomRuns(seed);
  return buildCompareReport(
    bytesOf(items, 'items.json'),
    bytesOf(baseline, 'base.json'),
    bytesOf(candidate, 'cand.json'),
    { format: 'generic', candidateLimit: 2, toolVersion: 'test' },
  );
}

describe('checkCompareReport', () => {
  it('finds nothing in 40 reports drb compare makes from random runs', async () => {
    for (let seed = 1; seed <= 40; seed++) expect(checkCompareReport(await report(seed)), `seed ${seed}`).toEqual([]);
  });

  it.each<[string, (r: CompareReport) => void, string]>([
    [
      'a paired block rewritten to claim an improvement (consistent with itself)',
      (r) => {
        const rows = r.runs.baseline.rows;
        r.paired.effective_correct = {
          better: rows,
          worse: 0,
          tied: 0,
          discordant: rows,
          sign_test_p_value: signTestPValue(rows, 0),
        };
      },
      'paired.effective_correct.better',
    ],
    ['a p-value edited', (r) => (r.paired.effective_correct.sign_test_p_value = 1e-6), 'sign_test_p_value'],
    ['a discordant count edited', (r) => (r.paired.candidate_recall_hit.discordant += 1), 'discordant'],
    ['tied rows edited', (r) => (r.paired.effective_correct.tied += 1), 'paired.effective_correct.tied'],
    ['a run rate edited', (r) => (r.runs.candidate.candidate_recall_at_k = 1), 'runs.candidate'],
    ['the runs on other rows', (r) => (r.runs.candidate.rows += 1), 'runs.candidate'],
    ['the items said to hold more rows', (r) => (r.inputs.items.rows += 1), 'inputs.items.rows'],
    ['a broken row dropped', (r) => r.broken.pop(), 'broken'],
    ['a fixed row added twice', (r) => r.fixed.push(r.fixed[0]), 'fixed'],
    ['a fixed row whose candidate side is wrong', (r) => (r.fixed[0].candidate_effective_min_cer = 0.5), 'fixed[0]'],
  ])('refuses %s', async (_what, edit, path) => {
    // Seed 7 gives a report with broken and fixed rows.
    const r = structuredClone(await report(7));
    expect(r.broken.length).toBeGreaterThan(0);
    expect(r.fixed.length).toBeGreaterThan(0);
    edit(r);
    const problems = checkCompareReport(r);
    expect(
      problems.some((p) => p.path.startsWith(path) || p.path.includes(path)),
      JSON.stringify(problems),
    ).toBe(true);
  });
});

describe('drb receipts validate on hostile comparison reports', () => {
  const cases = HOSTILE_CASES.filter((c) => c.name.startsWith('compare-report-'));

  it('has cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(8);
  });

  it.each(cases.map((c) => [c.name, c] as const))('refuses %s with a line naming its field', async (_name, c) => {
    const file = join(__dirname, '..', 'fixtures', 'hostile', c.file!);
    const run = await runCli(['receipts', 'validate', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('1 of 1 file(s) failed validation');
    const lines = run.stdout.trim().split('\n');
    const shown = displayPath(file);
    expect(lines.every((line) => line.startsWith(`${shown}: `))).toBe(true);
    expect(
      lines.some((line) => line.startsWith(`${shown}: ${c.field}: `)),
      lines.join('\n'),
    ).toBe(true);
  });
});
