import type { Command } from 'commander';
import { ArtifactError } from '../core/artifacts/artifact-error.ts';
import { isItemFormat } from '../core/artifacts/artifact-enums.ts';
import { DatasetFlagError } from '../core/scoring/dataset.ts';
import { renderHeadlineTable, renderScoreMarkdown } from '../core/scoring/render-markdown.ts';
import { buildScoreReport } from '../core/scoring/score-run.ts';
import { CliError } from './cli-error.ts';
import {
  isJsonWithSchema,
  openArtifact,
  parseCandidateLimit,
  readArtifact,
  writeReportFiles,
} from './report-output.ts';
import { toolVersion } from './tool-version.ts';
import { quotedText } from '../core/text/terminal-text.ts';

interface ScoreFlags {
  items: string;
  predictions: string;
  format: string;
  candidateLimit: string;
  datasetName?: string;
  datasetRevision?: string;
  datasetLicense?: string;
  outputDir: string;
  stem: string;
  perRow?: boolean;
}

/**
 * Registers `drb score`: scores a predictions artifact against an items artifact and writes DIR/STEM.json +
 * DIR/STEM.md (only when everything succeeded), printing the headline table.
 * @param command `drb score`, named and described in main.ts
 */
export function register(command: Command): void {
  command
    .requiredOption('--items <file>', 'items artifact (JSON array)')
    .requiredOption('--predictions <file>', 'predictions artifact (JSON array of {id, candidates, ...})')
    .option('--format <format>', 'items format: generic or ajimee', 'generic')
    .option(
      '--candidate-limit <k>',
      'only the first K candidates count for Recall@k, candidate miss and selection error',
      '8',
    )
    .option('--dataset-name <name>', 'dataset name to record (generic runs; declared, not verified)')
    .option('--dataset-revision <revision>', 'dataset revision to record')
    .option('--dataset-license <license>', 'dataset licence (or non-redistribution boundary) to record')
    .option('--output-dir <dir>', 'where to write the reports', 'outputs')
    .option('--stem <name>', 'report file name without extension', 'evaluation')
    .option('--per-row', 'add one entry per item row to the JSON report')
    .action(async (flags: ScoreFlags) => {
      const format = flags.format;
      if (!isItemFormat(format))
        throw new CliError(`--format: unknown format ${quotedText(format)} (expected generic or ajimee)`);
      const candidateLimit = parseCandidateLimit(flags.candidateLimit);
      const items = readArtifact(flags.items);
      // Read in pieces as it is scored: a large predictions file never sits in memory whole.
      const predictions = openArtifact(flags.predictions);
      let report;
      try {
        report = await buildScoreReport(items, predictions, {
          format,
          candidateLimit,
          declared: { name: flags.datasetName, revision: flags.datasetRevision, license: flags.datasetLicense },
          toolVersion: toolVersion(),
          perRow: flags.perRow === true,
        });
      } catch (error) {
        if (error instanceof ArtifactError || error instanceof DatasetFlagError) throw new CliError(error.message);
        throw error;
      } finally {
        predictions.close();
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
            text: renderScoreMarkdown(report),
            isOurs: (text) => text.startsWith('# Score report\n'),
          },
        ],
        [flags.items, flags.predictions],
      );
      process.stdout.write(
        `${renderHeadlineTable(report.metrics, report.candidate_limit)}\n\n${report.diagnosis.text}\n`,
      );
      process.stdout.write(`dataset: ${report.dataset.verification}; wrote ${written.join(' and ')}\n`);
    });
}
