/**
 * Which runtime build a load fetches (runtimeEpFor, workers/engines/route.ts, then ortBuildFor): a `webgpu` request
 * that may fall back, where the context has no usable WebGPU, loads the plain build a wasm route loads, because only its
 * wasm fallback can run; every other request loads its own route's build.
 */
import { describe, expect, it } from 'vitest';
import { runtimeEpFor } from '../../workers/engines/route.ts';
import { ortBuildFor } from '../../workers/ort-runtime.ts';

const granted = { navigator_gpu: true, adapter_granted: true, adapter_error: null };
const noAdapter = { navigator_gpu: true, adapter_granted: false, adapter_error: null };
const noGpu = { navigator_gpu: false, adapter_granted: false, adapter_error: null };
const refused = { navigator_gpu: true, adapter_granted: false, adapter_error: 'requestAdapter did not answer within 10000 ms' };

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

  it('a webgpu request that may not fall back keeps its route\'s build, adapter or not (it fails before the runtime is asked)', () => {
    for (const webgpu of [granted, noAdapter, noGpu]) expect(runtimeEpFor({ ep: 'webgpu', allowFallback: false }, webgpu)).toBe('webgpu');
  });

  it('a wasm request loads the plain build, and needs no probe', () => {
    expect(runtimeEpFor({ ep: 'wasm', allowFallback: true }, null)).toBe('wasm');
    expect(runtimeEpFor({ ep: 'wasm', allowFallback: false }, null)).toBe('wasm');
    expect(ortBuildFor('wasm', true)).toBe('plain');
  });
});
