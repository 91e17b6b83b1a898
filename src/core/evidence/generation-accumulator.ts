/**
 * Folding of generation receipts (`drb.generation-receipt.v2`) into per-target numbers, and the finished
 * generation target: load, TTFT, end-to-end and decode-speed statistics, failures, profile gates and memory fit.
 * Used by ReceiptsSummarizer; kept apart because generation runs measure other things than cold/warm runs.
 */
import type { GenerationReceipt } from '../generation/generation-receipt.ts';
import { bootstrapPooledMedian } from '../stats/intervals.ts';
import { lastFifthRatio } from '../stats/sample-order.ts';
import { overlapped } from '../receipt/receipt.ts';
import { summarize } from '../stats/stats.ts';
import { findLlmConfig, fitStatus, memoryFit, type LlmConfigs } from './memory-fit.ts';
import { evaluateProfile, type BudgetProfiles } from './profiles.ts';
import {
  generationEligibility,
  rowClass,
  type GenerationRowEvidence,
  type RowQuality,
} from './generation-eligibility.ts';
import type { GenerationTargetSummary } from './receipts-summary.ts';
import { targetLabel, type TargetIdentity } from './target-identity.ts';

/** Running numbers for one generation target. */
export interface GenerationAccumulator {
  identity: TargetIdentity;
  receipts: number;
  ok: number;
  failed: number;
  clean: number;
  okSamples: number;
  failedSamples: number;
  truncations: number;
  load: number[];
  ttft: number[];
  /** Each clean receipt's ok TTFT samples (the clusters of the TTFT median interval). */
  ttftByReceipt: number[][];
  e2e: number[];
  decode: number[];
  /** Each clean receipt's sustained decode ratio (last fifth / first fifth of its ok samples' tokens/s). */
  sustained: number[];
  failures: Map<string, { stage: string | null; reason: string; count: number }>;
  failedIds: string[];
  noisyIds: string[];
  overlapIds: string[];
  modelBytes: number | null;
  heapMax: number | null;
  /** Every receipt of the target (answer-score reports are matched by the runs their answers came from). */
  receiptIds: string[];
  /** Receipts whose WebGPU route ran on a software (fallback) adapter. */
  softwareAdapterIds: string[];
}

/** A fresh accumulator for `identity`. */
export function newGenerationAccumulator(identity: TargetIdentity): GenerationAccumulator {
  return {
    identity,
    receipts: 0,
    ok: 0,
    failed: 0,
    clean: 0,
    okSamples: 0,
    failedSamples: 0,
    truncations: 0,
    load: [],
    ttft: [],
    ttftByReceipt: [],
    e2e: [],
    decode: [],
    sustained: [],
    failures: new Map(),
    failedIds: [],
    noisyIds: [],
    overlapIds: [],
    modelBytes: null,
    heapMax: null,
    receiptIds: [],
    softwareAdapterIds: [],
  };
}

/**
 * Folds one valid generation receipt into `acc`.
 * @param acc the target's accumulator
 * @param receipt a generation receipt that passed validation
 */
export function foldGeneration(acc: GenerationAccumulator, receipt: GenerationReceipt): void {
  acc.receipts++;
  acc.receiptIds.push(receipt.receipt_id);
  if (receipt.route.completed_ep === 'webgpu' && receipt.capabilities.webgpu.is_fallback_adapter === true)
    acc.softwareAdapterIds.push(receipt.receipt_id);
  if (receipt.capabilities.js_heap !== null)
    acc.heapMax = Math.max(acc.heapMax ?? 0, receipt.capabilities.js_heap.used_js_heap_size);
  let bytes = 0;
  for (const file of receipt.model.files) bytes += file.bytes;
  if (receipt.model.files.length > 0) acc.modelBytes = Math.max(acc.modelBytes ?? 0, bytes);
  if (receipt.outcome.status === 'ok') acc.ok++;
  else {
    acc.failed++;
    acc.failedIds.push(receipt.receipt_id);
    const reason = receipt.outcome.reason ?? '(no reason)';
    const stage = receipt.errors[0]?.stage ?? null;
    const key = `${stage ?? ''}\u0000${reason}`;
    const entry = acc.failures.get(key) ?? { stage, reason, count: 0 };
    entry.count++;
    acc.failures.set(key, entry);
  }
  for (const sample of receipt.samples) {
    if (sample.outcome === 'ok') acc.okSamples++;
    else acc.failedSamples++;
    if (sample.truncated === true) acc.truncations++;
  }
  if (overlapped(receipt.overlap)) {
    // Another run shared the device: set aside, out of the statistics.
    acc.overlapIds.push(receipt.receipt_id);
    return;
  }
  if (receipt.lifecycle.hidden_during_run || receipt.lifecycle.frozen_during_run) {
    // Throttled while hidden or frozen: listed as noisy, kept out of the statistics.
    acc.noisyIds.push(receipt.receipt_id);
    return;
  }
  acc.clean++;
  if (receipt.cold.load_ms !== null) acc.load.push(receipt.cold.load_ms);
  const ttft: number[] = [];
  const decode: number[] = [];
  for (const sample of receipt.samples) {
    if (sample.outcome !== 'ok') continue;
    if (sample.ttft_ms !== null) ttft.push(sample.ttft_ms);
    if (sample.e2e_ms !== null) acc.e2e.push(sample.e2e_ms);
    if (sample.decode_tokens_per_s !== null) decode.push(sample.decode_tokens_per_s);
  }
  for (const v of ttft) acc.ttft.push(v);
  for (const v of decode) acc.decode.push(v);
  if (ttft.length > 0) acc.ttftByReceipt.push(ttft);
  const sustained = lastFifthRatio(decode);
  if (sustained !== null) acc.sustained.push(sustained);
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The finished generation target.
 * @param key its `g-` key
 * @param acc its accumulator
 * @param interrupted interruptions attributed to its device, model and requested route
 * @param profiles budget profiles (cold load = load p95, warm latency = TTFT p95)
 * @param llmConfigs LLM configs for memory fit
 * @param quality the answer quality of the one answer-score report matching the target (null with none or several),
 *   and how many matched
 */
export function buildGenerationTarget(
  key: string,
  acc: GenerationAccumulator,
  interrupted: GenerationTargetSummary['interrupted'],
  profiles: BudgetProfiles,
  llmConfigs: LlmConfigs,
  quality: { quality: RowQuality | null; reports: number } = { quality: null, reports: 0 },
): GenerationTargetSummary {
  const load = summarize(acc.load);
  const ttft = summarize(acc.ttft);
  const measurements = {
    cold_load_p95_ms: load?.p95 ?? null,
    warm_p95_ms: ttft?.p95 ?? null,
    model_bytes: acc.modelBytes,
    js_heap_bytes: acc.heapMax,
  };
  const config = findLlmConfig(llmConfigs, acc.identity.model.id);
  const estimate = config === null ? null : memoryFit(config);
  const reasons = [
    'DEVICE_PASS is defined for the cold/warm procedure of device receipts; generation runs are evidence beside it',
  ];
  if (acc.ok === 0) reasons.push('no generation run completed ok');
  if (acc.failed > 0)
    reasons.push(`${acc.failed} failed generation run(s): ${[...acc.failedIds].sort(byString).join(', ')}`);
  if (interrupted.receipt_ids.length > 0) {
    reasons.push(
      `${interrupted.receipt_ids.length} interrupted run(s) of this model and route (recorded by ${interrupted.receipt_ids.join(', ')})`,
    );
  }
  const sustained = summarize(acc.sustained);
  const decode = summarize(acc.decode);
  const row: GenerationRowEvidence = {
    user_agent: acc.identity.device.user_agent,
    route: { requested_ep: acc.identity.route.requested_ep, completed_ep: acc.identity.route.completed_ep },
    software_adapter_receipts: acc.softwareAdapterIds.length,
    failed_runs: acc.failed,
    failed_samples: acc.failedSamples,
    interrupted_runs: interrupted.receipt_ids.length,
    load_p95_ms: load?.p95 ?? null,
    ttft_p95_ms: ttft?.p95 ?? null,
    decode_tokens_per_s_median: decode?.median ?? null,
    sustained_ratio_median: sustained?.median ?? null,
    model_bytes: acc.modelBytes,
    js_heap_bytes: acc.heapMax,
    quality: quality.quality,
    quality_reports: quality.reports,
  };
  return {
    key,
    label: targetLabel(acc.identity),
    identity: acc.identity,
    counts: {
      receipts: acc.receipts,
      ok: acc.ok,
      failed: acc.failed,
      noisy: acc.noisyIds.length,
      overlap_set_aside: acc.overlapIds.length,
      clean: acc.clean,
      ok_samples: acc.okSamples,
      failed_samples: acc.failedSamples,
      truncations: acc.truncations,
      interrupted: interrupted.receipt_ids.length,
    },
    load_ms: load,
    ttft_ms: ttft,
    ttft_median_interval: bootstrapPooledMedian(acc.ttftByReceipt)?.interval ?? null,
    e2e_ms: summarize(acc.e2e),
    decode_tokens_per_s: decode,
    decode_sustained_ratio: sustained,
    failures: {
      by_reason: [...acc.failures.values()].sort((a, b) => b.count - a.count || byString(a.reason, b.reason)),
      receipt_ids: [...acc.failedIds].sort(byString),
    },
    noisy_receipt_ids: [...acc.noisyIds].sort(byString),
    overlap_set_aside: [...acc.overlapIds].sort(byString),
    interrupted,
    model_bytes: acc.modelBytes,
    js_heap_max_used_bytes: acc.heapMax,
    profiles: profiles.profiles.map((profile) => evaluateProfile(measurements, profile)),
    memory_fit:
      config === null || estimate === null
        ? null
        : {
            config_source: config.source,
            estimate,
            status: fitStatus(estimate, acc.failed + acc.failedSamples + interrupted.receipt_ids.length),
          },
    evidence: { state: 'DEVICE_RECEIPT', not_higher_because: reasons },
    software_adapter_receipt_ids: [...acc.softwareAdapterIds].sort(byString),
    quality: quality.quality,
    ranking: {
      row_class: rowClass(row),
      quality_reports: quality.reports,
      profiles: profiles.profiles.map((profile) => generationEligibility(row, profile)),
    },
  };
}
