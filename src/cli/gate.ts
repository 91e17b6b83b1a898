/**
 * `drb gate`: the LFM escalation gate of the evaluation protocol, decided from existing reports.
 * - `plan --check P`: validate a `drb.gate-plan.v1` and print its SHA-256 (exit 0 valid, 2 not).
 * - `escalation --plan P --runs ... [--reviews ...] [--licence ...]`: walk the ladder, print one line per step and
 *   the decision, write DIR/STEM.json (`drb.gate-report.v1`) and DIR/STEM.md. Exit 0 decided, 1 blocked, 2 bad input.
 * The file side only: the checks and the walk are pure (src/core/gate/).
 */
import { existsSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Command } from 'commander';
import { ArtifactError } from '../core/artifacts/artifact-error.ts';
import { parsePredictionsValue } from '../core/artifacts/predictions.ts';
import { DEVICE_REVIEW_SCHEMA, type DeviceReview } from '../core/evidence/device-review.ts';
import { RECEIPTS_SUMMARY_SCHEMA, ReceiptsSummary } from '../core/evidence/receipts-summary.ts';
import { PUBLIC_PASS_SCHEMA, PublicPassRecord } from '../core/automation/public-pass.ts';
import { CompareReport } from '../core/scoring/compare-report.ts';
import { checkCompareReport } from '../core/scoring/compare-report-invariants.ts';
import { ScoreReport } from '../core/scoring/score-report.ts';
import { checkScoreReport } from '../core/scoring/score-report-invariants.ts';
import { checkReceiptsSummary } from '../core/evidence/summary-invariants.ts';
import { CandidatesRow } from '../core/suite/candidates.ts';
import {
  GATE_PLAN_SCHEMA,
  GatePlanError,
  LICENCE_REVIEW_SCHEMA,
  LicenceReview,
  parseGatePlan,
  type GatePlan,
} from '../core/gate/gate-plan.ts';
import {
  checkPredictionsAgainstArtifact,
  checkScoreReportAgainstPlan,
  GateInputError,
  placeComparison,
  type LadderComparison,
  type LadderRun,
  type SummaryTarget,
} from '../core/gate/gate-inputs.ts';
import { gateReportLines, renderGateMarkdown, walkEscalation, type GateReport } from '../core/gate/escalation.ts';
import { firstIssueLine } from '../core/text/zod-issues.ts';
import { CliError } from './cli-error.ts';
import { setExitCode } from './exit-code.ts';
import { parseJson, readBytes, sha256 } from './receipt-files.ts';
import { isJsonWithSchema, writeReportFiles } from './report-output.ts';
import { loadReviews, parseReview } from './summarize-receipts.ts';
import { toolVersion } from './tool-version.ts';

/** One input file read once: bytes hashed, JSON parsed. */
interface Loaded {
  path: string;
  name: string;
  sha256: string;
  value: unknown;
}

function load(path: string): Loaded {
  const bytes = readBytes(path);
  const parsed = parseJson(bytes);
  if (!parsed.ok) throw new CliError(`${path}: $: ${parsed.message}`);
  return { path, name: basename(path), sha256: sha256(bytes), value: parsed.value };
}

const schemaOf = (value: unknown) =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as { schema?: unknown }).schema
    : undefined;

function parseWith<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: import('zod').ZodError } },
  file: Loaded,
): T {
  const parsed = schema.safeParse(file.value);
  if (!parsed.success) throw new CliError(`${file.path}: ${firstIssueLine(parsed.error)}`);
  return parsed.data;
}

/**
 * `parseWith`, then the kind's cross-field rules (src/core: a score report's rates against its counts, a comparison
 * report's paired counts against its runs, a summary's counts against its lists): the first contradiction refuses the
 * file with one line, before anything is decided or written.
 */
function parseChecked<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: import('zod').ZodError } },
  check: (value: T) => Array<{ path: string; message: string }>,
  file: Loaded,
): T {
  const value = parseWith(schema, file);
  const problem = check(value)[0];
  if (problem !== undefined)
    throw new CliError(
      `${file.path}: ${problem.path}: ${problem.message} (the file contradicts itself; make it again)`,
    );
  return value;
}

function loadPlan(path: string): { plan: GatePlan; file: Loaded } {
  const file = load(path);
  try {
    return { plan: parseGatePlan(file.value, path), file };
  } catch (error) {
    if (error instanceof GatePlanError) throw new CliError(error.message);
    throw error;
  }
}

/** `<ladder id>=<path>` or a plain path (an `=` in a plain path is read as a label only when the id is a ladder id). */
function splitLabel(value: string, plan: GatePlan): { step: string | null; path: string } {
  const at = value.indexOf('=');
  if (at > 0) {
    const step = value.slice(0, at);
    if (plan.ladder.some((s) => s.id === step)) return { step, path: value.slice(at + 1) };
    if (!existsSync(value))
      throw new CliError(
        `--runs: ${JSON.stringify(step)} is not a ladder id of the plan (${plan.ladder.map((s) => s.id).join(', ')})`,
      );
  }
  return { step: null, path: value };
}

interface EscalationFlags {
  plan: string;
  runs: string[];
  reviews?: string[];
  licence?: string[];
  outputDir: string;
  stem: string;
}

/**
 * Reads, classifies and checks every input, then walks the ladder.
 * @param flags the command's options
 */
function escalation(flags: EscalationFlags): GateReport {
  const { plan, file: planFile } = loadPlan(flags.plan);
  const inputs: GateReport['inputs'] = [];
  let candidates: { file: Loaded; rows: CandidatesRow[] } | null = null;
  let artifactRun: { file: string; report: ScoreReport } | null = null;
  const reports: Array<{ step: string; file: Loaded; report: ScoreReport }> = [];
  const predictions: Array<{ step: string; file: Loaded }> = [];
  const compares: Array<{ file: Loaded; report: CompareReport }> = [];
  for (const value of flags.runs) {
    const { step, path } = splitLabel(value, plan);
    const file = load(path);
    const schema = schemaOf(file.value);
    if (Array.isArray(file.value)) {
      if (file.sha256 === plan.artifact.candidates.sha256) {
        const rows = parseWith(CandidatesRow.array(), file);
        candidates = { file, rows };
        inputs.push({ file: file.name, sha256: file.sha256, kind: 'candidates', step: null });
        continue;
      }
      if (step === null) {
        throw new CliError(
          `${path}: $: a predictions file that is not the plan's candidate artifact (${plan.artifact.candidates.sha256.slice(0, 12)}…); label it with its ladder id: --runs <id>=${path}`,
        );
      }
      predictions.push({ step, file });
      inputs.push({ file: file.name, sha256: file.sha256, kind: 'predictions', step });
    } else if (schema === 'drb.score-report.v2') {
      const report = parseChecked(ScoreReport, checkScoreReport, file);
      try {
        checkScoreReportAgainstPlan(plan, report, path);
      } catch (error) {
        if (error instanceof GateInputError) throw new CliError(error.message);
        throw error;
      }
      if (report.inputs.predictions.sha256 === plan.artifact.candidates.sha256) {
        if (step !== null)
          throw new CliError(
            `${path}: inputs.predictions.sha256: scored the candidate artifact itself, not a run of ${step}`,
          );
        if (artifactRun !== null)
          throw new CliError(
            `${path}: $: a second score report of the candidate artifact (the first is ${artifactRun.file})`,
          );
        artifactRun = { file: file.name, report };
        inputs.push({ file: file.name, sha256: file.sha256, kind: 'score-report', step: null });
        continue;
      }
      if (step === null)
        throw new CliError(
          `${path}: $: label a reranker's score report with its ladder id: --runs <id>=${path} (ids: ${plan.ladder.map((s) => s.id).join(', ')})`,
        );
      const earlier = reports.find((r) => r.step === step);
      if (earlier)
        throw new CliError(
          `${path}: $: ${step} already has a score report (${earlier.file.path}): one run per ladder step`,
        );
      reports.push({ step, file, report });
      inputs.push({ file: file.name, sha256: file.sha256, kind: 'score-report', step });
    } else if (schema === 'drb.compare-report.v1') {
      compares.push({ file, report: parseChecked(CompareReport, checkCompareReport, file) });
      inputs.push({ file: file.name, sha256: file.sha256, kind: 'compare-report', step: null });
    } else {
      throw new CliError(
        `${path}: schema: --runs takes score reports, comparison reports, predictions and the candidate artifact; this is ${typeof schema === 'string' && /^[A-Za-z0-9._:/-]{1,100}$/.test(schema) ? schema : 'none of them'}`,
      );
    }
  }
  const runs: LadderRun[] = [];
  try {
    for (const { step, file, report } of reports) {
      const given = predictions.filter((p) => p.step === step);
      let checked = false;
      for (const p of given) {
        if (p.file.sha256 !== report.inputs.predictions.sha256) {
          throw new GateInputError(
            p.file.path,
            '$',
            `is not the predictions file ${file.path} scored (${report.inputs.predictions.sha256.slice(0, 12)}…)`,
          );
        }
        if (candidates === null)
          throw new GateInputError(
            p.file.path,
            '$',
            `the candidate artifact ${plan.artifact.candidates.file} must be given with --runs to check these predictions against it`,
          );
        const rows = parsePredictionsValue(p.file.value, p.file.path);
        checkPredictionsAgainstArtifact(candidates.rows, rows, p.file.path, candidates.file.path);
        checked = true;
      }
      runs.push({ step, file: file.path, sha256: file.sha256, report, predictionsChecked: checked });
    }
    for (const p of predictions) {
      if (!reports.some((r) => r.step === p.step))
        throw new GateInputError(
          p.file.path,
          '$',
          `predictions of ${p.step} without its score report (drb score --per-row) in --runs`,
        );
    }
  } catch (error) {
    if (error instanceof GateInputError || error instanceof ArtifactError) throw new CliError(error.message);
    throw error;
  }
  const comparisons: LadderComparison[] = [];
  for (const { file, report } of compares) {
    try {
      comparisons.push(placeComparison(plan, report, file.path, file.sha256, runs));
    } catch (error) {
      if (error instanceof GateInputError) throw new CliError(error.message);
      throw error;
    }
  }
  const { deviceTargets, notDeviceEvidence } = readDeviceEvidence(flags.reviews ?? [], inputs);
  const licences = (flags.licence ?? []).map((path) => {
    const file = load(path);
    if (schemaOf(file.value) !== LICENCE_REVIEW_SCHEMA)
      throw new CliError(`${path}: schema: --licence takes a ${LICENCE_REVIEW_SCHEMA} record`);
    inputs.push({ file: file.name, sha256: file.sha256, kind: 'licence-review', step: null });
    return { file: file.name, review: parseWith(LicenceReview, file) };
  });
  return walkEscalation({
    plan,
    planFile: { file: planFile.name, sha256: planFile.sha256 },
    toolVersion: toolVersion(),
    artifactRun,
    runs,
    comparisons,
    deviceTargets,
    licences,
    notDeviceEvidence,
    inputs,
  });
}

/**
 * Device evidence from `--reviews`: receipts summary folders (summary.json + reviews/), summary.json files (their
 * folder's reviews/ applied), loose device reviews (applied to the summaries' targets), and public-pass records,
 * which are listed and never counted as device results.
 */
function readDeviceEvidence(
  paths: readonly string[],
  inputs: GateReport['inputs'],
): { deviceTargets: SummaryTarget[]; notDeviceEvidence: Array<{ file: string; why: string }> } {
  const targets: SummaryTarget[] = [];
  const notDevice: Array<{ file: string; why: string }> = [];
  const looseReviews: Array<{ path: string; review: DeviceReview }> = [];
  const addSummary = (summaryPath: string, dir: string) => {
    const file = load(summaryPath);
    if (schemaOf(file.value) !== RECEIPTS_SUMMARY_SCHEMA)
      throw new CliError(`${summaryPath}: schema: expected a ${RECEIPTS_SUMMARY_SCHEMA}`);
    const summary = parseChecked(ReceiptsSummary, checkReceiptsSummary, file);
    inputs.push({ file: file.name, sha256: file.sha256, kind: 'receipts-summary', step: null });
    const reviews = loadReviews(dir);
    for (const [, stored] of reviews)
      inputs.push({ file: stored.file, sha256: stored.sha256, kind: 'device-review', step: null });
    for (const target of summary.targets)
      targets.push({ file: summaryPath, target, review: reviews.get(target.key)?.review ?? null });
  };
  for (const path of paths) {
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      throw new CliError(`${path}: no such file or folder`);
    }
    if (isDir) {
      addSummary(join(path, 'summary.json'), path);
      continue;
    }
    const file = load(path);
    const schema = schemaOf(file.value);
    if (schema === RECEIPTS_SUMMARY_SCHEMA) addSummary(path, join(path, '..'));
    else if (schema === DEVICE_REVIEW_SCHEMA) {
      looseReviews.push({ path, review: parseReview(readBytes(path), path) });
      inputs.push({ file: file.name, sha256: file.sha256, kind: 'device-review', step: null });
    } else if (schema === PUBLIC_PASS_SCHEMA) {
      const record = parseWith(PublicPassRecord, file);
      inputs.push({ file: file.name, sha256: file.sha256, kind: 'public-pass', step: null });
      notDevice.push({
        file: file.name,
        why: `a public pass (${record.browser.name}) shows the deployed page works in a fresh browser; it never implies DEVICE_PASS`,
      });
    } else {
      throw new CliError(
        `${path}: schema: --reviews takes receipts summary folders or files, device reviews and public-pass records`,
      );
    }
  }
  for (const { path, review } of looseReviews) {
    const matching = targets.filter((t) => t.target.key === review.target);
    if (matching.length === 0)
      throw new CliError(`${path}: target: ${review.target} is in none of the summaries given with --reviews`);
    for (const t of matching) {
      if (t.review !== null && JSON.stringify(t.review) !== JSON.stringify(review))
        throw new CliError(`${path}: target: ${review.target} already has another stored review in ${t.file}'s folder`);
      t.review = review;
    }
  }
  return { deviceTargets: targets, notDeviceEvidence: notDevice };
}

/**
 * Registers `drb gate plan` and `drb gate escalation`.
 * @param program the root command
 */
export function register(gate: Command): void {
  gate
    .command('plan')
    .description(`Validate a ${GATE_PLAN_SCHEMA} file and print its SHA-256.`)
    .requiredOption('--check <file>', 'the plan to validate')
    .action((flags: { check: string }) => {
      const { plan, file } = loadPlan(flags.check);
      process.stdout.write(
        `ok: ${flags.check}: plan ${plan.id}, ${plan.ladder.length} ladder step(s), ${plan.device_targets.length} device target(s); sha256 ${file.sha256}\n`,
      );
    });
  gate
    .command('escalation')
    .description(
      'Walk the escalation ladder: eligible / not eligible / not yet decidable per step, with the reason from the numbers.',
    )
    .requiredOption('--plan <file>', `the frozen plan (${GATE_PLAN_SCHEMA})`)
    .requiredOption(
      '--runs <files...>',
      "score reports (<ladder id>=<file>; the candidate artifact's own report unlabelled), their predictions (<ladder id>=<file>), the candidate artifact, and compare reports",
    )
    .option(
      '--reviews <paths...>',
      'receipts summary folders or files (with their reviews/), device reviews, public-pass records',
    )
    .option('--licence <files...>', `licence/NOTICE review records (${LICENCE_REVIEW_SCHEMA})`)
    .option('--output-dir <dir>', 'where to write the reports', 'outputs')
    .option('--stem <name>', 'report file name without extension', 'gate')
    .action((flags: EscalationFlags, command: Command) => {
      const report = escalation(flags);
      const written = writeReportFiles(
        flags.outputDir,
        flags.stem,
        [
          {
            extension: '.json',
            text: `${JSON.stringify(report, null, 2)}\n`,
            isOurs: (text) => isJsonWithSchema(text, report.schema),
          },
          { extension: '.md', text: renderGateMarkdown(report), isOurs: (text) => text.startsWith('# Gate report\n') },
        ],
        [
          flags.plan,
          ...flags.runs.map((r) => r.slice(r.indexOf('=') + 1)),
          ...flags.runs,
          ...(flags.reviews ?? []),
          ...(flags.licence ?? []),
        ],
      );
      for (const line of gateReportLines(report)) process.stdout.write(`${terminalLine(line)}\n`);
      process.stdout.write(`plan sha256 ${report.plan.sha256}; wrote ${written.join(' and ')}\n`);
      if (report.decision.outcome === 'blocked') setExitCode(command, 1);
    });
}

/** A line for the terminal: control and bidirectional-override characters shown as U+FFFD. */
function terminalLine(line: string): string {
  return line.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '\uFFFD');
}
