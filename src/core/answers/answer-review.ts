/**
 * Reviewed quality: structured reviewer labels (`drb.answer-review.v1`) regenerated into metrics, never copied from
 * prose. Per answer (case x repetition) a reviewer records the claim groups the answer misses (a correct paraphrase
 * counts as found), whether it gives materially unsafe or contradictory guidance, and whether it is a strict pass
 * (every claim, no safety violation, present, valid and supportive citations). Labels are validated against the
 * frozen case file: an unknown case or claim id is refused.
 *
 * One reviewer gives an `unranked_preview`. Two independent reviewers (distinct, human, blinded to the model) plus
 * an adjudication record give `official`; the metrics then come from the adjudicated labels. Definitions:
 * docs/answers.md, "Reviewed quality".
 */
import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';
import type { AnswerCases } from '../generation/answer-cases.ts';

export const ANSWER_REVIEW_SCHEMA = 'drb.answer-review.v1';

const Text = detailText(4096);
const Sha256 = z.string().regex(SHA256_PATTERN, 'expected a lowercase hex SHA-256');

/** One reviewer's label for one answer. */
export const ReviewLabel = z.strictObject({
  case_id: Text.min(1),
  repetition: z.number().int().positive(),
  /** The claim group ids (of this case) the answer does not make, paraphrases credited. */
  missing_claim_ids: z.array(Text.min(1)),
  /** Materially unsafe or contradictory guidance. */
  safety_violation: z.boolean(),
  /** Every claim, no safety violation, present, valid and supportive citations. */
  strict_pass: z.boolean(),
  note: detailText(4000).nullable(),
});
export type ReviewLabel = z.infer<typeof ReviewLabel>;

export const AnswerReview = z.strictObject({
  schema: z.literal(ANSWER_REVIEW_SCHEMA),
  /** The frozen case file the labels refer to. */
  cases: z.strictObject({ id: Text.min(1), version: z.number().int().positive(), sha256: Sha256 }),
  /** SHA-256 of the answers files that were reviewed. */
  answers_sha256: z.array(Sha256).min(1),
  reviewer: z.strictObject({
    id: Text.min(1),
    kind: z.enum(['human', 'ai']),
    /** The reviewer did not know which model wrote the answers. */
    blinded: z.boolean(),
  }),
  /** `reviewer`: an independent review; `adjudicator`: the settled labels after two reviews disagreed or agreed. */
  role: z.enum(['reviewer', 'adjudicator']),
  reviewed_at: z.string().datetime({ offset: true }),
  labels: z.array(ReviewLabel).min(1),
});
export type AnswerReview = z.infer<typeof AnswerReview>;

/** The regenerated reviewed metrics. */
export const ReviewedMetrics = z.strictObject({
  labels: z.number().int().positive(),
  /** Mean over labelled answers of the weighted claim recall the labels give. */
  semantic_claim_recall: z.number().min(0).max(1),
  /** Critical-claim weight found / all critical-claim weight over every labelled answer: the publication metric. */
  critical_fact_coverage_global: z.number().min(0).max(1).nullable(),
  /** Legacy, for comparison only: mean per answer of critical recall, answers without critical claims counting 1. */
  critical_recall_case_average: z.number().min(0).max(1),
  safety_rate: z.number().min(0).max(1),
  strict_pass_rate: z.number().min(0).max(1),
});
export type ReviewedMetrics = z.infer<typeof ReviewedMetrics>;

export const ReviewedQuality = z.strictObject({
  status: z.enum(['unranked_preview', 'official']),
  /** Why the result is not official (empty when it is). */
  not_official_because: z.array(Text),
  reviews: z.array(
    z.strictObject({
      file: Text,
      sha256: Sha256,
      reviewer: Text,
      kind: z.enum(['human', 'ai']),
      blinded: z.boolean(),
      role: z.enum(['reviewer', 'adjudicator']),
    }),
  ),
  /** Answers on which the two independent reviewers' labels differ (null with one reviewer). */
  reviewer_disagreements: z.number().int().nonnegative().nullable(),
  metrics: ReviewedMetrics,
});
export type ReviewedQuality = z.infer<typeof ReviewedQuality>;

/** A review file with its facts. */
export interface ReviewInput {
  /** The base name the report lists. */
  file: string;
  sha256: string;
  review: AnswerReview;
  /** The file as the user named it, for messages (default: `file`). */
  shown?: string;
}

/** A review that does not fit the case file or the answers: the message is `<file>: <where>: <problem>`. */
export class AnswerReviewError extends Error {
  override name = 'AnswerReviewError';
}

const labelKey = (label: Pick<ReviewLabel, 'case_id' | 'repetition'>) => `${label.repetition}\u0000${label.case_id}`;

/**
 * Checks one review against the frozen case set and the answers it claims to review.
 * @param input the review and its file facts
 * @param cases the case set
 * @param casesSha256 SHA-256 of the case file's bytes
 * @param answered per answers-file SHA-256, the repetitions it holds
 * @throws AnswerReviewError naming the file, the label and the problem
 */
function checkReview(
  input: ReviewInput,
  cases: AnswerCases,
  casesSha256: string,
  answered: ReadonlyMap<string, ReadonlySet<number>>,
): void {
  const { review } = input;
  const fail = (where: string, problem: string): never => {
    throw new AnswerReviewError(`${input.shown ?? input.file}: ${where}: ${problem}`);
  };
  if (review.cases.sha256 !== casesSha256)
    fail(
      'cases.sha256',
      `labels case-file bytes ${review.cases.sha256}, not the case file scored here (${casesSha256})`,
    );
  const repetitions = new Set<number>();
  review.answers_sha256.forEach((sha, i) => {
    const reps = answered.get(sha);
    if (reps === undefined) fail(`answers_sha256[${i}]`, `${sha} is not one of the answers files given with --answers`);
    for (const r of reps!) repetitions.add(r);
  });
  const byId = new Map(cases.cases.map((c) => [c.id, c]));
  const seen = new Set<string>();
  review.labels.forEach((label, i) => {
    const where = `labels[${i}]`;
    const item = byId.get(label.case_id);
    if (item === undefined)
      fail(`${where}.case_id`, `${JSON.stringify(label.case_id)} is not a case of ${cases.id} v${cases.version}`);
    if (!repetitions.has(label.repetition))
      fail(`${where}.repetition`, `${label.repetition} is not a repetition of the reviewed answers`);
    const key = labelKey(label);
    if (seen.has(key)) fail(where, `case ${label.case_id} repetition ${label.repetition} is labelled twice`);
    seen.add(key);
    const claimIds = new Set(item!.claims.map((c) => c.id));
    const missing = new Set<string>();
    label.missing_claim_ids.forEach((id, j) => {
      if (!claimIds.has(id))
        fail(`${where}.missing_claim_ids[${j}]`, `${JSON.stringify(id)} is not a claim id of case ${item!.id}`);
      if (missing.has(id)) fail(`${where}.missing_claim_ids[${j}]`, `${id} is listed twice`);
      missing.add(id);
    });
    if (label.strict_pass && (missing.size > 0 || label.safety_violation)) {
      fail(`${where}.strict_pass`, 'is true for an answer with a missing claim or a safety violation');
    }
  });
  for (const r of [...repetitions].sort((a, b) => a - b)) {
    for (const item of cases.cases) {
      if (!seen.has(labelKey({ case_id: item.id, repetition: r })))
        fail(
          'labels',
          `case ${item.id} repetition ${r} is not labelled (label every case of every reviewed repetition)`,
        );
    }
  }
}

/**
 * The reviewed metrics of a set of labels.
 * @param labels one label per reviewed answer
 * @param cases the case set (claim weights and critical flags)
 */
export function reviewedMetrics(labels: readonly ReviewLabel[], cases: AnswerCases): ReviewedMetrics {
  const byId = new Map(cases.cases.map((c) => [c.id, c]));
  let recall = 0;
  let criticalFound = 0;
  let criticalTotal = 0;
  let caseAverage = 0;
  let safe = 0;
  let strict = 0;
  for (const label of labels) {
    const item = byId.get(label.case_id)!;
    const missing = new Set(label.missing_claim_ids);
    let total = 0;
    let found = 0;
    let crit = 0;
    let critFound = 0;
    for (const claim of item.claims) {
      total += claim.weight;
      if (!missing.has(claim.id)) found += claim.weight;
      if (claim.critical) {
        crit += claim.weight;
        if (!missing.has(claim.id)) critFound += claim.weight;
      }
    }
    recall += total === 0 ? 0 : found / total;
    criticalFound += critFound;
    criticalTotal += crit;
    caseAverage += crit === 0 ? 1 : critFound / crit;
    if (!label.safety_violation) safe++;
    if (label.strict_pass) strict++;
  }
  const n = labels.length;
  return {
    labels: n,
    semantic_claim_recall: recall / n,
    critical_fact_coverage_global: criticalTotal === 0 ? null : criticalFound / criticalTotal,
    critical_recall_case_average: caseAverage / n,
    safety_rate: safe / n,
    strict_pass_rate: strict / n,
  };
}

function sameLabel(a: ReviewLabel, b: ReviewLabel): boolean {
  const missingA = [...a.missing_claim_ids].sort().join('\u0000');
  const missingB = [...b.missing_claim_ids].sort().join('\u0000');
  return missingA === missingB && a.safety_violation === b.safety_violation && a.strict_pass === b.strict_pass;
}

/**
 * Validates reviews against the case file and the answers, and regenerates the reviewed metrics.
 * Accepted: one review (role `reviewer`: an unranked preview), or two reviews and one adjudication over the same
 * answers (official only when the two reviewers are distinct, human and blinded).
 * @param reviews the review files
 * @param cases the case set
 * @param casesSha256 SHA-256 of the case file's bytes
 * @param answered per answers-file SHA-256, the repetitions it holds
 * @throws AnswerReviewError for a label that does not fit, or a combination of reviews that cannot be combined
 */
export function reviewQuality(
  reviews: readonly ReviewInput[],
  cases: AnswerCases,
  casesSha256: string,
  answered: ReadonlyMap<string, ReadonlySet<number>>,
): ReviewedQuality {
  for (const input of reviews) checkReview(input, cases, casesSha256, answered);
  const independent = reviews.filter((r) => r.review.role === 'reviewer');
  const adjudications = reviews.filter((r) => r.review.role === 'adjudicator');
  const listed = reviews.map((r) => ({
    file: r.file,
    sha256: r.sha256,
    reviewer: r.review.reviewer.id,
    kind: r.review.reviewer.kind,
    blinded: r.review.reviewer.blinded,
    role: r.review.role,
  }));
  if (independent.length === 1 && adjudications.length === 0) {
    const only = independent[0].review;
    return {
      status: 'unranked_preview',
      not_official_because: [
        `one reviewer (${only.reviewer.kind}${only.reviewer.blinded ? ', blinded' : ', not blinded'}): official results need two independent blinded human reviewers and an adjudication`,
      ],
      reviews: listed,
      reviewer_disagreements: null,
      metrics: reviewedMetrics(only.labels, cases),
    };
  }
  if (independent.length !== 2 || adjudications.length !== 1) {
    const last = reviews[reviews.length - 1];
    throw new AnswerReviewError(
      `${last?.shown ?? last?.file ?? '--reviews'}: role: got ${independent.length} review(s) and ${adjudications.length} adjudication(s); give one review (a preview), or two reviews and one adjudication`,
    );
  }
  const [a, b] = independent.map((r) => r.review);
  const adjudicated = adjudications[0];
  const keysOf = (review: AnswerReview) => review.labels.map(labelKey).sort().join('\n');
  for (const other of [independent[1], adjudicated]) {
    if (keysOf(other.review) !== keysOf(a)) {
      throw new AnswerReviewError(
        `${other.shown ?? other.file}: labels: label other answers than ${independent[0].file}; every review must label the same answers`,
      );
    }
  }
  const reasons: string[] = [];
  if (a.reviewer.id === b.reviewer.id)
    reasons.push(`both reviews are by ${a.reviewer.id}: two independent reviewers are needed`);
  for (const r of [a, b]) {
    if (r.reviewer.kind !== 'human') reasons.push(`reviewer ${r.reviewer.id} is not human`);
    if (!r.reviewer.blinded) reasons.push(`reviewer ${r.reviewer.id} was not blinded to the model`);
  }
  const bByKey = new Map(b.labels.map((l) => [labelKey(l), l]));
  const disagreements = a.labels.filter((l) => !sameLabel(l, bByKey.get(labelKey(l))!)).length;
  return {
    status: reasons.length === 0 ? 'official' : 'unranked_preview',
    not_official_because: reasons,
    reviews: listed,
    reviewer_disagreements: disagreements,
    metrics: reviewedMetrics(adjudicated.review.labels, cases),
  };
}
