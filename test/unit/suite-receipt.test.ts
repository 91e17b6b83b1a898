/** The suite receipt schema and its invariants, on a hand-built receipt and mutated copies. */
import { describe, expect, it } from 'vitest';
import { checkSuiteReceipt, SuiteReceipt, SUITE_RECEIPT_SCHEMA } from '../../src/core/suite/suite-receipt.ts';
import { summarize } from '../../src/core/stats/stats.ts';
import { wasmRoute } from './generation-fixtures.ts';

const sha = 'a'.repeat(64);
const samples = [12, 10, 11, 40];

function receipt(): SuiteReceipt {
  return {
    schema: SUITE_RECEIPT_SCHEMA,
    receipt_id: 'suite-0001',
    created_at: '2026-11-29T12:00:00.000Z',
    evidence_state: 'DEVICE_RECEIPT',
    app: { name: 'device-receipts-bench', version: '0.1.0', commit: null, page_url: 'http://127.0.0.1:1234/' },
    suite: {
      id: 'demo',
      format: 'ajimee',
      items: { file_name: 'items.json', bytes: 10, sha256: sha, rows: 5 },
      candidates: { file_name: 'candidates.json', bytes: 10, sha256: sha, rows: 4 },
      text_template: 'drb.rerank-pair.v1',
    },
    engine: { name: 'transformers', version: '4.3.2' },
    task: 'rerank',
    provenance: 'deberta',
    policy: { name: 'margin-threshold', min_margin: 0.5 },
    route: wasmRoute(),
    model: {
      id: 'tfjs-tiny-reranker',
      kind: 'fixture',
      task: 'rerank',
      dtype: 'fp32',
      source: 'page-origin',
      revision: null,
      integrity: 'verified',
      files: [],
    },
    rows: { total: 5, done: 5, accepted: 2, low_margin: 1, single_candidate: 1, no_candidates: 1 },
    timings: {
      model_load_ms: 100,
      row_latency_samples_ms: samples,
      row_latency_stats: summarize(samples),
      total_ms: 200,
    },
    predictions: { sha256: sha, bytes: 100, rows: 5 },
    capabilities: null,
    previous_run_interrupted: null,
    errors: [],
    outcome: { status: 'ok', reason: null, failed_stage: null },
  };
}

describe('suite receipt', () => {
  it('accepts a consistent ok receipt', () => {
    expect(SuiteReceipt.safeParse(receipt()).success).toBe(true);
    expect(checkSuiteReceipt(receipt())).toEqual([]);
  });

  it('refuses unknown keys (no text can hide in it)', () => {
    const r = { ...receipt(), rows_text: ['x'] };
    expect(SuiteReceipt.safeParse(r).success).toBe(false);
    const inner = receipt() as unknown as { suite: Record<string, unknown> };
    inner.suite.query = 'text';
    expect(SuiteReceipt.safeParse(inner).success).toBe(false);
  });

  it.each([
    [
      'stats not from samples',
      (r: SuiteReceipt) => (r.timings.row_latency_stats!.median = 99),
      'timings.row_latency_stats.median',
    ],
    ['counts not adding up', (r: SuiteReceipt) => (r.rows.accepted = 3), 'rows.done'],
    [
      'sample count != inferred rows',
      (r: SuiteReceipt) => r.timings.row_latency_samples_ms.pop(),
      'timings.row_latency_samples_ms',
    ],
    ['ok without predictions', (r: SuiteReceipt) => (r.predictions = null), 'predictions'],
    ['ok despite integrity mismatch', (r: SuiteReceipt) => (r.model.integrity = 'mismatch'), 'outcome.status'],
    [
      'failed without a reason',
      (r: SuiteReceipt) => (r.outcome = { status: 'failed', reason: null, failed_stage: 'load' }),
      'outcome.reason',
    ],
  ])('flags %s', (_name, mutate, path) => {
    const r = receipt();
    mutate(r);
    if (r.timings.row_latency_samples_ms.length !== 4 && r.timings.row_latency_stats)
      r.timings.row_latency_stats = summarize(r.timings.row_latency_samples_ms);
    expect(checkSuiteReceipt(r).map((p) => p.path)).toContain(path);
  });
});
