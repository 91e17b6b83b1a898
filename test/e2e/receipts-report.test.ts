/**
 * `drb receipts report` in a real browser: the page built from the captured receipts (test/fixtures/receipts/; the
 * WebKit lane's two inside a receipt bundle, as a tester hands receipts back) and the score report of the captured suite run's predictions opens in Chromium from file:// with every request
 * blocked, shows no console error and makes no request, every chart has its table with the numbers of summary.json
 * (made by `drb receipts summarize` from the same files), nothing overflows a 375 px screen even with every table
 * open, and screenshots at desktop and phone widths are taken (kept in a temp folder, named in the test output).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threeSignificant } from '../../src/core/text/format-number.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import type { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import {
  EMPTY_TESTER_SHEET,
  RECEIPT_BUNDLE_SCHEMA,
  receiptFileText,
  type ReceiptBundle,
} from '../../src/core/field/receipt-bundle.ts';
import type { LaunchedChromium } from '../../src/node/chromium.ts';
import { runCli } from '../unit/cli-harness.ts';
import { summaryValue } from '../unit/report-checks.ts';
import { FIXTURE_DIR } from '../unit/receipts-fixtures.ts';
import { launchTestChromium } from './page-harness.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'drb-report-e2e-'));
const shots = join(work, 'screenshots');
let browser: LaunchedChromium;
let pageUrl: string;
let summary: unknown;

beforeAll(async () => {
  const score = await runCli([
    'score',
    '--items',
    join(ROOT, 'public/suites/ajimee-demo-24/items.json'),
    '--predictions',
    join(ROOT, 'test/fixtures/suite-run/ajimee-demo-24-tfjs-tiny-reranker-wasm-predictions.json'),
    '--format',
    'ajimee',
    '--output-dir',
    join(work, 'score'),
  ]);
  expect(score.code, score.stderr).toBe(0);
  // The WebKit lane's receipts arrive as a tester hands them back: in a bundle; the others as loose files.
  const loose = join(work, 'receipts');
  mkdirSync(loose);
  const bundled: DeviceReceipt[] = [];
  for (const name of readdirSync(FIXTURE_DIR).filter((n) => n.endsWith('.json'))) {
    const text = readFileSync(join(FIXTURE_DIR, name), 'utf8');
    if (/^\d+-webkit-/.test(name)) bundled.push(JSON.parse(text) as DeviceReceipt);
    else writeFileSync(join(loose, name), text);
  }
  expect(bundled).toHaveLength(2);
  const bundle: ReceiptBundle = {
    schema: RECEIPT_BUNDLE_SCHEMA,
    created_at: '2026-12-01T09:00:00Z',
    app: bundled[0].app,
    protocol: null,
    sheet: { ...EMPTY_TESTER_SHEET, device_model: 'WebKitGTK lane', browser: 'MiniBrowser' },
    receipts: bundled as unknown as ReceiptBundle['receipts'],
  };
  writeFileSync(join(work, 'webkit-session.json'), receiptFileText(bundle));
  const inputs = [loose, join(work, 'webkit-session.json'), join(work, 'score', 'evaluation.json')];
  const summarized = await runCli(['receipts', 'summarize', ...inputs, '--out', join(work, 'summary')]);
  expect(summarized.code, summarized.stderr).toBe(0);
  summary = JSON.parse(readFileSync(join(work, 'summary', 'summary.json'), 'utf8'));
  const report = await runCli(['receipts', 'report', ...inputs, '--out', join(work, 'report')]);
  expect(report.code, report.stderr).toBe(0);
  pageUrl = pathToFileURL(join(work, 'report', 'index.html')).href;
  browser = await launchTestChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** Opens the report with every request but the page itself aborted; collects requests and console errors. */
async function openReport(width: number, height: number) {
  const page = await browser.context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url === pageUrl) return route.continue();
    requests.push(url);
    return route.abort();
  });
  page.on('request', (request) => {
    if (request.url() !== pageUrl) requests.push(request.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.setViewportSize({ width, height });
  await page.goto(pageUrl, { waitUntil: 'load' });
  return { page, requests, errors };
}

describe('drb receipts report in Chromium from file://', () => {
  it("makes no request and logs no error; every chart has a titled SVG and a table whose numbers are summary.json's", async () => {
    const { page, requests, errors } = await openReport(1280, 900);
    const charts = await page.evaluate(() =>
      [...document.querySelectorAll('figure.chart')].map((figure) => ({
        kind: figure.getAttribute('data-chart'),
        svgTitle: figure.querySelector('svg[role="img"] > title')?.textContent ?? '',
        svgWidth: figure.querySelector('svg')?.getBoundingClientRect().width ?? 0,
        caption: figure.querySelector('figcaption')?.textContent ?? '',
        tableRows: figure.querySelectorAll('details.numbers table tbody tr').length,
        headers: figure.querySelectorAll('details.numbers table thead th').length,
      })),
    );
    const cells = await page.evaluate(() =>
      [...document.querySelectorAll('[data-summary]')].map((el) => ({
        path: el.getAttribute('data-summary')!,
        value: el.getAttribute('data-value')!,
        text: el.textContent ?? '',
        inChart: el.closest('figure.chart') !== null,
      })),
    );
    const bundledInputs = await page.evaluate(
      () => document.body.innerText.match(/webkit-session\.json#receipts\[\d\]/g) ?? [],
    );
    await page.close();
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    // The bundled receipts are read as receipts of their own, named by the bundle and their place in it.
    expect(new Set(bundledInputs)).toEqual(
      new Set(['webkit-session.json#receipts[0]', 'webkit-session.json#receipts[1]']),
    );
    expect((summary as { inputs: { receipts_valid: number } }).inputs.receipts_valid).toBe(
      readdirSync(FIXTURE_DIR).filter((n) => /^\d+-(?!suite|compare)/.test(n)).length,
    );
    expect(new Set(charts.map((c) => c.kind))).toEqual(
      new Set(['cold-stages', 'warm-distribution', 'warm-order', 'comparison-ratios']),
    );
    for (const chart of charts) {
      expect(chart.svgTitle.length, chart.kind!).toBeGreaterThan(0);
      expect(chart.svgWidth, chart.kind!).toBeGreaterThan(200);
      expect(chart.caption.length, chart.kind!).toBeGreaterThan(0);
      expect(chart.tableRows, chart.kind!).toBeGreaterThan(0);
      expect(chart.headers, chart.kind!).toBeGreaterThan(1);
    }
    // Every chart kind's table holds numbers of summary.json, and each one is exactly summary.json's (and shown as
    // its 3-significant-digit form).
    const chartCells = cells.filter((c) => c.inChart);
    // The captured receipts predate run.cold_start and run.attestations, so none is a full protocol cold and the cold
    // statistics (full protocol colds only, issue 29) hold no numbers: fewer cells than before that rule (over 80).
    expect(chartCells.length).toBeGreaterThan(55);
    expect(
      (summary as ReceiptsSummary).targets.every((t) => t.counts.full_cold === 0 && t.cold.total_ms === null),
    ).toBe(true);
    for (const cell of cells) {
      const expected = summaryValue(summary, cell.path);
      expect(typeof expected, cell.path).toBe('number');
      expect(Number(cell.value), cell.path).toBe(expected);
      expect(cell.text, cell.path).toContain(threeSignificant(expected as number));
    }
    const s = summary as {
      targets: Array<{ key: string; cold: { total_ms: unknown }; warm: { pooled_ms: unknown } }>;
      comparisons: Array<{ receipt_id: string }>;
    };
    const paths = chartCells.map((c) => c.path);
    for (const t of s.targets) {
      if (t.cold.total_ms) expect(paths).toContain(`targets.${t.key}.cold.total_ms.median`);
      if (t.warm.pooled_ms) expect(paths).toContain(`targets.${t.key}.warm.pooled_ms.p95`);
    }
    expect(
      chartCells.map((c) => c.path).filter((p) => p.startsWith(`comparisons.${s.comparisons[0].receipt_id}.ranked.`))
        .length,
    ).toBeGreaterThan(6);
  });

  it('fits a 375 px phone with every table open, and is screenshotted at phone and desktop widths', async () => {
    for (const [name, width, height] of [
      ['desktop', 1280, 900],
      ['phone', 375, 812],
    ] as const) {
      const { page, requests, errors } = await openReport(width, height);
      await page.screenshot({ path: join(shots, `${name}-top.png`) });
      await page.locator('#comparisons').screenshot({ path: join(shots, `${name}-comparisons.png`) });
      await page
        .locator('#warm figure.chart')
        .first()
        .screenshot({ path: join(shots, `${name}-warm-chart.png`) });
      // Open every table (details) as a reader would, then measure: no horizontal overflow anywhere.
      await page.evaluate(() => document.querySelectorAll('details').forEach((d) => d.setAttribute('open', '')));
      const layout = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        // The header row of a card table is visually hidden (kept for screen readers), clipped to 1 px: not laid out.
        widest: Math.max(
          ...[...document.querySelectorAll('body *')]
            .filter((el) => el.closest('table.cards thead') === null)
            .map((el) => el.getBoundingClientRect().right),
        ),
        cardRows: [...document.querySelectorAll('table.cards tbody tr')].filter(
          (tr) => getComputedStyle(tr).display === 'block',
        ).length,
      }));
      await page.locator('#quality').screenshot({ path: join(shots, `${name}-quality-open.png`) });
      await page.close();
      expect(errors, name).toEqual([]);
      expect(requests, name).toEqual([]);
      expect(layout.scrollWidth, name).toBeLessThanOrEqual(width);
      expect(layout.widest, name).toBeLessThanOrEqual(width + 0.5);
      // Tables are cards on the phone, rows on the desktop.
      if (name === 'phone') expect(layout.cardRows).toBeGreaterThan(20);
      else expect(layout.cardRows).toBe(0);
    }
    for (const file of [
      'desktop-top',
      'desktop-comparisons',
      'desktop-warm-chart',
      'desktop-quality-open',
      'phone-top',
      'phone-comparisons',
      'phone-warm-chart',
      'phone-quality-open',
    ]) {
      const path = join(shots, `${file}.png`);
      expect(statSync(path).size, path).toBeGreaterThan(5_000);
      expect(readFileSync(path).subarray(1, 4).toString()).toBe('PNG');
    }
    console.log(`receipts report screenshots: ${shots}`);
  });
});
