/**
 * What a load settles from its route before downloading (workers/engines/route.ts): which runtime build it fetches
 * (runtimeEpFor, then ortBuildFor): a `webgpu` request that may fall back, where the context has no usable WebGPU,
 * loads the plain build a wasm route loads, because only its wasm fallback can run; every other request loads its own
 * route's build. And a `webgpu` request that may not fall back, where there is no usable WebGPU, fails before anything
 * is fetched (planRoute).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Stage } from '../../src/core/receipt/receipt.ts';
import { RouteError } from '../../workers/engines/engine.ts';
import { planRoute, runtimeEpFor } from '../../workers/engines/route.ts';
import { ortBuildFor } from '../../workers/ort-runtime.ts';

const granted = { navigator_gpu: true, adapter_granted: true, adapter_error: null };
const noAdapter = { navigator_gpu: true, adapter_granted: false, adapter_error: null };
const noGpu = { navigator_gpu: false, adapter_granted: false, adapter_error: null };
const refused = {
  navigator_gpu: true,
  adapter_granted: false,
  adapter_error: 'requestAdapter did not answer within 10000 ms',
};

describe('runtimeEpFor', () => {
  it('a webgpu request that may fall back, without a usable WebGPU, loads the plain build (Safari and Chromium alike)', () => {
    for (const webgpu of [noAdapter, noGpu, refused]) {
      const ep = runtimeEpFor({ ep: 'webgpu', allowFallback: true }, webgpu);
      expect(ep).toBe('wasm');
      expect(ortBuildFor(ep, false)).toBe('plain');
      expect(ortBuildFor(ep, true)).toBe('plain');
    }
  });

  it('a webgpu request with an adapter loads a WebGPU-capable build, whose wasm fallback (if the session fails) runs on it', () => {
    const ep = runtimeEpFor({ ep: 'webgpu', allowFallback: true }, granted);
    expect(ep).toBe('webgpu');
    expect(ortBuildFor(ep, true)).toBe('jspi');
    expect(ortBuildFor(ep, false)).toBe('asyncify');
  });

  it("a webgpu request that may not fall back keeps its route's build, adapter or not (without one, planRoute refuses it before any fetch)", () => {
    for (const webgpu of [granted, noAdapter, noGpu])
      expect(runtimeEpFor({ ep: 'webgpu', allowFallback: false }, webgpu)).toBe('webgpu');
  });

  it('a wasm request loads the plain build, and needs no probe', () => {
    expect(runtimeEpFor({ ep: 'wasm', allowFallback: true }, null)).toBe('wasm');
    expect(runtimeEpFor({ ep: 'wasm', allowFallback: false }, null)).toBe('wasm');
    expect(ortBuildFor('wasm', true)).toBe('plain');
  });
});

describe('planRoute', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });
  /** Runs planRoute with the stages it announces recorded. */
  async function plan(request: { ep: 'wasm' | 'webgpu'; allowFallback: boolean }) {
    const stages: Array<[Stage, string]> = [];
    const outcome = await planRoute(request, 1, { onStage: (stage, phase) => stages.push([stage, phase]) }).then(
      (value) => ({ value, error: null }),
      (error: unknown) => ({ value: null, error }),
    );
    return { ...outcome, stages };
  }
  /** A navigator whose WebGPU grants an adapter, or none. */
  const withGpu = (adapter: boolean) =>
    vi.stubGlobal('navigator', {
      gpu: {
        requestAdapter: async () =>
          adapter
            ? {
                features: new Set(['timestamp-query']),
                limits: {},
                info: { vendor: 'v', architecture: 'a', device: '', description: 'd', isFallbackAdapter: false },
              }
            : null,
      },
    });

  it('refuses a webgpu route that may not fall back where there is no usable WebGPU, before any fetch, as the session stage and its one attempt', async () => {
    for (const adapter of [null, false] as const) {
      if (adapter === false) withGpu(false);
      const { value, error, stages } = await plan({ ep: 'webgpu', allowFallback: false });
      expect(value).toBeNull();
      expect(error).toBeInstanceOf(RouteError);
      const route = error as RouteError;
      const reason =
        adapter === null
          ? 'WebGPU is not available: navigator.gpu is missing in this browser'
          : 'WebGPU is not available: navigator.gpu exists but no adapter was granted';
      expect(route.message).toBe(`${reason} (fallback to wasm not allowed for this run)`);
      expect(route.attempts).toEqual([
        {
          ep: 'webgpu',
          threads: 1,
          outcome: 'failed',
          reason,
          started_at_ms: expect.any(Number),
          ended_at_ms: expect.any(Number),
        },
      ]);
      // Nothing was fetched, so the failed receipt lists no file; the run failed at the session stage.
      expect(route.fetched).toBeNull();
      expect(stages).toEqual([['session', 'start']]);
    }
  });

  it("lets every other route through with the probe's facts and its runtime build, announcing no stage", async () => {
    // No WebGPU here (Node has no navigator.gpu): a fallback is allowed, so the plain build; a wasm route needs no probe.
    expect(await plan({ ep: 'webgpu', allowFallback: true })).toMatchObject({
      error: null,
      stages: [],
      value: { runtimeEp: 'wasm', webgpu: { navigator_gpu: false } },
    });
    expect(await plan({ ep: 'wasm', allowFallback: false })).toEqual({
      error: null,
      stages: [],
      value: { runtimeEp: 'wasm', webgpu: null },
    });
    // An adapter granted: the route's own build, with or without fallback.
    withGpu(true);
    for (const allowFallback of [false, true]) {
      expect(await plan({ ep: 'webgpu', allowFallback })).toMatchObject({
        error: null,
        stages: [],
        value: { runtimeEp: 'webgpu', webgpu: { navigator_gpu: true, adapter_granted: true } },
      });
    }
  });
});
