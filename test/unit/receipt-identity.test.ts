/**
 * Identity by content and canonical form (src/core/evidence/receipt-ids.ts) over the `receipts-identity` hostile
 * cases: a receipt re-saved in another formatting (compact, CRLF, keys reordered, a BOM) is the same receipt, counted
 * once and never called forged; its id in capitals is the same id (never counted twice) and an edit; two receipts of
 * one run never count twice; a true edit under the same id is still called one. validate, summarize and report agree.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { ReceiptIdLedger } from '../../src/core/evidence/receipt-ids.ts';
import { ReceiptsSummarizer } from '../../src/core/evidence/receipts-summarizer.ts';
import { writeReport } from '../../src/cli/receipts-report.ts';
import { HOSTILE_CASES, writeHostileCases } from '../fixtures/hostile/hostile-fixtures.ts';
import { runCli } from './cli-harness.ts';
import { pageReceipts } from './receipts-fixtures.ts';
import { testTempDir } from '../temp-dir.ts';

const identityCases = HOSTILE_CASES.filter((c) => c.reader === 'receipts-identity');

function identityFolder(): { dir: string; path: (name: string) => string } {
  const dir = testTempDir('drb-identity-');
  const written = writeHostileCases(dir, (c) => c.reader === 'receipts-identity');
  return { dir, path: (name) => written[identityCases.findIndex((c) => c.name === name)] };
}

describe('a receipt counts once, by content and canonical form', () => {
  it('validate: the same content in any formatting is a noted copy; another letter case, another receipt of the run, and an edit are errors', async () => {
    const { dir, path } = identityFolder();
    const run = await runCli(['receipts', 'validate', dir]);
    expect(run.code).toBe(1);
    const id = (JSON.parse(readFileSync(path('id-original'), 'utf8')) as { receipt_id: string }).receipt_id;
    // Files are read in sorted order: the BOM copy comes first and is the one counted.
    for (const name of ['id-compact', 'id-crlf', 'id-original', 'id-reordered']) {
      expect(run.stderr).toContain(
        `note: ${path(name)}: receipt_id: receipt_id ${id} is a copy of ${path('id-bom')} (the same content); counted once\n`,
      );
    }
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    const byCase = (name: string) => lines.filter((line) => line.startsWith(`${path(name)}: `));
    expect(byCase('id-upper-case')).toEqual([
      `${path('id-upper-case')}: receipt_id: receipt_id ${id.toUpperCase()} (the same id as ${id}, in other letter case) is already used by ${path('id-bom')} with different content: an edited or forged copy; not counted`,
    ]);
    for (const name of ['id-same-run', 'id-same-run-2']) {
      expect(byCase(name)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^.*: run\\.id: receipt_id hostile-${name} is another receipt of run .*, already counted from .*id-bom\\.json \\(receipt_id ${id}\\): one run makes one receipt; not counted$`,
          ),
        ),
      ]);
    }
    expect(byCase('id-edited')).toEqual([
      `${path('id-edited')}: receipt_id: receipt_id ${id} is already used by ${path('id-bom')} with different content: an edited or forged copy; not counted`,
    ]);
    for (const name of ['id-original', 'id-compact', 'id-crlf', 'id-reordered', 'id-bom'])
      expect(byCase(name), name).toEqual([]);
  });

  it('summarize counts the cold run once, lists every copy with how it matched, and blocks the target', async () => {
    const { dir, path } = identityFolder();
    const out = join(dir, 'summary');
    const run = await runCli(['receipts', 'summarize', dir, '--out', out]);
    expect(run.code).toBe(1);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    expect(summary.inputs).toMatchObject({ receipts_valid: 1, duplicates_identical: 4, duplicates_conflicting: 4 });
    const [duplicate] = summary.duplicates;
    expect(duplicate.counted_file).toBe(path('id-bom'));
    expect(duplicate.copies).toEqual([
      { file: path('id-compact'), identical: true, matched_by: 'receipt_id' },
      { file: path('id-crlf'), identical: true, matched_by: 'receipt_id' },
      { file: path('id-edited'), identical: false, matched_by: 'receipt_id' },
      { file: path('id-original'), identical: true, matched_by: 'receipt_id' },
      { file: path('id-reordered'), identical: true, matched_by: 'receipt_id' },
      { file: path('id-same-run-2'), identical: false, matched_by: 'run_id' },
      { file: path('id-same-run'), identical: false, matched_by: 'run_id' },
      { file: path('id-upper-case'), identical: false, matched_by: 'receipt_id' },
    ]);
    const [target] = summary.targets;
    expect(target.counts).toMatchObject({ receipts: 1, cold: 1 });
    expect(target.duplicate_receipt_ids).toEqual([duplicate.receipt_id]);
    expect(target.evidence.state).toBe('DEVICE_RECEIPT');
    expect(run.stderr).toContain(
      `error: ${path('id-same-run')}: run.id: another receipt of the run of receipt_id ${duplicate.receipt_id}`,
    );
    const md = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(md).toContain('another receipt of the same run');
    expect(md).toContain('the same content');
  });

  it('the report counts it once too, and names every copy as a duplicate', async () => {
    const { dir } = identityFolder();
    const { data } = await writeReport([dir], join(dir, 'report'));
    expect(data.summary.inputs.receipts_valid).toBe(1);
    expect(data.inputs.filter((i) => i.kind === 'duplicate')).toHaveLength(8);
  });

  it('in memory too: receipts compared by canonical content, ids without letter case, runs once', () => {
    const [r] = pageReceipts();
    const s = new ReceiptsSummarizer();
    expect(s.addReceipt(r)).toBe(true);
    // The same content with its keys in another order is the same receipt (a copy); in capitals, or another id on the
    // same run, it is not counted again.
    const reordered = Object.fromEntries(Object.entries(structuredClone(r)).reverse()) as typeof r;
    expect(s.addReceipt(reordered)).toBe(false);
    expect(s.addReceipt({ ...structuredClone(r), receipt_id: r.receipt_id.toUpperCase() })).toBe(false);
    expect(s.addReceipt({ ...structuredClone(r), receipt_id: `${r.receipt_id}-2` })).toBe(false);
    const ledger = new ReceiptIdLedger();
    expect(ledger.claim('Abc-12345678', { file: 'a', fingerprint: 'x' }, 'run-1')).toEqual({ kind: 'first' });
    expect(ledger.claim('abc-12345678', { file: 'b', fingerprint: 'x' }, 'run-1')).toMatchObject({
      kind: 'identical',
      firstId: 'Abc-12345678',
      matchedBy: 'receipt_id',
    });
    expect(ledger.claim('other-12345678', { file: 'c', fingerprint: 'y' }, 'RUN-1')).toMatchObject({
      kind: 'conflict',
      firstId: 'Abc-12345678',
      matchedBy: 'run_id',
    });
    expect(ledger.isDuplicated('ABC-12345678')).toBe(true);
  });
});
