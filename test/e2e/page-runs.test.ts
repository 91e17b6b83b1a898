/**
 * Cold + warm runs through the automation contract on wasm (1 and 2 threads) and webgpu (SwiftShader), with every
 * receipt checked by schema + invariants and the providers' outputs compared (within 1e-4). A cold run's runtime
 * build follows its route (plain for wasm; for webgpu the JSPI build, Chromium having JSPI), its `.wasm` hash is the served file's, and its
 * download is the `runtime_fetch` stage: nothing crosses the network during the session stage.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { coldWarmReceipts, startPageEnv, type PageEnv } from './page-harness.ts';

let env: PageEnv;
const heads: Record<string, number[]> = {};

beforeAll(async () => {
  env = await startPageEnv({ webgpu: true });
});
afterAll(async () => {
  await env?.close();
});

/**
 * Checks a cold receipt's runtime against the build it should have loaded: the build, the `.wasm` file name, its
 * bytes and SHA-256 equal to the served asset's, the `runtime_fetch` stage timed and before the session stage, and
 * no resource whose body crossed the network while the session was created (the runtime's thread workers may load
 * the `.mjs` again: from the HTTP cache, at most a revalidation without a body).
 */
function expectRuntimeFetchedBeforeSession(cold: DeviceReceipt, build: 'plain' | 'jspi'): void {
  expect(cold.runtime.build).toBe(build);
  const stem = build === 'plain' ? 'ort-wasm-simd-threaded-' : 'ort-wasm-simd-threaded.jspi-';
  const wasm = cold.runtime.files.find((f) => f.url.endsWith('.wasm'));
  expect(wasm?.url.split('/').pop()?.startsWith(stem)).toBe(true);
  const served = readFileSync(join(inject('distDir'), 'assets', wasm!.url.split('/').pop()!));
  expect(wasm).toMatchObject({ bytes: served.byteLength, sha256: createHash('sha256').update(served).digest('hex') });
  expect(
    cold.runtime.files
      .find((f) => f.url.endsWith('.mjs'))
      ?.url.split('/')
      .pop()
      ?.startsWith(stem),
  ).toBe(true);

  expect(cold.timings.runtime_fetch_ms).toBeGreaterThan(0);
  const at = (status: string) => cold.status_transitions.find((t) => t.status === status)!.at_ms;
  const sessionStart = at('creating_session');
  const sessionEnd = at('ready');
  const wasmEntry = cold.resources.find((e) => e.url === wasm!.url);
  expect(wasmEntry).toBeDefined();
  expect(wasmEntry!.start_ms + wasmEntry!.duration_ms).toBeLessThanOrEqual(sessionStart);
  const duringSession = cold.resources.filter((e) => e.start_ms >= sessionStart && e.start_ms <= sessionEnd);
  for (const e of duringSession) {
    expect(e.size_unknown, e.url).toBe(false);
    const bodyOverNetwork = e.transfer_size! > 0 && e.transfer_size! >= e.encoded_body_size!;
    expect(bodyOverNetwork, `${e.url} downloaded during the session stage`).toBe(false);
  }
}

describe('page runs (headless Chromium)', () => {
  it.each([
    ['ort-tiny-xenc', 1],
    ['ort-tiny-xenc', 2],
    ['ort-heavy-xenc', 1],
    ['ort-heavy-xenc', 2],
  ])('%s on wasm with %i thread(s): cold then warm, valid receipts', async (model, threads) => {
    const [cold, warm] = await coldWarmReceipts(env, { model, ep: 'wasm', threads, warmRuns: 5 });
    for (const r of [cold, warm]) {
      expect(r.outcome.status).toBe('ok');
      expect(r.route).toMatchObject({
        requested_ep: 'wasm',
        completed_ep: 'wasm',
        fallback_reason: null,
        threads_requested: threads,
      });
      // The page is cross-origin isolated, so the requested thread count is really used.
      expect(r.route.threads_effective).toBe(threads);
      expect(r.capabilities.cross_origin_isolated).toBe(true);
      expect(r.model).toMatchObject({ id: model, kind: 'fixture', integrity: 'verified' });
      expect(r.model.files[0].sha256).toBe(r.model.files[0].expected_sha256);
    }
    expect(cold.timings.model_fetch_ms).not.toBeNull();
    expect(cold.timings.session_create_ms).not.toBeNull();
    expect(cold.timings.first_inference_ms).not.toBeNull();
    expect(cold.run.inferences_completed).toBe(1);
    expect(cold.timings.warm_samples_ms).toEqual([]);
    expect(warm.timings.warm_samples_ms).toHaveLength(5);
    expect(warm.timings.warm_stats?.count).toBe(5);
    expect(warm.timings.warmup_ms).not.toBeNull();
    expect(cold.status_transitions.map((t) => t.status)).toEqual([
      'idle',
      'fetching',
      'creating_session',
      'ready',
      'running',
      'done',
    ]);
    // The warm run reused the cold run's live session: no fetch, no session creation.
    expect(warm.status_transitions.map((t) => t.status)).toEqual(['idle', 'ready', 'running', 'done']);
    // The model file fetch appears in the resources (worker timeline), same-origin with real sizes.
    const modelEntry = cold.resources.find((e) => e.url.endsWith(`/models/${model}/model.onnx`));
    expect(modelEntry).toMatchObject({ cross_origin: false, size_unknown: false });
    expect(cold.output?.sha256).toBe(warm.output?.sha256);
    heads[`${model}:wasm:${threads}`] = cold.output!.head;
    expectRuntimeFetchedBeforeSession(cold, 'plain');
    expect(warm.runtime).toEqual(cold.runtime);
  });

  it('draws the warm samples live while a warm run goes on, from the chunk the run awaited', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(`${env.server.url}?autorun=warm&model=ort-heavy-xenc&ep=wasm&warm_runs=300`);
    // While the run is still going: the live chart with its axis, from the receipt list's chunk.
    await page.waitForFunction(
      () =>
        document.documentElement.dataset.drbState === 'running' &&
        document.querySelector('[data-testid=warm-chart] svg text[data-axis=value-title]') !== null,
      null,
      { timeout: 60_000, polling: 50 },
    );
    expect(
      await page.locator('[data-testid=warm-chart] svg text[data-axis=value-title]').first().textContent(),
    ).toMatch(/^ms( \(log scale\))?$/);
    await page.close();
  });

  it.each(['ort-tiny-xenc', 'ort-heavy-xenc'])(
    '%s on webgpu (SwiftShader): completes on webgpu and agrees with wasm within 1e-4',
    async (model) => {
      const [cold, warm] = await coldWarmReceipts(env, { model, ep: 'webgpu', warmRuns: 3 });
      for (const r of [cold, warm]) {
        expect(r.outcome.status).toBe('ok');
        expect(r.route).toMatchObject({ requested_ep: 'webgpu', completed_ep: 'webgpu', fallback_reason: null });
        expect(r.route.attempts).toEqual([expect.objectContaining({ ep: 'webgpu', outcome: 'succeeded' })]);
      }
      expect(cold.capabilities.webgpu).toMatchObject({ navigator_gpu: true, adapter_granted: true });
      expect(cold.capabilities.webgpu.adapter_info?.architecture).toBe('swiftshader');
      // Chromium has JSPI: the WebGPU-capable JSPI build, not the larger asyncify one (WebKit's lane covers asyncify).
      expectRuntimeFetchedBeforeSession(cold, 'jspi');
      const wasm1 = heads[`${model}:wasm:1`];
      const wasm2 = heads[`${model}:wasm:2`];
      expect(wasm1).toBeDefined();
      const gpu = cold.output!.head;
      expect(gpu).toHaveLength(wasm1.length);
      for (let i = 0; i < gpu.length; i++) {
        expect(Math.abs(gpu[i] - wasm1[i])).toBeLessThanOrEqual(1e-4);
        expect(Math.abs(wasm2[i] - wasm1[i])).toBeLessThanOrEqual(1e-4);
      }
    },
  );
});
