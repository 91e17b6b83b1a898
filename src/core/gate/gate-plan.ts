/**
 * The escalation gate plan (`drb.gate-plan.v1`), frozen before any result is read: the fixed artifact (items and
 * candidates by SHA-256), what stays fixed around it (tokenizer, prompt, decoding, context, route), the candidate
 * limit K, the Recall@K adequacy threshold, the quality target, the ladder of rerankers in order, the significance
 * level of the paired sign test, and the physical device targets that must reach DEVICE_PASS before a model is
 * promoted. `drb gate plan --check` validates one; every gate report names its SHA-256 and refuses runs scored on
 * other bytes. The licence/NOTICE review record a promotion needs (`drb.licence-review.v1`) is defined here too.
 * Rules: docs/gate.md.
 */
import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';
import { firstIssueLine } from '../text/zod-issues.ts';

export const GATE_PLAN_SCHEMA = 'drb.gate-plan.v1';
export const LICENCE_REVIEW_SCHEMA = 'drb.licence-review.v1';

const Text = detailText(2000).refine((value) => value.trim().length > 0, { message: 'must not be empty' });
const Sha256 = z.string().regex(SHA256_PATTERN, 'expected a lowercase hex SHA-256');
const StepId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'expected a lowercase id of letters, digits, . _ - (at most 64)');

/**
 * Score-report metrics a quality target may name, with the direction that is better. Effective Acc@1 and MRR@K
 * are higher-better; the mean effective MinCER is lower-better.
 */
export const QUALITY_TARGET_METRICS = {
  effective_acc_at_1: 'higher',
  mrr_at_k: 'higher',
  mean_effective_min_cer: 'lower',
} as const;
export type QualityTargetMetric = keyof typeof QUALITY_TARGET_METRICS;

/** A physical device target that must reach DEVICE_PASS, described before any receipt exists. */
export const DeviceTarget = z.strictObject({
  id: StepId,
  description: Text,
  /** The reviewer's `device.browser` must equal this (case-insensitive), e.g. "Safari". */
  browser: Text,
  /** The reviewer's `device.hardware_model` must contain this (case-insensitive), e.g. "iPhone 13". */
  hardware_model: Text,
  /** Strings the receipts' recorded user agent must contain (e.g. "iPhone", "Safari/"); a headless browser never matches. */
  user_agent_includes: z.array(Text).max(16),
});
export type DeviceTarget = z.infer<typeof DeviceTarget>;

export const LadderStep = z.strictObject({
  /** The name runs are labelled with (`--runs <id>=<score report>`). */
  id: StepId,
  label: Text,
  /** The catalog model id its device receipts and licence review name. */
  model_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:+@/-]{0,127}$/, 'expected a catalog model id'),
});
export type LadderStep = z.infer<typeof LadderStep>;

export const GatePlan = z
  .strictObject({
    schema: z.literal(GATE_PLAN_SCHEMA),
    id: StepId,
    description: Text,
    /** When the plan was frozen (declared; the plan's SHA-256 is what reports check). */
    frozen_at: z.string().datetime({ offset: true }),
    artifact: z.strictObject({
      items: z.strictObject({ file: Text, sha256: Sha256, format: z.enum(['generic', 'ajimee']) }),
      candidates: z.strictObject({ file: Text, sha256: Sha256 }),
    }),
    /** What stays fixed around the artifact: recorded in every report; the model returns scores or ranks only. */
    fixed: z.strictObject({
      tokenizer: Text,
      prompt: Text,
      decoding: Text,
      context: Text,
      route: Text,
    }),
    candidate_limit: z.number().int().min(1).max(1000),
    /** Recall@K of the candidate artifact must be at least this before any reranker is evaluated. */
    recall_adequacy: z.number().gt(0).max(1),
    quality_target: z.strictObject({
      metric: z.enum(Object.keys(QUALITY_TARGET_METRICS) as [QualityTargetMetric, ...QualityTargetMetric[]]),
      value: z.number().min(0),
    }),
    /** The rerankers in the order they may be tried (smallest first). */
    ladder: z.array(LadderStep).min(1).max(8),
    /** Significance level of the exact two-sided sign test (drb compare) a paired improvement needs. */
    significance_level: z.number().gt(0).lt(1),
    device_targets: z.array(DeviceTarget).min(1).max(32),
  })
  .superRefine((plan, ctx) => {
    const unique = (values: string[], path: string) => {
      const seen = new Set<string>();
      values.forEach((value, i) => {
        if (seen.has(value))
          ctx.addIssue({ code: 'custom', path: [path, i, 'id'], message: `duplicate id ${JSON.stringify(value)}` });
        seen.add(value);
      });
    };
    unique(
      plan.ladder.map((s) => s.id),
      'ladder',
    );
    unique(
      plan.device_targets.map((t) => t.id),
      'device_targets',
    );
    if (QUALITY_TARGET_METRICS[plan.quality_target.metric] === 'higher' && plan.quality_target.value > 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['quality_target', 'value'],
        message: `${plan.quality_target.metric} is a fraction from 0 to 1`,
      });
    }
  });
export type GatePlan = z.infer<typeof GatePlan>;

/** A reviewer's licence and NOTICE record for one model (a promotion needs an approved one). */
export const LicenceReview = z.strictObject({
  schema: z.literal(LICENCE_REVIEW_SCHEMA),
  model_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:+@/-]{0,127}$/, 'expected a catalog model id'),
  reviewer: Text,
  reviewed_at: z.string().datetime({ offset: true }),
  /** The licence as the model's publisher states it, e.g. "LFM Open License v1.0". */
  licence: Text,
  /** The publisher's NOTICE and attribution requirements were read and are met where the model ships. */
  notice_reviewed: z.boolean(),
  /** The licence allows the planned distribution (served to users' browsers). */
  distribution_allowed: z.boolean(),
  outcome: z.enum(['approved', 'rejected']),
  notes: detailText(20_000).nullable(),
});
export type LicenceReview = z.infer<typeof LicenceReview>;

/** A plan that cannot be used: `<file>: <field path>: <problem>`. */
export class GatePlanError extends Error {
  override name = 'GatePlanError';
}

/**
 * Validates a parsed plan file.
 * @param json the file's parsed JSON
 * @param fileName the name shown first in the message
 * @throws GatePlanError with one line naming the field and the problem
 */
export function parseGatePlan(json: unknown, fileName: string): GatePlan {
  const parsed = GatePlan.safeParse(json);
  if (!parsed.success) throw new GatePlanError(`${fileName}: ${firstIssueLine(parsed.error)}`);
  return parsed.data;
}
