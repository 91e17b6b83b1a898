/**
 * Cancel, in every panel: a run in progress (its model download held unanswered, so it is surely still running)
 * is cancelled with the panel's Cancel button; the page ends `failed`, the receipt it offers is valid and says
 * `cancelled`, and the run journal has no open run left (a cancelled run is not an interrupted one).
 * A second check cancels a warm series mid-way: the samples finished so far are kept in the failed receipt.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams, type AutomationSettings } from '../../src/core/automation/automation.ts';
import { parseRouteSpec } from '../../src/core/comparison/route-spec.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import { startPageEnv, type PageEnv } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv();
});
afterAll(async () => {
  await env?.close();
});

async function waitForEnd(page: Page): Promise<string> {
  await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
    timeout: 120_000,
  });
  return page.evaluate(() => document.documentElement.dataset.drbState ?? '');
}

/** The receipt the page offered: a device receipt (`window.drbReceipts`) or the artifact of `kind`. */
async function offered(page: Page, kind: string | null): Promise<Record<string, unknown>[]> {
  if (kind === null) return (await page.evaluate(() => window.drbReceipts)) as unknown as Record<string, unknown>[];
  return (await page.evaluate(() => window.drbArtifacts))
    .filter((a) => a.kind === kind)
    .map((a) => a.data as Record<string, unknown>);
}

/** Open runs left in the stored journal. */
async function openRuns(page: Page): Promise<unknown[]> {
  return page.evaluate(
    () => (JSON.parse(localStorage.getItem('drb.run-journal') ?? 'null')?.active as unknown[] | undefined) ?? [],
  );
}

describe('Cancel button', () => {
  it.each<[string, Partial<AutomationSettings>, string, string, string | null]>([
    [
      'the Run panel (cold run)',
      { autorun: ['cold'], model: 'ort-heavy-xenc', ep: 'wasm', threads: 1 },
      '**/models/ort-heavy-xenc/model.onnx',
      'run-cancel',
      null,
    ],
    [
      'the Suite panel',
      { autorun: ['suite'], engine: 'transformers', model: 'tfjs-tiny-reranker', ep: 'wasm', threads: 1 },
      '**/models/tfjs-tiny-reranker/onnx/*.onnx',
      'suite-cancel',
      'suite-receipt',
    ],
    [
      'the Generation panel',
      { autorun: ['generate'], model: 'tfjs-tiny-causal-lm-gen', ep: 'wasm', threads: 1, reps: 1 },
      '**/models/tfjs-tiny-causal-lm/onnx/*.onnx',
      'gen-cancel',
      'generation-receipt',
    ],
    [
      'the Compare panel',
      { autorun: ['compare'], model: 'ort-tiny-xenc', compareRoutes: parseRouteSpec('wasm-1,wasm-2')!, rounds: 2 },
      '**/models/ort-tiny-xenc/model.onnx',
      'cmp-cancel',
      'comparison-receipt',
    ],
  ])(
    'cancels a run in %s: failed, reason cancelled, a valid receipt, no open journal entry',
    async (_panel, settings, heldUrl, button, kind) => {
      const page = await env.browser.context.newPage();
      let held = 0;
      // Never answered: the run sits in its model download until it is cancelled.
      await page.route(heldUrl, () => {
        held++;
      });
      await page.goto(`${env.server.url}?${toSearchParams(settings)}`);
      await expect.poll(() => held, { timeout: 60_000 }).toBeGreaterThan(0);
      expect(await page.evaluate(() => document.documentElement.dataset.drbState)).toBe('running');
      await page.getByTestId(button).click();
      expect(await waitForEnd(page)).toBe('failed');
      const receipts = await offered(page, kind);
      expect(receipts).toHaveLength(1);
      const [receipt] = receipts;
      expect(validateReceipt(receipt).problems).toEqual([]);
      expect(receipt.outcome).toMatchObject({ status: 'failed', reason: 'cancelled' });
      expect(await openRuns(page)).toEqual([]);
      // Nothing runs any more: the button is disabled again.
      expect(await page.getByTestId(button).isDisabled()).toBe(true);
      await page.close();
    },
  );

  it('cancels a warm series mid-way: the samples finished before the cancel are kept, and the run is failed', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(
      `${env.server.url}?${toSearchParams({ autorun: ['warm'], model: 'ort-heavy-xenc', ep: 'wasm', threads: 1, warmRuns: 1000 })}`,
    );
    await waitForPage(page, () => (localStorage.getItem('drb.run-journal') ?? '').includes('warm_inference'), null, {
      timeout: 120_000,
    });
    await page.getByTestId('run-cancel').click();
    expect(await waitForEnd(page)).toBe('failed');
    const [receipt] = (await offered(page, null)) as unknown as Array<{
      outcome: { status: string; reason: string; failed_stage: string };
      timings: { warm_samples_ms: number[]; warm_stats: unknown };
      run: { inferences_completed: number };
      errors: Array<{ name: string; message: string }>;
    }>;
    expect(validateReceipt(receipt).problems).toEqual([]);
    expect(receipt.outcome).toEqual({ status: 'failed', reason: 'cancelled', failed_stage: 'warm_inference' });
    expect(receipt.errors).toContainEqual(expect.objectContaining({ name: 'Cancelled', message: 'cancelled' }));
    expect(receipt.run.inferences_completed).toBe(receipt.timings.warm_samples_ms.length);
    expect(receipt.run.inferences_completed).toBeLessThan(1000);
    expect(await openRuns(page)).toEqual([]);
    await page.close();
  });
});
