/**
 * Autorun in every view, in Chromium: at a phone's size (390 x 844, where the page opens protocol mode) and at a
 * desktop's (1366 x 900, the developer panels), every `autorun` kind either runs (protocol mode makes its protocol's
 * cold and warm receipts, stored in the session as a tapped run's) or is refused with one line naming the parameter
 * and the view, and the page ends `done` or `failed`, never `idle`. `idle` comes only when nothing was asked. Runs are
 * kept small: the fixture models, few warm runs, two comparison rounds, one generation repetition.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AutomationSettings } from '../../src/core/automation/automation.ts';
import { parseRouteSpec } from '../../src/core/comparison/route-spec.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { waitForPage } from '../../src/node/chromium.ts';
import { pageQuery, receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };

/** Every automation state the page went through, in order (recorded from before the page's own script runs). */
declare global {
  interface Window {
    drbStates?: string[];
  }
}

/** What a case ends with: its state, every state it passed through, and the line(s) shown. */
interface Ended {
  page: Page;
  state: string;
  states: string[];
}

/** Opens `settings` at `size` and waits until the page reports an end (done or failed) or that it is idle. */
async function open(env: PageEnv, size: typeof PHONE, settings: Partial<AutomationSettings> | string): Promise<Ended> {
  const page = await env.browser.context.newPage();
  await page.setViewportSize(size);
  await page.addInitScript(() => {
    window.drbStates = [];
    new MutationObserver(() => {
      const state = document.documentElement.dataset.drbState ?? '';
      if (window.drbStates!.at(-1) !== state) window.drbStates!.push(state);
    }).observe(document.documentElement, { attributes: true, attributeFilter: ['data-drb-state'] });
  });
  await page.goto(`${env.server.url}${typeof settings === 'string' ? settings : pageQuery(settings)}`);
  const ends = ['done', 'failed', 'idle'];
  await waitForPage(page, (e) => e.includes(document.documentElement.dataset.drbState ?? ''), ends, {
    timeout: 150_000,
  });
  const state = await page.evaluate(() => document.documentElement.dataset.drbState ?? '');
  const states = await page.evaluate(() => window.drbStates ?? []);
  return { page, state, states };
}

/** The device receipts the page made, each checked (schema and invariants). */
async function deviceReceipts(page: Page): Promise<DeviceReceipt[]> {
  const receipts = await page.evaluate(() => window.drbReceipts);
  for (const receipt of receipts) expect(receiptProblems(receipt)).toEqual([]);
  return receipts;
}

describe('autorun in every view', () => {
  let env: PageEnv;
  beforeAll(async () => {
    env = await startPageEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  describe('at 390 x 844 (protocol mode, chosen by the width)', () => {
    for (const autorun of [['cold'], ['warm'], ['cold', 'warm']]) {
      it(`autorun=${autorun.join(',')} makes the protocol's receipts, stored in the session, and ends done`, async () => {
        const { page, state, states } = await open(env, PHONE, { autorun });
        expect(state).toBe('done');
        expect(states).not.toContain('idle');
        expect(await page.getByTestId('protocol-view').count()).toBe(1);
        const receipts = await deviceReceipts(page);
        expect(receipts.map((r) => r.run.kind)).toEqual(autorun);
        // The protocol's target (ort-tiny-xenc-wasm), its warm-run count, and stored as a tapped run's receipt is.
        for (const r of receipts)
          expect([r.model.id, r.route.requested_ep, r.route.threads_requested]).toEqual(['ort-tiny-xenc', 'wasm', 1]);
        expect(receipts.filter((r) => r.run.kind === 'warm').map((r) => r.run.warm_runs_requested)).toEqual(
          autorun.includes('warm') ? [20] : [],
        );
        const stored = await page.evaluate((n) => window.drbSession!.receipts.slice(-n), receipts.length);
        expect(stored).toEqual(receipts);
        // The last run's numbers, and ok: a warm receipt counts; an autorun cold run is network-cold but, with no
        // restart and clear attested by a tap, a warning that it is not a protocol cold, never an error.
        const last = page.getByTestId('last-outcome');
        expect(await last.textContent()).toMatch(
          new RegExp(`^Last: ${autorun.at(-1) === 'cold' ? 'cold run · total' : 'warm receipt · median'} `),
        );
        expect(await last.getAttribute('class')).toBe(autorun.at(-1) === 'cold' ? 'warn' : 'ok');
        await page.close();
      });
    }

    it("runs the issue's URL (autorun=cold&ep=wasm&threads=1: the protocol's own route) and ends done", async () => {
      const { page, state, states } = await open(env, PHONE, { autorun: ['cold'], ep: 'wasm', threads: 1 });
      expect([state, states.includes('idle')]).toEqual(['done', false]);
      expect((await deviceReceipts(page)).map((r) => r.run.kind)).toEqual(['cold']);
      await page.close();
    });

    for (const kind of ['suite', 'compare', 'generate']) {
      it(`refuses autorun=${kind} with one line naming the parameter and the view, and ends failed`, async () => {
        const { page, state, states } = await open(env, PHONE, { autorun: [kind] });
        expect([state, states.includes('idle')]).toEqual(['failed', false]);
        const line = await page.getByTestId('protocol-run-error').textContent();
        expect(line).toBe(
          `Invalid autorun param: '${kind}': ${kind} does not run in protocol mode (opened on a screen under 600 px ` +
            "wide), which makes its protocol's cold and warm receipts only; add mode=panels to run it in the developer panels",
        );
        expect(await page.evaluate(() => [window.drbReceipts.length, window.drbArtifacts.length])).toEqual([0, 0]);
        await page.close();
      });
    }

    it('refuses autorun=sweep: its routes are a parameter protocol mode cannot take, and it ends failed', async () => {
      // A sweep's URL is valid only with two routes, and protocol mode refuses a routes parameter (its protocol fixes
      // the route); autorunPlan's own refusal of a sweep there is unit-tested (test/unit/autorun-plan.test.ts).
      const { page, state, states } = await open(env, PHONE, {
        autorun: ['sweep'],
        compareRoutes: parseRouteSpec('wasm-1,wasm-2')!,
      });
      expect([state, states.includes('idle')]).toEqual(['failed', false]);
      expect(await page.getByTestId('param-problems').textContent()).toMatch(
        /^Invalid routes param in protocol mode: 'wasm-1,wasm-2': protocol ort-tiny-xenc-wasm fixes the model, /,
      );
      expect(await page.evaluate(() => [window.drbReceipts.length, window.drbArtifacts.length])).toEqual([0, 0]);
      await page.close();
    });

    it("refuses run settings that are not the protocol's (threads=2) instead of running something else", async () => {
      const { page, state } = await open(env, PHONE, { autorun: ['cold'], threads: 2 });
      expect(state).toBe('failed');
      // The same line a tap gets: protocol mode refuses a run setting that is not its protocol's, autorun or not.
      expect(await page.getByTestId('param-problems').textContent()).toBe(
        "Invalid threads param in protocol mode: '2': protocol ort-tiny-xenc-wasm fixes the model, engine, route, " +
          'threads and warm runs; remove it, choose another protocol (?protocol=<id>), or open the developer panels ' +
          '(?mode=panels)',
      );
      expect(await page.evaluate(() => window.drbReceipts.length)).toBe(0);
      await page.close();
    });

    it('is idle when nothing was asked', async () => {
      const { page, state } = await open(env, PHONE, {});
      expect(state).toBe('idle');
      await page.close();
    });
  });

  describe('at 1366 x 900 (the developer panels)', () => {
    const route = { model: 'ort-tiny-xenc', ep: 'wasm', threads: 1, warmRuns: 3 } as const;
    for (const autorun of [['cold'], ['warm'], ['cold', 'warm']]) {
      it(`autorun=${autorun.join(',')} runs in the Run panel and ends done`, async () => {
        const { page, state, states } = await open(env, DESKTOP, { autorun, ...route });
        expect([state, states.includes('idle')]).toEqual(['done', false]);
        expect((await deviceReceipts(page)).map((r) => r.run.kind)).toEqual(autorun);
        await page.close();
      });
    }

    const panels: Array<[string, Partial<AutomationSettings>, string]> = [
      ['suite', { model: 'tfjs-tiny-reranker', ep: 'wasm', threads: 1 }, 'suite-receipt'],
      [
        'compare',
        { model: 'ort-tiny-xenc', compareRoutes: parseRouteSpec('wasm-1,wasm-2')!, rounds: 2 },
        'comparison-receipt',
      ],
      [
        'generate',
        { model: 'tfjs-tiny-causal-lm-gen', ep: 'wasm', threads: 1, reps: 1, maxNewTokens: 4 },
        'generation-receipt',
      ],
      [
        'sweep',
        { model: 'ort-grow-xenc', compareRoutes: parseRouteSpec('wasm-1,wasm-2')!, rounds: 2, sweepSizes: [8, 16] },
        'sweep-receipt',
      ],
    ];
    for (const [kind, settings, artifact] of panels) {
      it(`autorun=${kind} runs in its panel and ends done`, async () => {
        const { page, state, states } = await open(env, DESKTOP, { autorun: [kind], ...settings });
        expect([state, states.includes('idle')]).toEqual(['done', false]);
        expect(await page.evaluate(() => window.drbArtifacts.map((a) => a.kind))).toContain(artifact);
        await page.close();
      });
    }

    it('refuses a view and a run kind that cannot go together (mode=protocol&autorun=suite), naming both', async () => {
      const { page, state, states } = await open(env, DESKTOP, { mode: 'protocol', autorun: ['suite'] });
      expect([state, states.includes('idle')]).toEqual(['failed', false]);
      expect(await page.getByTestId('protocol-run-error').textContent()).toMatch(
        /^Invalid autorun param: 'suite': suite does not run in protocol mode \(mode=protocol\), /,
      );
      await page.close();
    });

    it('is idle when nothing was asked, and refuses a suite asked together with cold runs', async () => {
      const idle = await open(env, DESKTOP, {});
      expect(idle.state).toBe('idle');
      await idle.page.close();
      const both = await open(env, DESKTOP, '?autorun=cold,suite');
      expect([both.state, both.states.includes('idle')]).toEqual(['failed', false]);
      expect(await both.page.getByTestId('param-error').textContent()).toBe(
        "Invalid autorun param: 'cold,suite', expected suite alone",
      );
      await both.page.close();
    });
  });
});
