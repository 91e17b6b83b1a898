/**
 * The run journal covers suite, generation and comparison runs too (the long, memory-hungry runs iOS kills): each is
 * held in the middle of its model download (a request the test never answers), the page is reloaded, and the next
 * page load shows the banner and the next artifact records `previous_run_interrupted` with the run's mode, stage,
 * model and requested route, exactly once.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import { parseRouteSpec } from '../../src/core/comparison/route-spec.ts';
import { ComparisonReceipt } from '../../src/core/comparison/comparison-receipt.ts';
import { checkComparisonReceipt } from '../../src/core/comparison/comparison-invariants.ts';
import { checkGenerationReceipt, GenerationReceipt } from '../../src/core/generation/generation-receipt.ts';
import type { InterruptedRun } from '../../src/core/receipt/receipt.ts';
import { checkSuiteReceipt, SuiteReceipt } from '../../src/core/suite/suite-receipt.ts';
import { startPageEnv, type PageEnv } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv();
});
afterAll(async () => {
  await env?.close();
});

type JournalEntry = InterruptedRun & { tab_id: string };

/** Waits until the stored journal holds an open run of `mode` at `stage`; returns it. */
async function openEntry(page: Page, mode: string, stage: string): Promise<JournalEntry> {
  const handle = await waitForPage(page,
    ([m, s]) => {
      const j = JSON.parse(localStorage.getItem('drb.run-journal') ?? 'null');
      return j?.active?.find((e: { run_mode?: string; stage: string }) => e.run_mode === m && e.stage === s) ?? null;
    },
    [mode, stage] as const,
    { timeout: 60_000 },
  );
  return (await handle.jsonValue()) as JournalEntry;
}

/** The artifacts of `kind` the page offered (`window.drbArtifacts`). */
async function artifacts(page: Page, kind: string): Promise<unknown[]> {
  return (await page.evaluate(() => window.drbArtifacts)).filter((a) => a.kind === kind).map((a) => a.data);
}

async function waitForEnd(page: Page): Promise<string> {
  await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, { timeout: 170_000 });
  return page.evaluate(() => document.documentElement.dataset.drbState ?? '');
}

async function banner(page: Page): Promise<{ stage: string | null; text: string | null }> {
  const b = await page.waitForSelector('[data-testid="interrupted-banner"]', { timeout: 30_000 });
  return { stage: await b.getAttribute('data-drb-interrupted-stage'), text: await b.textContent() };
}

/**
 * Starts `query` with every request matching `heldUrl` left unanswered, waits until the journal has the run at
 * `stage` and the request is held, then reloads the page (same query, requests answered now) and waits for the run
 * to end.
 * @returns the journal entry of the dead run, the banner, and the page (closed by the caller)
 */
async function interruptAndRerun(query: string, heldUrl: string, mode: string, stage: string) {
  const page = await env.browser.context.newPage();
  let held = 0;
  let holding = true;
  // Before the reload, never answered: the run sits in its download, as a large model download on a phone does when
  // iOS kills the tab. After it, answered as usual (the held requests die with the old document, never answered).
  await page.route(heldUrl, async (route) => {
    if (holding) held++;
    else await route.continue();
  });
  await page.goto(`${env.server.url}${query}`);
  const entry = await openEntry(page, mode, stage);
  // The journal writes the stage BEFORE the stage's work starts: the download request follows.
  await expect.poll(() => held, { timeout: 30_000 }).toBeGreaterThan(0);
  expect(await page.evaluate(() => document.documentElement.dataset.drbState)).toBe('running');
  holding = false;
  await page.reload();
  const shown = await banner(page);
  const state = await waitForEnd(page);
  return { page, entry, shown, state };
}

describe('the run journal covers suite, generation and comparison runs', () => {
  it('a reload in the middle of a suite run: banner, and the next suite receipt records it (mode suite, stage, model, route)', async () => {
    const query = `?${toSearchParams({ autorun: ['suite'], engine: 'transformers', model: 'tfjs-tiny-reranker', ep: 'wasm', threads: 1 })}`;
    const { page, entry, shown, state } = await interruptAndRerun(query, '**/models/tfjs-tiny-reranker/onnx/*.onnx', 'suite', 'fetch');
    try {
      expect(shown.stage).toBe('fetch');
      expect(shown.text).toContain('The previous suite run (model tfjs-tiny-reranker, wasm) was interrupted at stage "fetch"');
      expect(state).toBe('done');
      const [receipt] = (await artifacts(page, 'suite-receipt')) as SuiteReceipt[];
      const parsed = SuiteReceipt.safeParse(receipt);
      expect(parsed.success).toBe(true);
      expect(checkSuiteReceipt(parsed.data!)).toEqual([]);
      expect(receipt.previous_run_interrupted).toEqual({
        run_id: entry.run_id,
        run_mode: 'suite',
        run_kind: null,
        stage: 'fetch',
        stage_started_at: entry.stage_started_at,
        model_id: 'tfjs-tiny-reranker',
        requested_ep: 'wasm',
      });
      expect(receipt.outcome.status).toBe('ok');
      // The rerun ended cleanly and recorded the interruption: nothing is left in the journal.
      expect(await page.evaluate(() => localStorage.getItem('drb.run-journal'))).toBeNull();
      // Recorded exactly once: a second suite run in the same page records nothing.
      await page.goto(`${env.server.url}${query}`);
      expect(await waitForEnd(page)).toBe('done');
      const [next] = (await artifacts(page, 'suite-receipt')) as SuiteReceipt[];
      expect(next.previous_run_interrupted).toBeNull();
      expect(await page.$('[data-testid="interrupted-banner"]')).toBeNull();
    } finally {
      await page.close();
    }
  });

  it('a reload in the middle of a generation run: the next generation receipt records it', async () => {
    const query = `?${toSearchParams({ autorun: ['generate'], model: 'tfjs-tiny-causal-lm-gen', ep: 'wasm', threads: 1, reps: 1, maxNewTokens: 4 })}`;
    const { page, entry, shown, state } = await interruptAndRerun(query, '**/models/tfjs-tiny-causal-lm/onnx/*.onnx', 'generation', 'fetch');
    try {
      expect(shown.text).toContain('The previous generation run (model tfjs-tiny-causal-lm-gen, wasm) was interrupted at stage "fetch"');
      expect(state).toBe('done');
      const [receipt] = (await artifacts(page, 'generation-receipt')) as GenerationReceipt[];
      const parsed = GenerationReceipt.safeParse(receipt);
      expect(parsed.success).toBe(true);
      expect(checkGenerationReceipt(parsed.data!)).toEqual([]);
      expect(receipt.previous_run_interrupted).toMatchObject({ run_id: entry.run_id, run_mode: 'generation', run_kind: null, stage: 'fetch', model_id: 'tfjs-tiny-causal-lm-gen', requested_ep: 'wasm' });
      expect(await page.evaluate(() => localStorage.getItem('drb.run-journal'))).toBeNull();
    } finally {
      await page.close();
    }
  });

  it('a reload in the middle of a comparison: the next comparison receipt records it (requested route: the baseline\'s)', async () => {
    const query = `?${toSearchParams({ autorun: ['compare'], model: 'ort-tiny-xenc', compareRoutes: parseRouteSpec('wasm-1,wasm-2')!, rounds: 2, seed: 3 })}`;
    const { page, entry, shown, state } = await interruptAndRerun(query, '**/models/ort-tiny-xenc/model.onnx', 'comparison', 'fetch');
    try {
      expect(shown.text).toContain('The previous comparison run (model ort-tiny-xenc, wasm) was interrupted at stage "fetch"');
      expect(state).toBe('done');
      const [receipt] = (await artifacts(page, 'comparison-receipt')) as ComparisonReceipt[];
      const parsed = ComparisonReceipt.safeParse(receipt);
      expect(parsed.success).toBe(true);
      expect(checkComparisonReceipt(parsed.data!)).toEqual([]);
      expect(receipt.previous_run_interrupted).toMatchObject({ run_id: entry.run_id, run_mode: 'comparison', run_kind: null, stage: 'fetch', model_id: 'ort-tiny-xenc', requested_ep: 'wasm' });
      expect(await page.evaluate(() => localStorage.getItem('drb.run-journal'))).toBeNull();
    } finally {
      await page.close();
    }
  });
});
