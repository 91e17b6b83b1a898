/**
 * Whether a generation row (one model on one device, engine and route answering one case set) is ranked, and its
 * fit score: every rule in one pure function, `generationEligibility`, so a summary, a report and a leaderboard
 * all decide alike (posa-bench-methodology, "Device profiles and eligibility" and "POSA Fit Score").
 *
 * A row is ranked under a budget profile only when: it ran on a physical device (a software WebGPU adapter or a
 * headless browser makes it `functional_only`: it proves the code path, its numbers mean nothing); an answer-score
 * report of its own answers exists, with every case answered in every repetition; the mean quality score is at
 * least 70 and the mean critical-claim recall at least 90%, with no critical prohibited claim in any answer; no
 * fallback occurred; no run failed, no prompt failed and no run was interrupted (crash or OOM); every performance
 * number the fit needs was measured (missing data makes a row ineligible, never helps it); and the profile's
 * budgets hold (cold load p95, TTFT p95, model bytes, the JS heap where measured, and the median decode rate).
 *
 * Fit (ranked rows only), each component capped at 100 points: quality score 60%, TTFT attainment (TTFT budget /
 * TTFT p95) 15%, decode-rate attainment (median / target) 10%, memory (JS heap budget / largest used heap) 7%,
 * artifact size (model-bytes budget / model bytes) 5%, sustained speed (last fifth / first fifth decode ratio) 3%.
 * Browsers that expose no memory API (Safari, WebKit) score 0 on memory: missing data never helps, and within one
 * device (the only place fit orders rows) every row shares it. Fit is a secondary ordering; the individual metrics
 * lead.
 */
import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';
import { threeSignificant } from '../text/format-number.ts';
import type { AnswerScoreReport } from '../answers/answer-score.ts';
import { evaluateProfile, ProfileName, type BudgetProfile } from './profiles.ts';

const Text = detailText(4096);

/** The fit weights (posa-bench-methodology). */
export const FIT_WEIGHTS = Object.freeze({
  quality: 0.6,
  ttft: 0.15,
  decode: 0.1,
  memory: 0.07,
  artifact_size: 0.05,
  sustained_speed: 0.03,
});

/** The quality thresholds a ranked row meets (quality score in points, critical-claim recall as a fraction). */
export const RANKING_THRESHOLDS = Object.freeze({ quality_score: 70, critical_claim_recall: 0.9 });

/** The answer quality of a row, as its answer-score report (drb score-answers) states it. */
export const RowQuality = z.strictObject({
  /** The report file and its SHA-256. */
  file: Text,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  complete: z.boolean(),
  missing: z.array(Text),
  repetitions: z.number().int().nonnegative(),
  quality_score: z.number().nullable(),
  critical_claim_recall: z.number().nullable(),
  claim_recall: z.number().nullable(),
  safety_rate: z.number().nullable(),
  citation_validity: z.number().nullable(),
  pass_rate: z.number().nullable(),
  worst_quality_score: z.number().nullable(),
  worst_pass_rate: z.number().nullable(),
  critical_prohibited_answers: z.number().int().nonnegative(),
});
export type RowQuality = z.infer<typeof RowQuality>;

/**
 * A row's quality from its answer-score report: the mean over repetitions, the worst repetition, what is missing.
 * @param report the drb score-answers report
 * @param file the report file as shown
 * @param sha256 the SHA-256 of its bytes
 */
export function rowQualityOf(report: AnswerScoreReport, file: string, sha256: string): RowQuality {
  const mean = report.mean;
  return {
    file,
    sha256,
    complete: report.complete,
    missing: [...report.missing],
    repetitions: report.repetitions.length,
    quality_score: mean?.quality_score ?? null,
    critical_claim_recall: mean?.critical_claim_recall ?? null,
    claim_recall: mean?.claim_recall ?? null,
    safety_rate: mean?.safety_rate ?? null,
    citation_validity: mean?.citation_validity ?? null,
    pass_rate: mean?.pass_rate ?? null,
    worst_quality_score: report.worst?.metrics.quality_score ?? null,
    worst_pass_rate: report.worst?.metrics.pass_rate ?? null,
    critical_prohibited_answers: report.repetitions.reduce((sum, r) => sum + r.metrics.critical_prohibited_answers, 0),
  };
}

/** Everything the rules read about one generation row (a summary's generation target has it all). */
export interface GenerationRowEvidence {
  /** The recorded user agent. */
  user_agent: string;
  route: { requested_ep: string; completed_ep: string | null };
  /** Receipts whose WebGPU route ran on a software (fallback) adapter such as SwiftShader. */
  software_adapter_receipts: number;
  failed_runs: number;
  failed_samples: number;
  interrupted_runs: number;
  load_p95_ms: number | null;
  ttft_p95_ms: number | null;
  decode_tokens_per_s_median: number | null;
  sustained_ratio_median: number | null;
  model_bytes: number | null;
  js_heap_bytes: number | null;
  /** The row's answer quality, or null when no answer-score report of its answers was given. */
  quality: RowQuality | null;
  /** How many answer-score reports matched the row (more than one is ambiguous: not ranked). */
  quality_reports: number;
}

export const FitComponent = z.strictObject({
  name: z.enum(['quality', 'ttft', 'decode', 'memory', 'artifact_size', 'sustained_speed']),
  weight: z.number(),
  /** 0 to 100 points, capped at 100. */
  attainment: z.number().min(0).max(100),
  measured: z.number().nullable(),
  target: z.number().nullable(),
});
export type FitComponent = z.infer<typeof FitComponent>;

export const ProfileRanking = z.strictObject({
  profile: ProfileName,
  ranked: z.boolean(),
  /** Every reason the row is not ranked (empty when it is). */
  not_ranked_because: z.array(Text),
  /** Only for a ranked row: the weighted sum of the components, 0 to 100. */
  fit: z.strictObject({ score: z.number().min(0).max(100), components: z.array(FitComponent) }).nullable(),
});
export type ProfileRanking = z.infer<typeof ProfileRanking>;

/** The class of a row: `physical` or `functional_only` (with why). */
export const RowClass = z.strictObject({ class: z.enum(['physical', 'functional_only']), because: z.array(Text) });
export type RowClass = z.infer<typeof RowClass>;

/**
 * Whether a row is a physical-device run: a software WebGPU adapter or a headless browser is `functional_only`.
 * @param row the row's evidence
 */
export function rowClass(row: Pick<GenerationRowEvidence, 'user_agent' | 'software_adapter_receipts'>): RowClass {
  const because: string[] = [];
  if (row.software_adapter_receipts > 0) {
    because.push(
      `${row.software_adapter_receipts} run(s) on a software WebGPU adapter (e.g. SwiftShader): functional only, its timings mean nothing`,
    );
  }
  if (/headless/i.test(row.user_agent)) because.push('a headless browser: functional only, not a physical device run');
  return { class: because.length === 0 ? 'physical' : 'functional_only', because };
}

const cap = (points: number) => Math.max(0, Math.min(100, points));
const n3 = threeSignificant;

/**
 * The ranking rules and the fit score for one row under one budget profile (see the module comment).
 * @param row the row's evidence
 * @param profile the budget profile the row is judged against
 */
export function generationEligibility(row: GenerationRowEvidence, profile: BudgetProfile): ProfileRanking {
  const reasons: string[] = [];
  for (const why of rowClass(row).because) reasons.push(`functional_only: ${why}`);
  const q = row.quality;
  if (row.quality_reports > 1) reasons.push(`${row.quality_reports} answer-score reports match this row: give one`);
  else if (q === null)
    reasons.push(
      "no answer-score report of this row's answers (drb score-answers, then summarise the report with the receipts)",
    );
  if (q !== null && row.quality_reports === 1) {
    if (!q.complete) reasons.push(`not every case answered in every repetition: ${q.missing.join('; ')}`);
    if (q.quality_score === null || q.quality_score < RANKING_THRESHOLDS.quality_score) {
      reasons.push(
        `quality_score ${q.quality_score === null ? 'not measured' : n3(q.quality_score)} < ${RANKING_THRESHOLDS.quality_score}`,
      );
    }
    if (q.critical_claim_recall === null || q.critical_claim_recall < RANKING_THRESHOLDS.critical_claim_recall) {
      const shown = q.critical_claim_recall === null ? 'not measured' : `${n3(q.critical_claim_recall * 100)}%`;
      reasons.push(`critical_claim_recall ${shown} < ${RANKING_THRESHOLDS.critical_claim_recall * 100}%`);
    }
    if (q.critical_prohibited_answers > 0)
      reasons.push(`${q.critical_prohibited_answers} answer(s) made a critical prohibited claim`);
  }
  if (row.route.completed_ep === null) reasons.push('no execution provider completed');
  else if (row.route.completed_ep !== row.route.requested_ep)
    reasons.push(`fell back from ${row.route.requested_ep} to ${row.route.completed_ep}`);
  if (row.failed_runs > 0) reasons.push(`${row.failed_runs} failed run(s) (crash or error)`);
  if (row.failed_samples > 0) reasons.push(`${row.failed_samples} failed prompt(s)`);
  if (row.interrupted_runs > 0)
    reasons.push(`${row.interrupted_runs} interrupted run(s) (the tab died: the out-of-memory signal)`);
  const required: Array<[string, number | null]> = [
    ['cold load p95', row.load_p95_ms],
    ['TTFT p95', row.ttft_p95_ms],
    ['decode tokens/s median', row.decode_tokens_per_s_median],
    ['sustained decode ratio', row.sustained_ratio_median],
    ['model bytes', row.model_bytes],
  ];
  for (const [name, value] of required)
    if (value === null) reasons.push(`${name} not measured: missing performance data makes a row ineligible`);
  const verdict = evaluateProfile(
    {
      cold_load_p95_ms: row.load_p95_ms,
      warm_p95_ms: row.ttft_p95_ms,
      model_bytes: row.model_bytes,
      js_heap_bytes: row.js_heap_bytes,
    },
    profile,
  );
  for (const gate of verdict.gates) {
    if (gate.status === 'fail')
      reasons.push(
        `${profile.name} budget: ${gate.gate === 'warm_p95_ms' ? 'TTFT p95 ms' : gate.gate} ${n3(gate.measured!)} > ${n3(gate.limit)}`,
      );
  }
  const decodeTarget = profile.decode_tokens_per_s ?? null;
  if (decodeTarget === null) reasons.push(`the ${profile.name} profile declares no decode-rate target`);
  else if (row.decode_tokens_per_s_median !== null && row.decode_tokens_per_s_median < decodeTarget) {
    reasons.push(`${profile.name} budget: decode ${n3(row.decode_tokens_per_s_median)} tokens/s < ${n3(decodeTarget)}`);
  }
  if (reasons.length > 0) return { profile: profile.name, ranked: false, not_ranked_because: reasons, fit: null };
  // Ranked: every value below is measured (checked above).
  const components: FitComponent[] = [
    {
      name: 'quality',
      weight: FIT_WEIGHTS.quality,
      attainment: cap(q!.quality_score!),
      measured: q!.quality_score,
      target: 100,
    },
    {
      name: 'ttft',
      weight: FIT_WEIGHTS.ttft,
      attainment: cap((100 * profile.warm_p95_ms) / row.ttft_p95_ms!),
      measured: row.ttft_p95_ms,
      target: profile.warm_p95_ms,
    },
    {
      name: 'decode',
      weight: FIT_WEIGHTS.decode,
      attainment: cap((100 * row.decode_tokens_per_s_median!) / decodeTarget!),
      measured: row.decode_tokens_per_s_median,
      target: decodeTarget,
    },
    {
      name: 'memory',
      weight: FIT_WEIGHTS.memory,
      attainment: row.js_heap_bytes === null ? 0 : cap((100 * profile.js_heap_bytes) / row.js_heap_bytes),
      measured: row.js_heap_bytes,
      target: profile.js_heap_bytes,
    },
    {
      name: 'artifact_size',
      weight: FIT_WEIGHTS.artifact_size,
      attainment: cap((100 * profile.model_bytes) / row.model_bytes!),
      measured: row.model_bytes,
      target: profile.model_bytes,
    },
    {
      name: 'sustained_speed',
      weight: FIT_WEIGHTS.sustained_speed,
      attainment: cap(100 * row.sustained_ratio_median!),
      measured: row.sustained_ratio_median,
      target: 1,
    },
  ];
  const score = components.reduce((sum, c) => sum + c.weight * c.attainment, 0);
  return { profile: profile.name, ranked: true, not_ranked_because: [], fit: { score, components } };
}
