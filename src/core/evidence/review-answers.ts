/**
 * A device review's answers, filled from what the evidence already says, so a person types only what only a person
 * knows, once:
 * - the device and its conditions (hardware model, RAM, OS build, browser and version, network, battery, charging,
 *   thermal state) and the public revision: from the session sheets the tester typed in protocol mode, merged across
 *   every bundle of the target (fields that agree are taken; fields that differ are named and left empty). The
 *   revision is never taken from the receipts' own commit, which it is checked against (evidence.ts);
 * - output_stayed_correct: from the output digests every ok receipt recorded (one digest, and the protocol's
 *   expected one where it declares one);
 * - launch_to_result_ms: from the receipts (the median time from navigation start to the first result of the full
 *   protocol colds: the browser's own launch is not in it, and the review says so);
 * - tab reloads, evictions and interruptions: from the run journal (the interruptions the receipts recorded);
 * - memory pressure: from what the receipts recorded (interruptions, the JS heap where a browser measures it) and the
 *   tester's attested answer in protocol mode;
 * - reviewer and time: from the command line and the clock.
 * What is left (a failed run's explanation, a field no sheet filled) stays empty and is named. Pure: the CLI reads the
 * summary and writes the result. `reviewTemplate` is the skeleton `drb receipts review-template` prints: it leaves
 * empty what the reviewer must confirm (the evidence fills it at review time, naming its source; never the template).
 */
import { DEVICE_REVIEW_SCHEMA } from './device-review.ts';
import type { TargetSummary } from './receipts-summary.ts';
import { mergeTesterSheets, type SheetField } from '../field/tester-sheet.ts';

/** The answers as JSON (every field of `drb.device-review.v1` present) and what could not be filled. */
export interface ReviewAnswers {
  answers: Record<string, unknown>;
  /** One line per answer nobody could fill from the evidence: `<field path>: <why, and where a person types it>`. */
  missing: string[];
}

/** Where a review field comes from in the session sheet. */
const DEVICE_FIELDS: ReadonlyArray<[string, SheetField]> = [
  ['device.hardware_model', 'device_model'],
  ['device.ram_gb', 'ram_gb'],
  ['device.os_build', 'os_build'],
  ['device.browser', 'browser'],
  ['device.browser_version', 'browser_version'],
  ['conditions.network', 'network'],
];

function megabytes(bytes: number): string {
  return `${Math.round(bytes / 2 ** 20)} MiB`;
}

/**
 * The answers the evidence gives for one target (see the module comment).
 * @param target the target in the summary
 * @param who the reviewer and the review time (null: left empty, for a template)
 * @param thresholds the thresholds the reviewer declares
 */
export function reviewAnswers(
  target: TargetSummary,
  who: { reviewer: string | null; reviewedAt: string | null },
  thresholds: { profile: string | null; cold_total_p95_ms: number | null; warm_p95_ms: number | null },
): ReviewAnswers {
  const missing: string[] = [];
  const derived: Array<{ field: string; from: string }> = [];
  const merge = mergeTesterSheets(target.session_sheets.map((s) => s.sheet));
  const sheet = merge.sheet;
  const sheetNote =
    merge.sheets === 0
      ? 'no session sheet (the receipts came as loose files, not in a bundle)'
      : `session sheets of ${merge.sheets} bundle(s), typed once in protocol mode`;
  for (const [path, field] of DEVICE_FIELDS) {
    if (merge.differing.includes(field))
      missing.push(`${path}: the session sheets differ (${field}); type the right value in the answers file`);
    else if (merge.missing.includes(field))
      missing.push(`${path}: no session sheet has it; type it in protocol mode's session sheet (or the answers file)`);
  }
  if (merge.sheets > 0) for (const field of ['device', 'conditions']) derived.push({ field, from: sheetNote });
  // The revision the tester read off the deployed page; the receipts' own commit is what it is checked against, so it
  // is never the answer (a revision taken from them would pass its own check).
  if (merge.differing.includes('public_revision')) {
    missing.push(
      "public_revision: the session sheets differ (public_revision); type the deployed page's revision in the answers file",
    );
  } else if (sheet.public_revision === '') {
    missing.push("public_revision: no session sheet has it; type the deployed page's revision in the answers file");
  } else {
    derived.push({ field: 'public_revision', from: `${sheetNote}; checked against the receipts' own commit` });
  }
  const differing = merge.differing.length > 0 ? `session sheets differ in: ${merge.differing.join(', ')}` : null;

  // The output: one digest over every ok receipt, and the protocol's expected one where it declares one.
  const { outputs } = target;
  const withOutput = outputs.digests.reduce((sum, d) => sum + d.receipts, 0);
  let outputCorrect: boolean | null = null;
  if (withOutput === 0) missing.push('output_stayed_correct: no ok receipt recorded an output digest');
  else {
    outputCorrect =
      outputs.digests.length === 1 && (outputs.matching_expected === null || outputs.matching_expected === withOutput);
    const expected =
      outputs.matching_expected === null
        ? 'no expected digest declared'
        : `${outputs.matching_expected} of ${withOutput} match the protocol's expected digest`;
    derived.push({
      field: 'output_stayed_correct',
      from: `output digests: ${outputs.digests.length} distinct over ${withOutput} ok receipt(s); ${expected}`,
    });
  }

  // Launch to result: what a page can time of it (navigation start to the first result of the full protocol colds).
  const toResult = target.cold.navigation_to_result_ms;
  let launchToResult: number | null = null;
  if (toResult === null)
    missing.push('launch_to_result_ms: no full protocol cold recorded the time to its first result; time it by hand');
  else {
    launchToResult = Math.round(toResult.median);
    derived.push({
      field: 'launch_to_result_ms',
      from: `receipts: median navigation start to first result of ${toResult.count} full protocol cold(s) (p95 ${Math.round(toResult.p95)} ms); the browser's own launch is not included`,
    });
  }

  // Tab reloads, evictions and interruptions: the run journal's records.
  const interrupted = target.interrupted.receipt_ids.length;
  const stages = target.interrupted.by_stage.map((s) => `${s.count} at ${s.stage}`).join(', ');
  const tab = {
    reloaded_or_evicted: interrupted > 0,
    details:
      interrupted > 0
        ? `run journal: ${interrupted} run(s) interrupted (${stages}), recorded by ${target.interrupted.receipt_ids.join(', ')}`
        : null,
  };
  derived.push({ field: 'tab', from: `run journal: ${interrupted} interrupted run(s) recorded` });

  // Memory pressure: the receipts' records plus the tester's attested answer.
  const said = target.tester_attested;
  const heap =
    target.js_heap_max_used_bytes === null
      ? 'JS heap not measured by this browser'
      : `JS heap max used ${megabytes(target.js_heap_max_used_bytes)}`;
  const recorded = `receipts: ${interrupted} interrupted run(s), ${heap}`;
  // No answer, no guess: left null for a person (an answers file with it empty is never filled with "not observed").
  let memory: { observed: boolean | null; behaviour: string } = { observed: null, behaviour: '' };
  if (said.memory_pressure_seen + said.no_memory_pressure_seen === 0) {
    missing.push(
      'memory_pressure: the tester gave no answer in protocol mode ("memory trouble seen?"); type it in the answers file',
    );
  } else {
    const answer =
      said.memory_pressure_seen > 0
        ? `tester attested memory trouble seen (${said.memory_pressure_seen} answer(s))`
        : `tester attested none seen (${said.no_memory_pressure_seen} answer(s))`;
    memory = { observed: said.memory_pressure_seen > 0 || interrupted > 0, behaviour: `${answer}; ${recorded}` };
    derived.push({ field: 'memory_pressure', from: `${answer}; ${recorded}` });
  }

  if (who.reviewer !== null) derived.push({ field: 'reviewer', from: '--reviewer' });
  if (who.reviewedAt !== null) derived.push({ field: 'reviewed_at', from: 'the clock when the review was stored' });
  // A receipt can both fail and record an earlier interruption: one slot per receipt id.
  const ids = [
    ...new Set([
      ...target.failures.receipt_ids,
      ...target.related.failed_receipt_ids,
      ...target.interrupted.receipt_ids,
    ]),
  ].sort();
  for (const id of ids)
    missing.push(
      `failure_explanations: receipt ${id} failed or recorded an interrupted run: only a person can explain it`,
    );
  const notes = [sheet.notes !== '' ? `tester's note: ${sheet.notes}` : '', differing ?? ''].filter(Boolean).join('; ');
  return {
    answers: {
      schema: DEVICE_REVIEW_SCHEMA,
      target: target.key,
      reviewer: who.reviewer ?? '',
      reviewed_at: who.reviewedAt ?? '',
      device: {
        hardware_model: sheet.device_model,
        ram_gb: sheet.ram_gb,
        os_build: sheet.os_build,
        browser: sheet.browser,
        browser_version: sheet.browser_version,
      },
      conditions: {
        network: sheet.network,
        battery_percent: sheet.battery_percent,
        charging: sheet.charging,
        thermal_state: sheet.thermal_state,
      },
      public_revision: sheet.public_revision,
      launch_to_result_ms: launchToResult,
      tab,
      memory_pressure: memory,
      output_stayed_correct: outputCorrect,
      failure_explanations: ids.map((receipt_id) => ({ receipt_id, explanation: '' })),
      thresholds,
      notes: notes === '' ? null : notes.slice(0, 20_000),
      derived,
    },
    missing,
  };
}

/** Whether an answers value is empty (a slot nobody filled): '', null, or an object/array with nothing in it. */
function blank(value: unknown): boolean {
  return value === '' || value === null || value === undefined;
}

/**
 * A reviewer's answers file with its empty slots filled from the evidence: every value the reviewer typed is kept,
 * every '' or null slot takes the evidence's answer (see `reviewAnswers`), and `derived` names what was filled.
 * @param typed the parsed answers file (any JSON; the result is validated by the caller)
 * @param fromEvidence what the evidence gives (`reviewAnswers(...).answers`)
 */
export function fillBlankAnswers(typed: unknown, fromEvidence: Record<string, unknown>): unknown {
  if (typed === null || typeof typed !== 'object' || Array.isArray(typed)) return typed;
  const out: Record<string, unknown> = { ...(typed as Record<string, unknown>) };
  const filled = new Set<string>();
  const fill = (target: Record<string, unknown>, source: Record<string, unknown>, prefix: string) => {
    for (const [key, value] of Object.entries(source)) {
      if (key === 'derived' || key === 'failure_explanations' || key === 'thresholds') continue;
      const mine = target[key];
      if (
        mine !== null &&
        typeof mine === 'object' &&
        !Array.isArray(mine) &&
        value !== null &&
        typeof value === 'object' &&
        !Array.isArray(value)
      ) {
        const copy = { ...(mine as Record<string, unknown>) };
        fill(copy, value as Record<string, unknown>, `${prefix}${key}.`);
        target[key] = copy;
      } else if (blank(mine) && !blank(value) && key in target) {
        target[key] = value;
        filled.add(`${prefix}${key}`.split('.')[0]);
      }
    }
  };
  fill(out, fromEvidence, '');
  const derived = (fromEvidence.derived as Array<{ field: string; from: string }> | undefined) ?? [];
  const kept = derived.filter((d) => filled.has(d.field));
  if (kept.length > 0 && out.derived === undefined) out.derived = kept;
  return out;
}

/**
 * The answers skeleton `drb receipts review-template` prints for one target: the device and conditions the session
 * sheets agree on, the declared thresholds, one failure explanation slot per failed or interrupted run, and empty
 * (or null) what only the reviewer may confirm: the reviewer, the time, the public revision (the tester's note of it
 * is quoted in the notes), the launch-to-result time, whether the tab survived, memory pressure and whether the
 * output stayed correct. `drb receipts review` fills an empty slot from the evidence and names its source in
 * `derived`; the template never guesses. `toFill` says, per empty slot, what a person types or what the evidence
 * will say.
 * @param target the target in the summary
 * @param thresholds the thresholds the reviewer declares
 */
export function reviewTemplate(
  target: TargetSummary,
  thresholds: { profile: string | null; cold_total_p95_ms: number | null; warm_p95_ms: number | null },
): { answers: Record<string, unknown>; toFill: string[] } {
  const { answers, missing } = reviewAnswers(target, { reviewer: null, reviewedAt: null }, thresholds);
  const derived = (answers.derived as Array<{ field: string; from: string }>) ?? [];
  const confirm = ['launch_to_result_ms', 'tab', 'memory_pressure', 'output_stayed_correct'];
  const toFill = [...missing.filter((line) => !line.startsWith('public_revision:'))];
  const revision = answers.public_revision as string;
  toFill.push(
    revision === ''
      ? (missing.find((line) => line.startsWith('public_revision:')) ??
          "public_revision: type the deployed page's revision")
      : `public_revision: confirm the deployed page's revision (the tester's sheet says ${revision}); left empty, review takes the sheet's`,
  );
  for (const field of confirm) {
    const from = derived.find((d) => d.field === field)?.from;
    if (from !== undefined)
      toFill.push(`${field}: confirm it; left empty, review fills it from the evidence (${from})`);
  }
  const notes = typeof answers.notes === 'string' ? [answers.notes] : [];
  if (revision !== '')
    notes.push(`the tester's sheet says the page revision was ${revision}: confirm it against the deployed page`);
  const skeleton: Record<string, unknown> = {
    ...answers,
    public_revision: '',
    launch_to_result_ms: null,
    tab: { reloaded_or_evicted: null, details: null },
    memory_pressure: { observed: null, behaviour: '' },
    output_stayed_correct: null,
    notes: notes.length > 0 ? notes.join('; ').slice(0, 20_000) : null,
  };
  delete skeleton.derived;
  return { answers: skeleton, toFill };
}
