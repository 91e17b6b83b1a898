/**
 * `drb receipts validate|summarize|review`: from downloaded device receipts to evidence.
 *
 * - validate PATH...: every receipt checked (schema, no text, invariants); exit 1 with one line per problem.
 * - summarize PATH... [--out DIR]: stream the receipts into per-target summaries (DIR/summary.json + summary.md,
 *   default receipts/summary), picking up reviews stored in DIR/reviews/.
 * - review-template --summary FILE --target KEY: print an answers skeleton for one target.
 * - review --summary FILE --target KEY --answers FILE: store a reviewer's answers next to the summary and
 *   recompute that target's evidence state.
 * All logic lives in src/core/receipts/; this file reads and writes files and prints.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { CliError } from './cli-error.ts';
import { setExitCode } from './main.ts';
import { collectJsonFiles, displayPath, guardOverwrite, readBytes, writeFilesAtomically } from './receipt-files.ts';
import { DEVICE_REVIEW_SCHEMA, DeviceReview } from '../core/receipts/device-review.ts';
import { evaluateEvidence } from '../core/receipts/evidence.ts';
import { RECEIPTS_SUMMARY_SCHEMA, ReceiptsSummary } from '../core/receipts/receipts-summary.ts';
import { ReceiptsSummarizer, type StoredReview } from '../core/receipts/receipts-summarizer.ts';
import { renderSummaryMarkdown } from '../core/receipts/summary-markdown.ts';
import { validateReceipt, type ReceiptProblem } from '../core/receipts/validate-receipt.ts';
import { issuePath } from '../core/zod-issues.ts';

/** Default summary folder, relative to the working folder (committed under receipts/). */
export const DEFAULT_SUMMARY_DIR = join('receipts', 'summary');

type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseJson(bytes: Buffer): Parsed {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, message: 'not valid UTF-8' };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a BOM is allowed, as editors on Windows write one
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `not valid JSON: ${(error as Error).message}` };
  }
}

function problemLine(file: string, problem: ReceiptProblem): string {
  return `${file}: ${problem.path || '(document)'}: ${problem.message}`;
}

/** Checks every file; returns the problem lines and how many receipts were valid. */
function validateFiles(files: readonly string[]): { lines: string[]; valid: number } {
  const lines: string[] = [];
  let valid = 0;
  for (const file of files) {
    const shown = displayPath(file);
    const parsed = parseJson(readBytes(file));
    if (!parsed.ok) {
      lines.push(`${shown}: (document): ${parsed.message}`);
      continue;
    }
    const result = validateReceipt(parsed.value);
    if (result.problems.length === 0) valid++;
    for (const problem of result.problems) lines.push(problemLine(shown, problem));
  }
  return { lines, valid };
}

function isSummaryJson(content: string): boolean {
  try {
    return (JSON.parse(content) as { schema?: unknown }).schema === RECEIPTS_SUMMARY_SCHEMA;
  } catch {
    return false;
  }
}

const isSummaryMarkdown = (content: string) => content.startsWith('# Device receipts summary');

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function parseReview(bytes: Buffer, shown: string): DeviceReview {
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
function loadReviews(outDir: string): Map<string, StoredReview> {
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

function writeSummary(outDir: string, summary: ReceiptsSummary): { json: string; md: string } {
  mkdirSync(outDir, { recursive: true });
  const json = join(outDir, 'summary.json');
  const md = join(outDir, 'summary.md');
  guardOverwrite(json, isSummaryJson, `a ${RECEIPTS_SUMMARY_SCHEMA} file`);
  guardOverwrite(md, isSummaryMarkdown, 'a receipts summary');
  writeFilesAtomically([
    { path: json, content: `${JSON.stringify(summary, null, 2)}\n` },
    { path: md, content: renderSummaryMarkdown(summary) },
  ]);
  return { json, md };
}

function stateCounts(summary: ReceiptsSummary): string {
  const pass = summary.targets.filter((t) => t.evidence.state === 'DEVICE_PASS').length;
  return `${pass} DEVICE_PASS, ${summary.targets.length - pass} DEVICE_RECEIPT`;
}

/** Reads and checks a summary file and finds `target` in it (CliError, exit 2, otherwise). */
function loadSummaryTarget(file: string, target: string): { summary: ReceiptsSummary; index: number } {
  const parsed = parseJson(readBytes(file));
  if (!parsed.ok) throw new CliError(`${file}: (document): ${parsed.message}`);
  const checked = ReceiptsSummary.safeParse(parsed.value);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new CliError(`${file}: ${issuePath(issue.path)}: ${issue.message} (not a ${RECEIPTS_SUMMARY_SCHEMA} file)`);
  }
  const summary = checked.data;
  const index = summary.targets.findIndex((t) => t.key === target);
  if (index < 0) throw new CliError(`${file}: targets: no target ${target} (known: ${summary.targets.map((t) => t.key).join(', ') || 'none'})`);
  return { summary, index };
}

/**
 * A review answers skeleton for `target`: every field present, the ones only a reviewer can fill left empty (so it
 * fails validation until they are filled), and one failure explanation slot per failed or interrupted run.
 */
function reviewTemplate(target: ReceiptsSummary['targets'][number]): Record<string, unknown> {
  // A receipt can both fail and record an earlier interruption: one slot per receipt id.
  const ids = [...new Set([...target.failures.receipt_ids, ...target.related.failed_receipt_ids, ...target.interrupted.receipt_ids])];
  return {
    schema: DEVICE_REVIEW_SCHEMA,
    target: target.key,
    reviewer: '',
    reviewed_at: '',
    device: { hardware_model: '', ram_gb: null, os_build: '', browser: '', browser_version: '' },
    conditions: { network: '', battery_percent: null, charging: null, thermal_state: 'unknown' },
    public_revision: target.identity.app.commit ?? '',
    launch_to_result_ms: null,
    tab: { reloaded_or_evicted: false, details: null },
    memory_pressure: { observed: false, behaviour: '' },
    output_stayed_correct: null,
    failure_explanations: [...new Set(ids)].sort().map((receipt_id) => ({ receipt_id, explanation: '' })),
    thresholds: { profile: 'mainstream', cold_total_p95_ms: null, warm_p95_ms: null },
    notes: null,
  };
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
  const files = collectJsonFiles(paths, [resolve(outDir)]);
  const reviews = loadReviews(outDir);
  const summarizer = new ReceiptsSummarizer();
  files.forEach((file, index) => {
    // One file at a time: read, parse, validate, fold; nothing but numbers outlives the iteration.
    const shown = displayPath(file);
    const parsed = parseJson(readBytes(file));
    if (!parsed.ok) summarizer.addInvalid(shown, [{ path: '', message: parsed.message }]);
    else {
      const result = validateReceipt(parsed.value);
      if (result.kind === 'not-a-receipt') summarizer.addNotReceipt(shown, result.schema);
      else if (result.receipt === null) summarizer.addInvalid(shown, result.problems);
      else if (result.kind === 'generation-receipt') summarizer.addGenerationReceipt(result.receipt);
      else if (result.kind === 'suite-receipt') summarizer.addSuiteReceipt(result.receipt);
      else if (result.kind === 'comparison-receipt') summarizer.addComparisonReceipt(result.receipt);
      else summarizer.addReceipt(result.receipt);
    }
    progress?.(index + 1, files.length);
  });
  if (summarizer.validCount === 0) {
    throw new CliError(`${paths.join(', ')}: no valid receipt among ${files.length} file(s) (run drb receipts validate); nothing written`);
  }
  const summary = await summarizer.finish({ reviews });
  return { summary, ...writeSummary(outDir, summary) };
}

/** Registers `drb receipts` and its subcommands. */
export function register(program: Command): void {
  const receipts = program.command('receipts').description('Validate, summarise and review device receipts.');

  receipts
    .command('validate')
    .description('Check receipts (files or folders of *.json): schema, no text fields, route honesty, URLs, statistics, outcome.')
    .argument('<paths...>', 'receipt files or folders')
    .action((paths: string[], _options: unknown, command: Command) => {
      const files = collectJsonFiles(paths);
      const { lines, valid } = validateFiles(files);
      if (lines.length > 0) {
        for (const line of lines) process.stdout.write(`${line}\n`);
        process.stderr.write(`${files.length - valid} of ${files.length} file(s) failed validation\n`);
        setExitCode(command, 1);
        return;
      }
      process.stdout.write(`ok: ${valid} receipt(s) valid\n`);
    });

  receipts
    .command('summarize')
    .description('Group receipts by target and write summary.json + summary.md (streams; progress on a terminal).')
    .argument('<paths...>', 'receipt files or folders')
    .option('--out <dir>', 'output folder (reviews are read from <dir>/reviews/)', DEFAULT_SUMMARY_DIR)
    .action(async (paths: string[], options: { out: string }) => {
      const tty = process.stderr.isTTY === true;
      let lastShown = 0;
      const progress = tty
        ? (done: number, total: number) => {
            // Redraw at most every 1% (or on the last file) so progress output never dominates the run time.
            if (done === total || done - lastShown >= Math.max(1, Math.floor(total / 100))) {
              lastShown = done;
              process.stderr.write(`\rsummarize: ${done} / ${total}${done === total ? '\n' : ''}`);
            }
          }
        : undefined;
      const { summary, json, md } = await summarizeReceipts(paths, options.out, progress);
      if (summary.inputs.receipts_invalid > 0) {
        process.stderr.write(`warning: ${summary.inputs.receipts_invalid} invalid receipt(s) excluded (listed in the summary)\n`);
      }
      process.stdout.write(
        `summarized ${summary.inputs.receipts_valid} receipt(s) into ${summary.targets.length} target(s) (${stateCounts(summary)})` +
          (summary.inputs.generation_receipts_valid > 0
            ? ` and ${summary.inputs.generation_receipts_valid} generation receipt(s) into ${summary.generation_targets.length} generation target(s)`
            : '') +
          (summary.inputs.suite_receipts_valid > 0
            ? `, ${summary.inputs.suite_receipts_valid} suite receipt(s) into ${summary.suite_targets.length} suite target(s)`
            : '') +
          (summary.inputs.comparison_receipts_valid > 0 ? `, ${summary.inputs.comparison_receipts_valid} comparison receipt(s)` : '') +
          `: ${displayPath(json)}, ${displayPath(md)}\n`,
      );
    });

  receipts
    .command('review-template')
    .description(`Print a ${DEVICE_REVIEW_SCHEMA} answers skeleton for one target (fill it in, then run drb receipts review).`)
    .requiredOption('--summary <file>', 'summary.json written by drb receipts summarize')
    .requiredOption('--target <key>', 'target key from the summary (t-...)')
    .action((options: { summary: string; target: string }) => {
      const { summary, index } = loadSummaryTarget(options.summary, options.target);
      process.stdout.write(`${JSON.stringify(reviewTemplate(summary.targets[index]), null, 2)}\n`);
    });

  receipts
    .command('review')
    .description('Store a reviewer\'s answers (drb.device-review.v1) for one target next to the summary and recompute its evidence state.')
    .requiredOption('--summary <file>', 'summary.json written by drb receipts summarize')
    .requiredOption('--target <key>', 'target key from the summary (t-...)')
    .requiredOption('--answers <file>', `reviewer answers JSON (${DEVICE_REVIEW_SCHEMA}; see docs/receipts.md)`)
    .option('--force', 'replace a different review already stored for the target')
    .action((options: { summary: string; target: string; answers: string; force?: boolean }) => {
      const { summary, index } = loadSummaryTarget(options.summary, options.target);
      const answersBytes = readBytes(options.answers);
      const review = parseReview(answersBytes, options.answers);
      if (review.target !== options.target) {
        throw new CliError(`${options.answers}: target: names ${review.target}, but --target is ${options.target}`);
      }
      const outDir = dirname(options.summary);
      const reviewsDir = join(outDir, 'reviews');
      const stored = join(reviewsDir, `${options.target}.json`);
      if (existsSync(stored) && !options.force && sha256(readFileSync(stored)) !== sha256(answersBytes)) {
        throw new CliError(`${stored}: a different review is already stored for ${options.target}; pass --force to replace it`);
      }
      mkdirSync(reviewsDir, { recursive: true });
      // Stored byte for byte, so the hash in the summary is the hash of the reviewer's own file.
      writeFilesAtomically([{ path: stored, content: answersBytes }]);
      const target = summary.targets[index];
      const withReview = {
        ...target,
        review: { file: `reviews/${basename(stored)}`, sha256: sha256(answersBytes), reviewer: review.reviewer, reviewed_at: review.reviewed_at },
      };
      summary.targets[index] = { ...withReview, evidence: evaluateEvidence(withReview, review) };
      summary.orphan_reviews = summary.orphan_reviews.filter((f) => f !== `reviews/${basename(stored)}`);
      writeSummary(outDir, summary);
      const { evidence } = summary.targets[index];
      process.stdout.write(`${options.target}: ${evidence.state}\n`);
      for (const reason of evidence.not_higher_because) process.stdout.write(`  not higher: ${reason}\n`);
      process.stdout.write(`review stored at ${displayPath(stored)}; ${displayPath(options.summary)} and summary.md updated\n`);
    });
}
