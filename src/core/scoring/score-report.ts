import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';
import { ItemLabel } from '../artifacts/items.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';

// The JSON report `drb score` writes, as zod schemas (the published JSON Schema is generated from them). The code
// that makes a report is in score-run.ts, which never loads zod: its start-up counts in drb score's time.

const Rate = z.number().min(0).max(1);
const Count = z.number().int().min(0);

/**
 * The metrics of one scored run. The first fourteen keys are the headline metrics (docs/scoring.md); the rest are the counts
 * behind them, so every rate can be re-derived from the report. Rates are fractions in [0, 1].
 */
export const ScoreMetrics = z.strictObject({
  rows: Count.min(1),
  effective_acc_at_1: Rate,
  candidate_recall_at_k: Rate,
  mean_input_min_cer: z.number().min(0),
  mean_effective_min_cer: z.number().min(0),
  abstention_rate: Rate,
  accepted_accuracy: Rate.nullable(),
  overcorrection_rate: Rate.nullable(),
  improved: Count,
  worsened: Count,
  unchanged: Count,
  accepted_candidate_miss: Count,
  selection_error: Count,
  mrr_at_k: Rate,
  reranking_headroom: z.number().min(-1).max(1),
  correct_rows: Count,
  candidate_recall_hits: Count,
  abstained_rows: Count,
  clean_rows: Count,
  overcorrected_rows: Count,
  rows_over_candidate_limit: Count,
});
export type ScoreMetrics = z.infer<typeof ScoreMetrics>;

/** Which error kind dominates among non-abstained rows, and what that means for trying a larger reranker. */
export const ErrorDiagnosis = z.strictObject({
  dominant_error: z.enum(['selection_error', 'candidate_miss', 'tie', 'none']),
  text: detailText(4096),
});
export type ErrorDiagnosis = z.infer<typeof ErrorDiagnosis>;

/** Values the predictions artifact declares about itself. Reported, never used by a metric, never verified. */
export const DeclaredValues = z.strictObject({
  note: detailText(4096),
  prediction_rows: Count,
  provenance: z.strictObject({
    provider: Count,
    deberta: Count,
    lfm: Count,
    rule: Count,
    unspecified: Count,
    absent: Count,
  }),
  reasons: z.array(z.strictObject({ reason: detailText(4096), count: Count.min(1) })),
  reason_absent: Count,
  margin: z.strictObject({ count: Count, mean: z.number().nullable() }),
});
export type DeclaredValues = z.infer<typeof DeclaredValues>;

/**
 * How the dataset identity in a report was established:
 * `declared` (generic format: taken from the flags as given), `pinned-sha256-match` (AJIMEE format and the item bytes
 * hash to the pinned value: official values attached), `compatible-unverified` (AJIMEE field names, other bytes).
 */
export const DatasetVerification = z.enum(['declared', 'pinned-sha256-match', 'compatible-unverified']);
export type DatasetVerification = z.infer<typeof DatasetVerification>;

/** The dataset block of a report. A null field was not declared. */
export const DatasetInfo = z.strictObject({
  name: detailText(4096).nullable(),
  revision: detailText(4096).nullable(),
  license: detailText(4096).nullable(),
  format: z.enum(['generic', 'ajimee']),
  verification: DatasetVerification,
  pinned_sha256: detailText(4096).nullable(),
});
export type DatasetInfo = z.infer<typeof DatasetInfo>;

/** Which tool produced a report. */
export const ToolInfo = z.strictObject({ name: z.literal('device-receipts-bench'), version: detailText(4096) });
export type ToolInfo = z.infer<typeof ToolInfo>;

/** A scored input file: its base name (so the report does not depend on where the file sat), size and hash. */
export const InputFileInfo = z.strictObject({
  file: detailText(4096),
  bytes: z.number().int().min(0),
  sha256: z.string().regex(SHA256_PATTERN),
  rows: z.number().int().min(0),
});
export type InputFileInfo = z.infer<typeof InputFileInfo>;

/** One item row's outcome in a `--per-row` report. */
export const PerRowEntry = z.strictObject({
  id: detailText(4096),
  label: ItemLabel,
  abstained: z.boolean(),
  correct: z.boolean(),
  rank: z.number().int().min(1).nullable(),
  input_min_cer: z.number().min(0),
  effective_min_cer: z.number().min(0),
  change: z.enum(['improved', 'worsened', 'unchanged']),
  candidates_supplied: z.number().int().min(0),
  /** a `clean` row whose effective output differs from its input (always false for other labels) */
  overcorrected: z.boolean(),
});
export type PerRowEntry = z.infer<typeof PerRowEntry>;

/** The JSON report `drb score` writes (`schema: drb.score-report.v2`). Contains no timestamp: same inputs, same bytes. */
export const ScoreReport = z.strictObject({
  schema: z.literal('drb.score-report.v2'),
  evidence_state: z.literal('LOCAL_EVALUATION'),
  tool: ToolInfo,
  dataset: DatasetInfo,
  inputs: z.strictObject({ items: InputFileInfo, predictions: InputFileInfo }),
  candidate_limit: z.number().int().min(1),
  metrics: ScoreMetrics,
  diagnosis: ErrorDiagnosis,
  declared: DeclaredValues,
  per_row: z.array(PerRowEntry).optional(),
});
export type ScoreReport = z.infer<typeof ScoreReport>;
