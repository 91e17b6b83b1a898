// A review without hand edits of what the evidence already says (src/core/evidence/review-answers.ts through
// `drb receipts review-template` and `drb receipts review --reviewer`): the device fields from the session sheets of
// any number of handed-off files (typed once), output_stayed_correct from the output digests (and the protocol's
// expected digest), launch-to-result from the receipts, tab survival from the run journal, memory pressure from the
// receipts and the tester's attested answer, reviewer and time from --reviewer and the clock.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_TESTER_SHEET,
  RECEIPT_BUNDLE_SCHEMA,
  type ReceiptBundle,
  type TesterSheet,
} from '../../src/core/field/receipt-bundle.ts';
import type { Protocol } from '../../src/core/field/field-protocol.ts';
import { testerAttestation, type SessionAttestation } from '../../src/core/receipt/attestation.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { DeviceReview } from '../../src/core/evidence/device-review.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { fillBlankAnswers, reviewAnswers } from '../../src/core/evidence/review-answers.ts';
import { buildReceipt } from './receipts-builder.ts';
import { runCli } from './cli-harness.ts';
import { testTempDir } from '../temp-dir.ts';

const SHEET: TesterSheet = {
  ...EMPTY_TESTER_SHEET,
  device_model: 'iPhone 15 (A3090)',
  ram_gb: 6,
  os_build: 'iOS 26.1 (23B85)',
  browser: 'Safari',
  browser_version: '26.1',
  network: 'Wi-Fi 5 GHz',
  battery_percent: 80,
  charging: false,
  thermal_state: 'nominal',
  public_revision: 'a'.repeat(40),
};

const PROTOCOL: Protocol = {
  schema: 'drb.protocol.v1',
  id: 'ort-tiny-xenc-wasm',
  title: 'fixture',
  model: 'ort-tiny-xenc',
  engine: 'ort',
  ep: 'wasm',
  threads: 1,
  dtype: 'fp32',
  input: 'tokens-2x16',
  warm_runs: 20,
  min_cold: 5,
  min_warm: 20,
  memory_note: 'a fixture',
};

const NO_TROUBLE: SessionAttestation = testerAttestation('no-memory-pressure-seen', '2026-12-01T09:00:00Z');

/** Five cold receipts (full protocol colds unless told) and twenty warm ones, as one device's procedure. */
function procedure(coldStart: 'full' | 'not-attested' = 'full'): DeviceReceipt[] {
  return [
    ...Array.from({ length: 5 }, () =>
      buildReceipt({ kind: 'cold', coldMs: { fetch: 100, session: 200, first: 5 }, coldStart }),
    ),
    ...Array.from({ length: 20 }, () => buildReceipt({ kind: 'warm', warmSamples: [2, 3, 4] })),
  ];
}

/**
 * Hands the procedure off as the page does: one file after each cold step, each with the sheet typed once (the notes
 * grow), the memory answer in the last one; summarizes them all.
 */
async function handedOff(
  receipts: DeviceReceipt[],
  options: { sheets?: TesterSheet[]; attestations?: SessionAttestation[]; protocol?: Protocol | null } = {},
) {
  const dir = testTempDir('drb-review-evidence-');
  const inDir = join(dir, 'files');
  mkdirSync(inDir);
  const parts = [receipts.slice(0, 21), ...receipts.slice(21).map((r) => [r])];
  parts.forEach((part, i) => {
    const sheet = options.sheets?.[i] ?? { ...SHEET, notes: i === 0 ? '' : `cold ${i + 1}` };
    const bundle: ReceiptBundle = {
      schema: RECEIPT_BUNDLE_SCHEMA,
      created_at: `2026-12-01T${10 + i}:00:00Z`,
      app: receipts[0].app,
      protocol: options.protocol === undefined ? PROTOCOL : options.protocol,
      sheet,
      ...(i === parts.length - 1 ? { attestations: options.attestations ?? [NO_TROUBLE] } : {}),
      receipts: part as unknown as ReceiptBundle['receipts'],
    };
    writeFileSync(join(inDir, `drb-hand-off-${i + 1}.json`), JSON.stringify(bundle));
  });
  const out = join(dir, 'summary');
  const run = await runCli(['receipts', 'summarize', inDir, '--out', out]);
  expect(run.code, run.stderr).toBe(0);
  const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
  return { dir, out, file: join(out, 'summary.json'), summary, target: summary.targets[0] };
}

describe('drb receipts review --reviewer: DEVICE_PASS from the evidence and the sheet typed once', () => {
  it('reviews five handed-off files without an answers file, every derived answer named with its source', async () => {
    const receipts = procedure();
    const { out, file, target } = await handedOff(receipts);
    expect(target.counts).toMatchObject({
      full_cold: 5,
      measured_network_cold: 5,
      measured_fresh_start: 5,
      attested_cold: 5,
      clean_warm: 20,
    });
    expect(target.session_sheets).toHaveLength(5);
    expect(target.tester_attested).toEqual({ memory_pressure_seen: 0, no_memory_pressure_seen: 1 });
    expect(target.outputs).toEqual({
      digests: [{ sha256: receipts[0].output!.sha256, receipts: 25 }],
      expected_sha256: [],
      matching_expected: null,
    });
    const before = Date.now();
    const review = await runCli(['receipts', 'review', '--summary', file, '--reviewer', 'qa-1', '--profile', 'entry']);
    expect(review.code, review.stderr).toBe(0);
    expect(review.stdout.split('\n')[0]).toBe(`${target.key}: DEVICE_PASS`);
    const stored = DeviceReview.parse(JSON.parse(readFileSync(join(out, 'reviews', `${target.key}.json`), 'utf8')));
    expect(stored.reviewer).toBe('qa-1');
    expect(Date.parse(stored.reviewed_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(stored.device).toEqual({
      hardware_model: 'iPhone 15 (A3090)',
      ram_gb: 6,
      os_build: 'iOS 26.1 (23B85)',
      browser: 'Safari',
      browser_version: '26.1',
    });
    expect(stored.conditions).toEqual({
      network: 'Wi-Fi 5 GHz',
      battery_percent: 80,
      charging: false,
      thermal_state: 'nominal',
    });
    expect(stored.output_stayed_correct).toBe(true);
    expect(stored.launch_to_result_ms).toBe(Math.round(target.cold.navigation_to_result_ms!.median));
    expect(stored.tab).toEqual({ reloaded_or_evicted: false, details: null });
    expect(stored.memory_pressure.observed).toBe(false);
    expect(stored.memory_pressure.behaviour).toMatch(
      /^tester attested none seen \(1 answer\(s\)\); receipts: 0 interrupted run\(s\), JS heap max used \d+ MiB$/,
    );
    expect(stored.notes).toBe("tester's note: cold 2 | cold 3 | cold 4 | cold 5");
    expect(stored.derived?.map((d) => d.field)).toEqual([
      'device',
      'conditions',
      'public_revision',
      'output_stayed_correct',
      'launch_to_result_ms',
      'tab',
      'memory_pressure',
      'reviewer',
      'reviewed_at',
    ]);
    expect(stored.derived?.find((d) => d.field === 'launch_to_result_ms')?.from).toMatch(
      /the browser's own launch is not included$/,
    );
    expect(review.stdout).toContain(
      '  from the evidence: output_stayed_correct: output digests: 1 distinct over 25 ok receipt(s); no expected digest declared\n',
    );
    // The review shows the cold runs' measured and attested counts side by side.
    expect(review.stdout).toContain(
      '  cold runs: 5 full protocol cold(s) of 5 (measured: 5 network-cold, 5 from a fresh start; attested: 5 restart and clear); warm receipts: 20 of 20\n',
    );
  });

  it('refuses to review from the evidence while a person-only answer is missing, one line per field', async () => {
    const { file, target } = await handedOff(procedure(), {
      sheets: [
        { ...SHEET, battery_percent: 90 },
        { ...SHEET, battery_percent: 55 },
        { ...SHEET, os_build: '' },
        SHEET,
        { ...SHEET, device_model: 'iPhone 15 Pro' },
      ],
      attestations: [],
    });
    const review = await runCli(['receipts', 'review', '--summary', file, '--reviewer', 'qa-1']);
    expect(review.code).toBe(2);
    expect(review.stderr).toBe(
      `error: ${target.key}: device.hardware_model: the session sheets differ (device_model); type the right value in the answers file\n` +
        `error: ${target.key}: memory_pressure: the tester gave no answer in protocol mode ("memory trouble seen?"); type it in the answers file\n`,
    );
    // The template says the same, fills what agrees, and names the differing battery in the notes.
    const template = await runCli(['receipts', 'review-template', '--summary', file]);
    const answers = JSON.parse(template.stdout) as Record<string, Record<string, unknown>>;
    expect(answers.device).toMatchObject({ hardware_model: '', os_build: 'iOS 26.1 (23B85)' });
    expect(answers.conditions).toMatchObject({ battery_percent: null, network: 'Wi-Fi 5 GHz' });
    // The revision the sheets give is quoted for the reviewer to confirm, never pre-filled (nor the tab, memory
    // pressure, the output or the launch time): review fills the empty slots from the evidence, naming each source.
    expect(answers.notes).toBe(
      `session sheets differ in: device_model, battery_percent; the tester's sheet says the page revision was ${'a'.repeat(40)}: confirm it against the deployed page`,
    );
    expect(answers).toMatchObject({
      public_revision: '',
      launch_to_result_ms: null,
      tab: { reloaded_or_evicted: null, details: null },
      memory_pressure: { observed: null, behaviour: '' },
      output_stayed_correct: null,
    });
    expect(template.stderr).toContain('to fill: device.hardware_model: the session sheets differ (device_model)');
    expect(template.stderr).toContain(
      `to fill: public_revision: confirm the deployed page's revision (the tester's sheet says ${'a'.repeat(40)}); left empty, review takes the sheet's`,
    );
    // An answers file with the two answers typed, every other slot left for the evidence.
    const typed = {
      ...answers,
      device: { ...answers.device, hardware_model: 'iPhone 15 (A3090)' },
      memory_pressure: { observed: false, behaviour: 'none seen, asked after the session' },
    };
    const dir = testTempDir('drb-review-answers-');
    writeFileSync(join(dir, 'answers.json'), JSON.stringify(typed));
    const done = await runCli([
      'receipts',
      'review',
      '--summary',
      file,
      '--answers',
      join(dir, 'answers.json'),
      '--reviewer',
      'qa-2',
    ]);
    expect(done.stdout.split('\n')[0], done.stderr).toBe(`${target.key}: DEVICE_PASS`);
  });

  it("does not pass when the outputs differ, or differ from the protocol's expected output, and says so", async () => {
    const receipts = procedure();
    receipts[7].output = { ...receipts[7].output!, sha256: 'f'.repeat(64) };
    const { file, target } = await handedOff(receipts);
    expect(target.outputs.digests.map((d) => d.receipts)).toEqual([24, 1]);
    const review = await runCli(['receipts', 'review', '--summary', file, '--reviewer', 'qa-1', '--profile', 'entry']);
    expect(review.stdout).toContain(`${target.key}: DEVICE_RECEIPT`);
    expect(review.stdout).toContain(
      `  not higher: the ok runs gave 2 different outputs (output digests ${receipts[0].output!.sha256.slice(0, 12)} x24, ffffffffffff x1)`,
    );
    expect(review.stdout).toContain('  not higher: the reviewer saw the output change during the procedure');

    const expected = await handedOff(procedure(), {
      protocol: { ...PROTOCOL, expected_output_sha256: 'e'.repeat(64) },
    });
    expect(expected.target.outputs).toMatchObject({ expected_sha256: ['e'.repeat(64)], matching_expected: 0 });
    const wrong = await runCli([
      'receipts',
      'review',
      '--summary',
      expected.file,
      '--reviewer',
      'qa-1',
      '--profile',
      'entry',
    ]);
    expect(wrong.stdout).toContain(
      "  not higher: 25 ok run(s) did not give the protocol's expected output (eeeeeeeeeeee)",
    );
  });

  it('counts network-cold runs nobody attested side by side, never toward the minimum', async () => {
    const { file, target } = await handedOff(procedure('not-attested'));
    expect(target.counts).toMatchObject({
      full_cold: 0,
      measured_network_cold: 5,
      measured_fresh_start: 5,
      attested_cold: 0,
      cold_minimum_met: false,
    });
    expect(target.evidence.not_higher_because).toContain(
      '0 full protocol cold run(s), the protocol needs at least 5; measured: 5 network-cold, 5 of them from a fresh start; attested: 0 browser restart ' +
        'and site data clear (cold run(s) set aside: 5 without an attested browser restart and site data clear)',
    );
    // Without a full protocol cold there is no launch-to-result time to take: a review from the evidence says so.
    const review = await runCli(['receipts', 'review', '--summary', file, '--reviewer', 'qa-1', '--profile', 'entry']);
    expect(review).toMatchObject({
      code: 2,
      stderr: `error: ${target.key}: launch_to_result_ms: no full protocol cold recorded the time to its first result; time it by hand\n`,
    });
    expect(readFileSync(join(file, '..', 'summary.md'), 'utf8')).toContain(
      '- Cold runs, measured and attested side by side: measured network-cold 5 (from a fresh start 5); attested browser restart and site data clear 0; both (full protocol colds, counted) 0/5',
    );
  });

  it('takes tab survival from the journal: an interrupted run is a reload or eviction, and needs an explanation', async () => {
    const receipts = procedure();
    receipts[6].run.previous_run_interrupted = {
      run_id: 'run-dead',
      run_mode: 'single',
      run_kind: 'warm',
      stage: 'warm_inference',
      stage_started_at: '2026-12-01T07:00:00Z',
      model_id: 'ort-tiny-xenc',
      requested_ep: 'wasm',
    };
    const { target } = await handedOff(receipts);
    const { answers, missing } = reviewAnswers(
      target,
      { reviewer: 'qa-1', reviewedAt: '2026-12-02T00:00:00Z' },
      { profile: 'entry', cold_total_p95_ms: null, warm_p95_ms: null },
    );
    expect(answers.tab).toEqual({
      reloaded_or_evicted: true,
      details: `run journal: 1 run(s) interrupted (1 at warm_inference), recorded by ${receipts[6].receipt_id}`,
    });
    expect(answers.memory_pressure).toMatchObject({ observed: true });
    expect(missing).toEqual([
      `failure_explanations: receipt ${receipts[6].receipt_id} failed or recorded an interrupted run: only a person can explain it`,
    ]);
  });
});

describe('fillBlankAnswers', () => {
  it('keeps every typed value and fills only empty slots, naming what it filled', () => {
    const evidence = {
      reviewer: 'qa-1',
      launch_to_result_ms: 812,
      output_stayed_correct: true,
      memory_pressure: { observed: false, behaviour: 'tester attested none seen' },
      derived: [
        { field: 'reviewer', from: '--reviewer' },
        { field: 'launch_to_result_ms', from: 'receipts' },
        { field: 'output_stayed_correct', from: 'output digests' },
        { field: 'memory_pressure', from: 'tester' },
      ],
    };
    const typed = {
      reviewer: 'someone',
      launch_to_result_ms: null,
      output_stayed_correct: false,
      memory_pressure: { observed: true, behaviour: '' },
    };
    expect(fillBlankAnswers(typed, evidence)).toEqual({
      reviewer: 'someone',
      launch_to_result_ms: 812,
      output_stayed_correct: false,
      memory_pressure: { observed: true, behaviour: 'tester attested none seen' },
      derived: [
        { field: 'launch_to_result_ms', from: 'receipts' },
        { field: 'memory_pressure', from: 'tester' },
      ],
    });
    expect(fillBlankAnswers([1], evidence)).toEqual([1]);
  });
});
