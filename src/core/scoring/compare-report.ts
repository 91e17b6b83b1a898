import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';
import { ArtifactError, decodeJsonBytes, quoteId } from '../artifacts/artifact-error.ts';
import { issuePath } from '../text/zod-issues.ts';
import { ItemLabel, type ItemFormat, type ItemRow } from '../artifacts/items.ts';
import { JsonScanner } from '../artifacts/json-scanner.ts';
import { resolveDataset } from './dataset.ts';
import { computeMetrics } from './metrics.ts';
import { DatasetInfo, InputFileInfo, ScoreMetrics, ScoreReport, ToolInfo, type PerRowEntry } from './score-report.ts';
import { loadItems, scoreRun, startArtifactHash, type ArtifactBytes, type LoadedItems } from './score-run.ts';
import { CodePointLevenshtein } from './levenshtein.ts';
import { minCer, type RowOutcome } from './score-rows.ts';
import { signTestPValue } from './sign-test.ts';

/** Better / worse / tied row counts for one yes-no outcome, with the exact sign test on the discordant rows. */
export const PairedCounts = z.strictObject({
  better: z.number().int().min(0),
  worse: z.number().int().min(0),
  tied: z.number().int().min(0),
  discordant: z.number().int().min(0),
  sign_test_p_value: z.number().min(0).max(1),
});
export type PairedCounts = z.infer<typeof PairedCounts>;

/** A row whose effective correctness differs between the two runs. */
export const ChangedRow = z.strictObject({
  id: detailText(4096),
  label: ItemLabel,
  baseline_rank: z.number().int().min(1).nullable(),
  candidate_rank: z.number().int().min(1).nullable(),
  baseline_abstained: z.boolean(),
  candidate_abstained: z.boolean(),
  baseline_effective_min_cer: z.number().min(0),
  candidate_effective_min_cer: z.number().min(0),
});
export type ChangedRow = z.infer<typeof ChangedRow>;

/** A compared run's input: a predictions artifact scored here, or a `--per-row` score report made earlier. */
export const CompareInputInfo = InputFileInfo.extend({ kind: z.enum(['predictions', 'score-report']) });
export type CompareInputInfo = z.infer<typeof CompareInputInfo>;

/** The JSON report `drb compare` writes (`schema: drb.compare-report.v1`). No timestamp: same inputs, same bytes. */
export const CompareReport = z.strictObject({
  schema: z.literal('drb.compare-report.v1'),
  evidence_state: z.literal('LOCAL_EVALUATION'),
  tool: ToolInfo,
  dataset: DatasetInfo,
  inputs: z.strictObject({ items: InputFileInfo, baseline: CompareInputInfo, candidate: CompareInputInfo }),
  candidate_limit: z.number().int().min(1),
  runs: z.strictObject({ baseline: ScoreMetrics, candidate: ScoreMetrics }),
  paired: z.strictObject({ effective_correct: PairedCounts, candidate_recall_hit: PairedCounts }),
  /** rows the candidate run broke (baseline correct, candidate wrong), in item order; listed before `fixed` */
  broken: z.array(ChangedRow),
  /** rows the candidate run fixed (baseline wrong, candidate correct), in item order */
  fixed: z.array(ChangedRow),
});
export type CompareReport = z.infer<typeof CompareReport>;

/** Everything a compare run needs besides the files. */
export interface CompareOptions {
  format: ItemFormat;
  /** K >= 1 */
  candidateLimit: number;
  toolVersion: string;
}

interface ComparedRun {
  info: CompareInputInfo;
  outcomes: RowOutcome[];
  metrics: ScoreMetrics;
}

/**
 * The whole of `drb compare` minus the file system: score both runs against the same item bytes and pair them.
 * @param items the items file
 * @param baseline the baseline run: a predictions file, or a score report written with --per-row
 * @param candidate the candidate run, likewise
 * @param options format, K and tool version
 * @throws ArtifactError for a bad file, or a score report that was scored against other item bytes or another K
 */
export async function buildCompareReport(
  items: ArtifactBytes,
  baseline: ArtifactBytes,
  candidate: ArtifactBytes,
  options: CompareOptions,
): Promise<CompareReport> {
  // Hashes start first: Web Crypto digests off the main thread, so they overlap with parsing and scoring.
  const baselineSha256 = startArtifactHash(baseline);
  const candidateSha256 = startArtifactHash(candidate);
  const loaded = await loadItems(items, options.format);
  const base = await loadRun(loaded, baseline, options.candidateLimit, baselineSha256);
  const cand = await loadRun(loaded, candidate, options.candidateLimit, candidateSha256);
  const broken: ChangedRow[] = [];
  const fixed: ChangedRow[] = [];
  for (let r = 0; r < base.outcomes.length; r++) {
    const b = base.outcomes[r];
    const c = cand.outcomes[r];
    if (b.correct === c.correct) continue;
    (b.correct ? broken : fixed).push({
      id: b.id,
      label: b.label,
      baseline_rank: b.rank,
      candidate_rank: c.rank,
      baseline_abstained: b.abstained,
      candidate_abstained: c.abstained,
      baseline_effective_min_cer: b.effectiveMinCer,
      candidate_effective_min_cer: c.effectiveMinCer,
    });
  }
  return {
    schema: 'drb.compare-report.v1',
    evidence_state: 'LOCAL_EVALUATION',
    tool: { name: 'device-receipts-bench', version: options.toolVersion },
    dataset: resolveDataset(options.format, loaded.info.sha256, {}),
    inputs: { items: loaded.info, baseline: base.info, candidate: cand.info },
    candidate_limit: options.candidateLimit,
    runs: { baseline: base.metrics, candidate: cand.metrics },
    paired: {
      effective_correct: pairedCounts(base.outcomes, cand.outcomes, (o) => o.correct),
      candidate_recall_hit: pairedCounts(base.outcomes, cand.outcomes, (o) => o.rank !== null),
    },
    broken,
    fixed,
  };
}

/**
 * Counts rows where `success` holds for the candidate only (better), the baseline only (worse), or both/neither
 * (tied), and the sign test p-value on the discordant rows.
 * @param baseline the baseline's row outcomes, in item order
 * @param candidate the candidate's row outcomes, same order
 * @param success the yes-no outcome being compared
 */
export function pairedCounts(
  baseline: readonly RowOutcome[],
  candidate: readonly RowOutcome[],
  success: (outcome: RowOutcome) => boolean,
): PairedCounts {
  let better = 0;
  let worse = 0;
  for (let r = 0; r < baseline.length; r++) {
    const b = success(baseline[r]);
    const c = success(candidate[r]);
    if (c && !b) better++;
    else if (b && !c) worse++;
  }
  return {
    better,
    worse,
    tied: baseline.length - better - worse,
    discordant: better + worse,
    sign_test_p_value: signTestPValue(better, worse),
  };
}

async function loadRun(
  items: LoadedItems,
  source: ArtifactBytes,
  candidateLimit: number,
  hashing: Promise<string>,
): Promise<ComparedRun> {
  // A JSON array is a predictions file, read straight from its bytes; anything else is decoded to see what it is.
  let value: unknown;
  if (new JsonScanner(source.bytes).peek() !== 0x5b)
    value = decodeJsonBytes(source.bytes, source.fileName, source.fastDecode);
  const isReport = typeof value === 'object' && value !== null && !Array.isArray(value) && 'schema' in value;
  if (!isReport) {
    const run = await scoreRun(items, source, candidateLimit, hashing, value);
    return { info: { ...run.info, kind: 'predictions' }, outcomes: run.outcomes.toArray(), metrics: run.metrics };
  }
  const sha256 = await hashing;
  const parsed = ScoreReport.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // '$' is the artifact messages' name for the file as a whole (see ArtifactError).
    const where = issue.path.length === 0 ? '$' : issuePath(issue.path);
    throw new ArtifactError(
      source.fileName,
      where,
      `not a predictions array nor a valid drb.score-report.v2: ${issue.message}`,
    );
  }
  const report = parsed.data;
  if (report.inputs.items.sha256 !== items.info.sha256) {
    throw new ArtifactError(
      source.fileName,
      'inputs.items.sha256',
      `this run was scored against other item bytes (${report.inputs.items.sha256}) than ${items.source.fileName} (${items.info.sha256})`,
    );
  }
  if (report.candidate_limit !== candidateLimit) {
    throw new ArtifactError(
      source.fileName,
      'candidate_limit',
      `this run was scored with K = ${report.candidate_limit}, not ${candidateLimit}`,
    );
  }
  const perRow = report.per_row;
  if (perRow === undefined) {
    throw new ArtifactError(
      source.fileName,
      'per_row',
      'missing: a score report can be compared only when written with --per-row',
    );
  }
  if (perRow.length !== items.rows.length) {
    throw new ArtifactError(
      source.fileName,
      'per_row',
      `has ${perRow.length} entries for ${items.rows.length} item rows`,
    );
  }
  const levenshtein = new CodePointLevenshtein(longestText(items.rows));
  const outcomes: RowOutcome[] = perRow.map((entry, r) => {
    if (entry.id !== items.rows[r].id) {
      throw new ArtifactError(
        source.fileName,
        `per_row[${r}].id`,
        `${quoteId(entry.id)} is not item row ${quoteId(items.rows[r].id)}`,
      );
    }
    checkPerRowEntry(entry, items.rows[r], r, candidateLimit, levenshtein, source.fileName);
    return {
      id: entry.id,
      label: entry.label,
      abstained: entry.abstained,
      correct: entry.correct,
      rank: entry.rank,
      inputMinCer: entry.input_min_cer,
      effectiveMinCer: entry.effective_min_cer,
      change: entry.change,
      candidatesSupplied: entry.candidates_supplied,
      overcorrected: entry.overcorrected,
    };
  });
  // The headline numbers are recomputed from the rows, never taken from the report: an edited report (Acc@1 set to
  // 0 while every row is correct) is refused rather than compared.
  const metrics = computeMetrics(outcomes, candidateLimit);
  for (const key of Object.keys(metrics) as Array<keyof ScoreMetrics>) {
    if (!Object.is(metrics[key], report.metrics[key])) {
      throw new ArtifactError(
        source.fileName,
        `metrics.${key}`,
        `is ${report.metrics[key]} but its own per_row entries give ${metrics[key]}: the report was edited; score the predictions again`,
      );
    }
  }
  return {
    info: {
      file: source.reportName,
      bytes: source.bytes.byteLength,
      sha256,
      rows: perRow.length,
      kind: 'score-report',
    },
    outcomes,
    metrics,
  };
}

function longestText(rows: readonly ItemRow[]): number {
  let longest = 0;
  for (const row of rows) {
    if (row.input.length > longest) longest = row.input.length;
    for (const reference of row.references) if (reference.length > longest) longest = reference.length;
  }
  return longest;
}

/**
 * Checks one per-row entry of a score report against its item row and against itself: the label and input MinCER
 * are recomputed from the items, and the fields scoring derives from one another (abstention, correctness, rank,
 * effective MinCER, change, overcorrection) must agree, as scoring always makes them.
 * @throws ArtifactError naming the entry's field
 */
function checkPerRowEntry(
  entry: PerRowEntry,
  item: ItemRow,
  r: number,
  candidateLimit: number,
  levenshtein: CodePointLevenshtein,
  fileName: string,
): void {
  const fail = (field: string, problem: string): never => {
    throw new ArtifactError(
      fileName,
      `per_row[${r}].${field}`,
      `${problem}: the report was edited; score the predictions again`,
    );
  };
  if (entry.label !== item.label) fail('label', `is ${entry.label} but item row ${quoteId(item.id)} is ${item.label}`);
  const inputMinCer = minCer(item.input, item.references, levenshtein);
  if (!Object.is(entry.input_min_cer, inputMinCer))
    fail('input_min_cer', `is ${entry.input_min_cer} but the item row gives ${inputMinCer}`);
  if (entry.abstained) {
    if (entry.rank !== null || entry.candidates_supplied !== 0)
      fail('abstained', 'is true with a rank or candidates supplied');
    if (!Object.is(entry.effective_min_cer, inputMinCer))
      fail('effective_min_cer', 'differs from the input MinCER on an abstained row');
    if (entry.correct !== item.references.includes(item.input))
      fail('correct', 'disagrees with the item row on an abstained row (the output is the input)');
    if (entry.overcorrected) fail('overcorrected', 'is true on an abstained row');
  } else {
    if (entry.candidates_supplied < 1) fail('candidates_supplied', 'is 0 on a row that did not abstain');
    if (entry.rank !== null && entry.rank > Math.min(candidateLimit, entry.candidates_supplied))
      fail('rank', `is beyond the first ${candidateLimit} candidates supplied`);
    if (entry.correct !== (entry.rank === 1))
      fail('correct', `is ${entry.correct} with rank ${entry.rank} (the top-1 candidate is correct exactly at rank 1)`);
    if (entry.correct && entry.effective_min_cer !== 0) fail('effective_min_cer', 'is not 0 on a correct row');
    if (!entry.correct && entry.effective_min_cer === 0) fail('effective_min_cer', 'is 0 on a row that is not correct');
  }
  const change =
    entry.effective_min_cer < inputMinCer
      ? 'improved'
      : entry.effective_min_cer > inputMinCer
        ? 'worsened'
        : 'unchanged';
  if (entry.change !== change) fail('change', `is ${entry.change} but the MinCERs give ${change}`);
  if (entry.overcorrected && item.label !== 'clean') fail('overcorrected', `is true on a ${item.label} row`);
}
