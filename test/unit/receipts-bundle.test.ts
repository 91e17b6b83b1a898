// Receipt bundles (drb.receipt-bundle.v1) through the receipt tools' one reader: validate checks every bundled
// receipt as if it were its own file, summarize counts a receipt present loose and in a bundle once (the copy noted),
// review-template takes the device fields from the session sheet, and review promotes a bundle with enough truly cold
// and warm receipts to DEVICE_PASS, but not one whose cold receipts were served from a cache.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import {
  EMPTY_TESTER_SHEET,
  RECEIPT_BUNDLE_SCHEMA,
  receiptFileText,
  type ReceiptBundle,
  type TesterSheet,
} from '../../src/core/field/receipt-bundle.ts';
import type { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { displayPath } from '../../src/cli/receipt-files.ts';
import { buildReceipt } from './receipts-builder.ts';
import { runCli, tempDirWith } from './cli-harness.ts';
import { pageReceipts } from './receipts-fixtures.ts';

const SHEET: TesterSheet = {
  ...EMPTY_TESTER_SHEET,
  device_model: 'iPhone 15 (A3090)',
  ram_gb: 6,
  os_build: 'iOS 26.1 (23B85)',
  browser: 'Safari',
  browser_version: '26.1',
  network: 'Wi-Fi 5 GHz',
  battery_percent: 80,
  charging: false,
  thermal_state: 'nominal',
  public_revision: 'a'.repeat(40),
};

function bundle(receipts: unknown[], sheet: TesterSheet = SHEET): ReceiptBundle {
  const app = (receipts[0] as DeviceReceipt | undefined)?.app ?? pageReceipts()[0].app;
  return {
    schema: RECEIPT_BUNDLE_SCHEMA,
    created_at: '2026-12-01T08:00:00Z',
    app,
    protocol: null,
    sheet: { ...sheet },
    receipts: receipts as ReceiptBundle['receipts'],
  };
}

function procedure(coldCache: 'network' | 'http-cache'): DeviceReceipt[] {
  return [
    ...Array.from({ length: 5 }, () =>
      buildReceipt({ kind: 'cold', coldMs: { fetch: 100, session: 200, first: 5 }, runtimeCache: coldCache }),
    ),
    ...Array.from({ length: 20 }, () => buildReceipt({ kind: 'warm', warmSamples: [2, 3, 4] })),
  ];
}

describe('drb receipts validate on bundles', () => {
  it('checks each bundled receipt as its own file, and the bundle by its schema', async () => {
    const receipts = pageReceipts().slice(0, 3);
    const broken = structuredClone(receipts[1]) as unknown as Record<string, unknown>;
    (broken.run as Record<string, unknown>).cold_from_cache = !(broken.run as { cold_from_cache: boolean | null })
      .cold_from_cache;
    const dir = tempDirWith({ 'ok.json': bundle(receipts), 'bad.json': bundle([receipts[0], broken]) });
    const good = await runCli(['receipts', 'validate', join(dir, 'ok.json')]);
    expect(good.stdout).toBe('ok: 3 receipt(s) valid, and 1 other drb artifact(s) valid by their own schema\n');
    const bad = await runCli(['receipts', 'validate', join(dir, 'bad.json')]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/bad\.json#receipts\[1\]: run\.cold_from_cache: is (true|false|null) but the/);
  });

  it.each([
    [
      'a sheet field with a terminal escape',
      (b: Record<string, unknown>) => ((b.sheet as Record<string, unknown>).device_model = 'x\u001b[2Jy'),
      'sheet.device_model: holds a control or bidirectional-override character',
    ],
    [
      'a 6,000-character note',
      (b: Record<string, unknown>) => ((b.sheet as Record<string, unknown>).notes = 'n'.repeat(6000)),
      'sheet.notes: ',
    ],
    ['receipts that are not a list', (b: Record<string, unknown>) => (b.receipts = { a: 1 }), 'receipts: '],
    [
      'an unknown field',
      (b: Record<string, unknown>) => (b.extra = '<img onerror=x>'),
      'extra: is not a field of drb.receipt-bundle.v1',
    ],
  ])(
    'refuses %s with one line naming the file and the field, and reads none of its receipts',
    async (_name, edit, line) => {
      const b = bundle(pageReceipts().slice(0, 2)) as unknown as Record<string, unknown>;
      edit(b);
      const dir = tempDirWith({ 'b.json': b });
      const run = await runCli(['receipts', 'validate', join(dir, 'b.json')]);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(`${join(dir, 'b.json')}: ${line}`);
      expect(run.stdout).not.toContain('#receipts[');
      expect(run.stdout).not.toContain('\u001b');
    },
  );

  it('counts a receipt present loose and in a bundle once; an edited loose copy is an error', async () => {
    const [r] = pageReceipts();
    const edited = { ...structuredClone(r), created_at: '2026-12-01T09:00:00Z' };
    const dir = tempDirWith({ 'bundle.json': bundle([r]), 'loose.json': receiptFileText(r) });
    const same = await runCli(['receipts', 'validate', dir]);
    expect(same.code).toBe(0);
    expect(same.stdout).toBe(
      'ok: 1 receipt(s) valid (1 copy of a receipt with the same content, counted once), and 1 other drb artifact(s) valid by their own schema\n',
    );
    expect(same.stderr).toContain(`loose.json: receipt_id: receipt_id ${r.receipt_id} is a copy of`);
    writeFileSync(join(dir, 'loose.json'), receiptFileText(edited));
    const forged = await runCli(['receipts', 'validate', dir]);
    expect(forged.code).toBe(1);
    expect(forged.stdout).toContain('an edited or forged copy; not counted');
  });
});

describe('summarize, review-template and review on a bundle', () => {
  async function summarizeBundle(receipts: DeviceReceipt[], sheet: TesterSheet = SHEET) {
    const dir = tempDirWith({});
    mkdirSync(join(dir, 'in'));
    writeFileSync(join(dir, 'in', 'session.json'), JSON.stringify(bundle(receipts, sheet)));
    const out = join(dir, 'summary');
    const run = await runCli(['receipts', 'summarize', join(dir, 'in'), '--out', out]);
    expect(run.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as ReceiptsSummary;
    return { dir, out, summary, target: summary.targets[0] };
  }

  it('fills the review template from the session sheet and reaches DEVICE_PASS with 5 truly cold and 20 warm receipts', async () => {
    const { dir, out, target } = await summarizeBundle(procedure('network'));
    expect(target.counts).toMatchObject({ clean_cold: 5, clean_warm: 20, cold_set_aside: 0 });
    expect(target.session_sheets).toEqual([{ bundle: displayPath(join(dir, 'in', 'session.json')), sheet: SHEET }]);
    const template = await runCli([
      'receipts',
      'review-template',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      target.key,
    ]);
    const answers = JSON.parse(template.stdout) as Record<string, unknown>;
    expect(answers.device).toEqual({
      hardware_model: 'iPhone 15 (A3090)',
      ram_gb: 6,
      os_build: 'iOS 26.1 (23B85)',
      browser: 'Safari',
      browser_version: '26.1',
    });
    expect(answers.conditions).toEqual({
      network: 'Wi-Fi 5 GHz',
      battery_percent: 80,
      charging: false,
      thermal_state: 'nominal',
    });
    // The revision is what the reviewer confirms: never pre-filled (the tester's note of it is quoted in the notes).
    expect(answers.public_revision).toBe('');
    expect(answers.notes).toContain(`the tester's sheet says the page revision was ${'a'.repeat(40)}`);
    expect(answers.tab).toEqual({ reloaded_or_evicted: null, details: null });
    // What only the reviewer knows, then the review.
    Object.assign(answers, {
      reviewer: 'qa-1',
      reviewed_at: '2026-12-01T10:00:00Z',
      public_revision: 'a'.repeat(40),
      launch_to_result_ms: 4000,
      tab: { reloaded_or_evicted: false, details: null },
      memory_pressure: { observed: false, behaviour: 'none observed' },
      output_stayed_correct: true,
    });
    const file = join(dir, 'answers.json');
    writeFileSync(file, JSON.stringify(answers));
    const review = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      target.key,
      '--answers',
      file,
    ]);
    expect(review.stdout.split('\n')[0]).toBe(`${target.key}: DEVICE_PASS`);
  });

  it('does not reach DEVICE_PASS when the cold receipts were served from a cache, and says how many were set aside', async () => {
    const { dir, out, target } = await summarizeBundle(procedure('http-cache'));
    expect(target.counts).toMatchObject({ clean_cold: 0, cold_set_aside: 5, clean_warm: 20 });
    const template = JSON.parse(
      (await runCli(['receipts', 'review-template', '--summary', join(out, 'summary.json'), '--target', target.key]))
        .stdout,
    ) as Record<string, unknown>;
    Object.assign(template, {
      reviewer: 'qa-1',
      reviewed_at: '2026-12-01T10:00:00Z',
      public_revision: 'a'.repeat(40),
      launch_to_result_ms: 4000,
      tab: { reloaded_or_evicted: false, details: null },
      memory_pressure: { observed: false, behaviour: 'none' },
      output_stayed_correct: true,
    });
    const file = join(dir, 'answers.json');
    writeFileSync(file, JSON.stringify(template));
    const review = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      target.key,
      '--answers',
      file,
    ]);
    expect(review.stdout).toContain(`${target.key}: DEVICE_RECEIPT`);
    expect(review.stdout).toContain(
      'not higher: 0 full protocol cold run(s), the protocol needs at least 5; measured: 0 network-cold, 0 of them from a fresh start; attested: 5 browser restart and site data clear (cold run(s) set aside: 5 served from a cache)',
    );
  });
});
