/**
 * The device review (`drb.device-review.v1`): a reviewer's structured answers for one target, recorded outside
 * the receipts as the device protocol asks (hardware, OS and browser identity, conditions, the public revision,
 * wall-clock launch-to-result, tab survival, memory pressure, whether the output stayed correct, why each failed
 * or interrupted run happened, and the thresholds the target is held to). `drb receipts review` stores it next
 * to the summary; the evidence rules (evidence.ts) decide whether it promotes the target to DEVICE_PASS.
 */
import { z } from 'zod';
import { detailText, ReceiptId } from '../text/bounded-text.ts';
import { ProfileName } from './profiles.ts';

export const DEVICE_REVIEW_SCHEMA = 'drb.device-review.v1';

// What a reviewer types: one answer per field, bounded (it is printed into summary.md).
const Text = detailText(2000).trim().min(1);

export const FailureExplanation = z.strictObject({
  /** The receipt that failed, or that recorded an interrupted previous run. */
  receipt_id: ReceiptId,
  explanation: Text,
});

/**
 * The thresholds the reviewer declares before reading results: a budget profile, explicit limits, or both
 * (all must hold).
 */
export const DeclaredThresholds = z
  .strictObject({
    profile: ProfileName.nullable(),
    cold_total_p95_ms: z.number().positive().nullable(),
    warm_p95_ms: z.number().positive().nullable(),
  })
  .refine((t) => t.profile !== null || t.cold_total_p95_ms !== null || t.warm_p95_ms !== null, {
    message: 'declare a profile or at least one explicit threshold',
  });

export const DeviceReview = z.strictObject({
  schema: z.literal(DEVICE_REVIEW_SCHEMA),
  /** The target key from the summary (`t-...`). */
  target: z.string().regex(/^t-[0-9a-f]{12}$/, 'expected a target key like t-0123456789ab'),
  reviewer: Text,
  reviewed_at: z.string().datetime({ offset: true }),
  device: z.strictObject({
    hardware_model: Text,
    ram_gb: z.number().positive(),
    os_build: Text,
    browser: Text,
    browser_version: Text,
  }),
  conditions: z.strictObject({
    network: Text,
    battery_percent: z.number().min(0).max(100).nullable(),
    charging: z.boolean().nullable(),
    thermal_state: z.enum(['nominal', 'fair', 'serious', 'critical', 'unknown']),
  }),
  /** The exact deployed revision the device opened (commit or Space revision). */
  public_revision: Text,
  /** Wall-clock time from launching the browser to the first result, measured by the reviewer; or, where `derived`
   *  names it, the receipts' median time from navigation start to the first result (the browser's launch not in it). */
  launch_to_result_ms: z.number().nonnegative(),
  tab: z.strictObject({
    reloaded_or_evicted: z.boolean(),
    /** Required when the tab was reloaded or evicted: what happened and when. */
    details: Text.nullable(),
  }),
  memory_pressure: z.strictObject({
    observed: z.boolean(),
    behaviour: Text,
  }),
  output_stayed_correct: z.boolean(),
  failure_explanations: z.array(FailureExplanation),
  thresholds: DeclaredThresholds,
  notes: detailText(20_000).nullable(),
  /** The answers `drb receipts review` took from the evidence rather than from a person, each with where from (the
   *  session sheets, the output digests, the receipts' navigation-to-result times, the run journal, the tester's
   *  attested answer, --reviewer, the clock). Absent: every answer was typed. */
  derived: z
    .array(
      z.strictObject({
        field: z.enum([
          'device',
          'conditions',
          'public_revision',
          'launch_to_result_ms',
          'tab',
          'memory_pressure',
          'output_stayed_correct',
          'reviewer',
          'reviewed_at',
        ]),
        from: Text,
      }),
    )
    .max(16)
    .optional(),
});
export type DeviceReview = z.infer<typeof DeviceReview>;
