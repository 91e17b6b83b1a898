/**
 * Receipts made by the page, end to end through the receipts CLI: the page runs cold + warm on wasm (1 and 2
 * threads) and a failing WebGPU request in headless Chromium; the receipts are written to files exactly as the
 * page produced them, then `drb receipts validate` and `drb receipts summarize` run on them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AutomationSettings } from '../../src/core/automation/automation.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { runCli } from '../unit/cli-harness.ts';
import { openAndWait, pageReceipts, startPageEnv, type PageEnv } from './page-harness.ts';
import { testTempDir } from '../temp-dir.ts';

describe('page receipts through drb receipts validate and summarize', () => {
  let env: PageEnv;

  beforeAll(async () => {
    env = await startPageEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('validates and summarises what the page produced', async () => {
    const dir = testTempDir('drb-e2e-receipts-');
    const runs: Array<[Partial<AutomationSettings>, string]> = [
      [
        { autorun: ['cold', 'warm'], engine: 'ort', ep: 'wasm', threads: 1, model: 'ort-tiny-xenc', warmRuns: 5 },
        'done',
      ],
      [
        { autorun: ['cold', 'warm'], engine: 'ort', ep: 'wasm', threads: 2, model: 'ort-tiny-xenc', warmRuns: 5 },
        'done',
      ],
      [{ autorun: ['cold'], engine: 'ort', ep: 'webgpu', allowFallback: false, model: 'ort-tiny-xenc' }, 'failed'],
    ];
    let count = 0;
    const receiptsWritten: DeviceReceipt[] = [];
    for (const [settings, expected] of runs) {
      const { page, state } = await openAndWait(env, settings);
      expect(state).toBe(expected);
      for (const receipt of await pageReceipts(page)) {
        receiptsWritten.push(receipt);
        writeFileSync(join(dir, `receipt-${++count}.json`), JSON.stringify(receipt, null, 2));
      }
      await page.close();
    }
    expect(count).toBe(5);

    const validate = await runCli(['receipts', 'validate', dir]);
    expect(validate).toMatchObject({ code: 0, stdout: 'ok: 5 receipt(s) valid\n' });

    const out = join(dir, 'summary');
    const summarize = await runCli(['receipts', 'summarize', dir, '--out', out]);
    expect(summarize.code).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    expect(summary.inputs).toEqual({
      files: 5,
      receipts_valid: 5,
      generation_receipts_valid: 0,
      suite_receipts_valid: 0,
      comparison_receipts_valid: 0,
      receipts_invalid: 0,
      not_receipts: 0,
      interruptions: 0,
      duplicates_identical: 0,
      duplicates_conflicting: 0,
    });
    const byThreads = (n: number) =>
      summary.targets.find((t) => t.identity.route.completed_ep === 'wasm' && t.identity.route.threads_effective === n);
    for (const n of [1, 2]) {
      const t = byThreads(n);
      expect(t, `wasm x${n}`).toBeDefined();
      expect(t!.counts).toMatchObject({ cold: 1, warm: 1, ok_cold: 1, ok_warm: 1, warm_samples: 5, failed: 0 });
      expect(t!.evidence.state).toBe('DEVICE_RECEIPT');
    }
    // Both cold runs fetched everything from the network, the second too although it ran in the same profile (a cold
    // run fetches its runtime under URLs unique to the run); each started fresh (a new tab, navigated to, no run
    // before), but nobody attested a browser restart or a site data clear: measured, not a protocol cold, not counted.
    for (const n of [1, 2]) {
      const cold = receiptsWritten.find((r) => r.run.kind === 'cold' && r.route.threads_effective === n)!;
      expect(cold.run.cold_from_cache).toBe(false);
      expect(cold.runtime.fetch_method).toBe('per-run-url');
      expect(cold.model.fetch_method).toBe('no-store');
      expect(cold.run.cold_start).toMatchObject({
        navigation_type: 'navigate',
        restored_from_bfcache: false,
        first_navigation_of_tab: true,
        runs_before_in_page: 0,
      });
      expect(cold.run.attestations).toEqual([]);
      const t = byThreads(n)!;
      expect(t.counts).toMatchObject({
        clean_cold: 1,
        measured_network_cold: 1,
        measured_fresh_start: 1,
        attested_cold: 0,
        full_cold: 0,
        cold_set_aside: 0,
      });
      expect(t.cold_set_aside).toEqual({
        served_from_cache: [],
        cache_state_unknown: [],
        not_fresh_start: [],
        not_attested: [cold.receipt_id],
      });
      // The cold statistics are the full protocol colds' only.
      expect(t.cold.total_ms).toBeNull();
    }
    const failed = summary.targets.find((t) => t.identity.route.requested_ep === 'webgpu')!;
    expect(failed.counts.failed).toBe(1);
    expect(failed.failures.by_reason[0].reason).toMatch(/WebGPU/);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('| ort-tiny-xenc | ort | webgpu->none |');
  });
});
