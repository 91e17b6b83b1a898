import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ScoreReport } from '../../src/core/scoring/score-report.ts';
import { runCli, tempDirWith } from './cli-harness.ts';

const items = [
  { id: 'a', input: '吉野家', references: ['𠮷野家'], label: 'typo' },
  { id: 'b', input: 'abc', references: ['abd', 'abc'], label: 'clean' },
  { id: 'c', input: 'ねこ', references: ['猫'] },
];
const predictions = [
  { id: 'a', candidates: ['𠮷野家', 'x'], provenance: 'deberta', reason: 'accepted', margin: 0.75 },
  { id: 'b', candidates: ['abd'] },
];

function scoreArgs(dir: string, extra: string[] = []): string[] {
  return [
    'score',
    '--items',
    join(dir, 'items.json'),
    '--predictions',
    join(dir, 'p.json'),
    '--output-dir',
    join(dir, 'out'),
    ...extra,
  ];
}

describe('drb score (in-process)', () => {
  it('writes DIR/STEM.json and DIR/STEM.md and prints the headline table', async () => {
    const dir = tempDirWith({ 'items.json': items, 'p.json': predictions });
    const run = await runCli(
      scoreArgs(dir, [
        '--stem',
        'toy',
        '--dataset-name',
        'toy set',
        '--dataset-revision',
        'v1',
        '--dataset-license',
        'CC0-1.0',
        '--per-row',
      ]),
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('| Effective Acc@1 | 66.67% (2/3) |');
    expect(run.stdout).toContain('| Candidate Recall@8 | 66.67% (2/3) |');
    expect(run.stdout).toContain('| Overcorrection rate | 100.00% (1/1 clean) |');
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(['toy.json', 'toy.md']);
    const report = ScoreReport.parse(JSON.parse(readFileSync(join(dir, 'out', 'toy.json'), 'utf8')));
    expect(report.dataset).toMatchObject({
      name: 'toy set',
      revision: 'v1',
      license: 'CC0-1.0',
      verification: 'declared',
    });
    expect(report.inputs.items).toMatchObject({
      file: 'items.json',
      rows: 3,
      bytes: readFileSync(join(dir, 'items.json')).byteLength,
    });
    expect(report.per_row).toHaveLength(3);
    expect(report.metrics.rows).toBe(3);
    const markdown = readFileSync(join(dir, 'out', 'toy.md'), 'utf8');
    for (const heading of [
      '## Headline',
      '## Error breakdown',
      '## Declared values',
      '## Dataset',
      '## Inputs',
      '## How to reproduce',
    ]) {
      expect(markdown).toContain(heading);
    }
    expect(markdown).toContain(report.inputs.predictions.sha256);
    expect(markdown).toContain(
      "npx drb score --items items.json --predictions p.json --format generic --candidate-limit 8 --dataset-name 'toy set' --dataset-revision v1 --dataset-license CC0-1.0 --per-row",
    );
  });

  it('uses the defaults: generic, K = 8, outputs/evaluation.{json,md}', async () => {
    const dir = tempDirWith({ 'items.json': items, 'p.json': predictions });
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const run = await runCli(['score', '--items', 'items.json', '--predictions', 'p.json']);
      expect(run.code).toBe(0);
    } finally {
      process.chdir(cwd);
    }
    const report = JSON.parse(readFileSync(join(dir, 'outputs', 'evaluation.json'), 'utf8'));
    expect(report.candidate_limit).toBe(8);
    expect(report.dataset).toMatchObject({ format: 'generic', name: null, verification: 'declared' });
    expect(existsSync(join(dir, 'outputs', 'evaluation.md'))).toBe(true);
  });

  it('writes the same bytes on a re-run over the same inputs (and replaces its own earlier report)', async () => {
    const dir = tempDirWith({ 'items.json': items, 'p.json': predictions });
    expect((await runCli(scoreArgs(dir))).code).toBe(0);
    const json1 = readFileSync(join(dir, 'out', 'evaluation.json'));
    const md1 = readFileSync(join(dir, 'out', 'evaluation.md'));
    expect((await runCli(scoreArgs(dir))).code).toBe(0);
    expect(readFileSync(join(dir, 'out', 'evaluation.json')).equals(json1)).toBe(true);
    expect(readFileSync(join(dir, 'out', 'evaluation.md')).equals(md1)).toBe(true);
  });

  it('accepts a BOM and hashes the raw bytes, BOM included', async () => {
    const text = JSON.stringify(items);
    const dir = tempDirWith({ 'items.json': `\ufeff${text}`, 'p.json': predictions });
    expect((await runCli(scoreArgs(dir))).code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'out', 'evaluation.json'), 'utf8'));
    const expected = execFileSync('sha256sum', [join(dir, 'items.json')], { encoding: 'utf8' }).split(' ')[0];
    expect(report.inputs.items.sha256).toBe(expected);
    expect(report.inputs.items.bytes).toBe(Buffer.byteLength(text) + 3);
  });

  const cases: [string, Record<string, string | Uint8Array | object>, string[], RegExp][] = [
    [
      'malformed items JSON',
      { 'items.json': '[{"id": "a"', 'p.json': predictions },
      [],
      /^error: .*items\.json: \$: not valid JSON/,
    ],
    [
      'non-UTF-8 predictions',
      { 'items.json': items, 'p.json': new Uint8Array([0x5b, 0x22, 0xff, 0x22, 0x5d]) },
      [],
      /^error: .*p\.json: byte 2: not valid UTF-8$/,
    ],
    [
      'a wrong type in predictions',
      { 'items.json': items, 'p.json': [{ id: 'a', candidates: 'x' }] },
      [],
      /^error: .*p\.json: id "a" candidates: .*expected array/,
    ],
    [
      'a wrong type in items',
      { 'items.json': [{ id: 'a', input: 3, references: ['x'] }], 'p.json': [] },
      [],
      /^error: .*items\.json: id "a" input: .*expected string/,
    ],
    [
      'a duplicate item id',
      { 'items.json': [...items, items[0]], 'p.json': predictions },
      [],
      /^error: .*items\.json: id "a": duplicate id \(rows \[0\] and \[3\]\)$/,
    ],
    [
      'a duplicate prediction id',
      { 'items.json': items, 'p.json': [...predictions, predictions[1]] },
      [],
      /^error: .*p\.json: id "b": duplicate id \(rows \[1\] and \[2\]\)$/,
    ],
    [
      'a prediction naming no item row',
      { 'items.json': items, 'p.json': [{ id: 'zz', candidates: [] }] },
      [],
      /^error: .*p\.json: id "zz": names no item row in .*items\.json$/,
    ],
    [
      'a clean row whose input is no reference',
      { 'items.json': [{ id: 'k', input: 'x', references: ['y'], label: 'clean' }], 'p.json': [] },
      [],
      /^error: .*items\.json: id "k" input: label is clean but the input is not one of its references$/,
    ],
    [
      'an empty references list',
      { 'items.json': [{ id: 'k', input: 'x', references: [] }], 'p.json': [] },
      [],
      /^error: .*items\.json: id "k" references: must list at least one reference$/,
    ],
    [
      'an empty-string reference',
      { 'items.json': [{ id: 'k', input: 'x', references: [''] }], 'p.json': [] },
      [],
      /^error: .*items\.json: id "k" references\[0\]: must not be an empty string/,
    ],
    [
      'an items file with zero rows',
      { 'items.json': [], 'p.json': [] },
      [],
      /^error: .*items\.json: \$: the items file has no rows$/,
    ],
    [
      'an unknown format',
      { 'items.json': items, 'p.json': predictions },
      ['--format', 'csv'],
      /^error: --format: unknown format "csv" \(expected generic or ajimee\)$/,
    ],
    [
      'K = 0',
      { 'items.json': items, 'p.json': predictions },
      ['--candidate-limit', '0'],
      /^error: --candidate-limit: must be a whole number >= 1, got "0"$/,
    ],
    [
      'K = -1',
      { 'items.json': items, 'p.json': predictions },
      ['--candidate-limit=-1'],
      /^error: --candidate-limit: must be a whole number >= 1, got "-1"$/,
    ],
    [
      'K = 2.5',
      { 'items.json': items, 'p.json': predictions },
      ['--candidate-limit', '2.5'],
      /^error: --candidate-limit: must be a whole number >= 1, got "2\.5"$/,
    ],
    [
      'a missing items file',
      { 'p.json': predictions },
      [],
      /^error: .*items\.json: \$: cannot read the file \(ENOENT\)$/,
    ],
  ];
  it.each(cases)('exits 2 with one error line and writes no report for %s', async (_name, files, extra, expected) => {
    const dir = tempDirWith(files);
    const run = await runCli(scoreArgs(dir, extra));
    expect(run.code).toBe(2);
    expect(run.stderr.endsWith('\n')).toBe(true);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr.trimEnd()).toMatch(expected);
    expect(run.stdout).toBe('');
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('refuses to overwrite a file that is not an earlier score report, and leaves it untouched', async () => {
    const dir = tempDirWith({ 'items.json': items, 'p.json': predictions });
    const notes = join(dir, 'notes.json');
    writeFileSync(notes, '{"mine": true}');
    const run = await runCli([
      'score',
      '--items',
      join(dir, 'items.json'),
      '--predictions',
      join(dir, 'p.json'),
      '--output-dir',
      dir,
      '--stem',
      'notes',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^error: .*notes\.json: \$: exists and is not an earlier report of this kind; refusing to overwrite it\n$/,
    );
    expect(readFileSync(notes, 'utf8')).toBe('{"mine": true}');
    expect(existsSync(join(dir, 'notes.md'))).toBe(false);
  });

  it('refuses an output path that is one of its inputs', async () => {
    const dir = tempDirWith({ 'items.json': items, 'p.json': predictions });
    const before = readFileSync(join(dir, 'items.json'));
    const run = await runCli([
      'score',
      '--items',
      join(dir, 'items.json'),
      '--predictions',
      join(dir, 'p.json'),
      '--output-dir',
      dir,
      '--stem',
      'items',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/the output would overwrite an input file/);
    expect(readFileSync(join(dir, 'items.json')).equals(before)).toBe(true);
  });

  it('refuses a stem with a directory in it', async () => {
    const dir = tempDirWith({ 'items.json': items, 'p.json': predictions });
    const run = await runCli(scoreArgs(dir, ['--stem', '../escape']));
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('error: --stem: must be a plain file name without a directory, got "../escape"\n');
  });
});

describe('drb score (the real binary)', () => {
  it('runs as a child process: exit 0 with a report, exit 2 with one error line', () => {
    const dir = tempDirWith({ 'items.json': items, 'p.json': predictions });
    const bin = fileURLToPath(new URL('../../bin/drb.mjs', import.meta.url));
    const child = spawnSync(process.execPath, [bin, ...scoreArgs(dir, ['--candidate-limit', '1'])], {
      encoding: 'utf8',
    });
    expect(child.stderr.split('\n').filter((line) => line.startsWith('error'))).toEqual([]);
    expect(child.status).toBe(0);
    expect(child.stdout).toContain('| Candidate Recall@1 | 66.67% (2/3) |');
    const report = JSON.parse(readFileSync(join(dir, 'out', 'evaluation.json'), 'utf8'));
    expect(report.schema).toBe('drb.score-report.v2');
    expect(report.candidate_limit).toBe(1);

    const bad = spawnSync(
      process.execPath,
      [bin, 'score', '--items', join(dir, 'missing.json'), '--predictions', join(dir, 'p.json')],
      { encoding: 'utf8' },
    );
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^error: .*missing\.json: \$: cannot read the file \(ENOENT\)\n$/m);
  });
});
