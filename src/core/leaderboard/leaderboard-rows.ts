/**
 * The leaderboard's rows, from receipts summaries (`drb.receipts-summary.v2`, as `drb receipts summarize` writes them
 * or as `drb leaderboard` summarises receipts itself) and the score reports matched to their suite runs: one row per
 * target (device fingerprint x browser x model x route x dtype, within one build and input as the summary keys it),
 * its individual metrics, its failure class, whether a maintainer verified it, and for every budget profile whether
 * it is ranked (with every reason it is not), its fit score and its rank within its track and device. Per track, the
 * Pareto front of quality against warm latency. Pure: the CLI reads the files and checks the stored reviews.
 */
import type { BudgetProfiles, ProfileName } from '../evidence/profiles.ts';
import type {
  GenerationTargetSummary,
  ReceiptsSummary,
  SuiteTargetSummary,
  TargetSummary,
} from '../evidence/receipts-summary.ts';
import { canonicalJson, type TargetIdentity } from '../evidence/target-identity.ts';
import { deviceKey } from '../dataset/dataset-tables.ts';
import type { LeaderboardMeta } from './leaderboard-meta.ts';
import { paretoFront } from './pareto.ts';
import {
  failureClass,
  fitScore,
  rankingEligibility,
  RANKING_RULES_VERSION,
  type FailureClass,
  type FitScore,
  type RankingFacts,
} from './ranking.ts';

/** One summary to draw rows from, with the stored reviews the CLI found intact beside it. */
export interface SummaryInput {
  /** The summary file as shown, or `(receipts given directly)` for the summary drb leaderboard made itself. */
  file: string;
  summary: ReceiptsSummary;
  /** Target key -> reviewer, for each stored review that is present, valid and has the SHA-256 the summary names. */
  checkedReviews: ReadonlyMap<string, string>;
}

/** A score report matched to suite targets (as `drb receipts report` matches them: same predictions and items). */
export interface QualityInput {
  file: string;
  sha256: string;
  suiteTargetKeys: readonly string[];
  /** Effective Acc@1, 0 to 1. */
  acc1: number;
  recallAtK: number;
  k: number;
  minCer: number;
  abstention: number;
  rows: number;
}

/** Where a row's quality comes from. */
export interface RowQuality {
  acc1: number;
  recallAtK: number;
  k: number;
  minCer: number;
  /** The score report's file, and the suite target whose run made its predictions. */
  file: string;
  suiteKey: string;
}

/** A statistic with its median's 95% interval, when the summary has one. */
export interface Interval {
  low: number;
  high: number;
}

/** The verdict for one row under one profile. */
export interface ProfileStanding {
  ranked: boolean;
  reasons: string[];
  fit: FitScore | null;
  /** 1-based rank by fit among the ranked rows of the same track and device; null when not ranked. */
  rank: number | null;
  /** Ranked rows in that group. */
  of: number;
}

/** One leaderboard row. */
export interface LeaderboardRow {
  key: string;
  kind: 'device' | 'generation' | 'suite';
  track: { key: string; label: string };
  source: string;
  deviceKey: string;
  device: TargetIdentity['device'];
  app: TargetIdentity['app'];
  engine: TargetIdentity['engine'];
  model: { id: string; kind: string; dtype: string | null };
  route: TargetIdentity['route'];
  metrics: {
    coldP95Ms: number | null;
    warmMedianMs: number | null;
    warmP95Ms: number | null;
    warmInterval: Interval | null;
    warmSamples: number;
    ttftMedianMs: number | null;
    ttftP95Ms: number | null;
    ttftInterval: Interval | null;
    decodeMedian: number | null;
    quality: RowQuality | null;
    modelBytes: number | null;
    jsHeapBytes: number | null;
  };
  counts: { receipts: number; ok: number; failed: number; interrupted: number };
  failure: FailureClass | null;
  /** What the failures were, in the summary's words (stage and reason, with counts). */
  failureDetail: string[];
  verification: { verified: boolean; reviewer: string | null; why: string };
  evidence: { state: string; reasons: string[] };
  profiles: Record<ProfileName, ProfileStanding>;
}

/** One track's Pareto view: every row with both a quality and a warm latency, and the keys on the front. */
export interface ParetoView {
  track: { key: string; label: string };
  points: Array<{ key: string; quality: number; latencyMs: number }>;
  front: string[];
}

/** Everything the leaderboard page is drawn from. */
export interface LeaderboardData {
  rows: LeaderboardRow[];
  pareto: ParetoView[];
  meta: LeaderboardMeta | null;
  profiles: BudgetProfiles;
  rulesVersion: string;
  /** Summary files read, and targets left out because an earlier summary already had them. */
  summaries: Array<{ file: string; targets: number }>;
  duplicateTargets: Array<{ key: string; kept: string; dropped: string }>;
  comparisons: number;
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Why a row's measurement is not of a physical device in a person's browser, or null. */
export function functionalOnlyReason(identity: TargetIdentity): string | null {
  if (/\bHeadlessChrome\//.test(identity.device.user_agent))
    return "an automated headless browser (HeadlessChrome), not a person's device";
  const adapter = identity.device.webgpu_adapter;
  if (
    identity.route.completed_ep === 'webgpu' &&
    adapter !== null &&
    /swiftshader/i.test(`${adapter.vendor} ${adapter.architecture} ${adapter.device}`)
  ) {
    return "WebGPU on a software adapter (SwiftShader): its timings are not a GPU's";
  }
  return null;
}

/** The same model bytes on the same device, engine and route: a suite run's quality belongs to these rows too. */
function qualityJoinKey(identity: TargetIdentity): string {
  return canonicalJson({
    device: identity.device,
    engine: identity.engine.name,
    model: { id: identity.model.id, dtype: identity.model.dtype, files: identity.model.file_sha256 },
    completed_ep: identity.route.completed_ep,
  });
}

type AnyTarget =
  | { kind: 'device'; t: TargetSummary }
  | { kind: 'generation'; t: GenerationTargetSummary }
  | { kind: 'suite'; t: SuiteTargetSummary };

function failureLines(failures: TargetSummary['failures'], interrupted: TargetSummary['interrupted']): string[] {
  const lines = failures.by_reason.map((f) => `${f.count} failed${f.stage ? ` at ${f.stage}` : ''}: ${f.reason}`);
  for (const s of interrupted.by_stage) lines.push(`${s.count} interrupted at ${s.stage} (tab killed or reloaded)`);
  return lines;
}

function factsOf(target: AnyTarget, quality: RowQuality | null, verified: boolean): RankingFacts {
  const { t } = target;
  const identity = t.identity;
  const base = {
    kind: target.kind,
    modelKind: identity.model.kind,
    functionalOnly: functionalOnlyReason(identity),
    interrupted: t.counts.interrupted,
    requestedEp: identity.route.requested_ep,
    completedEp: identity.route.completed_ep,
    quality: quality?.acc1 ?? null,
    extraReasons: [],
  };
  if (target.kind === 'device') {
    const d = target.t;
    return {
      ...base,
      okRuns: d.counts.ok_cold + d.counts.ok_warm,
      failedRuns: d.counts.failed,
      relatedFailedRuns: d.related.failed_receipt_ids.length,
      failuresExplained: verified,
      integrity: {
        verified: d.integrity.verified,
        unpinned: d.integrity.unpinned,
        mismatch: d.integrity.mismatch,
        notLoaded: d.integrity['not-loaded'],
      },
      duplicates: d.duplicate_receipt_ids.length,
      minimums: {
        cleanCold: d.counts.full_cold,
        minCold: d.counts.min_cold,
        cleanWarm: d.counts.clean_warm,
        minWarm: d.counts.min_warm,
      },
      failedSamples: null,
      profiles: d.profiles,
      warmP95Ms: d.warm.pooled_ms?.p95 ?? null,
      modelBytes: d.model_bytes,
      jsHeapBytes: d.js_heap_max_used_bytes,
      thermalSlope: d.warm.thermal_slope?.median ?? null,
    };
  }
  if (target.kind === 'generation') {
    const g = target.t;
    return {
      ...base,
      okRuns: g.counts.ok,
      failedRuns: g.counts.failed,
      relatedFailedRuns: 0,
      failuresExplained: false,
      // Generation summaries do not count integrity states; every ok run loaded its files (validate checked them).
      integrity: { verified: 0, unpinned: 0, mismatch: 0, notLoaded: 0 },
      duplicates: 0,
      minimums: null,
      failedSamples: g.counts.failed_samples,
      profiles: g.profiles,
      warmP95Ms: g.ttft_ms?.p95 ?? null,
      modelBytes: g.model_bytes,
      jsHeapBytes: g.js_heap_max_used_bytes,
      thermalSlope:
        g.decode_sustained_ratio === null || g.decode_sustained_ratio.median <= 0
          ? null
          : 1 / g.decode_sustained_ratio.median,
    };
  }
  const s = target.t;
  return {
    ...base,
    okRuns: s.counts.ok,
    failedRuns: s.counts.failed,
    relatedFailedRuns: 0,
    failuresExplained: false,
    integrity: { verified: 0, unpinned: 0, mismatch: 0, notLoaded: 0 },
    duplicates: 0,
    minimums: null,
    failedSamples: null,
    profiles: null,
    warmP95Ms: s.row_latency_ms?.p95 ?? null,
    modelBytes: null,
    jsHeapBytes: null,
    thermalSlope: null,
  };
}

function trackOf(target: AnyTarget): { key: string; label: string } {
  const { identity } = target.t;
  if (target.kind === 'suite') {
    const s = target.t.suite;
    return { key: `suite:${s.items_sha256}:${s.task}`, label: `suite ${s.id ?? '(picked files)'}, ${s.task}` };
  }
  if (target.kind === 'generation')
    return {
      key: `generation:${identity.input.sha256}:${identity.input.id}`,
      label: `generation on ${identity.input.id}`,
    };
  return {
    key: `device:${identity.input.sha256}:${identity.input.id}`,
    label: `cold/warm on input ${identity.input.id}`,
  };
}

/**
 * The leaderboard's data (see the module comment).
 * @param summaries the summaries, in the order given (a target in two summaries is kept from the first)
 * @param quality score reports matched to suite targets
 * @param meta the governance file, or null when none was given (then no row is maintainer-verified)
 * @param profiles the budget profiles to rank under
 * @param comparisons comparison receipts seen (listed, never ranked here)
 */
export async function buildLeaderboard(
  summaries: readonly SummaryInput[],
  quality: readonly QualityInput[],
  meta: LeaderboardMeta | null,
  profiles: BudgetProfiles,
  comparisons = 0,
): Promise<LeaderboardData> {
  const maintainers = new Set(meta?.maintainers.map((m) => m.reviewer) ?? []);
  const seen = new Map<string, string>();
  const duplicateTargets: LeaderboardData['duplicateTargets'] = [];
  const targets: Array<{ target: AnyTarget; input: SummaryInput }> = [];
  for (const input of summaries) {
    const all: AnyTarget[] = [
      ...input.summary.targets.map((t) => ({ kind: 'device' as const, t })),
      ...input.summary.generation_targets.map((t) => ({ kind: 'generation' as const, t })),
      ...input.summary.suite_targets.map((t) => ({ kind: 'suite' as const, t })),
    ];
    for (const target of all) {
      const kept = seen.get(target.t.key);
      if (kept !== undefined) {
        duplicateTargets.push({ key: target.t.key, kept, dropped: input.file });
        continue;
      }
      seen.set(target.t.key, input.file);
      targets.push({ target, input });
    }
  }
  // Quality: a score report belongs to the suite targets whose runs made its predictions, and to every row that
  // measured the same model bytes on the same device, engine and route.
  const qualityOfSuite = new Map<string, RowQuality>();
  for (const q of quality) {
    for (const suiteKey of q.suiteTargetKeys) {
      if (!qualityOfSuite.has(suiteKey))
        qualityOfSuite.set(suiteKey, {
          acc1: q.acc1,
          recallAtK: q.recallAtK,
          k: q.k,
          minCer: q.minCer,
          file: q.file,
          suiteKey,
        });
    }
  }
  const qualityByJoin = new Map<string, RowQuality>();
  for (const { target } of targets) {
    const q = target.kind === 'suite' ? qualityOfSuite.get(target.t.key) : undefined;
    const join = qualityJoinKey(target.t.identity);
    if (q !== undefined && !qualityByJoin.has(join)) qualityByJoin.set(join, q);
  }
  const rows: LeaderboardRow[] = [];
  for (const { target, input } of targets) {
    const { t } = target;
    const rowQuality =
      target.kind === 'suite'
        ? (qualityOfSuite.get(t.key) ?? null)
        : (qualityByJoin.get(qualityJoinKey(t.identity)) ?? null);
    const reviewer = input.checkedReviews.get(t.key) ?? null;
    const pass = target.kind === 'device' && target.t.evidence.state === 'DEVICE_PASS';
    const verified = pass && reviewer !== null && maintainers.has(reviewer);
    const why = verified
      ? `DEVICE_PASS reviewed by maintainer ${reviewer}`
      : !pass
        ? target.kind === 'device'
          ? 'community: no DEVICE_PASS'
          : `community: ${target.kind} targets have no DEVICE_PASS in this version`
        : reviewer === null
          ? 'community: DEVICE_PASS claimed, but its stored review was not found beside the summary with the SHA-256 it names'
          : `community: reviewed by ${reviewer}, who is not a maintainer in the governance file`;
    const facts = factsOf(target, rowQuality, verified);
    const standings = {} as Record<ProfileName, ProfileStanding>;
    for (const profile of profiles.profiles) {
      const eligibility = rankingEligibility(facts, profile.name);
      standings[profile.name] = { ...eligibility, fit: fitScore(facts, profile), rank: null, of: 0 };
    }
    const okRuns = facts.okRuns;
    rows.push({
      key: t.key,
      kind: target.kind,
      track: trackOf(target),
      source: input.file,
      deviceKey: await deviceKey(t.identity.device),
      device: t.identity.device,
      app: t.identity.app,
      engine: t.identity.engine,
      model: { id: t.identity.model.id, kind: t.identity.model.kind, dtype: t.identity.model.dtype },
      route: t.identity.route,
      metrics: {
        coldP95Ms:
          target.kind === 'device'
            ? (target.t.cold.total_ms?.p95 ?? null)
            : target.kind === 'generation'
              ? (target.t.load_ms?.p95 ?? null)
              : (target.t.model_load_ms?.p95 ?? null),
        warmMedianMs:
          target.kind === 'device'
            ? (target.t.warm.pooled_ms?.median ?? null)
            : target.kind === 'generation'
              ? (target.t.e2e_ms?.median ?? null)
              : (target.t.row_latency_ms?.median ?? null),
        warmP95Ms:
          target.kind === 'device'
            ? (target.t.warm.pooled_ms?.p95 ?? null)
            : target.kind === 'generation'
              ? (target.t.e2e_ms?.p95 ?? null)
              : (target.t.row_latency_ms?.p95 ?? null),
        warmInterval:
          target.kind === 'device' && target.t.warm.median_interval
            ? { low: target.t.warm.median_interval.low, high: target.t.warm.median_interval.high }
            : null,
        warmSamples:
          target.kind === 'device'
            ? (target.t.warm.pooled_ms?.count ?? 0)
            : target.kind === 'generation'
              ? (target.t.e2e_ms?.count ?? 0)
              : (target.t.row_latency_ms?.count ?? 0),
        ttftMedianMs: target.kind === 'generation' ? (target.t.ttft_ms?.median ?? null) : null,
        ttftP95Ms: target.kind === 'generation' ? (target.t.ttft_ms?.p95 ?? null) : null,
        ttftInterval:
          target.kind === 'generation' && target.t.ttft_median_interval
            ? { low: target.t.ttft_median_interval.low, high: target.t.ttft_median_interval.high }
            : null,
        decodeMedian: target.kind === 'generation' ? (target.t.decode_tokens_per_s?.median ?? null) : null,
        quality: rowQuality,
        modelBytes: facts.modelBytes,
        jsHeapBytes: facts.jsHeapBytes,
      },
      counts: { receipts: t.counts.receipts, ok: okRuns, failed: facts.failedRuns, interrupted: facts.interrupted },
      failure: failureClass(facts),
      failureDetail: failureLines(t.failures, t.interrupted),
      verification: { verified, reviewer, why },
      evidence:
        target.kind === 'suite'
          ? {
              state: 'DEVICE_RECEIPT',
              reasons: ['suite targets are evidence beside the device procedure, never DEVICE_PASS'],
            }
          : { state: target.t.evidence.state, reasons: [...target.t.evidence.not_higher_because] },
      profiles: standings,
    });
  }
  // Ranks: by fit within one track, device and profile (the methodology's secondary ordering).
  for (const profile of profiles.profiles) {
    const groups = new Map<string, LeaderboardRow[]>();
    for (const row of rows) {
      if (!row.profiles[profile.name].ranked) continue;
      const group = `${row.track.key}\u0000${row.deviceKey}`;
      groups.set(group, [...(groups.get(group) ?? []), row]);
    }
    for (const group of groups.values()) {
      group.sort(
        (a, b) =>
          (b.profiles[profile.name].fit?.score ?? 0) - (a.profiles[profile.name].fit?.score ?? 0) ||
          byString(a.key, b.key),
      );
      group.forEach((row, i) => Object.assign(row.profiles[profile.name], { rank: i + 1, of: group.length }));
    }
  }
  // Individual metrics first: within a track, by warm median (rows with none last), then key; ranks never reorder.
  rows.sort(
    (a, b) =>
      byString(a.track.label, b.track.label) ||
      byString(a.track.key, b.track.key) ||
      (a.metrics.warmMedianMs ?? Number.POSITIVE_INFINITY) - (b.metrics.warmMedianMs ?? Number.POSITIVE_INFINITY) ||
      byString(a.key, b.key),
  );
  const tracks = new Map<string, LeaderboardRow[]>();
  for (const row of rows) tracks.set(row.track.key, [...(tracks.get(row.track.key) ?? []), row]);
  const pareto: ParetoView[] = [];
  for (const trackRows of tracks.values()) {
    const points = trackRows
      // Rows that failed on their device, crashed or were not a physical device's measurement stay off the front.
      .filter((r) => r.failure === null)
      .flatMap((r) =>
        r.metrics.quality !== null && r.metrics.warmMedianMs !== null
          ? [{ key: r.key, quality: r.metrics.quality.acc1, latencyMs: r.metrics.warmMedianMs }]
          : [],
      );
    if (points.length > 0) pareto.push({ track: trackRows[0].track, points, front: paretoFront(points) });
  }
  return {
    rows,
    pareto,
    meta,
    profiles,
    rulesVersion: RANKING_RULES_VERSION,
    summaries: summaries.map((s) => ({
      file: s.file,
      targets: s.summary.targets.length + s.summary.generation_targets.length + s.summary.suite_targets.length,
    })),
    duplicateTargets,
    comparisons,
  };
}
