/**
 * Hand-built receipts for the generation and comparison unit tests: plain data shaped like what the page produces,
 * so schema and invariant checks can be tested without a browser.
 */
import type { GenerationReceipt, GenerationSample } from '../../src/core/generation/generation-receipt.ts';
import { summarizeGeneration } from '../../src/core/generation/generation-receipt.ts';
import type { Capabilities } from '../../src/core/receipt/receipt.ts';
import { COMPARISON_RECEIPT_SCHEMA, type ComparisonReceipt } from '../../src/core/comparison/comparison-receipt.ts';
import { comparisonHeadline, type compareRoutes } from '../../src/core/comparison/comparison-statistics.ts';
import { interleavedSchedule } from '../../src/core/comparison/interleaved-schedule.ts';

/** A Chromium-like capability probe with a SwiftShader adapter. */
export const capabilities: Capabilities = {
  device_details: 'reduced',
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0',
  ua_client_hints: null,
  platform: 'Linux x86_64',
  cross_origin_isolated: true,
  shared_array_buffer: true,
  wasm: { supported: true, simd: true, threads: true },
  hardware_concurrency: 2,
  device_memory_gb: null,
  js_heap: null,
  storage: { quota_bytes: null, usage_bytes: null, persisted: null },
  webgpu: {
    navigator_gpu: true,
    adapter_granted: true,
    adapter_error: null,
    adapter_info: { vendor: 'google', architecture: 'swiftshader', device: '', description: '' },
    is_fallback_adapter: true,
    features: [],
    limits: null,
  },
};

export const lifecycle = { visibility_at_start: 'visible' as const, hidden_during_run: false, frozen_during_run: false, events: [] };

export const app = { name: 'device-receipts-bench' as const, version: '0.1.0', commit: null, page_url: 'http://127.0.0.1:4173/' };

/** A route that asked for wasm with one thread and completed there at the first attempt (a fresh object each call). */
export function wasmRoute(): GenerationReceipt['route'] {
  return {
    requested_ep: 'wasm',
    completed_ep: 'wasm',
    fallback_reason: null,
    allow_fallback: false,
    threads_requested: 1,
    threads_effective: 1,
    attempts: [{ ep: 'wasm', threads: 1, outcome: 'succeeded', reason: null, started_at_ms: 1, ended_at_ms: 2 }],
  };
}

/** One ok measured sample with round numbers; `over` replaces fields. */
export function okSample(repetition: number, promptIndex: number, over: Partial<GenerationSample>): GenerationSample {
  return {
    repetition,
    prompt_id: `p-${promptIndex}`,
    prompt_index: promptIndex,
    seed: null,
    outcome: 'ok',
    prompt_tokens: 20,
    output_tokens: 32,
    truncated: false,
    ttft_ms: 50,
    e2e_ms: 500,
    prefill_tokens_per_s: 400,
    decode_tokens_per_s: 70,
    engine_reported: null,
    clock_minus_engine: null,
    error: null,
    ...over,
  };
}

/** A complete ok generation receipt: 10 prompts x 1 repetition, seeded with 17. */
export function makeGenerationReceipt(): GenerationReceipt {
  const samples = Array.from({ length: 10 }, (_, i) => okSample(1, i, { seed: 17, ttft_ms: 40 + i, decode_tokens_per_s: 80 - i }));
  return {
    schema: 'drb.generation-receipt.v2',
    receipt_id: 'gen-0123456789',
    created_at: '2026-11-29T12:00:00.000Z',
    evidence_state: 'DEVICE_RECEIPT',
    app,
    engine: { name: 'transformers', version: '4.3.2' },
    route: wasmRoute(),
    model: { id: 'tf-tiny-causal-lm', kind: 'fixture', task: 'generate', dtype: 'fp32', source: 'page-origin', revision: null, integrity: 'verified', files: [] },
    prompt_set: { id: 'drb-gen-ja-en-v1', version: 1, sha256: 'b'.repeat(64), measured_prompts: 10 },
    plan: { repetitions: 1, seed_control: 'seeded', seeds: [17], max_new_tokens: 128, max_new_tokens_overridden: false, temperature: 0.1, warmup_prompt_id: 'warmup' },
    timing_source: 'page-clock',
    cold: { load_ms: 1234, warmup_e2e_ms: 400, warmup_ttft_ms: 90 },
    samples,
    summary: summarizeGeneration(samples, 10),
    capabilities,
    previous_run_interrupted: null,
    lifecycle,
    errors: [],
    outcome: { status: 'ok', reason: null },
  };
}

/**
 * A comparison receipt of `routes` (as compareRoutes gives them) with wasm-1 as the baseline, on a software WebGPU
 * adapter, for the ORT heavy fixture unless `overrides` says otherwise.
 */
export function comparisonReceiptOf(routes: ReturnType<typeof compareRoutes>, overrides: Partial<ComparisonReceipt> = {}): ComparisonReceipt {
  const ids = routes.map((r) => r.id);
  return {
    schema: COMPARISON_RECEIPT_SCHEMA,
    receipt_id: 'cmp-0123456789',
    created_at: '2026-11-29T12:00:00.000Z',
    evidence_state: 'DEVICE_RECEIPT',
    app,
    engine: { name: 'ort', version: '1.30.0' },
    model: { id: 'ort-heavy', kind: 'fixture', task: 'raw', dtype: 'fp32', source: 'page-origin', revision: null, integrity: 'verified', files: [] },
    input: { id: 'fixed-input', sha256: 'd'.repeat(64) },
    candidate_rows: null,
    schedule: { seed: 42, rounds: 3, order: interleavedSchedule(ids, 3, 42).map((s) => s.route_id) },
    baseline_route_id: 'wasm-1',
    tolerance: { max_abs_diff: 1e-4 },
    routes: routes.map((r) => ({ ...r, software_adapter: r.completed_ep === 'webgpu' ? capabilities.webgpu.is_fallback_adapter : null })),
    headline: comparisonHeadline(routes, 'wasm-1'),
    capabilities,
    previous_run_interrupted: null,
    lifecycle,
    outcome: { status: 'ok', reason: null },
    ...overrides,
  };
}
