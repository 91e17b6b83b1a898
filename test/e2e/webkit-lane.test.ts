/**
 * The WebKit lane: the same page checks run in Chromium (playwright-core) and in WebKitGTK (WebKitWebDriver under
 * xvfb-run), through one lane interface: page load, capability probe, ORT on wasm cold and warm with 1 and 2
 * threads, receipts valid as `drb receipts validate` sees them and free of a secret planted in the URL, the WebGPU
 * route refused (or fallen back) clearly, a crashed worker ending the run failed (then a click runs again), and both
 * engines computing the same outputs; in WebKit also protocol mode (a stored receipt back after a reload, the exported
 * bundle valid). WebKit differences (no navigator.gpu, no memory APIs, hidden
 * SharedArrayBuffer) are checked as the page records them, not skipped.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { ReceiptBundle } from '../../src/core/field/receipt-bundle.ts';
import type { BrowserLane, LaneName } from '../../src/node/browser-lane.ts';
import type { StaticServer } from '../../src/node/static-server.ts';
import { runCli } from '../unit/cli-harness.ts';
import { LANES, openTestLane, pageReceipts, serveBuild, validationProblems, waitForEnd } from './lane-checks.ts';
import { testTempDir } from '../temp-dir.ts';

const MODEL = 'ort-tiny-xenc';
/** Output heads per lane and thread count, for the cross-engine agreement check. */
const heads = new Map<string, number[]>();

async function runOnPage(lane: BrowserLane, server: StaticServer, query: string) {
  const page = await lane.newPage();
  try {
    await page.goto(`${server.url}?${query}`);
    const state = await waitForEnd(page);
    const receipts = await pageReceipts(page);
    const paramErrors = await page.evaluate<string[]>(
      `return [...document.querySelectorAll('[data-testid="param-error"]')].map((n) => n.textContent);`,
    );
    return { state, receipts, paramErrors };
  } finally {
    await page.close();
  }
}

function expectValid(receipts: DeviceReceipt[]) {
  for (const receipt of receipts) expect(validationProblems(receipt), `${receipt.run.kind} receipt`).toEqual([]);
}

describe.each(LANES)('%s lane: the same page checks', (laneName: LaneName) => {
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

  it('loads the page: idle, cross-origin isolated, reports its revision', async () => {
    const page = await lane.newPage();
    try {
      await page.goto(server.url);
      const state = await page.waitFor<string>(
        `return document.documentElement.dataset.drbState === 'idle' ? 'idle' : null;`,
        {
          timeoutMs: 30_000,
          description: 'data-drb-state idle',
        },
      );
      expect(state).toBe('idle');
      const facts = await page.evaluate<{
        coi: boolean;
        app: { version: string; commit: string | null };
        receipts: number;
      }>('return { coi: crossOriginIsolated, app: window.drbApp, receipts: window.drbReceipts.length };');
      expect(facts.coi).toBe(true);
      expect(facts.app.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(facts.app.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(facts.receipts).toBe(0);
    } finally {
      await page.close();
    }
  });

  it.each([1, 2])(
    'ORT on wasm with %i thread(s): cold then warm, valid receipts, capability probe as the engine has it',
    async (threads) => {
      // A secret in the query and the fragment (unknown parameters are ignored) must never reach a receipt.
      const query = `${toSearchParams({ autorun: ['cold', 'warm'], model: MODEL, ep: 'wasm', threads, warmRuns: 5 })}&token=SECRET-IN-QUERY#SECRET-IN-FRAGMENT`;
      const { state, receipts, paramErrors } = await runOnPage(lane, server, query);
      expect(paramErrors).toEqual([]);
      expect(JSON.stringify(receipts)).not.toMatch(/SECRET-IN-/);
      expect(receipts[0].app.page_url).toBe(server.url);
      expect(state).toBe('done');
      expect(receipts.map((r) => r.run.kind)).toEqual(['cold', 'warm']);
      expectValid(receipts);
      const [cold, warm] = receipts;
      for (const r of receipts) {
        expect(r.outcome).toEqual({ status: 'ok', reason: null, failed_stage: null });
        expect(r.route).toMatchObject({
          requested_ep: 'wasm',
          completed_ep: 'wasm',
          fallback_reason: null,
          threads_requested: threads,
          threads_effective: threads,
        });
        expect(r.model).toMatchObject({ id: MODEL, integrity: 'verified' });
        expect(r.errors).toEqual([]);
      }
      expect(cold.run.inferences_completed).toBe(1);
      expect(warm.timings.warm_samples_ms).toHaveLength(5);
      expect(cold.output?.sha256).toBe(warm.output?.sha256);

      const caps = cold.capabilities;
      expect(caps.cross_origin_isolated).toBe(true);
      expect(caps.shared_array_buffer).toBe(true);
      expect(caps.wasm).toEqual({ supported: true, simd: true, threads: true });
      if (laneName === 'webkit') {
        // What Safari-like engines expose: no WebGPU object, no memory API of any kind, no UA client hints.
        expect(caps.user_agent).toMatch(/AppleWebKit\/\d+.* Safari\//);
        expect(caps.user_agent).not.toMatch(/Chrome|HeadlessChrome/);
        expect(caps.webgpu).toMatchObject({ navigator_gpu: false, adapter_granted: false, adapter_info: null });
        expect(caps.js_heap).toBeNull();
        expect(caps.device_memory_gb).toBeNull();
        expect(caps.ua_client_hints).toBeNull();
      } else {
        expect(caps.js_heap).not.toBeNull();
        expect(caps.ua_client_hints).not.toBeNull();
      }
      heads.set(`${laneName}:${threads}`, cold.output!.head);
    },
  );

  it('WebGPU requested: refused with a clear reason, and recorded as a fallback only when allowed', async () => {
    const refused = await runOnPage(
      lane,
      server,
      `${toSearchParams({ autorun: ['cold'], model: MODEL, ep: 'webgpu' })}`,
    );
    expect(refused.state).toBe('failed');
    expect(refused.receipts).toHaveLength(1);
    const [failed] = refused.receipts;
    expectValid(refused.receipts);
    expect(failed.outcome.status).toBe('failed');
    expect(failed.outcome.reason).toMatch(/^WebGPU is not available: .*fallback to wasm not allowed/);
    expect(failed.route).toMatchObject({ requested_ep: 'webgpu', completed_ep: null, fallback_reason: null });
    expect(failed.route.attempts.map((a) => [a.ep, a.outcome])).toEqual([['webgpu', 'failed']]);
    // A route that cannot run here fails before any download: no model file, no runtime build, the session stage.
    expect(failed.outcome.failed_stage).toBe('session');
    expect(failed.model.files).toEqual([]);
    expect(failed.runtime.files).toEqual([]);
    expect(failed.runtime.build ?? null).toBeNull();
    expect(failed.resources.filter((r) => /\.(onnx|wasm)$/.test(r.url))).toEqual([]);

    const allowed = await runOnPage(
      lane,
      server,
      `${toSearchParams({ autorun: ['cold'], model: MODEL, ep: 'webgpu', allowFallback: true })}`,
    );
    expect(allowed.state).toBe('done');
    expectValid(allowed.receipts);
    const [fallback] = allowed.receipts;
    expect(fallback.outcome.status).toBe('ok');
    expect(fallback.route).toMatchObject({ requested_ep: 'webgpu', completed_ep: 'wasm', allow_fallback: true });
    expect(fallback.route.fallback_reason).toMatch(/^WebGPU is not available: /);
    expect(fallback.route.attempts.map((a) => [a.ep, a.outcome])).toEqual([
      ['webgpu', 'failed'],
      ['wasm', 'succeeded'],
    ]);
    // Where only its wasm fallback can run (no adapter, fallback allowed) a webgpu route loads the plain build a wasm
    // route loads (on a Safari without WebGPU, 14 MB instead of the asyncify build's 27).
    expect(fallback.runtime.build).toBe('plain');
    expect(fallback.runtime.files.find((f) => f.url.endsWith('.wasm'))?.url).toMatch(
      /\/ort-wasm-simd-threaded-[\w-]+\.wasm$/,
    );
  });

  it('a crashed worker ends the run failed with the reason, and the page runs again from its button', async () => {
    const page = await lane.newPage();
    try {
      await page.goto(
        `${server.url}?${toSearchParams({ testHooks: true, autorun: ['warm'], model: 'ort-heavy-xenc', ep: 'wasm', threads: 1, warmRuns: 1000 })}`,
      );
      await page.waitFor<boolean>(
        `return JSON.parse(localStorage.getItem('drb.run-journal') ?? 'null')?.active?.some((e) => e.stage === 'warm_inference') ?? false;`,
        {
          timeoutMs: 90_000,
          description: 'the warm series to start',
        },
      );
      await page.evaluate('return window.drbTest.crashWorker(0);');
      expect(await waitForEnd(page)).toBe('failed');
      const [crashed] = await pageReceipts(page);
      expect(validationProblems(crashed)).toEqual([]);
      expect(crashed.outcome).toMatchObject({ status: 'failed', failed_stage: 'warm_inference' });
      expect(crashed.outcome.reason).toMatch(/^worker crashed during warm_inference: .*deliberate worker crash/);
      // A click on the page's own button (WebDriver element click in WebKit) runs again on a fresh worker.
      await page.click('[data-testid="run-cold"]');
      const receipts = await page.waitFor<DeviceReceipt[]>(
        'return window.drbReceipts.length === 2 ? window.drbReceipts : null;',
        {
          timeoutMs: 90_000,
          description: 'the second receipt',
        },
      );
      expect(validationProblems(receipts[1])).toEqual([]);
      expect(receipts[1].outcome.status).toBe('ok');
    } finally {
      await page.close();
    }
  });

  // The tester's protocol flow where Safari's engine runs it (Chromium's is test/e2e/protocol-mode.test.ts): the receipt
  // is stored before it is shown and comes back after a reload; the export button's bundle validates as a file.
  // Registered in the WebKit lane only (not skipped in Chromium: there it is protocol-mode.test.ts's job).
  if (laneName === 'webkit')
    it('protocol mode: receipts stored on the device survive a reload, and the exported bundle validates', async () => {
      const page = await lane.newPage();
      const dir = testTempDir('drb-webkit-protocol-');
      try {
        const open = async () => {
          await page.waitFor<boolean>(
            `return document.documentElement.dataset.drbSession === 'ready' && document.querySelector('[data-testid="protocol-next"]') !== null;`,
            {
              timeoutMs: 60_000,
              description: 'the stored session and the protocol loaded',
            },
          );
        };
        const step = async (testId: string, before: number) => {
          await page.click(`[data-testid="${testId}"]`);
          return page.waitFor<DeviceReceipt>(
            `const r = window.drbSession?.receipts ?? []; return r.length > ${before} && document.documentElement.dataset.drbState !== 'running' ? r.at(-1) : null;`,
            { timeoutMs: 150_000, description: `the receipt of ${testId}` },
          );
        };
        await page.goto(`${server.url}?${toSearchParams({ mode: 'protocol', protocol: 'ort-tiny-xenc-wasm' })}`);
        await open();
        expect(await page.evaluate<number>('return window.drbSession.receipts.length;')).toBe(0);
        const cold = await step('protocol-next', 0);
        expect(validationProblems(cold)).toEqual([]);
        expect(cold.run.kind).toBe('cold');
        expect(cold.outcome.status).toBe('ok');
        // WebKit's workers give no resource sizes; a cold run takes the runtime under a URL unique to the run (in every
        // browser): the receipt can still say where every byte came from.
        expect(cold.run.cold_from_cache).toBe(false);
        expect([...cold.model.files, ...cold.runtime.files].every((f) => f.cache_state === 'network')).toBe(true);

        await page.reload();
        await open();
        expect(await page.evaluate<DeviceReceipt[]>('return window.drbSession.receipts;')).toEqual([cold]);
        const warm = await step('protocol-other', 1);
        expect(validationProblems(warm)).toEqual([]);
        expect(warm.run.kind).toBe('warm');
        // Neither tap was made before the cold run (the browser restart, the site data clear): network-cold, not counted.
        expect(
          await page.evaluate<string>(
            `return document.querySelector('[data-testid="protocol-progress"]').textContent;`,
          ),
        ).toBe('cold 0 of 5 receipts, warm 1 of 20 receipts; not counted: 1 cold not a full protocol cold');

        // Export through the page's own button; the download link's Blob is read where WebDriver cannot save files.
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
        const canShare = await page.evaluate<boolean>(
          `return document.querySelector('[data-testid="export-download"]') !== null;`,
        );
        await page.click(`[data-testid="${canShare ? 'export-download' : 'export-share'}"]`);
        const captured = await page.waitFor<{ name: string; text: string }>('return window.drbCaptured;', {
          timeoutMs: 30_000,
          description: 'the exported bundle',
        });
        expect(captured.name).toMatch(/^drb-ort-tiny-xenc-wasm-1-bundle-\d{8}T\d{6}Z\.json$/);
        const bundle = ReceiptBundle.parse(JSON.parse(captured.text));
        expect(bundle.receipts).toEqual([cold, warm]);
        expect(bundle.protocol?.id).toBe('ort-tiny-xenc-wasm');
        expect(
          await page.evaluate<string>(
            `return document.querySelector('[data-testid="export-note"]')?.textContent ?? '';`,
          ),
        ).toContain(captured.name);
        const file = join(dir, captured.name);
        writeFileSync(file, captured.text);
        expect(await runCli(['receipts', 'validate', file])).toMatchObject({
          code: 0,
          stdout: 'ok: 2 receipt(s) valid, and 1 other drb artifact(s) valid by their own schema\n',
        });
      } finally {
        await page.close();
      }
    });
});

describe('WebKit and Chromium agree', () => {
  it('the same model and input give the same outputs in both engines (within 1e-4)', () => {
    const reference = heads.get('chromium:1');
    expect(reference).toBeDefined();
    for (const key of ['chromium:2', 'webkit:1', 'webkit:2']) {
      const head = heads.get(key);
      expect(head, key).toHaveLength(reference!.length);
      head!.forEach((value, i) => expect(Math.abs(value - reference![i]), `${key}[${i}]`).toBeLessThanOrEqual(1e-4));
    }
  });
});

describe('WebKit without JSC_useSharedArrayBuffer', () => {
  let server: StaticServer;
  let lane: BrowserLane;
  beforeAll(async () => {
    server = await serveBuild();
    lane = await openTestLane('webkit', { sharedArrayBuffer: false });
  });
  afterAll(async () => {
    await lane?.close();
    await server?.close();
  });

  it('runs on one thread, says so, and says why (SharedArrayBuffer hidden although cross-origin isolated)', async () => {
    const { state, receipts } = await runOnPage(
      lane,
      server,
      `${toSearchParams({ autorun: ['cold', 'warm'], model: MODEL, ep: 'wasm', threads: 2, warmRuns: 3 })}`,
    );
    expect(state).toBe('done');
    expectValid(receipts);
    for (const r of receipts) {
      expect(r.outcome.status).toBe('ok');
      expect(r.capabilities).toMatchObject({ cross_origin_isolated: true, shared_array_buffer: false });
      expect(r.route).toMatchObject({ threads_requested: 2, threads_effective: 1 });
      expect(r.errors).toEqual([
        {
          stage: 'session',
          name: 'ThreadsLimited',
          message:
            'WASM threads limited to 1 (2 requested): this browser hides SharedArrayBuffer although the page is cross-origin isolated',
        },
      ]);
    }
  });
});
