/**
 * Every drb artifact that is not a receipt, by the `schema` string it carries: what `drb receipts validate` checks
 * such a file against (a folder from `drb public-pass` holds a public-pass record and a summary beside the receipts;
 * a receipts folder may hold reviews, reports and manifests). Receipts have their own checks in validate-receipt.ts.
 * A new artifact kind adds one line here.
 */
import type { z } from 'zod';
import { FIXED_INPUT_SCHEMA, CATALOG_SCHEMA, FixedInput, ModelCatalog } from '../catalog/catalog.ts';
import { GENERATION_ANSWERS_SCHEMA, GenerationAnswers } from '../generation/generation-answers.ts';
import { PROMPT_SET_SCHEMA, PromptSet } from '../generation/prompt-set.ts';
import { PUBLIC_PASS_SCHEMA, PublicPassRecord } from '../automation/public-pass.ts';
import { DEVICE_REVIEW_SCHEMA, DeviceReview } from '../evidence/device-review.ts';
import { LLM_CONFIGS_SCHEMA, LlmConfigs } from '../evidence/memory-fit.ts';
import { BUDGET_PROFILES_SCHEMA, BudgetProfiles } from '../evidence/profiles.ts';
import { RECEIPTS_SUMMARY_SCHEMA, ReceiptsSummary } from '../evidence/receipts-summary.ts';
import { CompareReport } from '../scoring/compare-report.ts';
import { ScoreReport } from '../scoring/score-report.ts';
import { SUITE_MANIFEST_SCHEMA, SuiteManifest } from '../suite/suite-manifest.ts';
import { PROTOCOL_SCHEMA, Protocol } from '../field/field-protocol.ts';
import { RECEIPT_BUNDLE_SCHEMA, ReceiptBundle } from '../field/receipt-bundle.ts';
import { ANSWER_CASES_SCHEMA, AnswerCases } from '../generation/answer-cases.ts';
import { ANSWER_SCORE_SCHEMA, AnswerScoreReport } from '../answers/answer-score.ts';
import { checkAnswerScoreReport } from '../answers/answer-score-invariants.ts';
import { ANSWER_REVIEW_SCHEMA, AnswerReview } from '../answers/answer-review.ts';
import { GATE_PLAN_SCHEMA, GatePlan, LICENCE_REVIEW_SCHEMA, LicenceReview } from '../gate/gate-plan.ts';
import { GATE_REPORT_SCHEMA, GateReport } from '../gate/escalation.ts';
import { checkReceiptsSummary } from '../evidence/summary-invariants.ts';
import { checkScoreReport } from '../scoring/score-report-invariants.ts';
import { checkCompareReport } from '../scoring/compare-report-invariants.ts';
import { checkBundleFacts } from './artifact-invariants.ts';
import { DATASET_CARD_SCHEMA, DatasetCard } from '../dataset/dataset-card.ts';
import { LEADERBOARD_META_SCHEMA, LeaderboardMeta } from '../leaderboard/leaderboard-meta.ts';

/** A non-receipt artifact kind: what it is (for messages), its zod schema, and its cross-field rules. */
export interface ArtifactKind {
  what: string;
  schema: z.ZodType;
  /**
   * Contradictions inside a schema-valid value (src/core/validation/artifact-invariants.ts and the kinds' own):
   * `parsed` is zod's output, `raw` the value exactly as JSON.parse gave it.
   */
  check?: (parsed: never, raw: unknown) => Array<{ path: string; message: string }>;
}

/** Non-receipt artifacts by schema id. */
export const ARTIFACT_SCHEMAS: ReadonlyMap<string, ArtifactKind> = new Map<string, ArtifactKind>([
  [
    RECEIPTS_SUMMARY_SCHEMA,
    { what: 'a receipts summary (drb receipts summarize)', schema: ReceiptsSummary, check: checkReceiptsSummary },
  ],
  [DEVICE_REVIEW_SCHEMA, { what: "a reviewer's answers (drb receipts review)", schema: DeviceReview }],
  [PUBLIC_PASS_SCHEMA, { what: 'a public-pass record (drb public-pass)', schema: PublicPassRecord }],
  ['drb.score-report.v2', { what: 'a score report (drb score)', schema: ScoreReport, check: checkScoreReport }],
  [
    'drb.compare-report.v1',
    { what: 'a comparison report (drb compare)', schema: CompareReport, check: checkCompareReport },
  ],
  [GENERATION_ANSWERS_SCHEMA, { what: "a generation run's answers", schema: GenerationAnswers }],
  [PROMPT_SET_SCHEMA, { what: 'a prompt set', schema: PromptSet }],
  [SUITE_MANIFEST_SCHEMA, { what: 'a suite manifest', schema: SuiteManifest }],
  [CATALOG_SCHEMA, { what: 'the model catalog', schema: ModelCatalog }],
  [FIXED_INPUT_SCHEMA, { what: 'a fixed model input', schema: FixedInput }],
  [BUDGET_PROFILES_SCHEMA, { what: 'budget profiles', schema: BudgetProfiles }],
  [LLM_CONFIGS_SCHEMA, { what: 'LLM memory configs', schema: LlmConfigs }],
  [PROTOCOL_SCHEMA, { what: 'a protocol file (public/protocols/<id>.json)', schema: Protocol }],
  // The bundle's envelope and session sheet; the receipts it holds are read and checked one by one as receipts.
  [
    RECEIPT_BUNDLE_SCHEMA,
    { what: "a receipt bundle (the page's session export)", schema: ReceiptBundle, check: checkBundleFacts },
  ],
  [ANSWER_CASES_SCHEMA, { what: 'an answer-case set', schema: AnswerCases }],
  [
    ANSWER_SCORE_SCHEMA,
    { what: 'an answer score report (drb score-answers)', schema: AnswerScoreReport, check: checkAnswerScoreReport },
  ],
  [ANSWER_REVIEW_SCHEMA, { what: "a reviewer's labels of generated answers", schema: AnswerReview }],
  [GATE_PLAN_SCHEMA, { what: 'an escalation gate plan', schema: GatePlan }],
  [GATE_REPORT_SCHEMA, { what: 'a gate report (drb gate escalation)', schema: GateReport }],
  [LICENCE_REVIEW_SCHEMA, { what: 'a licence and NOTICE review', schema: LicenceReview }],
  [DATASET_CARD_SCHEMA, { what: 'a dataset card (drb receipts export)', schema: DatasetCard }],
  [
    LEADERBOARD_META_SCHEMA,
    { what: 'a leaderboard governance file (drb leaderboard --meta)', schema: LeaderboardMeta },
  ],
]);

/** Schema ids of artifacts an earlier drb wrote, with the one that replaced them. */
export const RETIRED_ARTIFACT_SCHEMAS: ReadonlyMap<string, string> = new Map([
  ['drb.receipts-summary.v1', RECEIPTS_SUMMARY_SCHEMA],
  ['drb.receipts-summary.v2', RECEIPTS_SUMMARY_SCHEMA],
  ['drb.score-report.v1', 'drb.score-report.v2'],
]);
