/**
 * Suite runs in the real page (headless Chromium, real transformers.js + onnxruntime-web): the demo suite reranked
 * on wasm and on WebGPU (SwiftShader) and scored by a causal LM on both, with the providers agreeing; the
 * predictions downloaded through the real button scored by `drb score` inside the test; every request the page
 * makes stays on its own origin; a model file changed by one byte is refused with a failed receipt.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import { parsePredictions, type PredictionRow } from '../../src/core/artifacts/predictions.ts';
import { sha256Hex } from '../../src/core/bytes/sha256.ts';
import { checkSuiteReceipt, SuiteReceipt } from '../../src/core/suite/suite-receipt.ts';
import { startPageEnv, type PageEnv } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

const DEMO_ITEMS = new URL('../../public/suites/ajimee-demo-24/items.json', import.meta.url);
let env: PageEnv;
let outDir: string;
const predictionsBy: Record<string, PredictionRow[]> = {};

beforeAll(async () => {
  env = await startPageEnv({ webgpu: true });
  outDir = await mkdtemp(join(tmpdir(), 'drb-suite-e2e-'));
});
afterAll(async () => {
  await env?.close();
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

interface SuiteRun {
  page: Page;
  state: string;
  requests: string[];
  receipt: SuiteReceipt | undefined;
  predictions: PredictionRow[] | undefined;
}

/** Opens the page with `query`, records every request URL, waits for done/failed, returns the artifacts. */
async function openSuite(query: string, setup?: (page: Page) => Promise<void>): Promise<SuiteRun> {
  const page = await env.browser.context.newPage();
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await setup?.(page);
  await page.goto(`${env.server.url}${query}`);
  await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
    timeout: 170_000,
  });
  const state = await page.evaluate(() => document.documentElement.dataset.drbState ?? '');
  const artifacts = await page.evaluate(() => window.drbArtifacts);
  const receipt = artifacts.find((a) => a.kind === 'suite-receipt')?.data as SuiteReceipt | undefined;
  const predictions = artifacts.find((a) => a.kind === 'predictions')?.data as PredictionRow[] | undefined;
  return { page, state, requests, receipt, predictions };
}

function receiptProblems(value: unknown): string[] {
  const parsed = SuiteReceipt.safeParse(value);
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  return checkSuiteReceipt(parsed.data).map((p) => `${p.path}: ${p.message}`);
}

/** Same ranking and margins within `tolerance` (the providers' float arithmetic differs in the last bits). */
function expectAgreement(a: PredictionRow[], b: PredictionRow[], tolerance: number): void {
  expect(b.map((r) => [r.id, r.candidates, r.reason])).toEqual(a.map((r) => [r.id, r.candidates, r.reason]));
  for (const [i, row] of a.entries()) {
    if (row.margin === undefined) expect(b[i].margin).toBeUndefined();
    else expect(Math.abs(row.margin - b[i].margin!)).toBeLessThanOrEqual(tolerance);
  }
}

describe('suite runs in the page (transformers.js)', () => {
  it.each([
    ['tfjs-tiny-reranker', 'wasm', 'deberta'],
    ['tfjs-tiny-reranker', 'webgpu', 'deberta'],
    ['tfjs-tiny-causal-lm', 'wasm', 'lfm'],
    ['tfjs-tiny-causal-lm', 'webgpu', 'lfm'],
  ] as const)(
    '%s on %s: demo suite runs offline, valid receipt, predictions in the scorer schema',
    async (model, ep, provenance) => {
      const run = await openSuite(
        `?${toSearchParams({ autorun: ['suite'], engine: 'transformers', model, ep, threads: 1 })}`,
      );
      await run.page.close();
      expect(run.state).toBe('done');
      expect(receiptProblems(run.receipt)).toEqual([]);
      const receipt = run.receipt!;
      expect(receipt.outcome).toEqual({ status: 'ok', reason: null, failed_stage: null });
      expect(receipt.route).toMatchObject({ requested_ep: ep, completed_ep: ep, fallback_reason: null });
      expect(receipt.model).toMatchObject({ id: model, kind: 'fixture', integrity: 'verified', source: 'page-origin' });
      for (const file of receipt.model.files) expect(file.sha256).toBe(file.expected_sha256);
      expect(receipt.provenance).toBe(provenance);
      expect(receipt.suite).toMatchObject({ id: 'ajimee-demo-24', format: 'ajimee' });
      expect(receipt.suite.items.sha256).toBe(await sha256Hex(await readFile(DEMO_ITEMS)));
      expect(receipt.rows).toEqual({
        total: 24,
        done: 24,
        accepted: 22,
        low_margin: 0,
        single_candidate: 1,
        no_candidates: 1,
      });
      expect(receipt.timings.row_latency_samples_ms).toHaveLength(23);
      expect(receipt.engine.version).toMatch(/^4\.3\.2 \(onnxruntime-web 1\.30\.0\)$/);
      // Every request stayed on the page's own origin (local models; no CDN, no Hub).
      const origin = new URL(env.server.url).origin;
      expect(
        run.requests.filter(
          (url) => !url.startsWith(`${origin}/`) && !url.startsWith('blob:') && !url.startsWith('data:'),
        ),
      ).toEqual([]);
      expect(run.requests.some((url) => url.endsWith(`/models/${model}/onnx/model.onnx`))).toBe(true);
      const predictions = run.predictions!;
      parsePredictions(new TextEncoder().encode(JSON.stringify(predictions)), 'predictions.json');
      expect(predictions.every((p) => p.provenance === provenance)).toBe(true);
      // Scores differ row to row: the random-weight model still orders candidates, so margins are real numbers.
      expect(new Set(predictions.filter((p) => p.reason === 'accepted').map((p) => p.margin)).size).toBeGreaterThan(10);
      predictionsBy[`${model}:${ep}`] = predictions;
    },
  );

  it('providers agree: the same order and margins on wasm and webgpu, for the reranker and the causal LM', () => {
    expectAgreement(predictionsBy['tfjs-tiny-reranker:wasm'], predictionsBy['tfjs-tiny-reranker:webgpu'], 1e-4);
    // Summed log-probabilities over a 22k-token vocabulary accumulate more float error than one logit: 1e-3.
    expectAgreement(predictionsBy['tfjs-tiny-causal-lm:wasm'], predictionsBy['tfjs-tiny-causal-lm:webgpu'], 1e-3);
  });

  it('dtype is selectable: fp16 loads only onnx/model_fp16.onnx and gives margins close to fp32', async () => {
    const run = await openSuite(
      `?${toSearchParams({ autorun: ['suite'], engine: 'transformers', model: 'tfjs-tiny-reranker', ep: 'wasm', threads: 1, dtype: 'fp16' })}`,
    );
    await run.page.close();
    expect(run.state).toBe('done');
    expect(receiptProblems(run.receipt)).toEqual([]);
    expect(run.receipt!.model).toMatchObject({ dtype: 'fp16', integrity: 'verified' });
    expect(run.receipt!.model.files.map((f) => f.url.replace(/^.*\/models\//, ''))).toEqual([
      'tfjs-tiny-reranker/config.json',
      'tfjs-tiny-reranker/tokenizer.json',
      'tfjs-tiny-reranker/tokenizer_config.json',
      'tfjs-tiny-reranker/onnx/model_fp16.onnx',
    ]);
    expect(run.requests.some((url) => url.endsWith('/onnx/model_fp16.onnx'))).toBe(true);
    expect(run.requests.some((url) => url.endsWith('/onnx/model.onnx'))).toBe(false);
    // Half-precision weights move each logit a little; top-1 minus top-2 moves by at most twice that.
    const fp32 = predictionsBy['tfjs-tiny-reranker:wasm'];
    for (const [i, row] of run.predictions!.entries()) {
      expect(row.reason).toBe(fp32[i].reason);
      if (row.margin !== undefined) expect(Math.abs(row.margin - fp32[i].margin!)).toBeLessThan(2e-2);
    }
  });

  it('downloads predictions and the receipt through the real buttons, and `drb score` scores them', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(env.server.url);
    await page.getByTestId('suite-model').selectOption('tfjs-tiny-reranker');
    await page.getByTestId('suite-threshold').fill('0.05');
    await page.getByTestId('suite-run').click();
    await page.getByTestId('suite-result').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('suite-rows').textContent()).toMatch(/Rows 24 \/ 24 · elapsed \d+\.\d s/);
    const [predictionsDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('download-predictions').click(),
    ]);
    expect(predictionsDownload.suggestedFilename()).toMatch(
      /^drb-tfjs-tiny-reranker-wasm-\d+-predictions-\d{8}T\d{6}Z\.json$/,
    );
    const predictionsPath = join(outDir, 'predictions.json');
    await predictionsDownload.saveAs(predictionsPath);
    const [receiptDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('download-suite-receipt').click(),
    ]);
    const receipt = JSON.parse(await readFile((await receiptDownload.path())!, 'utf8')) as SuiteReceipt;
    await page.close();
    expect(receiptProblems(receipt)).toEqual([]);
    expect(receipt.policy).toEqual({ name: 'margin-threshold', min_margin: 0.05 });
    const predictionBytes = await readFile(predictionsPath);
    expect(receipt.predictions?.sha256).toBe(await sha256Hex(predictionBytes));
    const rows = parsePredictions(new Uint8Array(predictionBytes), 'predictions.json');
    // The policy is explicit in the predictions too: every low-margin row abstains with its reason and margin.
    for (const row of rows.filter((r) => r.reason === 'low_margin')) {
      expect(row.candidates).toEqual([]);
      expect(row.margin).toBeLessThan(0.05);
    }
    expect(rows.filter((r) => r.reason === 'low_margin').length).toBe(receipt.rows.low_margin);

    const reportDir = join(outDir, 'report');
    const code = await main([
      'score',
      '--items',
      DEMO_ITEMS.pathname,
      '--predictions',
      predictionsPath,
      '--format',
      'ajimee',
      '--output-dir',
      reportDir,
      '--stem',
      'suite',
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(await readFile(join(reportDir, 'suite.json'), 'utf8'));
    expect(report.metrics.rows).toBe(24);
    expect(report.inputs.predictions.sha256).toBe(receipt.predictions?.sha256);
    expect(report.inputs.items.sha256).toBe(receipt.suite.items.sha256);
    expect(report.metrics.abstention_rate).toBeCloseTo((receipt.rows.low_margin + receipt.rows.no_candidates) / 24, 10);
  });

  it('refuses a model file changed by one byte: failed receipt, integrity mismatch, no predictions', async () => {
    const run = await openSuite(
      `?${toSearchParams({ autorun: ['suite'], engine: 'transformers', model: 'tfjs-tiny-reranker', ep: 'wasm' })}`,
      async (page) => {
        await page.route('**/models/tfjs-tiny-reranker/onnx/model.onnx', async (route) => {
          const response = await route.fetch();
          const body = Buffer.from(await response.body());
          body[body.length >> 1] ^= 0x01;
          await route.fulfill({ response, body });
        });
      },
    );
    await run.page.close();
    expect(run.state).toBe('failed');
    expect(receiptProblems(run.receipt)).toEqual([]);
    expect(run.receipt!.outcome).toMatchObject({ status: 'failed', failed_stage: 'load' });
    expect(run.receipt!.outcome.reason).toMatch(
      /integrity failure: onnx\/model\.onnx has SHA-256 [0-9a-f]{64}, the catalog pins [0-9a-f]{64}/,
    );
    expect(run.receipt!.model.integrity).toBe('mismatch');
    expect(run.receipt!.predictions).toBeNull();
    expect(run.predictions).toBeUndefined();
  });

  it('a stage that overruns its time limit ends the suite failed with the reason (worker terminated, no predictions)', async () => {
    const run = await openSuite(
      `?${toSearchParams({ autorun: ['suite'], engine: 'transformers', model: 'tfjs-tiny-reranker', ep: 'wasm', stageTimeoutMs: 50 })}`,
    );
    await run.page.close();
    expect(run.state).toBe('failed');
    expect(receiptProblems(run.receipt)).toEqual([]);
    expect(run.receipt!.outcome.status).toBe('failed');
    expect(run.receipt!.outcome.reason).toMatch(/did not finish within its time limit of 50 ms/);
    expect(run.receipt!.predictions).toBeNull();
    expect(run.predictions).toBeUndefined();
  });

  it.each([
    ['bad JSON', '[{"id": "12", "candidates": [', /^candidates\.json: \$: not valid JSON/],
    [
      'a row naming no item',
      JSON.stringify([{ id: 'no-such-row', candidates: ['x'] }]),
      /^candidates\.json: id "no-such-row": names no row of the items file$/,
    ],
    [
      'a duplicate id',
      JSON.stringify([
        { id: '12', candidates: ['x'] },
        { id: '12', candidates: ['y'] },
      ]),
      /^candidates\.json: id "12": duplicate id \(rows \[0\] and \[1\]\)$/,
    ],
    ['a wrong schema', JSON.stringify([{ id: '12', candidates: 'x' }]), /^candidates\.json: id "12" candidates: /],
  ])(
    'refuses a candidates file with %s before the run starts, naming file and row',
    async (_name, content, message) => {
      const page = await env.browser.context.newPage();
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.goto(env.server.url);
      await page.getByTestId('suite-source').selectOption('files');
      await page.getByTestId('suite-format').selectOption('ajimee');
      await page
        .getByTestId('suite-items')
        .setInputFiles({ name: 'items.json', mimeType: 'application/json', buffer: await readFile(DEMO_ITEMS) });
      await page
        .getByTestId('suite-candidates')
        .setInputFiles({ name: 'candidates.json', mimeType: 'application/json', buffer: Buffer.from(content) });
      await page.getByTestId('suite-run').click();
      const error = page.getByTestId('suite-error');
      await error.waitFor();
      expect(await error.textContent()).toMatch(message);
      expect(await page.getByTestId('suite-phase').textContent()).toBe('refused');
      // Refused before anything loaded: no model file was requested, no artifact produced.
      expect(requests.filter((url) => url.includes('/models/'))).toEqual([]);
      expect(await page.evaluate(() => window.drbArtifacts.length)).toBe(0);
      await page.close();
    },
  );
});
