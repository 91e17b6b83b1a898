/**
 * `drb receipts review` trusts nothing it is given: it counts from the receipts the summary names (never from the
 * summary's numbers), refuses a summary that is not what its receipts say or contradicts itself, writes nothing until
 * every check passed, and `review-template` never pre-fills what the reviewer must confirm. A clean field session of
 * 5 truly cold and 20 warm receipts, in one bundle or several, still reaches DEVICE_PASS.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { DeviceReview } from '../../src/core/evidence/device-review.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { checkReceiptsSummary } from '../../src/core/evidence/summary-invariants.ts';
import { EMPTY_TESTER_SHEET, RECEIPT_BUNDLE_SCHEMA } from '../../src/core/field/receipt-bundle.ts';
import { buildReceipt } from './receipts-builder.ts';
import { runCli } from './cli-harness.ts';
import { testTempDir } from '../temp-dir.ts';

function procedure(): DeviceReceipt[] {
  return [
    ...Array.from({ length: 5 }, () => buildReceipt({ kind: 'cold', coldMs: { fetch: 100, session: 200, first: 5 } })),
    ...Array.from({ length: 20 }, () => buildReceipt({ kind: 'warm', warmSamples: [2, 3, 4] })),
  ];
}

function answers(target: string): DeviceReview {
  return DeviceReview.parse({
    schema: 'drb.device-review.v1',
    target,
    reviewer: 'qa-1',
    reviewed_at: '2026-12-01T10:00:00Z',
    device: { hardware_model: 'Pixel 8', ram_gb: 8, os_build: 'AP2A', browser: 'Chrome', browser_version: '156' },
    conditions: { network: 'Wi-Fi', battery_percent: 80, charging: false, thermal_state: 'nominal' },
    public_revision: 'a'.repeat(40),
    launch_to_result_ms: 3000,
    tab: { reloaded_or_evicted: false, details: null },
    memory_pressure: { observed: false, behaviour: 'none observed' },
    output_stayed_correct: true,
    failure_explanations: [],
    thresholds: { profile: 'mainstream', cold_total_p95_ms: null, warm_p95_ms: null },
    notes: null,
  });
}

/** A folder of loose receipts summarised into `out`, with answers for its target written to `answers.json`. */
async function summarised(receipts: DeviceReceipt[]) {
  const dir = testTempDir('drb-recount-');
  mkdirSync(join(dir, 'in'));
  receipts.forEach((r, i) => writeFileSync(join(dir, 'in', `${String(i).padStart(2, '0')}.json`), JSON.stringify(r)));
  const out = join(dir, 'out');
  const run = await runCli(['receipts', 'summarize', join(dir, 'in'), '--out', out]);
  expect(run.code, run.stderr).toBe(0);
  const summaryFile = join(out, 'summary.json');
  const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(summaryFile, 'utf8')));
  const file = join(dir, 'answers.json');
  writeFileSync(file, JSON.stringify(answers(summary.targets[0].key)));
  return { dir, out, summaryFile, summary, target: summary.targets[0].key, file };
}

/** Every file under `dir` with its bytes (to see that a refused command changed nothing). */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      files[join(entry.parentPath, entry.name)] = readFileSync(join(entry.parentPath, entry.name), 'utf8');
  }
  return files;
}

describe('drb receipts review counts from the receipts', () => {
  it('records where the receipts were read from, relative to the summary', async () => {
    const { summary } = await summarised(procedure());
    expect(summary.sources).toEqual(['../in']);
    expect(checkReceiptsSummary(summary)).toEqual([]);
  });

  it('refuses a summary whose counts its receipts do not give (receipts removed since), writing nothing', async () => {
    const { dir, out, summaryFile, target, file } = await summarised(procedure());
    for (const name of ['00.json', '01.json', '02.json', '03.json']) rmSync(join(dir, 'in', name));
    const before = snapshot(out);
    const run = await runCli(['receipts', 'review', '--summary', summaryFile, '--target', target, '--answers', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^error: .*summary\.json: [^:]+: is \d+ in the file, but its receipts give \d+ \(the summary is not what its receipts say: summarise them again; nothing written\)\n$/,
    );
    expect(snapshot(out)).toEqual(before);
    expect(existsSync(join(out, 'reviews'))).toBe(false);
  });

  it('refuses an edited summary.json that claims what its receipts do not (one receipt made DEVICE_PASS), writing nothing', async () => {
    const { out, summaryFile, target, file } = await summarised(procedure().slice(0, 1));
    const edited = JSON.parse(readFileSync(summaryFile, 'utf8')) as ReceiptsSummary;
    const t = edited.targets[0];
    // Counts made to agree with each other, so only counting the receipts again shows the lie.
    Object.assign(t.counts, {
      receipts: 25,
      cold: 5,
      warm: 20,
      ok_cold: 5,
      ok_warm: 20,
      clean_cold: 5,
      clean_warm: 20,
      cold_minimum_met: true,
      warm_minimum_met: true,
    });
    // The measured and attested cold counts too, as five full protocol colds.
    Object.assign(t.counts, { measured_network_cold: 5, measured_fresh_start: 5, attested_cold: 5, full_cold: 5 });
    t.integrity.verified = 25;
    t.cold.total_ms = { count: 5, median: 306, p95: 306, min: 306, max: 306, mean: 306 };
    t.warm.receipt_medians_ms = { count: 20, median: 3, p95: 3, min: 3, max: 3, mean: 3 };
    t.warm.pooled_ms = { count: 60, median: 3, p95: 4, min: 2, max: 4, mean: 3 };
    t.counts.warm_samples = 60;
    edited.inputs.receipts_valid = 25;
    writeFileSync(summaryFile, JSON.stringify(edited, null, 2));
    expect(checkReceiptsSummary(ReceiptsSummary.parse(edited))).toEqual([]);
    const before = snapshot(out);
    const run = await runCli(['receipts', 'review', '--summary', summaryFile, '--target', target, '--answers', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('in the file, but its receipts give');
    expect(run.stdout).not.toContain('DEVICE_PASS');
    expect(snapshot(out)).toEqual(before);
  });

  it('refuses a summary that contradicts itself before reading any receipt (validate refuses it too)', async () => {
    const { out, summaryFile, target, file } = await summarised(procedure().slice(0, 1));
    const edited = JSON.parse(readFileSync(summaryFile, 'utf8')) as ReceiptsSummary;
    edited.targets[0].counts.clean_cold = 5;
    edited.targets[0].counts.cold_minimum_met = true;
    writeFileSync(summaryFile, JSON.stringify(edited, null, 2));
    const before = snapshot(out);
    const run = await runCli(['receipts', 'review', '--summary', summaryFile, '--target', target, '--answers', file]);
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toMatch(
      /summary\.json: targets\[0\]\.counts\.clean_cold: is 5; .*\(the summary contradicts itself: summarise the receipts again\)\n$/,
    );
    expect(snapshot(out)).toEqual(before);
    const validated = await runCli(['receipts', 'validate', summaryFile]);
    expect(validated.code).toBe(1);
    expect(validated.stdout).toContain('summary.json: targets[0].counts.clean_cold: is 5;');
  });

  it('refuses a summary that names no receipts (made in memory), and a summary.json of an earlier drb', async () => {
    const { summaryFile, target, file } = await summarised(procedure().slice(0, 1));
    const edited = JSON.parse(readFileSync(summaryFile, 'utf8')) as ReceiptsSummary;
    writeFileSync(summaryFile, JSON.stringify({ ...edited, sources: [] }));
    const none = await runCli(['receipts', 'review', '--summary', summaryFile, '--target', target, '--answers', file]);
    expect(none.stderr).toBe(
      `error: ${summaryFile}: sources: names no input to count from (make it with drb receipts summarize)\n`,
    );
    writeFileSync(summaryFile, JSON.stringify({ ...edited, schema: 'drb.receipts-summary.v2' }));
    const old = await runCli(['receipts', 'review', '--summary', summaryFile, '--target', target, '--answers', file]);
    expect(old.stderr).toBe(
      `error: ${summaryFile}: schema: is drb.receipts-summary.v2, from an earlier drb version; summarise the receipts again (drb receipts summarize)\n`,
    );
  });

  it("writes the review and the summary together, after every check, and the state is the receipts'", async () => {
    const { out, summaryFile, target, file } = await summarised(procedure());
    const run = await runCli(['receipts', 'review', '--summary', summaryFile, '--target', target, '--answers', file]);
    expect(run.stdout.split('\n')[0]).toBe(`${target}: DEVICE_PASS`);
    expect(readdirSync(out).sort()).toEqual(['reviews', 'summary.json', 'summary.md']);
    expect(readdirSync(join(out, 'reviews'))).toEqual([`${target}.json`]);
    // The review is applied to the receipts' own count: summarize again gives the same file.
    const written = readFileSync(summaryFile, 'utf8');
    const again = await runCli(['receipts', 'summarize', join(out, '..', 'in'), '--out', out]);
    expect(again.code).toBe(0);
    expect(readFileSync(summaryFile, 'utf8')).toBe(written);
  });
});

describe('drb receipts review-template', () => {
  it('never pre-fills the revision, the tab, memory pressure or the output: the skeleton fails until the reviewer fills them', async () => {
    const { dir, summaryFile, target } = await summarised(procedure());
    const run = await runCli(['receipts', 'review-template', '--summary', summaryFile, '--target', target]);
    const skeleton = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(skeleton).toMatchObject({
      public_revision: '',
      tab: { reloaded_or_evicted: null, details: null },
      memory_pressure: { observed: null, behaviour: '' },
      output_stayed_correct: null,
    });
    // The receipts' own commit is never offered as the revision they are checked against.
    expect(run.stdout).not.toContain('a'.repeat(40));
    const filled: Record<string, unknown> = {
      ...skeleton,
      reviewer: 'qa-1',
      reviewed_at: '2026-12-01T10:00:00Z',
      launch_to_result_ms: 1,
      output_stayed_correct: true,
    };
    filled.device = { hardware_model: 'x', ram_gb: 4, os_build: 'y', browser: 'z', browser_version: '1' };
    filled.conditions = { network: 'n', battery_percent: null, charging: null, thermal_state: 'unknown' };
    filled.memory_pressure = { observed: false, behaviour: 'none' };
    const issues = DeviceReview.safeParse(filled).error?.issues.map((i) => i.path.join('.'));
    expect(issues).toEqual(['public_revision', 'tab.reloaded_or_evicted']);
    writeFileSync(join(dir, 'a.json'), JSON.stringify(filled));
    const refused = await runCli([
      'receipts',
      'review',
      '--summary',
      summaryFile,
      '--target',
      target,
      '--answers',
      join(dir, 'a.json'),
    ]);
    expect(refused.code).toBe(2);
  });
});

describe('a clean field session', () => {
  it('reaches DEVICE_PASS from several bundles (one session exported in three parts), each sheet noted', async () => {
    const receipts = procedure();
    const dir = testTempDir('drb-bundles-');
    mkdirSync(join(dir, 'in'));
    const parts = [receipts.slice(0, 5), receipts.slice(5, 15), receipts.slice(15)];
    const sheet = {
      ...EMPTY_TESTER_SHEET,
      device_model: 'Pixel 8',
      ram_gb: 8,
      os_build: 'AP2A',
      browser: 'Chrome',
      browser_version: '156',
      network: 'Wi-Fi',
      public_revision: 'a'.repeat(40),
    };
    parts.forEach((part, i) => {
      const bundle = {
        schema: RECEIPT_BUNDLE_SCHEMA,
        created_at: '2026-12-01T09:00:00Z',
        app: part[0].app,
        protocol: null,
        sheet,
        receipts: part,
      };
      writeFileSync(join(dir, 'in', `bundle-${i}.json`), JSON.stringify(bundle));
    });
    const out = join(dir, 'out');
    const summarize = await runCli(['receipts', 'summarize', join(dir, 'in'), '--out', out]);
    expect(summarize.code, summarize.stderr).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    const [target] = summary.targets;
    expect(target.counts).toMatchObject({ clean_cold: 5, clean_warm: 20 });
    const template = JSON.parse(
      (await runCli(['receipts', 'review-template', '--summary', join(out, 'summary.json'), '--target', target.key]))
        .stdout,
    ) as Record<string, unknown>;
    expect(template.device).toEqual({
      hardware_model: 'Pixel 8',
      ram_gb: 8,
      os_build: 'AP2A',
      browser: 'Chrome',
      browser_version: '156',
    });
    Object.assign(template, {
      reviewer: 'qa-1',
      reviewed_at: '2026-12-01T10:00:00Z',
      public_revision: 'a'.repeat(40),
      launch_to_result_ms: 4000,
      tab: { reloaded_or_evicted: false, details: null },
      memory_pressure: { observed: false, behaviour: 'none' },
      output_stayed_correct: true,
    });
    writeFileSync(join(dir, 'answers.json'), JSON.stringify(template));
    const review = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      target.key,
      '--answers',
      join(dir, 'answers.json'),
    ]);
    expect(review.stdout.split('\n')[0]).toBe(`${target.key}: DEVICE_PASS`);
  });
});
