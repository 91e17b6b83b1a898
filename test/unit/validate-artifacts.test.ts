/**
 * `drb receipts validate` knows every drb artifact: a folder like the one `drb public-pass` writes (receipts, a
 * summary, a public-pass record) plus reviews, reports, manifests and the catalog validates, each file by its own
 * schema; a broken one is reported by field path, never called "not a device receipt".
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ARTIFACT_SCHEMAS } from '../../src/core/validation/artifact-schemas.ts';
import { buildPublicPassRecord } from '../../src/core/automation/public-pass.ts';
import { EMPTY_TESTER_SHEET, RECEIPT_BUNDLE_SCHEMA } from '../../src/core/field/receipt-bundle.ts';
import { runCli } from './cli-harness.ts';
import { pageReceipts } from './receipts-fixtures.ts';
import { testTempDir } from '../temp-dir.ts';
import { startedLaneFacts } from './public-pass-findings.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECEIPTS = join(ROOT, 'test', 'fixtures', 'receipts');

/** A folder holding one artifact of every kind drb writes or reads, all valid. */
async function everyArtifact(): Promise<{ dir: string; kinds: Set<string> }> {
  const dir = testTempDir('drb-artifacts-');
  mkdirSync(join(dir, 'receipts'));
  for (const name of readdirSync(RECEIPTS).filter((n) => n.endsWith('.json')))
    copyFileSync(join(RECEIPTS, name), join(dir, 'receipts', name));
  expect(
    (await runCli(['receipts', 'summarize', join(dir, 'receipts'), '--out', join(dir, 'receipts', 'summary')])).code,
  ).toBe(0);
  const summary = JSON.parse(readFileSync(join(dir, 'receipts', 'summary', 'summary.json'), 'utf8')) as {
    targets: Array<{ key: string }>;
  };
  const record = buildPublicPassRecord({
    url: 'http://127.0.0.1:4173/',
    startedAt: '2026-11-29T11:00:00.000Z',
    finishedAt: '2026-11-29T11:00:05.000Z',
    durationMs: 5000,
    browser: { name: 'chromium', version: '156.0.0.0', userAgent: 'Mozilla/5.0' },
    ...startedLaneFacts('chromium'),
    runParams: { autorun: 'cold,warm' },
    summary: null,
    fatalReason: null,
    revision: { app_version: '0.1.0', commit: 'abc1234' },
    page_state: 'done',
    receipts: [],
  });
  writeFileSync(join(dir, 'receipts', 'public-pass.json'), JSON.stringify(record));
  const template = await runCli([
    'receipts',
    'review-template',
    '--summary',
    join(dir, 'receipts', 'summary', 'summary.json'),
    '--target',
    summary.targets[0].key,
  ]);
  const review = JSON.parse(template.stdout) as Record<string, any>;
  Object.assign(review, {
    reviewer: 'qa-1',
    reviewed_at: '2026-11-29T12:00:00Z',
    output_stayed_correct: true,
    launch_to_result_ms: 3000,
  });
  review.device = { hardware_model: 'Pixel 8', ram_gb: 8, os_build: 'AP2A', browser: 'Chrome', browser_version: '156' };
  review.conditions = { network: 'Wi-Fi', battery_percent: 80, charging: false, thermal_state: 'nominal' };
  review.memory_pressure = { observed: false, behaviour: 'none observed' };
  // The template leaves what the reviewer confirms empty: the revision and the tab's survival.
  review.public_revision = 'a'.repeat(40);
  review.tab = { reloaded_or_evicted: false, details: null };
  review.failure_explanations = review.failure_explanations.map((e: { receipt_id: string }) => ({
    ...e,
    explanation: 'test run',
  }));
  writeFileSync(join(dir, 'review.json'), JSON.stringify(review));
  const items = [{ id: 'a', input: 'x', references: ['y'], label: 'typo' }];
  writeFileSync(join(dir, 'items.json'), JSON.stringify(items));
  writeFileSync(join(dir, 'p.json'), JSON.stringify([{ id: 'a', candidates: ['y'] }]));
  const scoreArgs = ['--items', join(dir, 'items.json'), '--output-dir', join(dir, 'reports')];
  expect(
    (await runCli(['score', ...scoreArgs, '--predictions', join(dir, 'p.json'), '--per-row', '--stem', 'score'])).code,
  ).toBe(0);
  expect(
    (
      await runCli([
        'compare',
        ...scoreArgs,
        '--baseline',
        join(dir, 'p.json'),
        '--candidate',
        join(dir, 'reports', 'score.json'),
        '--stem',
        'compare',
      ])
    ).code,
  ).toBe(0);
  const repoFiles = [
    'src/catalog/catalog.json',
    'public/prompts/drb-gen-ja-en-v1.json',
    'public/suites/ajimee-demo-24/suite.json',
    'public/inputs/tokens-2x16.json',
    'src/core/evidence/profiles.v1.json',
    'src/core/evidence/llm-configs.v1.json',
    'public/protocols/ort-tiny-xenc-wasm.json',
    'public/prompts/drb-answer-cases-ja-en-v1.json',
  ];
  mkdirSync(join(dir, 'repo'));
  for (const file of repoFiles) copyFileSync(join(ROOT, file), join(dir, 'repo', file.replace(/\//g, '_')));
  writeFileSync(
    join(dir, 'answers.json'),
    JSON.stringify({
      schema: 'drb.generation-answers.v1',
      receipt_id: 'gen-0123456789',
      created_at: '2026-11-29T12:00:00.000Z',
      engine: { name: 'transformers', version: '4.3.2' },
      model_id: 'tf-tiny-causal-lm',
      prompt_set: { id: 'drb-gen-ja-en-v1', version: 1, sha256: 'b'.repeat(64) },
      answers: [{ prompt_id: 'p1', repetition: 1, seed: 17, text: 'an answer', output_tokens: 3, truncated: false }],
    }),
  );
  // Answer scoring: answers of the shipped case set (its reference answers), one reviewer's labels, the score report.
  const casesPath = join(ROOT, 'public/prompts/drb-answer-cases-ja-en-v1.json');
  const casesBytes = readFileSync(casesPath);
  const cases = JSON.parse(casesBytes.toString('utf8')) as {
    id: string;
    version: number;
    cases: Array<{ id: string; reference_answer: string }>;
  };
  mkdirSync(join(dir, 'extra'));
  const caseAnswers = {
    schema: 'drb.generation-answers.v1',
    receipt_id: 'gen-cases-0001',
    created_at: '2026-11-29T12:00:00.000Z',
    engine: { name: 'transformers', version: '4.3.2' },
    model_id: 'tf-tiny-causal-lm',
    prompt_set: { id: cases.id, version: cases.version, sha256: createHash('sha256').update(casesBytes).digest('hex') },
    answers: cases.cases.map((c) => ({
      prompt_id: c.id,
      repetition: 1,
      seed: 17,
      text: c.reference_answer,
      output_tokens: 9,
      truncated: false,
    })),
  };
  const caseAnswersText = JSON.stringify(caseAnswers);
  writeFileSync(join(dir, 'extra', 'case-answers.json'), caseAnswersText);
  const answerReview = {
    schema: 'drb.answer-review.v1',
    cases: caseAnswers.prompt_set,
    answers_sha256: [createHash('sha256').update(caseAnswersText).digest('hex')],
    reviewer: { id: 'qa-1', kind: 'human', blinded: true },
    role: 'reviewer',
    reviewed_at: '2026-11-29T12:00:00Z',
    labels: cases.cases.map((c) => ({
      case_id: c.id,
      repetition: 1,
      missing_claim_ids: [],
      safety_violation: false,
      strict_pass: true,
      note: null,
    })),
  };
  writeFileSync(join(dir, 'extra', 'answer-review.json'), JSON.stringify(answerReview));
  // A record written before the remote lanes (drb.public-pass.v1) still validates by its own schema.
  const { lane: _lane, endpoint: _e, capabilities: _c, window: _w, driver_statement: _d, ...v1 } = record;
  const publicPassV1 = {
    ...v1,
    schema: 'drb.public-pass.v1',
    browser: { ...record.browser, name: 'chromium', fresh_profile: true },
  };
  writeFileSync(join(dir, 'extra', 'public-pass-v1.json'), JSON.stringify(publicPassV1));
  const scored = await runCli([
    'score-answers',
    '--cases',
    casesPath,
    '--answers',
    join(dir, 'extra', 'case-answers.json'),
    '--reviews',
    join(dir, 'extra', 'answer-review.json'),
    '--output-dir',
    join(dir, 'reports'),
  ]);
  expect(scored.code, scored.stderr).toBe(0);
  // The gate: a plan over the one-row items and p.json as the candidate artifact, a licence review, the gate report.
  const sha = (file: string) =>
    createHash('sha256')
      .update(readFileSync(join(dir, file)))
      .digest('hex');
  const plan = {
    schema: 'drb.gate-plan.v1',
    id: 'validate-test',
    description: 'd',
    frozen_at: '2026-11-29T12:00:00Z',
    artifact: {
      items: { file: 'items.json', sha256: sha('items.json'), format: 'generic' },
      candidates: { file: 'p.json', sha256: sha('p.json') },
    },
    fixed: { tokenizer: 't', prompt: 'p', decoding: 'd', context: 'c', route: 'r' },
    candidate_limit: 8,
    recall_adequacy: 0.8,
    quality_target: { metric: 'effective_acc_at_1', value: 0.9 },
    ladder: [{ id: 'small', label: 'small', model_id: 'tf-tiny' }],
    significance_level: 0.05,
    device_targets: [
      {
        id: 'phone',
        description: 'a phone',
        browser: 'Safari',
        hardware_model: 'iPhone',
        user_agent_includes: ['iPhone'],
      },
    ],
  };
  writeFileSync(join(dir, 'extra', 'plan.json'), JSON.stringify(plan));
  writeFileSync(
    join(dir, 'extra', 'licence.json'),
    JSON.stringify({
      schema: 'drb.licence-review.v1',
      model_id: 'tf-tiny',
      reviewer: 'legal',
      reviewed_at: '2026-11-29T12:00:00Z',
      licence: 'MIT',
      notice_reviewed: true,
      distribution_allowed: true,
      outcome: 'approved',
      notes: null,
    }),
  );
  expect(
    (
      await runCli([
        'score',
        '--items',
        join(dir, 'items.json'),
        '--predictions',
        join(dir, 'p.json'),
        '--output-dir',
        join(dir, 'gate-in'),
        '--stem',
        'artifact',
      ])
    ).code,
  ).toBe(0);
  const gated = await runCli([
    'gate',
    'escalation',
    '--plan',
    join(dir, 'extra', 'plan.json'),
    '--runs',
    join(dir, 'p.json'),
    join(dir, 'gate-in', 'artifact.json'),
    '--licence',
    join(dir, 'extra', 'licence.json'),
    '--output-dir',
    join(dir, 'reports'),
  ]);
  expect(gated.code, gated.stderr).toBe(0);
  // A session exported before its first receipt: the envelope and sheet, no receipts (a receipt in it would be a copy
  // of a loose one here).
  writeFileSync(
    join(dir, 'bundle.json'),
    JSON.stringify({
      schema: RECEIPT_BUNDLE_SCHEMA,
      created_at: '2026-11-29T12:00:00.000Z',
      app: pageReceipts()[0].app,
      protocol: null,
      sheet: EMPTY_TESTER_SHEET,
      receipts: [],
    }),
  );
  // A dataset card (drb receipts export) beside its tables; validate reads only the card.
  expect(
    (
      await runCli([
        'receipts',
        'export',
        join(dir, 'receipts'),
        '--out',
        join(dir, 'dataset'),
        '--license',
        'CC-BY-4.0',
        '--format',
        'jsonl',
      ])
    ).code,
  ).toBe(0);
  // A leaderboard governance file (drb leaderboard --meta).
  writeFileSync(
    join(dir, 'leaderboard-meta.json'),
    JSON.stringify({
      schema: 'drb.leaderboard-meta.v1',
      title: 'Leaderboard',
      benchmark_version: 'drb 0.1.0',
      maintainers: [{ reviewer: 'qa-1', name: 'QA One' }],
      funding: [],
      donated_devices: [],
      engineering_support: [],
      pre_release_access: [],
      rerun_reasons: [],
      notes: null,
    }),
  );
  const kinds = new Set<string>();
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(at, entry.name));
      else if (entry.name.endsWith('.json')) {
        const schema = (JSON.parse(readFileSync(join(at, entry.name), 'utf8')) as { schema?: string }).schema;
        if (schema !== undefined) kinds.add(schema);
      }
    }
  };
  walk(dir);
  return { dir, kinds };
}

describe('drb receipts validate knows every drb artifact', () => {
  it('validates a public-pass-like folder and every other artifact kind, each by its own schema', async () => {
    const { dir, kinds } = await everyArtifact();
    for (const schema of ARTIFACT_SCHEMAS.keys()) expect(kinds, schema).toContain(schema);
    const paths = [
      'receipts',
      'review.json',
      'reports',
      'repo',
      'answers.json',
      'bundle.json',
      'extra',
      'dataset/dataset.json',
      'leaderboard-meta.json',
    ].map((p) => join(dir, p));
    const run = await runCli(['receipts', 'validate', ...paths]);
    expect(run.stdout).toMatch(
      /^ok: \d+ receipt\(s\) valid, and \d+ other drb artifact\(s\) valid by their own schema\n$/,
    );
    expect(run.code).toBe(0);
    const others = Number(/and (\d+) other/.exec(run.stdout)![1]);
    // summary, public-pass record, review, score + compare + answer-score + gate reports, repo files, answers, bundle,
    // extra/: case answers, answer review, gate plan, licence review, a v1 public-pass record; dataset card,
    // leaderboard meta
    expect(others).toBe(1 + 1 + 1 + 4 + 8 + 1 + 1 + 5 + 1 + 1);
  });

  it('reports a broken artifact by field path and an unknown schema as not a drb artifact', async () => {
    const dir = testTempDir('drb-artifacts-bad-');
    const record = buildPublicPassRecord({
      url: 'http://127.0.0.1:4173/',
      startedAt: '2026-11-29T11:00:00.000Z',
      finishedAt: '2026-11-29T11:00:05.000Z',
      durationMs: 5000,
      browser: { name: 'chromium', version: '156.0.0.0', userAgent: 'Mozilla/5.0' },
      ...startedLaneFacts('chromium'),
      runParams: { autorun: 'cold,warm' },
      summary: null,
      fatalReason: null,
      revision: { app_version: '0.1.0', commit: 'abc1234' },
      page_state: 'done',
      receipts: [],
    }) as unknown as Record<string, unknown>;
    record.evidence_state = 'DEVICE_PASS';
    writeFileSync(join(dir, 'public-pass.json'), JSON.stringify(record));
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ schema: 'acme.thing.v3' }));
    const run = await runCli(['receipts', 'validate', dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(
      `${join(dir, 'other.json')}: schema: not a drb artifact this tool knows (schema "acme.thing.v3")\n` +
        `${join(dir, 'public-pass.json')}: evidence_state: Invalid input: expected "PUBLIC_PASS"\n`,
    );
  });
});
