/**
 * Every panel in a real headless Chromium: one run at a time page-wide (a second run is refused in every panel while
 * one is in progress), and runs that overlap across two tabs of the site are flagged in their receipts and set aside
 * by `drb receipts summarize`. Never checks absolute timings.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComparisonReceipt } from '../../src/core/comparison/comparison-receipt.ts';
import { checkComparisonReceipt } from '../../src/core/comparison/comparison-invariants.ts';
import { comparisonVerdicts } from '../../src/core/comparison/comparison-verdict.ts';
import { parseRouteSpec } from '../../src/core/comparison/route-spec.ts';
import type { SweepReceipt } from '../../src/core/comparison/sweep-receipt.ts';
import { crossoverSentence } from '../../src/core/comparison/sweep-statistics.ts';
import { receiptFileName } from '../../src/core/receipt/receipt-envelope.ts';
import { threeSignificant } from '../../src/core/text/format-number.ts';
import type { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { runCli } from '../unit/cli-harness.ts';
import { pageQuery, pageReceipts, receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let env: PageEnv;
beforeAll(async () => {
  // WebGPU on: the comparison's webgpu route runs on SwiftShader, a software adapter.
  env = await startPageEnv({ webgpu: true });
});
afterAll(async () => {
  await env?.close();
});

const state = (page: Page) => page.evaluate(() => document.documentElement.dataset.drbState ?? '');

async function waitForEnd(page: Page): Promise<string> {
  await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
    timeout: 170_000,
  });
  return state(page);
}

/** A warm series of the heavy fixture long enough to still be running while the test acts (it is cancelled). */
const LONG_WARM = pageQuery({ autorun: ['warm'], model: 'ort-heavy-xenc', ep: 'wasm', threads: 1, warmRuns: 1000 });

/** Waits until the page's journal says its warm series is under way. */
async function waitForWarmSeries(page: Page): Promise<void> {
  await waitForPage(page, () => (localStorage.getItem('drb.run-journal') ?? '').includes('warm_inference'), null, {
    timeout: 150_000,
  });
}

/** Collects the page's console errors and uncaught errors (page and worker) from now on. */
function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('worker', (worker) =>
    worker.on('console', (message) => message.type() === 'error' && errors.push(`worker: ${message.text()}`)),
  );
  return errors;
}

describe('the comparison panel', () => {
  it('leads with the verdict and its interval, marks the software adapter, and logs no console error', async () => {
    const page = await env.browser.context.newPage();
    const errors = consoleErrors(page);
    await page.goto(
      `${env.server.url}${pageQuery({ autorun: ['compare'], model: 'ort-tiny-xenc', compareRoutes: parseRouteSpec('wasm-1,wasm-2,webgpu')!, rounds: 6, seed: 3 })}`,
    );
    expect(await waitForEnd(page)).toBe('done');
    const found = (await page.evaluate(() => window.drbArtifacts)).filter((a) => a.kind === 'comparison-receipt');
    const receipt = ComparisonReceipt.parse(found[0].data);
    expect(checkComparisonReceipt(receipt)).toEqual([]);
    const { lead, routes } = comparisonVerdicts(receipt);
    // Two ratio sentences, and the line saying where the work ran: the fixture's webgpu route runs its int64 Cast on
    // the CPU (onnxruntime-web's WebGPU EP runs no int64 arithmetic), so the routes differ in where their work ran.
    expect(lead.filter((line) => !line.startsWith('Where the work ran:'))).toHaveLength(2);
    expect(lead.filter((line) => line.startsWith('Where the work ran:'))).toEqual([
      expect.stringMatching(/webgpu: 1 of \d+ nodes on the CPU \(Cast x1\)/),
    ]);
    // The page leads with the receipt's own sentences (ratio, 95% interval, verdict at 3 significant digits).
    const shown = (await page.getByTestId('cmp-verdict').textContent()) ?? '';
    for (const line of lead) expect(shown).toContain(line);
    expect(shown).toMatch(
      /took [0-9.]+x the time of wasm-1; 95% interval [0-9.]+ to [0-9.]+: (faster|slower|no clear difference)/,
    );
    for (const v of routes) {
      expect(await page.getByTestId(`route-${v.route_id}`).getAttribute('data-standing')).toBe(v.standing);
    }
    // SwiftShader is a software adapter when the browser says so: flagged in the receipt and marked on the page.
    const webgpu = receipt.routes.find((r) => r.id === 'webgpu')!;
    expect(webgpu.software_adapter).toBe(receipt.capabilities.webgpu.is_fallback_adapter);
    expect(await page.getByTestId('software-adapter-webgpu').count()).toBe(webgpu.software_adapter ? 1 : 0);
    if (webgpu.software_adapter) {
      // The mark wraps between words: its cell is at least as wide as its longest word ("representative" once broke
      // into "represent / ative" in a squeezed column).
      const fit = await page.getByTestId('software-adapter-webgpu').evaluate((mark) => {
        const context = document.createElement('canvas').getContext('2d')!;
        context.font = getComputedStyle(mark).font;
        const words = (mark.textContent ?? '').split(/\s+/).filter(Boolean);
        const longest = Math.max(...words.map((w) => context.measureText(w).width));
        return { cell: mark.closest('td')!.getBoundingClientRect().width, longest };
      });
      // Sub-pixel text widths: half a pixel of slack.
      expect(fit.cell + 0.5).toBeGreaterThanOrEqual(fit.longest);
    }
    // The route table stays inside its result (no column pushed past the edge), and no verdict breaks mid-word.
    const edges = await page.getByTestId('compare-table').evaluate((table) => ({
      table: table.getBoundingClientRect().right,
      box: table.closest('[data-testid=comparison-receipt]')!.getBoundingClientRect().right,
    }));
    expect(edges.table).toBeLessThanOrEqual(edges.box);
    await panelShots(page, 1366, ['compare-panel']);
    expect(errors).toEqual([]);
    await page.close();
  });
});

/**
 * Every visible text on the page whose rendered size is under 12 px (an SVG's text at its size times the SVG's scale
 * on screen), as "size: text" lines.
 */
async function smallText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const small: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      const text = node.textContent?.trim() ?? '';
      const element = node.parentElement;
      if (text === '' || element === null || element.closest('option, select')) continue;
      const rect = element.getBoundingClientRect();
      // Not shown: display none, a 1 px visually hidden header, off screen.
      if (rect.width <= 1 || rect.height <= 1 || rect.right < 0) continue;
      let px = Number.parseFloat(getComputedStyle(element).fontSize);
      const svg = element.closest('svg');
      const box = svg?.viewBox.baseVal;
      if (svg && box && box.width > 0) px *= svg.getBoundingClientRect().width / box.width;
      if (px < 11.95) small.push(`${px.toFixed(1)} px: ${text.slice(0, 50)}`);
    }
    return small;
  });
}

/** Screenshots of the panels when DRB_PANEL_SHOTS names a folder (kept there; nothing is written otherwise). */
async function panelShots(
  page: Page,
  width: number,
  ids = ['controls', 'user-model-panel', 'generation-panel', 'compare-panel', 'suite-panel'],
): Promise<void> {
  const dir = process.env.DRB_PANEL_SHOTS;
  if (!dir) return;
  await page.setViewportSize({ width, height: width < 600 ? 667 : 900 });
  for (const id of ids) await page.getByTestId(id).screenshot({ path: join(dir, `panel-${width}-${id}.png`) });
  if (!ids.includes('controls')) return;
  await page.locator('section.panel', { has: page.locator('h2', { hasText: 'Receipts' }) }).screenshot({
    path: join(dir, `panel-${width}-receipts.png`),
  });
}

/** Whether the page is wider than its viewport (a phone would scroll sideways). */
async function overflows(page: Page): Promise<{ scrollWidth: number; viewport: number }> {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, viewport: window.innerWidth }));
}

describe('every panel at 375 px', () => {
  it("shows each panel's results without sideways scrolling, with every stage time, median and p95 as text, and logs no console error", async () => {
    const page = await env.browser.context.newPage();
    await page.setViewportSize({ width: 375, height: 667 });
    const errors = consoleErrors(page);
    const fits = async (what: string) => {
      const { scrollWidth, viewport } = await overflows(page);
      expect(scrollWidth, `${what}: page ${scrollWidth} px wide in a ${viewport} px viewport`).toBeLessThanOrEqual(
        viewport,
      );
      expect(await smallText(page), `${what}: text under 12 px`).toEqual([]);
    };
    // The Run panel: a cold and a warm run (developer panels on a phone: mode=panels).
    await page.goto(
      `${env.server.url}${pageQuery({ mode: 'panels', autorun: ['cold', 'warm'], model: 'ort-tiny-xenc', ep: 'wasm', threads: 1, warmRuns: 8 })}`,
    );
    expect(await waitForEnd(page)).toBe('done');
    const [cold, warm] = await pageReceipts(page);
    const coldText = (await page.getByTestId('cold-stages').textContent()) ?? '';
    for (const ms of [
      cold.timings.model_fetch_ms,
      cold.timings.runtime_fetch_ms,
      cold.timings.session_create_ms,
      cold.timings.first_inference_ms,
    ]) {
      expect(ms).toEqual(expect.any(Number));
      expect(coldText).toContain(`${threeSignificant(ms!)} ms`);
    }
    const warmText = (await page.getByTestId('warm-stats').textContent()) ?? '';
    const w = warm.timings.warm_stats!;
    for (const [name, v] of [
      ['median', w.median],
      ['p95', w.p95],
      ['min', w.min],
      ['max', w.max],
    ] as const)
      expect(warmText).toContain(`${name} ${threeSignificant(v)} ms`);
    await fits('Run panel with a cold and a warm receipt');
    expect(await page.getByTestId('receipt-next').first().textContent()).toContain(
      `npx drb receipts summarize ${receiptFileName(warm)}`,
    );

    // A warm run of the same model on webgpu (SwiftShader here): the panel says before the run that the adapter is a
    // software one when the browser says so, names it beside the number after, and the two warm charts share one
    // labelled value axis (a log one when they span more than a decade).
    await page.getByTestId('ep').selectOption('webgpu');
    const software = await page.evaluate(() => window.drbReceipts[0].capabilities.webgpu.is_fallback_adapter);
    expect(await page.getByTestId('route-note').count()).toBe(software ? 1 : 0);
    await page.getByTestId('run-warm').click();
    await waitForPage(page, () => window.drbReceipts.length === 3, null, { timeout: 170_000 });
    const gpuWarm = (await pageReceipts(page))[2];
    expect(gpuWarm.route.completed_ep).toBe('webgpu');
    const notes = await page.getByTestId('software-adapter-note').allTextContents();
    expect(notes).toHaveLength(software ? 1 : 0);
    if (software) expect(notes[0]).toMatch(/WebGPU ran on a software \(fallback\) adapter/);
    const axes = await page
      .locator('[data-testid=warm-chart] svg')
      .evaluateAll((svgs) => svgs.map((s) => [s.getAttribute('data-scale'), s.getAttribute('data-scale-max')]));
    expect(axes).toHaveLength(2);
    expect(axes[0]).toEqual(axes[1]);
    const medians = [warm, gpuWarm].map((r) => r.timings.warm_stats!.median);
    const all = [warm, gpuWarm].flatMap((r) => r.timings.warm_samples_ms);
    expect(axes[0][0]).toBe(Math.max(...all) / Math.min(...all) > 10 ? 'log' : 'linear');
    const titles = await page.locator('[data-testid=warm-chart] svg text[data-axis=value-title]').allTextContents();
    expect(titles).toEqual(Array(2).fill(axes[0][0] === 'log' ? 'ms (log scale)' : 'ms'));
    expect(medians.every((m) => m > 0)).toBe(true);
    await page.getByTestId('ep').selectOption('wasm');
    await fits('Run panel with a wasm and a webgpu warm receipt');
    // WCAG AA: the warm chart's p95 and median labels, its axis text and the footer reach 4.5:1 on their backgrounds.
    const contrasts = await page.evaluate(() => {
      const rgb = (c: string) =>
        c.startsWith('#')
          ? [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16))
          : (c.match(/\d+/g) ?? []).slice(0, 3).map(Number);
      const lum = (c: string) => {
        const [r, g, b] = rgb(c)
          .map((v) => v / 255)
          .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const ratio = (a: string, b: string) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
      const labels = [...document.querySelectorAll('[data-testid=warm-chart] svg text[data-line]')].map((t) =>
        ratio(t.getAttribute('fill') ?? '#000', '#ffffff'),
      );
      const axis = [...document.querySelectorAll('[data-testid=warm-chart] svg text[data-axis]')].map((t) =>
        ratio(t.getAttribute('fill') ?? '#000', '#ffffff'),
      );
      const footer = document.querySelector('footer')!;
      return {
        labels,
        axis,
        footer: ratio(getComputedStyle(footer).color, getComputedStyle(document.documentElement).backgroundColor),
      };
    });
    // Two warm charts now, each with its median and p95 label, and its axis text.
    expect(contrasts.labels).toHaveLength(4);
    expect(contrasts.axis.length).toBeGreaterThan(4);
    for (const r of [...contrasts.labels, ...contrasts.axis, contrasts.footer]) expect(r).toBeGreaterThanOrEqual(4.5);

    // Your own model: the tiny graph picked from disk, cold and warm, with the same stages and statistics.
    await page.getByTestId('user-model-files').setInputFiles(join(ROOT, 'public/models/ort-tiny-xenc/model.onnx'));
    await page.getByTestId('user-model-recognised').waitFor();
    await page.getByTestId('user-model-warm-runs').fill('5');
    await page.getByTestId('user-model-run').click();
    await page.getByTestId('user-model-next').waitFor({ timeout: 170_000 });
    expect(await page.getByTestId('user-model-receipt-cold').getByTestId('cold-stages').count()).toBe(1);
    expect(await page.getByTestId('user-model-receipt-warm').getByTestId('warm-stats').textContent()).toMatch(
      /^5 samples: median /,
    );
    await fits('your own model with its cold and warm receipts');

    // Generation: the panel's own defaults (the fixture causal LM).
    await page.getByTestId('gen-run').click();
    await page.getByTestId('generation-receipt').waitFor({ timeout: 170_000 });
    const gen = (await page.evaluate(() => window.drbArtifacts)).find((a) => a.kind === 'generation-receipt')!.data as {
      summary: { ttft_ms_median: number; ttft_ms_p95: number };
    };
    const ttftText = (await page.getByTestId('gen-ttft-chart-numbers').textContent()) ?? '';
    expect(ttftText).toContain(`median ${threeSignificant(gen.summary.ttft_ms_median)} ms`);
    expect(ttftText).toContain(`p95 ${threeSignificant(gen.summary.ttft_ms_p95)} ms`);
    expect(await page.getByTestId('generation-summary').textContent()).toContain('TTFT median / p95');
    // The TTFT chart has a value axis in ms with ticks; the run ends with its next step.
    expect(await page.locator('[data-testid=gen-ttft-chart] svg text[data-axis=value-title]').textContent()).toMatch(
      /^ms( \(log scale\))?$/,
    );
    expect(await page.locator('[data-testid=gen-ttft-chart] svg text[data-axis=value-tick]').count()).toBeGreaterThan(
      1,
    );
    expect(await page.getByTestId('gen-next').textContent()).toContain('npx drb receipts summarize drb-');
    await fits('generation panel with its receipt');

    // Comparison: the tiny fixture on two routes.
    await page.getByTestId('cmp-model').selectOption('ort-tiny-xenc');
    // The download's size is known before the run starts (pinned in the catalog; "size unknown" when it is not).
    expect(await page.getByTestId('cmp-model-size').textContent()).toMatch(/^Model download: [0-9.]+ KiB$/);
    await page.getByTestId('cmp-routes').fill('wasm-1,wasm-2');
    await page.getByTestId('cmp-rounds').fill('3');
    await page.getByTestId('cmp-rounds').press('Tab');
    // The Routes box shows its whole text.
    expect(
      await page
        .getByTestId('cmp-routes')
        .evaluate((input: HTMLInputElement) => input.scrollWidth <= input.clientWidth),
    ).toBe(true);
    // Every progress line the run shows, recorded as it changes.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { progressSeen: string[] }).progressSeen = seen;
      new MutationObserver(() => {
        const text = document.querySelector('[data-testid=cmp-progress]')?.textContent;
        if (text && seen.at(-1) !== text) seen.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.getByTestId('cmp-run').click();
    await page.getByTestId('comparison-receipt').waitFor({ timeout: 170_000 });
    const comparison = ComparisonReceipt.parse(
      (await page.evaluate(() => window.drbArtifacts)).find((a) => a.kind === 'comparison-receipt')!.data,
    );
    expect(comparison.schedule.rounds).toBe(3);
    for (const route of comparison.routes) {
      const row = (await page.getByTestId(`route-${route.id}`).textContent()) ?? '';
      expect(row).toContain(threeSignificant(route.stats!.median));
      expect(row).toContain(threeSignificant(route.stats!.p95));
    }
    const progress = await page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen);
    expect(progress).toContainEqual(expect.stringMatching(/^timed · round 3 of 3 · run [56] of 6 \(wasm-[12]\)$/));
    expect(progress).toContainEqual(expect.stringMatching(/^loading wasm-2 \(route 2 of 2\)$/));
    expect(await page.getByTestId('cmp-next').textContent()).toContain(
      `npx drb receipts report ${receiptFileName(comparison)} --out comparison-report`,
    );
    await fits('comparison panel with its receipt');

    // Suite: the demo suite with the panel's defaults.
    await page.getByTestId('suite-run').click();
    await page.getByTestId('suite-result').waitFor({ timeout: 170_000 });
    const suite = (await page.evaluate(() => window.drbArtifacts)).find((a) => a.kind === 'suite-receipt')!.data as {
      timings: { row_latency_stats: { median: number; p95: number } };
    };
    const suiteText = (await page.getByTestId('suite-result').textContent()) ?? '';
    expect(suiteText).toContain(`median ${threeSignificant(suite.timings.row_latency_stats.median)} ms`);
    expect(suiteText).toContain(`p95 ${threeSignificant(suite.timings.row_latency_stats.p95)} ms`);
    await fits('suite panel with its result');
    // Download says where it saved, under the artifact name that identifies the run; Copy sits beside it.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('download-suite-receipt').click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^drb-[a-z0-9-]+-(wasm|webgpu)[a-z0-9-]*-suite-\d{8}T\d{6}Z\.json$/);
    expect(await page.getByTestId('suite-saved-note').textContent()).toBe(`Saved as ${download.suggestedFilename()}.`);
    expect(await page.getByTestId('suite-copy').isVisible()).toBe(true);
    await fits('suite panel with its saved note');
    // The suite result ends with the command that scores the predictions it offers, under their download name.
    const [predictions] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('download-predictions').click(),
    ]);
    expect(await page.getByTestId('suite-next').textContent()).toContain(
      `npx drb score --items public/suites/ajimee-demo-24/items.json --format ajimee --predictions ${predictions.suggestedFilename()}`,
    );
    await panelShots(page, 375);
    await panelShots(page, 1366);
    // No console error in the page or its workers through a comparison, a suite run and a generation run.
    expect(errors).toEqual([]);
    await page.close();
  }, 900_000);
});

describe('the sweep panel at 375 px', () => {
  it('shows its table, crossover and stopping sentence without sideways scrolling or text under 12 px', async () => {
    const page = await env.browser.context.newPage();
    await page.setViewportSize({ width: 375, height: 667 });
    const errors = consoleErrors(page);
    await page.goto(
      `${env.server.url}${pageQuery({
        mode: 'panels',
        autorun: ['sweep'],
        model: 'ort-grow-xenc',
        compareRoutes: parseRouteSpec('wasm-1,wasm-2')!,
        rounds: 4,
        sweepSizes: [16, 256],
      })}`,
    );
    expect(await waitForEnd(page)).toBe('done');
    await page.getByTestId('sweep-table').waitFor();
    const sweep = (await page.evaluate(() => window.drbArtifacts)).find((a) => a.kind === 'sweep-receipt')!
      .data as SweepReceipt;
    expect(await page.getByTestId('sweep-crossover').textContent()).toBe(crossoverSentence(sweep));
    const { scrollWidth, viewport } = await overflows(page);
    expect(scrollWidth, `page ${scrollWidth} px wide in a ${viewport} px viewport`).toBeLessThanOrEqual(viewport);
    expect(await smallText(page)).toEqual([]);
    // No cell (nor the caption) breaks a word or a number mid-way ("2 5 6", "differe nce"): each fits its longest
    // word.
    const squeezed = await page.getByTestId('sweep-table').evaluate((table) => {
      const context = document.createElement('canvas').getContext('2d')!;
      // The header row is hidden when the table is cards (each cell shows its label); only shown cells count.
      const shown = [...table.querySelectorAll('caption, td, th')].filter(
        (cell) => cell.getBoundingClientRect().width > 1,
      );
      return shown.flatMap((cell) => {
        const style = getComputedStyle(cell);
        context.font = style.font;
        const width =
          cell.getBoundingClientRect().width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return (cell.textContent ?? '')
          .split(/\s+/)
          .filter((w) => w !== '' && context.measureText(w).width > width + 0.5)
          .map((w) => `${w} in ${Math.round(width)} px`);
      });
    });
    expect(squeezed).toEqual([]);
    await panelShots(page, 375, ['sweep-panel']);
    await panelShots(page, 1366, ['sweep-panel']);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('one run at a time', () => {
  it('refuses a second run in every panel while one is in progress, and enables them all again when it ends', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(`${env.server.url}${LONG_WARM}`);
    await waitForWarmSeries(page);
    expect(await state(page)).toBe('running');
    // Every Run button of every panel, and the switch to protocol mode, while the Run panel's warm series runs.
    const runButtons = ['run-cold', 'run-warm', 'gen-run', 'cmp-run', 'suite-run', 'to-protocol'];
    for (const id of runButtons) expect(await page.getByTestId(id).isDisabled(), id).toBe(true);
    // The other panels say why.
    for (const id of ['gen-page-busy', 'cmp-page-busy', 'suite-page-busy']) {
      expect(await page.getByTestId(id).textContent(), id).toContain('another run is in progress (warm run)');
    }
    expect(await page.getByTestId('run-announcer').textContent()).toContain('Running: warm run');
    await page.getByTestId('run-cancel').click();
    expect(await waitForEnd(page)).toBe('failed');
    // The end is announced, and the new (failed) receipt takes the focus, marked by more than colour.
    await expect.poll(() => page.getByTestId('run-announcer').textContent()).toContain('Ended: warm run');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('receipt');
    expect(await page.getByTestId('outcome').textContent()).toBe('✗ failed');
    for (const id of runButtons) expect(await page.getByTestId(id).isDisabled(), id).toBe(false);
    for (const id of ['gen-page-busy', 'cmp-page-busy', 'suite-page-busy'])
      expect(await page.getByTestId(id).count(), id).toBe(0);
    const [receipt] = await pageReceipts(page);
    expect(receiptProblems(receipt)).toEqual([]);
    // Alone in its page and in the browser: no overlap seen, and Chromium can tell.
    expect(receipt.run.overlap).toEqual({ this_page: false, other_tabs: false });
    await page.close();
  });

  it('disables every panel while the URL holds a bad parameter, and says why', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(`${env.server.url}?threads=abc`);
    await waitForPage(page, () => document.documentElement.dataset.drbState === 'failed', null, { timeout: 60_000 });
    for (const id of ['run-cold', 'run-warm', 'gen-run', 'cmp-run', 'suite-run', 'user-model-run'])
      expect(await page.getByTestId(id).isDisabled(), id).toBe(true);
    for (const id of [
      'run-bad-params',
      'gen-bad-params',
      'cmp-bad-params',
      'suite-bad-params',
      'user-model-bad-params',
    ]) {
      expect(await page.getByTestId(id).textContent(), id).toContain("Invalid threads param: 'abc'");
    }
    // Still failed once every panel is there: nothing reports the page ready to be driven.
    expect(await page.evaluate(() => document.documentElement.dataset.drbState)).toBe('failed');
    await page.close();
  });

  it('flags runs that overlap across two tabs, and summarize sets the overlapping receipts aside', async () => {
    const long = await env.browser.context.newPage();
    await long.goto(`${env.server.url}${LONG_WARM}`);
    await waitForWarmSeries(long);
    // A second tab of the site runs a short warm series while the first tab's series is going.
    const short = await env.browser.context.newPage();
    await short.goto(
      `${env.server.url}${pageQuery({ autorun: ['warm'], model: 'ort-tiny-xenc', ep: 'wasm', threads: 1, warmRuns: 3 })}`,
    );
    expect(await waitForEnd(short)).toBe('done');
    expect(await state(long)).toBe('running');
    await long.getByTestId('run-cancel').click();
    expect(await waitForEnd(long)).toBe('failed');
    const [shortReceipt] = await pageReceipts(short);
    const [longReceipt] = await pageReceipts(long);
    for (const receipt of [shortReceipt, longReceipt]) expect(receiptProblems(receipt)).toEqual([]);
    // The short run saw the long one's lock when it started; the long one heard the short one start.
    expect(shortReceipt.outcome.status).toBe('ok');
    expect(shortReceipt.run.overlap).toEqual({ this_page: false, other_tabs: true });
    expect(longReceipt.run.overlap).toEqual({ this_page: false, other_tabs: true });
    // The page shows the flag beside the receipt.
    expect(await short.getByTestId('receipt-overlap').textContent()).toContain('another run overlapped this one');

    const dir = await mkdtemp(join(tmpdir(), 'drb-overlap-'));
    try {
      const file = join(dir, 'short.json');
      await writeFile(file, JSON.stringify(shortReceipt));
      expect((await runCli(['receipts', 'validate', file])).code).toBe(0);
      const out = join(dir, 'summary');
      expect((await runCli(['receipts', 'summarize', file, '--out', out])).code).toBe(0);
      const summary = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')) as ReceiptsSummary;
      const [target] = summary.targets;
      expect(target.counts).toMatchObject({ warm: 1, ok_warm: 1, clean_warm: 0, overlap_set_aside: 1 });
      expect(target.overlap_set_aside).toEqual([shortReceipt.receipt_id]);
      expect(target.warm.pooled_ms).toBeNull();
      expect(await readFile(join(out, 'summary.md'), 'utf8')).toContain('overlapping set aside 1');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    await long.close();
    await short.close();
  });
});
