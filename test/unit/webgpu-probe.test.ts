/**
 * The WebGPU probe always finishes: an adapter request that never answers is recorded as an adapter error after the
 * probe's time limit (so the capability probe, the first stage of every run kind, cannot hold a run), a refused one
 * with its error, and a granted one with its facts.
 */
import { describe, expect, it } from 'vitest';
import { answerWithin, NoAnswerError } from '../../src/browser/answer-within.ts';
import { probeWebGpu, webgpuUnavailableReason, type GpuLike } from '../../src/browser/webgpu-probe.ts';

describe('probeWebGpu', () => {
  it('records an adapter request that never answers as an adapter error after its limit', async () => {
    const silent: GpuLike = { requestAdapter: () => new Promise(() => {}) };
    const facts = await probeWebGpu(silent, 50);
    expect(facts).toMatchObject({
      navigator_gpu: true,
      adapter_granted: false,
      adapter_error: 'NoAnswerError: requestAdapter did not answer within 50 ms',
    });
    expect(webgpuUnavailableReason(facts)).toBe(
      'WebGPU is not available: requestAdapter failed (NoAnswerError: requestAdapter did not answer within 50 ms)',
    );
  });

  it('records a refused request with its error, and a granted adapter with its facts', async () => {
    const refused = await probeWebGpu({ requestAdapter: () => Promise.reject(new TypeError('blocked')) }, 50);
    expect(refused.adapter_error).toBe('TypeError: blocked');
    const granted = await probeWebGpu(
      {
        requestAdapter: async () => ({
          info: {
            vendor: 'google',
            architecture: 'swiftshader',
            device: '',
            description: 'SwiftShader',
            isFallbackAdapter: true,
          },
          features: ['shader-f16', 'float32-filterable'],
          limits: { maxBufferSize: 1024, unknownLimit: 3 },
        }),
      },
      50,
    );
    expect(granted).toMatchObject({
      adapter_granted: true,
      adapter_error: null,
      is_fallback_adapter: true,
      features: ['float32-filterable', 'shader-f16'],
      limits: { maxBufferSize: 1024 },
    });
    expect(webgpuUnavailableReason(granted)).toBeNull();
  });
});

describe('answerWithin', () => {
  it('passes a value or an error through, and rejects a silent call with NoAnswerError', async () => {
    await expect(answerWithin(Promise.resolve(7), 50, 'x')).resolves.toBe(7);
    await expect(answerWithin(Promise.reject(new RangeError('no')), 50, 'x')).rejects.toThrow(RangeError);
    const silent = answerWithin(new Promise(() => {}), 20, 'storage.estimate');
    await expect(silent).rejects.toThrow(NoAnswerError);
    await expect(silent).rejects.toThrow('storage.estimate did not answer within 20 ms');
  });
});
