/**
 * `drb receipts validate|summarize` on suite receipts (`drb.suite-receipt.v2`) and comparison receipts
 * (`drb.comparison-receipt.v2`): each validation rule triggered by mutating a copy of the receipt the real page
 * produced (test/fixtures/receipts/, captured by scripts/capture-receipts.ts), and the summary's suite targets
 * (per-row latency median/p95), comparison entries (ranked valid routes) and counts per kind.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReceiptsSummarizer } from '../../src/core/evidence/receipts-summarizer.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { renderSummaryMarkdown } from '../../src/core/evidence/summary-markdown.ts';
import { threeSignificant } from '../../src/core/text/format-number.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import { summarize } from '../../src/core/stats/stats.ts';
import { runCli } from './cli-harness.ts';
import { pageComparisonReceipt, pageReceipts, pageSuiteReceipt } from './receipts-fixtures.ts';
import { testTempDir } from '../temp-dir.ts';

function problemsOf(value: unknown): string[] {
  return validateReceipt(value).problems.map((p) => `${p.path}: ${p.message}`);
}

const TEXT = 'looks like a text field: receipts never hold input, output or typed text';

describe('validateReceipt: suite receipts', () => {
  it('accepts the suite receipt the page produced', () => {
    const receipt = pageSuiteReceipt();
    expect(receipt.outcome.status).toBe('ok');
    const verdict = validateReceipt(receipt);
    expect(verdict).toMatchObject({ kind: 'suite-receipt', problems: [] });
    expect(verdict.kind === 'suite-receipt' && verdict.receipt !== null).toBe(true);
  });

  it('recomputes the row statistics from the samples and checks that the row counts add up', () => {
    const r = pageSuiteReceipt();
    const median = r.timings.row_latency_stats!.median;
    r.timings.row_latency_stats!.median = median + 1;
    r.rows.accepted += 1;
    const problems = problemsOf(r);
    expect(problems).toContain(`timings.row_latency_stats.median: is ${median + 1} but the samples give ${median}`);
    expect(problems).toContain(`rows.done: is ${r.rows.done} but the reason counts add up to ${r.rows.done + 1}`);
  });

  it('refuses an ok run without predictions, and a failed run without a reason', () => {
    const ok = pageSuiteReceipt();
    ok.predictions = null;
    expect(problemsOf(ok)).toEqual(['predictions: an ok run offers a predictions artifact']);
    const failed = pageSuiteReceipt();
    failed.outcome = { status: 'failed', reason: null, failed_stage: 'inference' };
    expect(problemsOf(failed)).toEqual(
      expect.arrayContaining([
        'outcome.reason: a failed run must say why',
        'predictions: a failed run offers no predictions',
      ]),
    );
  });

  it('checks route honesty, URLs and text fields, each with its field path (the candidates file facts are not text)', () => {
    // Route honesty runs on a schema-valid receipt (the schema problems come first otherwise).
    const route = pageSuiteReceipt();
    route.route.completed_ep = 'webgpu';
    expect(problemsOf(route)).toEqual(
      expect.arrayContaining([
        'route.completed_ep: claims "webgpu" without a succeeded attempt on it',
        'route.fallback_reason: requested and completed EP differ but no fallback reason is given',
        'route.completed_ep: fell back to another EP although fallback was not allowed',
      ]),
    );
    const r = pageSuiteReceipt() as unknown as Record<string, any>;
    r.app.page_url = 'http://127.0.0.1:4173/?token=secret';
    r.prompt = 'a secret prompt';
    const problems = problemsOf(r);
    expect(problems).toContain('app.page_url: URL must be origin + path only (no query, fragment or credentials)');
    expect(problems).toContain(`prompt: ${TEXT}`);
    expect(problems.filter((p) => p.startsWith('suite.candidates'))).toEqual([]);
    // A text-like field INSIDE the candidates file facts is still found.
    const inner = pageSuiteReceipt() as unknown as Record<string, any>;
    inner.suite.candidates.candidate_text = 'x';
    expect(problemsOf(inner)).toContain(`suite.candidates.candidate_text: ${TEXT}`);
  });
});

describe('validateReceipt: comparison receipts', () => {
  it('accepts the comparison receipt the page produced', () => {
    const receipt = pageComparisonReceipt();
    expect(validateReceipt(receipt)).toMatchObject({ kind: 'comparison-receipt', problems: [] });
    expect(receipt.routes.some((route) => route.rank !== null)).toBe(true);
  });

  it('refuses a rank or ratio on an invalid route, statistics that do not match the samples and a broken schedule', () => {
    const r = pageComparisonReceipt();
    const i = r.routes.findIndex((route) => route.id !== r.baseline_route_id);
    r.routes[i] = {
      ...r.routes[i],
      valid: false,
      invalid_reason: 'scores differ from the baseline by 1 (tolerance 0.0001)',
    };
    r.schedule.order = r.schedule.order.slice(1);
    const problems = problemsOf(r);
    expect(problems.some((p) => p.startsWith(`routes[${i}].rank: `))).toBe(true);
    expect(problems.some((p) => p.startsWith('schedule.order: '))).toBe(true);
    const stats = pageComparisonReceipt();
    stats.routes[0].stats!.median += 5;
    expect(problemsOf(stats).some((p) => p.startsWith('routes[0].stats'))).toBe(true);
  });

  it('refuses a headline the samples do not give, and a v1 receipt from an earlier page with one line', () => {
    const r = pageComparisonReceipt();
    const entry = r.headline!.routes[0];
    expect(entry.interval).not.toBeNull();
    // Claim certainty the interval does not give: narrow it so it no longer contains what the samples say.
    entry.interval = { ...entry.interval!, high: entry.interval!.low };
    expect(problemsOf(r)).toEqual([
      "headline: does not match the ratios and bootstrap intervals recomputed from the routes' samples",
    ]);
    const v1 = pageComparisonReceipt() as unknown as Record<string, unknown>;
    v1.schema = 'drb.comparison-receipt.v1';
    delete v1.headline;
    expect(validateReceipt(v1)).toEqual({
      kind: 'comparison-receipt',
      receipt: null,
      problems: [
        {
          path: 'schema',
          message:
            'is drb.comparison-receipt.v1, from an earlier page version (this tool reads drb.comparison-receipt.v2); re-run on the current page',
        },
      ],
    });
  });

  it('refuses text fields and URLs with a query', () => {
    const r = pageComparisonReceipt() as unknown as Record<string, any>;
    r.routes[0].output_text = 'hello';
    r.app.page_url = 'http://127.0.0.1:4173/#frag';
    const problems = problemsOf(r);
    expect(problems).toContain(`routes[0].output_text: ${TEXT}`);
    expect(problems.some((p) => p.startsWith('app.page_url: '))).toBe(true);
  });
});

describe('drb receipts validate on every receipt kind', () => {
  it("exits 0 for the page's device, suite and comparison receipts, and 1 with file: field path: problem lines", async () => {
    const d = testTempDir('drb-kinds-');
    writeFileSync(join(d, 'suite.json'), JSON.stringify(pageSuiteReceipt()));
    writeFileSync(join(d, 'compare.json'), JSON.stringify(pageComparisonReceipt()));
    writeFileSync(join(d, 'device.json'), JSON.stringify(pageReceipts()[0]));
    const ok = await runCli(['receipts', 'validate', d]);
    expect(ok).toMatchObject({ code: 0, stdout: 'ok: 3 receipt(s) valid\n' });
    const bad = pageSuiteReceipt();
    bad.predictions = null;
    writeFileSync(join(d, 'suite.json'), JSON.stringify(bad));
    const run = await runCli(['receipts', 'validate', d]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(`${join(d, 'suite.json')}: predictions: an ok run offers a predictions artifact\n`);
  });
});

describe('summarize: suite targets and comparisons', () => {
  it("pools per-row latency per suite target (median/p95 recomputed from every ok receipt's samples) and keeps failures apart", async () => {
    const a = pageSuiteReceipt();
    const b = pageSuiteReceipt();
    b.receipt_id = `${a.receipt_id}-b`;
    b.timings.row_latency_samples_ms = b.timings.row_latency_samples_ms.map((ms) => ms * 3);
    b.timings.row_latency_stats = summarize(b.timings.row_latency_samples_ms);
    const failed = pageSuiteReceipt();
    failed.receipt_id = `${a.receipt_id}-failed`;
    failed.outcome = { status: 'failed', reason: 'worker crashed', failed_stage: 'inference' };
    failed.predictions = null;
    for (const r of [a, b, failed]) expect(problemsOf(r)).toEqual([]);
    const s = new ReceiptsSummarizer();
    for (const r of [a, b, failed]) s.addSuiteReceipt(r);
    const summary = await s.finish();
    expect(summary.suite_targets).toHaveLength(1);
    const [t] = summary.suite_targets;
    expect(t.key).toMatch(/^s-[0-9a-f]{12}$/);
    expect(t.counts).toEqual({
      receipts: 3,
      ok: 2,
      failed: 1,
      rows_done: 3 * a.rows.done,
      overlap_set_aside: 0,
      interrupted: 0,
    });
    expect(t.row_latency_ms).toEqual(
      summarize([...a.timings.row_latency_samples_ms, ...b.timings.row_latency_samples_ms]),
    );
    expect(t.receipt_medians_ms).toEqual(
      summarize([a.timings.row_latency_stats!.median, b.timings.row_latency_stats!.median]),
    );
    expect(t.model_load_ms?.count).toBe(2);
    expect(t.failures).toEqual({
      by_reason: [{ stage: 'inference', reason: 'worker crashed', count: 1 }],
      receipt_ids: [failed.receipt_id],
    });
    expect(t.suite).toMatchObject({
      id: a.suite.id,
      items_sha256: a.suite.items.sha256,
      candidates_sha256: a.suite.candidates.sha256,
    });
    expect(summary.inputs).toMatchObject({ suite_receipts_valid: 3, comparison_receipts_valid: 0, receipts_valid: 0 });
    expect(ReceiptsSummary.safeParse(summary).success).toBe(true);
  });

  it('lists each comparison with its valid routes in rank order and its invalid routes with why', async () => {
    const c = pageComparisonReceipt();
    const s = new ReceiptsSummarizer();
    s.addComparisonReceipt(c);
    const summary = await s.finish();
    const [entry] = summary.comparisons;
    const valid = c.routes.filter((r) => r.valid).sort((x, y) => x.rank! - y.rank!);
    expect(entry.ranked.map((r) => [r.route_id, r.rank, r.median_ms])).toEqual(
      valid.map((r) => [r.id, r.rank, r.stats!.median]),
    );
    expect(entry.invalid.map((r) => r.route_id)).toEqual(c.routes.filter((r) => !r.valid).map((r) => r.id));
    expect(entry).toMatchObject({
      receipt_id: c.receipt_id,
      model_id: c.model.id,
      baseline_route_id: c.baseline_route_id,
      outcome: c.outcome.status,
    });
    expect(summary.inputs.comparison_receipts_valid).toBe(1);
    // Each non-baseline route carries the receipt's headline interval and verdict; the baseline is the reference.
    for (const r of entry.ranked) {
      const h = c.headline!.routes.find((x) => x.route_id === r.route_id);
      if (r.route_id === c.baseline_route_id)
        expect(r).toMatchObject({ ratio_to_baseline: 1, ratio_interval: null, verdict: null });
      else
        expect(r).toMatchObject({
          ratio_to_baseline: h!.ratio_to_baseline,
          ratio_interval: h!.interval,
          verdict: h!.verdict,
        });
    }
  });

  it('drb receipts summarize writes every kind: counts per kind, suite and comparison sections in summary.md', async () => {
    const d = testTempDir('drb-kinds-');
    const suite = pageSuiteReceipt();
    suite.previous_run_interrupted = {
      run_id: 'dead-compare',
      run_mode: 'comparison',
      run_kind: null,
      stage: 'warm_inference',
      stage_started_at: '2026-11-29T09:00:00Z',
      model_id: 'ort-heavy-xenc',
      requested_ep: 'wasm',
    };
    writeFileSync(join(d, 'suite.json'), JSON.stringify(suite));
    writeFileSync(join(d, 'compare.json'), JSON.stringify(pageComparisonReceipt()));
    pageReceipts().forEach((r, i) => writeFileSync(join(d, `device-${i}.json`), JSON.stringify(r)));
    const out = join(d, 'out');
    const run = await runCli(['receipts', 'summarize', d, '--out', out]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(', 1 suite receipt(s) into 1 suite target(s), 1 comparison receipt(s):');
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    expect(summary.inputs).toMatchObject({
      receipts_valid: pageReceipts().length,
      suite_receipts_valid: 1,
      comparison_receipts_valid: 1,
      not_receipts: 0,
      receipts_invalid: 0,
    });
    // The suite receipt recorded a dead comparison of the heavy model on the same device: counted there, not on the suite.
    expect(summary.suite_targets[0].counts.interrupted).toBe(0);
    // The page's own capture also recorded a dead heavy-model warm run on that device: one group, two run modes.
    const recorder = pageReceipts().find((r) => r.run.previous_run_interrupted !== null)!;
    expect(recorder.run.previous_run_interrupted).toMatchObject({
      model_id: 'ort-heavy-xenc',
      requested_ep: 'wasm',
      run_mode: 'single',
    });
    const group = summary.interruptions.find((g) => g.receipt_ids.includes(suite.receipt_id))!;
    expect(group).toMatchObject({
      model_id: 'ort-heavy-xenc',
      requested_ep: 'wasm',
      interrupted: 2,
      receipt_ids: [recorder.receipt_id, suite.receipt_id].sort(),
    });
    expect(group.by_run_mode).toEqual([
      { run_mode: 'comparison', count: 1 },
      { run_mode: 'single', count: 1 },
    ]);
    const heavy = summary.targets.filter(
      (t) => t.identity.model.id === 'ort-heavy-xenc' && t.identity.route.requested_ep === 'wasm',
    );
    expect(heavy.length).toBeGreaterThan(0);
    for (const t of heavy) expect(t.counts.interrupted).toBe(2);
    const md = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(md).toBe(renderSummaryMarkdown(summary));
    expect(md).toContain('## Suite targets');
    expect(md).toContain(`| ${summary.suite_targets[0].key} | ${suite.model.id} |`);
    expect(md).toContain('## Comparisons');
    expect(md).toContain(`| ${summary.comparisons[0].receipt_id} | ${summary.comparisons[0].model_id} |`);
    // The interval and verdict of every compared route, in 3 significant digits.
    for (const r of summary.comparisons[0].ranked.filter((x) => x.ratio_interval !== null)) {
      const verdict = r.verdict === 'no-clear-difference' ? 'no clear difference' : r.verdict;
      expect(md).toContain(
        `${r.route_id} ${threeSignificant(r.ratio_to_baseline!)}x [${threeSignificant(r.ratio_interval!.low)}, ${threeSignificant(r.ratio_interval!.high)}]: ${verdict}`,
      );
    }
    expect(md).toContain('1 valid suite receipt(s), 1 valid comparison receipt(s)');
  });
});
