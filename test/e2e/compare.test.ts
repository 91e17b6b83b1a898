/**
 * Side-by-side comparison in a real headless Chromium: the heavier ORT fixture on wasm 1 thread, wasm 2 threads and
 * webgpu (SwiftShader), interleaved from a declared seed. Checks the comparison receipt (schema + invariants), the
 * schedule against the seed, the agreement check, and that a route outside tolerance is invalid and never ranked.
 * Never checks absolute timings.
 */
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkComparisonReceipt, ComparisonReceipt } from '../../src/core/comparison/comparison-receipt.ts';
import { interleavedSchedule } from '../../src/core/comparison/interleaved-schedule.ts';
import { startPageEnv, type PageEnv } from './page-harness.ts';

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv({ webgpu: true });
});
afterAll(async () => {
  await env?.close();
});

async function compare(query: string): Promise<{ page: Page; state: string; receipt: ComparisonReceipt }> {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.server.url}${query}`);
  await page.waitForFunction(() => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, { timeout: 170_000 });
  const state = await page.evaluate(() => document.documentElement.dataset.drbState ?? '');
  const found = (await page.evaluate(() => window.drbArtifacts)).filter((a) => a.kind === 'comparison-receipt');
  expect(found).toHaveLength(1);
  const parsed = ComparisonReceipt.safeParse(found[0].data);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  expect(checkComparisonReceipt(parsed.data!)).toEqual([]);
  return { page, state, receipt: parsed.data! };
}

describe('comparison of execution routes', () => {
  it('wasm-1 vs wasm-2 vs webgpu: interleaved schedule from the seed, medians, ratios, agreement within 1e-4', async () => {
    const { page, state, receipt } = await compare('?autorun=compare&model=ort-heavy-xenc&routes=wasm-1,wasm-2,webgpu&rounds=4&seed=7&token=s3cr3t-q#s3cr3t-frag');
    // A secret in the page URL's query or fragment never reaches the receipt.
    expect(JSON.stringify(receipt)).not.toContain('s3cr3t');
    expect(receipt.app.page_url).toBe(env.server.url);
    expect(state).toBe('done');
    expect(receipt.outcome).toEqual({ status: 'ok', reason: null });
    expect(receipt.engine.name).toBe('ort');
    expect(receipt.model).toMatchObject({ id: 'ort-heavy-xenc', integrity: 'verified' });
    expect(receipt.schedule).toEqual({ seed: 7, rounds: 4, order: interleavedSchedule(['wasm-1', 'wasm-2', 'webgpu'], 4, 7).map((s) => s.route_id) });
    expect(receipt.baseline_route_id).toBe('wasm-1');
    const byId = Object.fromEntries(receipt.routes.map((r) => [r.id, r]));
    expect(byId['wasm-1']).toMatchObject({ requested_ep: 'wasm', completed_ep: 'wasm', threads_effective: 1, ratio_to_baseline: 1 });
    expect(byId['wasm-2']).toMatchObject({ requested_ep: 'wasm', completed_ep: 'wasm', threads_effective: 2 });
    expect(byId.webgpu).toMatchObject({ requested_ep: 'webgpu', completed_ep: 'webgpu' });
    for (const route of receipt.routes) {
      expect(route.samples_ms).toHaveLength(4);
      expect(route.session_create_ms).toBeGreaterThan(0);
      expect(route.output!.count).toBe(4);
      expect(route.agreement!.max_abs_diff).toBeLessThanOrEqual(1e-4);
      expect(route.agreement!.same_order).toBe(true);
      expect(route.valid).toBe(true);
      expect(route.ratio_to_baseline).toBeCloseTo(route.stats!.median / byId['wasm-1'].stats!.median, 12);
      expect(route.speedup_vs_baseline).toBeCloseTo(byId['wasm-1'].stats!.median / route.stats!.median, 12);
    }
    expect(receipt.routes.map((r) => r.rank).sort()).toEqual([1, 2, 3]);
    expect(await page.getByTestId('route-webgpu').getAttribute('data-valid')).toBe('true');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('cmp-download').click()]);
    expect(download.suggestedFilename()).toMatch(/^drb-ort-compare-.*\.json$/);
    expect(JSON.parse(await readFile((await download.path())!, 'utf8'))).toEqual(receipt);
    await page.close();
  });

  it('with tolerance 0 every route whose scores differ at all is invalid and unranked, never "faster"', async () => {
    const { page, receipt } = await compare('?autorun=compare&model=ort-heavy-xenc&routes=wasm-1,webgpu&rounds=2&tolerance=0');
    const webgpu = receipt.routes.find((r) => r.id === 'webgpu')!;
    // SwiftShader's float arithmetic differs from wasm's in the last bits (about 1e-7 on this machine, see
    // platform-notes): with no tolerance that is a disagreement, so the route must be invalid whatever its speed.
    expect(webgpu.agreement!.max_abs_diff).toBeGreaterThan(0);
    expect(webgpu).toMatchObject({ valid: false, rank: null, ratio_to_baseline: null, speedup_vs_baseline: null });
    expect(webgpu.invalid_reason).toMatch(/^scores differ from the baseline by .* \(tolerance 0\)$/);
    expect(await page.getByTestId('route-webgpu').getAttribute('data-valid')).toBe('false');
    expect(receipt.routes.find((r) => r.id === 'wasm-1')).toMatchObject({ valid: true, rank: 1 });
    expect(receipt.outcome.status).toBe('ok');
    await page.close();
  });

  it('refuses bad compare parameters before running, with one clear line each', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(`${env.server.url}?autorun=compare&routes=wasm-1&baseline=webgpu`);
    await page.waitForFunction(() => document.documentElement.dataset.drbState === 'failed', null, { timeout: 30_000 });
    const text = await page.locator('body').textContent();
    expect(text).toContain("Invalid routes param: 'wasm-1', expected a comma-separated list of 2 to 6 distinct routes");
    expect((await page.evaluate(() => window.drbArtifacts)).length).toBe(0);
    await page.close();
  });
});
