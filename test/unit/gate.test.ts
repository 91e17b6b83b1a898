/**
 * The escalation gate (`drb gate plan --check`, `drb gate escalation`), run through the real CLI on real reports:
 * every score and compare report here is made by `drb score --per-row` and `drb compare` from generic items and
 * predictions written by the test, so the gate reads exactly what a user would give it. Tables: a ladder that must
 * stop at "fix candidates", one that must stop because candidate misses dominate, one that must escalate (twice,
 * through a significant paired improvement), one blocked by an overcorrection regression, one blocked by a missing
 * DEVICE_PASS (a headless run and a public pass given instead), one promoted with a real DEVICE_PASS, and one with
 * generated free text in the candidates (refused). Plus the plan's hash in every report and refusals of runs scored
 * on other bytes.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPublicPassRecord } from '../../src/core/automation/public-pass.ts';
import type { DeviceReview } from '../../src/core/evidence/device-review.ts';
import { GateReport } from '../../src/core/gate/escalation.ts';
import { checkPredictionsAgainstArtifact } from '../../src/core/gate/gate-inputs.ts';
import type { GatePlan } from '../../src/core/gate/gate-plan.ts';
import { buildReceipt } from './receipts-builder.ts';
import { runCli } from './cli-harness.ts';
import { testTempDir } from '../temp-dir.ts';

const K = 4;
const TYPO = Array.from({ length: 30 }, (_, i) => `t${i + 1}`);
const CLEAN = Array.from({ length: 10 }, (_, i) => `c${i + 1}`);
const ITEMS = [
  ...TYPO.map((id) => ({ id, input: `${id}-typo`, references: [id], label: 'typo' })),
  ...CLEAN.map((id) => ({ id, input: id, references: [id, `${id}-alt`], label: 'clean' })),
];

/** The candidate artifact: every row has its reference (adequate) unless `missing` names it. Clean rows list the input first. */
function candidates(missing: ReadonlySet<string> = new Set()): Array<{ id: string; candidates: string[] }> {
  return [
    ...TYPO.map((id) => ({
      id,
      candidates: missing.has(id)
        ? [`${id}-x`, `${id}-w`, `${id}-y`, `${id}-z`]
        : [`${id}-x`, id, `${id}-y`, `${id}-z`],
    })),
    ...CLEAN.map((id) => ({ id, candidates: [id, `${id}-alt`, `${id}-x`, `${id}-y`] })),
  ];
}

/**
 * A reranker's predictions: the artifact's candidates of every row, reordered. `right` names the typo rows whose
 * reference it ranks first; `overcorrect` the clean rows where it ranks the other acceptable spelling first.
 */
function rerank(
  artifact: Array<{ id: string; candidates: string[] }>,
  right: ReadonlySet<string>,
  overcorrect: ReadonlySet<string> = new Set(),
) {
  return artifact.map((row) => {
    const list = [...row.candidates];
    const pick = right.has(row.id) ? row.id : overcorrect.has(row.id) ? `${row.id}-alt` : null;
    if (pick !== null && list.includes(pick)) list.sort((a, b) => (a === pick ? -1 : b === pick ? 1 : 0));
    return { id: row.id, candidates: list, provenance: 'lfm' };
  });
}

const first = (n: number) => new Set(TYPO.slice(0, n));
const sha = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

interface Fixture {
  dir: string;
  plan: string;
  planSha: string;
  file: (name: string) => string;
}

/** Writes items, candidates and the plan (ladder 230M, 350M, 1.2B-JP; acc target 0.9; Recall@4 adequacy 0.8 by default). */
function fixture(options: { missing?: Set<string>; adequacy?: number } = {}): Fixture {
  const dir = testTempDir('drb-gate-');
  const file = (name: string) => join(dir, name);
  const itemsText = JSON.stringify(ITEMS);
  const candidatesText = JSON.stringify(candidates(options.missing));
  writeFileSync(file('items.json'), itemsText);
  writeFileSync(file('candidates.json'), candidatesText);
  const plan: GatePlan = {
    schema: 'drb.gate-plan.v1',
    id: 'lfm-ladder-test',
    description: 'unit test ladder',
    frozen_at: '2026-12-01T00:00:00Z',
    artifact: {
      items: { file: 'items.json', sha256: sha(itemsText), format: 'generic' },
      candidates: { file: 'candidates.json', sha256: sha(candidatesText) },
    },
    fixed: {
      tokenizer: 'tok@1',
      prompt: 'score-candidates v1',
      decoding: 'sum of candidate log-probabilities',
      context: '512 tokens',
      route: 'wasm, 4 threads',
    },
    candidate_limit: K,
    recall_adequacy: options.adequacy ?? 0.8,
    quality_target: { metric: 'effective_acc_at_1', value: 0.9 },
    ladder: [
      { id: 'lfm-230m', label: 'LFM2.5-230M', model_id: 'lfm-230m-q4' },
      { id: 'lfm-350m', label: 'LFM2.5-350M', model_id: 'lfm-350m-q4' },
      { id: 'lfm-1.2b-jp', label: 'LFM2.5-1.2B-JP', model_id: 'lfm-1.2b-jp-q4' },
    ],
    significance_level: 0.05,
    device_targets: [
      {
        id: 'iphone-13-safari',
        description: 'iPhone 13, Safari 18',
        browser: 'Safari',
        hardware_model: 'iPhone 13',
        user_agent_includes: ['iPhone', 'Safari/'],
      },
    ],
  };
  const planText = JSON.stringify(plan, null, 2);
  writeFileSync(file('plan.json'), planText);
  return { dir, plan: file('plan.json'), planSha: sha(planText), file };
}

/** Writes predictions and scores them with the real `drb score --per-row`; returns the report path. */
async function scored(f: Fixture, name: string, predictions: unknown): Promise<string> {
  writeFileSync(f.file(`${name}.predictions.json`), JSON.stringify(predictions));
  const run = await runCli([
    'score',
    '--items',
    f.file('items.json'),
    '--predictions',
    f.file(`${name}.predictions.json`),
    '--candidate-limit',
    String(K),
    '--per-row',
    '--output-dir',
    f.dir,
    '--stem',
    `${name}.score`,
  ]);
  expect(run.code, run.stderr).toBe(0);
  return f.file(`${name}.score.json`);
}

async function compared(f: Fixture, baseline: string, candidate: string): Promise<string> {
  const stem = `${candidate}-vs-${baseline}`;
  const run = await runCli([
    'compare',
    '--items',
    f.file('items.json'),
    '--baseline',
    f.file(`${baseline}.predictions.json`),
    '--candidate',
    f.file(`${candidate}.predictions.json`),
    '--candidate-limit',
    String(K),
    '--output-dir',
    f.dir,
    '--stem',
    stem,
  ]);
  expect(run.code, run.stderr).toBe(0);
  return f.file(`${stem}.json`);
}

/** Runs `drb gate escalation` and reads back its JSON report (when one was written). */
async function gate(
  f: Fixture,
  runs: string[],
  extra: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string; report: GateReport | null }> {
  const out = f.file('gate-out');
  const run = await runCli(['gate', 'escalation', '--plan', f.plan, '--runs', ...runs, ...extra, '--output-dir', out]);
  const path = join(out, 'gate.json');
  const report = run.code === 2 || !existsSync(path) ? null : GateReport.parse(JSON.parse(readFileSync(path, 'utf8')));
  return { ...run, report };
}

const artifactRuns = async (f: Fixture) => [
  f.file('candidates.json'),
  await scored(f, 'artifact', JSON.parse(readFileSync(f.file('candidates.json'), 'utf8'))),
];
const labelled = async (f: Fixture, id: string, predictions: unknown) => {
  const report = await scored(f, id, predictions);
  return [`${id}=${report}`, `${id}=${f.file(`${id}.predictions.json`)}`];
};

function licence(f: Fixture, modelId: string, outcome: 'approved' | 'rejected' = 'approved'): string {
  const path = f.file(`licence-${modelId}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      schema: 'drb.licence-review.v1',
      model_id: modelId,
      reviewer: 'legal-1',
      reviewed_at: '2026-12-02T00:00:00Z',
      licence: 'LFM Open License v1.0',
      notice_reviewed: true,
      distribution_allowed: true,
      outcome,
      notes: null,
    }),
  );
  return path;
}

function review(target: string, change: (r: DeviceReview) => void = () => {}): DeviceReview {
  const r: DeviceReview = {
    schema: 'drb.device-review.v1',
    target,
    reviewer: 'qa-1',
    reviewed_at: '2026-11-29T12:00:00Z',
    device: {
      hardware_model: 'iPhone 13 (A2633)',
      ram_gb: 4,
      os_build: 'iOS 18.1 (22B83)',
      browser: 'Safari',
      browser_version: '18.1',
    },
    conditions: { network: 'Wi-Fi 5 GHz', battery_percent: 70, charging: false, thermal_state: 'nominal' },
    public_revision: 'a'.repeat(40),
    launch_to_result_ms: 4200,
    tab: { reloaded_or_evicted: false, details: null },
    memory_pressure: { observed: false, behaviour: 'none observed' },
    output_stayed_correct: true,
    failure_explanations: [],
    thresholds: { profile: 'mainstream', cold_total_p95_ms: null, warm_p95_ms: null },
    notes: null,
  };
  change(r);
  return r;
}

const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

/** Summarises a full cold/warm procedure of `modelId` on `userAgent` with the real CLI, stores a review, returns the folder. */
async function deviceSummary(
  f: Fixture,
  name: string,
  modelId: string,
  userAgent: string | undefined,
): Promise<string> {
  const receipts = join(f.dir, `${name}-receipts`);
  mkdirSync(receipts);
  const all = [
    ...Array.from({ length: 5 }, () =>
      buildReceipt({ kind: 'cold', coldMs: { fetch: 100, session: 200, first: 5 }, modelId, userAgent }),
    ),
    ...Array.from({ length: 20 }, () => buildReceipt({ kind: 'warm', warmSamples: [2, 3, 4], modelId, userAgent })),
  ];
  all.forEach((r, i) => writeFileSync(join(receipts, `${i}.json`), JSON.stringify(r)));
  const out = join(f.dir, `${name}-summary`);
  expect((await runCli(['receipts', 'summarize', receipts, '--out', out])).code).toBe(0);
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { targets: Array<{ key: string }> };
  const key = summary.targets[0].key;
  writeFileSync(join(f.dir, `${name}-review.json`), JSON.stringify(review(key)));
  const stored = await runCli([
    'receipts',
    'review',
    '--summary',
    join(out, 'summary.json'),
    '--target',
    key,
    '--answers',
    join(f.dir, `${name}-review.json`),
  ]);
  expect(stored.code, stored.stderr + stored.stdout).toBe(0);
  return out;
}

const statusLine = (report: GateReport) =>
  report.steps.map((s) => `${s.kind} ${s.model ?? '-'}: ${s.status}: ${s.reason}`);

describe('drb gate plan --check', () => {
  it('prints ok with the plan SHA-256, and refuses a bad plan with one line', async () => {
    const f = fixture();
    const ok = await runCli(['gate', 'plan', '--check', f.plan]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe(
      `ok: ${f.plan}: plan lfm-ladder-test, 3 ladder step(s), 1 device target(s); sha256 ${f.planSha}\n`,
    );
    const plan = JSON.parse(readFileSync(f.plan, 'utf8'));
    plan.ladder[1].id = plan.ladder[0].id;
    writeFileSync(f.file('bad.json'), JSON.stringify(plan));
    const bad = await runCli(['gate', 'plan', '--check', f.file('bad.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`error: ${f.file('bad.json')}: ladder[1].id: duplicate id "lfm-230m"\n`);
    plan.ladder[1].id = 'lfm-350m';
    plan.quality_target = { metric: 'effective_acc_at_1', value: 90 };
    writeFileSync(f.file('bad.json'), JSON.stringify(plan));
    expect((await runCli(['gate', 'plan', '--check', f.file('bad.json')])).stderr).toBe(
      `error: ${f.file('bad.json')}: quality_target.value: effective_acc_at_1 is a fraction from 0 to 1\n`,
    );
  });
});

describe('drb gate escalation: ladder tables', () => {
  it('stops at "fix candidates" when Recall@K is below the adequacy threshold (exit 0, decided)', async () => {
    const f = fixture({ missing: new Set(TYPO.slice(0, 25)) });
    const { code, report, stdout } = await gate(f, await artifactRuns(f));
    expect(code).toBe(0);
    // Recall@4: 5 typo rows + 10 clean rows of 40 = 0.375
    expect(statusLine(report!)).toEqual([
      'evaluate lfm-230m: not eligible: Recall@4 0.375 < 0.80 adequacy: fix candidates first',
      'evaluate lfm-350m: not eligible: the ladder stops before LFM2.5-230M: fix candidates first',
      'evaluate lfm-1.2b-jp: not eligible: the ladder stops before LFM2.5-230M: fix candidates first',
      'promote -: not eligible: no model may be evaluated until the candidates are adequate',
    ]);
    expect(report!.decision).toMatchObject({ outcome: 'decided', action: 'fix-candidates', model: null });
    expect(report!.plan).toEqual({ file: 'plan.json', sha256: f.planSha, id: 'lfm-ladder-test' });
    expect(stdout).toContain('evaluate lfm-230m: not eligible: Recall@4 0.375 < 0.80 adequacy: fix candidates first\n');
    expect(stdout).toContain(`plan sha256 ${f.planSha}`);
    const md = readFileSync(f.file('gate-out/gate.md'), 'utf8');
    expect(md).toContain(f.planSha);
    expect(md).toContain('Recall@4 0.375 &lt; 0.80 adequacy: fix candidates first');
  });

  it('stops when candidate misses outnumber selection errors: a larger reranker cannot help', async () => {
    const f = fixture({ missing: new Set(TYPO.slice(0, 10)), adequacy: 0.7 });
    const artifact = candidates(new Set(TYPO.slice(0, 10)));
    // 230M ranks the reference first on 16 of the 20 rows that have it: 4 selection errors, 10 candidate misses.
    const runs = [
      ...(await artifactRuns(f)),
      ...(await labelled(f, 'lfm-230m', rerank(artifact, new Set(TYPO.slice(10, 26))))),
    ];
    const { code, report } = await gate(f, runs);
    expect(code).toBe(0);
    expect(statusLine(report!)).toEqual([
      'evaluate lfm-230m: eligible: Recall@4 0.75 ≥ 0.70 adequacy: LFM2.5-230M eligible for evaluation on the fixed artifact',
      'evaluate lfm-350m: not eligible: candidate misses 10 vs selection errors 4: a larger reranker cannot help',
      'evaluate lfm-1.2b-jp: not eligible: the ladder stopped at LFM2.5-350M',
      'promote -: not eligible: no model meets the quality target (LFM2.5-230M: effective_acc_at_1 0.65 < 0.90)',
    ]);
    expect(report!.decision).toMatchObject({ outcome: 'decided', action: 'stop', model: 'lfm-230m' });
  });

  it('escalates: 230M misses the target on selection errors, 350M improves on it significantly and still misses: 1.2B-JP eligible', async () => {
    const f = fixture();
    const artifact = candidates();
    const runs = [
      ...(await artifactRuns(f)),
      ...(await labelled(f, 'lfm-230m', rerank(artifact, first(15)))),
      ...(await labelled(f, 'lfm-350m', rerank(artifact, first(25)))),
    ];
    runs.push(await compared(f, 'lfm-230m', 'lfm-350m'));
    const { code, report } = await gate(f, runs);
    expect(code).toBe(0);
    // 230M: acc (15 + 10) / 40 = 0.625, 15 selection errors, 0 misses. 350M: acc 35 / 40 = 0.875; against 230M
    // 10 better, 0 worse: p = 2 x 0.5^10 = 0.001953125.
    expect(statusLine(report!)).toEqual([
      'evaluate lfm-230m: eligible: Recall@4 1 ≥ 0.80 adequacy: LFM2.5-230M eligible for evaluation on the fixed artifact',
      'evaluate lfm-350m: eligible: LFM2.5-230M misses the target (effective_acc_at_1 0.625 < 0.90); selection errors 15 vs candidate misses 0: LFM2.5-350M eligible for evaluation',
      'evaluate lfm-1.2b-jp: eligible: LFM2.5-350M vs LFM2.5-230M: 10 better, 0 worse, p 0.00195 < 0.05 paired improvement, target still missed: LFM2.5-1.2B-JP eligible for evaluation',
      'promote -: not yet decidable: no result of LFM2.5-1.2B-JP yet',
    ]);
    expect(report!.steps[2].facts).toMatchObject({
      better: 10,
      worse: 0,
      sign_test_p_value: 0.001953125,
      significance_level: 0.05,
    });
    expect(report!.decision).toMatchObject({ outcome: 'decided', action: 'evaluate', model: 'lfm-1.2b-jp' });
  });

  it('does not escalate past a model without a significant paired improvement, and waits for a missing comparison', async () => {
    const f = fixture();
    const artifact = candidates();
    const base = [...(await artifactRuns(f)), ...(await labelled(f, 'lfm-230m', rerank(artifact, first(15))))];
    // 350M: right on rows 1-12 and 16-19: 4 better, 3 worse than 230M.
    const runs = [
      ...base,
      ...(await labelled(f, 'lfm-350m', rerank(artifact, new Set([...TYPO.slice(0, 12), ...TYPO.slice(15, 19)])))),
    ];
    const waiting = await gate(f, runs);
    expect(waiting.code).toBe(1);
    expect(statusLine(waiting.report!)[2]).toBe(
      'evaluate lfm-1.2b-jp: not yet decidable: no paired comparison of LFM2.5-350M against LFM2.5-230M (drb compare): paired improvement unknown',
    );
    expect(waiting.report!.decision).toMatchObject({ outcome: 'blocked', action: 'not-yet-decidable' });
    runs.push(await compared(f, 'lfm-230m', 'lfm-350m'));
    const { code, report } = await gate(f, runs);
    expect(code).toBe(0);
    expect(statusLine(report!)[2]).toBe(
      'evaluate lfm-1.2b-jp: not eligible: LFM2.5-350M vs LFM2.5-230M: 4 better, 3 worse, p 1 ≥ 0.05: no significant paired improvement; LFM2.5-1.2B-JP not eligible',
    );
    expect(report!.decision).toMatchObject({ outcome: 'decided', action: 'stop', model: 'lfm-350m' });
  });

  it('blocks promotion on an overcorrection regression (exit 1), even with a licence and a device pass', async () => {
    const f = fixture();
    const artifact = candidates();
    const runs = [
      ...(await artifactRuns(f)),
      ...(await labelled(f, 'lfm-230m', rerank(artifact, first(30), new Set(CLEAN.slice(0, 3))))),
    ];
    const device = await deviceSummary(f, 'iphone', 'lfm-230m-q4', IPHONE_SAFARI);
    const { code, report } = await gate(f, runs, ['--reviews', device, '--licence', licence(f, 'lfm-230m-q4')]);
    expect(code).toBe(1);
    expect(statusLine(report!)).toEqual([
      'evaluate lfm-230m: eligible: Recall@4 1 ≥ 0.80 adequacy: LFM2.5-230M eligible for evaluation on the fixed artifact',
      'evaluate lfm-350m: not eligible: LFM2.5-230M meets the quality target (effective_acc_at_1 1 ≥ 0.90): no escalation',
      'evaluate lfm-1.2b-jp: not eligible: LFM2.5-230M meets the quality target (effective_acc_at_1 1 ≥ 0.90): no escalation',
      'promote lfm-230m: not eligible: overcorrection on clean rows regressed 0 to 3: promotion blocked',
    ]);
    expect(report!.device_targets).toMatchObject([{ device_target: 'iphone-13-safari', state: 'DEVICE_PASS' }]);
    expect(report!.decision).toMatchObject({ outcome: 'blocked', action: 'promotion-blocked', model: 'lfm-230m' });
  });

  it('blocks promotion on a missing DEVICE_PASS: a headless run, a public pass and a local score never stand in (exit 1)', async () => {
    const f = fixture();
    const artifact = candidates();
    const runs = [...(await artifactRuns(f)), ...(await labelled(f, 'lfm-230m', rerank(artifact, first(30))))];
    // The same full procedure and review, but recorded by headless Chromium: it reaches DEVICE_PASS in its own summary.
    const headless = await deviceSummary(f, 'headless', 'lfm-230m-q4', undefined);
    expect(JSON.parse(readFileSync(join(headless, 'summary.json'), 'utf8')).targets[0].evidence.state).toBe(
      'DEVICE_PASS',
    );
    const record = buildPublicPassRecord({
      url: 'https://example.org/',
      startedAt: '2026-11-29T11:00:00.000Z',
      finishedAt: '2026-11-29T11:00:05.000Z',
      durationMs: 5000,
      browser: { name: 'webkit', version: '605.1.15', userAgent: 'Mozilla/5.0' },
      runParams: { autorun: 'cold,warm' },
      summary: null,
      fatalReason: null,
      revision: { app_version: '0.1.0', commit: 'abc1234' },
      page_state: 'done',
      receipts: [],
    });
    writeFileSync(f.file('public-pass.json'), JSON.stringify(record));
    const { code, report } = await gate(f, runs, [
      '--reviews',
      headless,
      f.file('public-pass.json'),
      '--licence',
      licence(f, 'lfm-230m-q4'),
    ]);
    expect(code).toBe(1);
    const key = JSON.parse(readFileSync(join(headless, 'summary.json'), 'utf8')).targets[0].key;
    expect(report!.steps[3]).toMatchObject({
      kind: 'promote',
      model: 'lfm-230m',
      status: 'not yet decidable',
      reason: `no DEVICE_PASS for iphone-13-safari (target ${key} does not count: a headless browser (not a physical device result)); a local or browser pass never stands in: promotion blocked`,
    });
    expect(report!.not_device_evidence).toEqual([
      {
        file: 'public-pass.json',
        why: 'a public pass (webkit) shows the deployed page works in a fresh browser; it never implies DEVICE_PASS',
      },
    ]);
    expect(report!.decision).toMatchObject({ outcome: 'blocked', action: 'promotion-blocked', model: 'lfm-230m' });
  });

  it('promotes when the target is met, nothing regressed, the licence is approved and the physical device passed (exit 0)', async () => {
    const f = fixture();
    const artifact = candidates();
    const runs = [...(await artifactRuns(f)), ...(await labelled(f, 'lfm-230m', rerank(artifact, first(30))))];
    const device = await deviceSummary(f, 'iphone', 'lfm-230m-q4', IPHONE_SAFARI);
    const noLicence = await gate(f, runs, ['--reviews', device]);
    expect(noLicence.code).toBe(1);
    expect(noLicence.report!.steps[3].reason).toBe('no licence/NOTICE review of lfm-230m-q4: promotion blocked');
    const rejected = await gate(f, runs, ['--reviews', device, '--licence', licence(f, 'lfm-230m-q4', 'rejected')]);
    expect(rejected.report!.steps[3]).toMatchObject({
      status: 'not eligible',
      reason: 'licence review licence-lfm-230m-q4.json of lfm-230m-q4: rejected: promotion blocked',
    });
    const { code, report } = await gate(f, runs, ['--reviews', device, '--licence', licence(f, 'lfm-230m-q4')]);
    expect(code).toBe(0);
    expect(report!.steps[3]).toMatchObject({ status: 'eligible', model: 'lfm-230m' });
    expect(report!.steps[3].reason).toBe(
      'LFM2.5-230M meets the target (effective_acc_at_1 1 ≥ 0.90); no overcorrection regression (0 to 0); licence approved; DEVICE_PASS on 1 device target(s): promotion eligible',
    );
    expect(report!.decision).toMatchObject({ outcome: 'decided', action: 'promote', model: 'lfm-230m' });
    expect(report!.inputs.map((i) => i.kind)).toEqual([
      'candidates',
      'score-report',
      'score-report',
      'predictions',
      'receipts-summary',
      'device-review',
      'licence-review',
    ]);
  });
});

describe('drb gate escalation: refusals (exit 2, one line, nothing written)', () => {
  it('refuses predictions with generated free text in the candidate list', async () => {
    const f = fixture();
    const predictions = rerank(candidates(), first(30));
    predictions[4].candidates[0] = 't5 (corrected by the model)\u001b[31m';
    const runs = [...(await artifactRuns(f)), ...(await labelled(f, 'lfm-230m', predictions))];
    const run = await gate(f, runs);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `error: ${f.file('lfm-230m.predictions.json')}: id "t5" candidates[0]: "t5 (corrected by the model)\\u001b[31m" is not one of the artifact's candidates for this row: generated free text may never enter the candidate list (the model returns scores or ranks only)\n`,
    );
    expect(existsSync(f.file('gate-out'))).toBe(false);
  });

  it('refuses a dropped candidate (the candidate count is fixed) and accepts an abstention', () => {
    const artifact = candidates();
    const predictions = rerank(artifact, first(30)) as Array<{ id: string; candidates: string[] | null }>;
    predictions[1] = { id: 't2', candidates: null };
    expect(() => checkPredictionsAgainstArtifact(artifact, predictions, 'p.json', 'c.json')).not.toThrow();
    predictions[2] = { id: 't3', candidates: ['t3', 't3-x'] };
    expect(() => checkPredictionsAgainstArtifact(artifact, predictions, 'p.json', 'c.json')).toThrow(
      'p.json: id "t3" candidates: lists 2 of the row\'s 4 candidates: the candidate count is fixed; a reranker reorders all of them',
    );
    predictions[2] = { id: 't3', candidates: ['t3', 't3', 't3-x', 't3-y'] };
    expect(() => checkPredictionsAgainstArtifact(artifact, predictions, 'p.json', 'c.json')).toThrow(
      /^p\.json: id "t3" candidates\[1\]: "t3" appears more often than in the artifact/,
    );
  });

  it('refuses a score report of other item bytes or another K, and predictions the report did not score', async () => {
    const f = fixture();
    const runs = await artifactRuns(f);
    const other = { ...ITEMS[0], references: ['t1', 't1-x'] };
    writeFileSync(f.file('other-items.json'), JSON.stringify([other, ...ITEMS.slice(1)]));
    writeFileSync(f.file('p.json'), JSON.stringify(rerank(candidates(), first(29))));
    expect(
      (
        await runCli([
          'score',
          '--items',
          f.file('other-items.json'),
          '--predictions',
          f.file('p.json'),
          '--candidate-limit',
          '4',
          '--output-dir',
          f.dir,
          '--stem',
          'other',
        ])
      ).code,
    ).toBe(0);
    const a = await gate(f, [...runs, `lfm-230m=${f.file('other.json')}`]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(
      new RegExp(
        `^error: ${f.file('other.json')}: inputs\\.items\\.sha256: scored items [0-9a-f]{12}…, not the plan's fixed items [0-9a-f]{12}…\\n$`,
      ),
    );
    expect(
      (
        await runCli([
          'score',
          '--items',
          f.file('items.json'),
          '--predictions',
          f.file('p.json'),
          '--candidate-limit',
          '8',
          '--output-dir',
          f.dir,
          '--stem',
          'k8',
        ])
      ).code,
    ).toBe(0);
    const b = await gate(f, [...runs, `lfm-230m=${f.file('k8.json')}`]);
    expect(b.stderr).toBe(`error: ${f.file('k8.json')}: candidate_limit: is 8, the plan fixes K = 4\n`);
    const report = await scored(f, 'lfm-230m', rerank(candidates(), first(30)));
    const c = await gate(f, [...runs, `lfm-230m=${report}`, `lfm-230m=${f.file('p.json')}`]);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/p\.json: \$: is not the predictions file .*lfm-230m\.score\.json scored/);
    const unlabelled = await gate(f, [...runs, report]);
    expect(unlabelled.stderr).toMatch(/: \$: label a reranker's score report with its ladder id: --runs <id>=/);
    expect(existsSync(f.file('gate-out'))).toBe(false);
  });

  it('refuses a comparison report whose paired counts were rewritten to claim an improvement', async () => {
    const f = fixture();
    const artifact = candidates();
    // 350M: right on rows 1-12 and 16-19: 4 better, 3 worse than 230M, p 1: not eligible, as drb compare says.
    const runs = [
      ...(await artifactRuns(f)),
      ...(await labelled(f, 'lfm-230m', rerank(artifact, first(15)))),
      ...(await labelled(f, 'lfm-350m', rerank(artifact, new Set([...TYPO.slice(0, 12), ...TYPO.slice(15, 19)])))),
    ];
    const comparison = await compared(f, 'lfm-230m', 'lfm-350m');
    const report = JSON.parse(readFileSync(comparison, 'utf8'));
    // Consistent with itself (counts add up, the p-value is the sign test's on them), not with the runs it compares.
    report.paired.effective_correct = {
      better: 10,
      worse: 0,
      tied: 30,
      discordant: 10,
      sign_test_p_value: 0.001953125,
    };
    report.broken = [];
    writeFileSync(comparison, JSON.stringify(report, null, 2));
    const run = await gate(f, [...runs, comparison]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `error: ${comparison}: paired.effective_correct.better: better - worse is 10, but the runs' correct_rows go from 25 to 26 (1) (the file contradicts itself; make it again)\n`,
    );
    expect(existsSync(f.file('gate-out'))).toBe(false);
  });

  it('refuses a score report whose rates contradict its own counts', async () => {
    const f = fixture();
    const runs = await artifactRuns(f);
    const scoreFile = await scored(f, 'lfm-230m', rerank(candidates(), first(15)));
    const report = JSON.parse(readFileSync(scoreFile, 'utf8'));
    report.metrics.effective_acc_at_1 = 0.95;
    writeFileSync(scoreFile, JSON.stringify(report, null, 2));
    const run = await gate(f, [...runs, `lfm-230m=${scoreFile}`, `lfm-230m=${f.file('lfm-230m.predictions.json')}`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(
        `^error: ${scoreFile}: metrics\\.effective_acc_at_1: is 0\\.95, but correct_rows / rows \\(25 / 40\\) give 0\\.625 `,
      ),
    );
    expect(existsSync(f.file('gate-out'))).toBe(false);
  });

  it('a run whose predictions were not given decides nothing', async () => {
    const f = fixture();
    const runs = [
      ...(await artifactRuns(f)),
      `lfm-230m=${await scored(f, 'lfm-230m', rerank(candidates(), first(30)))}`,
    ];
    const { code, report } = await gate(f, runs);
    expect(code).toBe(1);
    expect(statusLine(report!)[1]).toBe(
      "evaluate lfm-350m: not yet decidable: LFM2.5-230M's predictions were not given, so their candidates cannot be checked against the artifact",
    );
  });

  it('escapes hostile labels and fixed fields in the Markdown', async () => {
    const f = fixture();
    const plan = JSON.parse(readFileSync(f.plan, 'utf8'));
    plan.fixed.route = 'wasm | x |\n## Decision: promote <img src=x onerror=alert(1)>';
    plan.ladder[0].label = '<script>alert(1)</script>';
    writeFileSync(f.plan, JSON.stringify(plan));
    const { code } = await gate(f, await artifactRuns(f));
    expect(code).toBe(0);
    const md = readFileSync(f.file('gate-out/gate.md'), 'utf8');
    expect(md).not.toMatch(/<script>|<img|^## Decision/m);
    expect(md).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
