import { z } from 'zod';
import { ArtifactError, checkArtifactSize, quoteId, type Utf8Decoder } from '../artifacts/artifact-error.ts';
import { itemRowsOf, itemTableOf, readItemTable, type ItemTable } from '../artifacts/item-table.ts';
import { ItemFormat, ItemLabel, parseItems, type ItemRow } from '../artifacts/items.ts';
import { matchPredictions, predictionId, predictionTableOf, readPredictionTable, type PredictionTable } from '../artifacts/prediction-table.ts';
import { parsePredictions, parsePredictionsValue } from '../artifacts/predictions.ts';
import { SHA256_PATTERN, sha256Hex } from '../sha256.ts';
import { DatasetInfo, resolveDataset, type DeclaredDataset } from './dataset.ts';
import { computeMetrics, DeclaredValues, diagnoseErrors, ErrorDiagnosis, ScoreMetrics, summarizeDeclaredTable } from './metrics.ts';
import { scoreTables, type RowOutcome } from './score-rows.ts';

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
  /**
   * a faster platform UTF-8 decoder for `bytes`, if the caller has one (see decodeJsonBytes); else TextDecoder. Only
   * files the byte readers decline (see item-table.ts) are decoded to a string at all.
   */
  fastDecode?: Utf8Decoder;
  /**
   * the SHA-256 of `bytes` (lowercase hex) when the caller already has it (the CLI hashes each chunk as it reads it);
   * else Web Crypto hashes them here
   */
  sha256?: string;
}

/**
 * Starts hashing an artifact's raw bytes (callers start early: Web Crypto digests off the main thread).
 * @param source the artifact; its `sha256` is used when present
 */
export function startArtifactHash(source: ArtifactBytes): Promise<string> {
  return source.sha256 !== undefined ? Promise.resolve(source.sha256) : sha256Hex(source.bytes);
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
  /** the rows as the scorer works on them */
  table: ItemTable;
  /** the same rows as objects, made on first use (the scorer never needs them) */
  readonly rows: ItemRow[];
  info: InputFileInfo;
}

/**
 * Parses and hashes an items file. The bytes are read once, by the byte reader; only a file it declines (a problem,
 * or an unusual but valid shape) goes through parseItems, which names the problem or reads the file.
 * @param source the items file
 * @param format its layout
 * @param sha256 the file's hash if already started (hashing runs off the main thread, so callers start it early)
 * @throws ArtifactError when the file is bad
 */
export async function loadItems(source: ArtifactBytes, format: ItemFormat, sha256 = startArtifactHash(source)): Promise<LoadedItems> {
  checkArtifactSize(source.bytes, source.fileName);
  let rows: ItemRow[] | undefined;
  let table = readItemTable(source.bytes, format);
  if (table === undefined) {
    rows = parseItems(source.bytes, source.fileName, format, source.fastDecode);
    table = itemTableOf(rows);
  }
  const info = await fileInfo(source, table.rows, sha256);
  const loaded = table;
  return {
    source,
    table,
    get rows() {
      rows ??= itemRowsOf(loaded);
      return rows;
    },
    info,
  };
}

/** A predictions file lined up with the item rows. */
export interface MatchedPredictions {
  table: PredictionTable;
  /** for each item row, the index of its prediction row, or -1 */
  byRow: Int32Array;
}

/**
 * Reads a predictions file and lines it up with the items, as loadItems does (byte reader first, zod for the rest).
 * @param items the loaded items
 * @param source the predictions file
 * @param value the file already parsed by JSON.parse, for callers that had to look inside it first
 * @throws ArtifactError when the file is bad or a prediction id names no item row
 */
export function matchPredictionsFile(items: LoadedItems, source: ArtifactBytes, value?: unknown): MatchedPredictions {
  if (value === undefined) checkArtifactSize(source.bytes, source.fileName);
  const fast = value === undefined ? readPredictionTable(source.bytes) : undefined;
  if (fast !== undefined) {
    const match = matchPredictions(items.table, fast);
    // An unknown or repeated id: the zod path below finds which problem comes first, as it always did.
    if (match.problem < 0) return { table: fast, byRow: match.byRow };
  }
  const rows = value === undefined ? parsePredictions(source.bytes, source.fileName, source.fastDecode) : parsePredictionsValue(value, source.fileName);
  const table = predictionTableOf(rows);
  const match = matchPredictions(items.table, table);
  if (match.problem >= 0) {
    // parsePredictions has refused repeated ids, so the problem is an id that names no item row.
    const id = predictionId(table, match.problem);
    throw new ArtifactError(source.fileName, `id ${quoteId(id)}`, `names no item row in ${items.source.fileName}`);
  }
  return { table, byRow: match.byRow };
}

/** A predictions file parsed, hashed and scored against loaded items. */
export interface ScoredRun {
  info: InputFileInfo;
  predictions: PredictionTable;
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
  const { table, byRow } = matchPredictionsFile(items, source);
  const outcomes = scoreTables(items.table, table, byRow, candidateLimit);
  return { info: await fileInfo(source, table.rows, sha256), predictions: table, outcomes, metrics: computeMetrics(outcomes, candidateLimit) };
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
    declared: summarizeDeclaredTable(run.predictions),
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
