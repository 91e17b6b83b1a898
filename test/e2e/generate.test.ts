/**
 * transformers.js generation runs in a real headless Chromium on the tiny GPT-2-shaped causal LM fixture (random
 * weights, real runtime): wasm and webgpu (SwiftShader). Checks the generation receipt (schema + invariants, plan
 * order, declared seeds, cold load apart), that no text enters it, that the answers artifact is separate, that the
 * same seed reproduces the same answers, that the real download buttons give the same artifacts, and that no
 * request leaves the page's origin. The WebGPU run, summarised by `drb receipts summarize`, is functional_only (a
 * software adapter) and never ranked: the one SwiftShader generation page of the suite serves both checks.
 */
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { GenerationAnswers } from '../../src/core/generation/generation-answers.ts';
import { checkGenerationReceipt, GenerationReceipt } from '../../src/core/generation/generation-receipt.ts';
import { startPageEnv, type PageEnv } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';
import { runCli } from '../unit/cli-harness.ts';
import { testTempDir } from '../temp-dir.ts';

const MODEL = 'tfjs-tiny-causal-lm-gen';
const prompts = JSON.parse(
  await readFile(new URL('../../public/prompts/drb-gen-ja-en-v1.json', import.meta.url), 'utf8'),
) as {
  prompts: Array<{ id: string; text: string }>;
  warmup: { text: string };
};

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv({ webgpu: true });
});
afterAll(async () => {
  await env?.close();
});

async function run(
  query: string,
): Promise<{ page: Page; state: string; receipt: GenerationReceipt; answers: GenerationAnswers; urls: string[] }> {
  const page = await env.browser.context.newPage();
  const urls: string[] = [];
  const listener = (request: { url(): string }) => urls.push(request.url());
  env.browser.context.on('request', listener);
  await page.goto(`${env.server.url}${query}`);
  await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
    timeout: 170_000,
  });
  env.browser.context.off('request', listener);
  const state = await page.evaluate(() => document.documentElement.dataset.drbState ?? '');
  const artifacts = await page.evaluate(() => window.drbArtifacts);
  const receipts = artifacts.filter((a) => a.kind === 'generation-receipt');
  const answers = artifacts.filter((a) => a.kind === 'answers');
  expect([receipts.length, answers.length]).toEqual([1, 1]);
  const parsed = GenerationReceipt.safeParse(receipts[0].data);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  expect(checkGenerationReceipt(parsed.data!)).toEqual([]);
  const parsedAnswers = GenerationAnswers.safeParse(answers[0].data);
  expect(parsedAnswers.success).toBe(true);
  return { page, state, receipt: parsed.data!, answers: parsedAnswers.data!, urls };
}

describe('transformers.js generation run', () => {
  it('runs on wasm: warm-up + 10 prompts x 2 repetitions with seeds 17 and 29, timings only in the receipt', async () => {
    // A token limit of 32 instead of the prompt set's 128 (checked in test/unit/generation*.test.ts): random weights
    // rarely stop early, so the limit sets how long the 30 generations of this test decode.
    const { page, state, receipt, answers, urls } = await run(
      `?${toSearchParams({ autorun: ['generate'], model: MODEL, ep: 'wasm', threads: 1, reps: 2, maxNewTokens: 32 })}&token=s3cr3t-q#s3cr3t-frag`,
    );
    // A secret in the page URL's query or fragment never reaches either artifact.
    expect(JSON.stringify(receipt)).not.toContain('s3cr3t');
    expect(JSON.stringify(answers)).not.toContain('s3cr3t');
    expect(state).toBe('done');
    expect(receipt.outcome).toEqual({ status: 'ok', reason: null });
    expect(receipt.engine.name).toBe('transformers');
    expect(receipt.route).toMatchObject({ requested_ep: 'wasm', completed_ep: 'wasm', threads_effective: 1 });
    expect(receipt.model).toMatchObject({ id: MODEL, kind: 'fixture', task: 'generate', integrity: 'verified' });
    expect(receipt.model.files.length).toBeGreaterThan(0);
    expect(receipt.plan).toMatchObject({
      repetitions: 2,
      seed_control: 'seeded',
      seeds: [17, 29],
      warmup_prompt_id: 'warmup',
      max_new_tokens: 32,
      max_new_tokens_overridden: true,
    });
    expect(receipt.samples.map((s) => `${s.repetition}:${s.prompt_id}:${s.seed}`)).toEqual([
      ...prompts.prompts.map((p) => `1:${p.id}:17`),
      ...prompts.prompts.map((p) => `2:${p.id}:29`),
    ]);
    for (const s of receipt.samples) {
      expect(s.outcome).toBe('ok');
      expect(s.ttft_ms).toBeGreaterThan(0);
      expect(s.e2e_ms).toBeGreaterThanOrEqual(s.ttft_ms!);
      expect(s.output_tokens).toBeGreaterThan(0);
      expect(s.prompt_tokens).toBeGreaterThan(0);
      // transformers.js reports no timings of its own.
      expect(s.engine_reported).toBeNull();
      // Truncated exactly when the limit was reached (random weights rarely produce the end token).
      expect(s.truncated).toBe(s.output_tokens === receipt.plan.max_new_tokens);
    }
    expect(receipt.summary).toMatchObject({ measured_planned: 20, ok_samples: 20, failures: 0 });
    expect(receipt.summary.sustained_speed_ratio).toBeGreaterThan(0);
    expect(receipt.cold.load_ms).toBeGreaterThan(0);
    expect(receipt.cold.warmup_e2e_ms).toBeGreaterThan(0);
    expect(receipt.cold.warmup_ttft_ms).toBeGreaterThan(0);
    // No prompt and no answer text in the receipt; the answers are a separate artifact linked by receipt id.
    const json = JSON.stringify(receipt);
    for (const p of [...prompts.prompts.map((x) => x.text), prompts.warmup.text]) expect(json).not.toContain(p);
    expect(answers.receipt_id).toBe(receipt.receipt_id);
    expect(answers.answers).toHaveLength(20);
    for (const a of answers.answers.filter((x) => x.text.trim().length >= 8)) expect(json).not.toContain(a.text);
    // Local model: no request leaves the page's origin.
    const origin = env.server.url.replace(/\/$/, '');
    expect(urls.filter((u) => !u.startsWith(origin))).toEqual([]);

    // The page shows the run, not only tells: TTFT and decode-speed strips, one dot per measured prompt.
    expect(await page.getByTestId('gen-ttft-chart').locator('circle').count()).toBe(20);
    expect(await page.getByTestId('gen-decode-chart').locator('circle').count()).toBe(20);

    // The real download buttons give the same artifacts (the answers only through their own button).
    const [receiptDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('gen-download').click(),
    ]);
    expect(receiptDownload.suggestedFilename()).toMatch(
      /^drb-tfjs-tiny-causal-lm-gen-wasm-1-generation-\d{8}T\d{6}Z\.json$/,
    );
    const downloaded = JSON.parse(await readFile((await receiptDownload.path())!, 'utf8'));
    expect(downloaded).toEqual(receipt);
    const [answersDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('gen-download-answers').click(),
    ]);
    expect(answersDownload.suggestedFilename()).toMatch(
      /^drb-tfjs-tiny-causal-lm-gen-wasm-1-answers-\d{8}T\d{6}Z\.json$/,
    );
    expect(JSON.parse(await readFile((await answersDownload.path())!, 'utf8'))).toEqual(answers);
    await page.close();

    // The same seed reproduces the same answers (seed control is real, not just recorded).
    const again = await run(
      `?${toSearchParams({ autorun: ['generate'], model: MODEL, ep: 'wasm', threads: 2, reps: 1, maxNewTokens: 32 })}`,
    );
    expect(again.state).toBe('done');
    expect(again.answers.answers.map((a) => a.text)).toEqual(
      answers.answers.filter((a) => a.repetition === 1).map((a) => a.text),
    );
    await again.page.close();
  });

  it('runs on webgpu (SwiftShader), with a recorded token limit of 4 (SwiftShader decodes about 5 tokens/s)', async () => {
    const { page, state, receipt } = await run(
      `?${toSearchParams({ autorun: ['generate'], model: MODEL, ep: 'webgpu', reps: 1, maxNewTokens: 4 })}`,
    );
    expect(receipt.plan).toMatchObject({ max_new_tokens: 4, max_new_tokens_overridden: true });
    expect(receipt.samples.every((s) => s.output_tokens! <= 4)).toBe(true);
    expect(state).toBe('done');
    expect(receipt.route).toMatchObject({ requested_ep: 'webgpu', completed_ep: 'webgpu', fallback_reason: null });
    expect(receipt.summary).toMatchObject({ measured_planned: 10, ok_samples: 10, failures: 0 });
    expect(receipt.capabilities.webgpu.adapter_granted).toBe(true);
    await page.close();

    // Summarised, a run on SwiftShader (a software WebGPU adapter) is functional_only and never ranked. (This was
    // test/e2e/answers.test.ts's own SwiftShader run, the same query: one page of about 35 CPU s now serves both.)
    expect(receipt.capabilities.webgpu.is_fallback_adapter).toBe(true);
    const dir = testTempDir('drb-generate-e2e-');
    writeFileSync(join(dir, 'generation.json'), JSON.stringify(receipt));
    expect(
      (await runCli(['receipts', 'summarize', join(dir, 'generation.json'), '--out', join(dir, 'summary')])).code,
    ).toBe(0);
    const target = ReceiptsSummary.parse(JSON.parse(await readFile(join(dir, 'summary', 'summary.json'), 'utf8')))
      .generation_targets[0];
    expect(target.software_adapter_receipt_ids).toEqual([receipt.receipt_id]);
    expect(target.ranking!.row_class.class).toBe('functional_only');
    expect(target.ranking!.row_class.because[0]).toBe(
      '1 run(s) on a software WebGPU adapter (e.g. SwiftShader): functional only, its timings mean nothing',
    );
    for (const p of target.ranking!.profiles) {
      expect(p).toMatchObject({ ranked: false, fit: null });
      expect(p.not_ranked_because[0]).toBe(
        'functional_only: 1 run(s) on a software WebGPU adapter (e.g. SwiftShader): functional only, its timings mean nothing',
      );
    }
  });

  it('ends failed with the reason when a stage overruns its time limit (a hung worker never freezes the run)', async () => {
    const { page, state, receipt, answers } = await run(
      `?${toSearchParams({ autorun: ['generate'], model: MODEL, ep: 'wasm', reps: 1, stageTimeoutMs: 150 })}`,
    );
    expect(state).toBe('failed');
    expect(receipt.outcome.status).toBe('failed');
    expect(receipt.outcome.reason).toMatch(/did not finish within its time limit of 150 ms/);
    expect(receipt.errors.length).toBeGreaterThan(0);
    expect(answers.answers).toEqual([]);
    await page.close();
  });

  it('refuses a model that is not a generate model, clearly', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(`${env.server.url}?${toSearchParams({ autorun: ['generate'], model: 'ort-tiny-xenc' })}`);
    await waitForPage(page, () => document.documentElement.dataset.drbState === 'failed', null, { timeout: 30_000 });
    expect(await page.getByTestId('generation-panel').textContent()).toContain(
      'Model ort-tiny-xenc is not a generate model in the catalog',
    );
    await page.close();
  });
});
