/**
 * The crossover sweep in a real headless Chromium: WASM with 1 thread against WASM with 2 threads over the growing
 * fixture family (ort-grow-xenc, 16 to 512 tokens), each size until its answer is clear. The sweep receipt gives a
 * ratio per size with its interval, and a crossover with its bootstrap interval or an honest "no crossover in the
 * range" (which one depends on this machine's free cores: both are accepted, and each must be what the numbers
 * say); it validates as `drb receipts validate` sees it, and renders in the report with summary.json's numbers. The
 * same sweep runs from the command line (`drb compare --url ... --sweep`) and is saved and printed. The page shows the
 * crossover sentence. Never checks absolute timings.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import { parseRouteSpec } from '../../src/core/comparison/route-spec.ts';
import { crossoverSentence } from '../../src/core/comparison/sweep-statistics.ts';
import { SweepReceipt } from '../../src/core/comparison/sweep-receipt.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import { waitForPage } from '../../src/node/chromium.ts';
import { runCli } from '../unit/cli-harness.ts';
import { summaryCells, summaryValue } from '../unit/report-checks.ts';
import { testTempDir } from '../temp-dir.ts';
import { startPageEnv, type PageEnv } from './page-harness.ts';

const SIZES = [16, 64, 256, 512];
const SETTINGS = {
  autorun: ['sweep'],
  model: 'ort-grow-xenc',
  compareRoutes: parseRouteSpec('wasm-1,wasm-2')!,
  stop: 'until-clear',
  minRounds: 6,
  maxRounds: 30,
  tieZone: 0.05,
  sweepSizes: SIZES,
  seed: 5,
} as const;

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv();
});
afterAll(async () => {
  await env?.close();
});

/** The checks every sweep receipt here passes: per size a ratio and interval, and a crossover the numbers give. */
function checkSweep(receipt: SweepReceipt): void {
  expect(validateReceipt(receipt).problems).toEqual([]);
  expect(receipt.outcome).toEqual({ status: 'ok', reason: null });
  expect(receipt.routes.map((r) => [r.id, r.completed_ep, r.threads_effective])).toEqual([
    ['wasm-1', 'wasm', 1],
    ['wasm-2', 'wasm', 2],
  ]);
  expect(receipt.points.map((p) => p.size)).toEqual(SIZES);
  for (const p of receipt.points) {
    expect(p.input.id).toBe(`grow-1x${p.size}`);
    expect(p.valid).toBe(true);
    expect(p.agreement!.max_abs_diff).toBeLessThanOrEqual(receipt.tolerance.max_abs_diff);
    expect(p.interval!.low).toBeLessThanOrEqual(p.ratio_to_baseline!);
    expect(p.interval!.high).toBeGreaterThanOrEqual(p.ratio_to_baseline!);
    expect(p.stopping.rule).toEqual(receipt.rule);
    expect(['clear', 'tie', 'narrow', 'budget-spent']).toContain(p.stopping.reason);
    expect(p.schedule.rounds).toBeGreaterThanOrEqual(6);
  }
  const c = receipt.crossover;
  expect(['crossover', 'none-in-range']).toContain(c.status);
  expect(c.range).toEqual({ smallest: 16, largest: 512 });
  if (c.status === 'crossover') {
    expect(c.winner).not.toBe(c.ahead_at_start);
    expect(SIZES).toContain(c.first_clear_size);
    expect(c.interval).toMatchObject({ method: 'percentile-bootstrap', resampled: 'rounds', resamples: 2000 });
  } else {
    expect(crossoverSentence(receipt)).toMatch(/^No crossover in 16 to 512 tokens: /);
  }
  expect(receipt.device_state.drift_probe.samples_ms.length).toBe(
    receipt.points.reduce((n, p) => n + p.schedule.rounds, 0) + receipt.points.length,
  );
  expect(receipt.device_state.pressure.status).toBe('observed');
}

describe('crossover sweep', () => {
  it('wasm-1 against wasm-2 over the growing fixture: a ratio per size with intervals, and a crossover or none in range', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(`${env.server.url}?${toSearchParams({ ...SETTINGS, autorun: ['sweep'] })}`);
    await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
      timeout: 170_000,
    });
    expect(await page.evaluate(() => document.documentElement.dataset.drbState)).toBe('done');
    const found = (await page.evaluate(() => window.drbArtifacts)).filter((a) => a.kind === 'sweep-receipt');
    expect(found).toHaveLength(1);
    const receipt = SweepReceipt.parse(found[0].data);
    checkSweep(receipt);
    expect(await page.getByTestId('sweep-crossover').textContent()).toBe(crossoverSentence(receipt));
    await page.close();

    // Its receipt validates and renders in the report, every number marked there being summary.json's.
    const dir = testTempDir('drb-sweep-e2e-');
    mkdirSync(join(dir, 'in'));
    writeFileSync(join(dir, 'in', 'sweep.json'), `${JSON.stringify(receipt, null, 2)}\n`);
    expect((await runCli(['receipts', 'validate', join(dir, 'in')])).stdout).toBe('ok: 1 receipt(s) valid\n');
    expect((await runCli(['receipts', 'summarize', join(dir, 'in'), '--out', join(dir, 'summary')])).code).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(dir, 'summary', 'summary.json'), 'utf8')));
    expect(summary.sweeps![0].sentence).toBe(crossoverSentence(receipt));
    const report = await runCli(['receipts', 'report', join(dir, 'in'), '--out', join(dir, 'report')]);
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(join(dir, 'report', 'index.html'), 'utf8');
    expect(html).toContain('data-chart="sweep-curve"');
    const cells = summaryCells(html).filter((c) => c.path.startsWith('sweeps.'));
    expect(cells.length).toBeGreaterThanOrEqual(SIZES.length * 7);
    for (const { path, value } of cells) expect(summaryValue(summary, path), path).toBe(Number(value));
  });

  it('runs from the command line: drb compare --url ... --sweep saves the receipt and prints each size and the crossover', async () => {
    const out = testTempDir('drb-sweep-cli-');
    const run = await runCli([
      'compare',
      '--url',
      env.server.url,
      '--sweep',
      '--model',
      'ort-grow-xenc',
      '--routes',
      'wasm-1,wasm-2',
      '--stop',
      'until-clear',
      '--min-rounds',
      '6',
      '--max-rounds',
      '30',
      '--sizes',
      SIZES.join(','),
      '--output-dir',
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const files = readdirSync(out);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^drb-ort-grow-xenc-wasm-1\+wasm-2-sweep-\d{8}T\d{6}Z\.json$/);
    const receipt = SweepReceipt.parse(JSON.parse(readFileSync(join(out, files[0]), 'utf8')));
    checkSweep(receipt);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^sweep ort-grow-xenc in chromium [\d.]+: outcome ok$/);
    for (const [i, size] of SIZES.entries())
      expect(lines[i + 1]).toMatch(
        new RegExp(`^  ${size}: [\\d.]+x \\[[\\d.]+, [\\d.]+\\] (faster|slower|no clear difference) \\(`),
      );
    expect(run.stdout).toContain(`  crossover: ${crossoverSentence(receipt)}\n`);
    expect(run.stdout).toMatch(/\n {2}device: pressure /);
  });
});
