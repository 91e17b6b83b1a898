/**
 * The checks every gate input passes before the ladder is walked (pure; the CLI reads the files): runs scored on
 * the plan's own item and candidate bytes with the plan's K, predictions whose candidates are the artifact's own
 * candidates (a reranker returns scores or ranks, so it may only reorder them: generated free text never enters the
 * list), comparisons that pair two labelled runs of adjacent ladder steps, and device evidence recomputed with the
 * evidence rules rather than read from a summary's prose. Every failure is one line naming the file and the problem.
 */
import type { PredictionRow } from '../artifacts/predictions.ts';
import type { CompareReport } from '../scoring/compare-report.ts';
import type { ScoreReport } from '../scoring/score-report.ts';
import type { CandidatesRow } from '../suite/candidates.ts';
import type { DeviceReview } from '../evidence/device-review.ts';
import { evaluateEvidence } from '../evidence/evidence.ts';
import type { TargetSummary } from '../evidence/receipts-summary.ts';
import type { DeviceTarget, GatePlan } from './gate-plan.ts';

/** A gate input that does not fit the plan: `<file>: <where>: <problem>`. */
export class GateInputError extends Error {
  override name = 'GateInputError';
  constructor(file: string, where: string, problem: string) {
    super(`${file}: ${where}: ${problem}`);
  }
}

/**
 * `text` quoted for a message printed to a terminal: JSON string syntax (control characters escaped), with C1
 * controls and bidirectional overrides escaped too, cut after 80 characters.
 * @param text any string from an input
 */
export function quoteForTerminal(text: string): string {
  const quoted = JSON.stringify(text).replace(
    /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return quoted.length > 82 ? `${quoted.slice(0, 80)}…"` : quoted;
}

const short = (sha: string) => sha.slice(0, 12);

/**
 * Refuses a score report that was not scored on the plan's items with the plan's K and item format.
 * @param plan the gate plan
 * @param report the score report
 * @param file the report file as shown
 */
export function checkScoreReportAgainstPlan(plan: GatePlan, report: ScoreReport, file: string): void {
  if (report.inputs.items.sha256 !== plan.artifact.items.sha256) {
    throw new GateInputError(
      file,
      'inputs.items.sha256',
      `scored items ${short(report.inputs.items.sha256)}…, not the plan's fixed items ${short(plan.artifact.items.sha256)}…`,
    );
  }
  if (report.candidate_limit !== plan.candidate_limit) {
    throw new GateInputError(
      file,
      'candidate_limit',
      `is ${report.candidate_limit}, the plan fixes K = ${plan.candidate_limit}`,
    );
  }
  if (report.dataset.format !== plan.artifact.items.format) {
    throw new GateInputError(
      file,
      'dataset.format',
      `is ${report.dataset.format}, the plan's items are ${plan.artifact.items.format}`,
    );
  }
}

/**
 * Refuses predictions whose candidates are not the candidate artifact's: every non-abstaining row must list
 * exactly that row's candidates (the same strings, each as often), reordered by the reranker's scores. A string
 * the artifact does not hold for the row is generated free text entering the list; a dropped or added candidate
 * changes the fixed candidate count. An abstaining row (no list, null or []) keeps the input and is allowed.
 * @param candidates the candidate artifact's rows
 * @param predictions the reranker's prediction rows
 * @param file the predictions file as shown
 * @param candidatesFile the candidates file as shown
 */
export function checkPredictionsAgainstArtifact(
  candidates: readonly CandidatesRow[],
  predictions: readonly PredictionRow[],
  file: string,
  candidatesFile: string,
): void {
  const byId = new Map(candidates.map((row) => [row.id, row.candidates]));
  for (const row of predictions) {
    const where = `id ${quoteForTerminal(row.id)}`;
    const artifact = byId.get(row.id);
    if (artifact === undefined)
      throw new GateInputError(file, where, `names no row of the candidate artifact ${candidatesFile}`);
    const list = row.candidates ?? [];
    if (list.length === 0) continue;
    const left = new Map<string, number>();
    for (const candidate of artifact) left.set(candidate, (left.get(candidate) ?? 0) + 1);
    list.forEach((candidate, j) => {
      const count = left.get(candidate) ?? 0;
      if (count === 0) {
        const why = artifact.includes(candidate)
          ? 'appears more often than in the artifact'
          : "is not one of the artifact's candidates for this row";
        throw new GateInputError(
          file,
          `${where} candidates[${j}]`,
          `${quoteForTerminal(candidate)} ${why}: generated free text may never enter the candidate list (the model returns scores or ranks only)`,
        );
      }
      left.set(candidate, count - 1);
    });
    if (list.length !== artifact.length) {
      throw new GateInputError(
        file,
        `${where} candidates`,
        `lists ${list.length} of the row's ${artifact.length} candidates: the candidate count is fixed; a reranker reorders all of them`,
      );
    }
  }
}

/** A labelled run of a ladder step. */
export interface LadderRun {
  step: string;
  file: string;
  /** SHA-256 of the score report file. */
  sha256: string;
  report: ScoreReport;
  /** The predictions file the report scored was given and its candidates passed checkPredictionsAgainstArtifact. */
  predictionsChecked: boolean;
}

/** A comparison report placed between two ladder steps. */
export interface LadderComparison {
  file: string;
  sha256: string;
  baseline: string;
  candidate: string;
  report: CompareReport;
}

function sameMetrics(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Places a comparison report between the two labelled runs it compared (matched by the SHA-256 of the predictions
 * file each run scored, or of the score report itself), and checks that it was made on the plan's items with the
 * plan's K and that its run metrics are those runs' metrics.
 * @param plan the gate plan
 * @param report the comparison report
 * @param file the report file as shown
 * @param sha256 the report file's SHA-256
 * @param runs the labelled runs
 */
export function placeComparison(
  plan: GatePlan,
  report: CompareReport,
  file: string,
  sha256: string,
  runs: readonly LadderRun[],
): LadderComparison {
  if (report.inputs.items.sha256 !== plan.artifact.items.sha256) {
    throw new GateInputError(
      file,
      'inputs.items.sha256',
      `compared runs on items ${short(report.inputs.items.sha256)}…, not the plan's fixed items ${short(plan.artifact.items.sha256)}…`,
    );
  }
  if (report.candidate_limit !== plan.candidate_limit) {
    throw new GateInputError(
      file,
      'candidate_limit',
      `is ${report.candidate_limit}, the plan fixes K = ${plan.candidate_limit}`,
    );
  }
  const find = (side: 'baseline' | 'candidate'): LadderRun => {
    const sha = report.inputs[side].sha256;
    const run = runs.find((r) => r.report.inputs.predictions.sha256 === sha || r.sha256 === sha);
    if (run === undefined) {
      throw new GateInputError(
        file,
        `inputs.${side}.sha256`,
        `${short(sha)}… is none of the labelled runs given with --runs (give the run's score report as <ladder id>=<file>)`,
      );
    }
    if (!sameMetrics(report.runs[side], run.report.metrics)) {
      throw new GateInputError(
        file,
        `runs.${side}`,
        `its metrics differ from ${run.file}'s: the reports were not made from the same run`,
      );
    }
    return run;
  };
  const baseline = find('baseline');
  const candidate = find('candidate');
  return { file, sha256, baseline: baseline.step, candidate: candidate.step, report };
}

/** A device target of a receipts summary, with the review stored for it (if any). */
export interface SummaryTarget {
  file: string;
  target: TargetSummary;
  review: DeviceReview | null;
}

/** What the gate found for one plan device target and one model. */
export interface DeviceTargetVerdict {
  device_target: string;
  model_id: string;
  state: 'DEVICE_PASS' | 'missing';
  /** The summary target that passed, or the closest one found (null when none matched the model and device). */
  target_key: string | null;
  why: string;
}

/** True when a recorded user agent is a headless or automated browser (never a physical device result). */
export function isHeadlessUserAgent(userAgent: string): boolean {
  return /headless/i.test(userAgent);
}

/**
 * Whether a summary target is a run of `modelId` on the physical device `device` describes: the model, the
 * reviewer's browser and hardware, the recorded user agent (every declared part, never headless).
 * @returns null when it matches, else why not
 */
function mismatch(entry: SummaryTarget, device: DeviceTarget, modelId: string): string | null {
  const { target, review } = entry;
  if (target.identity.model.id !== modelId) return `model ${target.identity.model.id}`;
  const ua = target.identity.device.user_agent;
  if (isHeadlessUserAgent(ua)) return 'a headless browser (not a physical device result)';
  const lower = ua.toLowerCase();
  const absent = device.user_agent_includes.filter((part) => !lower.includes(part.toLowerCase()));
  if (absent.length > 0) return `its user agent lacks ${absent.map((a) => JSON.stringify(a)).join(', ')}`;
  if (review === null) return 'no device review stored';
  if (review.device.browser.trim().toLowerCase() !== device.browser.trim().toLowerCase())
    return `reviewed on ${review.device.browser}, not ${device.browser}`;
  if (!review.device.hardware_model.toLowerCase().includes(device.hardware_model.trim().toLowerCase())) {
    return `reviewed on ${review.device.hardware_model}, not ${device.hardware_model}`;
  }
  return null;
}

/**
 * The DEVICE_PASS verdict of one plan device target for one model, from summary targets whose state is
 * recomputed here with the evidence rules (evidence.ts) and the stored review: a summary that says DEVICE_PASS is
 * never taken at its word, and a local, browser or public pass never stands in.
 * @param device the plan's device target
 * @param modelId the catalog id of the model being promoted
 * @param targets every device target of the summaries given
 */
export function deviceVerdict(
  device: DeviceTarget,
  modelId: string,
  targets: readonly SummaryTarget[],
): DeviceTargetVerdict {
  let closest: { key: string; why: string } | null = null;
  for (const entry of targets) {
    const why = mismatch(entry, device, modelId);
    if (why !== null) {
      if (closest === null && entry.target.identity.model.id === modelId)
        closest = { key: entry.target.key, why: `target ${entry.target.key} does not count: ${why}` };
      continue;
    }
    const verdict = evaluateEvidence(entry.target, entry.review);
    if (verdict.state === 'DEVICE_PASS') {
      return {
        device_target: device.id,
        model_id: modelId,
        state: 'DEVICE_PASS',
        target_key: entry.target.key,
        why: `target ${entry.target.key} is DEVICE_PASS`,
      };
    }
    closest = {
      key: entry.target.key,
      why: `target ${entry.target.key} is ${verdict.state}: ${verdict.not_higher_because[0] ?? 'not reviewed'}`,
    };
  }
  return {
    device_target: device.id,
    model_id: modelId,
    state: 'missing',
    target_key: closest?.key ?? null,
    why: closest?.why ?? 'no device receipts of this model on this device',
  };
}
