/**
 * The streaming core of `drb receipts summarize`, shared by the `receipts` commands, `drb public-pass` and the
 * benchmark: read each receipt file, validate it, fold it into the summariser, write summary.json + summary.md.
 * A module apart from the commands so no command imports another.
 */
import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { CliError } from './cli-error.ts';
import {
  collectJsonFiles,
  contentFingerprint,
  displayPath,
  guardOverwrite,
  MAX_SMALL_FILE_BYTES,
  parseJson,
  readBytes,
  readInputDocuments,
  sha256,
  unreadLines,
} from './receipt-files.ts';
import { makeOutputDir, writeFilesAtomically, type OutputFile } from './output-files.ts';
import { DeviceReview } from '../core/evidence/device-review.ts';
import { RECEIPTS_SUMMARY_SCHEMA, ReceiptsSummary } from '../core/evidence/receipts-summary.ts';
import { checkReceiptsSummary } from '../core/evidence/summary-invariants.ts';
import { ReceiptsSummarizer, type StoredReview } from '../core/evidence/receipts-summarizer.ts';
import { renderSummaryMarkdown } from '../core/evidence/summary-markdown.ts';
import { validateReceipt } from '../core/validation/validate-receipt.ts';
import { RECEIPT_BUNDLE_SCHEMA, type ReceiptBundle } from '../core/field/receipt-bundle.ts';
import { issuePath } from '../core/text/zod-issues.ts';
import { ANSWER_SCORE_SCHEMA, type AnswerScoreReport } from '../core/answers/answer-score.ts';
import { hasUnsafeTerminalChar, terminalText } from '../core/text/terminal-text.ts';
import { jsonShapeProblems } from '../core/text/json-shape.ts';

/** Whether `content` is a summary.json this tool wrote (so it may be replaced). */
export function isSummaryJson(content: string): boolean {
  try {
    // Any version of our own summary (an earlier drb wrote v1) may be replaced by a new one.
    const schema = (JSON.parse(content) as { schema?: unknown }).schema;
    return typeof schema === 'string' && /^drb\.receipts-summary\.v\d+$/.test(schema);
  } catch {
    return false;
  }
}

const isSummaryMarkdown = (content: string) => content.startsWith('# Device receipts summary');

/**
 * Parses a reviewer's answers file (CliError, exit 2, with one line per problem, when it is not a valid review).
 * @param bytes the file's bytes
 * @param shown the file name to print
 */
export function parseReview(bytes: Buffer, shown: string): DeviceReview {
  const parsed = parseJson(bytes);
  if (!parsed.ok) throw new CliError(`${shown}: (document): ${parsed.message}`);
  // The same shape rules as every artifact (no key a copy would drop, bounded nesting), before the review's schema.
  const shape = jsonShapeProblems(parsed.value);
  if (shape.length > 0) throw new CliError(shape.map((p) => `${shown}: ${p.path}: ${p.message}`).join('\nerror: '));
  const result = DeviceReview.safeParse(parsed.value);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `${shown}: ${issuePath(issue.path)}: ${issue.message}`);
    // main prints "error: " before the first line; give every further line the same prefix.
    throw new CliError(lines.join('\nerror: '));
  }
  return result.data;
}

/** Reviews stored in DIR/reviews/<target>.json; a malformed one stops the command (exit 2). */
export function loadReviews(outDir: string): Map<string, StoredReview> {
  const reviews = new Map<string, StoredReview>();
  const dir = join(outDir, 'reviews');
  if (!existsSync(dir)) return reviews;
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const file = join(dir, name);
    const bytes = readBytes(file, MAX_SMALL_FILE_BYTES);
    const review = parseReview(bytes, displayPath(file));
    if (`${review.target}.json` !== name)
      throw new CliError(`${displayPath(file)}: target: names ${review.target} but the file is ${terminalText(name)}`);
    reviews.set(review.target, { review, file: `reviews/${name}`, sha256: sha256(bytes) });
  }
  return reviews;
}

/**
 * The checks a summary passes before it is written: its own schema and its own cross-field rules. A failure is a bug
 * in this tool, never the input's fault: one line, nothing written.
 * @param summary the summary about to be written
 */
function checkedSummary(summary: ReceiptsSummary): ReceiptsSummary {
  const parsed = ReceiptsSummary.safeParse(summary);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliError(
      `summary.json: ${issuePath(issue.path)}: ${issue.message} (the summary this tool made is not valid under its own schema: a bug; nothing written)`,
      1,
    );
  }
  const problem = checkReceiptsSummary(summary)[0];
  if (problem !== undefined)
    throw new CliError(`summary.json: ${problem.path}: ${problem.message} (a bug in this tool; nothing written)`, 1);
  return summary;
}

/**
 * The files summary.json and summary.md would be, after the summary passed its own checks.
 * @param outDir the summary folder
 * @param summary the summary
 */
export function summaryFiles(outDir: string, summary: ReceiptsSummary): OutputFile[] {
  checkedSummary(summary);
  return [
    { path: join(outDir, 'summary.json'), content: `${JSON.stringify(summary, null, 2)}\n` },
    { path: join(outDir, 'summary.md'), content: renderSummaryMarkdown(summary) },
  ];
}

/**
 * Writes `files` (summary.json and summary.md, and any others such as a stored review) into `outDir` together,
 * never over a summary file that is not ours: all or nothing.
 * @param outDir the summary folder
 * @param files what to write
 */
export function writeSummaryFiles(outDir: string, files: readonly OutputFile[]): void {
  const json = join(outDir, 'summary.json');
  const md = join(outDir, 'summary.md');
  guardOverwrite(json, isSummaryJson, `a ${RECEIPTS_SUMMARY_SCHEMA} file`);
  guardOverwrite(md, isSummaryMarkdown, 'a receipts summary');
  makeOutputDir(outDir, '--out');
  for (const file of files) makeOutputDir(resolve(file.path, '..'), '--out');
  writeFilesAtomically(files, `--out ${displayPath(outDir)}`);
}

/** Writes summary.json + summary.md into `outDir` together (never over a file that is not a summary). */
export function writeSummary(outDir: string, summary: ReceiptsSummary): { json: string; md: string } {
  writeSummaryFiles(outDir, summaryFiles(outDir, summary));
  return { json: join(outDir, 'summary.json'), md: join(outDir, 'summary.md') };
}

/**
 * How a summary records the inputs it was made from: each PATH relative to the summary's folder (so the record does
 * not depend on the working folder), or absolute when no relative path reaches it (another drive).
 * @param outDir the summary folder
 * @param paths the PATH arguments
 */
export function summarySources(outDir: string, paths: readonly string[]): string[] {
  return paths.map((path) => {
    const rel = relative(resolve(outDir), resolve(path));
    const source = isAbsolute(rel) ? resolve(path) : (rel === '' ? '.' : rel).split(sep).join('/');
    // The summary records the path as it is (review opens it again), so it must be one summary.json can hold.
    if (hasUnsafeTerminalChar(source) || source.length > 4096) {
      throw new CliError(
        `${displayPath(path)}: a PATH holding a control or bidirectional character (or over 4096 characters) cannot be recorded in summary.json; rename it; nothing written`,
      );
    }
    return source;
  });
}

/**
 * The inputs a summary records, as paths to read (resolved against the summary's folder).
 * @param summaryDir the folder summary.json is in
 * @param sources the summary's `sources`
 */
export function resolveSources(summaryDir: string, sources: readonly string[]): string[] {
  return sources.map((source) => resolve(summaryDir, source));
}

/** A summariser with every input of `paths` folded in, ready for `finish`. */
export interface FoldedInputs {
  summarizer: ReceiptsSummarizer;
  files: number;
}

/**
 * Reads and folds the receipts in `paths` (the streaming core of summarize, review and public-pass).
 * @param paths receipt files or folders
 * @param skip folders to leave out (the summary folder)
 * @param progress called after each file with (done, total)
 * @throws CliError (exit 2) when no input holds a valid receipt
 */
export function foldInputs(
  paths: readonly string[],
  skip: readonly string[],
  progress?: (done: number, total: number) => void,
): FoldedInputs {
  const found = collectJsonFiles(paths, skip);
  const summarizer = new ReceiptsSummarizer();
  for (const unread of unreadLines(found)) summarizer.addInvalid(unread.shown, [{ path: '', message: unread.problem }]);
  let index = 0;
  for (const { shown, sha256: bytesSha256, parsed, bundle } of readInputDocuments(found.files)) {
    // One file at a time: read, parse, validate, fold; nothing but numbers outlives the iteration.
    if (!parsed.ok) summarizer.addInvalid(shown, [{ path: '', message: parsed.message }]);
    else {
      const result = validateReceipt(parsed.value);
      if (result.kind === 'artifact' && result.schema === RECEIPT_BUNDLE_SCHEMA) {
        // A valid bundle's receipts follow as documents of their own, and its sheet fills review-template's device
        // fields; an invalid one was not opened, so it is listed as invalid (its receipts are not counted).
        if (result.problems.length === 0) summarizer.addBundle(shown, parsed.value as ReceiptBundle);
        else summarizer.addInvalid(shown, result.problems);
      } else if (result.kind === 'artifact' && result.schema === ANSWER_SCORE_SCHEMA && result.problems.length > 0) {
        // An answer-score report would rank a generation target: one that contradicts itself is listed as invalid
        // (with its first problem), never dropped without a word.
        summarizer.addInvalid(shown, result.problems);
      } else if (result.kind === 'not-a-receipt' || result.kind === 'artifact') {
        summarizer.addNotReceipt(shown, result.schema);
        // An answer-score report ranks the generation target whose runs made its answers (generation-eligibility.ts).
        if (result.kind === 'artifact' && result.schema === ANSWER_SCORE_SCHEMA && result.problems.length === 0) {
          summarizer.addAnswerScore(parsed.value as AnswerScoreReport, shown, bytesSha256);
        }
      } else if (result.receipt === null) summarizer.addInvalid(shown, result.problems);
      else {
        // The content's fingerprint tells a copy of a receipt (noted) from an edited one (an error), however it is formatted.
        const source = { file: shown, fingerprint: contentFingerprint(parsed.value), bundle: bundle?.shown };
        if (result.kind === 'generation-receipt') summarizer.addGenerationReceipt(result.receipt, source);
        else if (result.kind === 'suite-receipt') summarizer.addSuiteReceipt(result.receipt, source);
        else if (result.kind === 'comparison-receipt') summarizer.addComparisonReceipt(result.receipt, source);
        else if (result.kind === 'sweep-receipt') summarizer.addSweepReceipt(result.receipt, source);
        else summarizer.addReceipt(result.receipt, source);
      }
    }
    progress?.(++index, found.files.length);
  }
  const files = found.files.length + found.symlinks.length + found.specials.length;
  if (summarizer.validCount === 0) {
    throw new CliError(
      `${paths.map((p) => displayPath(p)).join(', ')}: no valid receipt among ${files} file(s) (run drb receipts validate); nothing written`,
    );
  }
  return { summarizer, files };
}

/**
 * Summarises the receipts in `paths` into `outDir` (the streaming core of `drb receipts summarize`, also used by
 * the benchmark and by public-pass).
 * @param paths receipt files or folders
 * @param outDir where summary.json, summary.md (and reviews/) live
 * @param progress called after each file with (done, total)
 */
export async function summarizeReceipts(
  paths: readonly string[],
  outDir: string,
  progress?: (done: number, total: number) => void,
): Promise<{ summary: ReceiptsSummary; json: string; md: string }> {
  const sources = summarySources(outDir, paths);
  const reviews = loadReviews(outDir);
  const { summarizer } = foldInputs(paths, [resolve(outDir)], progress);
  const summary = await summarizer.finish({ reviews, sources });
  return { summary, ...writeSummary(outDir, summary) };
}
