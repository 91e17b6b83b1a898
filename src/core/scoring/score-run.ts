import {
  ArtifactError,
  checkArtifactSize,
  MAX_ARTIFACT_BYTES,
  quoteId,
  tooLargeError,
  type Utf8Decoder,
} from '../artifacts/artifact-error.ts';
import { ByteWindow, type ReadBytes } from '../artifacts/byte-window.ts';
import { itemRowsOf, itemTableOf, readItemTable, type ItemTable } from '../artifacts/item-table.ts';
import type { ItemFormat, ItemRow } from '../artifacts/items.ts';
import {
  DeclaredColumnsBuilder,
  matchPredictions,
  predictionId,
  predictionTableOf,
  readPredictionRows,
  type DeclaredColumns,
} from '../artifacts/prediction-table.ts';
import { sha256Hex } from '../bytes/sha256.ts';
import { resolveDataset, type DeclaredDataset } from './dataset.ts';
import { computeMetrics, diagnoseErrors, summarizeDeclaredTable } from './metrics.ts';
import type { InputFileInfo, PerRowEntry, ScoreMetrics, ScoreReport } from './score-report.ts';
import { RowScorer, scoreTables, type RowOutcome, type RowOutcomes } from './score-rows.ts';

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

/**
 * An input file the caller reads in pieces (the CLI does, for predictions), so that a large file never sits in
 * memory whole: the byte reader walks it through a window of about a megabyte (see byte-window.ts).
 */
export interface ArtifactStream {
  /** the name used in error messages (the path as the user gave it) */
  fileName: string;
  /** the name recorded in the report (the base name) */
  reportName: string;
  /** see ArtifactBytes */
  fastDecode?: Utf8Decoder;
  /** the file's size in bytes when it is known before reading (a larger file than MAX_ARTIFACT_BYTES is refused) */
  size: number | undefined;
  /** Reads the file from its start; may be called again (the zod path reads a declined file whole). */
  open(): ArtifactReader;
}

/** One reading of an ArtifactStream. */
export interface ArtifactReader {
  read: ReadBytes;
  /** After read has returned 0: the SHA-256 (lowercase hex) of every byte read. */
  sha256(): string;
}

/**
 * Reads a stream whole, for the zod path.
 * @throws ArtifactError when it is larger than MAX_ARTIFACT_BYTES
 */
export function readWhole(source: ArtifactStream): ArtifactBytes {
  if (source.size !== undefined && source.size > MAX_ARTIFACT_BYTES) throw tooLargeError(source.fileName, source.size);
  const reader = source.open();
  let bytes = new Uint8Array(source.size ?? 1 << 16);
  let length = 0;
  const spare = new Uint8Array(1 << 16);
  for (;;) {
    if (length < bytes.length) {
      const read = reader.read(bytes, length, bytes.length - length);
      if (read === 0) break;
      length += read;
      continue;
    }
    // Full: a larger buffer only if more bytes come (a file of the size it reported is never copied).
    const read = reader.read(spare, 0, spare.length);
    if (read === 0) break;
    if (length + read > MAX_ARTIFACT_BYTES) throw tooLargeError(source.fileName, undefined);
    const larger = new Uint8Array(Math.min(Math.max(2 * bytes.length, length + read), MAX_ARTIFACT_BYTES));
    larger.set(bytes.subarray(0, length));
    larger.set(spare.subarray(0, read), length);
    bytes = larger;
    length += read;
  }
  return {
    bytes: bytes.subarray(0, length),
    fileName: source.fileName,
    reportName: source.reportName,
    fastDecode: source.fastDecode,
    sha256: reader.sha256(),
  };
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
 * @param hashing the file's hash if already started (Web Crypto digests off the main thread, so callers start it early)
 * @throws ArtifactError when the file is bad
 */
export async function loadItems(
  source: ArtifactBytes,
  format: ItemFormat,
  hashing?: Promise<string>,
): Promise<LoadedItems> {
  checkArtifactSize(source.bytes, source.fileName);
  const sha256 = hashing ?? startArtifactHash(source);
  let rows: ItemRow[] | undefined;
  let table = readItemTable(source.bytes, format);
  if (table === undefined) {
    const { parseItems } = await import('../artifacts/items.ts'); // zod, loaded only for a declined file
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

/** A predictions file scored against loaded items. */
export interface ScoredRun {
  info: InputFileInfo;
  /** what the predictions declare about themselves, row by row */
  declared: DeclaredColumns;
  outcomes: RowOutcomes;
  metrics: ScoreMetrics;
}

/**
 * Reads, hashes and scores one predictions file against loaded items. The byte reader reads the file once, front
 * to back, scoring each row as it goes; only a file it declines (a problem, or an unusual but valid shape) is read
 * whole and goes through parsePredictions, which names the problem or reads the file.
 * @param items the loaded items
 * @param source the predictions file, whole or as a stream
 * @param candidateLimit K
 * @param sha256 the file's hash if already started (for a whole file hashed by Web Crypto, which callers start early)
 * @param value the file already parsed by JSON.parse, for callers that had to look inside it first
 * @throws ArtifactError when the file is bad or a prediction id names no item row
 */
export async function scoreRun(
  items: LoadedItems,
  source: ArtifactBytes | ArtifactStream,
  candidateLimit: number,
  sha256?: Promise<string>,
  value?: unknown,
): Promise<ScoredRun> {
  if (value === undefined) {
    const read = readAndScore(items, source, candidateLimit);
    if (read !== undefined) {
      const hash = read.sha256 ?? sha256 ?? startArtifactHash(source as ArtifactBytes);
      return {
        ...read.run,
        info: { file: source.reportName, bytes: read.bytes, sha256: await hash, rows: read.run.declared.rows },
      };
    }
  }
  const whole = 'bytes' in source ? source : readWhole(source);
  const { parsePredictions, parsePredictionsValue } = await import('../artifacts/predictions.ts'); // zod, loaded only here
  const rows =
    value === undefined
      ? parsePredictions(whole.bytes, whole.fileName, whole.fastDecode)
      : parsePredictionsValue(value, whole.fileName);
  const table = predictionTableOf(rows);
  const match = matchPredictions(items.table, table);
  if (match.problem >= 0) {
    // parsePredictions has refused repeated ids, so the problem is an id that names no item row.
    const id = predictionId(table, match.problem);
    throw new ArtifactError(whole.fileName, `id ${quoteId(id)}`, `names no item row in ${items.source.fileName}`);
  }
  const outcomes = scoreTables(items.table, table, match.byRow, candidateLimit);
  const hash = whole === source && sha256 !== undefined ? sha256 : startArtifactHash(whole);
  return {
    info: { file: whole.reportName, bytes: whole.bytes.byteLength, sha256: await hash, rows: table.rows },
    declared: table,
    outcomes,
    metrics: computeMetrics(outcomes, candidateLimit),
  };
}

/** The byte reader's pass over a predictions file (see scoreRun); undefined when it declines the file. */
function readAndScore(
  items: LoadedItems,
  source: ArtifactBytes | ArtifactStream,
  candidateLimit: number,
): { run: Omit<ScoredRun, 'info'>; bytes: number; sha256: Promise<string> | undefined } | undefined {
  let window: ByteWindow;
  let reader: ArtifactReader | undefined;
  if ('bytes' in source) {
    checkArtifactSize(source.bytes, source.fileName);
    window = ByteWindow.over(source.bytes);
  } else {
    if (source.size !== undefined && source.size > MAX_ARTIFACT_BYTES)
      throw tooLargeError(source.fileName, source.size);
    reader = source.open();
    window = ByteWindow.reading(reader.read);
  }
  const scorer = new RowScorer(items.table, candidateLimit);
  const declared = new DeclaredColumnsBuilder();
  const index = items.table.index;
  const margins = readPredictionRows(window, (row) => {
    const r = index.find(row.bytes, row.idStart, row.idEnd);
    // An unknown or repeated id: the zod path finds which problem comes first, as it always did.
    if (r < 0 || scorer.predicted(r)) return false;
    scorer.predict(r, row.bytes, row.candidates, 0, row.count);
    declared.add(row);
    return true;
  });
  if (margins === false) return undefined;
  if (window.bytesRead > MAX_ARTIFACT_BYTES) throw tooLargeError(source.fileName, window.bytesRead);
  const outcomes = scorer.finish();
  return {
    run: { declared: declared.finish(margins), outcomes, metrics: computeMetrics(outcomes, candidateLimit) },
    bytes: window.bytesRead,
    sha256: reader === undefined ? undefined : Promise.resolve(reader.sha256()),
  };
}

/**
 * The whole of `drb score` minus the file system: parse both artifacts, hash them, score, build the report.
 * @param items the items file
 * @param predictions the predictions file
 * @param options format, K, declared dataset identity, tool version, per-row switch
 * @throws ArtifactError for a bad input file; DatasetFlagError for flags that contradict the AJIMEE pin
 */
export async function buildScoreReport(
  items: ArtifactBytes,
  predictions: ArtifactBytes | ArtifactStream,
  options: ScoreOptions,
): Promise<ScoreReport> {
  // Both hashes start first: Web Crypto digests off the main thread, so they overlap with parsing and scoring.
  const predictionsSha256 = 'bytes' in predictions ? startArtifactHash(predictions) : undefined;
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
    declared: summarizeDeclaredTable(run.declared),
  };
  if (options.perRow) report.per_row = run.outcomes.toArray().map(perRowEntry);
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
