/**
 * A worker that dies or hangs ends the run as `failed` with the reason, never a frozen page; the page stays
 * responsive during a heavy run and can run again afterwards (the worker is recreated). A worker that dies during the
 * session stage sends no report of its own, yet the receipt still names the runtime build and the model files it had
 * fetched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { toSearchParams, type AutomationSettings } from '../../src/core/automation/automation.ts';
import { checkSuiteReceipt, SuiteReceipt } from '../../src/core/suite/suite-receipt.ts';
import { pageReceipts, receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

/** The stage limit of the tests whose worker dies as it enters the session stage. */
const SESSION_LIMIT_MS = 15_000;

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv();
});
afterAll(async () => {
  await env?.close();
});

async function waitForState(page: Page, states: string[], timeoutMs = 120_000): Promise<string> {
  await waitForPage(page, (wanted) => wanted.includes(document.documentElement.dataset.drbState ?? ''), states, {
    timeout: timeoutMs,
  });
  return page.evaluate(() => document.documentElement.dataset.drbState ?? '');
}

/** Opens a heavy warm run and waits until warm samples are coming in. */
async function startHeavyWarm(settings: Partial<AutomationSettings>): Promise<Page> {
  const page = await env.browser.context.newPage();
  await page.goto(
    `${env.server.url}?${toSearchParams({ testHooks: true, autorun: ['warm'], model: 'ort-heavy-xenc', threads: 1, ...settings })}`,
  );
  await waitForPage(page, () => /Warm samples: [1-9]/.test(document.body.innerText), null, { timeout: 150_000 });
  return page;
}

describe('worker failures', () => {
  it('a crashed worker (uncaught error) ends the run failed with the reason; the page stays responsive and runs again', async () => {
    const page = await startHeavyWarm({ warmRuns: 1000 });
    // Responsive while the heavy run goes on: a trivial script and an animation frame complete during the run.
    const during = await page.evaluate(
      () =>
        new Promise<string>((resolve) =>
          requestAnimationFrame(() => resolve(document.documentElement.dataset.drbState ?? '')),
        ),
    );
    expect(during).toBe('running');
    await page.evaluate(() => window.drbTest!.crashWorker(0));
    expect(await waitForState(page, ['done', 'failed'])).toBe('failed');
    const [receipt] = await pageReceipts(page);
    expect(receiptProblems(receipt)).toEqual([]);
    expect(receipt.outcome.status).toBe('failed');
    expect(receipt.outcome.failed_stage).toBe('warm_inference');
    expect(receipt.outcome.reason).toMatch(/worker crashed during warm_inference: .*deliberate worker crash/);
    expect(receipt.errors).toEqual([expect.objectContaining({ stage: 'warm_inference', name: 'WorkerFailure' })]);
    // A new run works: the controller made a fresh worker.
    await page.getByTestId('run-cold').click();
    await waitForPage(page, () => window.drbReceipts.length === 2, null, { timeout: 60_000 });
    const again = (await pageReceipts(page))[1];
    expect(again.outcome.status).toBe('ok');
    await page.close();
  });

  it('a time limit too small for any stage ends the run failed with the stage and limit, with a valid receipt', async () => {
    const page = await env.browser.context.newPage();
    // 50 ms is the smallest limit the parameter accepts; the heavy cold run cannot fetch and compile in that time.
    await page.goto(
      `${env.server.url}?${toSearchParams({ autorun: ['cold'], model: 'ort-heavy-xenc', stageTimeoutMs: 50 })}`,
    );
    expect(await waitForState(page, ['done', 'failed'])).toBe('failed');
    const [receipt] = await pageReceipts(page);
    expect(receiptProblems(receipt)).toEqual([]);
    expect(receipt.outcome.reason).toMatch(/^stage \w+ did not finish within its time limit of 50 ms/);
    expect(await page.getByTestId('failure-reason').textContent()).toContain('time limit of 50 ms');
    await page.close();
  });

  // The next three tests spend most of their time waiting for a stage limit to notice a dead worker (the page is
  // idle meanwhile): they run side by side, so the file waits about 45 s instead of 45 + 11 + 11 (measured under
  // load; the CPU they use is the same).
  it.concurrent('a silently killed worker (terminated, no error event) trips the stage time limit and ends failed', async ({
    expect,
  }) => {
    // The limit applies to every stage, so it must leave a loaded machine time to fetch and compile the heavy model.
    const page = await startHeavyWarm({ warmRuns: 300, stageTimeoutMs: 40000 });
    await page.evaluate(() => window.drbTest!.killWorker());
    expect(await waitForState(page, ['done', 'failed'])).toBe('failed');
    const [receipt] = await pageReceipts(page);
    expect(receiptProblems(receipt)).toEqual([]);
    expect(receipt.outcome.failed_stage).toBe('warm_inference');
    expect(receipt.outcome.reason).toBe(
      'stage warm_inference did not finish within its time limit of 40000 ms (worker hung or was killed)',
    );
    await page.close();
  });

  /** Opens the page with test hooks and its worker set to die silently as it enters the session stage. */
  async function pageKillingAtSession(settings: Partial<AutomationSettings>): Promise<Page> {
    const page = await env.browser.context.newPage();
    // A limit long enough for the tiny model's fetch and the runtime's on a loaded machine (beside the heavy model's
    // load of the killed-worker test); its wait is hidden under that test's 40 s.
    await page.goto(
      `${env.server.url}?${toSearchParams({ testHooks: true, stageTimeoutMs: SESSION_LIMIT_MS, ...settings })}`,
    );
    await waitForPage(page, () => window.drbTest !== undefined);
    await page.evaluate(() => window.drbTest!.killWorkerAt('session'));
    return page;
  }

  it.concurrent('a cold run whose worker dies during the session stage still records the runtime build and model files it fetched', async ({
    expect,
  }) => {
    const page = await pageKillingAtSession({});
    await page.getByTestId('run-cold').click();
    expect(await waitForState(page, ['done', 'failed'])).toBe('failed');
    const [receipt] = await pageReceipts(page);
    await page.close();
    expect(receiptProblems(receipt)).toEqual([]);
    expect(receipt.outcome).toMatchObject({ status: 'failed', failed_stage: 'session' });
    expect(receipt.outcome.reason).toBe(
      `stage session did not finish within its time limit of ${SESSION_LIMIT_MS} ms (worker hung or was killed)`,
    );
    // Fetched before the worker died: the plain build (a wasm route), its .wasm hashed, and the model's files verified.
    expect(receipt.runtime.build).toBe('plain');
    expect(receipt.runtime.files).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          url: expect.stringMatching(/\.wasm$/),
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        }),
      ]),
    );
    expect(receipt.model.integrity).toBe('verified');
    expect(receipt.model.files.length).toBeGreaterThan(0);
    for (const file of receipt.model.files) expect(file.sha256).toBe(file.expected_sha256);
    expect(receipt.timings.model_fetch_ms).toEqual(expect.any(Number));
    expect(receipt.timings.runtime_fetch_ms).toEqual(expect.any(Number));
    expect(receipt.timings.session_create_ms).toBeNull();
  });

  it.concurrent('a suite run whose worker dies during the session stage still records the runtime build and model files it fetched', async ({
    expect,
  }) => {
    const page = await pageKillingAtSession({ engine: 'transformers', model: 'tfjs-tiny-reranker' });
    await page.getByTestId('suite-run').click();
    await waitForPage(page, () => window.drbArtifacts.some((a) => a.kind === 'suite-receipt'), null, {
      timeout: 120_000,
    });
    const artifacts = await page.evaluate(() => window.drbArtifacts);
    await page.close();
    const receipt = SuiteReceipt.parse(artifacts.find((a) => a.kind === 'suite-receipt')?.data);
    expect(checkSuiteReceipt(receipt)).toEqual([]);
    expect(receipt.outcome).toMatchObject({ status: 'failed', failed_stage: 'load' });
    expect(receipt.outcome.reason).toBe(
      `stage session did not finish within its time limit of ${SESSION_LIMIT_MS} ms (worker hung or was killed)`,
    );
    expect(receipt.runtime?.build).toBe('plain');
    expect(receipt.runtime?.files).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          url: expect.stringMatching(/\.wasm$/),
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        }),
      ]),
    );
    expect(receipt.model.integrity).toBe('verified');
    expect(receipt.model.files.length).toBeGreaterThan(0);
  });
});
