/**
 * `drb receipts validate|summarize|review`: from downloaded device receipts to evidence.
 *
 * - validate PATH...: every receipt checked (schema, no text, invariants) and every other drb artifact by its own
 *   schema (summary, review, public-pass record, reports, manifests); exit 1 with one line per problem.
 * - summarize PATH... [--out DIR]: stream the receipts into per-target summaries (DIR/summary.json + summary.md,
 *   default receipts/summary), picking up reviews stored in DIR/reviews/.
 * - review-template --summary FILE --target KEY: print an answers skeleton for one target.
 * - review --summary FILE --target KEY --answers FILE: store a reviewer's answers next to the summary and
 *   recompute that target's evidence state.
 * All logic lives in src/core/evidence/; this file reads and writes files and prints.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Command } from 'commander';
import { CliError } from './cli-error.ts';
import { setExitCode } from './exit-code.ts';
import { collectJsonFiles, displayPath, parseJson, readBytes, readInputDocuments, sha256, SYMLINK_PROBLEM } from './receipt-files.ts';
import { makeOutputDir, writeFilesAtomically } from './output-files.ts';
import { parseReview, summarizeReceipts, writeSummary } from './summarize-receipts.ts';
import { writeReport } from './receipts-report.ts';
import { registerExport } from './receipts-export.ts';
import { DEVICE_REVIEW_SCHEMA } from '../core/evidence/device-review.ts';
import { evaluateEvidence } from '../core/evidence/evidence.ts';
import { duplicateMessage, ReceiptIdLedger } from '../core/evidence/receipt-ids.ts';
import { RECEIPTS_SUMMARY_SCHEMA, ReceiptsSummary } from '../core/evidence/receipts-summary.ts';
import { validateReceipt, type ReceiptProblem } from '../core/validation/validate-receipt.ts';
import { issuePath } from '../core/text/zod-issues.ts';

/** Default summary folder, relative to the working folder (committed under receipts/). */
export const DEFAULT_SUMMARY_DIR = join('receipts', 'summary');

function problemLine(file: string, problem: ReceiptProblem): string {
  return `${file}: ${problem.path || '(document)'}: ${problem.message}`;
}

/**
 * Checks every file: its problem lines, notes (byte-identical copies of a receipt, counted once), how many files
 * were valid and how many failed. A receipt id counts once: a second file with the id and other bytes fails.
 */
function validateFiles(
  files: readonly string[],
  symlinks: readonly string[],
): { lines: string[]; notes: string[]; valid: number; artifacts: number; failed: number } {
  const lines = symlinks.map((link) => `${displayPath(link)}: (document): ${SYMLINK_PROBLEM}`);
  const notes: string[] = [];
  const ledger = new ReceiptIdLedger();
  let valid = 0;
  let artifacts = 0;
  let failed = symlinks.length;
  for (const { shown, sha256: fingerprint, parsed } of readInputDocuments(files)) {
    if (!parsed.ok) {
      lines.push(`${shown}: (document): ${parsed.message}`);
      failed++;
      continue;
    }
    const result = validateReceipt(parsed.value);
    if (result.problems.length > 0) {
      failed++;
      for (const problem of result.problems) lines.push(problemLine(shown, problem));
      continue;
    }
    if (result.kind === 'artifact') {
      artifacts++;
      continue;
    }
    if (result.kind !== 'not-a-receipt' && result.receipt !== null) {
      const id = result.receipt.receipt_id;
      const claim = ledger.claim(id, { file: shown, fingerprint });
      if (claim.kind === 'identical') notes.push(`${shown}: receipt_id: ${duplicateMessage(id, claim)}`);
      if (claim.kind === 'conflict') {
        lines.push(`${shown}: receipt_id: ${duplicateMessage(id, claim)}`);
        failed++;
        continue;
      }
    }
    valid++;
  }
  return { lines, notes, valid, artifacts, failed };
}

function stateCounts(summary: ReceiptsSummary): string {
  const pass = summary.targets.filter((t) => t.evidence.state === 'DEVICE_PASS').length;
  return `${pass} DEVICE_PASS, ${summary.targets.length - pass} DEVICE_RECEIPT`;
}

/** Reads and checks a summary file and finds `target` in it (CliError, exit 2, otherwise). */
function loadSummaryTarget(file: string, target: string): { summary: ReceiptsSummary; index: number } {
  const parsed = parseJson(readBytes(file));
  if (!parsed.ok) throw new CliError(`${file}: (document): ${parsed.message}`);
  const schema = (parsed.value as { schema?: unknown } | null)?.schema;
  if (typeof schema === 'string' && schema !== RECEIPTS_SUMMARY_SCHEMA && /^drb\.receipts-summary\.v\d+$/.test(schema)) {
    throw new CliError(`${file}: schema: is ${schema}, from an earlier drb version; summarise the receipts again (drb receipts summarize)`);
  }
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
  // One sheet fills the template; with several different ones (sessions on other days) the reviewer picks, so the
  // notes name them all and the fields stay empty.
  const sheet = target.session_sheets.length === 1 ? target.session_sheets[0].sheet : null;
  const sheetNotes =
    target.session_sheets.length > 1
      ? `session sheets differ between bundles: ${target.session_sheets.map((s) => s.bundle).join(', ')}; fill the device fields from the right one`
      : sheet !== null && sheet.notes !== ''
        ? `tester's note: ${sheet.notes}`
        : null;
  return {
    schema: DEVICE_REVIEW_SCHEMA,
    target: target.key,
    reviewer: '',
    reviewed_at: '',
    // The tester's session sheet (from a receipt bundle) fills what it knows; a reviewer checks it, fills the rest.
    device: {
      hardware_model: sheet?.device_model ?? '',
      ram_gb: sheet?.ram_gb ?? null,
      os_build: sheet?.os_build ?? '',
      browser: sheet?.browser ?? '',
      browser_version: sheet?.browser_version ?? '',
    },
    conditions: {
      network: sheet?.network ?? '',
      battery_percent: sheet?.battery_percent ?? null,
      charging: sheet?.charging ?? null,
      thermal_state: sheet?.thermal_state ?? 'unknown',
    },
    public_revision: sheet?.public_revision || (target.identity.app.commit ?? ''),
    launch_to_result_ms: null,
    tab: { reloaded_or_evicted: false, details: null },
    memory_pressure: { observed: false, behaviour: '' },
    output_stayed_correct: null,
    failure_explanations: [...new Set(ids)].sort().map((receipt_id) => ({ receipt_id, explanation: '' })),
    thresholds: { profile: 'mainstream', cold_total_p95_ms: null, warm_p95_ms: null },
    notes: sheetNotes,
  };
}


/** Registers `drb receipts` and its subcommands. */
export function register(program: Command): void {
  const receipts = program.command('receipts').description('Validate, summarise and review device receipts.');

  receipts
    .command('validate')
    .description('Check receipts (files or folders of *.json): schema, no text fields, route honesty, URLs, statistics, outcome; any other drb artifact (summary, review, public-pass record, report, manifest) by its own schema.')
    .argument('<paths...>', 'receipt files or folders')
    .action((paths: string[], _options: unknown, command: Command) => {
      const { files, symlinks } = collectJsonFiles(paths);
      const { lines, notes, valid, artifacts, failed } = validateFiles(files, symlinks);
      for (const note of notes) process.stderr.write(`note: ${note}\n`);
      const copies = notes.length > 0 ? ` (${notes.length} byte-identical cop${notes.length === 1 ? 'y' : 'ies'} of a receipt, counted once)` : '';
      if (lines.length > 0) {
        for (const line of lines) process.stdout.write(`${line}\n`);
        process.stderr.write(`${failed} of ${files.length + symlinks.length} file(s) failed validation\n`);
        setExitCode(command, 1);
        return;
      }
      const others = artifacts > 0 ? `, and ${artifacts} other drb artifact(s) valid by their own schema` : '';
      process.stdout.write(`ok: ${valid - notes.length} receipt(s) valid${copies}${others}\n`);
    });

  receipts
    .command('summarize')
    .description('Group receipts by target and write summary.json + summary.md (streams; progress on a terminal).')
    .argument('<paths...>', 'receipt files or folders')
    .option('--out <dir>', 'output folder (reviews are read from <dir>/reviews/)', DEFAULT_SUMMARY_DIR)
    .action(async (paths: string[], options: { out: string }, command: Command) => {
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
      // A receipt counts once: copies are listed in the summary and never counted; a copy with other bytes under
      // the same id is an edited or forged receipt, so the command fails (the summary still says what it found).
      for (const duplicate of summary.duplicates) {
        for (const copy of duplicate.copies) {
          const claim = { kind: copy.identical ? ('identical' as const) : ('conflict' as const), firstFile: duplicate.counted_file };
          process.stderr.write(`${copy.identical ? 'note' : 'error'}: ${copy.file}: receipt_id: ${duplicateMessage(duplicate.receipt_id, claim)}\n`);
        }
      }
      if (summary.inputs.duplicates_conflicting > 0) setExitCode(command, 1);
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
    .command('report')
    .description('Write DIR/index.html: one self-contained page (no script, no request) with charts of cold stages, warm spread and drift, comparisons with 95% intervals, generation, and quality beside speed.')
    .argument('<paths...>', 'receipt files or folders, and score reports (drb score) to show beside suite runs')
    .requiredOption('--out <dir>', 'output folder for index.html')
    .option('--reviews <dir>', 'a summary folder whose reviews/ apply (as drb receipts summarize --out keeps them)')
    .action(async (paths: string[], options: { out: string; reviews?: string }, command: Command) => {
      const tty = process.stderr.isTTY === true;
      let lastShown = 0;
      const progress = tty
        ? (done: number, total: number) => {
            if (done === total || done - lastShown >= Math.max(1, Math.floor(total / 100))) {
              lastShown = done;
              process.stderr.write(`\rreport: ${done} / ${total}${done === total ? '\n' : ''}`);
            }
          }
        : undefined;
      const { data, file, problems } = await writeReport(paths, options.out, { reviewsDir: options.reviews, progress });
      // One line per input that was left out or counted once, as summarize does; a conflicting copy fails the command.
      for (const line of problems) process.stderr.write(`warning: ${line}\n`);
      if (data.summary.inputs.duplicates_conflicting > 0) setExitCode(command, 1);
      const i = data.summary.inputs;
      process.stdout.write(
        `report of ${i.receipts_valid + i.generation_receipts_valid + i.suite_receipts_valid + i.comparison_receipts_valid} receipt(s) ` +
          `(${data.summary.targets.length} target(s), ${data.summary.comparisons.length} comparison(s), ${data.quality.length} score report(s)): ${displayPath(file)}\n`,
      );
    });

  registerExport(receipts);

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
      makeOutputDir(reviewsDir, '--summary folder');
      // Stored byte for byte, so the hash in the summary is the hash of the reviewer's own file.
      writeFilesAtomically([{ path: stored, content: answersBytes }], `review ${stored}`);
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
