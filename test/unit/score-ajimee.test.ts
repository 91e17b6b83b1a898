import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AJIMEE_OFFICIAL, AJIMEE_PINNED_SHA256 } from '../../src/core/scoring/dataset.ts';
import { ScoreReport } from '../../src/core/scoring/score-report.ts';
import { runCli, tempDirWith } from './cli-harness.ts';

const vendored = fileURLToPath(new URL('../../data/ajimee-jwtd-v2-v1/evaluation_items.json', import.meta.url));
const bytes = readFileSync(vendored);
const rows = JSON.parse(bytes.toString('utf8')) as { index: string; input: string; expected_output: string[] }[];

// Predictions built here: every 3rd row gets its first reference on top, every 3rd a reference at rank 2,
// every 3rd abstains (no prediction row).
const predictions = rows.flatMap((row, i) => {
  if (i % 3 === 0) return [{ id: row.index, candidates: [row.expected_output[0], 'ダミー'], provenance: 'rule' }];
  if (i % 3 === 1) return [{ id: row.index, candidates: ['ダミー', row.expected_output[0]], provenance: 'rule' }];
  return [];
});

async function scoreAjimee(itemsBytes: Uint8Array, extra: string[] = []) {
  const dir = tempDirWith({ 'evaluation_items.json': itemsBytes, 'p.json': predictions });
  const run = await runCli([
    'score',
    '--items',
    join(dir, 'evaluation_items.json'),
    '--predictions',
    join(dir, 'p.json'),
    '--format',
    'ajimee',
    '--output-dir',
    join(dir, 'out'),
    ...extra,
  ]);
  const report =
    run.code === 0 ? ScoreReport.parse(JSON.parse(readFileSync(join(dir, 'out', 'evaluation.json'), 'utf8'))) : null;
  return { run, report };
}

describe('the vendored AJIMEE-Bench file', () => {
  it('still hashes to the pinned SHA-256 and holds 200 rows', () => {
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(AJIMEE_PINNED_SHA256);
    expect(bytes.byteLength).toBe(132231);
    expect(rows).toHaveLength(200);
  });

  it('scores as pinned-sha256-match with the official name, revision and licence attached', async () => {
    const { run, report } = await scoreAjimee(bytes);
    expect(run.stderr).toBe('');
    expect(report!.dataset).toEqual({
      ...AJIMEE_OFFICIAL,
      format: 'ajimee',
      verification: 'pinned-sha256-match',
      pinned_sha256: AJIMEE_PINNED_SHA256,
    });
    expect(report!.inputs.items).toEqual({
      file: 'evaluation_items.json',
      bytes: 132231,
      sha256: AJIMEE_PINNED_SHA256,
      rows: 200,
    });
    // 67 rows (i % 3 == 0) top-1 correct, 67 at rank 2, 66 abstain; no AJIMEE input is itself a reference.
    expect(report!.metrics).toMatchObject({
      rows: 200,
      effective_acc_at_1: 67 / 200,
      candidate_recall_at_k: 134 / 200,
      abstention_rate: 66 / 200,
      accepted_accuracy: 67 / 134,
      overcorrection_rate: null, // AJIMEE rows are all `unspecified`
      selection_error: 67,
      accepted_candidate_miss: 0,
      mrr_at_k: (67 + 67 / 2) / 200,
      clean_rows: 0,
    });
    expect(run.stdout).toContain('dataset: pinned-sha256-match');
  });

  it('turns into compatible-unverified after a one-byte change, with the official identity withheld', async () => {
    const changed = Uint8Array.from(bytes);
    expect(changed[1]).toBe(0x0a); // the newline after the opening bracket
    changed[1] = 0x20; // still the same JSON value, different bytes
    const { report } = await scoreAjimee(changed);
    expect(report!.dataset).toEqual({
      name: null,
      revision: null,
      license: null,
      format: 'ajimee',
      verification: 'compatible-unverified',
      pinned_sha256: AJIMEE_PINNED_SHA256,
    });
    expect(report!.inputs.items.sha256).not.toBe(AJIMEE_PINNED_SHA256);
    expect(report!.metrics.effective_acc_at_1).toBe(67 / 200);
  });

  it('keeps declared flags on an unverified file, labelled as not verified', async () => {
    const changed = Uint8Array.from(bytes);
    changed[1] = 0x20;
    const { report } = await scoreAjimee(changed, ['--dataset-name', 'my AJIMEE copy']);
    expect(report!.dataset).toMatchObject({ name: 'my AJIMEE copy', verification: 'compatible-unverified' });
  });

  it('refuses flags that contradict the pinned identity (exit 2, no report)', async () => {
    const { run, report } = await scoreAjimee(bytes, ['--dataset-license', 'MIT']);
    expect(run.code).toBe(2);
    expect(report).toBeNull();
    expect(run.stderr).toBe(
      'error: --dataset-license: "MIT" contradicts the pinned AJIMEE value "CC BY-SA 3.0" (omit the flag; the official identity is attached automatically)\n',
    );
  });

  it('ignores fields the adapter does not read but still refuses a wrong type in one it does', async () => {
    const broken = JSON.parse(bytes.toString('utf8'));
    broken[5].expected_output = '文字列';
    const { run } = await scoreAjimee(new TextEncoder().encode(JSON.stringify(broken)));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(
        `^error: .*evaluation_items\\.json: id "${rows[5].index}" expected_output: .*expected array, received string\\n$`,
      ),
    );
  });
});
