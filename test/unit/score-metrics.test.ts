import { describe, expect, it } from 'vitest';
import type { ItemRow } from '../../src/core/artifacts/items.ts';
import type { PredictionRow } from '../../src/core/artifacts/predictions.ts';
import { computeMetrics, diagnoseErrors, summarizeDeclared } from '../../src/core/scoring/metrics.ts';
import { ScoreReport } from '../../src/core/scoring/score-report.ts';
import { buildScoreReport } from '../../src/core/scoring/score-run.ts';
import { indexPredictions, scoreRows } from '../../src/core/scoring/score-rows.ts';

// Hand-computed table (K = 2). Each row exercises one rule; the expected outcome is worked out beside it.
const items: ItemRow[] = [
  // a: top-1 is the reference. Input MinCER: 吉野家 vs 𠮷野家 = 1 edit / 3 code points (𠮷 is one) = 1/3.
  { id: 'a', input: '吉野家', references: ['𠮷野家'], label: 'typo' },
  // b: clean row changed to ANOTHER acceptable reference: correct, yet an overcorrection. MinCERs 0 -> 0.
  { id: 'b', input: 'abc', references: ['abd', 'abc'], label: 'clean' },
  // c: clean row with no prediction at all: abstains, effective output = input, which is correct. Never a recall hit.
  { id: 'c', input: 'xyz', references: ['xyz'], label: 'clean' },
  // d: candidates null: abstains. ねこ vs 猫 = 2 edits / 1 = 2.
  { id: 'd', input: 'ねこ', references: ['猫'], label: 'typo' },
  // e: candidates []: abstains. MinCER 2.
  { id: 'e', input: 'いぬ', references: ['犬'], label: 'typo' },
  // f: the reference is 3rd, beyond K = 2: candidate miss; 3 supplied > K. Top-1 瓶 vs 亀 = 1/1; input 2 -> improved.
  { id: 'f', input: 'かめ', references: ['亀'], label: 'typo' },
  // g: no label (unspecified). Reference at rank 2: selection error. 取り vs 鳥 = 2 = input's 2 -> unchanged.
  { id: 'g', input: 'とり', references: ['鳥'], label: 'unspecified' },
  // h: [""] is a real candidate, not an abstention. "" vs 𠮷田 = 2/2 = 1; input 𠮷 vs 𠮷田 = 1/2 -> worsened; miss.
  { id: 'h', input: '𠮷', references: ['𠮷田'], label: 'typo' },
];
const predictions: PredictionRow[] = [
  { id: 'a', candidates: ['𠮷野家'], provenance: 'deberta', reason: 'accepted', margin: 2 },
  { id: 'b', candidates: ['abd'], provenance: 'deberta', reason: 'accepted', margin: 1 },
  { id: 'd', candidates: null, reason: 'low_margin' },
  { id: 'e', candidates: [], provenance: 'rule', reason: 'low_margin' },
  { id: 'f', candidates: ['瓶', '甕', '亀'], provenance: 'lfm', margin: -0.5 },
  { id: 'g', candidates: ['取り', '鳥'], provenance: 'unspecified' },
  { id: 'h', candidates: [''], provenance: 'provider', reason: '1' },
];

function score(k: number) {
  const outcomes = scoreRows(items, indexPredictions(items, predictions, 'p.json', 'i.json'), k);
  return { outcomes, metrics: computeMetrics(outcomes, k) };
}

describe('scoreRows and computeMetrics against a hand-computed table', () => {
  it('gives the expected row outcomes at K = 2', () => {
    const { outcomes } = score(2);
    const table = outcomes.map((o) => [
      o.id,
      o.abstained,
      o.correct,
      o.rank,
      o.change,
      o.overcorrected,
      o.candidatesSupplied,
    ]);
    expect(table).toEqual([
      ['a', false, true, 1, 'improved', false, 1],
      ['b', false, true, 1, 'unchanged', true, 1],
      ['c', true, true, null, 'unchanged', false, 0],
      ['d', true, false, null, 'unchanged', false, 0],
      ['e', true, false, null, 'unchanged', false, 0],
      ['f', false, false, null, 'improved', false, 3],
      ['g', false, false, 2, 'unchanged', false, 2],
      ['h', false, false, null, 'worsened', false, 1],
    ]);
    expect(outcomes.map((o) => o.inputMinCer)).toEqual([1 / 3, 0, 0, 2, 2, 2, 2, 0.5]);
    expect(outcomes.map((o) => o.effectiveMinCer)).toEqual([0, 0, 0, 2, 2, 1, 2, 1]);
  });

  it('gives the expected metrics at K = 2', () => {
    const { metrics } = score(2);
    expect(metrics).toEqual({
      rows: 8,
      effective_acc_at_1: 3 / 8, // a, b, c
      candidate_recall_at_k: 3 / 8, // a, b, g (c abstained: never a hit)
      mean_input_min_cer: (1 / 3 + 0 + 0 + 2 + 2 + 2 + 2 + 0.5) / 8,
      mean_effective_min_cer: (0 + 0 + 0 + 2 + 2 + 1 + 2 + 1) / 8,
      abstention_rate: 3 / 8, // c, d, e
      accepted_accuracy: 2 / 5, // a, b of a, b, f, g, h
      overcorrection_rate: 1 / 2, // b of b, c
      improved: 2,
      worsened: 1,
      unchanged: 5,
      accepted_candidate_miss: 2, // f, h
      selection_error: 1, // g
      mrr_at_k: (1 + 1 + 1 / 2) / 8,
      reranking_headroom: 0,
      correct_rows: 3,
      candidate_recall_hits: 3,
      abstained_rows: 3,
      clean_rows: 2,
      overcorrected_rows: 1,
      rows_over_candidate_limit: 1, // f
    });
    expect(diagnoseErrors(metrics).dominant_error).toBe('candidate_miss');
  });

  it('moves f from candidate miss to selection error when K grows to 3', () => {
    const { outcomes, metrics } = score(3);
    expect(outcomes[5].rank).toBe(3);
    expect(metrics.candidate_recall_at_k).toBe(4 / 8);
    expect(metrics.mrr_at_k).toBe((1 + 1 + 1 / 3 + 1 / 2) / 8);
    expect(metrics.accepted_candidate_miss).toBe(1);
    expect(metrics.selection_error).toBe(2);
    expect(metrics.rows_over_candidate_limit).toBe(0);
    expect(metrics.reranking_headroom).toBeCloseTo(1 / 8, 15);
    expect(diagnoseErrors(metrics).dominant_error).toBe('selection_error');
  });

  it('at K = 1 only the top candidate counts', () => {
    const { metrics } = score(1);
    expect(metrics.candidate_recall_at_k).toBe(2 / 8); // g's reference at rank 2 no longer counts
    expect(metrics.selection_error).toBe(0);
    expect(metrics.accepted_candidate_miss).toBe(3);
    expect(metrics.rows_over_candidate_limit).toBe(2); // f (3) and g (2)
  });

  it('gives null accepted accuracy when every row abstains, and null overcorrection without clean rows', () => {
    const typoOnly: ItemRow[] = [{ id: 'x', input: 'a', references: ['b'], label: 'typo' }];
    const outcomes = scoreRows(typoOnly, [], 8);
    const metrics = computeMetrics(outcomes, 8);
    expect(metrics.accepted_accuracy).toBeNull();
    expect(metrics.overcorrection_rate).toBeNull();
    expect(metrics.abstention_rate).toBe(1);
    expect(metrics.effective_acc_at_1).toBe(0);
    expect(diagnoseErrors(metrics).dominant_error).toBe('none');
  });

  it('counts a clean row changed to a non-reference as overcorrected and worsened', () => {
    const clean: ItemRow[] = [{ id: 'x', input: 'abc', references: ['abc'], label: 'clean' }];
    const outcomes = scoreRows(clean, [{ id: 'x', candidates: ['abd'] }], 8);
    expect(outcomes[0]).toMatchObject({
      overcorrected: true,
      change: 'worsened',
      correct: false,
      effectiveMinCer: 1 / 3,
    });
    expect(computeMetrics(outcomes, 8).overcorrection_rate).toBe(1);
  });

  it('refuses a prediction id that names no item row', () => {
    expect(() => indexPredictions(items, [{ id: 'zz', candidates: [] }], 'p.json', 'i.json')).toThrow(
      'p.json: id "zz": names no item row in i.json',
    );
  });
});

describe('summarizeDeclared', () => {
  it('counts declared values without touching any metric', () => {
    expect(summarizeDeclared(predictions)).toEqual({
      note: 'Declared by the predictions artifact; not verified and not used by any metric.',
      prediction_rows: 7,
      provenance: { provider: 1, deberta: 2, lfm: 1, rule: 1, unspecified: 1, absent: 1 },
      // by count, then by reason; "1" stays a string in a stable place (an object would hoist it)
      reasons: [
        { reason: 'accepted', count: 2 },
        { reason: 'low_margin', count: 2 },
        { reason: '1', count: 1 },
      ],
      reason_absent: 2,
      margin: { count: 3, mean: (2 + 1 - 0.5) / 3 },
    });
  });

  it('gives a null mean margin when no row declares one', () => {
    expect(summarizeDeclared([{ id: 'a' }]).margin).toEqual({ count: 0, mean: null });
  });
});

describe('buildScoreReport', () => {
  const enc = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  const itemsFile = { bytes: enc(items), fileName: 'dir/items.json', reportName: 'items.json' };
  const predictionsFile = { bytes: enc(predictions), fileName: 'dir/p.json', reportName: 'p.json' };
  const options = {
    format: 'generic' as const,
    candidateLimit: 2,
    declared: { name: 'toy', revision: 'r1' },
    toolVersion: '0.0.0',
    perRow: true,
  };

  it('builds a schema-valid report with hashes, declared dataset and per-row entries', async () => {
    const report = await buildScoreReport(itemsFile, predictionsFile, options);
    expect(ScoreReport.safeParse(report).success).toBe(true);
    expect(report.dataset).toEqual({
      name: 'toy',
      revision: 'r1',
      license: null,
      format: 'generic',
      verification: 'declared',
      pinned_sha256: null,
    });
    expect(report.inputs.items.file).toBe('items.json');
    expect(report.inputs.items.rows).toBe(8);
    expect(report.inputs.predictions.rows).toBe(7);
    expect(report.inputs.items.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(report.per_row?.[7]).toEqual({
      id: 'h',
      label: 'typo',
      abstained: false,
      correct: false,
      rank: null,
      input_min_cer: 0.5,
      effective_min_cer: 1,
      change: 'worsened',
      candidates_supplied: 1,
      overcorrected: false,
    });
    expect(Object.keys(report.metrics).slice(0, 14)).toEqual([
      'rows',
      'effective_acc_at_1',
      'candidate_recall_at_k',
      'mean_input_min_cer',
      'mean_effective_min_cer',
      'abstention_rate',
      'accepted_accuracy',
      'overcorrection_rate',
      'improved',
      'worsened',
      'unchanged',
      'accepted_candidate_miss',
      'selection_error',
      'mrr_at_k',
    ]);
  });

  it('is byte-for-byte the same on a second run over the same bytes', async () => {
    const first = JSON.stringify(await buildScoreReport(itemsFile, predictionsFile, options));
    const second = JSON.stringify(await buildScoreReport(itemsFile, predictionsFile, options));
    expect(second).toBe(first);
  });

  it('leaves per_row out unless asked', async () => {
    const report = await buildScoreReport(itemsFile, predictionsFile, { ...options, perRow: false });
    expect(report).not.toHaveProperty('per_row');
  });
});
