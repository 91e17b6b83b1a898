/**
 * The real-export-shaped fixtures in the real page (headless Chromium, transformers.js 4.3.2 + onnxruntime-web 1.30),
 * one browser for the file, each fixture through each route once:
 *
 * - plain cold + warm device receipts of the Qwen3-shaped LM (q4, MatMulNBits: the catalog default) and the
 *   XLM-RoBERTa-shaped cross-encoder (q8, MatMulInteger: its default) on wasm, and of the LFM2-shaped hybrid LM (q4
 *   with GatherBlockQuantized, a convolution cache and external data) on WebGPU, and on wasm with the plain build (the
 *   asyncify build lacks that kernel). Every dtype of each on both wasm and WebGPU, and the providers' agreement
 *   within each dtype's tolerance, are test/e2e/real-shaped-compare.test.ts's, one comparison page per dtype;
 * - generation runs of the Qwen3-shaped and the LFM2-shaped LMs (chat template, prefill + cached decode) on wasm and
 *   WebGPU;
 * - suite runs on other dtypes: the LMs scoring candidates in fp32 (weights in `onnx/model.onnx_data`, so the
 *   external-data path loads in the browser) and the cross-encoder reranking in fp16 on wasm; fp16 on the WebGPU
 *   adapter, which lacks `shader-f16`, fails with that reason in the receipt instead of running something else.
 */
import type { Page } from 'playwright-core';
import { toSearchParams, type AutomationSettings } from '../../src/core/automation/automation.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGenerationReceipt, GenerationReceipt } from '../../src/core/generation/generation-receipt.ts';
import type { PredictionRow } from '../../src/core/artifacts/predictions.ts';
import { checkSuiteReceipt, SuiteReceipt } from '../../src/core/suite/suite-receipt.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { coldWarmReceipts, startPageEnv, type PageEnv } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

let env: PageEnv;

beforeAll(async () => {
  env = await startPageEnv({ webgpu: true });
});
afterAll(async () => {
  await env?.close();
});

/** Opens `query`, waits for done/failed, returns the state, the artifacts and every request URL. */
async function runPage(
  query: string,
): Promise<{ page: Page; state: string; artifacts: Array<{ kind: string; data: unknown }>; requests: string[] }> {
  const page = await env.browser.context.newPage();
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(`${env.server.url}${query}`);
  await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
    timeout: 170_000,
  });
  const state = await page.evaluate(() => document.documentElement.dataset.drbState ?? '');
  const artifacts = await page.evaluate(() => window.drbArtifacts);
  return { page, state, artifacts, requests };
}

const onnxFiles = (receipt: DeviceReceipt | SuiteReceipt) =>
  receipt.model.files.map((f) => f.url.replace(/^.*\/models\/[^/]+\//, '')).filter((p) => p.startsWith('onnx/'));

describe('cold and warm device receipts', () => {
  it.each([
    ['tfjs-tiny-qwen3', 'wasm', 'q4', ['onnx/model_q4.onnx']],
    ['tfjs-tiny-xlmr-reranker', 'wasm', 'q8', ['onnx/model_quantized.onnx']],
    ['tfjs-tiny-lfm2', 'webgpu', 'q4', ['onnx/model_q4.onnx', 'onnx/model_q4.onnx_data']],
  ] as const)(
    "%s on %s (%s): ok, every file verified, only its dtype's graph fetched",
    async (model, ep, dtype, onnx) => {
      const receipts = await coldWarmReceipts(env, { engine: 'transformers', model, ep, threads: 1, warmRuns: 3 });
      for (const r of receipts) {
        expect(r.outcome.status).toBe('ok');
        expect(r.route).toMatchObject({ requested_ep: ep, completed_ep: ep, fallback_reason: null });
        expect(r.model).toMatchObject({ id: model, kind: 'fixture', integrity: 'verified', dtype });
        for (const file of r.model.files) expect(file.sha256).toBe(file.expected_sha256);
        expect(onnxFiles(r)).toEqual(onnx);
      }
      const [cold, warm] = receipts;
      expect(cold.output?.name).toBe('logits');
      expect(cold.output?.dims).toEqual(model === 'tfjs-tiny-xlmr-reranker' ? [2, 1] : [2, 24, expect.any(Number)]);
      expect(cold.output?.sha256).toBe(warm.output?.sha256);
    },
  );
});

describe('a quantized operator only the plain WebAssembly build has', () => {
  it("tfjs-tiny-lfm2 q4 on wasm: the plain build (a wasm route's) has the GatherBlockQuantized kernel the asyncify build lacks; the run completes on wasm", async () => {
    // onnxruntime-web's asyncify build (the WebGPU-capable one, which every route loaded before the runtime followed
    // the route) has no CPU kernel for com.microsoft GatherBlockQuantized, which LiquidAI's q4 exports use for the
    // embedding; it failed here with "Could not find an implementation for GatherBlockQuantized(1)". The plain
    // SIMD-threaded build a wasm route now loads has one.
    const { page, state } = await runPage(
      `?${toSearchParams({ autorun: ['cold'], engine: 'transformers', model: 'tfjs-tiny-lfm2', ep: 'wasm', threads: 1, allowFallback: false })}`,
    );
    const receipts = (await page.evaluate(() => window.drbReceipts)) as DeviceReceipt[];
    await page.close();
    expect(state).toBe('done');
    expect(receipts).toHaveLength(1);
    expect(receipts[0].outcome).toMatchObject({ status: 'ok', failed_stage: null });
    expect(receipts[0].route).toMatchObject({ requested_ep: 'wasm', completed_ep: 'wasm' });
    expect(receipts[0].runtime.build).toBe('plain');
    expect(receipts[0].model).toMatchObject({ integrity: 'verified', dtype: 'q4' });
    expect(receipts[0].output?.head.length).toBeGreaterThan(0);
  });
});

describe('generation runs through the cache', () => {
  it.each([
    ['tfjs-tiny-qwen3-gen', 'wasm'],
    ['tfjs-tiny-qwen3-gen', 'webgpu'],
    ['tfjs-tiny-lfm2-gen', 'webgpu'],
    // Its q4 embedding is a GatherBlockQuantized, which the plain WebAssembly build a wasm route loads has.
    ['tfjs-tiny-lfm2-gen', 'wasm'],
  ] as const)('%s on %s: chat-templated prompts, TTFT and decode speed from the cached path', async (model, ep) => {
    // Two new tokens on SwiftShader: the second is the cached decode step the checks below need (a decode speed
    // needs two tokens), and every further step of every prompt costs SwiftShader new pipelines (docs/performance.md).
    const maxNewTokens = ep === 'webgpu' ? 2 : 4;
    const { page, state, artifacts, requests } = await runPage(
      `?${toSearchParams({ autorun: ['generate'], model, ep, threads: 1, reps: 1, maxNewTokens })}`,
    );
    await page.close();
    expect(state).toBe('done');
    const receipt = GenerationReceipt.parse(artifacts.find((a) => a.kind === 'generation-receipt')!.data);
    expect(checkGenerationReceipt(receipt)).toEqual([]);
    expect(receipt.outcome).toEqual({ status: 'ok', reason: null });
    expect(receipt.route).toMatchObject({ requested_ep: ep, completed_ep: ep });
    expect(receipt.model).toMatchObject({ id: model, integrity: 'verified', dtype: 'q4' });
    expect(receipt.runtime?.build).toBe(ep === 'wasm' ? 'plain' : 'jspi');
    expect(receipt.runtime?.files.find((f) => f.url.endsWith('.wasm'))?.sha256).toMatch(/^[0-9a-f]{64}$/);
    for (const sample of receipt.samples) {
      expect(sample.outcome).toBe('ok');
      // The chat template wraps each prompt (<|im_start|>user ... <|im_start|>assistant), so more tokens than text bytes alone.
      expect(sample.prompt_tokens).toBeGreaterThan(8);
      expect(sample.ttft_ms).toBeGreaterThan(0);
      if ((sample.output_tokens ?? 0) >= 2) expect(sample.decode_tokens_per_s).toBeGreaterThan(0);
    }
    expect(receipt.samples.some((s) => (s.output_tokens ?? 0) >= 2)).toBe(true);
    expect(requests.some((url) => url.endsWith(`/models/${model.replace(/-gen$/, '')}/onnx/model_q4.onnx`))).toBe(true);
  });
});

describe('suite runs on the other dtypes', () => {
  async function suite(settings: Partial<AutomationSettings>): Promise<{
    state: string;
    receipt: SuiteReceipt;
    predictions: PredictionRow[] | undefined;
    requests: string[];
    advice: string | null;
  }> {
    const { page, state, artifacts, requests } = await runPage(
      `?${toSearchParams({ autorun: ['suite'], engine: 'transformers', ...settings })}`,
    );
    const advice =
      (await page.getByTestId('suite-advice').count()) > 0
        ? await page.getByTestId('suite-advice').textContent()
        : null;
    await page.close();
    const receipt = SuiteReceipt.parse(artifacts.find((a) => a.kind === 'suite-receipt')!.data);
    expect(checkSuiteReceipt(receipt)).toEqual([]);
    return {
      state,
      receipt,
      predictions: artifacts.find((a) => a.kind === 'predictions')?.data as PredictionRow[] | undefined,
      requests,
      advice,
    };
  }

  it('the LM in fp32 loads its weights from onnx/model.onnx_data and scores every row', async () => {
    const run = await suite({ model: 'tfjs-tiny-qwen3', ep: 'wasm', threads: 1, dtype: 'fp32' });
    expect(run.state).toBe('done');
    expect(run.receipt.runtime?.build).toBe('plain');
    expect(run.receipt.model).toMatchObject({ dtype: 'fp32', integrity: 'verified' });
    expect(onnxFiles(run.receipt)).toEqual(['onnx/model.onnx', 'onnx/model.onnx_data']);
    expect(
      run.requests.filter((url) => /\/onnx\/[^/]+$/.test(url)).map((url) => url.replace(/^.*\/onnx\//, '')),
    ).toEqual(['model.onnx', 'model.onnx_data']);
    expect(run.receipt.rows.done).toBe(24);
    expect(new Set(run.predictions!.filter((p) => p.reason === 'accepted').map((p) => p.margin)).size).toBeGreaterThan(
      10,
    );
  });

  it('the LFM2-shaped LM in fp32 on wasm: external data the config does not declare, convolution cache, every row scored', async () => {
    const run = await suite({ model: 'tfjs-tiny-lfm2', ep: 'wasm', threads: 1, dtype: 'fp32' });
    expect(run.state).toBe('done');
    expect(run.receipt.model).toMatchObject({ dtype: 'fp32', integrity: 'verified' });
    expect(onnxFiles(run.receipt)).toEqual(['onnx/model.onnx', 'onnx/model.onnx_data']);
    expect(run.receipt.rows.done).toBe(24);
    expect(new Set(run.predictions!.filter((p) => p.reason === 'accepted').map((p) => p.margin)).size).toBeGreaterThan(
      10,
    );
  });

  it('the cross-encoder in fp16 ranks every row on wasm', async () => {
    const run = await suite({ model: 'tfjs-tiny-xlmr-reranker', ep: 'wasm', threads: 1, dtype: 'fp16' });
    expect(run.state).toBe('done');
    expect(run.receipt.model).toMatchObject({ dtype: 'fp16', integrity: 'verified' });
    expect(onnxFiles(run.receipt)).toEqual(['onnx/model_fp16.onnx']);
    expect(run.receipt.rows.done).toBe(24);
  });

  it('fp16 on the WebGPU adapter without shader-f16 fails with the reason, no fallback, no predictions', async () => {
    const run = await suite({ model: 'tfjs-tiny-xlmr-reranker', ep: 'webgpu', dtype: 'fp16', allowFallback: false });
    expect(run.state).toBe('failed');
    expect(run.receipt.outcome.status).toBe('failed');
    expect(run.receipt.outcome.reason).toMatch(/does not support fp16/);
    expect(run.receipt.route.completed_ep).toBeNull();
    expect(run.predictions).toBeUndefined();
    // The browser has WebGPU (an adapter was granted): the advice does not say it has none, and offers another dtype.
    expect(run.advice).toMatch(
      /^What to do: WebGPU could not run this model here \(the reason is above\): choose wasm as the execution provider or another dtype of the model, or tick "allow fallback to wasm"/,
    );
  });
});
