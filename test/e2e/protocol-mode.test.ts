/**
 * Protocol mode end to end in Chromium at a phone's size (390 x 844): the tester's flow through the real buttons.
 * A cold run, a reload, the same receipt back from the device's storage; a renderer killed mid-run, then the earlier
 * receipts still stored and the interruption recorded; a cold run after the reload network-cold (the runtime under
 * per-run URLs, past the HTTP cache) but not counted (a reload is not a fresh start); export through the real button;
 * the bundle validates; summarize counts only the full protocol colds (network-cold from a fresh start, restart and
 * clear attested); review with an answers file reaches DEVICE_PASS on a bundle with enough of them and warm receipts,
 * and not on one whose cold receipts were not fresh starts. Every view has no horizontal overflow at 375 px. The
 * tester's whole procedure across browser restarts is test/e2e/field-chromium.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { ReceiptBundle } from '../../src/core/field/receipt-bundle.ts';
import type { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { runCli } from '../unit/cli-harness.ts';
import { pageQuery, receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';
import { testTempDir } from '../temp-dir.ts';

const PROTOCOL = 'ort-tiny-xenc-wasm';
const PHONE = { width: 390, height: 844 };

/** Opens protocol mode at a phone's size and waits until the stored session and the protocol are loaded. */
async function openProtocol(env: PageEnv, extra: Record<string, unknown> = {}): Promise<Page> {
  const page = await env.browser.context.newPage();
  await page.setViewportSize(PHONE);
  await page.goto(`${env.server.url}${pageQuery({ mode: 'protocol', protocol: PROTOCOL, ...extra })}`);
  await waitForPage(page, () => document.documentElement.dataset.drbSession === 'ready');
  await page.getByTestId('protocol-next').waitFor();
  return page;
}

/** The tester's two taps before a cold run (what no page can see: the browser restarted, the site's data cleared). */
async function attest(page: Page): Promise<void> {
  await page.getByTestId('attest-browser-restarted').click();
  await page.getByTestId('attest-site-data-cleared').click();
}

/** Presses the next-step button (or the other step) and waits for the run's end; returns the receipt it stored. */
async function step(page: Page, button: 'protocol-next' | 'protocol-other' = 'protocol-next'): Promise<DeviceReceipt> {
  const before = await page.evaluate(() => window.drbSession!.receipts.length);
  await page.getByTestId(button).click();
  await waitForPage(
    page,
    (n) => (window.drbSession?.receipts.length ?? 0) > n && document.documentElement.dataset.drbState !== 'running',
    before,
    { timeout: 120_000 },
  );
  const receipt = (await page.evaluate(() => window.drbSession!.receipts.at(-1))) as DeviceReceipt;
  expect(receiptProblems(receipt)).toEqual([]);
  return receipt;
}

async function noOverflowAt375(page: Page): Promise<void> {
  await page.setViewportSize({ width: 375, height: 667 });
  const widths = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
  }));
  expect(widths.scroll, 'document scrollWidth at 375 px').toBeLessThanOrEqual(widths.viewport);
  await page.setViewportSize(PHONE);
}

describe('protocol mode in Chromium at 390 x 844', () => {
  let env: PageEnv;
  beforeAll(async () => {
    env = await startPageEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('a cold run in a fresh profile is network and counted with the taps; the receipt survives a reload; a cold run after the reload is network-cold but not counted', async () => {
    const page = await openProtocol(env);
    expect(await page.getByTestId('protocol-next').textContent()).toBe('Cold run');
    await noOverflowAt375(page);
    await attest(page);
    const cold = await step(page);
    expect(cold.run.kind).toBe('cold');
    expect(cold.run.cold_from_cache).toBe(false);
    expect([...cold.model.files, ...cold.runtime.files].map((f) => f.cache_state)).toEqual([
      'network',
      'network',
      'network',
    ]);
    expect(cold.run.wake_lock).toMatch(/^(held|released|refused|unsupported)$/);
    expect(await page.getByTestId('protocol-progress').textContent()).toBe(
      'cold 1 of 5 receipts, warm 0 of 20 receipts',
    );
    // Stored before it was shown: a reload gives the same receipt back.
    await page.reload();
    await waitForPage(page, () => document.documentElement.dataset.drbSession === 'ready');
    expect(await page.evaluate(() => window.drbSession!.receipts)).toEqual([cold]);
    await page.getByTestId('protocol-next').waitFor();
    // A cold run again after a plain reload, the taps made: every byte over the network still (the runtime under URLs
    // unique to the run, past the HTTP cache the first run filled), but a reload is no fresh start: not counted.
    await attest(page);
    const again = await step(page);
    expect(again.run.kind).toBe('cold');
    expect(again.run.cold_from_cache).toBe(false);
    expect(again.runtime.files.map((f) => f.cache_state)).toEqual(['network', 'network']);
    expect(again.run.cold_start).toMatchObject({ navigation_type: 'reload', first_navigation_of_tab: false });
    expect(await page.getByTestId('protocol-progress').textContent()).toBe(
      'cold 1 of 5 receipts, warm 0 of 20 receipts; not counted: 1 cold not a full protocol cold',
    );
    expect(await page.getByTestId('last-outcome').textContent()).toContain(
      'network-cold, but not counted as a protocol cold: the page was opened by a reload; not the first page of its tab',
    );
    await page.locator('[data-testid=stored-session] details').evaluate((d) => ((d as HTMLDetailsElement).open = true));
    await page
      .locator('[data-testid=capability-summary] details')
      .evaluate((d) => ((d as HTMLDetailsElement).open = true));
    await noOverflowAt375(page);
    await page.screenshot({ path: join(tmpdir(), 'drb-protocol-390.png'), fullPage: true });
    // The developer panels are a tap away, and fit the same screen.
    await page.getByTestId('to-panels').click();
    await page.getByTestId('controls').waitFor();
    await noOverflowAt375(page);
    // The view is part of the address both ways: the switch names it (a reload returns to it), and back and forward
    // show the view their entry names.
    const mode = () => new URL(page.url()).searchParams.get('mode');
    expect(mode()).toBe('panels');
    await page.reload();
    await page.getByTestId('controls').waitFor();
    expect(await page.getByTestId('protocol-view').count()).toBe(0);
    await page.goBack();
    await page.getByTestId('protocol-view').waitFor();
    expect(mode()).toBe('protocol');
    expect(await page.getByTestId('controls').count()).toBe(0);
    await page.goForward();
    await page.getByTestId('controls').waitFor();
    expect(mode()).toBe('panels');
    await page.getByTestId('to-protocol').click();
    await page.getByTestId('protocol-view').waitFor();
    expect(mode()).toBe('protocol');
    await page.reload();
    await page.getByTestId('protocol-view').waitFor();
    await page.close();
  });

  it('a renderer killed mid-run: the earlier receipts stay stored and the next receipt records the interruption', async () => {
    const browser = await startPageEnv();
    try {
      const first = await openProtocol(browser);
      const cold = await step(first);
      // A long run (the developer panels' heavy warm series), killed in the middle as iOS kills a tab.
      await first.goto(
        `${browser.server.url}${pageQuery({ mode: 'panels', autorun: ['warm'], model: 'ort-heavy-xenc', warmRuns: 1000, threads: 1 })}`,
      );
      await waitForPage(
        first,
        () =>
          JSON.parse(localStorage.getItem('drb.run-journal') ?? 'null')?.active?.some(
            (e: { stage: string }) => e.stage === 'warm_inference',
          ),
        null,
        { timeout: 90_000 },
      );
      const cdp = await first.context().newCDPSession(first);
      await Promise.race([
        cdp.send('Page.crash').catch(() => {}),
        new Promise<void>((resolve) => first.once('crash', () => resolve())),
      ]);
      await first.close().catch(() => {});
      const page = await openProtocol(browser);
      expect(await page.evaluate(() => window.drbSession!.receipts)).toEqual([cold]);
      expect(await page.getByTestId('interrupted-banner').count()).toBe(0); // protocol mode records it in the next receipt
      const next = await step(page);
      expect(next.run.previous_run_interrupted).toMatchObject({ stage: 'warm_inference', model_id: 'ort-heavy-xenc' });
      expect(await page.evaluate(() => window.drbSession!.receipts.length)).toBe(2);
    } finally {
      await browser.close();
    }
  });

  it('exports through the real button a bundle that validates, summarises with only full protocol colds counted, and reaches DEVICE_PASS only with them', async () => {
    const browser = await startPageEnv();
    const dir = testTempDir('drb-protocol-e2e-');
    try {
      let page = await openProtocol(browser);
      // Five full protocol colds, each the first run of a new tab with the taps made; then one on the same page.
      const colds: DeviceReceipt[] = [];
      for (let i = 0; i < 5; i++) {
        if (i > 0) {
          await page.close();
          page = await openProtocol(browser);
        }
        expect(await page.getByTestId('protocol-next').textContent()).toBe('Cold run');
        await attest(page);
        colds.push(await step(page));
      }
      const samePage = await step(page, 'protocol-other');
      expect(colds.map((r) => r.run.cold_from_cache)).toEqual([false, false, false, false, false]);
      expect(samePage.run).toMatchObject({
        kind: 'cold',
        cold_from_cache: false,
        cold_start: { runs_before_in_page: 1 },
      });
      for (let i = 0; i < 20; i++) expect((await step(page)).run.kind).toBe('warm');
      expect(await page.getByTestId('protocol-progress').textContent()).toBe(
        'cold 5 of 5 receipts, warm 20 of 20 receipts; not counted: 1 cold not a full protocol cold',
      );
      await page.getByTestId('done-steps').waitFor();
      // The session sheet, typed as a tester would; shown in full before export.
      await page.getByTestId('sheet-device_model').fill('iPhone 15 (A3090)');
      await page.getByTestId('sheet-ram_gb').fill('6');
      await page.getByTestId('sheet-os_build').fill('iOS 26.1 (23B85)');
      await page.getByTestId('sheet-browser').fill('Safari');
      await page.getByTestId('sheet-browser_version').fill('26.1');
      await page.getByTestId('sheet-network').fill('Wi-Fi 5 GHz');
      await page.getByTestId('sheet-battery_percent').fill('80');
      await page.getByTestId('sheet-charging').selectOption('false');
      await page.getByTestId('sheet-thermal_state').selectOption('nominal');
      const commit = await page.evaluate(() => window.drbApp.commit);
      await page.getByTestId('sheet-public_revision').fill(commit ?? 'unknown');
      await noOverflowAt375(page);
      await page.screenshot({ path: join(tmpdir(), 'drb-protocol-done-390.png'), fullPage: true });

      // Export through the real button (a download where the browser cannot share files).
      const button = (await page.getByTestId('export-download').count()) > 0 ? 'export-download' : 'export-share';
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(button).click()]);
      expect(download.suggestedFilename()).toMatch(/^drb-ort-tiny-xenc-wasm-1-bundle-\d{8}T\d{6}Z\.json$/);
      const file = join(dir, download.suggestedFilename());
      await download.saveAs(file);
      const bundle = ReceiptBundle.parse(JSON.parse(readFileSync(file, 'utf8')));
      expect(bundle.receipts).toHaveLength(26);
      expect(bundle.sheet).toMatchObject({
        device_model: 'iPhone 15 (A3090)',
        ram_gb: 6,
        battery_percent: 80,
        charging: false,
      });
      expect(bundle.protocol?.id).toBe(PROTOCOL);
      // The automation contract gives the same bundle the button gave (but for its time).
      const viaContract = await page.evaluate(() => window.drbExportBundle!());
      expect({ ...viaContract, created_at: bundle.created_at }).toEqual(bundle);

      const validate = await runCli(['receipts', 'validate', file]);
      expect(validate.stdout).toBe('ok: 26 receipt(s) valid, and 1 other drb artifact(s) valid by their own schema\n');
      const out = join(dir, 'summary');
      expect((await runCli(['receipts', 'summarize', file, '--out', out])).code).toBe(0);
      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as ReceiptsSummary;
      expect(summary.targets).toHaveLength(1);
      const [target] = summary.targets;
      expect(target.counts).toMatchObject({
        cold: 6,
        clean_cold: 6,
        full_cold: 5,
        cold_set_aside: 0,
        clean_warm: 20,
        cold_minimum_met: true,
        warm_minimum_met: true,
      });
      expect(target.cold_set_aside.not_fresh_start).toEqual([samePage.receipt_id]);
      const template = JSON.parse(
        (await runCli(['receipts', 'review-template', '--summary', join(out, 'summary.json'), '--target', target.key]))
          .stdout,
      ) as Record<string, unknown>;
      expect(template.device).toEqual({
        hardware_model: 'iPhone 15 (A3090)',
        ram_gb: 6,
        os_build: 'iOS 26.1 (23B85)',
        browser: 'Safari',
        browser_version: '26.1',
      });
      // What the reviewer confirms is never pre-filled: the deployed revision and the tab's survival.
      expect(template).toMatchObject({ public_revision: '', tab: { reloaded_or_evicted: null, details: null } });
      Object.assign(template, {
        reviewer: 'qa-1',
        reviewed_at: '2026-12-01T10:00:00Z',
        memory_pressure: { observed: false, behaviour: 'none observed' },
        thresholds: { profile: null, cold_total_p95_ms: 600_000, warm_p95_ms: 60_000 },
      });
      const answers = join(dir, 'answers.json');
      writeFileSync(answers, JSON.stringify(template));
      const review = await runCli([
        'receipts',
        'review',
        '--summary',
        join(out, 'summary.json'),
        '--target',
        target.key,
        '--answers',
        answers,
      ]);
      expect(review.stdout.split('\n')[0]).toBe(`${target.key}: DEVICE_PASS`);
      // The slots the template left empty were filled by review from the evidence, each with its source.
      expect(review.stdout).toContain(
        "  from the evidence: public_revision: session sheets of 1 bundle(s), typed once in protocol mode; checked against the receipts' own commit\n",
      );
      expect(review.stdout).toMatch(/\n {2}from the evidence: tab: run journal: 0 interrupted run\(s\) recorded\n/);
      expect(review.stdout).toMatch(
        /\n {2}from the evidence: launch_to_result_ms: receipts: median navigation start to first result of 5 full protocol cold\(s\)/,
      );

      // The same session with its not-fresh cold run as the only cold one: not a pass, and it says why.
      const notFresh = {
        ...bundle,
        receipts: bundle.receipts.filter(
          (r) =>
            (r as unknown as DeviceReceipt).run.kind === 'warm' ||
            (r as unknown as DeviceReceipt).receipt_id === samePage.receipt_id,
        ),
      };
      const notFreshFile = join(dir, 'not-fresh-only.json');
      writeFileSync(notFreshFile, JSON.stringify(notFresh));
      const out2 = join(dir, 'summary-not-fresh');
      expect((await runCli(['receipts', 'summarize', notFreshFile, '--out', out2])).code).toBe(0);
      const target2 = (JSON.parse(readFileSync(join(out2, 'summary.json'), 'utf8')) as ReceiptsSummary).targets[0];
      writeFileSync(answers, JSON.stringify({ ...template, target: target2.key, launch_to_result_ms: 4000 }));
      const review2 = await runCli([
        'receipts',
        'review',
        '--summary',
        join(out2, 'summary.json'),
        '--target',
        target2.key,
        '--answers',
        answers,
      ]);
      expect(review2.stdout).toContain(`${target2.key}: DEVICE_RECEIPT`);
      expect(review2.stdout).toContain(
        '0 full protocol cold run(s), the protocol needs at least 5; measured: 1 network-cold, 0 of them from a fresh start; attested: 0 browser restart and site data clear ' +
          "(cold run(s) set aside: 1 without a fresh start (a reload, an earlier run on the page, not the tab's first page), 1 without an attested browser restart and site data clear)",
      );
    } finally {
      await browser.close();
    }
  }, 600_000);

  it('a bad protocol file, or one that is missing, is one line on the page naming the file and the field', async () => {
    const page = await env.browser.context.newPage();
    await page.setViewportSize(PHONE);
    await page.goto(`${env.server.url}${pageQuery({ mode: 'protocol', protocol: 'no-such-protocol' })}`);
    await page.getByTestId('protocol-error').waitFor();
    expect(await page.getByTestId('protocol-error').textContent()).toBe(
      "Unknown protocol 'no-such-protocol': this page has no protocols/no-such-protocol.json; use one of ort-tiny-xenc-wasm, lfm2.5-350m-q4-wasm, qwen3-0.6b-q4-wasm, bge-reranker-v2-m3-q8-wasm (?protocol=<id>)",
    );
    expect(await page.evaluate(() => document.documentElement.dataset.drbState)).toBe('failed');
    await page.close();
    // A protocol file whose id is another protocol's (its receipts would be taken for that one's): one line, nothing runs.
    const renamed = await env.browser.context.newPage();
    await renamed.setViewportSize(PHONE);
    const shipped = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'public', 'protocols', 'ort-tiny-xenc-wasm.json'), 'utf8'),
    ) as Record<string, unknown>;
    await renamed.route('**/protocols/ort-tiny-xenc-wasm.json', (route) =>
      route.fulfill({ json: { ...shipped, id: 'qwen3-0.6b-q4-wasm' } }),
    );
    await renamed.goto(`${env.server.url}${pageQuery({ mode: 'protocol', protocol: 'ort-tiny-xenc-wasm' })}`);
    await renamed.getByTestId('protocol-error').waitFor();
    expect(await renamed.getByTestId('protocol-error').textContent()).toBe(
      'protocols/ort-tiny-xenc-wasm.json: id: is "qwen3-0.6b-q4-wasm", but the file is named for protocol "ort-tiny-xenc-wasm" (a protocol\'s id is its file name)',
    );
    await renamed.close();
  });

  it('stores each receipt compressed; a stored record it cannot read back is named on the page with what to do, left as stored, the rest still export, and deleting the session deletes it too', async () => {
    const page = await openProtocol(env);
    // One run of its own (the profile may also hold the first test's session).
    await step(page);
    /** The raw records of the session store, as IndexedDB holds them. */
    const rawRecords = () =>
      page.evaluate(
        () =>
          new Promise<Array<{ key: number; gzip: string | null; data: boolean }>>((resolve, reject) => {
            const open = indexedDB.open('drb-session');
            open.onerror = () => reject(open.error);
            open.onsuccess = () => {
              const store = open.result.transaction('items').objectStore('items');
              const [values, keys] = [store.getAll(), store.getAllKeys()];
              keys.onsuccess = () => {
                resolve(
                  (values.result as Array<{ gzip?: unknown; data?: unknown }>).map((v, i) => ({
                    key: keys.result[i] as number,
                    gzip: v.gzip instanceof Uint8Array ? 'bytes' : v.gzip === undefined ? null : typeof v.gzip,
                    data: 'data' in v,
                  })),
                );
                open.result.close();
              };
            };
          }),
      );
    const stored = await rawRecords();
    expect(stored.length).toBeGreaterThanOrEqual(1);
    for (const record of stored) expect(record).toMatchObject({ gzip: 'bytes', data: false });
    const receipts = await page.evaluate(() => window.drbSession!.receipts);
    // A damaged record (bytes that are not gzip), as a storage fault would leave it.
    const key = await page.evaluate(
      () =>
        new Promise<number>((resolve, reject) => {
          const open = indexedDB.open('drb-session');
          open.onsuccess = () => {
            const add = open.result
              .transaction('items', 'readwrite')
              .objectStore('items')
              .add({ kind: 'receipt', saved_at: new Date().toISOString(), gzip: new Uint8Array([1, 2, 3, 4]) });
            add.onsuccess = () => {
              resolve(add.result as number);
              open.result.close();
            };
            add.onerror = () => reject(add.error);
          };
        }),
    );
    await page.reload();
    await waitForPage(page, () => document.documentElement.dataset.drbSession === 'ready');
    const alert = page.getByTestId('stored-unreadable');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(
      new RegExp(
        `^1 item stored on this device could not be read back, so no export includes it; it is left as stored:stored item ${key}: gzip does not decompress \\(not gzip, or cut short\\)What to do: `,
      ),
    );
    // What the tester can do about it, with the buttons of this view.
    expect(await page.getByTestId('stored-unreadable-next').textContent()).toBe(
      'What to do: export the bundle first (it holds every item that could be read) and send the line above with it. "Delete the stored session" then deletes this item too.',
    );
    await noOverflowAt375(page);
    expect(await page.evaluate(() => window.drbSession!.receipts)).toEqual(receipts);
    expect((await page.evaluate(() => window.drbExportBundle!())).receipts).toEqual(receipts);
    expect((await rawRecords()).map((r) => r.key)).toEqual([...stored.map((r) => r.key), key]);
    // Deleting the stored session deletes the unreadable record too, says so before, and the notice goes with it.
    await page.getByTestId('delete-session').click();
    expect(await page.getByTestId('delete-confirm').textContent()).toBe(
      `Delete ${receipts.length} receipt(s) and 1 unreadable item(s) from this device`,
    );
    await page.getByTestId('delete-confirm').click();
    await page.getByTestId('export-note').filter({ hasText: 'The stored session was deleted.' }).waitFor();
    expect(await alert.count()).toBe(0);
    expect(await rawRecords()).toEqual([]);
    await page.close();
  });
});
