/**
 * The one cross-field layer (src/core/receipt/receipt-invariants.ts with src/core/validation/artifact-invariants.ts,
 * summary-invariants.ts and score-report-invariants.ts): every receipt the real page made still passes, and every
 * contradiction inside one artifact (device receipts through the hostile fixtures; generation receipts, summaries
 * and score reports here) is one problem naming its field path.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkRouteAgainstPage, runtimeBuildOfFile } from '../../src/core/receipt/receipt-invariants.ts';
import { checkReceiptsSummary } from '../../src/core/evidence/summary-invariants.ts';
import { ReceiptsSummarizer } from '../../src/core/evidence/receipts-summarizer.ts';
import type { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { checkScoreReport } from '../../src/core/scoring/score-report-invariants.ts';
import { buildScoreReport } from '../../src/core/scoring/score-run.ts';
import type { ScoreReport } from '../../src/core/scoring/score-report.ts';
import type { GenerationReceipt } from '../../src/core/generation/generation-receipt.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import { capabilities, makeGenerationReceipt } from './generation-fixtures.ts';
import { buildReceipt } from './receipts-builder.ts';
import { pageReceipts } from './receipts-fixtures.ts';

const FIXTURES = join(__dirname, '..', 'fixtures', 'receipts');

const pathsOf = (value: unknown) => validateReceipt(value).problems.map((p) => p.path);

describe('receipts the real page made', () => {
  it('every captured receipt (Chromium and WebKit, every kind) passes every cross-field rule', () => {
    for (const name of readdirSync(FIXTURES).filter((n) => n.endsWith('.json'))) {
      expect(validateReceipt(JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'))).problems, name).toEqual([]);
    }
  });

  it('a WebGPU route is judged only by what the page could tell: an adapter request that failed or timed out says nothing', () => {
    const route = { completed_ep: 'webgpu' as const, threads_requested: null, threads_effective: 1, attempts: [] };
    const timedOut = {
      ...capabilities,
      webgpu: {
        ...capabilities.webgpu,
        adapter_granted: false,
        adapter_error: 'requestAdapter did not answer within 5000 ms',
      },
    };
    expect(checkRouteAgainstPage(route, timedOut, '')).toEqual([]);
    const answeredNone = { ...timedOut, webgpu: { ...timedOut.webgpu, adapter_error: null } };
    expect(checkRouteAgainstPage(route, answeredNone, '').map((p) => p.path)).toEqual(['route.completed_ep']);
  });

  it('names the build of a runtime file by its name, Vite hash or not', () => {
    expect(runtimeBuildOfFile('http://h/assets/ort-wasm-simd-threaded.asyncify-D5D0fo7z.wasm')).toBe('asyncify');
    expect(runtimeBuildOfFile('http://h/assets/ort-wasm-simd-threaded.jspi-AbC_d-12.mjs')).toBe('jspi');
    expect(runtimeBuildOfFile('http://h/assets/ort-wasm-simd-threaded-D5D0fo7z.wasm')).toBe('plain');
    expect(runtimeBuildOfFile('http://h/ort-wasm-simd-threaded.wasm')).toBe('plain');
    expect(runtimeBuildOfFile('http://h/assets/model.onnx')).toBeNull();
  });
});

describe('generation receipts', () => {
  const edited = (edit: (r: GenerationReceipt) => void) => {
    const r = structuredClone(makeGenerationReceipt());
    edit(r);
    return pathsOf(r);
  };

  it('pass as made, and each contradiction is named by its field', () => {
    expect(pathsOf(makeGenerationReceipt())).toEqual([]);
    const webgpu = edited((r) => {
      r.capabilities.webgpu.navigator_gpu = false;
      Object.assign(r.route, { requested_ep: 'webgpu', completed_ep: 'webgpu' });
      r.route.attempts[0].ep = 'webgpu';
    });
    expect(webgpu).toEqual(expect.arrayContaining(['route.completed_ep', 'route.attempts[0].outcome']));
    const threads = edited((r) => {
      Object.assign(r.route, { threads_requested: 4, threads_effective: 4 });
      r.capabilities.cross_origin_isolated = false;
    });
    expect(threads).toContain('route.threads_effective');
    expect(
      edited((r) => {
        r.route = {
          ...r.route,
          requested_ep: 'webgpu',
          allow_fallback: true,
          fallback_reason: 'x',
          attempts: [
            { ep: 'webgpu', threads: null, outcome: 'succeeded', reason: null, started_at_ms: 1, ended_at_ms: 2 },
            r.route.attempts[0],
          ],
        };
      }),
    ).toEqual(expect.arrayContaining(['route.attempts[1]', 'route.completed_ep']));
    expect(
      edited((r) => (r.model.files = [{ ...pageReceipts()[0].model.files[0], sha256: 'e'.repeat(64) }])),
    ).toContain('model.files[0].sha256');
    expect(
      edited(
        (r) =>
          (r.runtime = {
            build: 'plain',
            files: pageReceipts()[0].runtime.files.map((f) => ({ ...f, sha256: 'a'.repeat(64) })),
          }),
      ),
    ).toContain('runtime.files[0].url');
    expect(edited((r) => (r.lifecycle = { ...r.lifecycle, events: [{ type: 'freeze', at_ms: 5 }] }))).toContain(
      'lifecycle.frozen_during_run',
    );
    expect(edited((r) => (r.model.integrity = 'not-loaded'))).toContain('model.integrity');
  });
});

async function summaryOf(): Promise<ReceiptsSummary> {
  const s = new ReceiptsSummarizer();
  for (const r of pageReceipts()) s.addReceipt(r);
  s.addReceipt(buildReceipt({ kind: 'cold', failed: { stage: 'session', reason: 'out of memory' } }));
  s.addReceipt(buildReceipt({ kind: 'warm', hidden: true }));
  return s.finish();
}

describe('summaries', () => {
  it('a summary as made passes; each contradiction between its counts is named', async () => {
    const summary = await summaryOf();
    expect(checkReceiptsSummary(summary)).toEqual([]);
    const i = summary.targets.findIndex((t) => t.counts.ok_warm > 0);
    const edits: Array<[string, (s: ReceiptsSummary) => void]> = [
      [`targets[${i}].counts.clean_warm`, (s) => (s.targets[i].counts.clean_warm += 20)],
      [`targets[${i}].counts.cold_minimum_met`, (s) => (s.targets[i].counts.cold_minimum_met = true)],
      [`targets[${i}].counts.failed`, (s) => (s.targets[i].counts.failed += 1)],
      [
        `targets[${i}].evidence.state`,
        (s) => (s.targets[i].evidence = { state: 'DEVICE_PASS', not_higher_because: [] }),
      ],
      [
        `targets[${i}].warm.pooled_ms`,
        (s) => {
          const pooled = s.targets[i].warm.pooled_ms;
          if (pooled) pooled.min = pooled.max + 1;
        },
      ],
      ['inputs.receipts_valid', (s) => (s.inputs.receipts_valid += 5)],
      ['inputs.duplicates_conflicting', (s) => (s.inputs.duplicates_conflicting = 1)],
      ['protocol.min_cold', (s) => (s.protocol.min_cold = 1)],
    ];
    for (const [path, edit] of edits) {
      const copy = structuredClone(summary);
      edit(copy);
      expect(
        checkReceiptsSummary(copy).map((p) => p.path),
        path,
      ).toContain(path);
    }
  });

  it('a mean a rounding error above its max (three samples of 0.1 ms) is no contradiction; one clearly above is', async () => {
    const summary = await summaryOf();
    const i = summary.targets.findIndex((t) => t.warm.pooled_ms !== null);
    const pooled = summary.targets[i].warm.pooled_ms!;
    const rounded = structuredClone(summary);
    Object.assign(rounded.targets[i].warm.pooled_ms!, {
      min: 0.1,
      median: 0.1,
      p95: 0.1,
      max: 0.1,
      mean: (0.1 + 0.1 + 0.1) / 3,
    });
    expect((0.1 + 0.1 + 0.1) / 3).toBeGreaterThan(0.1);
    expect(checkReceiptsSummary(rounded).map((p) => p.path)).not.toContain(`targets[${i}].warm.pooled_ms`);
    const above = structuredClone(summary);
    above.targets[i].warm.pooled_ms!.mean = pooled.max * 1.001 + 0.001;
    expect(checkReceiptsSummary(above).map((p) => p.path)).toContain(`targets[${i}].warm.pooled_ms`);
  });
});

async function scoreReport(): Promise<ScoreReport> {
  const bytes = (value: unknown, name: string) => ({
    bytes: new TextEncoder().encode(JSON.stringify(value)),
    fileName: name,
    reportName: name,
  });
  const items = [
    { id: 'a', input: 'teh', references: ['the'] },
    { id: 'b', input: 'cat', references: ['cat'], label: 'clean' },
    { id: 'c', input: 'dgo', references: ['dog'] },
    { id: 'd', input: 'sun', references: ['sun'], label: 'clean' },
  ];
  const predictions = [
    { id: 'a', candidates: ['the', 'then'] },
    { id: 'b', candidates: ['cat'] },
    { id: 'c', candidates: ['god', 'dog'] },
    { id: 'd', candidates: [] },
  ];
  return buildScoreReport(bytes(items, 'items.json'), bytes(predictions, 'p.json'), {
    format: 'generic',
    candidateLimit: 8,
    declared: {},
    toolVersion: 't',
    perRow: true,
  });
}

describe('score reports', () => {
  it('a report as drb score writes it passes; a rate that contradicts its counts, and every other contradiction, is named', async () => {
    const report = await scoreReport();
    expect(checkScoreReport(report)).toEqual([]);
    const edits: Array<[string, (r: ScoreReport) => void]> = [
      ['metrics.effective_acc_at_1', (r) => (r.metrics.effective_acc_at_1 = 1)],
      ['metrics.candidate_recall_at_k', (r) => (r.metrics.candidate_recall_at_k = 0.5)],
      ['metrics.abstention_rate', (r) => (r.metrics.abstention_rate = 0)],
      ['metrics.overcorrection_rate', (r) => (r.metrics.overcorrection_rate = null)],
      ['metrics.accepted_accuracy', (r) => (r.metrics.accepted_accuracy = 0.5)],
      ['metrics.unchanged', (r) => (r.metrics.unchanged += 1)],
      ['metrics.reranking_headroom', (r) => (r.metrics.reranking_headroom = 0.25)],
      ['metrics.mrr_at_k', (r) => (r.metrics.mrr_at_k = 0.9)],
      ['diagnosis.dominant_error', (r) => (r.diagnosis.dominant_error = 'candidate_miss')],
      ['inputs.items.rows', (r) => (r.inputs.items.rows = 9)],
      ['metrics.correct_rows', (r) => (r.per_row![0].correct = !r.per_row![0].correct)],
    ];
    for (const [path, edit] of edits) {
      const copy = structuredClone(report);
      edit(copy);
      expect(
        checkScoreReport(copy).map((p) => p.path),
        path,
      ).toContain(path);
    }
  });
});
