/**
 * The file side of `drb receipts report`: read the inputs through the receipt tools' one reader, fold them with
 * ReportCollector (the summarizer's code, so the page's numbers are summary.json's), render the page and write
 * DIR/index.html atomically, never over a file this command did not write. A module apart from the commands so no
 * command imports another.
 */
import { join, resolve } from 'node:path';
import { CliError } from './cli-error.ts';
import { makeOutputDir, writeFilesAtomically } from './output-files.ts';
import {
  collectJsonFiles,
  contentFingerprint,
  displayPath,
  guardOverwrite,
  readInputDocuments,
  unreadLines,
} from './receipt-files.ts';
import { loadReviews } from './summarize-receipts.ts';
import { toolVersion } from './tool-version.ts';
import { ReportCollector } from '../core/report/report-collector.ts';
import type { ReportData } from '../core/report/report-data.ts';
import { REPORT_GENERATOR, renderReportHtml } from '../core/report/report-html.ts';

/** Whether `content` is a page this command wrote (so it may be replaced). */
export function isReportHtml(content: string): boolean {
  return (
    content.startsWith('<!doctype html>') && content.includes(`<meta name="generator" content="${REPORT_GENERATOR}">`)
  );
}

/** What `writeReport` made: the data, the page's path, and one line per input that was not used as given. */
export interface ReportResult {
  data: ReportData;
  file: string;
  /** `<file>: <problem>` for every invalid input and every copy of a receipt id (in input order). */
  problems: string[];
}

/**
 * Builds the report of the inputs in `paths` into `outDir/index.html`.
 * @param paths receipt, score-report and other files or folders (folders recursed for *.json)
 * @param outDir the folder to write index.html into (created when missing; skipped when inside an input folder)
 * @param options `reviewsDir`: a summary folder whose reviews/ apply, as `drb receipts summarize --out` keeps them;
 *   `progress`: called after each file with (done, total)
 * @throws CliError (exit 2) when no input is a valid receipt (nothing is written then), or index.html exists and
 *   is not a report
 */
export async function writeReport(
  paths: readonly string[],
  outDir: string,
  options: { reviewsDir?: string; progress?: (done: number, total: number) => void } = {},
): Promise<ReportResult> {
  const found = collectJsonFiles(paths, [resolve(outDir)]);
  const { files } = found;
  const reviews = options.reviewsDir === undefined ? new Map() : loadReviews(options.reviewsDir);
  const collector = new ReportCollector(contentFingerprint);
  const problems: string[] = [];
  for (const { shown, problem } of unreadLines(found)) {
    collector.addUnread(shown, problem);
    problems.push(`${shown}: (document): ${problem}`);
  }
  let done = 0;
  for (const doc of readInputDocuments(files)) {
    // One file at a time, as summarize reads them: only numbers outlive the iteration.
    const input = collector.addDocument(
      { file: doc.shown, sha256: doc.sha256, bytes: doc.bytes, bundle: doc.bundle?.shown },
      doc.parsed,
    );
    if (input.kind === 'invalid' || input.kind === 'duplicate') problems.push(`${doc.shown}: ${input.note}`);
    options.progress?.(++done, files.length);
  }
  if (collector.validCount === 0) {
    const count = files.length + found.symlinks.length + found.specials.length;
    throw new CliError(
      `${paths.map((p) => displayPath(p)).join(', ')}: no valid receipt among ${count} file(s) (run drb receipts validate); nothing written`,
    );
  }
  const data = await collector.finish({ reviews });
  const html = renderReportHtml(data, { toolVersion: toolVersion() });
  makeOutputDir(outDir, '--out');
  const file = join(outDir, 'index.html');
  guardOverwrite(file, isReportHtml, 'a page drb receipts report wrote');
  writeFilesAtomically([{ path: file, content: html }], `--out ${displayPath(outDir)}`);
  return { data, file, problems };
}
