import type { Command } from 'commander';
import { ArtifactError } from '../core/artifacts/artifact-error.ts';
import { ItemFormat } from '../core/artifacts/items.ts';
import { buildCompareReport } from '../core/scoring/compare-report.ts';
import { renderCompareHeadline, renderCompareMarkdown } from '../core/scoring/render-markdown.ts';
import { CliError } from './cli-error.ts';
import { isJsonWithSchema, parseCandidateLimit, readArtifact, writeReportFiles } from './report-output.ts';
import { toolVersion } from './tool-version.ts';
import { quotedText } from '../core/text/terminal-text.ts';

interface CompareFlags {
  items: string;
  baseline: string;
  candidate: string;
  format: string;
  candidateLimit: string;
  outputDir: string;
  stem: string;
}

/**
 * Registers `drb compare`: a paired, row-by-row comparison of two prediction runs over the same item bytes, with
 * exact sign tests; writes DIR/STEM.json + DIR/STEM.md and prints the headline.
 * @param command `drb compare`, named and described in main.ts
 */
export function register(command: Command): void {
  command
    .requiredOption('--items <file>', 'items artifact both runs are scored against')
    .requiredOption(
      '--baseline <file>',
      'baseline run: predictions artifact, or a drb.score-report.v2 written with --per-row',
    )
    .requiredOption('--candidate <file>', 'candidate run, likewise')
    .option('--format <format>', 'items format: generic or ajimee', 'generic')
    .option('--candidate-limit <k>', 'only the first K candidates count', '8')
    .option('--output-dir <dir>', 'where to write the reports', 'outputs')
    .option('--stem <name>', 'report file name without extension', 'comparison')
    .action(async (flags: CompareFlags) => {
      const format = ItemFormat.safeParse(flags.format);
      if (!format.success)
        throw new CliError(`--format: unknown format ${quotedText(flags.format)} (expected generic or ajimee)`);
      const candidateLimit = parseCandidateLimit(flags.candidateLimit);
      const items = readArtifact(flags.items);
      const baseline = readArtifact(flags.baseline);
      const candidate = readArtifact(flags.candidate);
      let report;
      try {
        report = await buildCompareReport(items, baseline, candidate, {
          format: format.data,
          candidateLimit,
          toolVersion: toolVersion(),
        });
      } catch (error) {
        if (error instanceof ArtifactError) throw new CliError(error.message);
        throw error;
      }
      const written = writeReportFiles(
        flags.outputDir,
        flags.stem,
        [
          {
            extension: '.json',
            text: `${JSON.stringify(report, null, 2)}\n`,
            isOurs: (text) => isJsonWithSchema(text, report.schema),
          },
          {
            extension: '.md',
            text: renderCompareMarkdown(report),
            isOurs: (text) => text.startsWith('# Paired comparison\n'),
          },
        ],
        [flags.items, flags.baseline, flags.candidate],
      );
      process.stdout.write(`${renderCompareHeadline(report)}\n\n`);
      process.stdout.write(
        `broke ${report.broken.length} rows, fixed ${report.fixed.length}; wrote ${written.join(' and ')}\n`,
      );
    });
}
