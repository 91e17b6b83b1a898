/**
 * The streaming core of `drb receipts summarize`, shared by the `receipts` commands, `drb public-pass` and the
 * benchmark: read each receipt file, validate it, fold it into the summariser, write summary.json + summary.md.
 * A module apart from the commands so no command imports another.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError } from './cli-error.ts';
import {
  collectJsonFiles,
  displayPath,
  guardOverwrite,
  parseJson,
  readBytes,
  readInputDocuments,
  sha256,
  SYMLINK_PROBLEM,
} from './receipt-files.ts';
import { makeOutputDir, writeFilesAtomically } from './output-files.ts';
import { DeviceReview } from '../core/evidence/device-review.ts';
import { RECEIPTS_SUMMARY_SCHEMA, type ReceiptsSummary } from '../core/evidence/receipts-summary.ts';
import { ReceiptsSummarizer, type StoredReview } from '../core/evidence/receipts-summarizer.ts';
import { renderSummaryMarkdown } from '../core/evidence/summary-markdown.ts';
import { validateReceipt } from '../core/validation/validate-receipt.ts';
import { RECEIPT_BUNDLE_SCHEMA, type ReceiptBundle } from '../core/field/receipt-bundle.ts';
import { issuePath } from '../core/text/zod-issues.ts';
import { ANSWER_SCORE_SCHEMA, type AnswerScoreReport } from '../core/answers/answer-score.ts';

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
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const file = join(dir, name);
    const bytes = readBytes(file);
    const review = parseReview(bytes, displayPath(file));
    if (`${review.target}.json` !== name) throw new CliError(`${displayPath(file)}: target: names ${review.target} but the file is ${name}`);
    reviews.set(review.target, { review, file: `reviews/${name}`, sha256: sha256(bytes) });
  }
  return reviews;
}

/** Writes summary.json + summary.md into `outDir` together (never over a file that is not a summary). */
export function writeSummary(outDir: string, summary: ReceiptsSummary): { json: string; md: string } {
  makeOutputDir(outDir, '--out');
  const json = join(outDir, 'summary.json');
  const md = join(outDir, 'summary.md');
  guardOverwrite(json, isSummaryJson, `a ${RECEIPTS_SUMMARY_SCHEMA} file`);
  guardOverwrite(md, isSummaryMarkdown, 'a receipts summary');
  writeFilesAtomically(
    [
      { path: json, content: `${JSON.stringify(summary, null, 2)}\n` },
      { path: md, content: renderSummaryMarkdown(summary) },
    ],
    `--out ${outDir}`,
  );
  return { json, md };
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
  const { files, symlinks } = collectJsonFiles(paths, [resolve(outDir)]);
  const reviews = loadReviews(outDir);
  const summarizer = new ReceiptsSummarizer();
  for (const link of symlinks) summarizer.addInvalid(displayPath(link), [{ path: '', message: SYMLINK_PROBLEM }]);
  let index = 0;
  for (const { shown, sha256: fingerprint, parsed, bundle } of readInputDocuments(files)) {
    // One file at a time: read, parse, validate, fold; nothing but numbers outlives the iteration.
    if (!parsed.ok) summarizer.addInvalid(shown, [{ path: '', message: parsed.message }]);
    else {
      const result = validateReceipt(parsed.value);
      // The bytes' hash tells a byte-identical copy of a receipt (noted) from an edited one (an error).
      const source = { file: shown, fingerprint, bundle: bundle?.shown };
      if (result.kind === 'artifact' && result.schema === RECEIPT_BUNDLE_SCHEMA) {
        // A valid bundle's receipts follow as documents of their own, and its sheet fills review-template's device
        // fields; an invalid one was not opened, so it is listed as invalid (its receipts are not counted).
        if (result.problems.length === 0) summarizer.addBundle(shown, (parsed.value as ReceiptBundle).sheet);
        else summarizer.addInvalid(shown, result.problems);
      } else if (result.kind === 'not-a-receipt' || result.kind === 'artifact') {
        summarizer.addNotReceipt(shown, result.schema);
        // An answer-score report ranks the generation target whose runs made its answers (see generation-eligibility.ts).
        if (result.kind === 'artifact' && result.schema === ANSWER_SCORE_SCHEMA && result.problems.length === 0) {
          summarizer.addAnswerScore(parsed.value as AnswerScoreReport, shown, fingerprint);
        }
      }
      else if (result.receipt === null) summarizer.addInvalid(shown, result.problems);
      else if (result.kind === 'generation-receipt') summarizer.addGenerationReceipt(result.receipt, source);
      else if (result.kind === 'suite-receipt') summarizer.addSuiteReceipt(result.receipt, source);
      else if (result.kind === 'comparison-receipt') summarizer.addComparisonReceipt(result.receipt, source);
      else summarizer.addReceipt(result.receipt, source);
    }
    progress?.(++index, files.length);
  }
  if (summarizer.validCount === 0) {
    throw new CliError(`${paths.join(', ')}: no valid receipt among ${files.length + symlinks.length} file(s) (run drb receipts validate); nothing written`);
  }
  const summary = await summarizer.finish({ reviews });
  return { summary, ...writeSummary(outDir, summary) };
}
