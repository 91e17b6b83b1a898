/**
 * Plain cold + warm device receipts for the transformers.js fixtures through the automation contract (the same page
 * controls and receipt checks as ORT): wasm with 1 and 2 threads and WebGPU (SwiftShader), with every model file hashed
 * and verified, every request on the page's origin, and the providers' outputs agreeing within 1e-4.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AutomationSettings } from '../../src/core/automation/automation.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { coldWarmReceipts, startPageEnv, type PageEnv } from './page-harness.ts';

let env: PageEnv;
const heads: Record<string, number[]> = {};

beforeAll(async () => {
  env = await startPageEnv({ webgpu: true });
});
afterAll(async () => {
  await env?.close();
});

async function coldWarm(
  settings: Partial<AutomationSettings>,
): Promise<{ receipts: DeviceReceipt[]; offOrigin: string[] }> {
  const origin = new URL(env.server.url).origin;
  const offOrigin: string[] = [];
  const listener = (request: { url(): string }) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('blob:') && !url.startsWith('data:')) offOrigin.push(url);
  };
  env.browser.context.on('request', listener);
  try {
    return { receipts: await coldWarmReceipts(env, { engine: 'transformers', ...settings }), offOrigin };
  } finally {
    env.browser.context.off('request', listener);
  }
}

describe('transformers.js cold/warm device receipts', () => {
  it.each([
    ['tfjs-tiny-reranker', 'wasm', 1],
    ['tfjs-tiny-reranker', 'wasm', 2],
    ['tfjs-tiny-reranker', 'webgpu', null],
    ['tfjs-tiny-causal-lm', 'wasm', 1],
    ['tfjs-tiny-causal-lm', 'webgpu', null],
  ] as const)(
    '%s on %s (threads %s): cold then warm, every file verified, only same-origin requests',
    async (model, ep, threads) => {
      const { receipts, offOrigin } = await coldWarm({ model, ep, threads, warmRuns: 3 });
      expect(offOrigin).toEqual([]);
      const [cold, warm] = receipts;
      for (const r of receipts) {
        expect(r.outcome.status).toBe('ok');
        expect(r.engine.name).toBe('transformers');
        expect(r.route).toMatchObject({ requested_ep: ep, completed_ep: ep, fallback_reason: null });
        if (threads) expect(r.route.threads_effective).toBe(threads);
        expect(r.model).toMatchObject({ id: model, kind: 'fixture', integrity: 'verified', dtype: 'fp32' });
        expect(r.model.files.length).toBe(model === 'tfjs-tiny-reranker' ? 4 : 5);
        for (const file of r.model.files) expect(file.sha256).toBe(file.expected_sha256);
        expect(r.input.id).toBe('tfjs-tokens-2x24');
      }
      expect(cold.output?.name).toBe('logits');
      expect(cold.output?.dims).toEqual(model === 'tfjs-tiny-reranker' ? [2, 1] : [2, 24, 21997]);
      expect(warm.timings.warm_samples_ms).toHaveLength(3);
      expect(cold.output?.sha256).toBe(warm.output?.sha256);
      heads[`${model}:${ep}:${threads}`] = cold.output!.head;
    },
  );

  it('providers agree within 1e-4 (wasm 1 thread, wasm 2 threads, webgpu)', () => {
    const pairs: Array<[string, string]> = [
      ['tfjs-tiny-reranker:wasm:1', 'tfjs-tiny-reranker:wasm:2'],
      ['tfjs-tiny-reranker:wasm:1', 'tfjs-tiny-reranker:webgpu:null'],
      ['tfjs-tiny-causal-lm:wasm:1', 'tfjs-tiny-causal-lm:webgpu:null'],
    ];
    for (const [a, b] of pairs) {
      expect(heads[a]?.length, a).toBeGreaterThan(0);
      expect(heads[b]).toHaveLength(heads[a].length);
      heads[a].forEach((value, i) =>
        expect(Math.abs(value - heads[b][i]), `${a} vs ${b} [${i}]`).toBeLessThanOrEqual(1e-4),
      );
    }
  });
});
