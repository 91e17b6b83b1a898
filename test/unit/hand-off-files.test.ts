// Receipts that survive the cold step: the page takes back the files it handed off (src/core/validation/hand-off-files.ts),
// each read exactly as `drb receipts validate` reads it, and the session sheet typed once comes back with them and
// merges across files (src/core/field/tester-sheet.ts): fields that agree are taken, only those that differ are named.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_TESTER_SHEET,
  RECEIPT_BUNDLE_SCHEMA,
  receiptFileText,
  type ReceiptBundle,
  type TesterSheet,
} from '../../src/core/field/receipt-bundle.ts';
import { mergeTesterSheets, restoreTesterSheet } from '../../src/core/field/tester-sheet.ts';
import { takeBackFiles } from '../../src/core/validation/hand-off-files.ts';
import { testerAttestation } from '../../src/core/receipt/attestation.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { buildReceipt } from './receipts-builder.ts';
import { runCli, tempDirWith } from './cli-harness.ts';
import { HOSTILE_CASES, hostileBytes } from '../fixtures/hostile/hostile-fixtures.ts';

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

function bundleOf(
  receipts: DeviceReceipt[],
  sheet: TesterSheet = SHEET,
  extra: Partial<ReceiptBundle> = {},
): ReceiptBundle {
  return {
    schema: RECEIPT_BUNDLE_SCHEMA,
    created_at: '2026-12-01T08:00:00Z',
    app: receipts[0].app,
    protocol: null,
    sheet,
    receipts: receipts as unknown as ReceiptBundle['receipts'],
    ...extra,
  };
}

const encode = (value: unknown) => new TextEncoder().encode(receiptFileText(value));

describe('mergeTesterSheets', () => {
  it('takes every field the sheets agree on, an empty field never disagrees, and names only the fields that differ', () => {
    const merge = mergeTesterSheets([
      { ...SHEET, notes: 'cold 1' },
      { ...SHEET, battery_percent: 61, network: '', notes: 'cold 2: the phone got warm' },
      { ...EMPTY_TESTER_SHEET, device_model: 'iPhone 15 (A3090)', notes: 'cold 1' },
    ]);
    expect(merge.differing).toEqual(['battery_percent']);
    expect(merge.missing).toEqual([]);
    expect(merge.sheet).toEqual({ ...SHEET, battery_percent: null, notes: 'cold 1 | cold 2: the phone got warm' });
    expect(merge.sheets).toBe(3);
    expect(mergeTesterSheets([]).missing).toContain('device_model');
  });

  it("restores into the page: an empty field takes the files' value, a typed one is kept and a difference named", () => {
    const typedNow = { ...EMPTY_TESTER_SHEET, network: '5G' };
    const { sheet, differing } = restoreTesterSheet(typedNow, [SHEET, SHEET]);
    expect(sheet).toEqual({ ...SHEET, network: '5G' });
    expect(differing).toEqual(['network']);
  });
});

describe('takeBackFiles', () => {
  it('takes back the receipts, sheet and session statements of handed-off bundles and loose receipts, each once', () => {
    const first = [buildReceipt({ kind: 'cold' }), buildReceipt({ kind: 'warm' })];
    const second = [buildReceipt({ kind: 'cold' })];
    const loose = buildReceipt({ kind: 'warm' });
    const said = testerAttestation('no-memory-pressure-seen', '2026-12-01T08:00:00Z');
    const out = takeBackFiles([
      { name: 'drb-bundle-1.json', bytes: encode(bundleOf(first)) },
      {
        name: 'drb-bundle-2.json',
        bytes: encode(
          bundleOf([...first.slice(0, 1), ...second], { ...SHEET, notes: 'second' }, { attestations: [said] }),
        ),
      },
      { name: 'warm.json', bytes: encode(loose) },
    ]);
    expect(out.problems).toEqual([]);
    expect(out.receipts).toEqual([...first, ...second, loose]);
    expect(out.notes).toEqual([
      `drb-bundle-2.json#receipts[0]: receipt_id ${first[0].receipt_id} is a copy of drb-bundle-1.json#receipts[0] (the same content); counted once`,
    ]);
    expect(out.sheets).toEqual([SHEET, { ...SHEET, notes: 'second' }]);
    expect(out.attestations).toEqual([said]);
  });

  it('counts a receipt the session already holds once, and refuses an edited copy of it', () => {
    const held = buildReceipt({ kind: 'cold' });
    const edited = { ...held, timings: { ...held.timings, total_ms: held.timings.total_ms + 1 } };
    const out = takeBackFiles(
      [
        { name: 'a.json', bytes: encode(held) },
        { name: 'b.json', bytes: encode(edited) },
      ],
      new Map([[held.receipt_id, receiptFileText(held)]]),
    );
    expect(out.receipts).toEqual([]);
    expect(out.notes).toEqual([
      `a.json: receipt_id ${held.receipt_id} is a copy of this device (the same content); counted once`,
    ]);
    expect(out.problems).toEqual([
      `b.json: receipt_id: receipt_id ${held.receipt_id} is already used by this device with different content: an edited or forged copy; not counted`,
    ]);
  });

  it('refuses what is not a drb file with one line, and keeps a picked name printable', () => {
    const out = takeBackFiles([
      { name: 'notes.txt', bytes: new TextEncoder().encode('hello\u001b[2J') },
      { name: 'bad\u001b[2J\u202ename.json', bytes: new Uint8Array([0xff, 0xfe, 0x00]) },
      { name: 'summary.json', bytes: encode({ schema: 'drb.public-pass.v1' }) },
      { name: 'big.json', bytes: new Uint8Array(64 * 2 ** 20 + 1) },
    ]);
    expect(out.receipts).toEqual([]);
    expect(out.problems[0]).toMatch(/^notes\.txt: \(document\): not valid JSON: syntax error/);
    expect(out.problems[1]).toBe('bad?[2J?name.json: (document): not valid UTF-8');
    expect(out.problems[2]).toMatch(/^summary\.json: schema: not a receipt the page makes/);
    expect(out.problems[3]).toBe(
      'big.json: (document): is 67108865 bytes, larger than any drb file (at most 64 MiB); not read',
    );
    for (const line of out.problems) expect(line).not.toContain('hello');
  });

  it('reads every hostile receipts case as drb receipts validate does: refused ones named with their field, nothing taken from them', async () => {
    // Links and named pipes are not files a person picks.
    const cases = HOSTILE_CASES.filter((c) => c.reader === 'receipts' && c.symlink_to === undefined && c.fifo !== true);
    const files = cases.map((c) => ({ name: `${c.name}.json`, bytes: hostileBytes(c) }));
    const out = takeBackFiles(files);
    const dir = tempDirWith(Object.fromEntries(files.map((f) => [f.name, f.bytes])));
    const validate = await runCli(['receipts', 'validate', ...files.map((f) => join(dir, f.name))]);
    for (const c of cases) {
      const lines = out.problems.filter(
        (line) => line.startsWith(`${c.name}.json: `) || line.startsWith(`${c.name}.json#receipts[`),
      );
      if (c.expect === 'refused' || c.expect === 'copy-conflict' || c.expect === 'not-a-receipt') {
        expect(lines.length, c.name).toBeGreaterThan(0);
        // Every refused case is refused by the CLI too, and vice versa.
        expect(validate.stdout, c.name).toContain(`${join(dir, c.name)}.json`);
      } else expect(lines, c.name).toEqual([]);
      if (c.field !== undefined) {
        // A bundle's own fields (its sheet, its session attestations, its list of receipts) are the bundle file's lines.
        const bundleField = /^(sheet\.|attestations|receipts\[)/.test(c.field);
        const shownAs = c.bundle !== undefined && !bundleField ? `${c.name}.json#receipts[0]` : `${c.name}.json`;
        // The CLI names every problem of the file, the field of the case among them; the page names the first, which
        // is one of the CLI's lines (a case with several problems shows another of them first), or, for another drb
        // artifact (a summary, a score report), that it is not a receipt the page makes.
        const cliLines = validate.stdout
          .split('\n')
          .filter(
            (line) =>
              line.startsWith(`${join(dir, c.name)}.json: `) || line.startsWith(`${join(dir, c.name)}.json#receipts[`),
          );
        expect(
          cliLines.some((line) => line.startsWith(`${join(dir, shownAs)}: ${c.field}: `)),
          `${c.name}: ${cliLines.join(' / ')}`,
        ).toBe(true);
        const asCli = new Set(cliLines.map((line) => line.slice(dir.length + 1)));
        const artifact = `${c.name}.json: schema: not a receipt the page makes (another drb artifact)`;
        for (const line of lines) expect(asCli.has(line) || line === artifact, `${c.name}: ${line}`).toBe(true);
        if (cliLines.length === 1 && !lines.includes(artifact))
          expect(
            lines.some((line) => line.startsWith(`${shownAs}: ${c.field}: `)),
            `${c.name}: ${lines.join(' / ')}`,
          ).toBe(true);
      }
    }
    // Copies of one receipt count once; the receipts taken are the valid ones only.
    const taken = new Set(out.receipts.map((r) => (r as DeviceReceipt).receipt_id));
    expect(taken.size).toBe(out.receipts.length);
    for (const line of out.problems) expect(line).not.toMatch(/\u001b|\n|<img/);
  });
});
