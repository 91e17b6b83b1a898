/**
 * Runs that survive a killed tab: a heavy warm series is interrupted in the middle (Chromium: the renderer process
 * is killed, as iOS does under memory pressure; both lanes: the page is reloaded or navigated away), and the next
 * page load shows the banner and the next receipt records `run.previous_run_interrupted` with the right stage,
 * exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import type { BrowserLane, LaneName, LanePage } from '../../src/node/browser-lane.ts';
import type { StaticServer } from '../../src/node/static-server.ts';
import {
  LANES,
  openTestLane,
  pageReceipts,
  readStoredJournal,
  serveBuild,
  validationProblems,
  waitForEnd,
} from './lane-checks.ts';
import { launchTestChromium } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

const HEAVY = 'ort-heavy-xenc';
/** Enough warm runs of the heavy fixture that the series is still going when the test interrupts it. */
const TINY_COLD = toSearchParams({ autorun: ['cold'], model: 'ort-tiny-xenc', ep: 'wasm', threads: 1 });
const HEAVY_RUN = toSearchParams({ autorun: ['cold', 'warm'], model: HEAVY, ep: 'wasm', threads: 1, warmRuns: 1000 });

/** Starts the heavy run and waits until the journal says the warm series is under way; returns that entry. */
async function startHeavyRun(page: LanePage, server: StaticServer) {
  await page.goto(`${server.url}?${HEAVY_RUN}`);
  const entry = await page.waitFor<{ run_id: string; stage: string; stage_started_at: string }>(
    `const j = JSON.parse(localStorage.getItem('drb.run-journal') ?? 'null'); return j?.active?.find((e) => e.stage === 'warm_inference') ?? null;`,
    { timeoutMs: 90_000, pollMs: 100, description: 'the journal to reach warm_inference' },
  );
  // Mid-run: the cold receipt exists, the warm one does not.
  expect((await pageReceipts(page)).map((r) => r.run.kind)).toEqual(['cold']);
  return entry;
}

async function bannerStage(page: LanePage): Promise<{ stage: string; text: string }> {
  return page.waitFor(
    `const b = document.querySelector('[data-testid="interrupted-banner"]'); return b ? { stage: b.dataset.drbInterruptedStage, text: b.textContent } : null;`,
    { timeoutMs: 30_000, description: 'the interrupted-run banner' },
  );
}

describe.each(LANES)('%s: interrupted runs', (laneName: LaneName) => {
  let server: StaticServer;
  let lane: BrowserLane;
  beforeAll(async () => {
    server = await serveBuild();
    lane = await openTestLane(laneName);
  });
  afterAll(async () => {
    await lane?.close();
    await server?.close();
  });

  it('a reload in the middle of the warm series: banner, and the next receipt (only) records the stage', async () => {
    const page = await lane.newPage();
    try {
      const entry = await startHeavyRun(page, server);
      // Reload into a short run (the same page, new parameters), as a user reopening the page would.
      await page.goto(
        `${server.url}?${toSearchParams({ autorun: ['cold', 'warm'], model: 'ort-tiny-xenc', ep: 'wasm', threads: 1, warmRuns: 3 })}`,
      );
      const banner = await bannerStage(page);
      expect(banner.stage).toBe('warm_inference');
      expect(banner.text).toContain(
        `The previous warm run (model ${HEAVY}, wasm) was interrupted at stage "warm_inference"`,
      );
      expect(await waitForEnd(page)).toBe('done');
      const [cold, warm] = await pageReceipts(page);
      expect(validationProblems(cold)).toEqual([]);
      expect(validationProblems(warm)).toEqual([]);
      expect(cold.run.previous_run_interrupted).toEqual({
        run_id: entry.run_id,
        run_mode: 'single',
        run_kind: 'warm',
        stage: 'warm_inference',
        stage_started_at: entry.stage_started_at,
        model_id: HEAVY,
        requested_ep: 'wasm',
      });
      expect(warm.run.previous_run_interrupted).toBeNull();
      // Both runs ended cleanly and the interruption was recorded: nothing is left in the journal.
      expect(await readStoredJournal(page)).toBeNull();
    } finally {
      await page.close();
    }
  });

  it("page.reload() of the same autorun URL: the rerun's first receipt records the interruption", async () => {
    const page = await lane.newPage();
    try {
      const entry = await startHeavyRun(page, server);
      await page.reload();
      expect((await bannerStage(page)).stage).toBe('warm_inference');
      // The reloaded page starts the same heavy run again; its cold receipt is enough.
      const [cold] = await page.waitFor<
        Array<{ run: { kind: string; previous_run_interrupted: { run_id: string } | null } }>
      >('return window.drbReceipts.length > 0 ? window.drbReceipts : null;', {
        timeoutMs: 90_000,
        description: "the rerun's cold receipt",
      });
      expect(validationProblems(cold)).toEqual([]);
      expect(cold.run.kind).toBe('cold');
      expect(cold.run.previous_run_interrupted?.run_id).toBe(entry.run_id);
    } finally {
      await page.close();
    }
  });

  it('a page load after runs that ended cleanly shows no banner and records nothing', async () => {
    const page = await lane.newPage();
    try {
      await page.goto(`${server.url}?${TINY_COLD}`);
      expect(await waitForEnd(page)).toBe('done');
      await page.goto(`${server.url}?${TINY_COLD}`);
      expect(await waitForEnd(page)).toBe('done');
      const [cold] = await pageReceipts(page);
      expect(cold.run.previous_run_interrupted).toBeNull();
      expect(
        await page.evaluate('return document.querySelector(\'[data-testid="interrupted-banner"]\') === null;'),
      ).toBe(true);
    } finally {
      await page.close();
    }
  });
});

// Chromium only: WebKit's WebDriver ends the session (and its ephemeral profile) when the page's web process dies,
// and one session shows one page at a time, so no later visit or second tab could read the journal there; the
// WebKit lane covers reloads above.
describe('chromium: killed and parallel tabs', () => {
  let server: StaticServer;
  let lane: BrowserLane;
  beforeAll(async () => {
    server = await serveBuild();
    lane = await openTestLane('chromium');
  });
  afterAll(async () => {
    await lane?.close();
    await server?.close();
  });

  it('a killed renderer (as iOS kills a tab under memory pressure) is found on the next visit', async () => {
    const page = await lane.newPage();
    try {
      const entry = await startHeavyRun(page, server);
      await page.crash();
      await page.goto(`${server.url}?${TINY_COLD}`);
      expect((await bannerStage(page)).stage).toBe('warm_inference');
      expect(await waitForEnd(page)).toBe('done');
      const [cold] = await pageReceipts(page);
      expect(validationProblems(cold)).toEqual([]);
      expect(cold.run.previous_run_interrupted).toMatchObject({
        run_id: entry.run_id,
        stage: 'warm_inference',
        model_id: HEAVY,
      });
    } finally {
      await page.close();
    }
  });

  it('two tabs: a run going on in one tab is not reported by the other; once that tab is closed mid-run, it is', async () => {
    // Two tabs of ONE profile (they share localStorage), which a lane page cannot give: chromium.ts directly.
    const browser = await launchTestChromium();
    try {
      const tabA = await browser.context.newPage();
      await tabA.goto(`${server.url}?${HEAVY_RUN}`);
      await waitForPage(
        tabA,
        () =>
          JSON.parse(localStorage.getItem('drb.run-journal') ?? 'null')?.active?.some(
            (e: { stage: string }) => e.stage === 'warm_inference',
          ),
        null,
        {
          timeout: 90_000,
        },
      );
      const tabB = await browser.context.newPage();
      await tabB.goto(server.url);
      await waitForPage(tabB, () => document.documentElement.dataset.drbState === 'idle');
      // Give the journal load (async: it asks the browser which runs hold their locks) time to show a banner.
      await tabB.waitForTimeout(1_000);
      expect(await tabB.getByTestId('interrupted-banner').count()).toBe(0);
      const stillOpen = await tabB.evaluate(() => JSON.parse(localStorage.getItem('drb.run-journal') ?? 'null'));
      expect(stillOpen.active).toEqual([expect.objectContaining({ stage: 'warm_inference', model_id: HEAVY })]);

      await tabA.close();
      const tabC = await browser.context.newPage();
      await tabC.goto(`${server.url}?${TINY_COLD}`);
      await waitForPage(
        tabC,
        () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''),
        null,
        { timeout: 60_000 },
      );
      expect(await tabC.getByTestId('interrupted-banner').getAttribute('data-drb-interrupted-stage')).toBe(
        'warm_inference',
      );
      const [cold] = await tabC.evaluate(() => window.drbReceipts);
      expect(cold.run.previous_run_interrupted).toMatchObject({
        run_id: stillOpen.active[0].run_id,
        stage: 'warm_inference',
      });
    } finally {
      await browser.close();
    }
  });
});
