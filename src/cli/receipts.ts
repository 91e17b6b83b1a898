/**
 * `drb receipts validate|summarize|review`: from downloaded device receipts to evidence.
 *
 * - validate PATH...: every receipt checked (schema, no text, invariants) and every other drb artifact by its own
 *   schema (summary, review, public-pass record, reports, manifests); exit 1 with one line per problem.
 * - summarize PATH... [--out DIR]: stream the receipts into per-target summaries (DIR/summary.json + summary.md,
 *   default receipts/summary), picking up reviews stored in DIR/reviews/.
 * - review-template --summary FILE [--target KEY]: print an answers skeleton for one target (what the reviewer must
 *   confirm left empty).
 * - review --summary FILE [--target KEY] (--reviewer NAME | --answers FILE): count the summary's receipts again,
 *   fill empty answers from the evidence (naming each source), store the review next to the summary and recompute
 *   that target's evidence state, writing nothing until every check passed.
 * All logic lives in src/core/evidence/; this file reads and writes files and prints.
 */
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { CliError } from './cli-error.ts';
import { setExitCode } from './exit-code.ts';
import {
  collectJsonFiles,
  contentFingerprint,
  displayPath,
  MAX_SMALL_FILE_BYTES,
  parseJson,
  readBytes,
  readInputDocuments,
  sha256,
  unreadLines,
} from './receipt-files.ts';
import {
  foldInputs,
  loadReviews,
  parseReview,
  resolveSources,
  summarizeReceipts,
  summaryFiles,
  writeSummaryFiles,
} from './summarize-receipts.ts';
import { writeReport } from './receipts-report.ts';
import { registerExport } from './receipts-export.ts';
import { DEVICE_REVIEW_SCHEMA } from '../core/evidence/device-review.ts';
import { fillBlankAnswers, reviewAnswers, reviewTemplate } from '../core/evidence/review-answers.ts';
import { duplicateMessage, ReceiptIdLedger } from '../core/evidence/receipt-ids.ts';
import { RECEIPTS_SUMMARY_SCHEMA, ReceiptsSummary } from '../core/evidence/receipts-summary.ts';
import { checkReceiptsSummary } from '../core/evidence/summary-invariants.ts';
import { canonicalJson } from '../core/evidence/target-identity.ts';
import { validateReceipt, type ReceiptProblem } from '../core/validation/validate-receipt.ts';
import { issuePath } from '../core/text/zod-issues.ts';
import { jsonShapeProblems } from '../core/text/json-shape.ts';
import { terminalText } from '../core/text/terminal-text.ts';

/** Default summary folder, relative to the working folder (committed under receipts/). */
export const DEFAULT_SUMMARY_DIR = join('receipts', 'summary');

function problemLine(file: string, problem: ReceiptProblem): string {
  // The file is shown escaped (displayPath); the path and message are ours, but a message may quote a value: the
  // one terminal rule covers the whole line.
  return terminalText(`${file}: ${problem.path || '(document)'}: ${problem.message}`);
}

/**
 * Checks every file: its problem lines, notes (copies of a receipt, counted once), how many files were valid and how
 * many failed. A receipt counts once: a second file with the id (in any letter case) or the device run and other
 * content fails.
 */
export function validateFiles(found: ReturnType<typeof collectJsonFiles>): {
  lines: string[];
  notes: string[];
  valid: number;
  artifacts: number;
  failed: number;
} {
  const lines = unreadLines(found).map(({ shown, problem }) => `${shown}: (document): ${problem}`);
  const notes: string[] = [];
  const ledger = new ReceiptIdLedger();
  let valid = 0;
  let artifacts = 0;
  let failed = lines.length;
  for (const { shown, parsed } of readInputDocuments(found.files)) {
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
      const runId = result.kind === 'receipt' ? result.receipt.run.id : null;
      const claim = ledger.claim(id, { file: shown, fingerprint: contentFingerprint(parsed.value) }, runId);
      if (claim.kind === 'identical') notes.push(`${shown}: receipt_id: ${duplicateMessage(id, claim)}`);
      if (claim.kind === 'conflict') {
        lines.push(
          `${shown}: ${claim.matchedBy === 'run_id' ? 'run.id' : 'receipt_id'}: ${duplicateMessage(id, claim)}`,
        );
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

/**
 * Reads and checks a summary file (bounded read, its own schema, its own cross-field rules: an edited summary whose
 * counts contradict each other is refused) and finds `target` in it (CliError, exit 2, otherwise); index -1 when
 * `target` is null (the caller picks).
 */
function loadSummaryTarget(file: string, target: string | null): { summary: ReceiptsSummary; index: number } {
  const shown = displayPath(file);
  const parsed = parseJson(readBytes(file));
  if (!parsed.ok) throw new CliError(`${shown}: (document): ${parsed.message}`);
  const shape = jsonShapeProblems(parsed.value)[0];
  if (shape !== undefined) throw new CliError(`${shown}: ${shape.path}: ${shape.message}`);
  const schema = (parsed.value as { schema?: unknown } | null)?.schema;
  if (
    typeof schema === 'string' &&
    schema !== RECEIPTS_SUMMARY_SCHEMA &&
    /^drb\.receipts-summary\.v\d+$/.test(schema)
  ) {
    throw new CliError(
      `${shown}: schema: is ${schema}, from an earlier drb version; summarise the receipts again (drb receipts summarize)`,
    );
  }
  const checked = ReceiptsSummary.safeParse(parsed.value);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new CliError(`${shown}: ${issuePath(issue.path)}: ${issue.message} (not a ${RECEIPTS_SUMMARY_SCHEMA} file)`);
  }
  const summary = checked.data;
  const contradiction = checkReceiptsSummary(summary)[0];
  if (contradiction !== undefined) {
    throw new CliError(
      `${shown}: ${contradiction.path}: ${contradiction.message} (the summary contradicts itself: summarise the receipts again)`,
    );
  }
  if (target === null) return { summary, index: -1 };
  const index = summary.targets.findIndex((t) => t.key === target);
  if (index < 0) {
    throw new CliError(
      `${shown}: targets: no target ${terminalText(target.slice(0, 80))} (known: ${summary.targets.map((t) => t.key).join(', ') || 'none'})`,
    );
  }
  return { summary, index };
}

/**
 * The first place two JSON values differ, as a field path and the two values (short), or null when they are equal.
 * Both are depth-bounded (a summary that passed its schema; one this tool made).
 */
function firstDifference(
  given: unknown,
  made: unknown,
  path = '',
): { path: string; given: string; made: string } | null {
  if (canonicalJson(given) === canonicalJson(made)) return null;
  const short = (value: unknown) => {
    const text = value === undefined ? '(absent)' : JSON.stringify(value);
    return terminalText(text.length <= 80 ? text : `${text.slice(0, 79)}…`);
  };
  if (Array.isArray(given) && Array.isArray(made)) {
    if (given.length !== made.length)
      return { path: `${path || '(root)'}.length`, given: String(given.length), made: String(made.length) };
    for (let i = 0; i < given.length; i++) {
      const found = firstDifference(given[i], made[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
  } else if (
    given !== null &&
    made !== null &&
    typeof given === 'object' &&
    typeof made === 'object' &&
    !Array.isArray(given) &&
    !Array.isArray(made)
  ) {
    const keys = [...new Set([...Object.keys(given), ...Object.keys(made)])].sort();
    for (const key of keys) {
      const found = firstDifference(
        (given as Record<string, unknown>)[key],
        (made as Record<string, unknown>)[key],
        path ? `${path}.${key}` : key,
      );
      if (found !== null) return found;
    }
  }
  return { path: path || '(root)', given: short(given), made: short(made) };
}

/** The thresholds a review declares: the reviewer's options (a profile, explicit limits), `mainstream` by default. */
interface ThresholdOptions {
  profile?: string;
  coldP95Ms?: string;
  warmP95Ms?: string;
}

function declaredThresholds(options: ThresholdOptions): {
  profile: string | null;
  cold_total_p95_ms: number | null;
  warm_p95_ms: number | null;
} {
  const limit = (value: string | undefined, flag: string): number | null => {
    if (value === undefined) return null;
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0)
      throw new CliError(`${flag}: expected a positive number of ms, got '${value.slice(0, 40)}'`);
    return n;
  };
  const cold = limit(options.coldP95Ms, '--cold-p95-ms');
  const warm = limit(options.warmP95Ms, '--warm-p95-ms');
  const profile =
    options.profile === 'none' ? null : (options.profile ?? (cold === null && warm === null ? 'mainstream' : null));
  return { profile, cold_total_p95_ms: cold, warm_p95_ms: warm };
}

/** The target to review: `--target`, or the summary's only device target when there is one. */
function pickTarget(file: string, target: string | undefined): { summary: ReceiptsSummary; index: number } {
  if (target !== undefined) return loadSummaryTarget(file, target);
  const { summary } = loadSummaryTarget(file, null);
  if (summary.targets.length !== 1) {
    throw new CliError(
      `${displayPath(file)}: targets: ${summary.targets.length} device targets; name one with --target (known: ${summary.targets.map((t) => t.key).join(', ') || 'none'})`,
    );
  }
  return { summary, index: 0 };
}

/** Registers the subcommands of `drb receipts` on its command (named and described in main.ts). */
export function register(receipts: Command): void {
  receipts
    .command('validate')
    .description(
      'Check receipts (files or folders of *.json): schema, no text fields, route honesty, URLs, statistics, outcome; any other drb artifact (summary, review, public-pass record, report, manifest) by its own schema.',
    )
    .argument('<paths...>', 'receipt files or folders')
    .action((paths: string[], _options: unknown, command: Command) => {
      const found = collectJsonFiles(paths);
      const { lines, notes, valid, artifacts, failed } = validateFiles(found);
      for (const note of notes) process.stderr.write(`note: ${terminalText(note)}\n`);
      const copies =
        notes.length > 0
          ? ` (${notes.length} cop${notes.length === 1 ? 'y' : 'ies'} of a receipt with the same content, counted once)`
          : '';
      if (lines.length > 0) {
        for (const line of lines) process.stdout.write(`${terminalText(line)}\n`);
        process.stderr.write(
          `${failed} of ${found.files.length + found.symlinks.length + found.specials.length} file(s) failed validation\n`,
        );
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
        process.stderr.write(
          `warning: ${summary.inputs.receipts_invalid} invalid receipt(s) excluded (listed in the summary)\n`,
        );
      }
      // A receipt counts once: copies are listed in the summary and never counted; a copy with other bytes under
      // the same id is an edited or forged receipt, so the command fails (the summary still says what it found).
      for (const duplicate of summary.duplicates) {
        for (const copy of duplicate.copies) {
          const claim = {
            kind: copy.identical ? ('identical' as const) : ('conflict' as const),
            firstFile: duplicate.counted_file,
            firstId: duplicate.receipt_id,
            matchedBy: copy.matched_by,
          };
          const field = copy.matched_by === 'run_id' ? 'run.id' : 'receipt_id';
          const line =
            copy.matched_by === 'run_id'
              ? `another receipt of the run of receipt_id ${duplicate.receipt_id} (counted from ${duplicate.counted_file}): one run makes one receipt; not counted`
              : duplicateMessage(duplicate.receipt_id, claim);
          process.stderr.write(
            `${copy.identical ? 'note' : 'error'}: ${terminalText(`${copy.file}: ${field}: ${line}`)}\n`,
          );
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
          (summary.inputs.comparison_receipts_valid > 0
            ? `, ${summary.inputs.comparison_receipts_valid} comparison receipt(s)`
            : '') +
          `: ${displayPath(json)}, ${displayPath(md)}\n`,
      );
    });

  receipts
    .command('report')
    .description(
      'Write DIR/index.html: one self-contained page (no script, no request) with charts of cold stages, warm spread and drift, comparisons with 95% intervals, generation, and quality beside speed.',
    )
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
      for (const line of problems) process.stderr.write(`warning: ${terminalText(line)}\n`);
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
    .description(
      `Print a ${DEVICE_REVIEW_SCHEMA} answers skeleton for one target: the device and conditions from the session sheets; what the reviewer must confirm (revision, launch to result, tab, memory pressure, output) left empty, for drb receipts review to fill from the evidence or the reviewer to type.`,
    )
    .requiredOption('--summary <file>', 'summary.json written by drb receipts summarize')
    .option('--target <key>', 'target key from the summary (t-...); optional when the summary has one device target')
    .option('--profile <name>', 'declared budget profile (entry, mainstream, performance, or none)')
    .option('--cold-p95-ms <ms>', 'declared cold total p95 limit')
    .option('--warm-p95-ms <ms>', 'declared warm p95 limit')
    .action((options: { summary: string; target?: string } & ThresholdOptions) => {
      const { summary, index } = pickTarget(options.summary, options.target);
      const { answers, toFill } = reviewTemplate(summary.targets[index], declaredThresholds(options));
      process.stdout.write(`${JSON.stringify(answers, null, 2)}\n`);
      for (const line of toFill) process.stderr.write(`to fill: ${terminalText(line)}\n`);
    });

  receipts
    .command('review')
    .description(
      'Store a device review (drb.device-review.v1) for one target next to the summary and recompute its evidence state. Without --answers the review is made from the evidence (see review-template) with --reviewer and the clock; with --answers, its empty slots are filled the same way.',
    )
    .requiredOption('--summary <file>', 'summary.json written by drb receipts summarize')
    .option('--target <key>', 'target key from the summary (t-...); optional when the summary has one device target')
    .option(
      '--answers <file>',
      `reviewer answers JSON (${DEVICE_REVIEW_SCHEMA}; see docs/receipts.md); empty slots are filled from the evidence`,
    )
    .option('--reviewer <name>', "who reviews (fills an empty reviewer; the review time is the clock's)")
    .option(
      '--profile <name>',
      'declared budget profile when the review is made from the evidence (entry, mainstream, performance, or none)',
    )
    .option('--cold-p95-ms <ms>', 'declared cold total p95 limit')
    .option('--warm-p95-ms <ms>', 'declared warm p95 limit')
    .option('--force', 'replace a different review already stored for the target')
    .action(
      async (
        options: {
          summary: string;
          target?: string;
          answers?: string;
          reviewer?: string;
          force?: boolean;
        } & ThresholdOptions,
      ) => {
        // Every check first; nothing is written until all of them passed.
        if (options.answers === undefined && options.reviewer === undefined) {
          throw new CliError(
            'review: name the reviewer (--reviewer NAME) to review from the evidence, or give an answers file (--answers FILE)',
          );
        }
        const reviewer = options.reviewer === undefined ? null : options.reviewer.trim();
        if (reviewer === '') throw new CliError('--reviewer: is empty; name who reviews');
        const thresholds = declaredThresholds(options);
        const { summary: given, index } = pickTarget(options.summary, options.target);
        const targetKey = given.targets[index].key;
        const outDir = dirname(options.summary);
        // The counts come from the receipts, never from summary.json: the summary's inputs are read and folded again,
        // and the summary must be exactly what they give (an edited summary.json is refused, not trusted).
        if (given.sources.length === 0) {
          throw new CliError(
            `${displayPath(options.summary)}: sources: names no input to count from (make it with drb receipts summarize)`,
          );
        }
        const reviews = loadReviews(outDir);
        const { summarizer } = foldInputs(resolveSources(outDir, given.sources), [resolve(outDir)]);
        const recount = await summarizer.finish({ reviews, sources: given.sources });
        const difference = firstDifference(given, recount);
        if (difference !== null) {
          throw new CliError(
            `${displayPath(options.summary)}: ${difference.path}: is ${difference.given} in the file, but its receipts give ${difference.made} ` +
              '(the summary is not what its receipts say: summarise them again; nothing written)',
          );
        }
        // What the evidence says, from the recounted target (the receipts' own numbers); it fills only empty slots.
        const evidence = reviewAnswers(
          recount.targets[index],
          { reviewer, reviewedAt: new Date().toISOString() },
          thresholds,
        );
        let answersBytes: Buffer;
        let shown: string;
        if (options.answers !== undefined) {
          shown = displayPath(options.answers);
          const ownBytes = readBytes(options.answers, MAX_SMALL_FILE_BYTES);
          const typed = parseJson(ownBytes);
          if (!typed.ok) throw new CliError(`${shown}: (document): ${typed.message}`);
          const shape = jsonShapeProblems(typed.value)[0];
          if (shape !== undefined) throw new CliError(`${shown}: ${shape.path}: ${shape.message}`);
          const filled = fillBlankAnswers(typed.value, evidence.answers);
          // The reviewer's own bytes when nothing was filled in; else the completed answers (named in `derived`).
          answersBytes =
            canonicalJson(filled) === canonicalJson(typed.value)
              ? ownBytes
              : Buffer.from(`${JSON.stringify(filled, null, 2)}\n`);
        } else {
          // Made from the evidence alone: what only a person knows must be there (one line each when it is not).
          shown = `(review of ${targetKey} from the evidence)`;
          const unfilled = evidence.missing.filter((line) => !line.startsWith('failure_explanations:'));
          if (unfilled.length > 0)
            throw new CliError(unfilled.map((line) => terminalText(`${targetKey}: ${line}`)).join('\nerror: '));
          answersBytes = Buffer.from(`${JSON.stringify(evidence.answers, null, 2)}\n`);
        }
        const review = parseReview(answersBytes, shown);
        if (review.target !== targetKey) {
          throw new CliError(
            `${shown}: target: names ${terminalText(review.target)}, but --target is ${terminalText(targetKey.slice(0, 80))}`,
          );
        }
        const storedName = `reviews/${basename(`${targetKey}.json`)}`;
        const stored = join(outDir, storedName);
        const earlier = reviews.get(targetKey);
        if (earlier !== undefined && !options.force && earlier.sha256 !== sha256(answersBytes)) {
          throw new CliError(
            `${displayPath(stored)}: a different review is already stored for ${targetKey}; pass --force to replace it`,
          );
        }
        reviews.set(review.target, { review, file: storedName, sha256: sha256(answersBytes) });
        const summary = await summarizer.finish({ reviews, sources: given.sources });
        const target = summary.targets.find((t) => t.key === targetKey);
        if (target === undefined)
          throw new CliError(`${displayPath(options.summary)}: targets: no target ${targetKey} in its receipts`);
        // The stored review (byte for byte, so the summary's hash is the hash of the stored file) and the summary it
        // changes are written together, all or nothing.
        writeSummaryFiles(outDir, [{ path: stored, content: answersBytes }, ...summaryFiles(outDir, summary)]);
        const { evidence: verdict, counts: c } = target;
        process.stdout.write(`${targetKey}: ${verdict.state}\n`);
        for (const reason of verdict.not_higher_because)
          process.stdout.write(`  not higher: ${terminalText(reason)}\n`);
        process.stdout.write(
          `  cold runs: ${c.full_cold} full protocol cold(s) of ${c.min_cold} (measured: ${c.measured_network_cold} network-cold, ` +
            `${c.measured_fresh_start} from a fresh start; attested: ${c.attested_cold} restart and clear); warm receipts: ${c.clean_warm} of ${c.min_warm}\n`,
        );
        for (const d of review.derived ?? [])
          process.stdout.write(`  from the evidence: ${terminalText(`${d.field}: ${d.from}`)}\n`);
        process.stdout.write(
          `review stored at ${displayPath(stored)}; ${displayPath(options.summary)} and summary.md updated\n`,
        );
      },
    );
}
