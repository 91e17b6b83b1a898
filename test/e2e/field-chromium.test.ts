/**
 * The field kit in Chromium at a phone's size, as a tester uses it: one profile, the page's own controls only.
 * - Five cold runs, each in a new browser process on the same profile (the browser quit and started again), each
 *   after the page's own cold steps (hand off, the page's Clear, the two taps only the tester can make): every one a
 *   network-cold receipt from a fresh start, counted; twenty warm receipts; the sheet typed once; the memory answer a
 *   tap; the bundle exported with the page's button reaches DEVICE_PASS with `drb receipts review --reviewer`, with
 *   the device fields from the sheet.
 * - A cold run after a plain reload, a second one on the same page, and one without the taps are network-cold but
 *   never counted; a run overlapped by another tab's run is never counted; the page and `summarize` agree on every
 *   count; the card shows numbers after every run and never the next step during one; Cancel ends a run in any stage.
 * - Every bad URL parameter and an unknown protocol are refused with one line.
 * Screenshots at 375 x 667 and 390 x 844 after real runs go to the temp folder (drb-field-*.png).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { ReceiptBundle } from '../../src/core/field/receipt-bundle.ts';
import { ReceiptsSummary, type TargetSummary } from '../../src/core/evidence/receipts-summary.ts';
import { DeviceReview } from '../../src/core/evidence/device-review.ts';
import { launchChromium, waitForPage, type LaunchedChromium } from '../../src/node/chromium.ts';
import { startStaticServer, type StaticServer } from '../../src/node/static-server.ts';
import { runCli } from '../unit/cli-harness.ts';
import { E2E_CHROMIUM_ARGS, pageQuery, receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';
import { testTempDir } from '../temp-dir.ts';

const PROTOCOL = 'ort-tiny-xenc-wasm';
const PHONE = { width: 390, height: 844 };
const SMALL_PHONE = { width: 375, height: 667 };
const PROTOCOL_URL = pageQuery({ mode: 'protocol', protocol: PROTOCOL });

/** Opens protocol mode at a phone's size in `context` and waits until the stored session and the protocol are loaded. */
async function openProtocol(browser: LaunchedChromium, server: StaticServer): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize(PHONE);
  await page.goto(`${server.url}${PROTOCOL_URL}`);
  await waitForPage(page, () => document.documentElement.dataset.drbSession === 'ready');
  await page.getByTestId('protocol-card').waitFor();
  return page;
}

/** Presses a run button and waits for the run's end; checks the card said nothing of a next step while it ran. */
async function step(page: Page, button: 'protocol-next' | 'protocol-other' = 'protocol-next'): Promise<DeviceReceipt> {
  const before = await page.evaluate(() => window.drbSession!.receipts.length);
  await page.getByTestId(button).click();
  // While it runs (read at once, the tiny fixture's run may end any moment): the current step and its Cancel, never the
  // next step.
  const during = await page.evaluate(() => {
    const running = document.querySelector('[data-testid="protocol-running"]');
    const cancel = document.querySelector<HTMLButtonElement>('[data-testid="protocol-cancel"]');
    return running
      ? {
          card: document.querySelector('[data-testid="protocol-card"]')!.textContent,
          cancel: cancel !== null && !cancel.disabled,
        }
      : null;
  });
  if (during !== null) {
    expect(during.card).not.toContain('Next:');
    expect(during.cancel).toBe(true);
  }
  await waitForPage(
    page,
    (n) => (window.drbSession?.receipts.length ?? 0) > n && document.documentElement.dataset.drbState !== 'running',
    before,
    { timeout: 120_000 },
  );
  const receipt = (await page.evaluate(() => window.drbSession!.receipts.at(-1))) as DeviceReceipt;
  expect(receiptProblems(receipt)).toEqual([]);
  // Numbers after every run: the cold run's total and stages, the warm receipt's median and p95.
  const numbers = await page.getByTestId('last-numbers').textContent();
  expect(numbers).toMatch(
    receipt.run.kind === 'cold'
      ? /^total [\d,.]+ ms \(fetch [\d,.]+ ms, runtime [\d,.]+ ms, session [\d,.]+ ms, first inference [\d,.]+ ms\)$/
      : /^median [\d.]+ ms, p95 [\d.]+ ms over 20 timed runs$/,
  );
  return receipt;
}

/** The two taps only the tester can make before a cold run. */
async function attestBoth(page: Page): Promise<void> {
  await page.getByTestId('attest-site-data-cleared').click();
  await page.getByTestId('attest-browser-restarted').click();
  expect(await page.getByTestId('attest-browser-restarted').getAttribute('aria-pressed')).toBe('true');
  expect(await page.getByTestId('attest-missing').count()).toBe(0);
}

/** The counts protocol mode shows (its progress line's data attributes). */
async function pageCounts(page: Page): Promise<Record<string, number>> {
  return page.getByTestId('protocol-progress').evaluate((el) =>
    Object.fromEntries(
      Object.entries((el as HTMLElement).dataset)
        .filter(([k]) => k !== 'testid')
        .map(([k, v]) => [k, Number(v)]),
    ),
  );
}

/** The same counts from a summary's target (src/core/field/field-progress.ts counts as the summary does). */
function summaryCounts(t: TargetSummary, relatedFailed = 0): Record<string, number> {
  return {
    cold: t.counts.full_cold,
    coldNetworkOnly: t.counts.clean_cold - t.counts.full_cold,
    coldCache: t.cold_set_aside.served_from_cache.length,
    coldUnknown: t.cold_set_aside.cache_state_unknown.length,
    warm: t.counts.clean_warm,
    failed: t.counts.failed + relatedFailed,
    overlapped: t.counts.overlap_set_aside,
    noisy: t.counts.noisy,
    measuredNetwork: t.counts.measured_network_cold,
    measuredFresh: t.counts.measured_fresh_start,
    attested: t.counts.attested_cold,
  };
}

/** No horizontal overflow at 375 px; the next action (its button or the running card) above the fold at 375 x 667. */
async function phoneChecks(page: Page, shot: string): Promise<void> {
  await page.setViewportSize(SMALL_PHONE);
  const layout = await page.evaluate(() => {
    const card = document.querySelector(
      '[data-testid="protocol-next"], [data-testid="hand-off"], [data-testid="clear-models"], [data-testid="memory-none"]',
    );
    return {
      scroll: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
      actionBottom: card ? card.getBoundingClientRect().bottom : null,
      height: window.innerHeight,
    };
  });
  expect(layout.scroll, 'document scrollWidth at 375 px').toBeLessThanOrEqual(layout.viewport);
  expect(layout.actionBottom, 'the next action at 375 x 667').not.toBeNull();
  expect(layout.actionBottom!, 'the next action above the fold at 375 x 667').toBeLessThanOrEqual(layout.height);
  await page.screenshot({ path: join(tmpdir(), `drb-field-${shot}-375x667.png`) });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(tmpdir(), `drb-field-${shot}-390x844.png`) });
}

/** Clicks a button that hands a file over (a download where the browser cannot share files) and saves the file. */
async function saveDownload(page: Page, testId: string, dir: string): Promise<string> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  const file = join(dir, download.suggestedFilename());
  await download.saveAs(file);
  return file;
}

describe("the field kit in Chromium at 390 x 844, one profile, the page's own controls only", () => {
  let server: StaticServer;
  beforeAll(async () => {
    server = await startStaticServer({ dir: inject('distDir') });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('five counted network-cold receipts across browser restarts and twenty warm ones reach DEVICE_PASS with review --reviewer; the sheet typed once', async () => {
    const profileDir = testTempDir('drb-field-profile-');
    const dir = testTempDir('drb-field-files-');
    const handedOff: string[] = [];
    let browser = await launchChromium({ profileDir, extraArgs: [...E2E_CHROMIUM_ARGS] });
    try {
      let page = await openProtocol(browser, server);
      for (let cold = 1; cold <= 5; cold++) {
        if (cold > 1) {
          // The cold steps with the page's own controls: hand off what is not in a file yet, the page's Clear, quit.
          await page.getByTestId('restart-steps').waitFor();
          if ((await page.getByTestId('hand-off').count()) > 0)
            handedOff.push(await saveDownload(page, 'hand-off', dir));
          await page.getByTestId('hand-off-done').waitFor();
          await page.getByTestId('clear-models').click();
          await page.getByTestId('clear-report').waitFor();
          if (cold === 2) await phoneChecks(page, 'restart');
          await browser.close();
          browser = await launchChromium({ profileDir, extraArgs: [...E2E_CHROMIUM_ARGS] });
          page = await openProtocol(browser, server);
          // The page's Clear kept the stored receipts: the tally goes on without taking files back.
          expect((await pageCounts(page)).cold).toBe(cold - 1);
        }
        expect(await page.getByTestId('protocol-next').textContent()).toBe('Cold run');
        await attestBoth(page);
        const receipt = await step(page);
        expect(receipt.run.kind).toBe('cold');
        expect(receipt.run.cold_from_cache).toBe(false);
        expect(receipt.runtime.fetch_method).toBe('per-run-url');
        expect([...receipt.model.files, ...receipt.runtime.files].map((f) => f.cache_state)).toEqual([
          'network',
          'network',
          'network',
        ]);
        expect(receipt.run.cold_start).toMatchObject({
          navigation_type: 'navigate',
          restored_from_bfcache: false,
          first_navigation_of_tab: true,
          runs_before_in_page: 0,
        });
        expect(receipt.run.cold_start!.navigation_to_result_ms).toBeGreaterThan(0);
        expect(receipt.run.attestations!.map((x) => [x.claim, x.source])).toEqual([
          ['site-data-cleared', 'tester'],
          ['browser-restarted', 'tester'],
        ]);
        expect(await page.getByTestId('last-outcome').getAttribute('data-counted')).toBe('yes');
        expect(await page.getByTestId('last-outcome').getAttribute('class')).toBe('ok');
        expect((await pageCounts(page)).cold).toBe(cold);
        if (cold === 1) {
          await phoneChecks(page, 'after-cold');
          // The sheet, typed once: it stays on the device and travels in every file.
          await page.getByTestId('sheet-device_model').fill('Pixel 8 (GKWS6)');
          await page.getByTestId('sheet-ram_gb').fill('8');
          await page.getByTestId('sheet-os_build').fill('Android 16 (BP3A.250905)');
          await page.getByTestId('sheet-browser').fill('Chrome');
          await page.getByTestId('sheet-browser_version').fill('143');
          // A web address with a token typed into the sheet is named under its field before any export (drb
          // refuses such a bundle); an ordinary note is not.
          await page.getByTestId('sheet-network').fill('hotel wifi, portal www.example.com/login?token=abc');
          await page.getByTestId('sheet-network-warning').waitFor();
          await page.getByTestId('sheet-network').fill('Wi-Fi 5 GHz');
          await page.getByTestId('sheet-network-warning').waitFor({ state: 'detached' });
          await page.getByTestId('sheet-battery_percent').fill('76');
          await page.getByTestId('sheet-charging').selectOption('false');
          await page.getByTestId('sheet-thermal_state').selectOption('nominal');
          await page
            .getByTestId('sheet-public_revision')
            .fill((await page.evaluate(() => window.drbApp.commit)) ?? 'unknown');
          for (let warm = 1; warm <= 20; warm++) {
            expect(await page.getByTestId('warm-steps').textContent()).toContain(`Next: warm receipt ${warm} of 20`);
            expect((await step(page)).run.kind).toBe('warm');
          }
          await phoneChecks(page, 'after-warm');
        }
      }
      await page.getByTestId('done-steps').waitFor();
      expect(await page.getByTestId('protocol-progress').textContent()).toBe(
        'cold 5 of 5 receipts, warm 20 of 20 receipts',
      );
      await page.getByTestId('memory-none').click();
      await waitForPage(
        page,
        () => document.querySelector('[data-testid="memory-none"]')?.getAttribute('aria-pressed') === 'true',
      );
      await page
        .locator('[data-testid=stored-session] details')
        .evaluate((d) => ((d as HTMLDetailsElement).open = true));
      expect(await page.locator('[data-testid=stored-receipt][data-counted=yes]').count()).toBe(25);
      await phoneChecks(page, 'done');
      // The last hand-off: what is not in a file yet (the last cold run) with the memory answer. Each receipt is now in
      // exactly one handed-off file.
      handedOff.push(await saveDownload(page, 'hand-off', dir));
      await page.getByTestId('hand-off-done').waitFor();
      const pageSaid = await pageCounts(page);
      // The whole session in one file too (the alternative to the hand-off files at the desk, not an addition).
      const button = (await page.getByTestId('export-download').count()) > 0 ? 'export-download' : 'export-share';
      const whole = ReceiptBundle.parse(
        JSON.parse(readFileSync(await saveDownload(page, button, testTempDir('drb-field-whole-')), 'utf8')),
      );
      expect(whole.receipts).toHaveLength(25);
      expect(whole.attestations?.map((x) => x.claim)).toEqual(['no-memory-pressure-seen']);
      const bundles = handedOff.map((f) => ReceiptBundle.parse(JSON.parse(readFileSync(f, 'utf8'))));
      expect(bundles.map((b) => b.receipts.length)).toEqual([21, 1, 1, 1, 1]);
      // Every hand-off file carries the sheet typed once.
      for (const b of bundles) expect(b.sheet.device_model).toBe('Pixel 8 (GKWS6)');

      // At the desk: the handed-off files together.
      const files = handedOff;
      expect((await runCli(['receipts', 'validate', ...files])).code).toBe(0);
      const out = join(dir, 'summary');
      expect((await runCli(['receipts', 'summarize', ...files, '--out', out])).code).toBe(0);
      const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
      expect(summary.targets).toHaveLength(1);
      const [target] = summary.targets;
      expect(target.counts).toMatchObject({
        full_cold: 5,
        measured_network_cold: 5,
        measured_fresh_start: 5,
        attested_cold: 5,
        clean_warm: 20,
        cold_minimum_met: true,
        warm_minimum_met: true,
      });
      // The page and summarize agree on every count.
      expect(summaryCounts(target)).toEqual(pageSaid);
      const review = await runCli([
        'receipts',
        'review',
        '--summary',
        join(out, 'summary.json'),
        '--reviewer',
        'qa-field',
        '--profile',
        'entry',
      ]);
      expect(review.stdout.split('\n')[0], review.stdout + review.stderr).toBe(`${target.key}: DEVICE_PASS`);
      const stored = DeviceReview.parse(JSON.parse(readFileSync(join(out, 'reviews', `${target.key}.json`), 'utf8')));
      expect(stored.device).toEqual({
        hardware_model: 'Pixel 8 (GKWS6)',
        ram_gb: 8,
        os_build: 'Android 16 (BP3A.250905)',
        browser: 'Chrome',
        browser_version: '143',
      });
      expect(stored.output_stayed_correct).toBe(true);
      expect(stored.reviewer).toBe('qa-field');
    } finally {
      await browser.close();
    }
  }, 900_000);

  it('never counts a cold run after a plain reload, a second one on the same page, or one without the taps; the page and summarize agree', async () => {
    const env: PageEnv = await startPageEnv();
    const dir = testTempDir('drb-field-not-counted-');
    try {
      const page = await env.browser.context.newPage();
      await page.setViewportSize(PHONE);
      await page.goto(`${env.server.url}${PROTOCOL_URL}`);
      await page.getByTestId('protocol-card').waitFor();
      await attestBoth(page);
      const counted = await step(page);
      expect(counted.run.cold_start).toMatchObject({ navigation_type: 'navigate', runs_before_in_page: 0 });
      // A second cold run on the same page: network-cold (per-run URLs past the HTTP cache), never a protocol cold.
      const second = await step(page, 'protocol-other');
      expect(second.run).toMatchObject({
        kind: 'cold',
        cold_from_cache: false,
        cold_start: { runs_before_in_page: 1 },
      });
      expect(await page.getByTestId('last-outcome').getAttribute('class')).toBe('warn');
      expect(await page.getByTestId('last-outcome').textContent()).toContain(
        'network-cold, but not counted as a protocol cold: 1 earlier run(s) on the same page',
      );
      // A plain reload, then a cold run with both taps: still not counted.
      await page.reload();
      await page.getByTestId('protocol-card').waitFor();
      await attestBoth(page);
      const reloaded = await step(page);
      expect(reloaded.run.cold_start).toMatchObject({
        navigation_type: 'reload',
        first_navigation_of_tab: false,
        runs_before_in_page: 0,
      });
      expect(await page.getByTestId('last-outcome').textContent()).toContain('the page was opened by a reload');
      // A new tab without the taps (a second cold run in one browser process, nobody says it restarted): not counted.
      const tab = await env.browser.context.newPage();
      await tab.setViewportSize(PHONE);
      await tab.goto(`${env.server.url}${PROTOCOL_URL}`);
      await tab.getByTestId('protocol-card').waitFor();
      expect(await tab.getByTestId('attest-missing').textContent()).toContain('does not count');
      const untapped = await step(tab);
      expect(untapped.run).toMatchObject({
        cold_from_cache: false,
        cold_start: { first_navigation_of_tab: true, runs_before_in_page: 0 },
        attestations: [],
      });
      expect(await tab.getByTestId('last-outcome').textContent()).toContain(
        'browser restart not attested; website data clear not attested',
      );
      await phoneChecks(tab, 'not-counted');
      expect(await tab.getByTestId('protocol-progress').textContent()).toBe(
        'cold 1 of 5 receipts, warm 0 of 20 receipts; not counted: 3 cold not a full protocol cold',
      );
      const file = join(dir, 'session.json');
      writeFileSync(file, JSON.stringify(await tab.evaluate(() => window.drbExportBundle!())));
      const out = join(dir, 'summary');
      expect((await runCli(['receipts', 'summarize', file, '--out', out])).code).toBe(0);
      const [target] = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))).targets;
      expect(target.cold_set_aside.not_fresh_start.sort()).toEqual([second.receipt_id, reloaded.receipt_id].sort());
      // The taps went into the first cold run's receipt and were used up by it: the second one is not attested either.
      expect(target.cold_set_aside.not_attested.sort()).toEqual([second.receipt_id, untapped.receipt_id].sort());
      expect(summaryCounts(target)).toEqual(await pageCounts(tab));
    } finally {
      await env.close();
    }
  }, 600_000);

  it('shows a run in another tab of the site, never counts a run it overlapped, and the page and summarize agree', async () => {
    const env: PageEnv = await startPageEnv();
    const dir = testTempDir('drb-field-overlap-');
    try {
      const page = await env.browser.context.newPage();
      await page.setViewportSize(PHONE);
      await page.goto(`${env.server.url}${PROTOCOL_URL}`);
      await page.getByTestId('protocol-card').waitFor();
      await attestBoth(page);
      await step(page);
      // Another tab starts a long run (the developer panels' heavy warm series).
      const other = await env.browser.context.newPage();
      await other.goto(
        `${env.server.url}${pageQuery({ mode: 'panels', autorun: ['warm'], model: 'ort-heavy-xenc', warmRuns: 1000, threads: 1 })}`,
      );
      await waitForPage(
        other,
        () =>
          JSON.parse(localStorage.getItem('drb.run-journal') ?? 'null')?.active?.some(
            (e: { stage: string }) => e.stage === 'warm_inference',
          ),
        null,
        { timeout: 90_000 },
      );
      await page.getByTestId('other-tabs').waitFor({ timeout: 10_000 });
      expect(await page.getByTestId('other-tabs').textContent()).toContain(
        'Another tab of this site is running a run now',
      );
      const overlapped = await step(page);
      expect(overlapped.run.overlap).toEqual({ this_page: false, other_tabs: true });
      expect(await page.getByTestId('last-outcome').getAttribute('class')).toBe('warn');
      expect(await page.getByTestId('last-outcome').textContent()).toContain('not counted: another run');
      await other.close();
      await page.getByTestId('other-tabs').waitFor({ state: 'detached', timeout: 10_000 });
      expect(await page.getByTestId('protocol-progress').textContent()).toBe(
        'cold 1 of 5 receipts, warm 0 of 20 receipts; not counted: 1 overlapped by another run',
      );
      const file = join(dir, 'session.json');
      writeFileSync(file, JSON.stringify(await page.evaluate(() => window.drbExportBundle!())));
      const out = join(dir, 'summary');
      expect((await runCli(['receipts', 'summarize', file, '--out', out])).code).toBe(0);
      const [target] = ReceiptsSummary.parse(
        JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')),
      ).targets.filter((t) => t.identity.model.id === 'ort-tiny-xenc');
      expect(target.overlap_set_aside).toEqual([overlapped.receipt_id]);
      expect(summaryCounts(target)).toEqual(await pageCounts(page));
    } finally {
      await env.close();
    }
  }, 600_000);

  it('cancels a run in any stage: the runtime download held, the run ends failed "cancelled", and the card says so', async () => {
    const env: PageEnv = await startPageEnv();
    try {
      const page = await env.browser.context.newPage();
      await page.setViewportSize(PHONE);
      // The runtime's .wasm is held until the test lets it go: a slow download.
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route(/\.wasm(\?|$)/, async (route) => {
        await held;
        await route.continue().catch(() => undefined);
      });
      await page.goto(`${env.server.url}${PROTOCOL_URL}`);
      await page.getByTestId('protocol-card').waitFor();
      await page.getByTestId('protocol-next').click();
      await waitForPage(
        page,
        () =>
          document
            .querySelector('[data-testid="protocol-running"] h2')
            ?.textContent?.includes('downloading the runtime') ?? false,
        null,
        { timeout: 60_000 },
      );
      expect(await page.getByTestId('protocol-card').textContent()).not.toContain('Next:');
      await page.getByTestId('protocol-cancel').click();
      await waitForPage(page, () => document.documentElement.dataset.drbState === 'failed', null, { timeout: 30_000 });
      release();
      const receipt = (await page.evaluate(() => window.drbSession!.receipts.at(-1))) as DeviceReceipt;
      expect(receipt.outcome).toMatchObject({ status: 'failed', reason: 'cancelled', failed_stage: 'runtime_fetch' });
      expect(receiptProblems(receipt)).toEqual([]);
      expect(await page.getByTestId('last-outcome').getAttribute('class')).toBe('error');
      expect(await page.getByTestId('last-outcome').textContent()).toContain('failed: cancelled');
    } finally {
      await env.close();
    }
  }, 300_000);

  it('refuses every bad URL parameter and an unknown protocol with one line each, and runs nothing', async () => {
    const env: PageEnv = await startPageEnv();
    try {
      const page = await env.browser.context.newPage();
      await page.setViewportSize(PHONE);
      const lines = async (query: string) => {
        await page.goto(`${env.server.url}${query}`);
        // The state turns failed in the same frame the problem lines are rendered in, or one before it: wait for both.
        await waitForPage(
          page,
          () =>
            document.documentElement.dataset.drbState === 'failed' &&
            document.querySelector('[data-testid=param-problems] li, [data-testid=protocol-error]') !== null,
          null,
          { timeout: 30_000 },
        );
        expect(await page.getByTestId('protocol-next').count()).toBe(0);
        return page.locator('[data-testid=param-problems] li, [data-testid=protocol-error]').allTextContents();
      };
      expect(await lines('?mode=protocol&threads=x')).toEqual([
        "Invalid threads param in protocol mode: 'x': protocol ort-tiny-xenc-wasm fixes the model, engine, route, threads and warm runs; remove it, choose another protocol (?protocol=<id>), or open the developer panels (?mode=panels)",
      ]);
      expect(await lines('?mode=phone')).toEqual(["Invalid mode param: 'phone', expected one of protocol, panels"]);
      expect(await lines('?mode=protocol&ep=webgpu')).toEqual([
        "Invalid ep param in protocol mode: 'webgpu': protocol ort-tiny-xenc-wasm fixes the model, engine, route, threads and warm runs; remove it, choose another protocol (?protocol=<id>), or open the developer panels (?mode=panels)",
      ]);
      expect(await lines('?mode=protocol&protocol=nope')).toEqual([
        "Unknown protocol 'nope': this page has no protocols/nope.json; use one of ort-tiny-xenc-wasm, lfm2.5-350m-q4-wasm, qwen3-0.6b-q4-wasm, bge-reranker-v2-m3-q8-wasm (?protocol=<id>)",
      ]);
    } finally {
      await env.close();
    }
  }, 300_000);
});
