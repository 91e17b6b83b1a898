/**
 * The field kit in WebKitGTK (the Safari proxy) with a fresh profile for every cold run, as clearing Safari's website
 * data leaves it: the stored receipts are gone each time. After each cold run the page's one tap hands off every
 * receipt not yet handed off (a download here, read from the page where WebDriver cannot save files); the next
 * browser takes those files back through the file picker (W3C element send keys), so the tally goes on ("cold 3 of
 * 5" survives the clear) and the sheet typed once comes back with them. The files give one tally of 5 full protocol
 * colds and 20 warm receipts, the page and `summarize` agree on it, and one review with the sheet typed once reaches
 * DEVICE_PASS.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { ReceiptBundle } from '../../src/core/field/receipt-bundle.ts';
import { DeviceReview } from '../../src/core/evidence/device-review.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import type { BrowserLane, LanePage } from '../../src/node/browser-lane.ts';
import type { StaticServer } from '../../src/node/static-server.ts';
import { runCli } from '../unit/cli-harness.ts';
import { openTestLane, serveBuild, validationProblems } from './lane-checks.ts';
import { testTempDir } from '../temp-dir.ts';

const URL_QUERY = `?${toSearchParams({ mode: 'protocol', protocol: 'ort-tiny-xenc-wasm' })}`;

const SHEET: Record<string, string> = {
  device_model: 'iPhone 15 (A3090)',
  ram_gb: '6',
  os_build: 'iOS 26.1 (23B85)',
  browser: 'Safari',
  browser_version: '26.1',
  network: 'Wi-Fi 5 GHz',
  battery_percent: '80',
  charging: 'false',
  thermal_state: 'nominal',
};

/** Waits for the stored session and the protocol card. */
async function ready(page: LanePage): Promise<void> {
  await page.waitFor<boolean>(
    `return document.documentElement.dataset.drbSession === 'ready' && document.querySelector('[data-testid="protocol-card"]') !== null;`,
    {
      timeoutMs: 60_000,
      description: 'the stored session and the protocol loaded',
    },
  );
}

/** Clicks a run button and returns the receipt it stored. */
async function step(page: LanePage, testId: string): Promise<DeviceReceipt> {
  const before = await page.evaluate<number>('return window.drbSession.receipts.length;');
  await page.click(`[data-testid="${testId}"]`);
  const receipt = await page.waitFor<DeviceReceipt>(
    `const r = window.drbSession?.receipts ?? []; return r.length > ${before} && document.documentElement.dataset.drbState !== 'running' ? r.at(-1) : null;`,
    { timeoutMs: 150_000, description: `the receipt of ${testId}` },
  );
  expect(validationProblems(receipt)).toEqual([]);
  return receipt;
}

/** The counts protocol mode shows. */
function pageCounts(page: LanePage): Promise<Record<string, number>> {
  return page.evaluate(
    `const el = document.querySelector('[data-testid="protocol-progress"]'); return Object.fromEntries(Object.entries(el.dataset).filter(([k]) => k !== 'testid').map(([k, v]) => [k, Number(v)]));`,
  );
}

/** Catches the next file the page hands over as a download (its Blob read in the page) and writes it into `dir`. */
async function handOver(page: LanePage, testId: string, dir: string): Promise<string> {
  await page.evaluate(`
    window.drbCaptured = null;
    const blobs = new Map();
    const createObjectURL = URL.createObjectURL;
    URL.createObjectURL = (blob) => { const url = createObjectURL.call(URL, blob); blobs.set(url, blob); return url; };
    const click = HTMLAnchorElement.prototype.click;
    HTMLAnchorElement.prototype.click = function () {
      if (!this.download || !blobs.has(this.href)) return click.call(this);
      const name = this.download;
      blobs.get(this.href).text().then((text) => { window.drbCaptured = { name, text }; });
    };
    return true;`);
  await page.click(`[data-testid="${testId}"]`);
  const captured = await page.waitFor<{ name: string; text: string }>('return window.drbCaptured;', {
    timeoutMs: 30_000,
    description: 'the handed-off file',
  });
  const file = join(dir, captured.name.replace(/\.json$/, `-${Date.now()}.json`));
  writeFileSync(file, captured.text);
  return file;
}

describe('the field kit in WebKitGTK, a fresh profile for every cold run', () => {
  let lane: BrowserLane;
  let server: StaticServer;
  beforeAll(async () => {
    lane = await openTestLane('webkit');
    server = await serveBuild();
  });
  afterAll(async () => {
    await lane?.close();
    await server?.close();
  });

  it('hands the files off after each cold run and takes them back into the next browser: one tally of 5 cold and 20 warm, one review with the sheet typed once', async () => {
    const dir = testTempDir('drb-field-webkit-');
    const files: string[] = [];
    let lastCounts: Record<string, number> = {};
    for (let cold = 1; cold <= 5; cold++) {
      const page = await lane.newPage();
      try {
        await page.goto(`${server.url}${URL_QUERY}`);
        await ready(page);
        if (cold === 1) {
          // The sheet, typed once, with the page revision the tester reads off the deployed page (the review checks it
          // against the receipts' own commit, and never takes it from them). The sheet renders a frame after the
          // session is ready, which a loaded machine makes visible: wait for its fields first.
          await page.waitFor<boolean>(
            `return ${JSON.stringify(Object.keys(SHEET))}.every((key) => document.querySelector('[data-testid="sheet-' + key + '"]') !== null);`,
            { timeoutMs: 30_000, description: 'the session sheet' },
          );
          await page.evaluate(
            `for (const [key, value] of Object.entries({ ...args[0], public_revision: window.drbApp.commit ?? 'unknown' })) {
              const el = document.querySelector('[data-testid="sheet-' + key + '"]');
              Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value').set.call(el, value);
              el.dispatchEvent(new Event(el.tagName === 'SELECT' ? 'change' : 'input', { bubbles: true }));
            }
            return true;`,
            SHEET,
          );
        } else {
          // A new profile: nothing stored, as after clearing Safari's website data; the handed-off files come back.
          expect(await page.evaluate<number>('return window.drbSession.receipts.length;')).toBe(0);
          expect(
            await page.evaluate<boolean>(`return document.querySelector('[data-testid="take-back-hint"]') !== null;`),
          ).toBe(true);
          await page.setInputFiles('[data-testid="take-back"]', files);
          const note = await page.waitFor<string>(
            `return document.querySelector('[data-testid="take-back-note"]')?.textContent ?? null;`,
            {
              timeoutMs: 30_000,
              description: 'the files taken back',
            },
          );
          expect(note).toMatch(/^Took back \d+ receipt\(s\) from \d+ file\(s\)/);
          const counts = await pageCounts(page);
          expect({ cold: counts.cold, warm: counts.warm }).toEqual({ cold: cold - 1, warm: 20 });
          expect(
            await page.evaluate<string>(
              `return document.querySelector('[data-testid="protocol-progress"]').textContent;`,
            ),
          ).toBe(`cold ${cold - 1} of 5 receipts, warm 20 of 20 receipts`);
          // The sheet came back with the files: typed once.
          expect(
            await page.evaluate<string>(`return document.querySelector('[data-testid="sheet-device_model"]').value;`),
          ).toBe(SHEET.device_model);
        }
        await page.click('[data-testid="attest-site-data-cleared"]');
        await page.click('[data-testid="attest-browser-restarted"]');
        const receipt = await step(page, 'protocol-next');
        expect(receipt.run.kind).toBe('cold');
        expect(receipt.run.cold_from_cache).toBe(false);
        expect(receipt.runtime.fetch_method).toBe('per-run-url');
        // WebKit shows no sizes for a worker's fetches: the unique URL is the proof, and the note says so.
        expect(
          receipt.runtime.files.every(
            (f) => f.cache_state === 'network' && f.cache_note?.includes('a URL unique to this cold run'),
          ),
        ).toBe(true);
        expect(receipt.run.cold_start).toMatchObject({
          navigation_type: 'navigate',
          restored_from_bfcache: false,
          first_navigation_of_tab: true,
          runs_before_in_page: 0,
        });
        expect(
          await page.evaluate<string | null>(
            `return document.querySelector('[data-testid="last-outcome"]').getAttribute('data-counted');`,
          ),
        ).toBe('yes');
        if (cold === 1)
          for (let warm = 1; warm <= 20; warm++) expect((await step(page, 'protocol-next')).run.kind).toBe('warm');
        if (cold < 5) {
          files.push(await handOver(page, 'hand-off', dir));
          expect(
            await page.evaluate<boolean>(`return document.querySelector('[data-testid="hand-off-done"]') !== null;`),
          ).toBe(true);
        } else {
          await page.click('[data-testid="memory-none"]');
          await page.waitFor<boolean>(
            `return document.querySelector('[data-testid="memory-none"]').getAttribute('aria-pressed') === 'true';`,
            { timeoutMs: 10_000, description: 'the memory answer' },
          );
          files.push(await handOver(page, 'hand-off', dir));
          lastCounts = await pageCounts(page);
        }
      } finally {
        await page.close();
      }
    }
    expect(lastCounts).toMatchObject({ cold: 5, warm: 20 });
    // Each hand-off carried only what was not handed off before (receipts taken back count as handed off): each receipt
    // is in exactly one file.
    const bundles = files.map((f) => ReceiptBundle.parse(JSON.parse(readFileSync(f, 'utf8'))));
    expect(bundles.map((b) => b.receipts.length)).toEqual([21, 1, 1, 1, 1]);
    expect(bundles.at(-1)!.attestations?.map((x) => x.claim)).toEqual(['no-memory-pressure-seen']);
    for (const b of bundles) expect(b.sheet.device_model).toBe(SHEET.device_model);

    const out = join(dir, 'summary');
    expect((await runCli(['receipts', 'summarize', ...files, '--out', out])).code).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    expect(summary.targets).toHaveLength(1);
    const [target] = summary.targets;
    expect(target.counts).toMatchObject({
      full_cold: 5,
      clean_warm: 20,
      measured_network_cold: 5,
      measured_fresh_start: 5,
      attested_cold: 5,
    });
    expect({
      cold: target.counts.full_cold,
      coldNetworkOnly: target.counts.clean_cold - target.counts.full_cold,
      coldCache: target.cold_set_aside.served_from_cache.length,
      coldUnknown: target.cold_set_aside.cache_state_unknown.length,
      warm: target.counts.clean_warm,
      failed: target.counts.failed,
      overlapped: target.counts.overlap_set_aside,
      noisy: target.counts.noisy,
      measuredNetwork: target.counts.measured_network_cold,
      measuredFresh: target.counts.measured_fresh_start,
      attested: target.counts.attested_cold,
    }).toEqual(lastCounts);
    const template = await runCli(['receipts', 'review-template', '--summary', join(out, 'summary.json')]);
    expect((JSON.parse(template.stdout) as { device: unknown }).device).toEqual({
      hardware_model: 'iPhone 15 (A3090)',
      ram_gb: 6,
      os_build: 'iOS 26.1 (23B85)',
      browser: 'Safari',
      browser_version: '26.1',
    });
    const review = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out, 'summary.json'),
      '--reviewer',
      'qa-webkit',
      '--profile',
      'entry',
    ]);
    expect(review.stdout.split('\n')[0], review.stdout + review.stderr).toBe(`${target.key}: DEVICE_PASS`);
    const stored = DeviceReview.parse(JSON.parse(readFileSync(join(out, 'reviews', `${target.key}.json`), 'utf8')));
    expect(stored.conditions).toEqual({
      network: 'Wi-Fi 5 GHz',
      battery_percent: 80,
      charging: false,
      thermal_state: 'nominal',
    });
  }, 1_200_000);
});
