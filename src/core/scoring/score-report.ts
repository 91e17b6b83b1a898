import { z } from 'zod';
import type { Utf8Decoder } from '../artifacts/artifact-error.ts';
import { ItemFormat, ItemLabel, parseItems, type ItemRow } from '../artifacts/items.ts';
import { parsePredictions, type PredictionRow } from '../artifacts/predictions.ts';
import { SHA256_PATTERN, sha256Hex } from '../sha256.ts';
import { DatasetInfo, resolveDataset, type DeclaredDataset } from './dataset.ts';
import { computeMetrics, DeclaredValues, diagnoseErrors, ErrorDiagnosis, ScoreMetrics, summarizeDeclared } from './metrics.ts';
import { indexPredictions, scoreRows, type RowOutcome } from './score-rows.ts';

/** Which tool produced a report. */
export const ToolInfo = z.strictObject({ name: z.literal('device-receipts-bench'), version: z.string() });
export type ToolInfo = z.infer<typeof ToolInfo>;

/** A scored input file: its base name (so the report does not depend on where the file sat), size and hash. */
export const InputFileInfo = z.strictObject({
  file: z.string(),
  bytes: z.number().int().min(0),
  sha256: z.string().regex(SHA256_PATTERN),
  rows: z.number().int().min(0),
});
export type InputFileInfo = z.infer<typeof InputFileInfo>;

/** One item row's outcome in a `--per-row` report. */
export const PerRowEntry = z.strictObject({
  id: z.string(),
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

/** One input artifact as the scorer receives it. */
export interface ArtifactBytes {
  /** the raw file bytes (hashed as they are, BOM included) */
  bytes: Uint8Array;
  /** the name used in error messages (the path as the user gave it) */
  fileName: string;
  /** the name recorded in the report (the base name) */
  reportName: string;
  /** a faster platform UTF-8 decoder for `bytes`, if the caller has one (see decodeJsonBytes); else TextDecoder */
  fastDecode?: Utf8Decoder;
  /**
   * a platform SHA-256 (lowercase hex) that hashes `bytes` where they are, if the caller has one; else Web Crypto,
   * which first copies them (94 MB for the benchmark files)
   */
  fastSha256?: (bytes: Uint8Array) => string;
}

/**
 * Starts hashing an artifact's raw bytes (callers start early: Web Crypto digests off the main thread).
 * @param source the artifact; its `fastSha256` is used when present
 */
export function startArtifactHash(source: ArtifactBytes): Promise<string> {
  return source.fastSha256 !== undefined ? Promise.resolve(source.fastSha256(source.bytes)) : sha256Hex(source.bytes);
}

/** Everything a score run needs besides the files. */
export interface ScoreOptions {
  format: ItemFormat;
  /** K >= 1 */
  candidateLimit: number;
  declared: DeclaredDataset;
  toolVersion: string;
  /** include one entry per item row */
  perRow: boolean;
}

/** Items parsed and receipted once, so `compare` can score two runs against the very same bytes. */
export interface LoadedItems {
  source: ArtifactBytes;
  rows: ItemRow[];
  info: InputFileInfo;
}

/**
 * Parses and hashes an items file.
 * @param source the items file
 * @param format its layout
 * @param sha256 the file's hash if already started (hashing runs off the main thread, so callers start it early)
 * @throws ArtifactError when the file is bad
 */
export async function loadItems(source: ArtifactBytes, format: ItemFormat, sha256 = startArtifactHash(source)): Promise<LoadedItems> {
  const rows = parseItems(source.bytes, source.fileName, format, source.fastDecode);
  return { source, rows, info: await fileInfo(source, rows.length, sha256) };
}

/** A predictions file parsed, hashed and scored against loaded items. */
export interface ScoredRun {
  info: InputFileInfo;
  predictions: PredictionRow[];
  outcomes: RowOutcome[];
  metrics: ScoreMetrics;
}

/**
 * Parses, hashes and scores one predictions file against loaded items.
 * @param items the loaded items
 * @param source the predictions file
 * @param candidateLimit K
 * @param sha256 the file's hash if already started
 * @throws ArtifactError when the file is bad or a prediction id names no item row
 */
export async function scoreRun(
  items: LoadedItems,
  source: ArtifactBytes,
  candidateLimit: number,
  sha256 = startArtifactHash(source),
): Promise<ScoredRun> {
  const predictions = parsePredictions(source.bytes, source.fileName, source.fastDecode);
  const byRow = indexPredictions(items.rows, predictions, source.fileName, items.source.fileName);
  const outcomes = scoreRows(items.rows, byRow, candidateLimit);
  return { info: await fileInfo(source, predictions.length, sha256), predictions, outcomes, metrics: computeMetrics(outcomes, candidateLimit) };
}

/**
 * The whole of `drb score` minus the file system: parse both artifacts, hash them, score, build the report.
 * @param items the items file
 * @param predictions the predictions file
 * @param options format, K, declared dataset identity, tool version, per-row switch
 * @throws ArtifactError for a bad input file; DatasetFlagError for flags that contradict the AJIMEE pin
 */
export async function buildScoreReport(items: ArtifactBytes, predictions: ArtifactBytes, options: ScoreOptions): Promise<ScoreReport> {
  // Both hashes start first: Web Crypto digests off the main thread, so they overlap with parsing and scoring.
  const predictionsSha256 = startArtifactHash(predictions);
  const loaded = await loadItems(items, options.format);
  const run = await scoreRun(loaded, predictions, options.candidateLimit, predictionsSha256);
  const report: ScoreReport = {
    schema: 'drb.score-report.v2',
    evidence_state: 'LOCAL_EVALUATION',
    tool: { name: 'device-receipts-bench', version: options.toolVersion },
    dataset: resolveDataset(options.format, loaded.info.sha256, options.declared),
    inputs: { items: loaded.info, predictions: run.info },
    candidate_limit: options.candidateLimit,
    metrics: run.metrics,
    diagnosis: diagnoseErrors(run.metrics),
    declared: summarizeDeclared(run.predictions),
  };
  if (options.perRow) report.per_row = run.outcomes.map(perRowEntry);
  return report;
}

/** A row outcome in the report's snake_case shape. */
export function perRowEntry(outcome: RowOutcome): PerRowEntry {
  return {
    id: outcome.id,
    label: outcome.label,
    abstained: outcome.abstained,
    correct: outcome.correct,
    rank: outcome.rank,
    input_min_cer: outcome.inputMinCer,
    effective_min_cer: outcome.effectiveMinCer,
    change: outcome.change,
    candidates_supplied: outcome.candidatesSupplied,
    overcorrected: outcome.overcorrected,
  };
}

async function fileInfo(source: ArtifactBytes, rows: number, sha256: Promise<string>): Promise<InputFileInfo> {
  return { file: source.reportName, bytes: source.bytes.byteLength, sha256: await sha256, rows };
}
