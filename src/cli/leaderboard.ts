/**
 * `drb leaderboard --out DIR [--meta FILE] [--reviews DIR] PATH...`: one static, offline page of many targets side by
 * side, from receipts summaries (summary.json of `drb receipts summarize`, with the reviews stored beside them) and/or
 * receipts, bundles and score reports (summarised here with the report's collector, so the numbers are summarize's).
 * The rows, ranking rules and Pareto front are in src/core/leaderboard/, the page in src/core/report/leaderboard-html.ts;
 * this file reads and checks the files and writes DIR/index.html atomically.
 */
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { CliError } from './cli-error.ts';
import { setExitCode } from './exit-code.ts';
import { makeOutputDir, writeFilesAtomically } from './output-files.ts';
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
import { loadReviews, parseReview } from './summarize-receipts.ts';
import { toolVersion } from './tool-version.ts';
import { BUILTIN_PROFILES } from '../core/evidence/profiles.ts';
import { RECEIPTS_SUMMARY_SCHEMA, ReceiptsSummary } from '../core/evidence/receipts-summary.ts';
import { LEADERBOARD_META_SCHEMA, LeaderboardMeta } from '../core/leaderboard/leaderboard-meta.ts';
import {
  buildLeaderboard,
  type LeaderboardData,
  type QualityInput,
  type SummaryInput,
} from '../core/leaderboard/leaderboard-rows.ts';
import { LEADERBOARD_GENERATOR, renderLeaderboardHtml } from '../core/report/leaderboard-html.ts';
import { ReportCollector } from '../core/report/report-collector.ts';
import { issuePath } from '../core/text/zod-issues.ts';

/** Whether `content` is a page this command wrote (so it may be replaced). */
export function isLeaderboardHtml(content: string): boolean {
  return (
    content.startsWith('<!doctype html>') &&
    content.includes(`<meta name="generator" content="${LEADERBOARD_GENERATOR}">`)
  );
}

/** Reads and checks the governance file (CliError, exit 2, one line per problem, when it is not valid). */
function readMeta(file: string): LeaderboardMeta {
  const parsed = parseJson(readBytes(file));
  if (!parsed.ok) throw new CliError(`${file}: (document): ${parsed.message}`);
  const schema = (parsed.value as { schema?: unknown } | null)?.schema;
  if (schema !== LEADERBOARD_META_SCHEMA)
    throw new CliError(
      `${file}: schema: expected "${LEADERBOARD_META_SCHEMA}" (a governance file, see docs/leaderboard.md)`,
    );
  const checked = LeaderboardMeta.safeParse(parsed.value);
  if (!checked.success)
    throw new CliError(
      checked.error.issues.map((issue) => `${file}: ${issuePath(issue.path)}: ${issue.message}`).join('\nerror: '),
    );
  return checked.data;
}

/**
 * The targets whose stored review is intact beside a summary: `reviews/<key>.json` exactly (a summary naming any
 * other path is not followed), present, a valid drb.device-review.v1 for that target, with the SHA-256 the summary
 * names. Returns target key -> reviewer, and one note per review that could not be checked.
 */
function checkedReviews(
  summaryFile: string,
  summary: ReceiptsSummary,
): { reviews: Map<string, string>; notes: string[] } {
  const reviews = new Map<string, string>();
  const notes: string[] = [];
  for (const target of summary.targets) {
    if (target.review === null) continue;
    const expected = `reviews/${target.key}.json`;
    const shown = `${displayPath(summaryFile)}: targets.${target.key}.review`;
    if (target.review.file !== expected) {
      notes.push(
        `${shown}: names ${JSON.stringify(target.review.file.slice(0, 80))}, not ${expected}: not followed, the row stays community`,
      );
      continue;
    }
    const path = join(dirname(summaryFile), expected);
    let bytes: Buffer;
    try {
      bytes = readBytes(path);
    } catch {
      notes.push(`${shown}: ${displayPath(path)} not found beside the summary: the row stays community`);
      continue;
    }
    if (sha256(bytes) !== target.review.sha256) {
      notes.push(`${shown}: ${displayPath(path)} has another SHA-256 than the summary names: the row stays community`);
      continue;
    }
    try {
      const review = parseReview(bytes, displayPath(path));
      if (review.target === target.key) reviews.set(target.key, review.reviewer);
      else notes.push(`${shown}: the stored review names ${review.target}: the row stays community`);
    } catch (error) {
      notes.push(`${shown}: ${(error as Error).message.split('\n')[0]}: the row stays community`);
    }
  }
  return { reviews, notes };
}

/** What `writeLeaderboard` made. */
export interface LeaderboardResult {
  data: LeaderboardData;
  file: string;
  /** One line per input left out or not trusted as given (invalid receipts, copies, unverifiable reviews). */
  warnings: string[];
  /** A receipt id with two different contents was found: the command exits 1 after writing. */
  conflicting: boolean;
}

/**
 * Builds the leaderboard of `paths` into `outDir/index.html`.
 * @param paths summaries, receipts, bundles, score reports (files or folders)
 * @param outDir the output folder
 * @param options `metaFile`: the governance file; `reviewsDir`: a summary folder whose reviews/ apply to the receipts
 *   given directly; `progress`: called after each file
 */
export async function writeLeaderboard(
  paths: readonly string[],
  outDir: string,
  options: { metaFile?: string; reviewsDir?: string; progress?: (done: number, total: number) => void } = {},
): Promise<LeaderboardResult> {
  const meta = options.metaFile === undefined ? null : readMeta(options.metaFile);
  const { files, symlinks } = collectJsonFiles(paths, [resolve(outDir)]);
  const stored = options.reviewsDir === undefined ? new Map() : loadReviews(options.reviewsDir);
  const collector = new ReportCollector();
  const warnings: string[] = [];
  const summaries: SummaryInput[] = [];
  const summaryErrors: string[] = [];
  for (const link of symlinks) {
    collector.addUnread(displayPath(link), SYMLINK_PROBLEM);
    warnings.push(`${displayPath(link)}: (document): ${SYMLINK_PROBLEM}`);
  }
  let done = 0;
  for (const doc of readInputDocuments(files)) {
    if (doc.bundle === undefined) options.progress?.(++done, files.length);
    const schema = doc.parsed.ok ? (doc.parsed.value as { schema?: unknown } | null)?.schema : undefined;
    if (doc.bundle === undefined && schema === RECEIPTS_SUMMARY_SCHEMA && doc.parsed.ok) {
      const checked = ReceiptsSummary.safeParse(doc.parsed.value);
      if (!checked.success) {
        for (const issue of checked.error.issues.slice(0, 20))
          summaryErrors.push(`${doc.shown}: ${issuePath(issue.path)}: ${issue.message}`);
        continue;
      }
      const { reviews, notes } = checkedReviews(doc.file, checked.data);
      warnings.push(...notes);
      summaries.push({ file: doc.shown, summary: checked.data, checkedReviews: reviews });
      continue;
    }
    const input = collector.addDocument({ file: doc.shown, sha256: doc.sha256, bytes: doc.bytes }, doc.parsed);
    if (input.kind === 'invalid' || input.kind === 'duplicate') warnings.push(`${doc.shown}: ${input.note}`);
  }
  // A summary that does not validate would silently drop every target it holds: the command stops, writing nothing.
  if (summaryErrors.length > 0)
    throw new CliError(
      `${summaryErrors.join('\nerror: ')}\nerror: a summary is not a valid ${RECEIPTS_SUMMARY_SCHEMA}; nothing written`,
    );
  let quality: QualityInput[] = [];
  let comparisons = summaries.reduce((sum, s) => sum + s.summary.comparisons.length, 0);
  let conflicting = summaries.some((s) => s.summary.inputs.duplicates_conflicting > 0);
  if (collector.validCount > 0) {
    const data = await collector.finish({ reviews: stored });
    const reviewers = new Map(
      [...stored.entries()].map(([key, review]) => [key, review.review.reviewer] as [string, string]),
    );
    summaries.unshift({ file: '(receipts given directly)', summary: data.summary, checkedReviews: reviewers });
    quality = data.quality.map((q) => ({
      file: q.file,
      sha256: q.sha256,
      suiteTargetKeys: q.suite_target_keys,
      acc1: q.effective_acc_at_1,
      recallAtK: q.candidate_recall_at_k,
      k: q.candidate_limit,
      minCer: q.mean_effective_min_cer,
      abstention: q.abstention_rate,
      rows: q.rows,
    }));
    comparisons += data.summary.comparisons.length;
    conflicting ||= data.summary.inputs.duplicates_conflicting > 0;
  }
  if (summaries.length === 0) {
    throw new CliError(
      `${paths.join(', ')}: no valid receipt or receipts summary among ${files.length + symlinks.length} file(s); nothing written`,
    );
  }
  const data = await buildLeaderboard(summaries, quality, meta, BUILTIN_PROFILES, comparisons);
  for (const d of data.duplicateTargets)
    warnings.push(`${d.dropped}: target ${d.key} is already in ${d.kept}: shown once, from ${d.kept}`);
  const html = await renderLeaderboardHtml(data, { toolVersion: toolVersion() });
  makeOutputDir(outDir, '--out');
  const file = join(outDir, 'index.html');
  guardOverwrite(file, isLeaderboardHtml, 'a page drb leaderboard wrote');
  writeFilesAtomically([{ path: file, content: html }], `--out ${outDir}`);
  return { data, file, warnings, conflicting };
}

/** Registers `drb leaderboard`. */
export function register(command: Command): void {
  command
    .description(
      'Write DIR/index.html: an offline leaderboard of many targets (individual metrics first, fit score only for ranked rows, failed rows marked, verified and community rows apart, Pareto view, governance at the top).',
    )
    .argument(
      '<paths...>',
      'receipts summaries (summary.json), receipts, bundles and score reports, as files or folders',
    )
    .requiredOption('--out <dir>', 'output folder for index.html')
    .option(
      '--meta <file>',
      'the governance file (drb.leaderboard-meta.v1): funding, donated devices, pre-release access, rerun reasons, maintainers',
    )
    .option('--reviews <dir>', 'a summary folder whose reviews/ apply to the receipts given directly')
    .action(async (paths: string[], options: { out: string; meta?: string; reviews?: string }, command: Command) => {
      const tty = process.stderr.isTTY === true;
      let lastShown = 0;
      const progress = tty
        ? (done: number, total: number) => {
            if (done === total || done - lastShown >= Math.max(1, Math.floor(total / 100))) {
              lastShown = done;
              process.stderr.write(`\rleaderboard: ${done} / ${total}${done === total ? '\n' : ''}`);
            }
          }
        : undefined;
      const result = await writeLeaderboard(paths, options.out, {
        metaFile: options.meta,
        reviewsDir: options.reviews,
        progress,
      });
      for (const line of result.warnings) process.stderr.write(`warning: ${line}\n`);
      if (result.conflicting) setExitCode(command, 1);
      const rows = result.data.rows;
      const ranked = rows.filter((r) => r.profiles.mainstream.ranked).length;
      process.stdout.write(
        `leaderboard of ${rows.length} target(s) (${rows.filter((r) => r.verification.verified).length} maintainer-verified, ${rows.filter((r) => r.failure !== null).length} failed on their device, ` +
          `${ranked} ranked under mainstream): ${displayPath(result.file)}\n`,
      );
    });
}
