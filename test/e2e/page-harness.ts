/**
 * Helpers for page e2e tests: serve the build from global-setup on port 0, open the page in the e2e worker's headless
 * Chromium (shared by the worker's files, each as in a fresh profile: `launchTestChromium`), wait for the automation
 * contract's done/failed signal, and check receipts by schema + invariants.
 */
import { expect, inject } from 'vitest';
import type { Page, Request } from 'playwright-core';
import { toSearchParams, type AutomationSettings } from '../../src/core/automation/automation.ts';
import { checkReceiptInvariants } from '../../src/core/receipt/receipt-invariants.ts';
import { ComparisonReceipt } from '../../src/core/comparison/comparison-receipt.ts';
import { checkComparisonReceipt } from '../../src/core/comparison/comparison-invariants.ts';
import { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { launchChromium, waitForPage, type LaunchedChromium } from '../../src/node/chromium.ts';
import { startStaticServer, type StaticServer } from '../../src/node/static-server.ts';

/**
 * Flags the e2e browsers add to the ones every launch uses (src/node/chromium.ts). `--wasm-tiering-budget` (100 times
 * V8's default of 1,800,000) lets a WebAssembly function run longer on the baseline tier (Liftoff) before V8
 * compiles it again with its optimizing tier. A page that loads onnxruntime-web (a 14 or 27 MB module) for a few
 * short runs otherwise spends seconds of a 2-core machine's CPU on optimizing compiles of functions that ran briefly;
 * a long computation (a generation run's decoding) still reaches the optimizing tier. Measured here, CPU seconds of the
 * whole browser (load average about 12): a comparison page's renderer 21 with V8's default, 13 with this budget, 10.5
 * with `--liftoff-only`; the real-shaped fixtures' cold/warm and generation pages 162 (default), 108 (this), 111
 * (liftoff-only); generate.test.ts 101 (default), 97 (this), 104 (liftoff-only: long decoding is slower on the
 * baseline tier). Both tiers give WebAssembly the same meaning, so what the tests check (outputs, hashes, agreement,
 * states, receipts) is what a user's browser computes; no e2e test asserts a speed. The benchmarks (bench/),
 * `drb public-pass` and every other launch keep V8's own budget. `ForceEagerMeasureMemory` makes
 * `performance.measureUserAgentSpecificMemory()` measure when asked instead of at the next garbage collection (up to
 * about 20 s later, measured 19 s here), so the receipts' memory points resolve within their runs (src/page/ua-memory.ts
 * keeps a point only when it resolved before the run moved on).
 */
export const E2E_CHROMIUM_ARGS: readonly string[] = ['--js-flags=--wasm-tiering-budget=180000000', '--enable-blink-features=ForceEagerMeasureMemory'];

/**
 * The e2e browsers of this vitest worker: one per set of flags (with and without WebGPU), launched on first use with
 * a profile of its own and shared by every file the worker runs (the e2e project runs its files one at a time in
 * one worker per lane: `isolate: false`, `fileParallelism: false`). A launch costs about 5 CPU seconds of this 2-core
 * machine (the browser, GPU, network and storage processes, the omnibox's WebUI renderer, and their shutdown), and the
 * files made some 30 (docs/performance.md: twelve small files took 121 and 127 CPU s against 197). They are closed, and their profiles removed, when vitest stops the worker: vitest
 * awaits its worker's cleanup listeners before it ends the process (half a second after asking, it kills it).
 */
const sharedBrowsers = new Map<boolean, Promise<LaunchedChromium>>();

/** Vitest's own hook for "the worker is about to stop"; undefined where this vitest has none. */
function workerCleanupHook(): ((listener: () => unknown) => void) | undefined {
  const state = (globalThis as { __vitest_worker__?: { onCleanup?: (listener: () => unknown) => void } }).__vitest_worker__;
  return typeof state?.onCleanup === 'function' ? state.onCleanup.bind(state) : undefined;
}

let cleanupRegistered = false;

/**
 * The worker's browser for these flags, launched if it has none (or its browser died); null where the worker cannot
 * close a shared browser when it stops (then each file launches its own).
 * @param webgpu with `--enable-unsafe-webgpu`
 */
function sharedBrowser(webgpu: boolean): Promise<LaunchedChromium> | null {
  const onCleanup = workerCleanupHook();
  if (onCleanup === undefined) return null;
  if (!cleanupRegistered) {
    cleanupRegistered = true;
    onCleanup(async () => {
      const open = [...sharedBrowsers.values()];
      sharedBrowsers.clear();
      await Promise.all(open.map((launched) => launched.then((browser) => browser.close(), () => undefined)));
    });
  }
  let launched = sharedBrowsers.get(webgpu);
  if (launched === undefined) {
    const attempt = launchChromium({ webgpu, extraArgs: [...E2E_CHROMIUM_ARGS] });
    launched = attempt;
    sharedBrowsers.set(webgpu, attempt);
    const forget = () => {
      if (sharedBrowsers.get(webgpu) === attempt) sharedBrowsers.delete(webgpu);
    };
    // A browser that died is launched again by the next file, not handed out dead (and its profile is removed).
    void attempt.then((browser) => browser.context.once('close', () => {
      forget();
      void browser.close();
    }), forget);
  }
  return launched;
}

/**
 * The e2e Chromium (the flags of src/node/chromium.ts and E2E_CHROMIUM_ARGS) for one test file: the worker's shared
 * browser for these flags. What the file leaves is gone when it calls `close()`: the pages it opened are closed, and
 * every origin its pages navigated to loses its storage (IndexedDB, local storage, caches, service workers,
 * cookies), and the HTTP cache is cleared, so the next file starts as in a fresh profile. Files serve the build from
 * a server of their own on a port of its own, so no two files share an origin while they run.
 * @param options.webgpu add `--enable-unsafe-webgpu` (SwiftShader adapter on a CPU-only machine)
 */
export async function launchTestChromium(options: { webgpu?: boolean } = {}): Promise<LaunchedChromium> {
  const shared = sharedBrowser(options.webgpu ?? false);
  if (shared === null) return launchChromium({ webgpu: options.webgpu, extraArgs: [...E2E_CHROMIUM_ARGS] });
  const browser = await shared;
  const { context } = browser;
  const before = new Set(context.pages());
  const origins = new Set<string>();
  const onRequest = (request: Request) => {
    const url = new URL(request.url());
    if (request.isNavigationRequest() && (url.protocol === 'http:' || url.protocol === 'https:')) origins.add(url.origin);
  };
  context.on('request', onRequest);
  let closed: Promise<void> | null = null;
  return {
    context,
    close: () =>
      (closed ??= (async () => {
        context.off('request', onRequest);
        if (sharedBrowsers.get(options.webgpu ?? false) !== shared) return;
        for (const page of context.pages()) if (!before.has(page)) await page.close().catch(() => undefined);
        // Any page's DevTools session reaches the profile's storage and cache: the blank page the browser opened with
        // (no file uses it), or a new one.
        const spare = context.pages().find((page) => page.url() === 'about:blank');
        const page = spare ?? (await context.newPage());
        try {
          const cdp = await context.newCDPSession(page);
          for (const origin of origins) await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
          await cdp.send('Network.clearBrowserCache');
          await cdp.detach();
        } finally {
          if (spare === undefined) await page.close();
        }
      })()),
  };
}

/** A served build plus a browser; `close()` stops both. */
export interface PageEnv {
  server: StaticServer;
  browser: LaunchedChromium;
  /** Every request path the server answered, with its status. */
  requests: Array<{ path: string; status: number }>;
  close(): Promise<void>;
}

/**
 * Serves the e2e build and launches Chromium.
 * @param options.webgpu launch with --enable-unsafe-webgpu (SwiftShader adapter)
 * @param options.crossOriginIsolation false = serve without COOP/COEP/CORP (a host that cannot set headers)
 */
export async function startPageEnv(options: { webgpu?: boolean; crossOriginIsolation?: boolean } = {}): Promise<PageEnv> {
  const requests: PageEnv['requests'] = [];
  const server = await startStaticServer({
    dir: inject('distDir'),
    crossOriginIsolation: options.crossOriginIsolation,
    onRequest: (_m, path, status) => requests.push({ path, status }),
  });
  const browser = await launchTestChromium({ webgpu: options.webgpu });
  return {
    server,
    browser,
    requests,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

/**
 * The query of a page URL that runs with `settings`, written by the page's own serialiser (`toSearchParams`).
 * @param settings the automation settings to put into the URL
 */
export function pageQuery(settings: Partial<AutomationSettings>): string {
  return `?${toSearchParams(settings)}`;
}

/**
 * Opens the page with `query` and waits until `data-drb-state` is done or failed; returns the state.
 * @param env the served build and browser
 * @param query automation settings (written with `pageQuery`), or a raw query (and fragment) after the page URL for
 *   what settings cannot express: bad values, secrets in the query, fragments
 */
export async function openAndWait(env: PageEnv, query: string | Partial<AutomationSettings>, timeoutMs = 150_000): Promise<{ page: Page; state: string }> {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.server.url}${typeof query === 'string' ? query : pageQuery(query)}`);
  await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
    timeout: timeoutMs,
  });
  const state = await page.evaluate(() => document.documentElement.dataset.drbState ?? '');
  return { page, state };
}

/** The receipts the page produced (`window.drbReceipts`). */
export async function pageReceipts(page: Page): Promise<DeviceReceipt[]> {
  return page.evaluate(() => window.drbReceipts);
}

/** Schema problems and invariant problems of `value` as readable lines (empty = valid). */
export function receiptProblems(value: unknown): string[] {
  const parsed = DeviceReceipt.safeParse(value);
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  return checkReceiptInvariants(parsed.data).map((p) => `${p.path}: ${p.message}`);
}

/**
 * Runs cold then warm with `settings` and returns the page's two receipts, after checking the run ended `done` with
 * a cold then a warm receipt, each valid (schema and invariants).
 * @param env the served build and browser
 * @param settings the automation settings besides autorun (model, ep, threads, warm runs, ...)
 */
export async function coldWarmReceipts(env: PageEnv, settings: Partial<AutomationSettings>): Promise<DeviceReceipt[]> {
  const { page, state } = await openAndWait(env, { ...settings, autorun: ['cold', 'warm'] });
  const receipts = await pageReceipts(page);
  const shown = await page.getByTestId('warm-samples').textContent();
  await page.close();
  expect(state).toBe('done');
  expect(receipts.map((r) => r.run.kind)).toEqual(['cold', 'warm']);
  // The count the page shows at the end is the warm receipt's, however late the last sample messages came.
  const n = receipts[1].timings.warm_samples_ms.length;
  expect(shown).toBe(`Warm samples: ${n} / ${n}`);
  for (const receipt of receipts) expect(receiptProblems(receipt)).toEqual([]);
  return receipts;
}

/**
 * Opens a comparison page (`query` is the part after the page URL, `?autorun=compare&...`), waits for done/failed,
 * and returns the page (still open), the end state and its one comparison receipt, after checking that receipt's
 * schema and invariants.
 * @param env the served build and browser
 * @param query the query (and fragment) after the page URL
 */
export async function openComparison(env: PageEnv, query: string): Promise<{ page: Page; state: string; receipt: ComparisonReceipt }> {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.server.url}${query}`);
  await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, { timeout: 170_000 });
  const state = await page.evaluate(() => document.documentElement.dataset.drbState ?? '');
  const found = (await page.evaluate(() => window.drbArtifacts)).filter((a) => a.kind === 'comparison-receipt');
  expect(found).toHaveLength(1);
  const parsed = ComparisonReceipt.safeParse(found[0].data);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  expect(checkComparisonReceipt(parsed.data!)).toEqual([]);
  return { page, state, receipt: parsed.data! };
}
