import type { Command } from 'commander';
import { AnswerCasesError, answerCasesFromJson } from '../core/generation/answer-cases.ts';
import { GenerationAnswers } from '../core/generation/generation-answers.ts';
import { renderAnswerHeadline, renderAnswerScoreMarkdown } from '../core/answers/answer-markdown.ts';
import { AnswerReview, AnswerReviewError, reviewQuality, type ReviewInput } from '../core/answers/answer-review.ts';
import { AnswerScoreError, scoreAnswers, type AnswersInput } from '../core/answers/answer-score.ts';
import { firstIssueLine } from '../core/text/zod-issues.ts';
import { CliError } from './cli-error.ts';
import { parseJson, sha256 } from './receipt-files.ts';
import { isJsonWithSchema, readArtifact, writeReportFiles } from './report-output.ts';
import { toolVersion } from './tool-version.ts';

interface ScoreAnswersFlags {
  cases: string;
  answers: string[];
  reviews?: string[];
  outputDir: string;
  stem: string;
}

/** Reads a JSON input: its facts (base name, size, SHA-256 of the raw bytes) and its parsed value. */
function readJsonInput(path: string): { info: { file: string; bytes: number; sha256: string }; value: unknown } {
  const artifact = readArtifact(path);
  const parsed = parseJson(artifact.bytes);
  if (!parsed.ok) throw new CliError(`${path}: $: ${parsed.message}`);
  return {
    info: {
      file: artifact.reportName,
      bytes: artifact.bytes.byteLength,
      sha256: artifact.sha256 ?? sha256(artifact.bytes),
    },
    value: parsed.value,
  };
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * Registers `drb score-answers`: scores the answers of generation runs against the frozen case set they were
 * generated from, per repetition with the mean and the worst repetition, optionally with reviewer labels, and writes
 * DIR/STEM.json + DIR/STEM.md (only when everything succeeded).
 * @param program the root command
 */
export function register(command: Command): void {
  command
    .requiredOption('--cases <file>', 'case set (drb.answer-cases.v1), the exact file the run used')
    .requiredOption(
      '--answers <file>',
      'answers artifact (drb.generation-answers.v1); repeat for more files of the same model',
      collect,
    )
    .option(
      '--reviews <file>',
      'reviewer labels (drb.answer-review.v1); one review, or two reviews and one adjudication',
      collect,
    )
    .option('--output-dir <dir>', 'where to write the reports', 'outputs')
    .option('--stem <name>', 'report file name without extension', 'answer-score')
    .action((flags: ScoreAnswersFlags) => {
      const casesFile = readJsonInput(flags.cases);
      let cases;
      try {
        cases = answerCasesFromJson(casesFile.value, flags.cases);
      } catch (error) {
        if (error instanceof AnswerCasesError) throw new CliError(error.message);
        throw error;
      }
      const inputs: AnswersInput[] = flags.answers.map((path) => {
        const file = readJsonInput(path);
        const parsed = GenerationAnswers.safeParse(file.value);
        if (!parsed.success) throw new CliError(`${path}: ${firstIssueLine(parsed.error)}`);
        return { info: file.info, answers: parsed.data, shown: path };
      });
      const reviews: ReviewInput[] = (flags.reviews ?? []).map((path) => {
        const file = readJsonInput(path);
        const parsed = AnswerReview.safeParse(file.value);
        if (!parsed.success) throw new CliError(`${path}: ${firstIssueLine(parsed.error)}`);
        return { file: file.info.file, sha256: file.info.sha256, review: parsed.data, shown: path };
      });
      let report;
      try {
        let reviewed = null;
        if (reviews.length > 0) {
          const answered = new Map(
            inputs.map((input) => [input.info.sha256, new Set(input.answers.answers.map((a) => a.repetition))]),
          );
          reviewed = reviewQuality(reviews, cases, casesFile.info.sha256, answered);
        }
        report = scoreAnswers({ info: casesFile.info, cases }, inputs, { toolVersion: toolVersion(), reviewed });
      } catch (error) {
        if (error instanceof AnswerScoreError || error instanceof AnswerReviewError) throw new CliError(error.message);
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
            text: renderAnswerScoreMarkdown(report),
            isOurs: (text) => text.startsWith('# Answer score report\n'),
          },
        ],
        [flags.cases, ...flags.answers, ...(flags.reviews ?? [])],
      );
      process.stdout.write(`${renderAnswerHeadline(report)}\n\n`);
      process.stdout.write(
        report.complete
          ? 'complete: every case answered in every repetition\n'
          : `not complete: ${report.missing.join('; ')}\n`,
      );
      if (report.reviewed !== null) process.stdout.write(`reviewed: ${report.reviewed.status}\n`);
      process.stdout.write(`wrote ${written.join(' and ')}\n`);
    });
}
