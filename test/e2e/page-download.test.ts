/**
 * The user path: click "Cold run" and "Warm run" in the page, then download each receipt through its real download
 * button (playwright's download event) and validate the saved file against the schema and the invariants. A long
 * session keeps only its latest receipts in page memory and the list, and still downloads every one.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptBundle } from '../../src/core/field/receipt-bundle.ts';
import { pageQuery, receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

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
    await waitForPage(page, () => document.documentElement.dataset.drbState === 'idle');
    await page.getByTestId('warm-runs').fill('4');
    await page.getByTestId('threads').selectOption('2');
    await page.getByTestId('run-cold').click();
    await waitForPage(page, () => window.drbReceipts.length === 1, null, { timeout: 60_000 });
    await page.getByTestId('run-warm').click();
    await waitForPage(page, () => window.drbReceipts.length === 2, null, { timeout: 60_000 });
    expect(await page.evaluate(() => document.documentElement.dataset.drbState)).toBe('done');
    // Newest first in the list.
    const items = page.getByTestId('receipt');
    expect(await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')))).toEqual(['warm', 'cold']);
    for (const [index, kind] of [
      [0, 'warm'],
      [1, 'cold'],
    ] as const) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        items.nth(index).getByTestId('download').click(),
      ]);
      // drb-<model>-<route>-<kind>-<compact UTC time>.json: readable, and unique per second.
      expect(download.suggestedFilename()).toMatch(
        new RegExp(`^drb-ort-tiny-xenc-wasm-2-${kind}-\\d{8}T\\d{6}Z\\.json$`),
      );
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

  it('a long session keeps its latest 50 receipts in memory and lists 20, and downloads every receipt of the session', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(
      `${env.server.url}${pageQuery({ autorun: ['cold'], model: 'ort-tiny-xenc', ep: 'wasm', threads: 1, warmRuns: 1, mode: 'panels' })}`,
    );
    await waitForPage(
      page,
      () =>
        document.documentElement.dataset.drbState === 'done' && document.documentElement.dataset.drbSession === 'ready',
      null,
      { timeout: 120_000 },
    );
    // The profile's session may hold receipts of earlier tests: count from what it held before this page's cold run.
    const stored = await page.evaluate(() => window.drbSession!.receiptCount - 1);
    const cold = await page.evaluate(() => window.drbReceipts[0].receipt_id);
    const WARM = 55;
    for (let made = 2; made <= WARM + 1; made++) {
      await page.getByTestId('run-warm').click();
      await waitForPage(
        page,
        (n) => window.drbReceiptCount >= n && document.documentElement.dataset.drbState !== 'running',
        made,
        { timeout: 120_000 },
      );
    }
    const memory = await page.evaluate(() => ({
      made: window.drbReceiptCount,
      kept: window.drbReceipts.map((r) => r.receipt_id),
      statuses: [...new Set(window.drbReceipts.map((r) => r.outcome.status))],
      session: { count: window.drbSession!.receiptCount, kept: window.drbSession!.receipts.length },
    }));
    expect(memory.made).toBe(WARM + 1);
    expect(memory.kept).toHaveLength(50);
    expect(memory.kept).not.toContain(cold);
    expect(memory.statuses).toEqual(['ok']);
    expect(memory.session).toEqual({ count: stored + WARM + 1, kept: 50 });
    // The list: the newest 20, the earlier ones counted.
    const items = page.getByTestId('receipt');
    expect(await items.count()).toBe(20);
    expect(await items.first().getByTestId('download').textContent()).toContain('-warm-');
    expect(await page.getByTestId('earlier-receipts').textContent()).toBe(
      `${WARM + 1 - 20} earlier receipts of this page are not listed here: saved in this session on this device.`,
    );
    // Every receipt of the session, the ones no longer in memory included, through the real button and the contract.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-session').click()]);
    expect(download.suggestedFilename()).toMatch(/^drb-session-any-bundle-\d{8}T\d{6}Z\.json$/);
    const bundle = ReceiptBundle.parse(JSON.parse(await readFile((await download.path())!, 'utf8')));
    expect(bundle.receipts).toHaveLength(stored + WARM + 1);
    const ids = bundle.receipts.map((r) => r.receipt_id);
    expect(ids.slice(stored)).toEqual([cold, ...ids.slice(stored + 1)]);
    expect(ids.slice(-50)).toEqual(memory.kept);
    for (const receipt of bundle.receipts) expect(receiptProblems(receipt)).toEqual([]);
    const viaContract = await page.evaluate(() => window.drbExportBundle!());
    expect(viaContract.receipts.map((r) => r.receipt_id)).toEqual(ids);
    expect(await page.getByTestId('download-session-note').textContent()).toBe(
      `Saved ${stored + WARM + 1} receipt(s) as ${download.suggestedFilename()}.`,
    );
    await page.close();
  });
});
