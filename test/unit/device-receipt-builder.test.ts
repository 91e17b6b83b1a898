import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/core/catalog/catalog.ts';
import {
  draftDeviceReceipt,
  finishDeviceReceipt,
  type DeviceReceiptDraft,
  type DeviceRunEnd,
} from '../../src/core/receipt/device-receipt-builder.ts';
import {
  artifactFileName,
  engineLabel,
  receiptNameParts,
  unloadedEngine,
} from '../../src/core/receipt/receipt-envelope.ts';
import type { Capabilities, DeviceReceipt } from '../../src/core/receipt/receipt.ts';

const catalog = parseCatalog(
  JSON.parse(readFileSync(new URL('../../src/catalog/catalog.json', import.meta.url), 'utf8')),
  'catalog.json',
);
const model = catalog.models.find((m) => m.id === 'ort-tiny-xenc')!;
const SHA = 'a'.repeat(64);

const capabilities: Capabilities = {
  device_details: 'reduced',
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
  webgpu: {
    navigator_gpu: false,
    adapter_granted: false,
    adapter_error: null,
    adapter_info: null,
    is_fallback_adapter: null,
    features: [],
    limits: null,
  },
};
const lifecycle: DeviceReceipt['lifecycle'] = {
  visibility_at_start: 'visible',
  hidden_during_run: false,
  frozen_during_run: false,
  events: [],
};

/** A warm run's draft as the page writes it: started, loaded (the worker's sections), four samples, done. */
function draft(
  request: { ep: 'wasm' | 'webgpu'; threads: number | null; allowFallback: boolean } = {
    ep: 'wasm',
    threads: 2,
    allowFallback: false,
  },
): DeviceReceiptDraft {
  const d = draftDeviceReceipt({
    receiptId: '11111111-2222-3333-4444-555555555555',
    runId: 'run-1',
    kind: 'warm',
    startedAt: '2026-11-29T11:22:30.000Z',
    startedAtMs: 100,
    warmRuns: 4,
    build: { version: '0.1.0', commit: null },
    pageUrl: 'https://user:pw@example.test/bench/?token=SECRET#frag',
    model,
    input: { id: 'tokens-2x16', sha256: SHA },
    request,
    previousRunInterrupted: null,
  });
  d.engine = { name: 'ort', version: '1.30.0' };
  d.route = {
    ...d.route,
    completed_ep: 'wasm',
    fallback_reason: null,
    threads_effective: 2,
    attempts: [{ ep: 'wasm', threads: 2, outcome: 'succeeded', reason: null, started_at_ms: 101, ended_at_ms: 120 }],
  };
  d.model = {
    ...d.model,
    files: [
      {
        url: 'https://example.test/bench/models/ort-tiny-xenc/model.onnx',
        bytes: 10,
        sha256: SHA,
        expected_bytes: 10,
        expected_sha256: SHA,
        cache_state: 'network',
        cache_note: null,
      },
    ],
    integrity: 'verified',
  };
  d.output = { name: 'logits', dims: [2, 1], head: [0.5, -0.25], sha256: SHA };
  d.timings.warmup_ms = 3;
  d.timings.warm_samples_ms = [4, 1, 3, 2];
  d.run.inferences_completed = 4;
  d.status_transitions.push(
    { status: 'ready', at_ms: 101 },
    { status: 'running', at_ms: 102 },
    { status: 'done', at_ms: 150 },
  );
  return d;
}

const end: DeviceRunEnd = { createdAt: '2026-11-29T11:22:33.456Z', startedAtMs: 100, endedAtMs: 160, failure: null };
const finish = (d: DeviceReceiptDraft, e: Partial<DeviceRunEnd> = {}) =>
  finishDeviceReceipt({ ...d, capabilities, lifecycle }, { ...end, ...e });

describe('finishDeviceReceipt', () => {
  it('builds a valid warm receipt with statistics recomputed from the samples (nearest-rank p95)', () => {
    const { receipt, problems } = finish(draft());
    expect(problems).toEqual([]);
    expect(receipt.timings.warm_stats).toEqual({ count: 4, median: 2.5, p95: 4, min: 1, max: 4, mean: 2.5 });
    expect(receipt.timings.total_ms).toBe(60);
    // Origin + path only: no credentials, query or fragment.
    expect(receipt.app.page_url).toBe('https://example.test/bench/');
    expect(receipt.model).toMatchObject({
      id: 'ort-tiny-xenc',
      kind: 'fixture',
      source: 'page-origin',
      revision: null,
      integrity: 'verified',
    });
  });

  it('redacts URLs inside failure reasons and errors, and refuses a failed run without an end state', () => {
    const failed = draftDeviceReceipt({ ...draftStart(), kind: 'cold', warmRuns: null });
    failed.errors.push({ stage: 'fetch', name: 'Error', message: 'see https://example.test/m.onnx?sig=SECRET' });
    failed.status_transitions.push({ status: 'fetching', at_ms: 101 }, { status: 'failed', at_ms: 102 });
    const { receipt, problems } = finish(failed, {
      failure: { reason: 'model file https://example.test/m.onnx?sig=SECRET answered HTTP 404', stage: 'fetch' },
    });
    expect(problems).toEqual([]);
    expect(JSON.stringify(receipt)).not.toContain('SECRET');
    expect(receipt.outcome).toEqual({
      status: 'failed',
      reason: 'model file https://example.test/m.onnx answered HTTP 404',
      failed_stage: 'fetch',
    });
  });

  it('reports invariant problems instead of hiding them (a fallback that was not allowed)', () => {
    const d = draft({ ep: 'webgpu', threads: null, allowFallback: false });
    d.route = {
      ...d.route,
      completed_ep: 'wasm',
      fallback_reason: 'no adapter',
      attempts: [
        { ep: 'webgpu', threads: 1, outcome: 'failed', reason: 'no adapter', started_at_ms: 100, ended_at_ms: 101 },
        { ep: 'wasm', threads: 1, outcome: 'succeeded', reason: null, started_at_ms: 101, ended_at_ms: 110 },
      ],
    };
    expect(finish(d).problems).toEqual([
      'route.completed_ep: fell back to another EP although fallback was not allowed',
    ]);
  });

  it('keeps the WebGPU layout the load recorded, and reports one named by a run that fell back to wasm', () => {
    const attempts = [
      {
        ep: 'webgpu' as const,
        threads: 1,
        outcome: 'succeeded' as const,
        reason: null,
        started_at_ms: 100,
        ended_at_ms: 110,
      },
    ];
    const onGpu = draft({ ep: 'webgpu', threads: null, allowFallback: true });
    onGpu.route = { ...onGpu.route, completed_ep: 'webgpu', attempts, webgpu_layout: 'NCHW' };
    const kept = finish(onGpu);
    // (The draft's page has no navigator.gpu: only the layout's own invariant is looked at here.)
    expect(kept.problems.filter((p) => p.startsWith('route.webgpu_layout'))).toEqual([]);
    expect(kept.receipt.route.webgpu_layout).toBe('NCHW');
    const fellBack = draft({ ep: 'webgpu', threads: null, allowFallback: true });
    fellBack.route = {
      ...fellBack.route,
      completed_ep: 'wasm',
      fallback_reason: 'no adapter',
      webgpu_layout: 'NCHW',
      attempts: [
        { ep: 'webgpu', threads: 1, outcome: 'failed', reason: 'no adapter', started_at_ms: 100, ended_at_ms: 101 },
        { ep: 'wasm', threads: 1, outcome: 'succeeded', reason: null, started_at_ms: 101, ended_at_ms: 110 },
      ],
    };
    expect(finish(fellBack).problems).toEqual([
      'route.webgpu_layout: names a WebGPU layout although the run did not complete on WebGPU',
    ]);
  });

  it('drops an output digest that was never hashed, and an ok warm run then still validates', () => {
    // The worker returns no digest for a run that was not asked for one (every warm sample but the last).
    const d = draft();
    d.output = null;
    const { receipt, problems } = finish(d);
    expect(receipt.output).toBeNull();
    expect(problems).toEqual([]);
  });
});

describe('engineLabel', () => {
  it('names the engine with its version, or says the version is unknown when the runtime never reported it', () => {
    expect(engineLabel({ name: 'transformers', version: '4.3.2 (onnxruntime-web 1.30.0)' })).toBe(
      'transformers 4.3.2 (onnxruntime-web 1.30.0)',
    );
    expect(engineLabel(unloadedEngine('transformers'))).toBe('transformers (version unknown)');
  });
});

describe('artifactFileName for a device receipt', () => {
  it('names model, route, kind and time (compact UTC)', () => {
    const { receipt } = finish(draft());
    expect(artifactFileName(receiptNameParts(receipt))).toBe('drb-ort-tiny-xenc-wasm-2-warm-20261129T112233Z.json');
  });
});

/** The start facts of `draft()`, for drafts of other kinds. */
function draftStart(): Parameters<typeof draftDeviceReceipt>[0] {
  return {
    receiptId: '11111111-2222-3333-4444-555555555555',
    runId: 'run-1',
    kind: 'warm',
    startedAt: '2026-11-29T11:22:30.000Z',
    startedAtMs: 100,
    warmRuns: 4,
    build: { version: '0.1.0', commit: null },
    pageUrl: 'https://example.test/bench/',
    model,
    input: { id: 'tokens-2x16', sha256: SHA },
    request: { ep: 'wasm', threads: 2, allowFallback: false },
    previousRunInterrupted: null,
  };
}
