import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CompareReport } from '../../src/core/scoring/compare-report.ts';
import { runCli, tempDirWith } from './cli-harness.ts';

// Ten rows; every reference is R<n>, every input I<n> (never a reference).
const items = Array.from({ length: 10 }, (_, i) => ({
  id: `r${i + 1}`,
  input: `I${i + 1}`,
  references: [`R${i + 1}`],
  label: 'typo',
}));
const hit = (n: number) => ({ id: `r${n}`, candidates: [`R${n}`] });
const second = (n: number) => ({ id: `r${n}`, candidates: ['W', `R${n}`] });
const miss = (n: number) => ({ id: `r${n}`, candidates: ['W'] });
// Row by row (baseline -> candidate):        correctness          recall hit
//  r1  hit -> hit                             tied (both right)    tied
//  r2  hit -> second                          broken               tied (both hits)
//  r3..r6, r8, r9  miss -> hit                fixed (6 rows)       better
//  r7  hit -> abstain (no row)                broken               worse
//  r10 abstain -> miss                        tied (both wrong)    tied (both no hit)
const baseline = [hit(1), hit(2), miss(3), miss(4), miss(5), miss(6), hit(7), miss(8), miss(9)];
const candidate = [hit(1), second(2), hit(3), hit(4), hit(5), hit(6), hit(8), hit(9), miss(10)];

function compareArgs(dir: string, base = 'base.json', cand = 'cand.json', extra: string[] = []): string[] {
  return [
    'compare',
    '--items',
    join(dir, 'items.json'),
    '--baseline',
    join(dir, base),
    '--candidate',
    join(dir, cand),
    '--output-dir',
    join(dir, 'out'),
    ...extra,
  ];
}

function readReport(dir: string, stem = 'comparison'): CompareReport {
  return CompareReport.parse(JSON.parse(readFileSync(join(dir, 'out', `${stem}.json`), 'utf8')));
}

describe('drb compare', () => {
  it('counts better / worse / tied rows, gives exact sign-test p-values, and lists broken rows before fixed ones', async () => {
    const dir = tempDirWith({ 'items.json': items, 'base.json': baseline, 'cand.json': candidate });
    const run = await runCli(compareArgs(dir));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = readReport(dir);
    expect(report.paired.effective_correct).toEqual({
      better: 6,
      worse: 2,
      tied: 2,
      discordant: 8,
      sign_test_p_value: (2 * (1 + 8 + 28)) / 256, // 2 * P(X <= 2), X ~ Bin(8, 1/2)
    });
    expect(report.paired.candidate_recall_hit).toEqual({
      better: 6,
      worse: 1,
      tied: 3,
      discordant: 7,
      sign_test_p_value: (2 * (1 + 7)) / 128, // 2 * P(X <= 1), X ~ Bin(7, 1/2)
    });
    expect(report.broken.map((row) => row.id)).toEqual(['r2', 'r7']);
    expect(report.fixed.map((row) => row.id)).toEqual(['r3', 'r4', 'r5', 'r6', 'r8', 'r9']);
    expect(report.broken[0]).toEqual({
      id: 'r2',
      label: 'typo',
      baseline_rank: 1,
      candidate_rank: 2,
      baseline_abstained: false,
      candidate_abstained: false,
      baseline_effective_min_cer: 0,
      candidate_effective_min_cer: 1,
    });
    expect(report.broken[1]).toMatchObject({ id: 'r7', candidate_abstained: true, candidate_rank: null });
    expect(report.runs.baseline.effective_acc_at_1).toBe(3 / 10);
    expect(report.runs.candidate.effective_acc_at_1).toBe(7 / 10);
    expect(report.inputs.baseline).toMatchObject({ file: 'base.json', kind: 'predictions', rows: 9 });
    expect(report.inputs.items.rows).toBe(10);

    const markdown = readFileSync(join(dir, 'out', 'comparison.md'), 'utf8');
    expect(markdown.indexOf('## Rows the candidate broke (2)')).toBeGreaterThan(0);
    expect(markdown.indexOf('## Rows the candidate broke')).toBeLessThan(
      markdown.indexOf('## Rows the candidate fixed (6)'),
    );
    expect(markdown).toContain('| Effective correctness | 6 | 2 | 2 | 0.2891 |');
    expect(run.stdout).toContain('broke 2 rows, fixed 6');
  });

  it('accepts a --per-row score report as a run and gets the same pairing', async () => {
    const dir = tempDirWith({ 'items.json': items, 'base.json': baseline, 'cand.json': candidate });
    const scored = await runCli([
      'score',
      '--items',
      join(dir, 'items.json'),
      '--predictions',
      join(dir, 'base.json'),
      '--output-dir',
      dir,
      '--stem',
      'base-report',
      '--per-row',
    ]);
    expect(scored.code).toBe(0);
    const run = await runCli(compareArgs(dir, 'base-report.json'));
    expect(run.stderr).toBe('');
    const report = readReport(dir);
    expect(report.inputs.baseline.kind).toBe('score-report');
    expect(report.paired.effective_correct).toMatchObject({ better: 6, worse: 2 });
    expect(report.broken.map((row) => row.id)).toEqual(['r2', 'r7']);
  });

  it('refuses (exit 2) a run that was scored against other item bytes', async () => {
    const otherItems = items.map((row) => ({ ...row, label: 'unspecified' }));
    const dir = tempDirWith({
      'items.json': items,
      'other-items.json': otherItems,
      'base.json': baseline,
      'cand.json': candidate,
    });
    expect(
      (
        await runCli([
          'score',
          '--items',
          join(dir, 'other-items.json'),
          '--predictions',
          join(dir, 'base.json'),
          '--output-dir',
          dir,
          '--stem',
          'r',
          '--per-row',
        ])
      ).code,
    ).toBe(0);
    const run = await runCli(compareArgs(dir, 'r.json'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^error: .*r\.json: inputs\.items\.sha256: this run was scored against other item bytes \([0-9a-f]{64}\) than .*items\.json \([0-9a-f]{64}\)\n$/,
    );
  });

  it('refuses a score report without per-row entries, or scored with another K', async () => {
    const dir = tempDirWith({ 'items.json': items, 'base.json': baseline, 'cand.json': candidate });
    await runCli([
      'score',
      '--items',
      join(dir, 'items.json'),
      '--predictions',
      join(dir, 'base.json'),
      '--output-dir',
      dir,
      '--stem',
      'plain',
    ]);
    await runCli([
      'score',
      '--items',
      join(dir, 'items.json'),
      '--predictions',
      join(dir, 'base.json'),
      '--output-dir',
      dir,
      '--stem',
      'k3',
      '--per-row',
      '--candidate-limit',
      '3',
    ]);
    const plain = await runCli(compareArgs(dir, 'plain.json'));
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(
      /plain\.json: per_row: missing: a score report can be compared only when written with --per-row\n$/,
    );
    const k3 = await runCli(compareArgs(dir, 'k3.json'));
    expect(k3.code).toBe(2);
    expect(k3.stderr).toMatch(/k3\.json: candidate_limit: this run was scored with K = 3, not 8\n$/);
  });

  it.each([
    [
      'a candidate prediction naming no item row',
      { cand: [{ id: 'nope', candidates: [] }] },
      [],
      /^error: .*cand\.json: id "nope": names no item row in .*items\.json$/,
    ],
    ['a malformed baseline', { base: '[' }, [], /^error: .*base\.json: \$: not valid JSON/],
    ['an unknown format', {}, ['--format', 'tsv'], /^error: --format: unknown format "tsv"/],
    ['K < 1', {}, ['--candidate-limit', '0'], /^error: --candidate-limit: must be a whole number >= 1, got "0"$/],
  ] as [string, { base?: unknown; cand?: unknown }, string[], RegExp][])(
    'exits 2 with one line and no report for %s',
    async (_name, override, extra, expected) => {
      const dir = tempDirWith({
        'items.json': items,
        'base.json': override.base ?? baseline,
        'cand.json': override.cand ?? candidate,
      });
      const run = await runCli(compareArgs(dir, 'base.json', 'cand.json', extra));
      expect(run.code).toBe(2);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr.trimEnd()).toMatch(expected);
      expect(() => readFileSync(join(dir, 'out', 'comparison.json'))).toThrow();
    },
  );

  it("recomputes a score report's headline from its rows and refuses an edited report", async () => {
    // Every candidate row correct; the report is then edited to claim Acc@1 0, or one row edited to wrong.
    const allHits = Array.from({ length: 10 }, (_, i) => hit(i + 1));
    const dir = tempDirWith({ 'items.json': items, 'base.json': baseline, 'all.json': allHits });
    expect(
      (
        await runCli([
          'score',
          '--items',
          join(dir, 'items.json'),
          '--predictions',
          join(dir, 'all.json'),
          '--output-dir',
          dir,
          '--stem',
          'all-report',
          '--per-row',
        ])
      ).code,
    ).toBe(0);
    const original = JSON.parse(readFileSync(join(dir, 'all-report.json'), 'utf8')) as {
      metrics: Record<string, number>;
      per_row: Array<Record<string, unknown>>;
    };
    const edits: Array<[string, (r: typeof original) => void, RegExp]> = [
      [
        'headline',
        (r) => (r.metrics.effective_acc_at_1 = 0),
        /edited-headline\.json: metrics\.effective_acc_at_1: is 0 but its own per_row entries give 1: the report was edited; score the predictions again\n$/,
      ],
      [
        'row',
        (r) => (r.per_row[3].correct = false),
        /edited-row\.json: per_row\[3\]\.correct: is false with rank 1 \(the top-1 candidate is correct exactly at rank 1\): the report was edited/,
      ],
      [
        'label',
        (r) => (r.per_row[0].label = 'clean'),
        /edited-label\.json: per_row\[0\]\.label: is clean but item row "r1" is typo/,
      ],
      [
        'cer',
        (r) => (r.per_row[5].input_min_cer = 0.25),
        /edited-cer\.json: per_row\[5\]\.input_min_cer: is 0\.25 but the item row gives 0\.5/,
      ],
      [
        'rows and headline together',
        (r) => {
          // Consistent rows that all say wrong, and the one headline number edited to match: the other headline
          // numbers still give the edit away.
          for (const row of r.per_row)
            Object.assign(row, {
              correct: false,
              rank: null,
              effective_min_cer: row.input_min_cer,
              change: 'unchanged',
            });
          r.metrics.effective_acc_at_1 = 0;
        },
        /edited-rows and headline together\.json: metrics\.candidate_recall_at_k: is 1 but its own per_row entries give 0/,
      ],
    ];
    for (const [name, edit, expected] of edits) {
      const copy = structuredClone(original);
      edit(copy);
      const file = `edited-${name}.json`;
      writeFileSync(join(dir, file), JSON.stringify(copy));
      const run = await runCli(compareArgs(dir, 'base.json', file));
      expect(run.code, name).toBe(2);
      expect(run.stderr, name).toMatch(expected);
      expect(existsSync(join(dir, 'out', 'comparison.json'))).toBe(false);
    }
    const honest = await runCli(compareArgs(dir, 'base.json', 'all-report.json'));
    expect(honest.code).toBe(0);
  });

  it('is byte-for-byte reproducible', async () => {
    const dir = tempDirWith({ 'items.json': items, 'base.json': baseline, 'cand.json': candidate });
    await runCli(compareArgs(dir, 'base.json', 'cand.json', ['--stem', 'one']));
    await runCli(compareArgs(dir, 'base.json', 'cand.json', ['--stem', 'two']));
    expect(readFileSync(join(dir, 'out', 'one.json')).equals(readFileSync(join(dir, 'out', 'two.json')))).toBe(true);
    expect(readFileSync(join(dir, 'out', 'one.md')).equals(readFileSync(join(dir, 'out', 'two.md')))).toBe(true);
  });
});
