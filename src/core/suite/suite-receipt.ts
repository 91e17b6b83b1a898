/**
 * The suite receipt (`drb.suite-receipt.v2`): what one suite run on one device measured. Like the device receipt it
 * holds no text: the two input artifacts appear only as file name, size, row count and SHA-256; the predictions
 * only as their SHA-256. Engine, route, model and capabilities reuse the device receipt's schemas.
 */
import { z } from 'zod';
import { Detail, Identifier, ReceiptId, textLine } from '../text/bounded-text.ts';
import {
  AppInfo,
  Capabilities,
  EngineInfo,
  InterruptedRun,
  RunOverlap,
  IsoTime,
  ModelInfo,
  ReceiptError,
  Route,
  RuntimeInfo,
  SampleStats,
} from '../receipt/receipt.ts';
import { ItemFormat } from '../artifacts/items.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';
import { summarize } from '../stats/stats.ts';
import { AbstentionPolicy } from './abstention-policy.ts';

/** The schema string inside every suite receipt. */
export const SUITE_RECEIPT_SCHEMA = 'drb.suite-receipt.v2';

const Sha256 = z.string().regex(SHA256_PATTERN, 'expected a lowercase hex SHA-256');
const Ms = z.number().finite().nonnegative();
const Count = z.number().int().nonnegative();

/** One input artifact, by its facts only. */
export const SuiteArtifactRef = z.strictObject({
  file_name: textLine(255),
  bytes: Count,
  sha256: Sha256,
  rows: Count,
});

/** The stages a suite run goes through; `validate` fails before any model is touched. */
export const SuiteStage = z.enum(['validate', 'load', 'inference']);
export type SuiteStage = z.infer<typeof SuiteStage>;

/** One suite run on one device (see docs/suites.md for every field). */
export const SuiteReceipt = z.strictObject({
  schema: z.literal(SUITE_RECEIPT_SCHEMA),
  receipt_id: ReceiptId,
  created_at: IsoTime,
  evidence_state: z.literal('DEVICE_RECEIPT'),
  app: AppInfo,
  suite: z.strictObject({
    /** The shipped suite's id (public/suites/<id>/), or null for files the user picked. */
    id: Identifier.nullable(),
    format: ItemFormat,
    items: SuiteArtifactRef,
    candidates: SuiteArtifactRef,
    /** Which scoring text was built from each row (see scoring-text.ts). */
    text_template: textLine(256),
  }),
  engine: EngineInfo,
  task: z.enum(['rerank', 'score-candidates']),
  /** Declared in every prediction row: `deberta` for cross-encoders, `lfm` for LLM scoring. */
  provenance: z.enum(['deberta', 'lfm']),
  policy: AbstentionPolicy,
  route: Route,
  model: ModelInfo,
  /** The runtime build the load used and its files with the `.wasm`'s SHA-256, as in device receipts (build null and
   *  no files when the load did not complete, or for WebLLM); absent in receipts written before it. */
  runtime: RuntimeInfo.optional(),
  rows: z.strictObject({
    total: Count,
    /** Rows finished (ranked or abstained); equals total on an ok run. */
    done: Count,
    accepted: Count,
    low_margin: Count,
    single_candidate: Count,
    no_candidates: Count,
  }),
  timings: z.strictObject({
    /** Model fetch + runtime fetch + session creation (cold), kept apart from the per-row statistics. */
    model_load_ms: Ms.nullable(),
    /** One sample per row that ran inference (rows with at least one candidate), in items-file order. */
    row_latency_samples_ms: z.array(Ms),
    row_latency_stats: SampleStats.nullable(),
    total_ms: Ms,
  }),
  /** The predictions artifact this run offered (null when the run failed before producing one). */
  predictions: z.strictObject({ sha256: Sha256, bytes: Count, rows: Count }).nullable(),
  /** The journal's interrupted run this run found pending at its start (see docs/interrupted-runs.md), or null. */
  previous_run_interrupted: InterruptedRun.nullable(),
  /** Another run during this one (see RunOverlap in src/core/receipt/receipt.ts); absent in receipts made before the page
   *  watched for it. */
  overlap: RunOverlap.optional(),
  capabilities: Capabilities.nullable(),
  errors: z.array(ReceiptError.extend({ stage: SuiteStage.nullable() })),
  outcome: z.strictObject({
    status: z.enum(['ok', 'failed']),
    reason: Detail.nullable(),
    failed_stage: SuiteStage.nullable(),
  }),
});
export type SuiteReceipt = z.infer<typeof SuiteReceipt>;

/** One broken suite-receipt invariant: field path and problem. */
export interface SuiteProblem {
  path: string;
  message: string;
}

/**
 * Invariants beyond the schema: statistics recomputed from samples, row counts that add up, an ok run that
 * finished every row and produced predictions, a failed run that says why.
 * @param receipt a schema-valid suite receipt
 */
export function checkSuiteReceipt(receipt: SuiteReceipt): SuiteProblem[] {
  const problems: SuiteProblem[] = [];
  const { rows, timings, outcome } = receipt;
  const recomputed = summarize(timings.row_latency_samples_ms);
  if (recomputed === null) {
    if (timings.row_latency_stats !== null)
      problems.push({ path: 'timings.row_latency_stats', message: 'statistics given without samples' });
  } else if (timings.row_latency_stats === null) {
    problems.push({ path: 'timings.row_latency_stats', message: 'samples given without statistics' });
  } else {
    for (const key of ['count', 'median', 'p95', 'min', 'max', 'mean'] as const) {
      const a = timings.row_latency_stats[key];
      const b = recomputed[key];
      if (Math.abs(a - b) > 1e-6 * Math.max(1, Math.abs(a), Math.abs(b))) {
        problems.push({ path: `timings.row_latency_stats.${key}`, message: `is ${a} but the samples give ${b}` });
      }
    }
  }
  const finished = rows.accepted + rows.low_margin + rows.single_candidate + rows.no_candidates;
  if (finished !== rows.done)
    problems.push({ path: 'rows.done', message: `is ${rows.done} but the reason counts add up to ${finished}` });
  if (rows.done > rows.total) problems.push({ path: 'rows.done', message: `exceeds rows.total (${rows.total})` });
  if (timings.row_latency_samples_ms.length !== rows.done - rows.no_candidates) {
    problems.push({
      path: 'timings.row_latency_samples_ms',
      message: `holds ${timings.row_latency_samples_ms.length} samples but ${rows.done - rows.no_candidates} rows ran inference`,
    });
  }
  if (rows.total !== receipt.suite.items.rows)
    problems.push({ path: 'rows.total', message: 'differs from the items row count' });
  if (outcome.status === 'ok') {
    if (rows.done !== rows.total) problems.push({ path: 'rows.done', message: 'an ok run finishes every row' });
    if (receipt.predictions === null)
      problems.push({ path: 'predictions', message: 'an ok run offers a predictions artifact' });
    else if (receipt.predictions.rows !== rows.total)
      problems.push({ path: 'predictions.rows', message: 'differs from rows.total' });
    if (outcome.reason !== null || outcome.failed_stage !== null)
      problems.push({ path: 'outcome.reason', message: 'an ok outcome carries no failure' });
    if (receipt.model.integrity === 'mismatch')
      problems.push({ path: 'outcome.status', message: 'is "ok" despite an integrity mismatch' });
  } else {
    if (outcome.reason === null || outcome.reason.trim() === '')
      problems.push({ path: 'outcome.reason', message: 'a failed run must say why' });
    if (receipt.predictions !== null)
      problems.push({ path: 'predictions', message: 'a failed run offers no predictions' });
  }
  return problems;
}
