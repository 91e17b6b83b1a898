/**
 * `drb receipts export`: the column mapping against hand-checked values, every column of every table read back by
 * DuckDB (an independent reader) equal to the receipts' JSON, DuckDB's counts and medians equal to `drb receipts
 * summarize` on the same inputs, the three formats agreeing, refusal (nothing written) and --skip-invalid, the
 * hostile receipts exported as data, the CSV formula guard, and the dataset card.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatasetCard } from '../../src/core/dataset/dataset-card.ts';
import {
  comparisonRoundRows,
  generationSampleRows,
  receiptRow,
  RowKeys,
  sampleRows,
  statisticsClean,
  TABLE_COLUMNS,
  TABLE_NAMES,
  type ColumnSpec,
  type Row,
  type TableName,
  type ValidReceipt,
} from '../../src/core/dataset/dataset-tables.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { summarizeGeneration, type GenerationReceipt } from '../../src/core/generation/generation-receipt.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import { HOSTILE_CASES, writeHostileCases } from '../fixtures/hostile/hostile-fixtures.ts';
import { testTempDir } from '../temp-dir.ts';
import { runCli } from './cli-harness.ts';
import { duck, sqlPath, type DuckRow } from './duckdb-reader.ts';
import { makeGenerationReceipt } from './generation-fixtures.ts';
import { FIXTURE_DIR } from './receipts-fixtures.ts';

/** Generation receipts beside the captured ones: two clean, one hidden (noisy), one with a failed sample. */
function generationReceipts(): GenerationReceipt[] {
  const out: GenerationReceipt[] = [];
  for (let i = 0; i < 4; i++) {
    const r = makeGenerationReceipt();
    r.receipt_id = `gen-export-${i}-0123`;
    r.created_at = `2026-11-29T12:0${i}:00.500Z`;
    r.samples = r.samples.map((s, k) => ({ ...s, ttft_ms: 40 + k * (i + 1), e2e_ms: 500 + k + i }));
    if (i === 2) r.lifecycle = { ...r.lifecycle, hidden_during_run: true };
    if (i === 3) {
      r.samples[4] = {
        ...r.samples[4],
        outcome: 'failed',
        output_tokens: null,
        truncated: null,
        ttft_ms: null,
        e2e_ms: null,
        decode_tokens_per_s: null,
        prefill_tokens_per_s: null,
        error: { name: 'EngineError', message: 'out of memory' },
      };
      r.outcome = { status: 'failed', reason: '1 sample failed' };
    }
    r.summary = summarizeGeneration(r.samples, r.summary.measured_planned);
    expect(validateReceipt(r).problems, r.receipt_id).toEqual([]);
    out.push(r);
  }
  return out;
}

/** The captured page receipts and the generation receipts in one folder. */
function inputFolder(): string {
  const dir = testTempDir('drb-export-in-');
  cpSync(FIXTURE_DIR, join(dir, 'captured'), { recursive: true, filter: (src) => !src.endsWith('README.md') });
  mkdirSync(join(dir, 'generation'));
  for (const r of generationReceipts())
    writeFileSync(join(dir, 'generation', `${r.receipt_id}.json`), JSON.stringify(r));
  return dir;
}

/** Every valid receipt of `dir` (sorted file order, as the CLI reads them) with its expected rows. */
async function expectedRows(dir: string): Promise<Record<TableName, Row[]>> {
  const files = ['captured', 'generation'].flatMap((sub) =>
    readdirSync(join(dir, sub))
      .filter((n) => n.endsWith('.json'))
      .sort()
      .map((n) => join(dir, sub, n)),
  );
  const keys = new RowKeys();
  const out: Record<TableName, Row[]> = { receipts: [], samples: [], generation_samples: [], comparison_rounds: [] };
  for (const file of files) {
    const bytes = readFileSync(file);
    const result = validateReceipt(JSON.parse(bytes.toString('utf8')));
    if (result.kind === 'artifact' || result.kind === 'not-a-receipt' || result.receipt === null)
      throw new Error(`${file} is not a valid receipt`);
    const kind =
      result.kind === 'receipt'
        ? 'device'
        : result.kind === 'generation-receipt'
          ? 'generation'
          : result.kind === 'suite-receipt'
            ? 'suite'
            : 'comparison';
    const valid = { kind, receipt: result.receipt } as ValidReceipt;
    const k = await keys.of(valid);
    out.receipts.push(receiptRow(valid, { file, sha256: createHash('sha256').update(bytes).digest('hex') }, k));
    out.samples.push(...sampleRows(valid, k.target));
    out.generation_samples.push(...generationSampleRows(valid, k.target));
    out.comparison_rounds.push(...comparisonRoundRows(valid));
  }
  return out;
}

/** A DuckDB value (getRowObjectsJson) in the form the row mapper gives it. */
function normalise(value: unknown, type: ColumnSpec['type']): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'int64') return Number(value);
  if (type === 'timestamp')
    return new Date(
      String(value)
        .replace(' ', 'T')
        .replace(/([+-]\d\d)$/, '$1:00'),
    ).toISOString();
  return value;
}

/** The rows of one exported table as DuckDB reads them, in file order, normalised. */
async function readTable(dir: string, table: TableName, format: 'parquet' | 'csv' | 'jsonl'): Promise<Row[]> {
  const path = sqlPath(join(dir, `${table}.${format}`));
  const columns = TABLE_COLUMNS[table];
  const duckType = {
    string: 'VARCHAR',
    int64: 'BIGINT',
    double: 'DOUBLE',
    boolean: 'BOOLEAN',
    timestamp: 'TIMESTAMPTZ',
  } as const;
  const spec = `{${columns.map((c) => `'${c.name}': '${duckType[c.type]}'`).join(', ')}}`;
  const from =
    format === 'parquet'
      ? path
      : format === 'csv'
        ? `read_csv(${path}, header = true, auto_detect = false, quote = '"', escape = '"', allow_quoted_nulls = false, columns = ${spec})`
        : `read_json(${path}, format = 'newline_delimited', columns = ${spec})`;
  const rows = await duck(`SELECT ${columns.map((c) => `"${c.name}"`).join(', ')} FROM ${from}`);
  return rows.map(
    (row: DuckRow) => Object.fromEntries(columns.map((c) => [c.name, normalise(row[c.name], c.type)])) as Row,
  );
}

describe('dataset column mapping (hand-checked)', () => {
  it('maps a captured warm receipt, a failed cold one and a comparison to the documented columns', async () => {
    const keys = new RowKeys();
    const warm = JSON.parse(readFileSync(join(FIXTURE_DIR, '02-ort-wasm-t1-warm-ok.json'), 'utf8'));
    const valid: ValidReceipt = { kind: 'device', receipt: warm };
    const row = receiptRow(valid, { file: 'in/02.json', sha256: 'a'.repeat(64) }, await keys.of(valid));
    // Values read off test/fixtures/receipts/02-ort-wasm-t1-warm-ok.json by hand.
    expect(row).toMatchObject({
      receipt_id: '071d941c-8117-41bc-b32c-ed6de776f901',
      receipt_kind: 'device',
      receipt_schema: 'drb.device-receipt.v2',
      run_kind: 'warm',
      created_at: '2026-12-01T07:00:24.746Z',
      source_file: 'in/02.json',
      model_id: 'ort-tiny-xenc',
      model_files: 1,
      model_bytes: 133971,
      requested_ep: 'wasm',
      completed_ep: 'wasm',
      fell_back: false,
      threads_effective: 1,
      warm_samples: 20,
      warm_median_ms: 0.3349999999627471,
      warm_p95_ms: 4.240000000223517,
      files_network: 3,
      files_http_cache: 0,
      overlapped: false,
      overlap_this_page: null,
      cold_from_cache: null,
      outcome: 'ok',
      evidence_state: 'DEVICE_RECEIPT',
      noisy: false,
      clean: true,
      suite_id: null,
      prompt_set_id: null,
    });
    expect(row.target_key).toMatch(/^t-[0-9a-f]{12}$/);
    expect(row.device_key).toMatch(/^d-[0-9a-f]{12}$/);
    const samples = sampleRows(valid, row.target_key as string);
    expect(samples).toHaveLength(20);
    expect(samples[1]).toEqual({
      receipt_id: row.receipt_id,
      target_key: row.target_key,
      sample_index: 1,
      duration_ms: 0.3349999990314245,
      clean: true,
    });

    const failed = JSON.parse(readFileSync(join(FIXTURE_DIR, '10-ort-webgpu-no-adapter-cold-failed.json'), 'utf8'));
    const failedRow = receiptRow(
      { kind: 'device', receipt: failed },
      { file: 'x', sha256: 'b'.repeat(64) },
      { target: 't-000000000000', device: 'd-000000000000' },
    );
    expect(failedRow).toMatchObject({
      outcome: 'failed',
      failed_stage: 'session',
      requested_ep: 'webgpu',
      completed_ep: null,
      fell_back: false,
      clean: false,
      run_kind: 'cold',
    });
    expect(String(failedRow.outcome_reason)).toContain('WebGPU is not available');

    const comparison = JSON.parse(
      readFileSync(join(FIXTURE_DIR, '14-compare-ort-tiny-xenc-wasm-1-wasm-2-webgpu-ok.json'), 'utf8'),
    );
    const rounds = comparisonRoundRows({ kind: 'comparison', receipt: comparison });
    expect(rounds).toHaveLength(comparison.schedule.rounds * comparison.routes.length);
    // Round 1 in the schedule's order; each route's k-th sample is its run in round k.
    expect(rounds.slice(0, 3).map((r) => [r.round, r.position, r.route_id])).toEqual(
      comparison.schedule.order.slice(0, 3).map((id: string, i: number) => [1, i, id]),
    );
    for (const route of comparison.routes) {
      expect(rounds.filter((r) => r.route_id === route.id).map((r) => r.duration_ms)).toEqual(route.samples_ms);
    }
  });

  it('is documented: docs/dataset.md lists every column of every table with its type', () => {
    const doc = readFileSync(new URL('../../docs/dataset.md', import.meta.url), 'utf8');
    for (const table of TABLE_NAMES) {
      const section = doc.slice(doc.indexOf(`### \`${table}\``));
      for (const column of TABLE_COLUMNS[table])
        expect(section, `${table}.${column.name}`).toContain(`| \`${column.name}\` | ${column.type} |`);
    }
  });

  it('calls a receipt clean exactly when summarize pools it', () => {
    const gen = makeGenerationReceipt();
    expect(statisticsClean({ kind: 'generation', receipt: gen })).toBe(true);
    expect(
      statisticsClean({ kind: 'generation', receipt: { ...gen, overlap: { this_page: true, other_tabs: null } } }),
    ).toBe(false);
    expect(
      statisticsClean({ kind: 'generation', receipt: { ...gen, outcome: { status: 'failed', reason: 'x' } } }),
    ).toBe(true);
    const cold = JSON.parse(readFileSync(join(FIXTURE_DIR, '01-ort-wasm-t1-cold-ok.json'), 'utf8'));
    expect(statisticsClean({ kind: 'device', receipt: cold })).toBe(cold.run.cold_from_cache === false);
    expect(statisticsClean({ kind: 'device', receipt: { ...cold, run: { ...cold.run, cold_from_cache: true } } })).toBe(
      false,
    );
  });
});

describe('drb receipts export', () => {
  it('writes four Parquet tables whose every column DuckDB reads back equal to the receipts, and a card naming every input', async () => {
    const input = inputFolder();
    const out = join(testTempDir('drb-export-out-'), 'dataset');
    const run = await runCli(['receipts', 'export', input, '--out', out, '--license', 'CC-BY-4.0']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^exported 20 receipt\(s\) \(14 device, 4 generation, 1 suite, 1 comparison\) as parquet: receipts 20, samples 75, generation_samples 40, comparison_rounds 12 rows;/,
    );
    expect(readdirSync(out).sort()).toEqual([
      'comparison_rounds.parquet',
      'dataset.json',
      'generation_samples.parquet',
      'receipts.parquet',
      'samples.parquet',
    ]);
    const expected = await expectedRows(input);
    for (const table of TABLE_NAMES) {
      const read = await readTable(out, table, 'parquet');
      expect(read.length, table).toBe(expected[table].length);
      read.forEach((row, i) => {
        for (const column of TABLE_COLUMNS[table]) {
          // The file as shown by the CLI is the path as given (absolute here): the test built the same.
          expect(row[column.name], `${table}[${i}].${column.name}`).toEqual(expected[table][i][column.name] ?? null);
        }
      });
    }
    // Parquet metadata: SNAPPY column chunks, and the column types the card documents.
    const codecs = await duck(
      `SELECT DISTINCT compression FROM parquet_metadata(${sqlPath(join(out, 'receipts.parquet'))})`,
    );
    expect(codecs).toEqual([{ compression: 'SNAPPY' }]);
    const types = await duck(
      `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${sqlPath(join(out, 'receipts.parquet'))})`,
    );
    const duckType = {
      string: 'VARCHAR',
      int64: 'BIGINT',
      double: 'DOUBLE',
      boolean: 'BOOLEAN',
      timestamp: 'TIMESTAMP WITH TIME ZONE',
    };
    expect(types).toEqual(TABLE_COLUMNS.receipts.map((c) => ({ column_name: c.name, column_type: duckType[c.type] })));

    const card = DatasetCard.parse(JSON.parse(readFileSync(join(out, 'dataset.json'), 'utf8')));
    expect(card).toMatchObject({
      license: 'CC-BY-4.0',
      format: 'parquet',
      compression: 'SNAPPY',
      counts: { input_files: 20, receipts: 20, generation_receipts: 4, skipped_invalid: 0 },
    });
    expect(card.tables.map((t) => [t.name, t.rows])).toEqual([
      ['receipts', 20],
      ['samples', 75],
      ['generation_samples', 40],
      ['comparison_rounds', 12],
    ]);
    for (const entry of card.inputs)
      expect(entry.sha256).toBe(createHash('sha256').update(readFileSync(entry.file)).digest('hex'));
    expect(card.tables[0].columns.map((c) => c.name)).toEqual(TABLE_COLUMNS.receipts.map((c) => c.name));
    // Validate knows the card.
    expect((await runCli(['receipts', 'validate', join(out, 'dataset.json')])).code).toBe(0);
  });

  it('gives DuckDB the counts and medians that drb receipts summarize gives for the same inputs', async () => {
    const input = inputFolder();
    const tmp = testTempDir('drb-export-sum-');
    expect((await runCli(['receipts', 'export', input, '--out', join(tmp, 'ds'), '--license', 'CC0-1.0'])).code).toBe(
      0,
    );
    expect((await runCli(['receipts', 'summarize', input, '--out', join(tmp, 'summary')])).code).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(tmp, 'summary', 'summary.json'), 'utf8')));
    const receipts = sqlPath(join(tmp, 'ds', 'receipts.parquet'));
    const samples = sqlPath(join(tmp, 'ds', 'samples.parquet'));
    const gen = sqlPath(join(tmp, 'ds', 'generation_samples.parquet'));
    const kinds = await duck(`SELECT receipt_kind, count(*)::INTEGER AS n FROM ${receipts} GROUP BY 1 ORDER BY 1`);
    expect(kinds).toEqual([
      { receipt_kind: 'comparison', n: summary.inputs.comparison_receipts_valid },
      { receipt_kind: 'device', n: summary.inputs.receipts_valid },
      { receipt_kind: 'generation', n: summary.inputs.generation_receipts_valid },
      { receipt_kind: 'suite', n: summary.inputs.suite_receipts_valid },
    ]);
    const perTarget = await duck(
      `SELECT target_key, count(*)::INTEGER AS receipts, count(*) FILTER (outcome = 'failed')::INTEGER AS failed,
              count(*) FILTER (run_kind = 'cold' AND clean)::INTEGER AS clean_cold, count(*) FILTER (run_kind = 'warm' AND clean)::INTEGER AS clean_warm,
              median(total_ms) FILTER (run_kind = 'cold' AND protocol_cold) AS cold_total_median
       FROM ${receipts} WHERE receipt_kind = 'device' GROUP BY 1`,
    );
    const warm = await duck(
      `SELECT target_key, count(*)::INTEGER AS n, median(duration_ms) AS median,
              list_sort(list(duration_ms))[ceil(0.95 * count(*))::INTEGER] AS p95, quantile_disc(duration_ms, 0.95) AS p95_disc
       FROM ${samples} WHERE clean GROUP BY 1`,
    );
    expect(perTarget.length).toBe(summary.targets.length);
    let compared = 0;
    for (const t of summary.targets) {
      const row = perTarget.find((r) => r.target_key === t.key)!;
      expect(row, t.key).toMatchObject({
        receipts: t.counts.receipts,
        failed: t.counts.failed,
        clean_cold: t.counts.clean_cold,
        clean_warm: t.counts.clean_warm,
        cold_total_median: t.cold.total_ms?.median ?? null,
      });
      const w = warm.find((r) => r.target_key === t.key);
      if (t.warm.pooled_ms === null) expect(w).toBeUndefined();
      else {
        expect(w, t.key).toMatchObject({
          n: t.warm.pooled_ms.count,
          median: t.warm.pooled_ms.median,
          p95: t.warm.pooled_ms.p95,
          p95_disc: t.warm.pooled_ms.p95,
        });
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(4);
    const ttft = await duck(
      `SELECT target_key, count(*)::INTEGER AS n, median(ttft_ms) AS median, median(e2e_ms) AS e2e FROM ${gen} WHERE clean GROUP BY 1`,
    );
    expect(summary.generation_targets).toHaveLength(1);
    const g = summary.generation_targets[0];
    expect(ttft).toEqual([
      { target_key: g.key, n: g.ttft_ms!.count, median: g.ttft_ms!.median, e2e: g.e2e_ms!.median },
    ]);
    // Interrupted runs are recorded on the receipt after them; the count matches the summary's.
    const interrupted = await duck(`SELECT count(*)::INTEGER AS n FROM ${receipts} WHERE previous_run_interrupted`);
    expect(interrupted).toEqual([{ n: summary.inputs.interruptions }]);
  });

  it('writes the same rows as CSV and as JSON Lines', async () => {
    const input = inputFolder();
    const tmp = testTempDir('drb-export-fmt-');
    for (const format of ['parquet', 'csv', 'jsonl']) {
      const run = await runCli([
        'receipts',
        'export',
        input,
        '--out',
        join(tmp, format),
        '--license',
        'CC-BY-4.0',
        '--format',
        format,
      ]);
      expect(run.code, run.stderr).toBe(0);
    }
    for (const table of TABLE_NAMES) {
      const parquet = await readTable(join(tmp, 'parquet'), table, 'parquet');
      expect(await readTable(join(tmp, 'csv'), table, 'csv'), table).toEqual(parquet);
      expect(await readTable(join(tmp, 'jsonl'), table, 'jsonl'), table).toEqual(parquet);
    }
    expect(readFileSync(join(tmp, 'csv', 'samples.csv'), 'utf8').split('\n')[0]).toBe(
      'receipt_id,target_key,sample_index,duration_ms,clean',
    );
    const card = DatasetCard.parse(JSON.parse(readFileSync(join(tmp, 'csv', 'dataset.json'), 'utf8')));
    expect(card.compression).toBe('none');
    expect(card.notes.join(' ')).toContain('Formula guard');
  });

  it('refuses an invalid input by name and writes nothing; --skip-invalid exports the rest and lists what it left out', async () => {
    const input = inputFolder();
    const bad = JSON.parse(readFileSync(join(FIXTURE_DIR, '03-ort-wasm-t2-cold-ok.json'), 'utf8'));
    bad.receipt_id = 'edited-total-0001';
    bad.timings.warm_stats = { count: 1, median: 1, p95: 1, min: 1, max: 1, mean: 1 };
    writeFileSync(join(input, 'captured', '99-bad.json'), JSON.stringify(bad));
    writeFileSync(join(input, 'captured', '98-not-json.json'), '{"schema": ');
    const out = join(testTempDir('drb-export-bad-'), 'ds');
    const run = await runCli(['receipts', 'export', input, '--out', out, '--license', 'CC-BY-4.0']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`error: ${join(input, 'captured', '98-not-json.json')}: (document): not valid JSON`);
    expect(run.stderr).toContain(`error: ${join(input, 'captured', '99-bad.json')}: timings.warm_stats`);
    expect(run.stderr).toContain('2 input(s) refused; nothing written (pass --skip-invalid');
    // Nothing at all: no table, no card, no temporary file.
    expect(readdirSync(out)).toEqual([]);

    const skipped = await runCli([
      'receipts',
      'export',
      input,
      '--out',
      out,
      '--license',
      'CC-BY-4.0',
      '--skip-invalid',
    ]);
    expect(skipped.code).toBe(0);
    expect(skipped.stderr).toContain(
      `skipped: ${join(input, 'captured', '98-not-json.json')}: (document): not valid JSON`,
    );
    expect(skipped.stderr).toContain(`skipped: ${join(input, 'captured', '99-bad.json')}: timings.warm_stats`);
    expect(skipped.stdout).toContain('exported 20 receipt(s)');
    expect(skipped.stdout).toContain('2 input(s) skipped');
    const card = DatasetCard.parse(JSON.parse(readFileSync(join(out, 'dataset.json'), 'utf8')));
    expect(card.counts.skipped_invalid).toBe(2);
    expect(card.skipped.map((s) => s.file)).toEqual([
      join(input, 'captured', '98-not-json.json'),
      join(input, 'captured', '99-bad.json'),
    ]);
    expect(card.inputs.filter((i) => i.taken_as === 'skipped-invalid').map((i) => i.file)).toEqual(
      card.skipped.map((s) => s.file),
    );
    expect((await readTable(out, 'receipts', 'parquet')).some((r) => r.receipt_id === 'edited-total-0001')).toBe(false);
  });

  it('refuses bad options and an output folder it did not write, and replaces its own export', async () => {
    const input = inputFolder();
    const tmp = testTempDir('drb-export-opt-');
    expect(
      (
        await runCli([
          'receipts',
          'export',
          input,
          '--out',
          join(tmp, 'a'),
          '--license',
          'CC-BY-4.0',
          '--format',
          'xlsx',
        ])
      ).stderr,
    ).toBe('error: --format: must be parquet, csv or jsonl, got "xlsx"\n');
    const noLicense = await runCli(['receipts', 'export', input, '--out', join(tmp, 'a')]);
    expect(noLicense.code).toBe(2);
    expect(noLicense.stderr).toContain("required option '--license <id>' not specified");
    const badLicense = await runCli(['receipts', 'export', input, '--out', join(tmp, 'a'), '--license', 'x\u001b[31m']);
    expect(badLicense.code).toBe(2);
    expect(badLicense.stderr).toMatch(/^error: --license: /);
    mkdirSync(join(tmp, 'theirs'));
    writeFileSync(join(tmp, 'theirs', 'receipts.parquet'), 'not ours');
    const theirs = await runCli(['receipts', 'export', input, '--out', join(tmp, 'theirs'), '--license', 'CC-BY-4.0']);
    expect(theirs.code).toBe(2);
    expect(theirs.stderr).toContain('receipts.parquet: exists and no dataset.json of drb receipts export is beside it');
    expect(readFileSync(join(tmp, 'theirs', 'receipts.parquet'), 'utf8')).toBe('not ours');
    for (let i = 0; i < 2; i++)
      expect(
        (await runCli(['receipts', 'export', input, '--out', join(tmp, 'ours'), '--license', 'CC-BY-4.0'])).code,
      ).toBe(0);
    expect(existsSync(join(tmp, 'ours', 'dataset.json'))).toBe(true);
  });

  it('exports hostile receipts as data: markup stays the exact string, copies count once, a forged copy is refused', async () => {
    const dir = testTempDir('drb-export-hostile-');
    writeHostileCases(dir, (c) => c.reader === 'receipts');
    const out = join(testTempDir('drb-export-hostile-out-'), 'ds');
    const strict = await runCli(['receipts', 'export', dir, '--out', out, '--license', 'CC-BY-4.0']);
    expect(strict.code).toBe(1);
    for (const c of HOSTILE_CASES.filter(
      (x) =>
        x.reader === 'receipts' && (x.expect === 'refused' || x.expect === 'copy-conflict' || x.expect === 'reported'),
    )) {
      expect(strict.stderr, c.name).toContain(`${join(dir, c.name)}.json`);
    }
    expect(strict.stderr).not.toContain('\u001b');
    const run = await runCli([
      'receipts',
      'export',
      dir,
      '--out',
      out,
      '--license',
      'CC-BY-4.0',
      '--skip-invalid',
      '--format',
      'csv',
    ]);
    expect(run.code).toBe(0);
    const rows = await readTable(out, 'receipts', 'csv');
    const markup = HOSTILE_CASES.find((c) => c.name === 'user-agent-markup')!.set!['capabilities.user_agent'];
    expect(rows.find((r) => r.receipt_id === 'hostile-user-agent-markup')?.user_agent).toBe(markup);
    // Markup in every free-text field: each column holds the exact string.
    const every = HOSTILE_CASES.find((c) => c.name === 'every-string-markup')!.set!;
    const hints = every['capabilities.ua_client_hints'] as Record<string, string>;
    const adapter = every['capabilities.webgpu.adapter_info'] as Record<string, string>;
    expect(rows.find((r) => r.receipt_id === 'hostile-every-string-markup')).toMatchObject({
      user_agent: every['capabilities.user_agent'],
      platform: hints.platform,
      platform_version: hints.platform_version,
      device_model: hints.model,
      webgpu_adapter_vendor: adapter.vendor,
      webgpu_adapter_architecture: adapter.architecture,
      webgpu_adapter_device: adapter.device,
    });
    const failure = HOSTILE_CASES.find((c) => c.name === 'failure-markup')!.set!;
    expect(rows.find((r) => r.receipt_id === 'hostile-failure-markup')?.outcome_reason).toBe(failure['outcome.reason']);
    // Five copies of the same content and one bundled copy: one row.
    const copied = rows.filter((r) => r.source_file === `${join(dir, 'cold-copy-1')}.json`);
    expect(copied).toHaveLength(1);
    expect(rows.filter((r) => r.receipt_id === copied[0].receipt_id)).toHaveLength(1);
    expect(run.stderr).toContain(`is a copy of ${join(dir, 'cold-copy-1')}.json (the same content); counted once`);
  });

  it('records a file name with a control character in the card as one printable line (visible escapes)', async () => {
    const input = testTempDir('drb-export-name-');
    writeFileSync(join(input, 'r\u001b[31m\nred.json'), readFileSync(join(FIXTURE_DIR, '01-ort-wasm-t1-cold-ok.json')));
    const out = join(testTempDir('drb-export-name-out-'), 'ds');
    expect((await runCli(['receipts', 'export', input, '--out', out, '--license', 'CC0-1.0'])).code).toBe(0);
    const card = DatasetCard.parse(JSON.parse(readFileSync(join(out, 'dataset.json'), 'utf8')));
    // The one rule for showing a file name (terminalText, src/core/text/terminal-text.ts): escapes made visible.
    expect(card.inputs.map((i) => i.file)).toEqual([join(input, 'r\\x1b[31m\\nred.json')]);
  });

  it('guards CSV strings a spreadsheet would run as formulas, and only in CSV', async () => {
    const input = testTempDir('drb-export-formula-');
    const r = JSON.parse(readFileSync(join(FIXTURE_DIR, '01-ort-wasm-t1-cold-ok.json'), 'utf8'));
    r.capabilities.user_agent = '=cmd|" /C calc"!A0';
    writeFileSync(join(input, 'r.json'), JSON.stringify(r));
    const out = testTempDir('drb-export-formula-out-');
    for (const format of ['csv', 'jsonl'])
      expect(
        (
          await runCli([
            'receipts',
            'export',
            input,
            '--out',
            join(out, format),
            '--license',
            'CC0-1.0',
            '--format',
            format,
          ])
        ).code,
      ).toBe(0);
    const csv = readFileSync(join(out, 'csv', 'receipts.csv'), 'utf8');
    expect(csv).toContain(',"\'=cmd|"" /C calc""!A0",');
    expect(csv).not.toContain(',"=cmd');
    expect((await readTable(join(out, 'jsonl'), 'receipts', 'jsonl'))[0].user_agent).toBe('=cmd|" /C calc"!A0');
  });
});
