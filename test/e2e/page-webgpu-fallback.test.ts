/**
 * WebGPU requested in a browser that grants no adapter (Chromium launched WITHOUT --enable-unsafe-webgpu): the run
 * fails clearly by default, and with allow_fallback=1 it runs on wasm, recorded as a fallback with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
