/**
 * WebGPU requested in a browser that grants no adapter (Chromium launched WITHOUT --enable-unsafe-webgpu): the run
 * fails clearly by default, and with allow_fallback=1 it runs on wasm, recorded as a fallback with the reason. As
 * only the wasm fallback can run, the worker loads the plain build a wasm route loads, not the route's WebGPU-capable
 * one: a model that needs a CPU kernel only the plain build has (LFM2's q4 GatherBlockQuantized) runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import { waitForPage } from '../../src/node/chromium.ts';
import { openAndWait, pageReceipts, receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv({ webgpu: false });
});
afterAll(async () => {
  await env?.close();
});

describe('webgpu without an adapter', () => {
  it('fails clearly without fallback', async () => {
    const { page, state } = await openAndWait(env, { autorun: ['cold'], ep: 'webgpu' });
    const [receipt] = await pageReceipts(page);
    expect(state).toBe('failed');
    expect(receiptProblems(receipt)).toEqual([]);
    expect(receipt.capabilities.webgpu.adapter_granted).toBe(false);
    expect(receipt.outcome).toMatchObject({ status: 'failed', failed_stage: 'session' });
    expect(receipt.outcome.reason).toMatch(
      /WebGPU is not available: .*no adapter was granted.*fallback to wasm not allowed/,
    );
    expect(receipt.route).toMatchObject({
      requested_ep: 'webgpu',
      completed_ep: null,
      fallback_reason: null,
      allow_fallback: false,
    });
    expect(receipt.route.attempts).toEqual([expect.objectContaining({ ep: 'webgpu', outcome: 'failed' })]);
    expect(receipt.run.inferences_completed).toBe(0);
    // A route that cannot run here fails before any download: no model file, no runtime build, nothing timed but the
    // whole (a tester on a browser without WebGPU is not made to download the model and 17 to 27 MB of runtime first).
    expect(receipt.model).toMatchObject({ integrity: 'not-loaded', files: [] });
    expect(receipt.runtime).toEqual({ build: null, files: [] });
    expect(receipt.timings).toMatchObject({
      model_fetch_ms: null,
      runtime_fetch_ms: null,
      session_create_ms: null,
      first_inference_ms: null,
    });
    expect(receipt.resources.filter((r) => /\.(onnx|wasm)$/.test(r.url))).toEqual([]);
    expect(receipt.status_transitions.at(-1)?.status).toBe('failed');
    // The reason is on the page too, not only in the receipt.
    expect(await page.getByTestId('failure-reason').textContent()).toContain('no adapter was granted');
    // With what to do, in this panel's own controls (it has the "allow fallback to wasm" box).
    expect(await page.getByTestId('failure-advice').textContent()).toContain('tick "allow fallback to wasm"');
    // The timeline says where it failed: at the session stage, before any fetch; the first inference never came.
    const stages = await page.getByTestId('cold-stages').locator('li').allTextContents();
    expect(stages).toEqual([
      'fetch: not reached',
      'runtime fetch: not reached',
      'session: failed here',
      'first inference: not reached',
      expect.stringMatching(/^total \(with probe and page work\): \d/),
    ]);
    // Listed once: no bars of stages that never ran beside the list.
    expect(await page.locator('[data-testid=cold-timeline] svg').count()).toBe(0);
    expect(((await page.getByTestId('receipt').textContent()) ?? '').split('failed here')).toHaveLength(2);
    await page.close();
  });

  it('says so under the controls BEFORE a run, by the control to change', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(`${env.server.url}?mode=panels`);
    await waitForPage(page, () => document.documentElement.dataset.drbState === 'idle', null, { timeout: 60_000 });
    expect(await page.getByTestId('route-note').count()).toBe(0);
    await page.getByTestId('ep').selectOption('webgpu');
    expect(await page.getByTestId('route-note').textContent()).toMatch(
      /^Execution provider webgpu: this browser (has no WebGPU|granted no WebGPU adapter.*), so this run will fail: choose wasm under Execution provider, or tick "allow fallback to wasm"\.$/,
    );
    await page.getByTestId('allow-fallback').check();
    expect(await page.getByTestId('route-note').textContent()).toMatch(/the run will fall back to wasm \(ticked\)\.$/);
    // The generation panel has no fallback box: it names the control it has.
    await page.getByTestId('gen-ep').selectOption('webgpu');
    expect(await page.getByTestId('gen-route-note').textContent()).toMatch(
      /so this run will fail: choose wasm under Execution provider\.$/,
    );
    // Nothing ran.
    expect(await page.evaluate(() => window.drbReceipts.length)).toBe(0);
    await page.close();
  });

  it('records the fallback to wasm when allowed', async () => {
    const { page, state } = await openAndWait(env, {
      autorun: ['cold', 'warm'],
      ep: 'webgpu',
      allowFallback: true,
      warmRuns: 3,
    });
    const receipts = await pageReceipts(page);
    await page.close();
    expect(state).toBe('done');
    for (const receipt of receipts) {
      expect(receiptProblems(receipt)).toEqual([]);
      expect(receipt.outcome.status).toBe('ok');
      expect(receipt.route).toMatchObject({ requested_ep: 'webgpu', completed_ep: 'wasm', allow_fallback: true });
      expect(receipt.route.fallback_reason).toMatch(/no adapter was granted/);
      expect(receipt.route.attempts.map((a) => [a.ep, a.outcome])).toEqual([
        ['webgpu', 'failed'],
        ['wasm', 'succeeded'],
      ]);
      // Its wasm timings are a wasm route's: the same (plain) build.
      expect(receipt.runtime.build).toBe('plain');
    }
  });

  it('a fallback without an adapter loads the plain build a wasm route loads: LFM2 q4, whose GatherBlockQuantized the WebGPU-capable builds lack, completes on wasm', async () => {
    const { page, state } = await openAndWait(
      env,
      `?${toSearchParams({ autorun: ['cold'], engine: 'transformers', model: 'tfjs-tiny-lfm2', dtype: 'q4', ep: 'webgpu', allowFallback: true })}`,
    );
    const [receipt] = await pageReceipts(page);
    await page.close();
    expect(state).toBe('done');
    expect(receiptProblems(receipt)).toEqual([]);
    expect(receipt.outcome).toMatchObject({ status: 'ok', failed_stage: null });
    // Only the wasm fallback could run, so the worker fetched the plain build, not the JSPI one (17 MB) it would
    // have loaded for WebGPU (before, the fallback ran on that build and failed: "Could not find an implementation for
    // GatherBlockQuantized(1)").
    expect(receipt.runtime?.build).toBe('plain');
    expect(receipt.runtime?.files.map((f) => f.url)).toEqual([
      expect.stringMatching(/\/ort-wasm-simd-threaded-[\w-]+\.mjs$/),
      expect.stringMatching(/\/ort-wasm-simd-threaded-[\w-]+\.wasm$/),
    ]);
    expect(receipt.model).toMatchObject({ id: 'tfjs-tiny-lfm2', dtype: 'q4', integrity: 'verified' });
    expect(receipt.route).toMatchObject({ requested_ep: 'webgpu', completed_ep: 'wasm', allow_fallback: true });
    expect(receipt.route.fallback_reason).toMatch(/no adapter was granted/);
    expect(receipt.route.attempts.map((a) => [a.ep, a.outcome])).toEqual([
      ['webgpu', 'failed'],
      ['wasm', 'succeeded'],
    ]);
    expect(receipt.output?.head.length).toBeGreaterThan(0);
  });
});
