/**
 * `drb receipts validate`, `summarize` and `review` over the hostile fixtures (test/fixtures/hostile): copies of one
 * receipt count once, an edited copy is an error, a parse error never quotes the file, a symbolic link is reported,
 * and every string that reaches summary.md is escaped.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DeviceReview } from '../../src/core/evidence/device-review.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import {
  HOSTILE_CASES,
  hostileBytes,
  writeHostileCases,
  type HostileCase,
} from '../fixtures/hostile/hostile-fixtures.ts';
import { buildReceipt } from './receipts-builder.ts';
import { runCli } from './cli-harness.ts';
import { testTempDir } from '../temp-dir.ts';

const receiptCases = (c: HostileCase) => c.reader === 'receipts';
/** The id the copy cases share: the captured receipt's own. */
const COPIED_ID = (
  JSON.parse(new TextDecoder().decode(hostileBytes(HOSTILE_CASES.find((c) => c.name === 'cold-copy-1')!))) as {
    receipt_id: string;
  }
).receipt_id;

/** The hostile receipt cases written into a fresh folder; returns the folder and each case's shown path. */
function hostileFolder(): { dir: string; paths: Map<string, string> } {
  const dir = testTempDir('drb-hostile-');
  const cases = HOSTILE_CASES.filter(receiptCases);
  const written = writeHostileCases(dir, receiptCases);
  return { dir, paths: new Map(cases.map((c, i) => [c.name, written[i]])) };
}

/** Text from the fixtures that must never be quoted into an output. */
const NEVER_QUOTED = ['quoted secret text', 'quoted-secret', '\u001b', 'hello', '\n## Evidence'];

/** Every line of summary.md that starts a table row has as many cells as its header. */
function expectTablesIntact(markdown: string): void {
  let columns = 0;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      columns = 0;
      continue;
    }
    const cells = line.replace(/\\\|/g, '').split('|').length - 2;
    if (columns === 0) columns = cells;
    else expect(cells, line).toBe(columns);
  }
}

describe('hostile receipts: validate', () => {
  it('gives each case its verdict, counts copies once and quotes no file content', async () => {
    const { paths } = hostileFolder();
    const run = await runCli(['receipts', 'validate', ...new Set([...paths.values()].map((p) => join(p, '..')))]);
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n');
    // A bundled receipt's lines name `<file>#receipts[0]`.
    const linesOf = (name: string) =>
      lines.filter(
        (line) => line.startsWith(`${paths.get(name)}: `) || line.startsWith(`${paths.get(name)}#receipts[`),
      );
    for (const c of HOSTILE_CASES.filter(receiptCases)) {
      const own = linesOf(c.name);
      if (
        c.expect === 'refused' ||
        c.expect === 'reported' ||
        c.expect === 'copy-conflict' ||
        c.expect === 'not-a-receipt'
      ) {
        expect(own.length, c.name).toBeGreaterThan(0);
      } else expect(own, c.name).toEqual([]);
      // A bundle's own fields (its sheet, its session attestations, its list of receipts) are the bundle file's lines;
      // the others its receipt's.
      const shownAs =
        c.bundle !== undefined && !/^(sheet\.|attestations|receipts\[)/.test(c.field ?? '')
          ? `${paths.get(c.name)}#receipts[0]`
          : paths.get(c.name);
      if (c.field !== undefined)
        expect(
          own.some((line) => line.startsWith(`${shownAs}: ${c.field}: `)),
          `${c.name}: ${own.join(' / ')}`,
        ).toBe(true);
    }
    expect(linesOf('not-json')).toEqual([`${paths.get('not-json')}: (document): not valid JSON: syntax error`]);
    expect(linesOf('invalid-utf8')).toEqual([`${paths.get('invalid-utf8')}: (document): not valid UTF-8`]);
    expect(linesOf('symlinked-receipt')).toEqual([
      `${paths.get('symlinked-receipt')}: (document): a symbolic link inside a folder: not followed (name its target to check it)`,
    ]);
    expect(linesOf('cold-edited-copy')).toEqual([
      `${paths.get('cold-edited-copy')}: receipt_id: receipt_id ${COPIED_ID} is already used by ${paths.get('cold-copy-1')} with different content: an edited or forged copy; not counted`,
    ]);
    for (const copy of [2, 3, 4, 5]
      .map((n) => paths.get(`cold-copy-${n}`))
      .concat(`${paths.get('receipt-copy-in-bundle')}#receipts[0]`)) {
      expect(run.stderr).toContain(
        `note: ${copy}: receipt_id: receipt_id ${COPIED_ID} is a copy of ${paths.get('cold-copy-1')} (the same content); counted once\n`,
      );
    }
    // The bundle whose sheet is refused is refused whole: none of its receipts is read.
    expect(linesOf('bundle-sheet-bidi').some((line) => line.includes('#receipts['))).toBe(false);
    for (const text of [...NEVER_QUOTED, '<img']) expect(run.stdout + run.stderr).not.toContain(text);
  });
});

describe('hostile receipts: summarize and review', () => {
  it('counts five copies of one cold receipt once, fails on the edited copy, and escapes summary.md', async () => {
    const { dir, paths } = hostileFolder();
    const out = join(dir, 'summary');
    const run = await runCli(['receipts', 'summarize', dir, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `error: ${paths.get('cold-edited-copy')}: receipt_id: receipt_id ${COPIED_ID} is already used by`,
    );
    const json = readFileSync(join(out, 'summary.json'), 'utf8');
    const summary = ReceiptsSummary.parse(JSON.parse(json));
    expect(summary.inputs).toMatchObject({ duplicates_identical: 5, duplicates_conflicting: 1 });
    expect(summary.duplicates).toEqual([
      {
        receipt_id: COPIED_ID,
        counted_file: paths.get('cold-copy-1'),
        copies: [
          { file: paths.get('cold-copy-2'), identical: true, matched_by: 'receipt_id' },
          { file: paths.get('cold-copy-3'), identical: true, matched_by: 'receipt_id' },
          { file: paths.get('cold-copy-4'), identical: true, matched_by: 'receipt_id' },
          { file: paths.get('cold-copy-5'), identical: true, matched_by: 'receipt_id' },
          { file: paths.get('cold-edited-copy'), identical: false, matched_by: 'receipt_id' },
          { file: `${paths.get('receipt-copy-in-bundle')}#receipts[0]`, identical: true, matched_by: 'receipt_id' },
        ],
      },
    ]);
    const cold = summary.targets.find((t) => t.duplicate_receipt_ids.length > 0)!;
    expect(cold.counts).toMatchObject({ cold: 1, clean_cold: 1, cold_minimum_met: false });
    expect(cold.evidence.not_higher_because).toContain(
      `1 receipt id(s) appear in more than one file (${COPIED_ID}): a receipt counts once; remove the copies and summarise again`,
    );
    expect(summary.invalid.map((i) => [i.file, i.first_problem])).toEqual(
      expect.arrayContaining([
        [paths.get('not-json'), '(document): not valid JSON: syntax error'],
        [
          paths.get('symlinked-receipt'),
          '(document): a symbolic link inside a folder: not followed (name its target to check it)',
        ],
      ]),
    );
    expect(summary.not_receipts).toContainEqual({
      file: paths.get('hostile-schema-string'),
      schema: '(not a schema id)',
    });
    const md = readFileSync(join(out, 'summary.md'), 'utf8');
    for (const text of NEVER_QUOTED) {
      expect(json).not.toContain(text);
      expect(md).not.toContain(text);
    }
    expect(md).not.toContain('<img');
    expect(md).toContain(
      'Mozilla/5.0 (X11; Linux x86_64) &lt;img src=x onerror=alert(1)&gt; \\| forged \\| \\*\\*DEVICE_PASS\\*\\* \\`x\\` \\[a\\](javascript:alert(1))',
    );
    expect(md).not.toMatch(/^#+ Evidence/m);
    expectTablesIntact(md);
  });

  it('review refuses to promote a full procedure while a copy of one of its receipts is among the inputs', async () => {
    const dir = testTempDir('drb-hostile-review-');
    mkdirSync(join(dir, 'in'));
    const receipts = [
      ...Array.from({ length: 5 }, () =>
        buildReceipt({ kind: 'cold', coldMs: { fetch: 100, session: 200, first: 5 } }),
      ),
      ...Array.from({ length: 20 }, () => buildReceipt({ kind: 'warm', warmSamples: [2, 3, 4] })),
    ];
    receipts.forEach((r, i) => writeFileSync(join(dir, 'in', `${String(i).padStart(2, '0')}.json`), JSON.stringify(r)));
    writeFileSync(join(dir, 'in', 'zz-copy.json'), JSON.stringify(receipts[0]));
    const out = join(dir, 'out');
    const summarized = await runCli(['receipts', 'summarize', join(dir, 'in'), '--out', out]);
    expect(summarized.stderr).toBe(
      `note: ${join(dir, 'in', 'zz-copy.json')}: receipt_id: receipt_id ${receipts[0].receipt_id} is a copy of ${join(dir, 'in', '00.json')} (the same content); counted once\n`,
    );
    expect(summarized.code).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    const [target] = summary.targets;
    expect(target.counts).toMatchObject({ clean_cold: 5, clean_warm: 20 });
    const review: DeviceReview = {
      schema: 'drb.device-review.v1',
      target: target.key,
      reviewer: 'qa-1',
      reviewed_at: '2026-11-29T12:00:00Z',
      device: { hardware_model: 'Pixel 8', ram_gb: 8, os_build: 'AP2A', browser: 'Chrome', browser_version: '156' },
      conditions: { network: 'Wi-Fi', battery_percent: 80, charging: false, thermal_state: 'nominal' },
      public_revision: 'a'.repeat(40),
      launch_to_result_ms: 3000,
      tab: { reloaded_or_evicted: false, details: null },
      memory_pressure: { observed: false, behaviour: 'none observed' },
      output_stayed_correct: true,
      failure_explanations: [],
      thresholds: { profile: null, cold_total_p95_ms: 10_000, warm_p95_ms: null },
      notes: null,
    };
    writeFileSync(join(dir, 'answers.json'), JSON.stringify(review));
    const reviewed = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      target.key,
      '--answers',
      join(dir, 'answers.json'),
    ]);
    expect(reviewed.code, reviewed.stderr).toBe(0);
    expect(reviewed.stdout).toContain(`${target.key}: DEVICE_RECEIPT\n`);
    expect(reviewed.stdout).toContain(
      `not higher: 1 receipt id(s) appear in more than one file (${receipts[0].receipt_id})`,
    );
    // Without the copy the same receipts and review give DEVICE_PASS: the copy alone blocked it.
    const clean = join(dir, 'clean');
    mkdirSync(clean);
    receipts.forEach((r, i) => writeFileSync(join(clean, `${i}.json`), JSON.stringify(r)));
    const out2 = join(dir, 'out2');
    expect((await runCli(['receipts', 'summarize', clean, '--out', out2])).code).toBe(0);
    const again = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out2, 'summary.json'),
      '--target',
      target.key,
      '--answers',
      join(dir, 'answers.json'),
    ]);
    expect(again.stdout).toContain(`${target.key}: DEVICE_PASS\n`);
  });
});

describe('hostile fixtures folder', () => {
  it('README.md lists every case with its reader and expectation, and every case has its bytes', () => {
    const readme = readFileSync(join(__dirname, '..', 'fixtures', 'hostile', 'README.md'), 'utf8');
    const names = HOSTILE_CASES.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of HOSTILE_CASES) {
      expect(readme, c.name).toContain(`| \`${c.name}\` | ${c.reader} | ${c.expect} |`);
      const sources = [c.file, c.base, c.copy_of, c.symlink_to, c.fifo].filter((s) => s !== undefined);
      expect(sources, c.name).toHaveLength(1);
    }
    const rows = readme.split('\n').filter((line) => line.startsWith('| `'));
    expect(rows).toHaveLength(HOSTILE_CASES.length);
  });
});
