/** Failure advice names only controls of the panel it is shown in. */
import { describe, expect, it } from 'vitest';
import { failureAdvice, type FailurePanel } from '../../src/core/engines/failure-advice.ts';
import { routeFailureReason, sessionFailedReason } from '../../src/core/engines/route-reasons.ts';
import { webgpuUnavailableReason } from '../../src/browser/webgpu-probe.ts';

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

  it('reads the reasons the worker writes (the same phrases build and match them), and tells no WebGPU from a WebGPU session that failed', () => {
    // Built as workers/engines/route.ts builds them, from the probe's own words.
    const unavailable = routeFailureReason(
      webgpuUnavailableReason({ navigator_gpu: true, adapter_granted: false, adapter_error: null })!,
      true,
      null,
    );
    expect(unavailable).toBe(
      'WebGPU is not available: navigator.gpu exists but no adapter was granted (fallback to wasm not allowed for this run)',
    );
    const sessionFailed = routeFailureReason(
      sessionFailedReason('webgpu', 'The device (SwiftShader) does not support fp16.'),
      true,
      null,
    );
    expect(sessionFailed).toBe(
      'session creation on webgpu failed: The device (SwiftShader) does not support fp16. (fallback to wasm not allowed for this run)',
    );
    for (const panel of ['run', 'suite', 'generation', 'comparison'] as const) {
      expect(failureAdvice(unavailable, panel), panel).toMatch(/^This browser gave no usable WebGPU: /);
      expect(failureAdvice(unavailable, panel), panel).not.toContain('dtype');
      // An adapter was there: the advice must not say the browser has no WebGPU, and another dtype may help.
      expect(failureAdvice(sessionFailed, panel), panel).toMatch(
        /^WebGPU could not run this model here \(the reason is above\): .*another dtype of the model/,
      );
    }
    expect(failureAdvice(sessionFailed, 'run')).toContain('tick "allow fallback to wasm"');
    expect(failureAdvice(sessionFailed, 'comparison')).toBe(
      'WebGPU could not run this model here (the reason is above): remove webgpu from Routes (for example wasm-1,wasm-2), or choose another dtype of the model.',
    );
    expect(failureAdvice(unavailable, 'generation')).toBe(
      'This browser gave no usable WebGPU: choose wasm as the execution provider and run again.',
    );
    // The plain build's missing kernel, after a fallback from no WebGPU, as the worker words it.
    const kernel =
      "Can't create a session. ERROR_CODE: 9, ERROR_MESSAGE: Could not find an implementation for GatherBlockQuantized(1) node";
    const plainFallback = routeFailureReason(
      webgpuUnavailableReason({ navigator_gpu: false, adapter_granted: false, adapter_error: null })!,
      false,
      sessionFailedReason('wasm', kernel),
    );
    expect(failureAdvice(plainFallback, 'run')).toMatch(/^Not even onnxruntime-web's plain build/);
    expect(failureAdvice(sessionFailedReason('wasm', kernel), 'suite')).toMatch(
      /^Not even onnxruntime-web's plain build/,
    );
  });

  it("names the blocked host and the panel's own button for a network failure", () => {
    expect(failureAdvice(OFFLINE, 'comparison')).toBe(
      'Check that this device is online and that nothing blocks huggingface.co, then press Run comparison again.',
    );
    expect(failureAdvice(OFFLINE, 'run')).toContain('press Cold run or Warm run again');
  });

  it("sends a missing CPU kernel to the plain build of a wasm route, or another dtype, in each panel's own words", () => {
    // A webgpu session that failed, then its fallback on the same (WebGPU-capable) build.
    const reason =
      "session creation on webgpu failed: no available backend found; the fallback to wasm failed too: session creation on wasm failed: Can't create a session. ERROR_CODE: 9, ERROR_MESSAGE: Could not find an implementation for GatherBlockQuantized(1) node with name 'GatherBlockQuantized:model.embed_tokens.weight.rows_f32'";
    for (const panel of PANELS) expect(failureAdvice(reason, panel), panel).toContain('no GatherBlockQuantized kernel');
    expect(failureAdvice(reason, 'run')).toContain('choose wasm as the execution provider');
    expect(failureAdvice(reason, 'comparison')).toContain('compare wasm routes only');
    expect(failureAdvice(reason, 'protocol')).toContain('tell the person who sent you the protocol');
    // Not the "allow fallback" advice: fallback was allowed, and it is the fallback that failed.
    for (const panel of PANELS) expect(failureAdvice(reason, panel), panel).not.toContain('allow fallback');
    // Where a webgpu session itself lacked the kernel and fallback was refused, the kernel is still the cause named.
    const refused =
      'session creation on webgpu failed: Could not find an implementation for GatherBlockQuantized(1) node (fallback to wasm not allowed for this run)';
    expect(failureAdvice(refused, 'run')).toContain('no GatherBlockQuantized kernel');
    // A wasm route's own failure: the plain build lacks it too, so only another dtype helps.
    const plain = 'session creation on wasm failed: Could not find an implementation for SomeOp(3) node';
    expect(failureAdvice(plain, 'run')).toBe(
      "Not even onnxruntime-web's plain build (the one a wasm route loads) has a SomeOp kernel: choose another dtype of the model.",
    );
    expect(failureAdvice(plain, 'protocol')).toContain('tell the person who sent you the protocol');
    // Without WebGPU only the fallback could run, and it loaded the plain build: the same advice as a wasm route's.
    const noAdapter =
      'WebGPU is not available: navigator.gpu exists but no adapter was granted; the fallback to wasm failed too: session creation on wasm failed: Could not find an implementation for SomeOp(3) node';
    expect(failureAdvice(noAdapter, 'run')).toBe(failureAdvice(plain, 'run'));
    expect(failureAdvice(noAdapter, 'comparison')).toBe(failureAdvice(plain, 'comparison'));
  });

  it('says nothing more for a reason it has no advice for', () => {
    expect(failureAdvice('cancelled', 'run')).toBeNull();
  });
});
