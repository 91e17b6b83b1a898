/** Failure advice names only controls of the panel it is shown in. */
import { describe, expect, it } from 'vitest';
import { failureAdvice, type FailurePanel } from '../../src/core/failure-advice.ts';

const PANELS: FailurePanel[] = ['run', 'suite', 'generation', 'comparison', 'protocol'];
const NO_WEBGPU = 'WebGPU is not available: navigator.gpu is missing (fallback to wasm not allowed for this run)';
const OFFLINE =
  'model file https://huggingface.co/x/y/resolve/abc/onnx/model.onnx could not be fetched from huggingface.co (Failed to fetch): offline, or the host is blocked (a firewall, a content blocker or a captive portal); check the connection, then run again';

describe('failure advice', () => {
  it('offers the "allow fallback" box only where the panel has it', () => {
    for (const panel of PANELS) {
      const advice = failureAdvice(NO_WEBGPU, panel)!;
      expect(advice, panel).toBeTruthy();
      expect(advice.includes('allow fallback'), panel).toBe(panel === 'run' || panel === 'suite');
    }
    expect(failureAdvice(NO_WEBGPU, 'comparison')).toContain('remove webgpu from Routes');
    expect(failureAdvice(NO_WEBGPU, 'generation')).toContain('choose wasm as the execution provider');
  });

  it('names the blocked host and the panel\'s own button for a network failure', () => {
    expect(failureAdvice(OFFLINE, 'comparison')).toBe('Check that this device is online and that nothing blocks huggingface.co, then press Run comparison again.');
    expect(failureAdvice(OFFLINE, 'run')).toContain('press Cold run or Warm run again');
  });

  it('says nothing more for a reason it has no advice for', () => {
    expect(failureAdvice('cancelled', 'run')).toBeNull();
  });
});
