import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/core/catalog.ts';
import type { Capabilities } from '../../src/core/receipt.ts';
import { assembleReceipt, receiptFileName, type RunRecord } from '../../src/page/receipt-assembly.ts';

const catalog = parseCatalog(JSON.parse(readFileSync(new URL('../../src/catalog/catalog.json', import.meta.url), 'utf8')), 'catalog.json');
const model = catalog.models.find((m) => m.id === 'ort-tiny-xenc')!;
const SHA = 'a'.repeat(64);

const capabilities: Capabilities = {
  user_agent: 'UA',
  ua_client_hints: null,
  platform: null,
  cross_origin_isolated: true,
  shared_array_buffer: true,
  wasm: { supported: true, simd: true, threads: true },
  hardware_concurrency: 2,
  device_memory_gb: null,
  js_heap: null,
  storage: { quota_bytes: null, usage_bytes: null, persisted: null },
  webgpu: { navigator_gpu: false, adapter_granted: false, adapter_error: null, adapter_info: null, is_fallback_adapter: null, features: [], limits: null },
};

function record(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    receiptId: '11111111-2222-3333-4444-555555555555',
    createdAt: '2026-11-29T11:22:33.456Z',
    runId: 'run-1',
    kind: 'warm',
    startedAt: '2026-11-29T11:22:30.000Z',
    startedAtMs: 100,
    endedAtMs: 160,
    warmRunsRequested: 4,
    app: { version: '0.1.0', commit: null, pageUrl: 'https://user:pw@example.test/bench/?token=SECRET#frag' },
    engine: { name: 'ort', version: '1.30.0' },
    request: { ep: 'wasm', threads: 2, allowFallback: false },
    attempts: [{ ep: 'wasm', threads: 2, outcome: 'succeeded', reason: null, started_at_ms: 101, ended_at_ms: 120 }],
    completedEp: 'wasm',
    fallbackReason: null,
    threadsEffective: 2,
    model,
    files: [{ url: 'https://example.test/bench/models/ort-tiny-xenc/model.onnx', bytes: 10, sha256: SHA, expected_bytes: 10, expected_sha256: SHA }],
    integrity: 'verified',
    input: { id: 'tokens-2x16', sha256: SHA },
    output: { name: 'logits', dims: [2, 1], head: [0.5, -0.25], sha256: SHA },
    fetchMs: null,
    sessionMs: null,
    firstInferenceMs: null,
    warmupMs: 3,
    warmSamplesMs: [4, 1, 3, 2],
    inferencesCompleted: 4,
    transitions: [
      { status: 'idle', at_ms: 100 },
      { status: 'ready', at_ms: 101 },
      { status: 'running', at_ms: 102 },
      { status: 'done', at_ms: 150 },
    ],
    navigation: null,
    resources: [],
    capabilities,
    lifecycle: { visibility_at_start: 'visible', hidden_during_run: false, frozen_during_run: false, events: [] },
    errors: [],
    failure: null,
    previousRunInterrupted: null,
    ...overrides,
  };
}

describe('assembleReceipt', () => {
  it('builds a valid warm receipt with statistics recomputed from the samples (nearest-rank p95)', () => {
    const { receipt, problems } = assembleReceipt(record());
    expect(problems).toEqual([]);
    expect(receipt.timings.warm_stats).toEqual({ count: 4, median: 2.5, p95: 4, min: 1, max: 4, mean: 2.5 });
    expect(receipt.timings.total_ms).toBe(60);
    // Origin + path only: no credentials, query or fragment.
    expect(receipt.app.page_url).toBe('https://example.test/bench/');
    expect(receipt.model).toMatchObject({ id: 'ort-tiny-xenc', kind: 'fixture', source: 'page-origin', revision: null, integrity: 'verified' });
  });

  it('redacts URLs inside failure reasons and errors, and refuses a failed run without an end state', () => {
    const failed = record({
      kind: 'cold',
      warmRunsRequested: null,
      warmupMs: null,
      warmSamplesMs: [],
      inferencesCompleted: 0,
      output: null,
      completedEp: null,
      attempts: [],
      failure: { reason: 'model file https://example.test/m.onnx?sig=SECRET answered HTTP 404', stage: 'fetch' },
      errors: [{ stage: 'fetch', name: 'Error', message: 'see https://example.test/m.onnx?sig=SECRET' }],
      transitions: [
        { status: 'idle', at_ms: 100 },
        { status: 'fetching', at_ms: 101 },
        { status: 'failed', at_ms: 102 },
      ],
    });
    const { receipt, problems } = assembleReceipt(failed);
    expect(problems).toEqual([]);
    expect(JSON.stringify(receipt)).not.toContain('SECRET');
    expect(receipt.outcome).toEqual({ status: 'failed', reason: 'model file https://example.test/m.onnx answered HTTP 404', failed_stage: 'fetch' });
  });

  it('reports invariant problems instead of hiding them (a fallback that was not allowed)', () => {
    const { problems } = assembleReceipt(
      record({
        request: { ep: 'webgpu', threads: null, allowFallback: false },
        completedEp: 'wasm',
        fallbackReason: 'no adapter',
        attempts: [
          { ep: 'webgpu', threads: 1, outcome: 'failed', reason: 'no adapter', started_at_ms: 100, ended_at_ms: 101 },
          { ep: 'wasm', threads: 1, outcome: 'succeeded', reason: null, started_at_ms: 101, ended_at_ms: 110 },
        ],
      }),
    );
    expect(problems).toEqual(['route.completed_ep: fell back to another EP although fallback was not allowed']);
  });

  it('drops an output digest that was never hashed, and an ok warm run then still validates', () => {
    const { receipt } = assembleReceipt(record({ output: { name: 'logits', dims: [2, 1], head: [1], sha256: null } }));
    expect(receipt.output).toBeNull();
  });
});

describe('receiptFileName', () => {
  it('names engine, EP, kind and time', () => {
    const { receipt } = assembleReceipt(record());
    expect(receiptFileName(receipt)).toBe('drb-ort-wasm-warm-2026-11-29T112233Z.json');
  });
});
