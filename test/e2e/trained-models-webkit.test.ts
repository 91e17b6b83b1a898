/**
 * The trained models (PP-OCRv4 recognition, Silero VAD v5) on wasm in WebKitGTK, the closest engine to Safari here:
 * both receipts pass their correctness checks, and record what WebKit gives of the memory the model took: the
 * runtime's WebAssembly memory (read from its own memory object, as in every browser) and `not available` for
 * measureUserAgentSpecificMemory (Chromium only) and GPU buffers (no WebGPU; a wasm route has no device anyway).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import type { BrowserLane } from '../../src/node/browser-lane.ts';
import type { StaticServer } from '../../src/node/static-server.ts';
import { openTestLane, pageReceipts, serveBuild, validationProblems, waitForEnd } from './lane-checks.ts';

let server: StaticServer;
let lane: BrowserLane;
beforeAll(async () => {
  server = await serveBuild();
  lane = await openTestLane('webkit');
});
afterAll(async () => {
  await lane?.close();
  await server?.close();
});

async function cold(model: string): Promise<DeviceReceipt> {
  const page = await lane.newPage();
  try {
    await page.goto(`${server.url}?${toSearchParams({ autorun: ['cold'], model, ep: 'wasm' })}`);
    expect(await waitForEnd(page)).toBe('done');
    const [receipt] = await pageReceipts(page);
    expect(validationProblems(receipt)).toEqual([]);
    expect(receipt.outcome.status).toBe('ok');
    return receipt;
  } finally {
    await page.close();
  }
}

describe('WebKitGTK: trained weights on wasm', () => {
  it.each(['ppocrv4-rec', 'silero-vad-v5'])(
    '%s passes its check; WebAssembly memory measured, the rest not available',
    async (model) => {
      const receipt = await cold(model);
      expect(receipt.check?.passed, JSON.stringify(receipt.check)).toBe(true);
      const { wasm, ua_specific: ua, gpu_buffers: gpu } = receipt.memory!;
      expect(wasm.not_available).toBeNull();
      expect(wasm.after_session_bytes).toBeGreaterThan(wasm.before_load_bytes!);
      expect(wasm.after_last_run_bytes).toBeGreaterThanOrEqual(wasm.after_session_bytes!);
      for (const points of [ua.page, ua.worker]) {
        expect(points).toMatchObject({ before_load: null, after_session: null, after_last_run: null });
        expect(points.not_available).toMatch(
          /^not available: this browser has no performance\.measureUserAgentSpecificMemory\(\)/,
        );
      }
      expect(gpu.not_available).toMatch(/^not available: /);
      expect(receipt.capabilities.webgpu.navigator_gpu).toBe(false);
      expect(receipt.placement?.partial_fallback).toBe(false);
    },
  );
});
