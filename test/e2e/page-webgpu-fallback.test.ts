/**
 * WebGPU requested in a browser that grants no adapter (Chromium launched WITHOUT --enable-unsafe-webgpu): the run
 * fails clearly by default, and with allow_fallback=1 it runs on wasm, recorded as a fallback with the reason. The
 * fallback runs on the route's own build (JSPI in Chromium), which lacks a CPU kernel the plain build has: a model
 * that needs it fails its fallback with that reason, both attempts recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation.ts';
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
    expect(receipt.outcome.reason).toMatch(/WebGPU is not available: .*no adapter was granted.*fallback to wasm not allowed/);
    expect(receipt.route).toMatchObject({ requested_ep: 'webgpu', completed_ep: null, fallback_reason: null, allow_fallback: false });
    expect(receipt.route.attempts).toEqual([expect.objectContaining({ ep: 'webgpu', outcome: 'failed' })]);
    expect(receipt.run.inferences_completed).toBe(0);
    // The model was fetched and hashed before the route failed: the receipt keeps that evidence.
    expect(receipt.model.integrity).toBe('verified');
    expect(receipt.model.files[0].sha256).toBe(receipt.model.files[0].expected_sha256);
    expect(receipt.timings.model_fetch_ms).not.toBeNull();
    expect(receipt.timings.session_create_ms).toBeNull();
    expect(receipt.status_transitions.at(-1)?.status).toBe('failed');
    // The reason is on the page too, not only in the receipt.
    expect(await page.getByTestId('failure-reason').textContent()).toContain('no adapter was granted');
    // With what to do, in this panel's own controls (it has the "allow fallback to wasm" box).
    expect(await page.getByTestId('failure-advice').textContent()).toContain('tick "allow fallback to wasm"');
    // The timeline says where it failed: the session stage was reached and failed, the first inference never came.
    const stages = await page.getByTestId('cold-stages').locator('li').allTextContents();
    expect(stages.filter((line) => !/^(fetch|runtime fetch): \d/.test(line))).toEqual(['session: failed here', 'first inference: not reached', expect.stringMatching(/^total \(with probe and page work\): \d/)]);
    await page.close();
  });

  it('records the fallback to wasm when allowed', async () => {
    const { page, state } = await openAndWait(env, { autorun: ['cold', 'warm'], ep: 'webgpu', allowFallback: true, warmRuns: 3 });
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
    }
  });

  it('a fallback runs on the route\'s JSPI build, which has no GatherBlockQuantized kernel: LFM2 q4 fails it with that reason, never hidden', async () => {
    const { page, state } = await openAndWait(env, `?${toSearchParams({ autorun: ['cold'], engine: 'transformers', model: 'tfjs-tiny-lfm2', dtype: 'q4', ep: 'webgpu', allowFallback: true })}`);
    const [receipt] = await pageReceipts(page);
    const failureReason = await page.getByTestId('failure-reason').textContent();
    // The session never loaded, so the runtime never said its version: the header says so in words.
    const header = await page.getByTestId('receipt').locator('h3').textContent();
    const advice = await page.getByTestId('failure-advice').textContent();
    await page.close();
    expect(state).toBe('failed');
    expect(receiptProblems(receipt)).toEqual([]);
    expect(receipt.runtime?.build).toBe('jspi');
    expect(receipt.engine).toEqual({ name: 'transformers', version: 'unknown' });
    expect(header).toMatch(/^cold · transformers \(version unknown\) · tfjs-tiny-lfm2 · requested webgpu · ✗ failed$/);
    expect(receipt.model).toMatchObject({ id: 'tfjs-tiny-lfm2', dtype: 'q4', integrity: 'verified' });
    expect(receipt.route).toMatchObject({ requested_ep: 'webgpu', completed_ep: null, allow_fallback: true });
    expect(receipt.route.attempts.map((a) => [a.ep, a.outcome])).toEqual([
      ['webgpu', 'failed'],
      ['wasm', 'failed'],
    ]);
    expect(receipt.route.attempts[0].reason).toMatch(/no adapter was granted/);
    expect(receipt.route.attempts[1].reason).toMatch(/Could not find an implementation for GatherBlockQuantized\(1\)/);
    expect(receipt.outcome).toMatchObject({ status: 'failed', failed_stage: 'session' });
    // The run's reason ends with the fallback's own failure: the page does not blame WebGPU alone.
    expect(receipt.outcome.reason).toBe(`${receipt.route.attempts[0].reason}; the fallback to wasm failed too: ${receipt.route.attempts[1].reason}`);
    expect(failureReason).toContain('the fallback to wasm failed too');
    expect(advice).toBe('What to do: The runtime build this route loaded has no GatherBlockQuantized kernel: choose wasm as the execution provider (a wasm route loads the plain build, which has more CPU kernels), or another dtype of the model.');
  });
});
