/**
 * Lifecycle during a run: freeze/resume events that arrive mid-run are recorded in the receipt (`frozen_during_run`
 * and the events), so noisy runs can be set apart.
 *
 * Honest limits: headless Chromium keeps every page visible and ignores CDP `Page.setWebLifecycleState` for a
 * visible page (tried: no event fires), so this test dispatches `freeze` / `resume` Events on `document` itself,
 * exactly where the browser delivers them. It proves the page's recording path end to end in a real run; it does not
 * prove when a real browser decides to freeze. Physical-device procedures cover that (hide the tab mid-run).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import { pageReceipts, receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv();
});
afterAll(async () => {
  await env?.close();
});

describe('lifecycle', () => {
  it('records freeze and resume events that arrive during a warm run', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(
      `${env.server.url}?${toSearchParams({ autorun: ['warm'], model: 'ort-heavy-xenc', threads: 1, warmRuns: 200 })}`,
    );
    await waitForPage(page, () => /Warm samples: [1-9]/.test(document.body.innerText), null, { timeout: 60_000 });
    await page.evaluate(() => {
      document.dispatchEvent(new Event('freeze'));
      document.dispatchEvent(new Event('resume'));
    });
    await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
      timeout: 120_000,
    });
    const [receipt] = await pageReceipts(page);
    expect(receiptProblems(receipt)).toEqual([]);
    expect(receipt.outcome.status).toBe('ok');
    expect(receipt.lifecycle).toMatchObject({
      visibility_at_start: 'visible',
      hidden_during_run: false,
      frozen_during_run: true,
    });
    expect(receipt.lifecycle.events.map((e) => e.type)).toEqual(['freeze', 'resume']);
    const [freeze] = receipt.lifecycle.events;
    expect(freeze.at_ms).toBeGreaterThan(receipt.status_transitions[0].at_ms);
    await page.close();
  });

  it('a run that never saw such events records a clean lifecycle', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(`${env.server.url}?${toSearchParams({ autorun: ['cold'] })}`);
    await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
      timeout: 60_000,
    });
    const [receipt] = await pageReceipts(page);
    expect(receipt.lifecycle).toEqual({
      visibility_at_start: 'visible',
      hidden_during_run: false,
      frozen_during_run: false,
      events: [],
    });
    await page.close();
  });
});
