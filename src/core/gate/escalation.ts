/**
 * The LFM escalation gate (evaluation-protocol-v10, "LFM2.5 escalation gate"), walked from the numbers of existing
 * reports: `drb score` reports of the candidate artifact and of each reranker run, `drb compare` reports between
 * adjacent ladder steps (exact sign test), device summaries with their reviews (DEVICE_PASS recomputed), and
 * licence/NOTICE review records. Nothing is re-measured or re-computed that those reports already hold.
 *
 * The ladder, per step `eligible`, `not eligible` or `not yet decidable`, each with its reason from the numbers:
 * 1. the candidate artifact's Recall@K must reach the plan's adequacy threshold before the first reranker is
 *    evaluated (a reranker cannot repair missing candidates);
 * 2. the second model is eligible only when the first misses the quality target and its errors are mostly
 *    selection errors (reference present, wrong top-1), not candidate misses;
 * 3. each further model only when the previous one shows a paired improvement over the one before it (sign test,
 *    p below the plan's significance level, more rows better than worse) and still misses the target;
 * 4. the first model that meets the target is promoted only with no overcorrection regression on clean rows
 *    (against the candidate artifact's own order), an approved licence/NOTICE review, and DEVICE_PASS on every
 *    device target of the plan; a local or browser pass never stands in for a missing device result.
 * Report: `drb.gate-report.v1` (JSON) and Markdown. Rules and examples: docs/gate.md.
 */
import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';
import { threeSignificant } from '../text/format-number.ts';
import { mdCode, mdText } from '../text/markdown-escape.ts';
import type { ScoreMetrics, ScoreReport } from '../scoring/score-report.ts';
import {
  deviceVerdict,
  type DeviceTargetVerdict,
  type LadderComparison,
  type LadderRun,
  type SummaryTarget,
} from './gate-inputs.ts';
import { QUALITY_TARGET_METRICS, type GatePlan, type LadderStep, type LicenceReview } from './gate-plan.ts';

export const GATE_REPORT_SCHEMA = 'drb.gate-report.v1';

const Text = detailText(4096);
const Sha256 = z.string().regex(SHA256_PATTERN);

export const StepStatus = z.enum(['eligible', 'not eligible', 'not yet decidable']);
export type StepStatus = z.infer<typeof StepStatus>;

export const GateStep = z.strictObject({
  /** `evaluate`: may this model be evaluated on the fixed artifact; `promote`: may it be promoted. */
  kind: z.enum(['evaluate', 'promote']),
  /** The ladder id, or null for a promotion with no model to promote. */
  model: Text.nullable(),
  status: StepStatus,
  reason: Text,
  /** The numbers the reason was made from. */
  facts: z.record(z.string().regex(/^[a-z0-9_]{1,64}$/), z.number().nullable()),
});
export type GateStep = z.infer<typeof GateStep>;

export const GateAction = z.enum([
  'fix-candidates',
  'evaluate',
  'stop',
  'promote',
  'promotion-blocked',
  'not-yet-decidable',
]);
export type GateAction = z.infer<typeof GateAction>;

export const GateReport = z.strictObject({
  schema: z.literal(GATE_REPORT_SCHEMA),
  tool: z.strictObject({ name: z.literal('device-receipts-bench'), version: Text }),
  plan: z.strictObject({ file: Text, sha256: Sha256, id: Text }),
  artifact: z.strictObject({
    items_sha256: Sha256,
    candidates_sha256: Sha256,
    items_format: z.enum(['generic', 'ajimee']),
    candidate_limit: z.number().int().min(1),
  }),
  fixed: z.strictObject({ tokenizer: Text, prompt: Text, decoding: Text, context: Text, route: Text }),
  inputs: z.array(
    z.strictObject({
      file: Text,
      sha256: Sha256,
      kind: z.enum([
        'score-report',
        'compare-report',
        'predictions',
        'candidates',
        'receipts-summary',
        'device-review',
        'public-pass',
        'licence-review',
      ]),
      step: Text.nullable(),
    }),
  ),
  steps: z.array(GateStep),
  /** For the model whose promotion was judged: each plan device target and what the gate found. */
  device_targets: z.array(
    z.strictObject({
      device_target: Text,
      model_id: Text,
      state: z.enum(['DEVICE_PASS', 'missing']),
      target_key: Text.nullable(),
      why: Text,
    }),
  ),
  /** Inputs that are never device results (a public pass, a browser run): listed so nobody reads them as one. */
  not_device_evidence: z.array(z.strictObject({ file: Text, why: Text })),
  decision: z.strictObject({
    /** `decided`: the gate reached a decision (exit 0); `blocked`: a promotion is blocked or an input is missing (exit 1). */
    outcome: z.enum(['decided', 'blocked']),
    action: GateAction,
    model: Text.nullable(),
    text: Text,
  }),
});
export type GateReport = z.infer<typeof GateReport>;

/** Everything the walk reads, already checked against the plan (gate-inputs.ts). */
export interface EscalationInput {
  plan: GatePlan;
  planFile: { file: string; sha256: string };
  toolVersion: string;
  /** The score report of the candidate artifact itself (its predictions file is the plan's candidates file). */
  artifactRun: { file: string; report: ScoreReport } | null;
  runs: readonly LadderRun[];
  comparisons: readonly LadderComparison[];
  deviceTargets: readonly SummaryTarget[];
  licences: ReadonlyArray<{ file: string; review: LicenceReview }>;
  notDeviceEvidence: ReadonlyArray<{ file: string; why: string }>;
  inputs: GateReport['inputs'];
}

/** A rate or a threshold for a reason line: three significant digits, a threshold with at least two decimals. */
function num(value: number): string {
  return threeSignificant(value);
}
function threshold(value: number): string {
  const plain = threeSignificant(value);
  return /\.\d$/.test(plain) ? `${plain}0` : /^\d+$/.test(plain) && value < 10 ? `${plain}.00` : plain;
}

function meetsTarget(plan: GatePlan, metrics: ScoreMetrics): { meets: boolean; value: number; text: string } {
  const { metric, value: target } = plan.quality_target;
  const value = metrics[metric];
  const higher = QUALITY_TARGET_METRICS[metric] === 'higher';
  const meets = higher ? value >= target : value <= target;
  const sign = meets ? (higher ? '≥' : '≤') : higher ? '<' : '>';
  return { meets, value, text: `${metric} ${num(value)} ${sign} ${threshold(target)}` };
}

/**
 * Walks the ladder and decides (pure: the same input gives the same report).
 * @param input the plan, the checked runs, comparisons, device targets, licence reviews and inputs list
 */
export function walkEscalation(input: EscalationInput): GateReport {
  const { plan } = input;
  const ladder = plan.ladder;
  const K = plan.candidate_limit;
  const steps: GateStep[] = [];
  let devices: DeviceTargetVerdict[] = [];
  const evaluate = (step: LadderStep, status: StepStatus, reason: string, facts: Record<string, number | null> = {}) =>
    steps.push({ kind: 'evaluate', model: step.id, status, reason, facts });
  const rest = (from: number, status: StepStatus, reason: string) => {
    for (let j = from; j < ladder.length; j++) evaluate(ladder[j], status, reason);
  };
  const promote = (
    model: string | null,
    status: StepStatus,
    reason: string,
    facts: Record<string, number | null> = {},
  ) => steps.push({ kind: 'promote', model, status, reason, facts });
  const runOf = (id: string) => input.runs.find((r) => r.step === id) ?? null;
  const finish = (
    outcome: 'decided' | 'blocked',
    action: GateAction,
    model: string | null,
    text: string,
  ): GateReport => ({
    schema: GATE_REPORT_SCHEMA,
    tool: { name: 'device-receipts-bench', version: input.toolVersion },
    plan: { file: input.planFile.file, sha256: input.planFile.sha256, id: plan.id },
    artifact: {
      items_sha256: plan.artifact.items.sha256,
      candidates_sha256: plan.artifact.candidates.sha256,
      items_format: plan.artifact.items.format,
      candidate_limit: K,
    },
    fixed: { ...plan.fixed },
    inputs: input.inputs,
    steps,
    device_targets: devices,
    not_device_evidence: [...input.notDeviceEvidence],
    decision: { outcome, action, model, text },
  });

  // 1. Candidate Recall@K first.
  const first = ladder[0];
  if (input.artifactRun === null) {
    evaluate(
      first,
      'not yet decidable',
      `no score report of the candidate artifact (${plan.artifact.candidates.file}): Recall@${K} unknown`,
    );
    rest(1, 'not yet decidable', `waits on ${first.label}`);
    promote(null, 'not yet decidable', 'no model evaluated yet');
    return finish(
      'blocked',
      'not-yet-decidable',
      null,
      `score the candidate artifact first: drb score --predictions ${plan.artifact.candidates.file} --candidate-limit ${K}`,
    );
  }
  const artifact = input.artifactRun.report.metrics;
  const recall = artifact.candidate_recall_at_k;
  const recallFacts = { candidate_recall_at_k: recall, recall_adequacy: plan.recall_adequacy };
  if (recall < plan.recall_adequacy) {
    evaluate(
      first,
      'not eligible',
      `Recall@${K} ${num(recall)} < ${threshold(plan.recall_adequacy)} adequacy: fix candidates first`,
      recallFacts,
    );
    rest(1, 'not eligible', `the ladder stops before ${first.label}: fix candidates first`);
    promote(null, 'not eligible', 'no model may be evaluated until the candidates are adequate');
    return finish(
      'decided',
      'fix-candidates',
      null,
      `fix candidates first: Recall@${K} ${num(recall)} is below the ${threshold(plan.recall_adequacy)} adequacy threshold, and a larger reranker cannot repair missing candidates`,
    );
  }
  evaluate(
    first,
    'eligible',
    `Recall@${K} ${num(recall)} ≥ ${threshold(plan.recall_adequacy)} adequacy: ${first.label} eligible for evaluation on the fixed artifact`,
    recallFacts,
  );

  // 2. Each evaluated model: meets the target, or may the next one be tried?
  for (let i = 0; i < ladder.length; i++) {
    const step = ladder[i];
    const run = runOf(step.id);
    if (run === null) {
      rest(i + 1, 'not yet decidable', `waits on ${step.label}'s results`);
      promote(null, 'not yet decidable', `no result of ${step.label} yet`);
      return finish(
        'decided',
        'evaluate',
        step.id,
        `${step.label} is eligible: evaluate it on the fixed artifact (drb score --per-row), then give its report as --runs ${step.id}=<report>`,
      );
    }
    if (!run.predictionsChecked) {
      rest(
        i + 1,
        'not yet decidable',
        `${step.label}'s predictions were not given, so their candidates cannot be checked against the artifact`,
      );
      promote(null, 'not yet decidable', `${step.label}'s predictions were not given`);
      return finish(
        'blocked',
        'not-yet-decidable',
        step.id,
        `give ${step.label}'s predictions file as --runs ${step.id}=<predictions> (with the candidate artifact): a run whose candidates were not checked decides nothing`,
      );
    }
    const metrics = run.report.metrics;
    const quality = meetsTarget(plan, metrics);
    if (quality.meets) {
      rest(i + 1, 'not eligible', `${step.label} meets the quality target (${quality.text}): no escalation`);
      return promotion(step, run, quality.text);
    }
    if (i === ladder.length - 1) {
      promote(null, 'not eligible', `no model on the ladder meets the quality target (${step.label}: ${quality.text})`);
      return finish(
        'decided',
        'stop',
        step.id,
        `${step.label} misses the quality target (${quality.text}) and is the last model on the ladder: nothing to promote`,
      );
    }
    const next = ladder[i + 1];
    if (i === 0) {
      const selection = metrics.selection_error;
      const misses = metrics.accepted_candidate_miss;
      const facts = {
        [plan.quality_target.metric]: quality.value,
        target: plan.quality_target.value,
        selection_error: selection,
        accepted_candidate_miss: misses,
      };
      if (selection > misses) {
        evaluate(
          next,
          'eligible',
          `${step.label} misses the target (${quality.text}); selection errors ${selection} vs candidate misses ${misses}: ${next.label} eligible for evaluation`,
          facts,
        );
        continue;
      }
      evaluate(
        next,
        'not eligible',
        `candidate misses ${misses} vs selection errors ${selection}: a larger reranker cannot help`,
        facts,
      );
      rest(i + 2, 'not eligible', `the ladder stopped at ${next.label}`);
      promote(null, 'not eligible', `no model meets the quality target (${step.label}: ${quality.text})`);
      return finish(
        'decided',
        'stop',
        step.id,
        `${step.label} misses the target, and its errors are mostly candidate misses (${misses} vs ${selection} selection errors): fix candidates rather than escalate`,
      );
    }
    const previous = ladder[i - 1];
    const comparison = input.comparisons.find((c) => c.candidate === step.id && c.baseline === previous.id) ?? null;
    if (comparison === null) {
      evaluate(
        next,
        'not yet decidable',
        `no paired comparison of ${step.label} against ${previous.label} (drb compare): paired improvement unknown`,
      );
      rest(i + 2, 'not yet decidable', `waits on ${next.label}`);
      promote(null, 'not yet decidable', `no model meets the quality target yet (${step.label}: ${quality.text})`);
      return finish(
        'blocked',
        'not-yet-decidable',
        step.id,
        `compare ${step.label} with ${previous.label} on the fixed artifact (drb compare) and give the report with --runs`,
      );
    }
    const paired = comparison.report.paired.effective_correct;
    const alpha = plan.significance_level;
    const improved = paired.better > paired.worse && paired.sign_test_p_value < alpha;
    const counts = `${step.label} vs ${previous.label}: ${paired.better} better, ${paired.worse} worse, p ${num(paired.sign_test_p_value)}`;
    const facts = {
      better: paired.better,
      worse: paired.worse,
      sign_test_p_value: paired.sign_test_p_value,
      significance_level: alpha,
      [plan.quality_target.metric]: quality.value,
    };
    if (improved) {
      evaluate(
        next,
        'eligible',
        `${counts} < ${threshold(alpha)} paired improvement, target still missed: ${next.label} eligible for evaluation`,
        facts,
      );
      continue;
    }
    const why =
      paired.better <= paired.worse
        ? `${counts}: not better`
        : `${counts} ≥ ${threshold(alpha)}: no significant paired improvement`;
    evaluate(next, 'not eligible', `${why}; ${next.label} not eligible`, facts);
    rest(i + 2, 'not eligible', `the ladder stopped at ${next.label}`);
    promote(null, 'not eligible', `no model meets the quality target (${step.label}: ${quality.text})`);
    return finish(
      'decided',
      'stop',
      step.id,
      `${step.label} shows no paired improvement over ${previous.label} and misses the target: the ladder stops`,
    );
  }
  throw new Error('unreachable: the ladder loop always returns');

  function promotion(step: LadderStep, run: LadderRun, qualityText: string): GateReport {
    const blocked: string[] = [];
    const pending: string[] = [];
    const facts: Record<string, number | null> = {};
    const m = run.report.metrics;
    facts.clean_rows = m.clean_rows;
    facts.overcorrected_rows = m.overcorrected_rows;
    facts.artifact_overcorrected_rows = artifact.overcorrected_rows;
    if (m.clean_rows === 0)
      pending.push('the items have no clean rows, so an overcorrection regression cannot be ruled out');
    else if (m.overcorrected_rows > artifact.overcorrected_rows) {
      blocked.push(`overcorrection on clean rows regressed ${artifact.overcorrected_rows} to ${m.overcorrected_rows}`);
    }
    const licences = input.licences.filter((l) => l.review.model_id === step.model_id);
    if (licences.length === 0) pending.push(`no licence/NOTICE review of ${step.model_id}`);
    else {
      const refused = licences.filter(
        (l) => l.review.outcome !== 'approved' || !l.review.notice_reviewed || !l.review.distribution_allowed,
      );
      for (const l of refused) {
        const parts = [
          l.review.outcome !== 'approved' ? 'rejected' : '',
          !l.review.notice_reviewed ? 'NOTICE not reviewed' : '',
          !l.review.distribution_allowed ? 'distribution not allowed' : '',
        ].filter(Boolean);
        blocked.push(`licence review ${l.file} of ${step.model_id}: ${parts.join(', ')}`);
      }
    }
    devices = plan.device_targets.map((device) => deviceVerdict(device, step.model_id, input.deviceTargets));
    for (const d of devices) {
      if (d.state !== 'DEVICE_PASS')
        pending.push(`no DEVICE_PASS for ${d.device_target} (${d.why}); a local or browser pass never stands in`);
    }
    facts.device_targets = devices.length;
    facts.device_pass = devices.filter((d) => d.state === 'DEVICE_PASS').length;
    if (blocked.length === 0 && pending.length === 0) {
      promote(
        step.id,
        'eligible',
        `${step.label} meets the target (${qualityText}); no overcorrection regression (${artifact.overcorrected_rows} to ${m.overcorrected_rows}); licence approved; DEVICE_PASS on ${devices.length} device target(s): promotion eligible`,
        facts,
      );
      return finish(
        'decided',
        'promote',
        step.id,
        `promote ${step.label}: every requirement holds (the final go is a person's decision, HUMAN_GO)`,
      );
    }
    const status: StepStatus = blocked.length > 0 ? 'not eligible' : 'not yet decidable';
    promote(step.id, status, `${[...blocked, ...pending].join('; ')}: promotion blocked`, facts);
    return finish(
      'blocked',
      'promotion-blocked',
      step.id,
      `${step.label} meets the quality target but its promotion is blocked: ${[...blocked, ...pending].join('; ')}`,
    );
  }
}

const STATUS_MARK: Record<StepStatus, string> = {
  eligible: 'eligible',
  'not eligible': '**not eligible**',
  'not yet decidable': '*not yet decidable*',
};

/**
 * The lines `drb gate escalation` prints: one per step, `<step>: <status>: <reason>`, then the decision.
 * @param report the gate report
 */
export function gateReportLines(report: GateReport): string[] {
  const name = (step: GateStep) => `${step.kind} ${step.model ?? '(none)'}`;
  return [
    ...report.steps.map((s) => `${name(s)}: ${s.status}: ${s.reason}`),
    `decision: ${report.decision.action}${report.decision.model ? ` ${report.decision.model}` : ''} (${report.decision.outcome}): ${report.decision.text}`,
  ];
}

/**
 * The Markdown of a gate report; every string from an input is escaped.
 * @param report the gate report
 */
export function renderGateMarkdown(report: GateReport): string {
  const code = (text: string) => mdCode(text, { inTable: true });
  const out: string[] = ['# Gate report', ''];
  out.push(`Plan ${mdCode(report.plan.id)} (${mdCode(report.plan.file)}, SHA-256 ${mdCode(report.plan.sha256)}).`, '');
  out.push(
    `**Decision: ${mdText(report.decision.action)}${report.decision.model ? ` ${mdCode(report.decision.model)}` : ''}** (${report.decision.outcome}): ${mdText(report.decision.text)}`,
    '',
  );
  out.push('## Ladder', '');
  out.push('| Step | Model | Status | Reason |', '| --- | --- | --- | --- |');
  for (const s of report.steps)
    out.push(
      `| ${s.kind} | ${s.model === null ? '—' : code(s.model)} | ${STATUS_MARK[s.status]} | ${mdText(s.reason)} |`,
    );
  out.push('');
  if (report.device_targets.length > 0) {
    out.push('## Device targets', '');
    out.push('| Device target | Model | State | Why |', '| --- | --- | --- | --- |');
    for (const d of report.device_targets)
      out.push(`| ${code(d.device_target)} | ${code(d.model_id)} | ${d.state} | ${mdText(d.why)} |`);
    out.push('');
  }
  if (report.not_device_evidence.length > 0) {
    out.push('## Not device evidence', '');
    for (const n of report.not_device_evidence) out.push(`- ${mdCode(n.file)}: ${mdText(n.why)}`);
    out.push('');
  }
  out.push('## Fixed artifact', '');
  out.push(
    `Items ${mdCode(report.artifact.items_sha256)} (${report.artifact.items_format}), candidates ${mdCode(report.artifact.candidates_sha256)}, K = ${report.artifact.candidate_limit}.`,
    '',
  );
  out.push('| Fixed | As declared |', '| --- | --- |');
  for (const key of ['tokenizer', 'prompt', 'decoding', 'context', 'route'] as const)
    out.push(`| ${key} | ${mdText(report.fixed[key])} |`);
  out.push('');
  out.push('## Inputs', '');
  out.push('| File | Kind | Ladder step | SHA-256 |', '| --- | --- | --- | --- |');
  for (const i of report.inputs)
    out.push(`| ${code(i.file)} | ${i.kind} | ${i.step === null ? '—' : code(i.step)} | ${code(i.sha256)} |`);
  out.push('');
  return out.join('\n');
}
