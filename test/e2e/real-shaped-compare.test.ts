/**
 * Quantized agreement across providers: a comparison (`autorun=compare`) of wasm-1 and WebGPU (SwiftShader here) on
 * every dtype of every real-export-shaped fixture, in the real page (headless Chromium, transformers.js 4.3.2 +
 * onnxruntime-web 1.30), one browser for the file and one page per model and dtype with both routes on it. Each
 * comparison holds its routes to the default tolerance for its kind of scores and its dtype (recorded in the receipt
 * with its reason, docs/comparison.md), and:
 *
 * - a route that runs agrees with the other within that tolerance, row by row in the same candidate order, and is
 *   ranked;
 * - a route the runtime cannot run here fails with its reason and is invalid, never ranked: fp16 on an adapter
 *   without `shader-f16` (SwiftShader has none);
 * - the deliberately ill-conditioned XLM-RoBERTa graph is caught: its WebGPU route differs beyond the tolerance and
 *   is invalid, without a rank, a ratio or a place in the headline, however fast it ran.
 *
 * Every receipt passes its schema and invariants, says its dtype, and lists only that dtype's graph (and its external
 * data), each file verified against its pin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import type { ComparisonReceipt } from '../../src/core/comparison/comparison-receipt.ts';
import { comparisonTolerance } from '../../src/core/comparison/dtype-tolerance.ts';
import { parseRouteSpec } from '../../src/core/comparison/route-spec.ts';
import { openComparison, startPageEnv, type PageEnv } from './page-harness.ts';

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv({ webgpu: true });
});
afterAll(async () => {
  await env?.close();
});

/** Runs one comparison page to its end; returns the end state, the receipt (checked) and the WebGPU row's validity. */
async function compare(
  model: string,
  dtype: string,
  baseline: 'wasm-1' | 'webgpu',
): Promise<{ state: string; receipt: ComparisonReceipt; webgpuRowValid: string | null }> {
  const query = toSearchParams({
    autorun: ['compare'],
    engine: 'transformers',
    model,
    dtype,
    compareRoutes: parseRouteSpec('wasm-1,webgpu')!,
    baseline,
    rounds: 2,
    compareRows: 2,
    seed: 11,
  });
  const { page, state, receipt } = await openComparison(env, `?${query}`);
  try {
    const webgpuRowValid = await page.getByTestId('route-webgpu').getAttribute('data-valid');
    return { state, receipt, webgpuRowValid };
  } finally {
    await page.close();
  }
}

/** The ONNX files (graph, external data) a receipt lists, relative to the model folder. */
const onnxFiles = (receipt: ComparisonReceipt) =>
  receipt.model.files.map((f) => f.url.replace(/^.*\/models\/[^/]+\//, '')).filter((p) => p.startsWith('onnx/'));

/** Each dtype's files, as transformers.js names them. */
const GRAPH: Record<string, string> = {
  fp32: 'model.onnx',
  fp16: 'model_fp16.onnx',
  q8: 'model_quantized.onnx',
  q4: 'model_q4.onnx',
};

/** Routes that cannot run here, and the reason their failure must give. */
const CANNOT_RUN: Record<string, { route: 'wasm-1' | 'webgpu'; reason: RegExp }> = {
  // SwiftShader's adapter has no shader-f16; transformers.js refuses an fp16 graph on such a device.
  'tfjs-tiny-qwen3:fp16': { route: 'webgpu', reason: /does not support fp16/ },
  'tfjs-tiny-xlmr-reranker:fp16': { route: 'webgpu', reason: /does not support fp16/ },
  'tfjs-tiny-lfm2:fp16': { route: 'webgpu', reason: /does not support fp16/ },
};

/** Measured agreement per case, printed once for docs/comparison.md. */
const measured: string[] = [];
afterAll(() => {
  if (measured.length > 0) console.log(`measured max |diff| (wasm-1 vs webgpu):\n${measured.join('\n')}`);
});

describe('every dtype of the real-shaped fixtures, wasm-1 against WebGPU', () => {
  it.each([
    ['tfjs-tiny-qwen3', 'fp32', ['model.onnx', 'model.onnx_data']],
    ['tfjs-tiny-qwen3', 'fp16', ['model_fp16.onnx']],
    ['tfjs-tiny-qwen3', 'q8', ['model_quantized.onnx']],
    ['tfjs-tiny-qwen3', 'q4', ['model_q4.onnx']],
    ['tfjs-tiny-xlmr-reranker', 'fp32', ['model.onnx']],
    ['tfjs-tiny-xlmr-reranker', 'fp16', ['model_fp16.onnx']],
    ['tfjs-tiny-xlmr-reranker', 'q8', ['model_quantized.onnx']],
    ['tfjs-tiny-xlmr-reranker', 'q4', ['model_q4.onnx']],
    ['tfjs-tiny-lfm2', 'fp32', ['model.onnx', 'model.onnx_data']],
    ['tfjs-tiny-lfm2', 'fp16', ['model_fp16.onnx', 'model_fp16.onnx_data']],
    ['tfjs-tiny-lfm2', 'q4', ['model_q4.onnx', 'model_q4.onnx_data']],
  ] as const)(
    "%s in %s: held to its dtype's tolerance, every route either agreeing and ranked or failing with its reason",
    async (model, dtype, graph) => {
      const cannot = CANNOT_RUN[`${model}:${dtype}`];
      const baseline = cannot?.route === 'wasm-1' ? 'webgpu' : 'wasm-1';
      const { state, receipt, webgpuRowValid } = await compare(model, dtype, baseline);
      expect(state).toBe('done');
      expect(receipt.outcome).toEqual({ status: 'ok', reason: null });
      expect(receipt.model).toMatchObject({ id: model, dtype, integrity: 'verified' });
      expect(onnxFiles(receipt)).toEqual(graph.map((f) => `onnx/${f}`));
      expect(graph[0]).toBe(GRAPH[dtype]);
      for (const file of receipt.model.files) expect(file.sha256).toBe(file.expected_sha256);
      // The default for what the scores are (logits for the reranker, summed log-probabilities for the LMs) and the dtype.
      expect(receipt.tolerance).toEqual(comparisonTolerance(receipt.model.task, dtype, null));
      expect(receipt.tolerance.basis).toMatchObject({
        source: 'default',
        score_kind: model === 'tfjs-tiny-xlmr-reranker' ? 'logits' : 'summed-log-probs',
      });

      const base = receipt.routes.find((r) => r.id === baseline)!;
      expect(base).toMatchObject({ valid: true, completed_ep: baseline === 'webgpu' ? 'webgpu' : 'wasm', rank: 1 });
      const other = receipt.routes.find((r) => r.id !== baseline)!;
      if (cannot) {
        expect(other).toMatchObject({
          valid: false,
          completed_ep: null,
          rank: null,
          ratio_to_baseline: null,
          agreement: null,
        });
        expect(other.error?.message).toMatch(cannot.reason);
        expect(receipt.headline!.routes).toEqual([]);
        measured.push(`${model} ${dtype}: ${other.id} cannot run (${cannot.reason.source})`);
      } else {
        expect(other).toMatchObject({
          valid: true,
          completed_ep: 'webgpu',
          rank: expect.any(Number),
          agreement: { same_order: true, rows_in_other_order: [] },
        });
        expect(other.agreement!.max_abs_diff).toBeLessThanOrEqual(receipt.tolerance.max_abs_diff);
        expect(other.output!.count).toBe(base.output!.count);
        expect(receipt.headline!.routes.map((r) => r.route_id)).toEqual([other.id]);
        measured.push(
          `${model} ${dtype}: ${other.agreement!.max_abs_diff.toExponential(2)} (tolerance ${receipt.tolerance.max_abs_diff})`,
        );
      }
      expect(webgpuRowValid).toBe(String(receipt.routes.find((r) => r.id === 'webgpu')!.valid));
    },
  );
});

describe('the agreement gate on a deliberately perturbed graph', () => {
  it('tfjs-tiny-xlmr-perturbed: the WebGPU route computes something else, so it is invalid, unranked and not in the headline', async () => {
    const { state, receipt, webgpuRowValid } = await compare('tfjs-tiny-xlmr-perturbed', 'fp32', 'wasm-1');
    // The baseline stands, so the comparison itself is ok: it is the WebGPU route that is not to be believed.
    expect(state).toBe('done');
    expect(receipt.outcome.status).toBe('ok');
    expect(receipt.model).toMatchObject({ id: 'tfjs-tiny-xlmr-perturbed', dtype: 'fp32', integrity: 'verified' });
    expect(receipt.tolerance).toEqual(comparisonTolerance('rerank', 'fp32', null));
    const webgpu = receipt.routes.find((r) => r.id === 'webgpu')!;
    // It ran on WebGPU and gave as many scores as the baseline: only its numbers are wrong.
    expect(webgpu.completed_ep).toBe('webgpu');
    expect(webgpu.samples_ms).toHaveLength(2);
    expect(webgpu.output!.count).toBe(receipt.routes[0].output!.count);
    expect(webgpu.agreement!.max_abs_diff).toBeGreaterThan(receipt.tolerance.max_abs_diff);
    expect(webgpu).toMatchObject({ valid: false, rank: null, ratio_to_baseline: null, speedup_vs_baseline: null });
    expect(webgpu.invalid_reason).toMatch(/^scores differ from the baseline by \S+ \(tolerance 0\.0001\)$/);
    expect(receipt.routes.find((r) => r.id === 'wasm-1')).toMatchObject({ valid: true, rank: 1 });
    expect(receipt.headline).toEqual({ baseline_route_id: 'wasm-1', routes: [] });
    expect(webgpuRowValid).toBe('false');
    measured.push(
      `tfjs-tiny-xlmr-perturbed fp32: ${webgpu.agreement!.max_abs_diff.toExponential(2)} (tolerance ${receipt.tolerance.max_abs_diff}): caught`,
    );
  });
});
