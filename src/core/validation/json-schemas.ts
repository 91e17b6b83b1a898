import { z } from 'zod';
import { AjimeeItemsFile, GenericItemsFile } from '../artifacts/items.ts';
import { PredictionsFile } from '../artifacts/predictions.ts';
import { CompareReport } from '../scoring/compare-report.ts';
import { ScoreReport } from '../scoring/score-report.ts';
import { DeviceReview } from '../evidence/device-review.ts';
import { BudgetProfiles } from '../evidence/profiles.ts';
import { ReceiptsSummary } from '../evidence/receipts-summary.ts';
import { DeviceReceipt } from '../receipt/receipt.ts';
import { ModelCatalog } from '../catalog/catalog.ts';
import { CandidatesFile } from '../suite/candidates.ts';
import { SuiteManifest } from '../suite/suite-manifest.ts';
import { SuiteReceipt } from '../suite/suite-receipt.ts';
import { PromptSet } from '../generation/prompt-set.ts';
import { GenerationReceipt } from '../generation/generation-receipt.ts';
import { GenerationAnswers } from '../generation/generation-answers.ts';
import { ComparisonReceipt } from '../comparison/comparison-receipt.ts';
import { SweepReceipt } from '../comparison/sweep-receipt.ts';
import { PublicPassRecord, PublicPassRecordV1 } from '../automation/public-pass.ts';
import { Protocol } from '../field/field-protocol.ts';
import { ReceiptBundle } from '../field/receipt-bundle.ts';
import { AnswerCases } from '../generation/answer-cases.ts';
import { AnswerScoreReport } from '../answers/answer-score.ts';
import { AnswerReview } from '../answers/answer-review.ts';
import { GatePlan, LicenceReview } from '../gate/gate-plan.ts';
import { GateReport } from '../gate/escalation.ts';
import { DatasetCard } from '../dataset/dataset-card.ts';
import { LeaderboardMeta } from '../leaderboard/leaderboard-meta.ts';

/**
 * Every artifact schema published as JSON Schema under docs/schemas/. Each entry pairs the committed file name with
 * the zod schema it is generated from (zod is the source of truth; `drb schemas` regenerates the files and a unit
 * test checks that the committed files match). Helpers add their artifacts here with one line each.
 */
export const jsonSchemaSources: { fileName: string; schema: z.ZodType }[] = [
  { fileName: 'items-generic.schema.json', schema: GenericItemsFile.meta({ title: 'drb generic items file' }) },
  {
    fileName: 'items-ajimee.schema.json',
    schema: AjimeeItemsFile.meta({ title: 'AJIMEE-Bench evaluation_items.json (fields drb reads)' }),
  },
  { fileName: 'predictions.schema.json', schema: PredictionsFile.meta({ title: 'drb predictions file' }) },
  { fileName: 'score-report.schema.json', schema: ScoreReport.meta({ title: 'drb.score-report.v2 (drb score)' }) },
  {
    fileName: 'compare-report.schema.json',
    schema: CompareReport.meta({ title: 'drb.compare-report.v1 (drb compare)' }),
  },
  {
    fileName: 'receipts-summary.schema.json',
    schema: ReceiptsSummary.meta({ title: 'drb.receipts-summary.v3 (drb receipts summarize)' }),
  },
  {
    fileName: 'device-review.schema.json',
    schema: DeviceReview.meta({ title: 'drb.device-review.v1 (drb receipts review --answers)' }),
  },
  {
    fileName: 'device-receipt.schema.json',
    schema: DeviceReceipt.meta({ title: 'drb.device-receipt.v2 (one cold or warm run on one device)' }),
  },
  {
    fileName: 'model-catalog.schema.json',
    schema: ModelCatalog.meta({ title: 'drb.model-catalog.v1 (src/catalog/catalog.json)' }),
  },
  {
    fileName: 'candidates.schema.json',
    schema: CandidatesFile.meta({ title: 'drb candidates file ([{id, candidates}], input of a suite run)' }),
  },
  {
    fileName: 'suite-receipt.schema.json',
    schema: SuiteReceipt.meta({ title: 'drb.suite-receipt.v2 (one suite run on one device)' }),
  },
  {
    fileName: 'suite-manifest.schema.json',
    schema: SuiteManifest.meta({ title: 'drb.suite-manifest.v1 (public/suites/<id>/suite.json)' }),
  },
  {
    fileName: 'prompt-set.schema.json',
    schema: PromptSet.meta({ title: 'drb.prompt-set.v1 (public/prompts/<id>.json, the prompts of a generation run)' }),
  },
  {
    fileName: 'generation-receipt.schema.json',
    schema: GenerationReceipt.meta({
      title: 'drb.generation-receipt.v2 (one generation run on one device; timings only, no text)',
    }),
  },
  {
    fileName: 'generation-answers.schema.json',
    schema: GenerationAnswers.meta({
      title: 'drb.generation-answers.v1 (the answers of a generation run, a separate explicit download)',
    }),
  },
  {
    fileName: 'comparison-receipt.schema.json',
    schema: ComparisonReceipt.meta({
      title: 'drb.comparison-receipt.v2 (execution routes compared side by side, ratios with bootstrap intervals)',
    }),
  },
  {
    fileName: 'sweep-receipt.schema.json',
    schema: SweepReceipt.meta({
      title:
        'drb.sweep-receipt.v1 (two routes over a ladder of work sizes: a ratio per size and the crossover, with bootstrap intervals)',
    }),
  },
  {
    fileName: 'public-pass.schema.json',
    schema: PublicPassRecord.meta({
      title:
        'drb.public-pass.v2 (drb public-pass: a deployed page run anonymously, in a browser started fresh or behind a WebDriver or CDP endpoint)',
    }),
  },
  {
    fileName: 'public-pass-v1.schema.json',
    schema: PublicPassRecordV1.meta({
      title: 'drb.public-pass.v1 (drb public-pass records written before the remote lanes; still validated)',
    }),
  },
  {
    fileName: 'protocol.schema.json',
    schema: Protocol.meta({ title: 'drb.protocol.v1 (public/protocols/<id>.json, the target of protocol mode)' }),
  },
  {
    fileName: 'receipt-bundle.schema.json',
    schema: ReceiptBundle.meta({
      title:
        "drb.receipt-bundle.v1 (a tester's session: receipts as the page made them, each valid by its own schema, plus the session sheet)",
    }),
  },
  {
    fileName: 'budget-profiles.schema.json',
    schema: BudgetProfiles.meta({ title: 'drb.budget-profiles.v1 (src/core/evidence/profiles.v1.json)' }),
  },
  {
    fileName: 'answer-cases.schema.json',
    schema: AnswerCases.meta({
      title: 'drb.answer-cases.v1 (public/prompts/<id>.json: questions with fixed evidence, claims, prohibited claims)',
    }),
  },
  {
    fileName: 'answer-score.schema.json',
    schema: AnswerScoreReport.meta({ title: 'drb.answer-score.v1 (drb score-answers)' }),
  },
  {
    fileName: 'answer-review.schema.json',
    schema: AnswerReview.meta({ title: "drb.answer-review.v1 (a reviewer's labels of generated answers)" }),
  },
  {
    fileName: 'gate-plan.schema.json',
    schema: GatePlan.meta({ title: 'drb.gate-plan.v1 (the escalation gate, frozen before results)' }),
  },
  {
    fileName: 'gate-report.schema.json',
    schema: GateReport.meta({ title: 'drb.gate-report.v1 (drb gate escalation)' }),
  },
  {
    fileName: 'licence-review.schema.json',
    schema: LicenceReview.meta({ title: 'drb.licence-review.v1 (a licence and NOTICE review of one model)' }),
  },
  {
    fileName: 'dataset-card.schema.json',
    schema: DatasetCard.meta({ title: 'drb.dataset-card.v1 (dataset.json of drb receipts export)' }),
  },
  {
    fileName: 'leaderboard-meta.schema.json',
    schema: LeaderboardMeta.meta({
      title:
        'drb.leaderboard-meta.v1 (drb leaderboard --meta: funding, donated devices, pre-release access, rerun reasons, maintainers)',
    }),
  },
];

/**
 * The text of each published JSON Schema file (2-space indented, trailing newline), in `jsonSchemaSources` order.
 * @param sources the schemas to render; defaults to every registered one
 */
export function renderJsonSchemaFiles(sources = jsonSchemaSources): { fileName: string; text: string }[] {
  return sources.map(({ fileName, schema }) => ({
    fileName,
    text: `${JSON.stringify(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }), null, 2)}\n`,
  }));
}
