/**
 * Folding of suite receipts (`drb.suite-receipt.v2`) into per-target numbers, and the one-line-per-receipt entries of
 * a comparison receipt (`drb.comparison-receipt.v2`) and a sweep receipt (`drb.sweep-receipt.v1`). Used by
 * ReceiptsSummarizer; kept apart because these runs measure other things than cold/warm runs (per-row latency;
 * routes side by side; routes over a ladder of sizes).
 */
import { placementNote, runtimeBuildNote, type ComparisonReceipt } from '../comparison/comparison-receipt.ts';
import { stoppingSentence } from '../comparison/stopping-rule.ts';
import type { SweepReceipt } from '../comparison/sweep-receipt.ts';
import { crossoverSentence } from '../comparison/sweep-statistics.ts';
import { deviceStateSummary } from './device-state-summary.ts';
import { overlapped } from '../receipt/receipt.ts';
import { summarize } from '../stats/stats.ts';
import type { SuiteReceipt } from '../suite/suite-receipt.ts';
import type { ComparisonEntry, SuiteTargetSummary, SweepEntry } from './receipts-summary.ts';
import {
  deviceIdentity,
  recordedTargetIdentity,
  targetLabel,
  type DeviceIdentity,
  type TargetIdentity,
} from './target-identity.ts';

/** The device of a suite receipt refused before the probe ran (`capabilities` null): nothing is known about it. */
export const UNKNOWN_DEVICE: DeviceIdentity = Object.freeze({
  user_agent: 'unknown (no capability probe recorded)',
  platform: null,
  platform_version: null,
  model: null,
  mobile: null,
  hardware_concurrency: null,
  device_memory_gb: null,
  webgpu_adapter: null,
});

/** The device a suite receipt recorded (UNKNOWN_DEVICE when it recorded none). */
export function suiteDevice(receipt: SuiteReceipt): DeviceIdentity {
  return receipt.capabilities === null ? UNKNOWN_DEVICE : deviceIdentity({ capabilities: receipt.capabilities });
}

/**
 * The target identity of a suite receipt: device, app, engine, model and route as for a device receipt; its
 * "input" is the suite (id, format, candidates hash and abstention threshold, with the items file's SHA-256).
 */
export function suiteTargetIdentity(receipt: SuiteReceipt): TargetIdentity {
  const { suite, policy } = receipt;
  return recordedTargetIdentity(receipt, suiteDevice(receipt), {
    id: `suite ${suite.id ?? '(picked files)'} ${suite.format} ${receipt.task} candidates=${suite.candidates.sha256} min_margin=${policy.min_margin ?? 'none'}`,
    sha256: suite.items.sha256,
  });
}

/** Running numbers for one suite target. */
export interface SuiteAccumulator {
  identity: TargetIdentity;
  suite: SuiteTargetSummary['suite'];
  receipts: number;
  ok: number;
  failed: number;
  rowsDone: number;
  /** ok receipts another run overlapped (kept out of the statistics). */
  overlapSetAside: number;
  rowSamples: number[];
  receiptMedians: number[];
  load: number[];
  failures: Map<string, { stage: string | null; reason: string; count: number }>;
  failedIds: string[];
}

/** A fresh accumulator for the target of `receipt`. */
export function newSuiteAccumulator(identity: TargetIdentity, receipt: SuiteReceipt): SuiteAccumulator {
  return {
    identity,
    suite: {
      id: receipt.suite.id,
      format: receipt.suite.format,
      task: receipt.task,
      items_sha256: receipt.suite.items.sha256,
      candidates_sha256: receipt.suite.candidates.sha256,
      min_margin: receipt.policy.min_margin,
    },
    receipts: 0,
    ok: 0,
    failed: 0,
    rowsDone: 0,
    overlapSetAside: 0,
    rowSamples: [],
    receiptMedians: [],
    load: [],
    failures: new Map(),
    failedIds: [],
  };
}

/**
 * Folds one valid suite receipt into `acc`: an ok receipt's row samples and load time enter the statistics; a
 * failed one is counted by stage and reason.
 * @param acc the target's accumulator
 * @param receipt a suite receipt that passed validation
 */
export function foldSuite(acc: SuiteAccumulator, receipt: SuiteReceipt): void {
  acc.receipts++;
  acc.rowsDone += receipt.rows.done;
  const { outcome, timings } = receipt;
  if (outcome.status === 'failed') {
    acc.failed++;
    acc.failedIds.push(receipt.receipt_id);
    const reason = outcome.reason ?? '(no reason)';
    const key = `${outcome.failed_stage ?? ''}\u0000${reason}`;
    const entry = acc.failures.get(key) ?? { stage: outcome.failed_stage, reason, count: 0 };
    entry.count++;
    acc.failures.set(key, entry);
    return;
  }
  acc.ok++;
  if (overlapped(receipt.overlap)) {
    // Another run shared the device: counted, kept out of the statistics.
    acc.overlapSetAside++;
    return;
  }
  for (const sample of timings.row_latency_samples_ms) acc.rowSamples.push(sample);
  if (timings.row_latency_stats !== null) acc.receiptMedians.push(timings.row_latency_stats.median);
  if (timings.model_load_ms !== null) acc.load.push(timings.model_load_ms);
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The finished suite target.
 * @param key its `s-` key
 * @param acc its accumulator
 * @param interrupted interruptions attributed to its device, model and requested route
 */
export function buildSuiteTarget(
  key: string,
  acc: SuiteAccumulator,
  interrupted: SuiteTargetSummary['interrupted'],
): SuiteTargetSummary {
  return {
    key,
    label: `suite ${acc.suite.id ?? '(picked files)'}: ${targetLabel(acc.identity)}`,
    identity: acc.identity,
    suite: acc.suite,
    counts: {
      receipts: acc.receipts,
      ok: acc.ok,
      failed: acc.failed,
      rows_done: acc.rowsDone,
      overlap_set_aside: acc.overlapSetAside,
      interrupted: interrupted.receipt_ids.length,
    },
    row_latency_ms: summarize(acc.rowSamples),
    receipt_medians_ms: summarize(acc.receiptMedians),
    model_load_ms: summarize(acc.load),
    failures: {
      by_reason: [...acc.failures.values()].sort((a, b) => b.count - a.count || byString(a.reason, b.reason)),
      receipt_ids: [...acc.failedIds].sort(byString),
    },
    interrupted,
  };
}

/**
 * The summary line of one comparison receipt: its valid routes in rank order and its invalid routes with why.
 * @param receipt a comparison receipt that passed validation
 */
export function comparisonEntry(receipt: ComparisonReceipt): ComparisonEntry {
  const device = deviceIdentity(receipt);
  const headline = new Map((receipt.headline?.routes ?? []).map((h) => [h.route_id, h]));
  const ranked = receipt.routes
    .filter((r) => r.valid && r.rank !== null && r.stats !== null)
    .sort((a, b) => a.rank! - b.rank!)
    .map((r) => ({
      route_id: r.id,
      rank: r.rank!,
      median_ms: r.stats!.median,
      p95_ms: r.stats!.p95,
      speedup_vs_baseline: r.speedup_vs_baseline,
      ratio_to_baseline: r.ratio_to_baseline,
      ratio_interval: headline.get(r.id)?.interval ?? null,
      verdict: headline.get(r.id)?.verdict ?? null,
    }));
  const where = [device.model, device.platform].filter(Boolean).join(' ') || 'unknown device';
  return {
    receipt_id: receipt.receipt_id,
    label: `${receipt.model.id} ${receipt.engine.name} ${receipt.routes.map((r) => r.id).join(' vs ')} on ${where}`,
    device,
    app: { version: receipt.app.version, commit: receipt.app.commit },
    engine: { name: receipt.engine.name, version: receipt.engine.version },
    model_id: receipt.model.id,
    input_id: receipt.input.id,
    outcome: receipt.outcome.status,
    reason: receipt.outcome.reason,
    baseline_route_id: receipt.baseline_route_id,
    runtime_note: runtimeBuildNote(receipt.routes),
    placement_note: placementNote(receipt.routes),
    ranked,
    invalid: receipt.routes
      .filter((r) => !r.valid)
      .map((r) => ({ route_id: r.id, reason: r.invalid_reason ?? '(no reason)' })),
    overlapped: overlapped(receipt.overlap),
    // Present only when the receipt recorded them, so summaries of earlier receipts keep their bytes.
    ...(receipt.stopping === undefined
      ? {}
      : {
          stopping: {
            reason: receipt.stopping.reason,
            budget: receipt.stopping.budget,
            rounds: receipt.stopping.rounds.length,
            sentence: stoppingSentence(receipt.stopping),
          },
        }),
    ...(receipt.device_state === undefined ? {} : { device_state: deviceStateSummary(receipt.device_state) }),
  };
}

/**
 * The summary entry of one sweep receipt: every point's ratio, interval and stopping reason, and the crossover.
 * @param receipt a sweep receipt that passed validation
 */
export function sweepEntry(receipt: SweepReceipt): SweepEntry {
  const device = deviceIdentity(receipt);
  const otherId = receipt.routes.find((r) => r.id !== receipt.baseline_route_id)!.id;
  const where = [device.model, device.platform].filter(Boolean).join(' ') || 'unknown device';
  const median = (point: SweepReceipt['points'][number], id: string) =>
    point.routes.find((r) => r.route_id === id)?.stats?.median ?? null;
  return {
    receipt_id: receipt.receipt_id,
    label: `${receipt.model.id} ${receipt.engine.name} sweep ${receipt.baseline_route_id} vs ${otherId} on ${where}`,
    device,
    app: { version: receipt.app.version, commit: receipt.app.commit },
    engine: { name: receipt.engine.name, version: receipt.engine.version },
    model_id: receipt.model.id,
    dimension: receipt.dimension,
    baseline_route_id: receipt.baseline_route_id,
    other_route_id: otherId,
    outcome: receipt.outcome.status,
    reason: receipt.outcome.reason,
    points: receipt.points.map((p) => ({
      size: p.size,
      valid: p.valid,
      invalid_reason: p.invalid_reason,
      rounds: p.schedule.rounds,
      stop_reason: p.stopping.reason,
      baseline_median_ms: median(p, receipt.baseline_route_id),
      other_median_ms: median(p, otherId),
      ratio_to_baseline: p.ratio_to_baseline,
      interval: p.interval,
      verdict: p.verdict,
    })),
    crossover: receipt.crossover,
    sentence: crossoverSentence(receipt),
    software_adapter: receipt.routes.some((r) => r.software_adapter === true),
    device_state: deviceStateSummary(receipt.device_state),
    overlapped: overlapped(receipt.overlap),
  };
}
