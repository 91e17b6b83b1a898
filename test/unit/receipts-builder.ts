/**
 * A schema-true receipt builder for the receipts unit tests, used only for the parts the page cannot produce on
 * demand (many receipts with chosen timings, many devices). Tests that need "a receipt made by the page" load
 * the captured files in test/fixtures/receipts/ instead (see receipts-fixtures.ts).
 */
import { summarize } from '../../src/core/stats.ts';
import type { DeviceReceipt } from '../../src/core/receipt.ts';

const HEX = (seed: string) => seed.repeat(64).slice(0, 64);

let counter = 0;

/** Options for one built receipt; every field has a sensible default. */
export interface BuildOptions {
  kind?: 'cold' | 'warm';
  ep?: 'wasm' | 'webgpu';
  completedEp?: 'wasm' | 'webgpu' | null;
  threads?: number;
  coldMs?: { fetch: number; session: number; first: number };
  warmSamples?: number[];
  failed?: { stage: DeviceReceipt['outcome']['failed_stage']; reason: string };
  hidden?: boolean;
  userAgent?: string;
  commit?: string;
  modelId?: string;
  jsHeapUsed?: number | null;
  interruptedAt?: DeviceReceipt['run']['previous_run_interrupted'];
}

/** A receipt that passes validateReceipt, shaped like the page's. */
export function buildReceipt(options: BuildOptions = {}): DeviceReceipt {
  counter++;
  const kind = options.kind ?? 'cold';
  const ep = options.ep ?? 'wasm';
  const failed = options.failed ?? null;
  const completed = failed ? null : options.completedEp === undefined ? ep : options.completedEp;
  const threads = options.threads ?? 1;
  const cold = options.coldMs ?? { fetch: 12, session: 40, first: 3 };
  const samples = kind === 'warm' && !failed ? (options.warmSamples ?? Array.from({ length: 20 }, (_, i) => 1 + (i % 5) * 0.1)) : [];
  const total = kind === 'cold' ? cold.fetch + cold.session + cold.first + 1 : samples.reduce((a, b) => a + b, 0) + 2;
  const fellBack = completed !== null && completed !== ep;
  const id = `r${String(counter).padStart(8, '0')}`;
  return {
    schema: 'drb.device-receipt.v1',
    receipt_id: id,
    created_at: '2026-11-29T10:00:00.000Z',
    evidence_state: 'DEVICE_RECEIPT',
    app: { name: 'device-receipts-bench', version: '0.1.0', commit: options.commit ?? 'a'.repeat(40), page_url: 'http://127.0.0.1:4173/' },
    run: {
      id: `run-${id}`,
      kind,
      started_at: '2026-11-29T10:00:00.000Z',
      warm_runs_requested: kind === 'warm' ? samples.length || 20 : null,
      inferences_completed: failed ? 0 : kind === 'cold' ? 1 : samples.length + 1,
      previous_run_interrupted: options.interruptedAt ?? null,
    },
    engine: { name: 'ort', version: '1.30.0' },
    route: {
      requested_ep: ep,
      completed_ep: completed,
      fallback_reason: fellBack ? 'no WebGPU adapter' : null,
      allow_fallback: fellBack,
      threads_requested: threads,
      threads_effective: threads,
      attempts: [
        ...(fellBack ? [{ ep, threads: null, outcome: 'failed' as const, reason: 'no WebGPU adapter', started_at_ms: 1, ended_at_ms: 2 }] : []),
        {
          ep: completed ?? ep,
          threads,
          outcome: failed ? ('failed' as const) : ('succeeded' as const),
          reason: failed ? failed.reason : null,
          started_at_ms: 2,
          ended_at_ms: 5,
        },
      ],
    },
    model: {
      id: options.modelId ?? 'fixture-tiny',
      kind: 'fixture',
      task: 'raw',
      dtype: 'fp32',
      source: 'page-origin',
      revision: null,
      integrity: failed ? 'not-loaded' : 'verified',
      files: failed
        ? []
        : [{ url: 'http://127.0.0.1:4173/models/fixture-tiny/model.onnx', bytes: 4096, sha256: HEX('b'), expected_bytes: 4096, expected_sha256: HEX('b') }],
    },
    input: { id: 'fixed-1', sha256: HEX('c') },
    output: failed ? null : { name: 'logits', dims: [1, 1], head: [0.25], sha256: HEX('d') },
    timings: {
      model_fetch_ms: kind === 'cold' && !failed ? cold.fetch : null,
      session_create_ms: kind === 'cold' && !failed ? cold.session : null,
      first_inference_ms: kind === 'cold' && !failed ? cold.first : null,
      warmup_ms: kind === 'warm' && !failed ? 1.5 : null,
      warm_samples_ms: samples,
      warm_stats: summarize(samples),
      total_ms: total,
    },
    status_transitions: [
      { status: 'idle', at_ms: 0 },
      { status: failed ? 'failed' : 'done', at_ms: total },
    ],
    navigation: null,
    resources: [],
    capabilities: {
      user_agent: options.userAgent ?? 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0',
      ua_client_hints: null,
      platform: 'Linux x86_64',
      cross_origin_isolated: true,
      shared_array_buffer: true,
      wasm: { supported: true, simd: true, threads: true },
      hardware_concurrency: 2,
      device_memory_gb: 8,
      js_heap:
        options.jsHeapUsed === null
          ? null
          : { js_heap_size_limit: 4e9, total_js_heap_size: 3e7, used_js_heap_size: options.jsHeapUsed ?? 2e7 },
      storage: { quota_bytes: 1e9, usage_bytes: 0, persisted: false },
      webgpu: { navigator_gpu: false, adapter_granted: false, adapter_error: null, adapter_info: null, is_fallback_adapter: null, features: [], limits: null },
    },
    lifecycle: { visibility_at_start: 'visible', hidden_during_run: options.hidden ?? false, frozen_during_run: false, events: [] },
    errors: failed ? [{ stage: failed.stage, name: 'Error', message: failed.reason }] : [],
    outcome: failed ? { status: 'failed', reason: failed.reason, failed_stage: failed.stage } : { status: 'ok', reason: null, failed_stage: null },
  };
}
