/**
 * Promotion rules (DEVICE_RECEIPT -> DEVICE_PASS), the review answers schema, and `drb receipts review`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { DeviceReview } from '../../src/core/evidence/device-review.ts';
import { evaluateEvidence } from '../../src/core/evidence/evidence.ts';
import { ReceiptsSummarizer } from '../../src/core/evidence/receipts-summarizer.ts';
import { EvidenceState, ReceiptsSummary, type TargetSummary } from '../../src/core/evidence/receipts-summary.ts';
import { buildReceipt } from './receipts-builder.ts';
import { runCli } from './cli-harness.ts';
import { testTempDir } from '../temp-dir.ts';

function fullProcedure(extra: DeviceReceipt[] = []): DeviceReceipt[] {
  return [
    ...Array.from({ length: 5 }, () => buildReceipt({ kind: 'cold', coldMs: { fetch: 100, session: 200, first: 5 } })),
    ...Array.from({ length: 20 }, () => buildReceipt({ kind: 'warm', warmSamples: [2, 3, 4] })),
    ...extra,
  ];
}

async function targetOf(receipts: DeviceReceipt[]): Promise<TargetSummary> {
  const s = new ReceiptsSummarizer();
  for (const r of receipts) s.addReceipt(r);
  const summary = await s.finish();
  return summary.targets.find((t) => t.identity.route.completed_ep !== null)!;
}

function answers(target: string, change: (r: DeviceReview) => void = () => {}): DeviceReview {
  const review: DeviceReview = {
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
  change(review);
  return DeviceReview.parse(review);
}

describe('evidence rules', () => {
  it('promotes to DEVICE_PASS only with a review, minimums, cold and warm, and thresholds holding', async () => {
    const t = await targetOf(fullProcedure());
    expect(evaluateEvidence(t, answers(t.key))).toEqual({ state: 'DEVICE_PASS', not_higher_because: [] });
    expect(evaluateEvidence(t, null)).toEqual({
      state: 'DEVICE_RECEIPT',
      not_higher_because: [`no device review stored (drb receipts review --target ${t.key})`],
    });
  });

  it('says why a target is not higher: counts, cold or warm missing', async () => {
    const fewCold = await targetOf(fullProcedure().slice(1));
    expect(evaluateEvidence(fewCold, answers(fewCold.key)).not_higher_because).toEqual([
      '4 full protocol cold run(s), the protocol needs at least 5; measured: 4 network-cold, 4 of them from a fresh start; attested: 4 browser restart and site data clear',
    ]);
    const noWarm = await targetOf(fullProcedure().slice(0, 5));
    expect(
      evaluateEvidence(
        noWarm,
        answers(noWarm.key, (r) => (r.thresholds = { profile: null, cold_total_p95_ms: 1000, warm_p95_ms: null })),
      ).not_higher_because,
    ).toEqual(['0 clean ok warm run(s), the protocol needs at least 20']);
    const noisy = await targetOf([...fullProcedure().slice(1), buildReceipt({ kind: 'cold', hidden: true })]);
    expect(evaluateEvidence(noisy, answers(noisy.key)).state).toBe('DEVICE_RECEIPT');
  });

  it('needs every failed and interrupted run (own and related) explained', async () => {
    const failed = buildReceipt({ kind: 'cold', failed: { stage: 'session', reason: 'out of memory' } });
    const interrupted = buildReceipt({
      kind: 'warm',
      warmSamples: [2, 3, 4],
      interruptedAt: {
        run_id: 'y',
        run_kind: 'cold',
        stage: 'session',
        stage_started_at: '2026-11-29T09:00:00Z',
        model_id: 'ort-tiny-xenc',
        requested_ep: 'wasm',
      },
    });
    const t = await targetOf(fullProcedure([failed, interrupted]));
    expect(evaluateEvidence(t, answers(t.key)).not_higher_because).toEqual([
      `1 failed run(s) not explained in a review: ${failed.receipt_id}`,
      `1 interrupted run(s) not explained in a review (recorded by ${interrupted.receipt_id})`,
    ]);
    const explained = answers(t.key, (r) => {
      r.failure_explanations = [
        { receipt_id: failed.receipt_id, explanation: 'ran with 30 other tabs open; repeated after closing them' },
        { receipt_id: interrupted.receipt_id, explanation: 'reviewer reloaded the page by mistake' },
      ];
    });
    expect(evaluateEvidence(t, explained).state).toBe('DEVICE_PASS');
  });

  it('checks that a git-looking public revision names the commit the receipts recorded', async () => {
    const t = await targetOf(fullProcedure());
    expect(
      evaluateEvidence(
        t,
        answers(t.key, (r) => (r.public_revision = 'aaaaaaa')),
      ).state,
    ).toBe('DEVICE_PASS');
    expect(
      evaluateEvidence(
        t,
        answers(t.key, (r) => (r.public_revision = 'space-rev-42')),
      ).state,
    ).toBe('DEVICE_PASS');
    expect(
      evaluateEvidence(
        t,
        answers(t.key, (r) => (r.public_revision = 'bbbbbbb')),
      ).not_higher_because,
    ).toEqual([`the reviewed public revision bbbbbbb is not the commit the receipts recorded (${'a'.repeat(40)})`]);
  });

  it('holds declared thresholds, tab survival and correct output', async () => {
    const t = await targetOf(fullProcedure());
    // cold total = 100+200+5+1 = 306 ms; warm p95 of [2,3,4] x 20 = 4 ms
    const strict = answers(t.key, (r) => (r.thresholds = { profile: null, cold_total_p95_ms: 300, warm_p95_ms: 3.5 }));
    expect(evaluateEvidence(t, strict).not_higher_because).toEqual([
      'cold total p95 306 ms is over the declared 300 ms',
      'warm p95 4 ms is over the declared 3.5 ms',
    ]);
    const evicted = answers(t.key, (r) => {
      r.tab = { reloaded_or_evicted: true, details: 'Safari reloaded the tab during warm run 7' };
      r.output_stayed_correct = false;
    });
    expect(evaluateEvidence(t, evicted).not_higher_because).toEqual([
      'the reviewer saw the tab reloaded or evicted during the procedure',
      'the reviewer saw the output change during the procedure',
    ]);
    const slow = await targetOf(
      fullProcedure().map((r) =>
        r.run.kind === 'cold' ? buildReceipt({ kind: 'cold', coldMs: { fetch: 9000, session: 2000, first: 5 } }) : r,
      ),
    );
    expect(evaluateEvidence(slow, answers(slow.key)).not_higher_because).toEqual([
      'declared profile "mainstream" does not hold: cold_load_p95_ms 11006 > 10000',
    ]);
  });

  it('never sets HUMAN_GO (nor PUBLIC_PASS): the tool has no such state', async () => {
    expect(EvidenceState.options).toEqual(['DEVICE_RECEIPT', 'DEVICE_PASS']);
    const t = await targetOf(fullProcedure());
    const summary = { ...t, evidence: { state: 'HUMAN_GO', not_higher_because: [] } };
    expect(ReceiptsSummary.shape.targets.element.safeParse(summary).success).toBe(false);
    const states = new Set<string>();
    for (const review of [null, answers(t.key), answers(t.key, (r) => (r.output_stayed_correct = false))]) {
      states.add(evaluateEvidence(t, review).state);
    }
    expect([...states].sort()).toEqual(['DEVICE_PASS', 'DEVICE_RECEIPT']);
  });

  it('refuses review answers with missing or malformed fields', () => {
    const bad = DeviceReview.safeParse({
      ...answers('t-0123456789ab'),
      device: { hardware_model: '' },
      thresholds: { profile: null, cold_total_p95_ms: null, warm_p95_ms: null },
    });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['device.hardware_model', 'device.ram_gb', 'thresholds']));
  });
});

describe('drb receipts review', () => {
  async function summarized() {
    const d = testTempDir('drb-review-');
    mkdirSync(join(d, 'in'));
    const failed = buildReceipt({ kind: 'cold', failed: { stage: 'fetch', reason: 'HTTP 503' } });
    fullProcedure([failed]).forEach((r, i) => writeFileSync(join(d, 'in', `r${i}.json`), JSON.stringify(r)));
    const out = join(d, 'summary');
    expect((await runCli(['receipts', 'summarize', join(d, 'in'), '--out', out])).code).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    const target = summary.targets.find((t) => t.identity.route.completed_ep !== null)!;
    return { d, out, target, failed };
  }

  it('stores the answers next to the summary, recomputes the state, and summarize picks the review up again', async () => {
    const { d, out, target, failed } = await summarized();
    const file = join(d, 'answers.json');
    writeFileSync(file, JSON.stringify(answers(target.key), null, 2));
    const first = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      target.key,
      '--answers',
      file,
    ]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      `${target.key}: DEVICE_RECEIPT\n  not higher: 1 failed run(s) not explained in a review: ${failed.receipt_id}\n`,
    );
    expect(readFileSync(join(out, 'reviews', `${target.key}.json`), 'utf8')).toBe(readFileSync(file, 'utf8'));

    writeFileSync(
      file,
      JSON.stringify(
        answers(
          target.key,
          (r) => (r.failure_explanations = [{ receipt_id: failed.receipt_id, explanation: 'CDN outage' }]),
        ),
      ),
    );
    const refused = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      target.key,
      '--answers',
      file,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('a different review is already stored');
    const forced = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      target.key,
      '--answers',
      file,
      '--force',
    ]);
    expect(forced.stdout).toContain(`${target.key}: DEVICE_PASS\n`);
    const updated = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    expect(updated.targets.find((t) => t.key === target.key)!.evidence.state).toBe('DEVICE_PASS');
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain(`| ${target.key} |`);

    expect((await runCli(['receipts', 'summarize', join(d, 'in'), '--out', out])).code).toBe(0);
    const again = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    const t = again.targets.find((x) => x.key === target.key)!;
    expect(t.evidence.state).toBe('DEVICE_PASS');
    expect(t.review).toMatchObject({ file: `reviews/${target.key}.json`, reviewer: 'qa-1' });
    expect(JSON.stringify(again)).not.toContain('HUMAN_GO');
  });

  it('keeps a review whose target disappeared as an orphan, not applied', async () => {
    const { d, out, target } = await summarized();
    const file = join(d, 'answers.json');
    writeFileSync(file, JSON.stringify(answers(target.key)));
    expect(
      (
        await runCli([
          'receipts',
          'review',
          '--summary',
          join(out, 'summary.json'),
          '--target',
          target.key,
          '--answers',
          file,
        ])
      ).code,
    ).toBe(0);
    const other = join(d, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'r.json'), JSON.stringify(buildReceipt({ kind: 'cold', commit: 'c'.repeat(40) })));
    expect((await runCli(['receipts', 'summarize', other, '--out', out])).code).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    expect(summary.orphan_reviews).toEqual([`reviews/${target.key}.json`]);
    expect(summary.targets.every((t) => t.review === null && t.evidence.state === 'DEVICE_RECEIPT')).toBe(true);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain(
      `## Reviews for targets not in these receipts\n\n- reviews/${target.key}.json`,
    );
  });

  it('prints an answers skeleton with a slot per failed run, which fails validation until filled in', async () => {
    const { d, out, target, failed } = await summarized();
    const run = await runCli([
      'receipts',
      'review-template',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      target.key,
    ]);
    expect(run.code).toBe(0);
    const skeleton = JSON.parse(run.stdout);
    expect(skeleton).toMatchObject({
      schema: 'drb.device-review.v1',
      target: target.key,
      failure_explanations: [{ receipt_id: failed.receipt_id, explanation: '' }],
    });
    expect(DeviceReview.safeParse(skeleton).success).toBe(false);
    const file = join(d, 'skeleton.json');
    writeFileSync(file, run.stdout);
    const refused = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      target.key,
      '--answers',
      file,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${file}: reviewer: `);
  });

  it('refuses an unknown target, answers for another target, and malformed answers (exit 2, nothing stored)', async () => {
    const { d, out, target } = await summarized();
    const file = join(d, 'answers.json');
    writeFileSync(file, JSON.stringify(answers('t-0123456789ab')));
    const unknown = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      't-0123456789ab',
      '--answers',
      file,
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`summary.json: targets: no target t-0123456789ab (known: `);
    const other = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      target.key,
      '--answers',
      file,
    ]);
    expect(other).toMatchObject({
      code: 2,
      stderr: `error: ${file}: target: names t-0123456789ab, but --target is ${target.key}\n`,
    });
    writeFileSync(file, JSON.stringify({ ...answers(target.key), output_stayed_correct: 'yes' }));
    const malformed = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      target.key,
      '--answers',
      file,
    ]);
    expect(malformed).toMatchObject({
      code: 2,
      stderr: `error: ${file}: output_stayed_correct: Invalid input: expected boolean, received string\n`,
    });
    expect(existsSync(join(out, 'reviews'))).toBe(false);
  });
});

describe('docs/receipts.md', () => {
  it('shows review answers that the schema accepts', () => {
    const doc = readFileSync(new URL('../../docs/receipts.md', import.meta.url), 'utf8');
    const block = /```json\n([\s\S]*?)\n```/.exec(doc.slice(doc.indexOf('## 4. Review a target')));
    expect(block).not.toBeNull();
    const parsed = DeviceReview.safeParse(JSON.parse(block![1]));
    expect(parsed.error?.issues ?? []).toEqual([]);
  });
});
