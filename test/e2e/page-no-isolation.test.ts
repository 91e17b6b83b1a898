/**
 * A host that cannot send COOP/COEP: the page still runs, shows the banner saying threads are limited to 1, and the
 * receipts record cross_origin_isolated false and threads_effective 1 next to the 2 threads requested.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAndWait, pageReceipts, receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv({ crossOriginIsolation: false });
});
afterAll(async () => {
  await env?.close();
});

describe('served without cross-origin isolation', () => {
  it('runs single-threaded, says so on the page, and records it honestly', async () => {
    const { page, state } = await openAndWait(env, { autorun: ['cold', 'warm'], threads: 2, warmRuns: 3 });
    const receipts = await pageReceipts(page);
    expect(state).toBe('done');
    expect(await page.getByTestId('coi-banner').textContent()).toContain('WASM threads are limited to 1');
    for (const receipt of receipts) {
      expect(receiptProblems(receipt)).toEqual([]);
      expect(receipt.capabilities.cross_origin_isolated).toBe(false);
      expect(receipt.capabilities.shared_array_buffer).toBe(false);
      expect(receipt.route).toMatchObject({ threads_requested: 2, threads_effective: 1, completed_ep: 'wasm' });
    }
    await page.close();
  });
});
