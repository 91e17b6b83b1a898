/**
 * Route honesty for suite runs in a browser without a WebGPU adapter (Chromium launched without
 * --enable-unsafe-webgpu): webgpu fails clearly by default, and with allow_fallback=1 the suite completes on wasm with
 * the fallback recorded. A suite or generation load that fails after the runtime fetch records the build it fetched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AutomationSettings } from '../../src/core/automation/automation.ts';
import { checkGenerationReceipt, GenerationReceipt } from '../../src/core/generation/generation-receipt.ts';
import { checkSuiteReceipt, SuiteReceipt } from '../../src/core/suite/suite-receipt.ts';
import { openAndWait, startPageEnv, type PageEnv } from './page-harness.ts';

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv({ webgpu: false });
});
afterAll(async () => {
  await env?.close();
});

async function suiteReceipt(
  settings: Partial<AutomationSettings>,
): Promise<{ state: string; receipt: SuiteReceipt; artifacts: string[] }> {
  const { page, state } = await openAndWait(env, {
    autorun: ['suite'],
    engine: 'transformers',
    model: 'tfjs-tiny-reranker',
    ...settings,
  });
  const artifacts = await page.evaluate(() => window.drbArtifacts);
  await page.close();
  const receipt = SuiteReceipt.parse(artifacts.find((a) => a.kind === 'suite-receipt')?.data);
  expect(checkSuiteReceipt(receipt)).toEqual([]);
  return { state, receipt, artifacts: artifacts.map((a) => a.kind) };
}

describe('suite runs without a WebGPU adapter', () => {
  it('webgpu without fallback: failed at load with the reason, no predictions', async () => {
    const { state, receipt, artifacts } = await suiteReceipt({ ep: 'webgpu' });
    expect(state).toBe('failed');
    expect(artifacts).toEqual(['suite-receipt']);
    expect(receipt.outcome).toMatchObject({ status: 'failed', failed_stage: 'load' });
    expect(receipt.outcome.reason).toMatch(/^WebGPU is not available: .*fallback to wasm not allowed/);
    expect(receipt.route).toMatchObject({ requested_ep: 'webgpu', completed_ep: null, allow_fallback: false });
    expect(receipt.route.attempts).toEqual([expect.objectContaining({ ep: 'webgpu', outcome: 'failed' })]);
    // The load failed before any download: no model file and no runtime build (none was fetched).
    expect(receipt.model).toMatchObject({ integrity: 'not-loaded', files: [] });
    expect(receipt.runtime).toEqual({ build: null, files: [] });
    expect(receipt.timings.model_load_ms).toBeNull();
  });

  it('webgpu with allow_fallback=1: completes on wasm, the fallback and its reason recorded', async () => {
    const { state, receipt, artifacts } = await suiteReceipt({ ep: 'webgpu', allowFallback: true });
    expect(state).toBe('done');
    expect(artifacts).toEqual(['predictions', 'suite-receipt']);
    expect(receipt.outcome.status).toBe('ok');
    expect(receipt.route).toMatchObject({ requested_ep: 'webgpu', completed_ep: 'wasm', allow_fallback: true });
    expect(receipt.route.fallback_reason).toMatch(/^WebGPU is not available/);
    expect(receipt.route.attempts.map((a) => [a.ep, a.outcome])).toEqual([
      ['webgpu', 'failed'],
      ['wasm', 'succeeded'],
    ]);
    // Only the wasm fallback could run: the plain build a wasm route loads, not the JSPI one.
    expect(receipt.runtime?.build).toBe('plain');
  });

  it('a generation run on webgpu without fallback: failed at load, before any download', async () => {
    const { page, state } = await openAndWait(env, {
      autorun: ['generate'],
      model: 'tfjs-tiny-causal-lm-gen',
      ep: 'webgpu',
      reps: 1,
    });
    const artifacts = await page.evaluate(() => window.drbArtifacts);
    await page.close();
    expect(state).toBe('failed');
    const receipt = GenerationReceipt.parse(artifacts.find((a) => a.kind === 'generation-receipt')?.data);
    expect(checkGenerationReceipt(receipt)).toEqual([]);
    expect(receipt.outcome.status).toBe('failed');
    expect(receipt.route).toMatchObject({ requested_ep: 'webgpu', completed_ep: null });
    expect(receipt.outcome.reason).toMatch(/^WebGPU is not available: .*fallback to wasm not allowed/);
    expect(receipt.model).toMatchObject({ integrity: 'not-loaded', files: [] });
    expect(receipt.runtime).toEqual({ build: null, files: [] });
  });
});
