/**
 * Grouping, statistics and the summary files: `ReceiptsSummarizer` and `drb receipts summarize`, checked against
 * hand-computed values.
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { ReceiptsSummarizer } from '../../src/core/evidence/receipts-summarizer.ts';
import { ReceiptsSummary, type TargetSummary } from '../../src/core/evidence/receipts-summary.ts';
import { targetIdentity } from '../../src/core/evidence/target-identity.ts';
import { renderSummaryMarkdown } from '../../src/core/evidence/summary-markdown.ts';
import { makeGenerationReceipt } from './generation-fixtures.ts';
import { buildReceipt } from './receipts-builder.ts';
import { runCli } from './cli-harness.ts';
import { pageReceipts } from './receipts-fixtures.ts';
import { testTempDir } from '../temp-dir.ts';

async function summarizeAll(receipts: DeviceReceipt[]) {
  const s = new ReceiptsSummarizer();
  for (const r of receipts) s.addReceipt(r);
  return s.finish();
}

function only<T = TargetSummary>(targets: T[], predicate: (t: T) => boolean): T {
  const found = targets.filter(predicate);
  expect(found).toHaveLength(1);
  return found[0];
}

describe('grouping by target', () => {
  it('puts receipts that differ in device, commit, threads, route or model into separate targets', async () => {
    const receipts = [
      buildReceipt({ kind: 'cold' }),
      buildReceipt({ kind: 'warm' }),
      buildReceipt({ kind: 'cold', threads: 2 }),
      buildReceipt({ kind: 'cold', userAgent: 'Mozilla/5.0 (iPhone) Safari/605.1.15' }),
      buildReceipt({ kind: 'cold', commit: 'b'.repeat(40) }),
      buildReceipt({ kind: 'cold', modelId: 'fixture-heavy' }),
      buildReceipt({ kind: 'cold', ep: 'webgpu' }),
      buildReceipt({ kind: 'cold', ep: 'webgpu', completedEp: 'wasm' }),
    ];
    const summary = await summarizeAll(receipts);
    expect(summary.targets).toHaveLength(7);
    const base = only(summary.targets, (t) => t.counts.receipts === 2);
    expect(base.counts).toMatchObject({ cold: 1, warm: 1 });
    expect(base.identity).toEqual(targetIdentity(receipts[0]));
    expect(ReceiptsSummary.safeParse(summary).success).toBe(true);
  });

  it('gives the same key for the same identity whatever the input order, and stable output bytes', async () => {
    const receipts = [
      buildReceipt({ kind: 'cold', threads: 2 }),
      buildReceipt({ kind: 'cold' }),
      buildReceipt({ kind: 'warm' }),
    ];
    const a = await summarizeAll(receipts);
    const b = await summarizeAll([...receipts].reverse());
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.targets.map((t) => t.key)).toEqual(b.targets.map((t) => t.key));
    expect(a.targets[0].key).toMatch(/^t-[0-9a-f]{12}$/);
  });

  it('groups the captured page receipts and keeps every target schema-valid', async () => {
    const summary = await summarizeAll(pageReceipts());
    expect(ReceiptsSummary.safeParse(summary).success).toBe(true);
    expect(summary.inputs.receipts_valid).toBe(pageReceipts().length);
    const total = summary.targets.reduce((n, t) => n + t.counts.receipts, 0);
    expect(total).toBe(pageReceipts().length);
  });

  it('says "not measured" for memory on the WebKit target the page ran (no performance.memory there)', async () => {
    const summary = await summarizeAll(pageReceipts());
    const webkit = only(summary.targets, (t) => t.identity.device.user_agent.includes('AppleWebKit/605'));
    expect(webkit.counts).toMatchObject({ ok_cold: 1, ok_warm: 1 });
    expect(webkit.js_heap_max_used_bytes).toBeNull();
    expect(webkit.identity.device.webgpu_adapter).toBeNull();
    for (const verdict of webkit.profiles) {
      expect(verdict.gates.find((g) => g.gate === 'js_heap_bytes')).toMatchObject({
        status: 'not-measured',
        measured: null,
      });
    }
  });

  it("counts the interrupted run under the dead run's model and requested route on that device, not under the recorder", async () => {
    const receipts = pageReceipts();
    const recorder = receipts.find((r) => r.run.previous_run_interrupted !== null)!;
    const dead = recorder.run.previous_run_interrupted!;
    // The page's capture reloads in the middle of a heavy-model warm run, then records it in a tiny-model cold run.
    expect(dead.model_id).not.toBe(recorder.model.id);
    const summary = await summarizeAll(receipts);
    const device = targetIdentity(recorder).device;
    const expected = summary.targets.filter(
      (t) =>
        JSON.stringify(t.identity.device) === JSON.stringify(device) &&
        t.identity.model.id === dead.model_id &&
        t.identity.route.requested_ep === dead.requested_ep,
    );
    expect(expected.length).toBeGreaterThan(0);
    for (const t of summary.targets) {
      const counted = t.interrupted.receipt_ids.includes(recorder.receipt_id);
      expect(counted, `${t.label}`).toBe(expected.includes(t));
    }
    const own = only(summary.targets, (t) => JSON.stringify(t.identity) === JSON.stringify(targetIdentity(recorder)));
    expect(own.counts.interrupted).toBe(0);
    expect(own.interrupted).toEqual({ group_key: null, by_stage: [], receipt_ids: [] });
    for (const t of expected) {
      expect(t.counts.interrupted).toBe(1);
      expect(t.interrupted.by_stage).toEqual([{ stage: dead.stage, count: 1 }]);
    }
    expect(summary.inputs.interruptions).toBe(1);
    expect(summary.interruptions).toHaveLength(1);
    expect(summary.interruptions[0]).toMatchObject({
      model_id: dead.model_id,
      requested_ep: dead.requested_ep,
      device,
      interrupted: 1,
      by_stage: [{ stage: dead.stage, count: 1 }],
      by_run_mode: [{ run_mode: 'single', count: 1 }],
      receipt_ids: [recorder.receipt_id],
      target_keys: expected.map((t) => t.key).sort(),
      receipts: expected.reduce((n, t) => n + t.counts.receipts, 0),
    });
    expect(expected[0].interrupted.group_key).toBe(summary.interruptions[0].key);
    expect(ReceiptsSummary.safeParse(summary).success).toBe(true);
  });

  it("creates an interruption group with zero receipts when the dead run's model never finished on that device", async () => {
    const receipts = pageReceipts();
    const recorder = receipts.find((r) => r.run.previous_run_interrupted !== null)!;
    recorder.run.previous_run_interrupted = {
      ...recorder.run.previous_run_interrupted!,
      model_id: 'tfjs-tiny-reranker',
      requested_ep: 'webgpu',
      stage: 'session',
    };
    const summary = await summarizeAll(receipts);
    expect(summary.targets.some((t) => t.counts.interrupted > 0)).toBe(false);
    expect(summary.interruptions).toHaveLength(1);
    const group = summary.interruptions[0];
    expect(group).toMatchObject({
      model_id: 'tfjs-tiny-reranker',
      requested_ep: 'webgpu',
      interrupted: 1,
      receipts: 0,
      target_keys: [],
      receipt_ids: [recorder.receipt_id],
    });
    expect(group.key).toMatch(/^i-[0-9a-f]{12}$/);
    const md = renderSummaryMarkdown(summary);
    expect(md).toContain('## Interrupted runs');
    expect(md).toContain(`| ${group.key} | tfjs-tiny-reranker | webgpu |`);
    expect(md).toContain(`| 1 | 1x session | 1x single | ${recorder.receipt_id} | 0 | none (no receipt of its own) |`);
  });

  it('keeps interruptions recorded on another device apart, and counts each recorded interruption once per group', async () => {
    const receipts = pageReceipts();
    const recorder = receipts.find((r) => r.run.previous_run_interrupted !== null)!;
    const dead = recorder.run.previous_run_interrupted!;
    const elsewhere = structuredClone(recorder);
    elsewhere.receipt_id = `${recorder.receipt_id}-iphone`;
    elsewhere.run.id = `${recorder.run.id}-iphone`;
    elsewhere.capabilities.user_agent =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 Version/18.0 Mobile/15E148 Safari/604.1';
    const again = structuredClone(recorder);
    again.receipt_id = `${recorder.receipt_id}-again`;
    again.run.id = `${recorder.run.id}-again`;
    again.run.previous_run_interrupted = { ...dead, run_id: 'another-dead-run', stage: 'fetch' };
    const summary = await summarizeAll([...receipts, elsewhere, again]);
    expect(summary.inputs.interruptions).toBe(3);
    expect(summary.interruptions).toHaveLength(2);
    const here = only(
      summary.targets,
      (t) =>
        t.identity.model.id === dead.model_id &&
        t.counts.ok_warm > 0 &&
        !t.identity.device.user_agent.includes('iPhone'),
    );
    expect(here.interrupted.receipt_ids).toEqual([recorder.receipt_id, again.receipt_id].sort());
    expect(here.interrupted.by_stage).toEqual([
      { stage: 'fetch', count: 1 },
      { stage: dead.stage, count: 1 },
    ]);
    const iphone = only(summary.interruptions, (g) => g.device.user_agent.includes('iPhone'));
    expect(iphone).toMatchObject({ interrupted: 1, receipts: 0, target_keys: [] });
  });

  it("counts an interruption recorded by a generation receipt under the dead run's model and route", async () => {
    const s = new ReceiptsSummarizer();
    for (const r of pageReceipts()) s.addReceipt(r);
    const gen = makeGenerationReceipt();
    gen.previous_run_interrupted = {
      run_id: 'gen-dead',
      run_mode: 'suite',
      run_kind: null,
      stage: 'rows',
      stage_started_at: '2026-11-29T09:00:00Z',
      model_id: 'ort-tiny-xenc',
      requested_ep: 'wasm',
    };
    s.addGenerationReceipt(gen);
    const summary = await s.finish();
    const group = only(summary.interruptions, (g) => g.receipt_ids.includes(gen.receipt_id));
    expect(group).toMatchObject({
      model_id: 'ort-tiny-xenc',
      requested_ep: 'wasm',
      by_stage: [{ stage: 'rows', count: 1 }],
      by_run_mode: [{ run_mode: 'suite', count: 1 }],
    });
    // The generation fixture's device is not the page's Chromium: its own group, not the Chromium targets.
    expect(summary.targets.filter((t) => t.interrupted.receipt_ids.includes(gen.receipt_id)).map((t) => t.key)).toEqual(
      summary.targets.filter((t) => group.target_keys.includes(t.key)).map((t) => t.key),
    );
    expect(summary.generation_targets[0].interrupted.receipt_ids).toEqual([]);
  });
});

describe('per-target statistics', () => {
  it('computes cold stage median/p95 and pooled warm statistics by hand-checked values', async () => {
    const totals = [10, 20, 30, 40, 50];
    const cold = totals.map((t) => buildReceipt({ kind: 'cold', coldMs: { fetch: t, session: 100, first: t / 10 } }));
    const warm = [
      buildReceipt({ kind: 'warm', warmSamples: [1, 2, 3] }),
      buildReceipt({ kind: 'warm', warmSamples: [4, 5, 6] }),
      buildReceipt({ kind: 'warm', warmSamples: [7, 8, 9, 10] }),
    ];
    const summary = await summarizeAll([...cold, ...warm]);
    const [t] = summary.targets;
    expect(t.cold.fetch_ms).toMatchObject({ count: 5, median: 30, p95: 50, min: 10, max: 50 });
    // total = fetch + session + first + 1 (see the builder): 10+100+1+1 ... 50+100+5+1
    expect(t.cold.total_ms).toMatchObject({ count: 5, median: 134, p95: 156 });
    expect(t.cold.first_inference_ms).toMatchObject({ median: 3, p95: 5 });
    // 10 samples 1..10: median 5.5, nearest-rank p95 = ceil(9.5) = 10th = 10.
    expect(t.warm.pooled_ms).toMatchObject({ count: 10, median: 5.5, p95: 10, min: 1, max: 10 });
    // per-receipt medians 2, 5, 8.5
    expect(t.warm.receipt_medians_ms).toMatchObject({ count: 3, median: 5, min: 2, max: 8.5 });
    expect(t.warm.receipt_median_ratio).toBe(4.25);
    expect(t.counts).toMatchObject({
      cold: 5,
      warm: 3,
      clean_cold: 5,
      clean_warm: 3,
      warm_samples: 10,
      cold_minimum_met: true,
      warm_minimum_met: false,
    });
    // The pooled median's interval resamples whole receipts. Over the 27 equally likely receipt triples the pooled
    // median is 2 (1 of 27), 3 (6), 4 (3), 5 (1), 5.5 (6), 6 (3), 8 (6), 8.5 (1) (enumerated with python3): the 2.5%
    // point is 2 and the 97.5% point 8.5.
    expect(t.warm.median_interval).toMatchObject({
      low: 2,
      high: 8.5,
      resampled: 'receipts',
      method: 'percentile-bootstrap',
      level: 0.95,
    });
    // Each receipt rises by exactly 1 ms per run (Theil-Sen slope 1); none has the 5 samples a thermal slope needs.
    expect(t.warm.drift_ms_per_run).toMatchObject({ count: 3, median: 1, min: 1, max: 1 });
    expect(t.warm.thermal_slope).toBeNull();
    expect(renderSummaryMarkdown(summary)).toContain(
      '- Warm median 95% interval [2, 8.5] ms (bootstrap, whole receipts resampled)',
    );
    // 20 samples: first fifth [10, 10, 11, 11] (median 10.5), last fifth [13, 14, 14, 14] (median 14): 14 / 10.5.
    const hot = buildReceipt({
      kind: 'warm',
      warmSamples: [10, 10, 11, 11, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 13, 14, 14, 14],
    });
    const [h] = (await summarizeAll([hot])).targets;
    expect(h.warm.thermal_slope).toMatchObject({ count: 1, median: 14 / 10.5 });
    expect(h.warm.median_interval).toMatchObject({ resampled: 'samples' });
  });

  it('flags noisy runs (page hidden) and keeps them out of statistics and minimums', async () => {
    const receipts = [
      buildReceipt({ kind: 'cold', coldMs: { fetch: 1, session: 1, first: 1 } }),
      buildReceipt({ kind: 'cold', coldMs: { fetch: 999, session: 1, first: 1 }, hidden: true }),
    ];
    const [t] = (await summarizeAll(receipts)).targets;
    expect(t.counts).toMatchObject({ cold: 2, ok_cold: 2, clean_cold: 1, noisy: 1 });
    expect(t.noisy).toEqual({ hidden: 1, frozen: 0, receipt_ids: [receipts[1].receipt_id] });
    expect(t.cold.fetch_ms).toMatchObject({ count: 1, max: 1 });
  });

  it('counts only truly cold runs toward the cold minimum and statistics, and says how many were set aside and why', async () => {
    const cold = Array.from({ length: 5 }, () =>
      buildReceipt({ kind: 'cold', coldMs: { fetch: 10, session: 10, first: 1 } }),
    );
    const cached = Array.from({ length: 5 }, () =>
      buildReceipt({ kind: 'cold', coldMs: { fetch: 1, session: 1, first: 1 }, runtimeCache: 'http-cache' }),
    );
    const unknown = buildReceipt({ kind: 'cold', coldMs: { fetch: 1, session: 1, first: 1 }, runtimeCache: 'unknown' });
    expect(cached.map((r) => r.run.cold_from_cache)).toEqual([true, true, true, true, true]);
    expect(unknown.run.cold_from_cache).toBeNull();

    const cachedOnly = (await summarizeAll([...cached, unknown])).targets[0];
    expect(cachedOnly.counts).toMatchObject({
      cold: 6,
      ok_cold: 6,
      clean_cold: 0,
      cold_set_aside: 6,
      cold_minimum_met: false,
    });
    expect(cachedOnly.cold_set_aside).toEqual({
      served_from_cache: cached.map((r) => r.receipt_id).sort(),
      cache_state_unknown: [unknown.receipt_id],
      not_fresh_start: [],
      not_attested: [],
    });
    expect(cachedOnly.cold.total_ms).toBeNull();
    expect(cachedOnly.evidence.not_higher_because).toContain(
      '0 full protocol cold run(s), the protocol needs at least 5; measured: 0 network-cold, 0 of them from a fresh start; attested: 6 browser restart and site data clear (cold run(s) set aside: 5 served from a cache, 1 with a file of unknown cache state)',
    );
    expect(renderSummaryMarkdown(await summarizeAll([...cached, unknown]))).toContain(
      '- Cold runs set aside, served from a cache (not truly cold):',
    );

    const mixed = (await summarizeAll([...cold, ...cached])).targets[0];
    expect(mixed.counts).toMatchObject({ clean_cold: 5, full_cold: 5, cold_set_aside: 5, cold_minimum_met: true });
    // Only the truly cold runs' times: every set-aside run took 4 ms, every cold one 22 ms.
    expect(mixed.cold.total_ms).toMatchObject({ count: 5, min: 22, max: 22 });
  });

  it('sets aside ok runs that another run overlapped, out of the counts and statistics, and says how many', async () => {
    const clean = Array.from({ length: 20 }, () =>
      buildReceipt({ kind: 'warm', warmSamples: Array.from({ length: 20 }, () => 10) }),
    );
    const otherTab = (r: DeviceReceipt): DeviceReceipt => ({
      ...r,
      run: { ...r.run, overlap: { this_page: false, other_tabs: true } },
    });
    const samePage = (r: DeviceReceipt): DeviceReceipt => ({
      ...r,
      run: { ...r.run, overlap: { this_page: true, other_tabs: false } },
    });
    const seenNone = (r: DeviceReceipt): DeviceReceipt => ({
      ...r,
      run: { ...r.run, overlap: { this_page: false, other_tabs: false } },
    });
    const cantTell = (r: DeviceReceipt): DeviceReceipt => ({
      ...r,
      run: { ...r.run, overlap: { this_page: false, other_tabs: null } },
    });
    const slow = Array.from({ length: 20 }, () => 47);
    const overlapping = [
      otherTab(buildReceipt({ kind: 'warm', warmSamples: slow })),
      samePage(buildReceipt({ kind: 'cold' })),
    ];
    const t = (
      await summarizeAll([...clean.map(seenNone).slice(0, 18), ...clean.slice(18).map(cantTell), ...overlapping])
    ).targets[0];
    expect(t.counts).toMatchObject({
      warm: 21,
      ok_warm: 21,
      clean_warm: 20,
      cold: 1,
      ok_cold: 1,
      clean_cold: 0,
      overlap_set_aside: 2,
    });
    expect(t.overlap_set_aside).toEqual(overlapping.map((r) => r.receipt_id).sort());
    // Only the runs alone: every overlapped sample took 47 ms, every clean one 10 ms.
    expect(t.warm.pooled_ms).toMatchObject({ count: 400, max: 10 });
    expect(t.evidence.not_higher_because).toContain(
      '2 ok run(s) set aside because another run overlapped them (run one at a time, in one tab)',
    );
    const markdown = renderSummaryMarkdown(await summarizeAll([...clean, ...overlapping]));
    expect(markdown).toContain('overlapping set aside 2');
    expect(markdown).toContain('- Runs set aside, another run overlapped them (timings not representative):');
  });

  it('counts fallbacks, integrity, failures by reason and interrupted runs; failures of the same request are related', async () => {
    const ok = buildReceipt({ kind: 'cold' });
    const fail1 = buildReceipt({ kind: 'cold', failed: { stage: 'fetch', reason: 'HTTP 404' } });
    const fail2 = buildReceipt({ kind: 'cold', failed: { stage: 'fetch', reason: 'HTTP 404' } });
    const fail3 = buildReceipt({ kind: 'warm', failed: { stage: 'warm_inference', reason: 'worker crashed' } });
    const interrupted = buildReceipt({
      kind: 'cold',
      interruptedAt: {
        run_id: 'x',
        run_kind: 'warm',
        stage: 'warm_inference',
        stage_started_at: '2026-11-29T09:00:00Z',
        model_id: 'ort-tiny-xenc',
        requested_ep: 'wasm',
      },
    });
    const fallback = buildReceipt({ kind: 'cold', ep: 'webgpu', completedEp: 'wasm' });
    const summary = await summarizeAll([ok, fail1, fail2, fail3, interrupted, fallback]);
    const okTarget = only(
      summary.targets,
      (t) => t.identity.route.completed_ep === 'wasm' && t.identity.route.requested_ep === 'wasm',
    );
    // A fetch failure loaded no files, a warm failure had them: two failed targets, both related to the ok one.
    const failedTargets = summary.targets.filter((t) => t.identity.route.completed_ep === null);
    expect(failedTargets).toHaveLength(2);
    const notLoaded = only(failedTargets, (t) => t.identity.model.file_sha256.length === 0);
    expect(notLoaded.failures.by_reason).toEqual([{ stage: 'fetch', reason: 'HTTP 404', count: 2 }]);
    expect(notLoaded.integrity).toMatchObject({ 'not-loaded': 2, verified: 0 });
    const loaded = only(failedTargets, (t) => t.identity.model.file_sha256.length > 0);
    expect(loaded.failures.by_reason).toEqual([{ stage: 'warm_inference', reason: 'worker crashed', count: 1 }]);
    expect(okTarget.counts).toMatchObject({ receipts: 2, failed: 0, interrupted: 1 });
    expect(okTarget.interrupted).toMatchObject({
      by_stage: [{ stage: 'warm_inference', count: 1 }],
      receipt_ids: [interrupted.receipt_id],
    });
    // The journal does not record what completed, so the failed targets of the same model and requested route share it.
    for (const t of failedTargets) expect(t.interrupted.receipt_ids).toEqual([interrupted.receipt_id]);
    expect(only(summary.targets, (t) => t.identity.route.requested_ep === 'webgpu').counts.interrupted).toBe(0);
    expect(okTarget.related.failed_receipt_ids).toEqual([fail1, fail2, fail3].map((r) => r.receipt_id).sort());
    expect(okTarget.related.target_keys).toEqual(failedTargets.map((t) => t.key).sort());
    expect(notLoaded.related.failed_receipt_ids).toEqual([fail3.receipt_id]);
    const fb = only(summary.targets, (t) => t.identity.route.requested_ep === 'webgpu');
    expect(fb.fallbacks).toEqual({ count: 1, reasons: [{ reason: 'no WebGPU adapter', count: 1 }] });
    expect(fb.related.target_keys).toEqual([]);
  });

  it('gates budget profiles and says "not measured" where the browser exposes no memory API', async () => {
    const receipts = [
      buildReceipt({ kind: 'cold', jsHeapUsed: null, coldMs: { fetch: 6000, session: 100, first: 10 } }),
    ];
    const [t] = (await summarizeAll(receipts)).targets;
    expect(t.js_heap_max_used_bytes).toBeNull();
    const entry = t.profiles.find((p) => p.profile === 'entry')!;
    expect(entry.gates.find((g) => g.gate === 'js_heap_bytes')).toMatchObject({
      status: 'not-measured',
      measured: null,
    });
    expect(entry.gates.find((g) => g.gate === 'warm_p95_ms')).toMatchObject({ status: 'not-measured' });
    expect(entry.verdict).toBe('incomplete');
    const perf = t.profiles.find((p) => p.profile === 'performance')!;
    expect(perf.gates.find((g) => g.gate === 'cold_load_p95_ms')).toMatchObject({
      status: 'fail',
      measured: 6111,
      limit: 5000,
    });
    expect(perf.verdict).toBe('fail');
  });
});

describe('drb receipts summarize', () => {
  function receiptsDir(receipts: DeviceReceipt[]): string {
    const d = testTempDir('drb-summarize-');
    mkdirSync(join(d, 'in'));
    receipts.forEach((r, i) => writeFileSync(join(d, 'in', `r${String(i).padStart(3, '0')}.json`), JSON.stringify(r)));
    return d;
  }

  it('writes summary.json (schema-valid) and summary.md, counting invalid and non-receipt files', async () => {
    const d = receiptsDir([buildReceipt({ kind: 'cold' }), buildReceipt({ kind: 'warm' })]);
    const bad = buildReceipt({ kind: 'cold' });
    bad.run.inferences_completed = 0;
    writeFileSync(join(d, 'in', 'bad.json'), JSON.stringify(bad));
    writeFileSync(join(d, 'in', 'pp.json'), JSON.stringify({ schema: 'drb.public-pass.v1' }));
    const out = join(d, 'out');
    const run = await runCli(['receipts', 'summarize', join(d, 'in'), '--out', out]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^summarized 2 receipt\(s\) into 1 target\(s\) \(0 DEVICE_PASS, 1 DEVICE_RECEIPT\): /);
    expect(run.stderr).toContain('warning: 1 invalid receipt(s) excluded');
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    expect(summary.inputs).toEqual({
      files: 4,
      receipts_valid: 2,
      generation_receipts_valid: 0,
      suite_receipts_valid: 0,
      comparison_receipts_valid: 0,
      receipts_invalid: 1,
      not_receipts: 1,
      interruptions: 0,
      duplicates_identical: 0,
      duplicates_conflicting: 0,
    });
    expect(summary.invalid[0]).toMatchObject({
      file: join(d, 'in', 'bad.json'),
      first_problem: 'outcome.status: is "ok" but no inference completed',
    });
    const md = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(md).toContain(`| ${summary.targets[0].key} | ort-tiny-xenc | ort | wasm | 1 | 1/5 (1 / 1) | 1/20 |`);
    expect(md).toContain('HUMAN_GO is never set by this tool');
    // Same input, same bytes.
    const first = readFileSync(join(out, 'summary.json'), 'utf8');
    expect((await runCli(['receipts', 'summarize', join(d, 'in'), '--out', out])).code).toBe(0);
    expect(readFileSync(join(out, 'summary.json'), 'utf8')).toBe(first);
  });

  it('refuses an empty input and input without a valid receipt, writing nothing', async () => {
    const d = testTempDir('drb-summarize-');
    const empty = await runCli(['receipts', 'summarize', d, '--out', join(d, 'out')]);
    expect(empty).toMatchObject({
      code: 2,
      stderr: `error: ${d}: no .json files found (an empty input is not a pass)\n`,
    });
    writeFileSync(join(d, 'x.json'), JSON.stringify({ schema: 'something.else' }));
    const none = await runCli(['receipts', 'summarize', d, '--out', join(d, 'out')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no valid receipt among 1 file(s)');
    expect(existsSync(join(d, 'out', 'summary.json'))).toBe(false);
  });

  it('skips its own output folder when it lies inside the input, and never overwrites a foreign file', async () => {
    const d = receiptsDir([buildReceipt({ kind: 'cold' })]);
    const out = join(d, 'in', 'summary');
    expect((await runCli(['receipts', 'summarize', join(d, 'in'), '--out', out])).code).toBe(0);
    const again = await runCli(['receipts', 'summarize', join(d, 'in'), '--out', out]);
    expect(again.code).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).inputs.files).toBe(1);
    const foreign = join(d, 'foreign');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'summary.json'), '{"mine": true}');
    const refused = await runCli(['receipts', 'summarize', join(d, 'in'), '--out', foreign]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('exists and is not a drb.receipts-summary.v3 file; refusing to overwrite it');
    expect(readFileSync(join(foreign, 'summary.json'), 'utf8')).toBe('{"mine": true}');
  });
});

describe('the engine line of a target', () => {
  it('names the engine with its version, or says the version is unknown when the runtime never reported it', async () => {
    const known = buildReceipt({ kind: 'cold' });
    const unknown = buildReceipt({ kind: 'cold', commit: 'c'.repeat(40) });
    unknown.engine = { ...unknown.engine, version: 'unknown' };
    const md = renderSummaryMarkdown(await summarizeAll([known, unknown]));
    expect(md).toContain(`; engine ${known.engine.name} ${known.engine.version}`);
    expect(md).toContain(`; engine ${unknown.engine.name} (version unknown)`);
    expect(md).not.toContain(`${unknown.engine.name} unknown`);
  });
});
