/**
 * Comparisons on candidate rows (rerankers and candidate scorers): the rows picked from the shipped demo suite and
 * their engine inputs, agreement row by row (a candidate never competes with another row's), validity, and the
 * receipt's candidate-row invariants. Hand-checked values throughout.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { comparisonRows, comparisonRowsBytes } from '../../src/core/comparison/candidate-rows.ts';
import { ComparisonReceipt } from '../../src/core/comparison/comparison-receipt.ts';
import { checkComparisonReceipt } from '../../src/core/comparison/comparison-invariants.ts';
import { agreement, compareRoutes, type RouteMeasurement } from '../../src/core/comparison/comparison-statistics.ts';
import { interleavedSchedule } from '../../src/core/comparison/interleaved-schedule.ts';
import { rerankQuery, scorePrompt } from '../../src/core/suite/scoring-text.ts';
import { planSuite, type SuiteRow } from '../../src/core/suite/suite-plan.ts';
import { comparisonReceiptOf } from './generation-fixtures.ts';

const groups = [
  { id: '12', count: 3 },
  { id: '19', count: 2 },
];

describe('agreement on candidate rows', () => {
  it('orders each row on its own and names the rows in another order', () => {
    // Row 12: [0.1, 0.9, 0.5] -> order 1,2,0. Row 19: [2, 1] -> order 0,1.
    const baseline = [0.1, 0.9, 0.5, 2, 1];
    expect(agreement(baseline, [0.1, 0.9, 0.5, 2, 1], groups)).toEqual({ max_abs_diff: 0, same_order: true, rows_in_other_order: [] });
    // Row 19 swapped (1 above 2), row 12 unchanged.
    expect(agreement(baseline, [0.1, 0.9, 0.5, 1, 2], groups)).toEqual({ max_abs_diff: 1, same_order: false, rows_in_other_order: ['19'] });
    // Scores that would interleave across rows do not matter: only each row's own order counts. As one flat list the
    // order would change (row 19's scores now sit below row 12's), per row it does not.
    const shifted = [0.1, 0.9, 0.5, -2, -3];
    expect(agreement(baseline, shifted).same_order).toBe(false);
    expect(agreement(baseline, shifted, groups)).toMatchObject({ same_order: true, rows_in_other_order: [] });
    expect(() => agreement(baseline, baseline, [{ id: '12', count: 3 }])).toThrow('the rows hold 3 candidates, the scores are 5');
  });

  it('marks a route that reorders a row invalid and unranked, naming the row', () => {
    const base: RouteMeasurement = {
      id: 'wasm-1',
      requested_ep: 'wasm',
      completed_ep: 'wasm',
      threads_requested: 1,
      threads_effective: 1,
      session_create_ms: 5,
      samples_ms: [4, 4, 4],
      scores: [0.1, 0.9, 0.5, 2, 1],
      scores_sha256: 'a'.repeat(64),
      error: null,
    };
    const routes = compareRoutes(
      [
        base,
        { ...base, id: 'wasm-2', threads_requested: 2, threads_effective: 2, samples_ms: [2, 2, 2], scores: [0.1, 0.9, 0.5, 2, 1 + 1e-6] },
        { ...base, id: 'webgpu', requested_ep: 'webgpu', completed_ep: 'webgpu', samples_ms: [1, 1, 1], scores: [0.1, 0.9, 0.5, 1.5, 1.50000001] },
        { ...base, id: 'wasm-4', scores: [0.1, 0.9, 0.5, 2] },
      ],
      'wasm-1',
      1,
      groups,
    );
    const [baseline, two, gpu, short] = routes;
    expect(baseline).toMatchObject({ valid: true, rank: 2, agreement: { max_abs_diff: 0, same_order: true, rows_in_other_order: [] } });
    expect(two).toMatchObject({ valid: true, rank: 1, ratio_to_baseline: 0.5 });
    // Within the (loose) tolerance, but row 19's two candidates change places: invalid however fast.
    expect(gpu).toMatchObject({ valid: false, rank: null, ratio_to_baseline: null, invalid_reason: 'orders the candidates of row "19" differently from the baseline' });
    expect(gpu.agreement).toMatchObject({ same_order: false, rows_in_other_order: ['19'] });
    expect(short).toMatchObject({ valid: false, invalid_reason: 'produced 4 scores, the baseline 5' });
  });
});

describe('candidate rows from the shipped demo suite', () => {
  const dir = new URL('../../public/suites/ajimee-demo-24/', import.meta.url);
  const load = async (): Promise<SuiteRow[]> =>
    (
      await planSuite(
        { bytes: readFileSync(new URL('items.json', dir)), fileName: 'items.json' },
        { bytes: readFileSync(new URL('candidates.json', dir)), fileName: 'candidates.json' },
        'ajimee',
      )
    ).rows;

  it('takes the first rows with candidates, with the suite run texts for each task', async () => {
    const rows = await load();
    const candidates = JSON.parse(readFileSync(new URL('candidates.json', dir), 'utf8')) as Array<{ id: string; candidates: string[] }>;
    const rerank = comparisonRows('ajimee-demo-24', rows, 'rerank', 3);
    expect(rerank.inputId).toBe('ajimee-demo-24:first-3-rows');
    expect(rerank.textTemplate).toBe('drb.rerank-pair.v1');
    expect(rerank.groups).toEqual(candidates.slice(0, 3).map((c) => ({ id: c.id, count: c.candidates.length })));
    expect(rerank.rows[0]).toEqual({ id: '12', data: { task: 'rerank', query: rerankQuery('きっかけで、漫画の仕事', 'ノイライガクルヨウニ'), candidates: candidates[0].candidates } });
    expect(rerank.rows[0].data).toMatchObject({ query: 'きっかけで、漫画の仕事 ノイライガクルヨウニ' });
    const score = comparisonRows('ajimee-demo-24', rows, 'score-candidates', 1);
    expect(score.textTemplate).toBe('drb.score-prompt.v1');
    expect(score.rows[0].data).toEqual({ task: 'score-candidates', prompt: scorePrompt('きっかけで、漫画の仕事', 'ノイライガクルヨウニ'), candidates: candidates[0].candidates });
    // More rows than the suite has: all of them, and the id says how many were really taken.
    const all = comparisonRows('ajimee-demo-24', rows, 'rerank', 64);
    expect(all.rows).toHaveLength(rows.filter((r) => r.candidates.length > 0).length);
    expect(all.inputId).toBe(`ajimee-demo-24:first-${all.rows.length}-rows`);
  });

  it('skips rows without candidates, and refuses a suite with none or a bad count', async () => {
    const rows: SuiteRow[] = [
      { id: 'a', input: 'x', context: '', candidates: [], hasCandidatesRow: false },
      { id: 'b', input: 'y', context: '', candidates: ['Y', 'y'], hasCandidatesRow: true },
    ];
    expect(comparisonRows('s', rows, 'rerank', 2).groups).toEqual([{ id: 'b', count: 2 }]);
    expect(() => comparisonRows('s', rows.slice(0, 1), 'rerank', 2)).toThrow('suite s has no row with candidates to compare on');
    expect(() => comparisonRows('s', rows, 'rerank', 0)).toThrow('the row count must be a positive integer, got 0');
  });

  it('hashes exactly the engine inputs: another template or candidate changes the bytes', async () => {
    const rows = await load();
    const a = comparisonRowsBytes(comparisonRows('ajimee-demo-24', rows, 'rerank', 2).rows);
    expect(new TextDecoder().decode(a)).toBe(JSON.stringify(comparisonRows('ajimee-demo-24', rows, 'rerank', 2).rows.map((r) => r.data)));
    expect(comparisonRowsBytes(comparisonRows('ajimee-demo-24', rows, 'score-candidates', 2).rows)).not.toEqual(a);
    const changed = rows.map((r, i) => (i === 0 ? { ...r, candidates: [...r.candidates].reverse() } : r));
    expect(comparisonRowsBytes(comparisonRows('ajimee-demo-24', changed, 'rerank', 2).rows)).not.toEqual(a);
  });
});

describe('comparison receipt on candidate rows', () => {
  const measurement: RouteMeasurement = {
    id: 'wasm-1',
    requested_ep: 'wasm',
    completed_ep: 'wasm',
    threads_requested: 1,
    threads_effective: 1,
    session_create_ms: 5,
    samples_ms: [4, 5],
    scores: [0.1, 0.9, 0.5, 2, 1],
    scores_sha256: 'a'.repeat(64),
    error: null,
  };
  const receipt = (): ComparisonReceipt =>
    comparisonReceiptOf(compareRoutes([measurement, { ...measurement, id: 'webgpu', requested_ep: 'webgpu', completed_ep: 'webgpu', scores: [0.1, 0.9, 0.5, 1, 2] }], 'wasm-1', 1e-4, groups), {
      receipt_id: 'cmp-rows-0123456789',
      engine: { name: 'transformers', version: '4.3.2' },
      model: { id: 'tfjs-tiny-reranker', kind: 'fixture', task: 'rerank', dtype: 'fp32', source: 'page-origin', revision: null, integrity: 'verified', files: [] },
      input: { id: 'ajimee-demo-24:first-2-rows', sha256: 'd'.repeat(64) },
      candidate_rows: {
        suite_id: 'ajimee-demo-24',
        task: 'rerank',
        text_template: 'drb.rerank-pair.v1',
        items_sha256: 'e'.repeat(64),
        candidates_sha256: 'f'.repeat(64),
        rows: groups.map((g) => ({ id: g.id, candidates: g.count })),
      },
      schedule: { seed: 1, rounds: 2, order: interleavedSchedule(['wasm-1', 'webgpu'], 2, 1).map((s) => s.route_id) },
      // The webgpu route orders row 19 differently: invalid, so the headline has no entry for it.
      headline: { baseline_route_id: 'wasm-1', routes: [] },
    });

  it('validates, and its invariants hold', () => {
    const r = receipt();
    const parsed = ComparisonReceipt.safeParse(r);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    expect(checkComparisonReceipt(r)).toEqual([]);
    expect(r.routes[1]).toMatchObject({ valid: false, agreement: { rows_in_other_order: ['19'] } });
  });

  it('catches a count that does not match the rows, an unknown row, a wrong same_order and a missing row list', () => {
    const r = receipt();
    r.routes[1].output!.count = 4;
    r.routes[1].agreement!.rows_in_other_order = ['99'];
    r.routes[0].agreement!.same_order = false;
    r.candidate_rows!.task = 'score-candidates';
    expect(checkComparisonReceipt(r).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'routes[0].valid: is true although the route disagrees with the baseline',
      "candidate_rows.task: is score-candidates, the model's task is rerank",
      'routes[0].agreement.same_order: must be true exactly when no row is in another order',
      'routes[1].output.count: is 4, the candidate rows hold 5 candidates',
      'routes[1].agreement.rows_in_other_order: names no compared row "99"',
    ]);
    const fixed = receipt();
    fixed.candidate_rows = null;
    expect(checkComparisonReceipt(fixed).map((p) => p.path)).toEqual(['routes[0].agreement.rows_in_other_order', 'routes[1].agreement.rows_in_other_order']);
  });
});
