/**
 * The device's state in both lanes, as the page records it in protocol mode and in comparisons:
 * - Chromium (the Compute Pressure API exists): a protocol run of a cold and two warm receipts records the declared
 *   cooldown before each (the shipped fixture protocol's 300 ms pause; the warm receipts come right after another
 *   run, so each waited) and the CPU pressure observed around each run, with the states Chromium reported to the
 *   focused page; the drift probe is timed in the worker before the first warm run and after each; a
 *   `drb compare --url` run records pressure observed too.
 * - WebKitGTK (no PressureObserver): pressure is `not available` with the reason, and the drift probe is still
 *   recorded, in protocol mode and in a comparison run with `drb compare --url --browser webkit`.
 * Every receipt validates as `drb receipts validate` sees it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import type { ComparisonReceipt } from '../../src/core/comparison/comparison-receipt.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import type { BrowserLane, LaneName, LanePage } from '../../src/node/browser-lane.ts';
import type { StaticServer } from '../../src/node/static-server.ts';
import { runCli } from '../unit/cli-harness.ts';
import { testTempDir } from '../temp-dir.ts';
import { LANES, openTestLane, serveBuild, validationProblems } from './lane-checks.ts';
import { startPageEnv, type PageEnv } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

const PROTOCOL = 'ort-tiny-xenc-wasm';
const PROTOCOL_FILE = JSON.parse(
  readFileSync(new URL(`../../public/protocols/${PROTOCOL}.json`, import.meta.url), 'utf8'),
);

describe.each(LANES)('%s lane: the device state', (laneName: LaneName) => {
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

  async function step(page: LanePage, testId: string, before: number): Promise<DeviceReceipt> {
    await page.click(`[data-testid="${testId}"]`);
    return page.waitFor<DeviceReceipt>(
      `const r = window.drbSession?.receipts ?? []; return r.length > ${before} && document.documentElement.dataset.drbState !== 'running' ? r.at(-1) : null;`,
      { timeoutMs: 150_000, description: `the receipt of ${testId}` },
    );
  }

  it('a protocol run records its cooldowns, the CPU pressure (or that it is not available) and the drift probe', async () => {
    const page = await lane.newPage();
    try {
      await page.goto(`${server.url}?${toSearchParams({ mode: 'protocol', protocol: PROTOCOL })}`);
      await page.waitFor<boolean>(
        `return document.documentElement.dataset.drbSession === 'ready' && document.querySelector('[data-testid="protocol-next"]') !== null;`,
        {
          timeoutMs: 60_000,
          description: 'the stored session and the protocol loaded',
        },
      );
      const cold = await step(page, 'protocol-next', 0);
      // A warm run: the big button once it offers one, else the other step's link.
      const warmButton = async () =>
        (
          await page.evaluate<string>(`return document.querySelector('[data-testid="protocol-next"]').textContent;`)
        ).startsWith('Warm')
          ? 'protocol-next'
          : 'protocol-other';
      const warm1 = await step(page, await warmButton(), 1);
      const warm2 = await step(page, await warmButton(), 2);
      expect([cold, warm1, warm2].map((r) => r.run.kind)).toEqual(['cold', 'warm', 'warm']);
      for (const receipt of [cold, warm1, warm2]) {
        expect(validationProblems(receipt)).toEqual([]);
        expect(receipt.outcome.status).toBe('ok');
        const state = receipt.device_state!;
        expect(state.cooldown!.rule).toEqual(PROTOCOL_FILE.cooldown);
        if (laneName === 'chromium') {
          expect(state.pressure.status).toBe('observed');
          expect(state.pressure.reason).toBeNull();
        } else {
          expect(state.pressure).toEqual({
            status: 'not-available',
            source: 'cpu',
            reason: 'this browser has no PressureObserver (Compute Pressure API)',
            before: null,
            changes: [],
            after: null,
          });
        }
        expect(state.drift_probe.max_slowdown).toBe(PROTOCOL_FILE.drift_max_slowdown);
      }
      // The first run of the page had nothing to cool down from; each warm run came right after another.
      expect(cold.device_state!.cooldown!.since_previous_ms).toBeNull();
      for (const warm of [warm1, warm2]) {
        const c = warm.device_state!.cooldown!;
        expect(c.since_previous_ms).not.toBeNull();
        expect(c.since_previous_ms! + c.waited_ms).toBeGreaterThanOrEqual(PROTOCOL_FILE.cooldown.min_pause_ms - 1);
        expect(c.ended).toBe('pause');
        expect(warm.device_state!.drift_probe).toMatchObject({ context: 'worker', placement: 'between-warm-runs' });
        expect(warm.device_state!.drift_probe.samples_ms).toHaveLength(warm.timings.warm_samples_ms.length + 1);
        expect(warm.device_state!.drift_probe.trend).not.toBeNull();
      }
      expect(cold.device_state!.drift_probe).toMatchObject({ context: 'worker', placement: 'around-run' });
      expect(cold.device_state!.drift_probe.samples_ms).toHaveLength(2);
      expect(
        await page.evaluate<string>(
          `return document.querySelector('[data-testid="protocol-device-state"]').textContent;`,
        ),
      ).toMatch(
        laneName === 'chromium'
          ? /^Device: pressure /
          : /^Device: pressure not available \(this browser has no PressureObserver/,
      );
    } finally {
      await page.close();
    }
  });

  it('a comparison run from the command line records the pressure (or that it is not available) and the drift probe', async () => {
    const out = testTempDir(`drb-device-state-${laneName}-`);
    const run = await runCli([
      'compare',
      '--url',
      server.url,
      '--browser',
      laneName,
      '--model',
      'ort-tiny-xenc',
      '--routes',
      'wasm-1,wasm-1-b',
      '--stop',
      'fixed',
      '--rounds',
      '6',
      '--output-dir',
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const [file] = readdirSync(out);
    const receipt = JSON.parse(readFileSync(join(out, file), 'utf8')) as ComparisonReceipt;
    expect(validationProblems(receipt)).toEqual([]);
    const state = receipt.device_state!;
    expect(state.pressure.status).toBe(laneName === 'chromium' ? 'observed' : 'not-available');
    expect(state.drift_probe.samples_ms).toHaveLength(7);
    expect(run.stdout).toMatch(
      laneName === 'chromium'
        ? /\n {2}device: pressure /
        : /\n {2}device: pressure not available \(this browser has no PressureObserver/,
    );
    expect(run.stdout).toMatch(/\n {2}stopping: ran the fixed 6 rounds/);
  });
});

describe('Chromium, a focused page: the pressure states themselves', () => {
  let env: PageEnv;
  beforeAll(async () => {
    env = await startPageEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('a protocol run records the CPU pressure state each run started in, every change, and its cooldowns', async () => {
    const page = await env.browser.context.newPage();
    // The CPU's pressure set through DevTools' emulation, so reports come when the test needs them: on a loaded
    // machine Chromium's own sampling may not report within the page's 2.5 s wait (the receipt then honestly says
    // no state before the run, which is not what this test is about). The state changes to `fair` after the first
    // run, which the next receipts record.
    const cdp = await env.browser.context.newCDPSession(page);
    await cdp.send('Emulation.setPressureSourceOverrideEnabled', { enabled: true, source: 'cpu' });
    await cdp.send('Emulation.setPressureStateOverride', { source: 'cpu', state: 'nominal' });
    await page.goto(`${env.server.url}?${toSearchParams({ mode: 'protocol', protocol: PROTOCOL })}`);
    // Chromium reports pressure to a page that is visible and focused (Compute Pressure's privacy rule).
    await page.bringToFront();
    await waitForPage(page, () => document.documentElement.dataset.drbSession === 'ready');
    const receipts: DeviceReceipt[] = [];
    for (let i = 0; i < 3; i++) {
      const label = await page.getByTestId('protocol-next').textContent();
      await page.getByTestId(i === 0 || label!.startsWith('Warm') ? 'protocol-next' : 'protocol-other').click();
      await waitForPage(
        page,
        (n) => (window.drbSession?.receipts.length ?? 0) > n && document.documentElement.dataset.drbState !== 'running',
        i,
        { timeout: 120_000 },
      );
      receipts.push((await page.evaluate(() => window.drbSession!.receipts.at(-1))) as DeviceReceipt);
      if (i === 0) {
        await cdp.send('Emulation.setPressureStateOverride', { source: 'cpu', state: 'fair' });
        // Reports come on each observer's own sampling tick, once a second: wait until an observer of the test's
        // own sees the new state, then two seconds more for the page's monitor's tick, so the next run starts in it.
        await page.evaluate(
          () =>
            new Promise<void>((resolve, reject) => {
              const timer = setTimeout(() => reject(new Error('no fair pressure report within 10 s')), 10_000);
              const observer = new (window as unknown as { PressureObserver: any }).PressureObserver(
                (records: Array<{ state: string }>) => {
                  if (records.some((r) => r.state === 'fair')) {
                    clearTimeout(timer);
                    observer.disconnect();
                    resolve();
                  }
                },
              );
              observer.observe('cpu').catch(reject);
            }),
        );
        await page.waitForTimeout(2000);
      }
    }
    expect(receipts.map((r) => r.run.kind)).toEqual(['cold', 'warm', 'warm']);
    for (const receipt of receipts) {
      expect(validationProblems(receipt)).toEqual([]);
      const { pressure, cooldown } = receipt.device_state!;
      // The state its run started in (the page waits for a first report), and the record runs on from there.
      expect(pressure.status).toBe('observed');
      expect(pressure.before).toMatch(/^(nominal|fair|serious|critical)$/);
      expect(pressure.after).toBe(pressure.changes.at(-1)?.state ?? pressure.before);
      expect(cooldown!.rule).toEqual(PROTOCOL_FILE.cooldown);
    }
    expect(receipts[0].device_state!.pressure.before).toBe('nominal');
    // The change came between the runs: the next runs start in it.
    expect(receipts.slice(1).map((r) => r.device_state!.pressure.before)).toEqual(['fair', 'fair']);
    expect(receipts.slice(1).map((r) => r.device_state!.pressure.after)).toEqual(['fair', 'fair']);
    expect(receipts[1].device_state!.cooldown!.since_previous_ms).not.toBeNull();
    expect(await page.getByTestId('protocol-device-state').textContent()).toMatch(
      /^Device: pressure (nominal|fair|serious|critical)/,
    );
    await page.close();
  });
});
