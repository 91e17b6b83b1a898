/**
 * WebLLM's capability gate in a real headless Chromium, and its laziness:
 * - without WebGPU (Chromium launched WITHOUT --enable-unsafe-webgpu: no adapter) and without `shader-f16`
 *   (SwiftShader's adapter lacks it) a WebLLM generation run fails cleanly with the reason, BEFORE any download:
 *   no request leaves the page's origin and WebLLM's library chunk is never fetched;
 * - a page that never selects WebLLM never downloads the WebLLM adapter or library code at all.
 * The WebLLM library chunk is found in the build by content (its model-library URL prefix), not by file name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import { checkGenerationReceipt, GenerationReceipt } from '../../src/core/generation/generation-receipt.ts';
import { startPageEnv, type PageEnv } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

const MODEL = 'webllm-qwen2.5-0.5b-instruct-q4f16_1';
const GENERATE_URL = `?${toSearchParams({ autorun: ['generate'], engine: 'webllm', model: MODEL, ep: 'webgpu', reps: 1 })}`;

/** The build's JS chunks that hold WebLLM code: the adapter (ours) and the library (@mlc-ai/web-llm). */
function webLlmChunks(): { adapter: string; library: string } {
  const assets = join(inject('distDir'), 'assets');
  const js = readdirSync(assets).filter((name) => name.endsWith('.js'));
  const read = (name: string) => readFileSync(join(assets, name), 'utf8');
  const library = js.filter((name) => read(name).includes('binary-mlc-llm-libs'));
  const adapter = js.filter((name) => read(name).includes('WebLLM capability gate'));
  expect(library, 'exactly one chunk holds the WebLLM library').toHaveLength(1);
  expect(adapter, 'exactly one chunk holds the WebLLM adapter').toHaveLength(1);
  return { adapter: adapter[0], library: library[0] };
}

/** Opens `query`, records every request URL the page and its workers make, and waits for done/failed. */
async function openRecording(env: PageEnv, query: string): Promise<{ page: Page; state: string; urls: string[] }> {
  const page = await env.browser.context.newPage();
  const urls: string[] = [];
  // Context-level: requests from dedicated workers are reported there too.
  const listener = (request: { url(): string }) => urls.push(request.url());
  env.browser.context.on('request', listener);
  await page.goto(`${env.server.url}${query}`);
  await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
    timeout: 150_000,
  });
  const state = await page.evaluate(() => document.documentElement.dataset.drbState ?? '');
  env.browser.context.off('request', listener);
  return { page, state, urls };
}

async function generationReceipt(page: Page): Promise<GenerationReceipt> {
  const artifacts = await page.evaluate(() => window.drbArtifacts);
  const found = artifacts.filter((a) => a.kind === 'generation-receipt');
  expect(found).toHaveLength(1);
  const parsed = GenerationReceipt.safeParse(found[0].data);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  expect(checkGenerationReceipt(parsed.data!)).toEqual([]);
  expect(artifacts.filter((a) => a.kind === 'answers')).toEqual([
    expect.objectContaining({ data: expect.objectContaining({ answers: [] }) }),
  ]);
  return parsed.data!;
}

function expectNothingDownloaded(urls: string[], origin: string, chunks: { adapter: string; library: string }): void {
  expect(
    urls.filter((u) => !u.startsWith(origin)),
    'no request leaves the page origin',
  ).toEqual([]);
  expect(
    urls.some((u) => u.endsWith(`/assets/${chunks.adapter}`)),
    'the WebLLM adapter chunk was loaded (the WebLLM path ran)',
  ).toBe(true);
  expect(
    urls.filter((u) => u.endsWith(`/assets/${chunks.library}`)),
    'the WebLLM library is never fetched before the gate passes',
  ).toEqual([]);
  expect(
    urls.filter((u) => /mlc-chat-config|ndarray-cache|\.wasm$/.test(u) && !u.includes('/assets/ort-wasm')),
    'no model file',
  ).toEqual([]);
}

const envs: PageEnv[] = [];
afterAll(async () => {
  for (const env of envs) await env.close();
});

describe('WebLLM capability gate', () => {
  it('fails cleanly without a WebGPU adapter, with no download', async () => {
    const env = await startPageEnv({ webgpu: false });
    envs.push(env);
    const chunks = webLlmChunks();
    const { page, state, urls } = await openRecording(env, GENERATE_URL);
    expect(state).toBe('failed');
    const receipt = await generationReceipt(page);
    expect(receipt.outcome.status).toBe('failed');
    expect(receipt.outcome.reason).toMatch(
      /^WebLLM capability gate: WebLLM needs WebGPU, and (this browser has no navigator\.gpu|no WebGPU adapter was granted); nothing was downloaded$/,
    );
    expect(receipt.errors).toEqual([expect.objectContaining({ stage: 'gate', name: 'RouteError' })]);
    expect(receipt.route).toMatchObject({
      requested_ep: 'webgpu',
      completed_ep: null,
      attempts: [expect.objectContaining({ ep: 'webgpu', outcome: 'failed' })],
    });
    expect(receipt.model).toMatchObject({ id: MODEL, integrity: 'not-loaded', files: [] });
    expect(receipt.samples).toEqual([]);
    expect(receipt.capabilities.webgpu.adapter_granted).toBe(false);
    expect(await page.getByTestId('gen-failure-reason').textContent()).toContain('WebLLM needs WebGPU');
    expectNothingDownloaded(urls, env.server.url.replace(/\/$/, ''), chunks);
    await page.close();
  });

  it('fails cleanly on an adapter without shader-f16 (SwiftShader) for a q4f16 model, with no download', async () => {
    const env = await startPageEnv({ webgpu: true });
    envs.push(env);
    const chunks = webLlmChunks();
    const { page, state, urls } = await openRecording(env, GENERATE_URL);
    expect(state).toBe('failed');
    const receipt = await generationReceipt(page);
    expect(receipt.capabilities.webgpu.adapter_granted).toBe(true);
    expect(receipt.capabilities.webgpu.features).not.toContain('shader-f16');
    expect(receipt.outcome.reason).toBe(
      'WebLLM capability gate: the WebGPU adapter lacks shader-f16 (the q4f16_1 quantisation computes in float16); nothing was downloaded',
    );
    // A failed run offers its receipt, never answers; its advice names a model the panel's list actually has.
    expect(await page.getByTestId('gen-download-answers').count()).toBe(0);
    expect(await page.getByTestId('gen-download').count()).toBe(1);
    const offered = await page
      .getByTestId('gen-model')
      .locator('option')
      .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
    const advice = (await page.getByTestId('gen-advice').textContent()) ?? '';
    const named = /choose another model under Model, for example (\S+) on wasm\.$/.exec(advice)?.[1];
    expect(offered).toContain(named);
    // And the panel says so under its controls before a run: the route note names the same model.
    expect(await page.getByTestId('gen-route-note').textContent()).toBe(
      `Model: this WebGPU adapter lacks shader-f16, which ${MODEL} needs, so this run will fail before any download: choose another model under Model, for example ${named} on wasm.`,
    );
    // WebLLM on wasm: refused before the run, naming the control (not the URL's ep=).
    await page.getByTestId('gen-ep').selectOption('wasm');
    expect(await page.getByTestId('gen-route-note').textContent()).toBe(
      'Execution provider: WebLLM runs on webgpu only; choose webgpu under Execution provider.',
    );
    expect(await page.getByTestId('gen-run').isDisabled()).toBe(true);
    expectNothingDownloaded(urls, env.server.url.replace(/\/$/, ''), chunks);
    await page.close();
  });

  it('a page that never selects WebLLM never downloads WebLLM code', async () => {
    const env = envs[1] ?? (await startPageEnv({ webgpu: true }));
    if (!envs.includes(env)) envs.push(env);
    const chunks = webLlmChunks();
    const { page, state, urls } = await openRecording(
      env,
      `?${toSearchParams({ autorun: ['cold', 'warm'], warmRuns: 2 })}`,
    );
    expect(state).toBe('done');
    const scripts = urls.filter((u) => /\.(m?js)$/.test(u)).map((u) => u.replace(env.server.url, '/'));
    // What a default run loads: the page entry, the worker, the ORT adapter and ORT's runtime (listed for the record).
    expect(scripts.some((s) => s.includes('bench.worker'))).toBe(true);
    expect(scripts.some((s) => s.includes('ort-engine'))).toBe(true);
    expect(scripts.filter((s) => s.endsWith(chunks.adapter) || s.endsWith(chunks.library))).toEqual([]);
    await page.close();
  });
});
