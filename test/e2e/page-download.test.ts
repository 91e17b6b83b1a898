/**
 * The user path: click "Cold run" and "Warm run" in the page, then download each receipt through its real download
 * button (playwright's download event) and validate the saved file against the schema and the invariants.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv();
});
afterAll(async () => {
  await env?.close();
});

describe('download', () => {
  it('downloads valid receipts with readable names through the buttons', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(`${env.server.url}`);
    await page.waitForFunction(() => document.documentElement.dataset.drbState === 'idle');
    await page.getByTestId('warm-runs').fill('4');
    await page.getByTestId('threads').selectOption('2');
    await page.getByTestId('run-cold').click();
    await page.waitForFunction(() => window.drbReceipts.length === 1, null, { timeout: 60_000 });
    await page.getByTestId('run-warm').click();
    await page.waitForFunction(() => window.drbReceipts.length === 2, null, { timeout: 60_000 });
    expect(await page.evaluate(() => document.documentElement.dataset.drbState)).toBe('done');
    // Newest first in the list.
    const items = page.getByTestId('receipt');
    expect(await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')))).toEqual(['warm', 'cold']);
    for (const [index, kind] of [[0, 'warm'], [1, 'cold']] as const) {
      const [download] = await Promise.all([page.waitForEvent('download'), items.nth(index).getByTestId('download').click()]);
      // drb-<model>-<route>-<kind>-<compact UTC time>.json: readable, and unique per second.
      expect(download.suggestedFilename()).toMatch(new RegExp(`^drb-ort-tiny-xenc-wasm-2-${kind}-\\d{8}T\\d{6}Z\\.json$`));
      const saved = JSON.parse(await readFile((await download.path())!, 'utf8'));
      expect(receiptProblems(saved)).toEqual([]);
      expect(saved.run.kind).toBe(kind);
      expect(saved.route.threads_effective).toBe(2);
      if (kind === 'warm') expect(saved.timings.warm_samples_ms).toHaveLength(4);
      // The download gives exactly what window.drbReceipts holds.
      const same = await page.evaluate((id) => window.drbReceipts.find((r) => r.receipt_id === id), saved.receipt_id);
      expect(saved).toEqual(same);
    }
    await page.close();
  });
});
