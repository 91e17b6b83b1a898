/**
 * Helpers for page e2e tests: serve the build from global-setup on port 0, open the page in a fresh headless
 * Chromium, wait for the automation contract's done/failed signal, and check receipts by schema + invariants.
 */
import { expect, inject } from 'vitest';
import type { Page } from 'playwright-core';
import { toSearchParams, type AutomationSettings } from '../../src/core/automation.ts';
import { checkReceiptInvariants } from '../../src/core/receipt-invariants.ts';
import { checkComparisonReceipt, ComparisonReceipt } from '../../src/core/comparison/comparison-receipt.ts';
import { DeviceReceipt } from '../../src/core/receipt.ts';
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
 * `drb public-pass` and every other launch keep V8's own budget.
 */
export const E2E_CHROMIUM_ARGS: readonly string[] = ['--js-flags=--wasm-tiering-budget=180000000'];

/**
 * Launches the e2e Chromium: a fresh profile, the flags of src/node/chromium.ts and E2E_CHROMIUM_ARGS.
 * @param options.webgpu add `--enable-unsafe-webgpu` (SwiftShader adapter on a CPU-only machine)
 */
export function launchTestChromium(options: { webgpu?: boolean } = {}): Promise<LaunchedChromium> {
  return launchChromium({ webgpu: options.webgpu, extraArgs: [...E2E_CHROMIUM_ARGS] });
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
