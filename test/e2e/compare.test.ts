/**
 * Side-by-side comparison in a real headless Chromium: the heavier ORT fixture on wasm 1 thread, wasm 2 threads and
 * webgpu (SwiftShader), interleaved from a declared seed; and the transformers.js reranker and causal-LM scorer
 * fixtures on candidate rows of the demo suite. Checks the comparison receipt (schema + invariants), the schedule
 * against the seed, the agreement check (row by row for candidates, against a suite run's order), and that a route
 * outside tolerance is invalid and never ranked. Never checks absolute timings.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams, type AutomationSettings } from '../../src/core/automation/automation.ts';
import { parseRouteSpec } from '../../src/core/comparison/route-spec.ts';
import { interleavedSchedule } from '../../src/core/comparison/interleaved-schedule.ts';
import { comparisonRows, comparisonRowsBytes } from '../../src/core/comparison/candidate-rows.ts';
import { planSuite } from '../../src/core/suite/suite-plan.ts';
import { openComparison, startPageEnv, type PageEnv } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

/** `?autorun=compare&...` for `settings`, with the routes written as the panel's route list text. */
function compareQuery(settings: Partial<AutomationSettings> & { routes: string }): string {
  const { routes, ...rest } = settings;
  return `?${toSearchParams({ autorun: ['compare'], ...rest, compareRoutes: parseRouteSpec(routes)! })}`;
}

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv({ webgpu: true });
});
afterAll(async () => {
  await env?.close();
});

const compare = (query: string) => openComparison(env, query);

describe('comparison of execution routes', () => {
  it('wasm-1 vs wasm-2 vs webgpu: interleaved schedule from the seed, medians, ratios, agreement within 1e-4', async () => {
    const { page, state, receipt } = await compare(
      `${compareQuery({ model: 'ort-heavy-xenc', routes: 'wasm-1,wasm-2,webgpu', rounds: 4, seed: 7 })}&token=s3cr3t-q#s3cr3t-frag`,
    );
    // A secret in the page URL's query or fragment never reaches the receipt.
    expect(JSON.stringify(receipt)).not.toContain('s3cr3t');
    expect(receipt.app.page_url).toBe(env.server.url);
    expect(state).toBe('done');
    expect(receipt.outcome).toEqual({ status: 'ok', reason: null });
    expect(receipt.engine.name).toBe('ort');
    expect(receipt.model).toMatchObject({ id: 'ort-heavy-xenc', integrity: 'verified' });
    expect(receipt.schedule).toEqual({
      seed: 7,
      rounds: 4,
      order: interleavedSchedule(['wasm-1', 'wasm-2', 'webgpu'], 4, 7).map((s) => s.route_id),
    });
    expect(receipt.baseline_route_id).toBe('wasm-1');
    const byId = Object.fromEntries(receipt.routes.map((r) => [r.id, r]));
    expect(byId['wasm-1']).toMatchObject({
      requested_ep: 'wasm',
      completed_ep: 'wasm',
      threads_effective: 1,
      ratio_to_baseline: 1,
    });
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
    // Each route loaded in its own worker the build its route needs; the ratios against webgpu include the build
    // difference, and the page says so.
    expect(byId['wasm-1'].runtime?.build).toBe('plain');
    expect(byId['wasm-2'].runtime?.build).toBe('plain');
    expect(byId.webgpu.runtime?.build).toBe('jspi');
    const wasmSha = (id: string) => byId[id].runtime!.files.find((f) => f.url.endsWith('.wasm'))!.sha256;
    expect(wasmSha('wasm-1')).toMatch(/^[0-9a-f]{64}$/);
    expect(wasmSha('wasm-2')).toBe(wasmSha('wasm-1'));
    expect(wasmSha('webgpu')).not.toBe(wasmSha('wasm-1'));
    expect(await page.getByTestId('cmp-runtime-note').textContent()).toContain('webgpu: jspi');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('cmp-download').click()]);
    expect(download.suggestedFilename()).toMatch(
      /^drb-ort-heavy-xenc-wasm-1\+wasm-2\+webgpu-compare-\d{8}T\d{6}Z\.json$/,
    );
    expect(JSON.parse(await readFile((await download.path())!, 'utf8'))).toEqual(receipt);
    await page.close();
  });

  it('with tolerance 0 every route whose scores differ at all is invalid and unranked, never "faster"', async () => {
    const { page, receipt } = await compare(
      compareQuery({ model: 'ort-heavy-xenc', routes: 'wasm-1,webgpu', rounds: 2, tolerance: 0 }),
    );
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
    await waitForPage(page, () => document.documentElement.dataset.drbState === 'failed', null, { timeout: 30_000 });
    const text = await page.locator('body').textContent();
    expect(text).toContain("Invalid routes param: 'wasm-1', expected a comma-separated list of 2 to 6 distinct routes");
    expect((await page.evaluate(() => window.drbArtifacts)).length).toBe(0);
    await page.close();
  });

  it('a transformers.js reranker on candidate rows: every row in the same order on wasm-1, wasm-2 and webgpu, and the order a suite run ranks', async () => {
    const { page, state, receipt } = await compare(
      compareQuery({
        engine: 'transformers',
        model: 'tfjs-tiny-reranker',
        routes: 'wasm-1,wasm-2,webgpu',
        compareRows: 3,
        rounds: 3,
        seed: 5,
      }),
    );
    expect(state).toBe('done');
    expect(receipt.outcome).toEqual({ status: 'ok', reason: null });
    expect(receipt.engine.name).toBe('transformers');
    expect(receipt.model).toMatchObject({ id: 'tfjs-tiny-reranker', task: 'rerank', integrity: 'verified' });
    expect(receipt.schedule.order).toEqual(
      interleavedSchedule(['wasm-1', 'wasm-2', 'webgpu'], 3, 5).map((s) => s.route_id),
    );

    // The rows are the demo suite's first three, built in Node from the same files: the receipt names the suite by
    // its pinned hashes, and input.sha256 is the hash of exactly the texts the page sent to the engine.
    const dir = new URL('../../public/suites/ajimee-demo-24/', import.meta.url);
    const manifest = JSON.parse(await readFile(new URL('suite.json', dir), 'utf8')) as {
      items: { sha256: string };
      candidates: { sha256: string };
    };
    const plan = await planSuite(
      { bytes: await readFile(new URL('items.json', dir)), fileName: 'items.json' },
      { bytes: await readFile(new URL('candidates.json', dir)), fileName: 'candidates.json' },
      'ajimee',
    );
    const rows = comparisonRows('ajimee-demo-24', plan.rows, 'rerank', 3);
    expect(receipt.input).toEqual({
      id: 'ajimee-demo-24:first-3-rows',
      sha256: createHash('sha256').update(comparisonRowsBytes(rows.rows)).digest('hex'),
    });
    expect(receipt.candidate_rows).toEqual({
      suite_id: 'ajimee-demo-24',
      task: 'rerank',
      text_template: 'drb.rerank-pair.v1',
      items_sha256: manifest.items.sha256,
      candidates_sha256: manifest.candidates.sha256,
      rows: rows.groups.map((g) => ({ id: g.id, candidates: g.count })),
    });
    const total = rows.groups.reduce((sum, g) => sum + g.count, 0);
    expect(total).toBeLessThanOrEqual(16); // so output.head holds every score
    for (const route of receipt.routes) {
      expect(route.samples_ms).toHaveLength(3);
      expect(route.output!.count).toBe(total);
      expect(route.agreement).toMatchObject({ same_order: true, rows_in_other_order: [] });
      expect(route.agreement!.max_abs_diff).toBeLessThanOrEqual(1e-4);
      expect(route.valid).toBe(true);
    }
    expect(receipt.routes.map((r) => r.rank).sort()).toEqual([1, 2, 3]);
    await page.close();

    // "Same candidate order" is about real candidates: the baseline's scores order each row exactly as a suite run of
    // the same model ranks it in its predictions artifact.
    const suitePage = await env.browser.context.newPage();
    await suitePage.goto(
      `${env.server.url}?${toSearchParams({ autorun: ['suite'], engine: 'transformers', model: 'tfjs-tiny-reranker', ep: 'wasm', threads: 1 })}`,
    );
    await waitForPage(
      suitePage,
      () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''),
      null,
      { timeout: 170_000 },
    );
    const predictions = (await suitePage.evaluate(
      () => window.drbArtifacts.find((a) => a.kind === 'predictions')?.data,
    )) as Array<{ id: string; candidates: string[] }>;
    await suitePage.close();
    const scores = receipt.routes.find((r) => r.id === 'wasm-1')!.output!.head;
    let start = 0;
    for (const row of rows.rows) {
      const own = scores.slice(start, start + row.data.candidates.length);
      start += row.data.candidates.length;
      const ranked = row.data.candidates
        .map((c, i) => ({ c, s: own[i] }))
        .sort((a, b) => b.s - a.s)
        .map((x) => x.c);
      expect(predictions.find((p) => p.id === row.id)!.candidates, row.id).toEqual(ranked);
    }
  });

  it('a transformers.js causal-LM scorer on candidate rows: wasm-1 vs webgpu agree row by row', async () => {
    const { page, state, receipt } = await compare(
      compareQuery({
        engine: 'transformers',
        model: 'tfjs-tiny-causal-lm',
        routes: 'wasm-1,webgpu',
        compareRows: 2,
        rounds: 2,
      }),
    );
    expect(state).toBe('done');
    expect(receipt.model).toMatchObject({ id: 'tfjs-tiny-causal-lm', task: 'score-candidates' });
    expect(receipt.candidate_rows).toMatchObject({ task: 'score-candidates', text_template: 'drb.score-prompt.v1' });
    expect(receipt.candidate_rows!.rows).toHaveLength(2);
    const webgpu = receipt.routes.find((r) => r.id === 'webgpu')!;
    expect(webgpu).toMatchObject({ completed_ep: 'webgpu', valid: true, rank: expect.any(Number) });
    expect(webgpu.agreement).toMatchObject({ same_order: true, rows_in_other_order: [] });
    // Summed log-probabilities: negative, one per candidate.
    for (const route of receipt.routes) for (const score of route.output!.head) expect(score).toBeLessThan(0);
    await page.close();
  });

  it('a dtype parameter picks the same transformers.js ONNX file on every route, and the receipt says which', async () => {
    const { page, state, receipt } = await compare(
      compareQuery({
        engine: 'transformers',
        model: 'tfjs-tiny-reranker',
        routes: 'wasm-1,wasm-2',
        compareRows: 2,
        rounds: 1,
        dtype: 'fp16',
      }),
    );
    expect(state).toBe('done');
    expect(receipt.model.dtype).toBe('fp16');
    const onnx = receipt.model.files.map((f) => f.url).filter((u) => u.endsWith('.onnx'));
    expect(onnx).toHaveLength(1);
    expect(onnx[0]).toMatch(/\/models\/tfjs-tiny-reranker\/onnx\/model_fp16\.onnx$/);
    for (const route of receipt.routes)
      expect(route).toMatchObject({ valid: true, agreement: { same_order: true, rows_in_other_order: [] } });
    await page.close();
  });

  it('refuses an engine parameter that does not match the model, clearly', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(
      `${env.server.url}${compareQuery({ engine: 'ort', model: 'tfjs-tiny-reranker', routes: 'wasm-1,wasm-2' })}`,
    );
    await waitForPage(page, () => document.documentElement.dataset.drbState === 'failed', null, { timeout: 30_000 });
    expect(await page.getByTestId('compare-panel').textContent()).toContain(
      "Invalid engine param: 'ort', model tfjs-tiny-reranker runs on engine transformers",
    );
    expect((await page.evaluate(() => window.drbArtifacts)).length).toBe(0);
    await page.close();
  });
});
