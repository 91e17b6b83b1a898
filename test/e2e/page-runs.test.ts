/**
 * Cold + warm runs through the automation contract on wasm (1 and 2 threads) and webgpu (SwiftShader), with every
 * receipt checked by schema + invariants and the providers' outputs compared (within 1e-4).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coldWarmReceipts, startPageEnv, type PageEnv } from './page-harness.ts';

let env: PageEnv;
const heads: Record<string, number[]> = {};

beforeAll(async () => {
  env = await startPageEnv({ webgpu: true });
});
afterAll(async () => {
  await env?.close();
});

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
      expect(r.route).toMatchObject({ requested_ep: 'wasm', completed_ep: 'wasm', fallback_reason: null, threads_requested: threads });
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
    expect(cold.status_transitions.map((t) => t.status)).toEqual(['idle', 'fetching', 'creating_session', 'ready', 'running', 'done']);
    // The warm run reused the cold run's live session: no fetch, no session creation.
    expect(warm.status_transitions.map((t) => t.status)).toEqual(['idle', 'ready', 'running', 'done']);
    // The model file fetch appears in the resources (worker timeline), same-origin with real sizes.
    const modelEntry = cold.resources.find((e) => e.url.endsWith(`/models/${model}/model.onnx`));
    expect(modelEntry).toMatchObject({ cross_origin: false, size_unknown: false });
    expect(cold.output?.sha256).toBe(warm.output?.sha256);
    heads[`${model}:wasm:${threads}`] = cold.output!.head;
  });

  it.each(['ort-tiny-xenc', 'ort-heavy-xenc'])('%s on webgpu (SwiftShader): completes on webgpu and agrees with wasm within 1e-4', async (model) => {
    const [cold, warm] = await coldWarmReceipts(env, { model, ep: 'webgpu', warmRuns: 3 });
    for (const r of [cold, warm]) {
      expect(r.outcome.status).toBe('ok');
      expect(r.route).toMatchObject({ requested_ep: 'webgpu', completed_ep: 'webgpu', fallback_reason: null });
      expect(r.route.attempts).toEqual([expect.objectContaining({ ep: 'webgpu', outcome: 'succeeded' })]);
    }
    expect(cold.capabilities.webgpu).toMatchObject({ navigator_gpu: true, adapter_granted: true });
    expect(cold.capabilities.webgpu.adapter_info?.architecture).toBe('swiftshader');
    const wasm1 = heads[`${model}:wasm:1`];
    const wasm2 = heads[`${model}:wasm:2`];
    expect(wasm1).toBeDefined();
    const gpu = cold.output!.head;
    expect(gpu).toHaveLength(wasm1.length);
    for (let i = 0; i < gpu.length; i++) {
      expect(Math.abs(gpu[i] - wasm1[i])).toBeLessThanOrEqual(1e-4);
      expect(Math.abs(wasm2[i] - wasm1[i])).toBeLessThanOrEqual(1e-4);
    }
  });
});
