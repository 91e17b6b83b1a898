/**
 * `drb receipts report`: the page's numbers are summary.json's, the same inputs give the same bytes, every input is
 * named with its SHA-256, every chart has its table, hostile strings are escaped, bad input follows summarize's
 * rules, and a score report appears beside the suite run that made its predictions. The page in a real browser
 * (file://, no network, phone width, screenshots) is test/e2e/receipts-report.test.ts.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReport } from '../../src/cli/receipts-report.ts';
import { comparisonHeadline } from '../../src/core/comparison/comparison-statistics.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { browserLabel } from '../../src/core/report/browser-label.ts';
import { niceTicks } from '../../src/core/report/svg-charts.ts';
import { writeHostileCases, type HostileCase } from '../fixtures/hostile/hostile-fixtures.ts';
import { runCli } from './cli-harness.ts';
import { summarizeGeneration } from '../../src/core/generation/generation-receipt.ts';
import { makeGenerationReceipt } from './generation-fixtures.ts';
import { summaryCells, summaryValue } from './report-checks.ts';
import { FIXTURE_DIR, pageComparisonReceipt } from './receipts-fixtures.ts';
import { testTempDir } from '../temp-dir.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const SUITE_ITEMS = join(ROOT, 'public/suites/ajimee-demo-24/items.json');
const SUITE_PREDICTIONS = join(ROOT, 'test/fixtures/suite-run/ajimee-demo-24-tfjs-tiny-reranker-wasm-predictions.json');

const temp = () => testTempDir('drb-report-');

/** `drb score` on the demo suite's items and `predictions`, into a fresh folder; returns the report's path. */
async function scoreReport(predictions: string): Promise<string> {
  const out = temp();
  const run = await runCli([
    'score',
    '--items',
    SUITE_ITEMS,
    '--predictions',
    predictions,
    '--format',
    'ajimee',
    '--output-dir',
    out,
  ]);
  expect(run.code, run.stderr).toBe(0);
  return join(out, 'evaluation.json');
}

/** Every <figure class="chart"> of a page, as HTML text. */
function figures(html: string): string[] {
  return html
    .split('<figure class="chart"')
    .slice(1)
    .map((part) => part.slice(0, part.indexOf('</figure>')));
}

describe('drb receipts report on the captured receipts', () => {
  it("holds summarize's summary, and every number it marks is summary.json's", async () => {
    const dir = temp();
    const summarized = await runCli(['receipts', 'summarize', FIXTURE_DIR, '--out', join(dir, 'summary')]);
    expect(summarized.code).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(dir, 'summary', 'summary.json'), 'utf8')));
    const run = await runCli(['receipts', 'report', FIXTURE_DIR, '--out', join(dir, 'report')]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^report of 16 receipt\(s\) \(8 target\(s\), 1 comparison\(s\), 0 score report\(s\)\): .*index\.html\n$/,
    );
    const html = readFileSync(join(dir, 'report', 'index.html'), 'utf8');
    const cells = summaryCells(html);
    // Warm medians and intervals, cold stages, comparison ratios and intervals, counts: dozens of numbers.
    expect(cells.length).toBeGreaterThan(100);
    for (const { path, value } of cells) expect(summaryValue(summary, path), path).toBe(Number(value));
    for (const t of summary.targets.filter((x) => x.warm.pooled_ms)) {
      expect(cells.some((c) => c.path === `targets.${t.key}.warm.pooled_ms.median`)).toBe(true);
      expect(cells.some((c) => c.path === `targets.${t.key}.warm.median_interval.low`)).toBe(true);
    }
    const [comparison] = summary.comparisons;
    for (const r of comparison.ranked.filter((x) => x.ratio_interval)) {
      expect(
        cells.some((c) => c.path === `comparisons.${comparison.receipt_id}.ranked.${r.route_id}.ratio_interval.high`),
      ).toBe(true);
    }
  });

  it('gives the same bytes for the same inputs and names the SHA-256 of every input', async () => {
    const dir = temp();
    const a = await writeReport([FIXTURE_DIR], join(dir, 'a'));
    const b = await writeReport([FIXTURE_DIR], join(dir, 'b'));
    const html = readFileSync(a.file, 'utf8');
    expect(readFileSync(b.file, 'utf8')).toBe(html);
    const names = readdirSync(FIXTURE_DIR).filter((n) => n.endsWith('.json'));
    expect(a.data.inputs).toHaveLength(names.length);
    for (const name of names) {
      const sha = createHash('sha256')
        .update(readFileSync(join(FIXTURE_DIR, name)))
        .digest('hex');
      expect(html).toContain(`<code class="hash">${sha}</code>`);
    }
  });

  it('is one self-contained page: no script, nothing to fetch, every chart with a titled SVG and its table', async () => {
    const { file, data } = await writeReport([FIXTURE_DIR], temp());
    const html = readFileSync(file, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    );
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\ssrc=|url\(|@import/i);
    expect(html).not.toMatch(/href="(?!#)/);
    const charts = figures(html);
    const kinds = new Set(charts.map((f) => /data-chart="([a-z-]+)"/.exec(f)?.[1]));
    expect([...kinds].sort()).toEqual(['cold-stages', 'comparison-ratios', 'warm-distribution', 'warm-order']);
    for (const f of charts) {
      expect(f).toMatch(/<svg viewBox="0 0 \d+ [\d.]+" role="img" aria-labelledby="([^"]+)-t \1-d"/);
      expect(f).toMatch(/<title id="[^"]+">[^<]+<\/title><desc id="[^"]+">[^<]+<\/desc>/);
      expect(f).toContain('<table class="cards">');
      expect(f).toContain('<figcaption>');
    }
    // One warm-order chart per target with warm samples; the comparison's invalid routes (none here) would be
    // listed; every receipt id of a cold run appears in its table.
    expect(charts.filter((f) => f.includes('data-chart="warm-order"'))).toHaveLength(
      data.summary.targets.filter((t) => t.warm.pooled_ms).length,
    );
    for (const cold of data.cold) expect(html).toContain(cold.receipt_id);
    // Each cold run says whether it was network-cold and a protocol cold: the capture has fresh-profile runs (network,
    // made before receipts recorded their start, so not protocol colds) and runs served from the cache.
    // The chart's one-line note says it short (an SVG text line must fit a phone); the table row under it says why.
    expect(html).toContain('cache: network; not a protocol cold</text>');
    expect(html).toContain(
      '>network, not a protocol cold: no start facts recorded (a receipt of an earlier page); browser restart not attested; website data clear not attested (left out)<',
    );
    expect(html).toContain('cache: served from a cache (left out)');
  });

  it('states every comparison verdict with its interval, and says "no clear difference" for an interval holding 1', async () => {
    const { file, data } = await writeReport([FIXTURE_DIR], temp());
    const html = readFileSync(file, 'utf8');
    const [detail] = data.comparisons;
    for (const r of detail.routes.filter((x) => x.verdict !== null)) {
      expect(html).toContain(`${r.route_id} took `);
      const words = r.verdict === 'no-clear-difference' ? 'no clear difference' : r.verdict!;
      expect(html).toMatch(
        new RegExp(
          `<li>${r.route_id} took [0-9.]+x the time of ${detail.baseline_route_id}; 95% interval [0-9.]+ to [0-9.]+: ${words}</li>`,
        ),
      );
    }
  });
});

describe('reviews', () => {
  it('applies the reviews of a summary folder (--reviews), so evidence states match that summary', async () => {
    const dir = temp();
    const out = join(dir, 'summary');
    expect((await runCli(['receipts', 'summarize', FIXTURE_DIR, '--out', out])).code).toBe(0);
    const before = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    const target = before.targets.find(
      (t) => t.failures.receipt_ids.length === 0 && t.interrupted.receipt_ids.length === 0,
    )!;
    const answers = {
      schema: 'drb.device-review.v1',
      target: target.key,
      reviewer: 'qa-1',
      reviewed_at: '2026-12-01T12:00:00Z',
      device: {
        hardware_model: 'CI runner',
        ram_gb: 16,
        os_build: 'Debian 12',
        browser: 'Chromium',
        browser_version: '156',
      },
      conditions: { network: 'loopback', battery_percent: null, charging: null, thermal_state: 'nominal' },
      public_revision: target.identity.app.commit ?? 'unknown',
      launch_to_result_ms: 4200,
      tab: { reloaded_or_evicted: false, details: null },
      memory_pressure: { observed: false, behaviour: 'none observed' },
      output_stayed_correct: true,
      failure_explanations: [],
      thresholds: { profile: 'mainstream', cold_total_p95_ms: null, warm_p95_ms: null },
      notes: null,
    };
    writeFileSync(join(dir, 'answers.json'), JSON.stringify(answers));
    const reviewed = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      target.key,
      '--answers',
      join(dir, 'answers.json'),
    ]);
    expect(reviewed.code, reviewed.stderr).toBe(0);
    const after = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    const noReview = `no device review stored (drb receipts review --target ${target.key})`;
    const plain = await writeReport([FIXTURE_DIR], join(dir, 'plain'));
    expect(plain.data.summary.targets.find((t) => t.key === target.key)!.evidence.not_higher_because).toContain(
      noReview,
    );
    const withReviews = await writeReport([FIXTURE_DIR], join(dir, 'reviewed'), { reviewsDir: out });
    expect(withReviews.data.summary.targets.map((t) => t.evidence)).toEqual(after.targets.map((t) => t.evidence));
    expect(readFileSync(withReviews.file, 'utf8')).not.toContain(noReview);
  });
});

describe('comparisons with an invalid route', () => {
  it('shows the invalid route with its reason, never ranked, never compared', async () => {
    const receipt = pageComparisonReceipt();
    const bad = receipt.routes.find((r) => r.id !== receipt.baseline_route_id)!;
    Object.assign(bad, {
      valid: false,
      invalid_reason: 'scores differ from the baseline by 0.5 (tolerance 0.0001)',
      rank: null,
      ratio_to_baseline: null,
      speedup_vs_baseline: null,
    });
    receipt.routes
      .filter((r) => r.valid)
      .sort((a, b) => a.stats!.median - b.stats!.median)
      .forEach((r, i) => (r.rank = i + 1));
    receipt.headline = comparisonHeadline(receipt.routes, receipt.baseline_route_id);
    const dir = temp();
    writeFileSync(join(dir, 'compare.json'), JSON.stringify(receipt));
    expect((await runCli(['receipts', 'validate', dir])).stdout).toBe('ok: 1 receipt(s) valid\n');
    const { file, data } = await writeReport([dir], join(dir, 'out'));
    const html = readFileSync(file, 'utf8');
    expect(html).toContain(
      `<li><span class="bad">✗ ${bad.id} is invalid</span>: scores differ from the baseline by 0.5 (tolerance 0.0001) (never ranked)</li>`,
    );
    expect(html).toContain(
      `<tspan font-weight="600">${bad.id}</tspan><tspan fill="#4a4a4a" font-size="11"> invalid: not compared</tspan>`,
    );
    expect(html).not.toContain(`<li>${bad.id} took `);
    expect(html).not.toContain(`ranked.${bad.id}.`);
    expect(data.summary.comparisons[0].invalid.map((r) => r.route_id)).toEqual([bad.id]);
  });
});

describe('quality beside speed', () => {
  it('puts a score report beside the suite run whose receipt names its predictions, and lists one of other predictions apart', async () => {
    const matched = await scoreReport(SUITE_PREDICTIONS);
    const other = await scoreReport(join(ROOT, 'public/suites/ajimee-demo-24/candidates.json'));
    const { file, data } = await writeReport([FIXTURE_DIR, matched, other], temp());
    const suiteKey = data.summary.suite_targets[0].key;
    const byFile = new Map(data.quality.map((q) => [q.file, q]));
    expect([...byFile.values()].map((q) => q.suite_target_keys)).toEqual(expect.arrayContaining([[suiteKey], []]));
    const report = JSON.parse(readFileSync(matched, 'utf8')) as {
      metrics: { effective_acc_at_1: number; rows: number };
    };
    const html = readFileSync(file, 'utf8');
    const row = html.slice(
      html.indexOf('<section id="quality"'),
      html.indexOf('</section>', html.indexOf('<section id="quality"')),
    );
    expect(row).toContain(`data-label="Acc@1" data-value="${report.metrics.effective_acc_at_1}"`);
    expect(row).toContain(`data-summary="suite_targets.${suiteKey}.row_latency_ms.median"`);
    expect(row).toContain('Score reports whose predictions no suite receipt here made');
    // Score reports are not receipts: the summary counts them as other files, as summarize does.
    expect(data.summary.inputs.not_receipts).toBe(2);
  });
});

describe('generation targets', () => {
  it('draws TTFT and decode speed per target, with the TTFT interval and the sustained-speed ratio of summary.json', async () => {
    const dir = temp();
    for (let i = 0; i < 3; i++) {
      // Three runs whose TTFT differs by 3 ms each, so the receipts-resampled interval has a width.
      const r = makeGenerationReceipt();
      r.receipt_id = `gen-report-${i}-0123456789`;
      r.samples = r.samples.map((s) => ({ ...s, ttft_ms: s.ttft_ms! + i * 3 }));
      r.summary = summarizeGeneration(r.samples, 10);
      writeFileSync(join(dir, `gen-${i}.json`), JSON.stringify(r));
    }
    expect((await runCli(['receipts', 'validate', dir])).stdout).toBe('ok: 3 receipt(s) valid\n');
    const { file, data } = await writeReport([dir], join(dir, 'out'));
    const html = readFileSync(file, 'utf8');
    const [g] = data.summary.generation_targets;
    expect(g.ttft_median_interval).toMatchObject({ resampled: 'receipts' });
    const kinds = figures(html).map((f) => /data-chart="([a-z-]+)"/.exec(f)?.[1]);
    expect(kinds).toEqual(['generation-ttft', 'generation-decode']);
    const cells = summaryCells(html);
    for (const path of [
      'ttft_ms.median',
      'ttft_median_interval.low',
      'ttft_median_interval.high',
      'decode_tokens_per_s.median',
      'decode_sustained_ratio.median',
    ]) {
      const cell = cells.find((c) => c.path === `generation_targets.${g.key}.${path}`);
      expect(cell, path).toBeDefined();
      expect(summaryValue(data.summary, cell!.path)).toBe(Number(cell!.value));
    }
  });
});

describe('bad and hostile input', () => {
  const receiptCases = (c: HostileCase) => c.reader === 'receipts';

  it('escapes every string, warns one line per bad file, counts copies once and fails on an edited copy', async () => {
    const dir = temp();
    const written = writeHostileCases(dir, receiptCases);
    const out = join(dir, 'report');
    const run = await runCli(['receipts', 'report', dir, '--out', out]);
    // An edited copy of a receipt id fails the command, as in summarize; the page is still written and lists it.
    expect(run.code).toBe(1);
    const warnings = run.stderr.trim().split('\n');
    const named = (name: string) =>
      warnings.filter((w) => w.startsWith(`warning: ${written.find((p) => p.endsWith(`/${name}.json`))}: `));
    for (const name of ['not-json', 'invalid-utf8', 'symlinked-receipt', 'cold-edited-copy', 'cold-copy-2'])
      expect(named(name), name).toHaveLength(1);
    expect(named('not-json')[0]).toMatch(/: \(document\): not valid JSON: syntax error$/);
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    for (const raw of ['<script>alert', '<img src=x', '<svg onload', '"><script', "'><svg"])
      expect(html).not.toContain(raw);
    expect(html).toContain(
      'Linux&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt; | **DEVICE_PASS**',
    );
    expect(html).toContain('&#39;&gt;&lt;svg onload=alert(3)&gt;&amp;amp;');
    for (const text of ['quoted secret text', '\u001b']) expect(html + run.stderr).not.toContain(text);
    // Five copies of one cold receipt, and one more inside a bundle, are one cold run; the bundle's copy is named.
    const report = await writeReport([dir], join(dir, 'again'));
    const copied = report.data.inputs.filter((i) => i.kind === 'duplicate');
    expect(copied.length).toBe(6);
    expect(copied.map((i) => i.file)).toContain(
      `${written.find((p) => p.endsWith('/receipt-copy-in-bundle.json'))}#receipts[0]`,
    );
  });

  it('writes nothing when no input is a valid receipt, and never replaces a file it did not write', async () => {
    const dir = temp();
    writeHostileCases(dir, (c) => c.name === 'not-json' || c.name === 'invalid-utf8');
    const out = join(dir, 'out');
    const run = await runCli(['receipts', 'report', dir, '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no valid receipt among 2 file\(s\) \(run drb receipts validate\); nothing written\n$/);
    expect(existsSync(join(out, 'index.html'))).toBe(false);
    const good = temp();
    cpSync(FIXTURE_DIR, join(good, 'in'), { recursive: true });
    mkdirSync(join(good, 'out'));
    writeFileSync(join(good, 'out', 'index.html'), '<html>my notes</html>');
    const refused = await runCli(['receipts', 'report', join(good, 'in'), '--out', join(good, 'out')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'index.html: exists and is not a page drb receipts report wrote; refusing to overwrite it',
    );
    expect(readFileSync(join(good, 'out', 'index.html'), 'utf8')).toBe('<html>my notes</html>');
    expect(readdirSync(join(good, 'out'))).toEqual(['index.html']);
    // An output folder that cannot be made: one line, exit 2, nothing left behind.
    writeFileSync(join(good, 'a-file'), 'x');
    const blocked = await runCli(['receipts', 'report', join(good, 'in'), '--out', join(good, 'a-file', 'out')]);
    expect(blocked.code).toBe(2);
    expect(blocked.stderr.trim().split('\n')).toEqual([
      `error: --out ${join(good, 'a-file', 'out')}: cannot use ${join(good, 'a-file', 'out')}: a part of the path is a file, not a folder (ENOTDIR)`,
    ]);
    expect(readdirSync(good).sort()).toEqual(['a-file', 'in', 'out']);
    // Its own page is replaced.
    expect((await runCli(['receipts', 'report', join(good, 'in'), '--out', join(good, 'own')])).code).toBe(0);
    expect((await runCli(['receipts', 'report', join(good, 'in'), '--out', join(good, 'own')])).code).toBe(0);
  });
});

describe('labels and scales', () => {
  it.each([
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
      'Headless Chrome 156',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Version/18.1 Mobile/15E148 Safari/604.1',
      'Safari/WebKit 18.1',
    ],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0.0.0 Mobile Safari/537.36', 'Chrome 131'],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      'Edge 131',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox 133'],
    ['curl/8.5.0', 'other browser'],
  ])('%s -> %s', (ua, label) => {
    expect(browserLabel(ua)).toBe(label);
  });

  it('puts axis ticks at 1, 2 or 5 times a power of ten', () => {
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0, 17614)).toEqual([0, 5000, 10000, 15000]);
    // (0.9 - 0.25) / 5 = 0.13: the next of 0.1, 0.2, 0.5 at or above it is 0.2; its multiples in [0.25, 0.9].
    expect(niceTicks(0.25, 0.9)).toEqual([0.4, 0.6, 0.8]);
  });
});
