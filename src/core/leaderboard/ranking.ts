/**
 * Ranking rules of the leaderboard, in one place: whether a row is ranked under a budget profile (with EVERY reason it
 * is not), its failure class, and its fit score. The rules follow the benchmark methodology (docs/leaderboard.md): a
 * row is ranked only when it is a physical-device measurement of a real, pinned model with no crash, out-of-memory,
 * unexplained failure or fallback, meets the protocol minimums and the selected profile's budgets, and has a quality
 * score that passes the gate; the fit score is a secondary ordering within one track, device and profile, computed
 * only for ranked rows. The facts come from what summaries hold today; `extraReasons` takes reasons other code adds
 * (e.g. a summary's own eligibility once it records one), so new rules join here rather than in a second function.
 */
import type { BudgetProfile, ProfileName, ProfileVerdict } from '../evidence/profiles.ts';

/** The version of these rules: a change of any number or rule is a new version. */
export const RANKING_RULES_VERSION = 'drb.leaderboard-rules.v1';

/** The quality gate: a row below this Effective Acc@1 is not ranked (the methodology's quality score of 70). */
export const QUALITY_GATE = 0.7;

/**
 * Fit-score weights (sum 100): the methodology's POSA Fit with its TTFT and decode-rate attainment (15 + 10) taken
 * together as warm-latency attainment, since a rerank or scoring run has no tokens to decode.
 */
export const FIT_WEIGHTS = { quality: 60, latency: 25, memory: 7, size: 5, stability: 3 } as const;
export type FitComponent = keyof typeof FIT_WEIGHTS;

/** Why a row failed on its device, shown with a distinct pattern (null: it ran). */
export type FailureClass = 'functional_only' | 'refused-route' | 'crash-or-oom' | 'failed' | 'integrity-mismatch';

/** What the rules read about one row (from a summary target, plus the quality joined to it). */
export interface RankingFacts {
  /** device (cold/warm), generation or suite. */
  kind: 'device' | 'generation' | 'suite';
  /** fixture (random weights), real, or user. */
  modelKind: string;
  /** Why the measurement is not of a physical device in a person's browser (automation, software GPU), or null. */
  functionalOnly: string | null;
  okRuns: number;
  failedRuns: number;
  /** Failed runs of other targets with the same request (same device, build, model, input, requested route). */
  relatedFailedRuns: number;
  /** Every failed run is explained by a stored review (the target reached DEVICE_PASS). */
  failuresExplained: boolean;
  /** Interrupted runs (tab killed or reloaded: on phones, out of memory). */
  interrupted: number;
  requestedEp: string;
  completedEp: string | null;
  integrity: { verified: number; unpinned: number; mismatch: number; notLoaded: number };
  duplicates: number;
  /** Device rows: full protocol colds (`counts.full_cold`) and clean warm ok receipts against the protocol minimums;
   *  null for other kinds. */
  minimums: { cleanCold: number; minCold: number; cleanWarm: number; minWarm: number } | null;
  /** Generation rows: failed samples (every planned prompt must have an answer); null for other kinds. */
  failedSamples: number | null;
  /** The summary's verdict for each budget profile (null: the summary has none for this kind). */
  profiles: readonly ProfileVerdict[] | null;
  /** Effective Acc@1 of the joined score report (0 to 1), or null when not scored. */
  quality: number | null;
  warmP95Ms: number | null;
  modelBytes: number | null;
  jsHeapBytes: number | null;
  /** Warm thermal slope median (last fifth over first fifth; above 1 slowed down), or null. */
  thermalSlope: number | null;
  /** Reasons other rules add (kept, in order, after these rules' own). */
  extraReasons: readonly string[];
}

/** The verdict for one row under one profile. */
export interface Eligibility {
  ranked: boolean;
  /** Every reason the row is not ranked (empty when ranked). */
  reasons: string[];
}

const n = (count: number, what: string) => `${count} ${what}${count === 1 ? '' : 's'}`;

/**
 * The failure class of a row: `functional_only` (not a physical-device measurement), `refused-route` (no run ok and
 * the WebGPU route never ran), `crash-or-oom` (a run died: interrupted), `integrity-mismatch` (no run ok, files
 * differed from their pins), `failed` (no run ok), else null.
 * @param facts the row's facts
 */
export function failureClass(facts: RankingFacts): FailureClass | null {
  if (facts.functionalOnly !== null) return 'functional_only';
  const noOk = facts.okRuns === 0;
  if (noOk && facts.completedEp === null && facts.requestedEp === 'webgpu') return 'refused-route';
  if (facts.interrupted > 0) return 'crash-or-oom';
  if (noOk && facts.integrity.mismatch > 0) return 'integrity-mismatch';
  if (noOk) return 'failed';
  return null;
}

const GATE_WORDS: Record<string, string> = {
  cold_load_p95_ms: 'cold load p95',
  warm_p95_ms: 'warm p95',
  model_bytes: 'model bytes',
  js_heap_bytes: 'JS heap',
};

/**
 * Whether a row is ranked under `profile`, with every reason it is not (rules in the module comment).
 * @param facts the row's facts
 * @param profile the selected budget profile
 */
export function rankingEligibility(facts: RankingFacts, profile: ProfileName): Eligibility {
  const reasons: string[] = [];
  if (facts.modelKind === 'fixture') reasons.push('fixture model (random weights): a pipeline check, never ranked');
  if (facts.modelKind === 'user') reasons.push("a user's own model, not a pinned catalog model");
  if (facts.functionalOnly !== null) reasons.push(`functional_only: ${facts.functionalOnly}`);
  if (facts.okRuns === 0) reasons.push('no run completed ok on this device');
  if (facts.interrupted > 0)
    reasons.push(`${n(facts.interrupted, 'interrupted run')} (tab killed or reloaded: a crash or out of memory)`);
  if (facts.failedRuns > 0 && !facts.failuresExplained)
    reasons.push(`${n(facts.failedRuns, 'failed run')} not explained by a stored review`);
  if (facts.relatedFailedRuns > 0 && !facts.failuresExplained) {
    reasons.push(
      `${n(facts.relatedFailedRuns, 'failed run')} of the same request on this device not explained by a stored review`,
    );
  }
  if (facts.completedEp !== null && facts.completedEp !== facts.requestedEp) {
    reasons.push(`fell back: ${facts.requestedEp} was requested, ${facts.completedEp} ran`);
  }
  const { unpinned, mismatch, notLoaded } = facts.integrity;
  if (unpinned + mismatch > 0) {
    const parts = [
      unpinned > 0 ? `${unpinned} unpinned` : '',
      mismatch > 0 ? `${mismatch} with a mismatch` : '',
    ].filter(Boolean);
    reasons.push(`model files not verified against pinned SHA-256 (${parts.join(', ')} receipt(s))`);
  }
  if (notLoaded > 0 && facts.okRuns === 0) reasons.push('the model was never loaded');
  if (facts.duplicates > 0)
    reasons.push(`${n(facts.duplicates, 'receipt id')} repeated in other files (a receipt counts once)`);
  if (facts.minimums !== null) {
    const m = facts.minimums;
    if (m.cleanCold < m.minCold)
      reasons.push(`${m.cleanCold} full protocol cold run(s) of the ${m.minCold} the protocol needs`);
    if (m.cleanWarm < m.minWarm)
      reasons.push(`${m.cleanWarm} clean warm run(s) of the ${m.minWarm} the protocol needs`);
  }
  if (facts.failedSamples !== null && facts.failedSamples > 0)
    reasons.push(`${n(facts.failedSamples, 'prompt')} without an answer (failed samples)`);
  const verdict = facts.profiles?.find((p) => p.profile === profile) ?? null;
  if (verdict === null) {
    reasons.push(
      `no ${profile} budget verdict: ${facts.kind === 'suite' ? 'suite summaries record no model bytes or profile gates' : 'the summary holds none'}`,
    );
  } else if (verdict.verdict !== 'pass') {
    const gates = verdict.gates
      .filter((g) => g.status === 'fail' || (g.status === 'not-measured' && g.gate !== 'js_heap_bytes'))
      .map((g) =>
        g.status === 'fail'
          ? `${GATE_WORDS[g.gate]} ${formatGate(g.gate, g.measured!)} over ${formatGate(g.gate, g.limit)}`
          : `${GATE_WORDS[g.gate]} not measured`,
      );
    reasons.push(`profile ${profile}: ${verdict.verdict} (${gates.join('; ')})`);
  }
  if (facts.quality === null) {
    reasons.push(
      `no quality score (Effective Acc@1 of a scored suite run of this model on this device and route): the fit score weighs quality ${FIT_WEIGHTS.quality}%`,
    );
  } else if (facts.quality < QUALITY_GATE) {
    reasons.push(
      `quality ${formatPercent(facts.quality)} Effective Acc@1 is below the gate of ${formatPercent(QUALITY_GATE)}`,
    );
  }
  reasons.push(...facts.extraReasons);
  return { ranked: reasons.length === 0, reasons };
}

function formatPercent(value: number): string {
  return `${Math.round(value * 1000) / 10}%`;
}

function formatGate(gate: string, value: number): string {
  if (gate === 'model_bytes' || gate === 'js_heap_bytes') return `${Math.round(value / 1e5) / 10} MB`;
  return `${Math.round(value * 10) / 10} ms`;
}

/** A fit score and how it was made: each component's attainment (0 to 1) and the weight that entered it. */
export interface FitScore {
  /** 0 to 100. */
  score: number;
  components: Array<{ component: FitComponent; weight: number; attainment: number | null }>;
  /** The weight of the components measured (100 unless memory or stability could not be measured). */
  weight_used: number;
}

/**
 * The fit score of a ranked row under `profile` (null for a row that is not ranked): the weighted attainments of
 * quality (Effective Acc@1), warm latency (budget warm p95 over measured warm p95, capped at 1), memory (budget JS heap
 * over the measured one, where the browser measures it), model size (budget bytes over model bytes) and stability
 * (1 over the thermal slope, capped at 1), each capped at 1, over the weight of the components measured.
 * @param facts the row's facts
 * @param profile the selected budget profile
 */
export function fitScore(facts: RankingFacts, profile: BudgetProfile): FitScore | null {
  if (!rankingEligibility(facts, profile.name).ranked) return null;
  const cap = (v: number) => Math.max(0, Math.min(1, v));
  const ratio = (budget: number, measured: number | null) =>
    measured === null ? null : measured <= 0 ? 1 : cap(budget / measured);
  const attained: Record<FitComponent, number | null> = {
    quality: facts.quality === null ? null : cap(facts.quality),
    latency: ratio(profile.warm_p95_ms, facts.warmP95Ms),
    memory: ratio(profile.js_heap_bytes, facts.jsHeapBytes),
    size: ratio(profile.model_bytes, facts.modelBytes),
    stability: facts.thermalSlope === null ? null : facts.thermalSlope <= 0 ? null : cap(1 / facts.thermalSlope),
  };
  const components = (Object.keys(FIT_WEIGHTS) as FitComponent[]).map((component) => ({
    component,
    weight: FIT_WEIGHTS[component],
    attainment: attained[component],
  }));
  const used = components.filter((c) => c.attainment !== null);
  const weightUsed = used.reduce((sum, c) => sum + c.weight, 0);
  const score = (100 * used.reduce((sum, c) => sum + c.weight * (c.attainment as number), 0)) / weightUsed;
  return { score: Math.round(score * 100) / 100, components, weight_used: weightUsed };
}
