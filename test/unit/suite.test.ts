import { describe, expect, it } from 'vitest';
import { checkCandidatesAgainstItems, parseCandidates } from '../../src/core/suite/candidates.ts';
import { marginPolicy } from '../../src/core/suite/abstention-policy.ts';
import { rankCandidates } from '../../src/core/suite/rank-candidates.ts';
import { planSuite } from '../../src/core/suite/suite-plan.ts';
import { encodePredictions } from '../../src/core/suite/predictions-artifact.ts';
import { parsePredictions } from '../../src/core/artifacts/predictions.ts';
import { rerankQuery, scorePrompt } from '../../src/core/suite/scoring-text.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);
const json = (value: unknown) => utf8(JSON.stringify(value));

const items = [
  { id: 'a', input: 'きしゃ', references: ['記者'] },
  { id: 'b', input: 'かく', references: ['書く', '描く'], label: 'typo' },
  { id: 'c', input: 'はし', references: ['橋'] },
];

describe('parseCandidates', () => {
  it('reads rows in order, keeping an empty-string candidate', () => {
    expect(parseCandidates(json([{ id: 'a', candidates: ['記者', ''] }]), 'c.json')).toEqual([
      { id: 'a', candidates: ['記者', ''] },
    ]);
  });

  it.each([
    ['bad JSON', utf8('[{"id": "a",'), /^c\.json: \$: not valid JSON/],
    ['not an array', json({ id: 'a' }), /^c\.json: \$: expected a JSON array of candidate rows, got object$/],
    ['no rows', json([]), /^c\.json: \$: the candidates file has no rows$/],
    ['numeric id', json([{ id: 7, candidates: [] }]), /^c\.json: \[0\]\.id: id must be a string, got number$/],
    [
      'candidate not a string',
      json([{ id: 'a', candidates: ['x', 3] }]),
      /^c\.json: id "a" candidates\[1\]: must be a string, got number$/,
    ],
    ['missing candidates', json([{ id: 'a' }]), /^c\.json: id "a" candidates: /],
    ['unknown key', json([{ id: 'a', candidates: [], score: 1 }]), /^c\.json: id "a": .*score/],
    [
      'duplicate id',
      json([
        { id: 'a', candidates: [] },
        { id: 'a', candidates: ['x'] },
      ]),
      /^c\.json: id "a": duplicate id \(rows \[0\] and \[1\]\)$/,
    ],
    ['invalid UTF-8', new Uint8Array([0x5b, 0xff, 0x5d]), /^c\.json: byte 1: not valid UTF-8$/],
  ])('refuses %s with file and row', (_name, bytes, message) => {
    expect(() => parseCandidates(bytes, 'c.json')).toThrow(message);
  });

  it('refuses a row naming no item', () => {
    const rows = parseCandidates(
      json([
        { id: 'a', candidates: [] },
        { id: 'zz', candidates: ['x'] },
      ]),
      'c.json',
    );
    expect(() =>
      checkCandidatesAgainstItems(rows, [{ id: 'a', input: '', references: ['x'], label: 'unspecified' }], 'c.json'),
    ).toThrow(/^c\.json: id "zz": names no row of the items file$/);
  });
});

describe('rankCandidates', () => {
  const none = marginPolicy(null);

  it('orders by score, highest first, and gives margin = top1 - top2', () => {
    const row = rankCandidates('a', ['汽車', '記者', '帰社'], [0.5, 2, -1], none, 'deberta');
    expect(row.prediction).toEqual({
      id: 'a',
      candidates: ['記者', '汽車', '帰社'],
      provenance: 'deberta',
      reason: 'accepted',
      margin: 1.5,
    });
  });

  it('keeps the generator order for equal scores (stable) and gives margin 0', () => {
    const row = rankCandidates('a', ['x', 'y', 'z'], [1, 3, 3], none, 'lfm');
    expect(row.prediction.candidates).toEqual(['y', 'z', 'x']);
    expect(row.prediction.margin).toBe(0);
  });

  it('abstains below the threshold with reason low_margin, keeping the margin', () => {
    const row = rankCandidates('a', ['x', 'y'], [1, 1.25], marginPolicy(0.5), 'deberta');
    expect(row.prediction).toEqual({
      id: 'a',
      candidates: [],
      provenance: 'deberta',
      reason: 'low_margin',
      margin: 0.25,
    });
  });

  it('accepts a margin exactly at the threshold', () => {
    expect(rankCandidates('a', ['x', 'y'], [1.5, 1], marginPolicy(0.5), 'deberta').reason).toBe('accepted');
  });

  it('keeps a single candidate with no margin whatever the threshold', () => {
    const row = rankCandidates('a', ['x'], [-9], marginPolicy(100), 'deberta');
    expect(row.prediction).toEqual({ id: 'a', candidates: ['x'], provenance: 'deberta', reason: 'single_candidate' });
  });

  it('abstains with no_candidates for an empty list', () => {
    expect(rankCandidates('a', [], [], none, 'lfm').prediction).toEqual({
      id: 'a',
      candidates: [],
      provenance: 'lfm',
      reason: 'no_candidates',
    });
  });

  it('refuses a wrong score count or a non-finite score', () => {
    expect(() => rankCandidates('a', ['x', 'y'], [1], none, 'deberta')).toThrow(/1 scores for 2 candidates/);
    expect(() => rankCandidates('a', ['x', 'y'], [1, Number.NaN], none, 'deberta')).toThrow(
      /candidate \[1\] is not finite/,
    );
  });

  it('refuses a negative or non-finite threshold', () => {
    expect(() => marginPolicy(-1)).toThrow(RangeError);
    expect(() => marginPolicy(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

describe('planSuite', () => {
  it('joins items and candidates in items order, hashing both files', async () => {
    const itemBytes = json(items);
    const candidateBytes = json([
      { id: 'b', candidates: ['書く', '描く'] },
      { id: 'a', candidates: ['記者'] },
    ]);
    const plan = await planSuite(
      { bytes: itemBytes, fileName: 'i.json' },
      { bytes: candidateBytes, fileName: 'c.json' },
      'generic',
    );
    expect(plan.rows.map((r) => [r.id, r.candidates, r.hasCandidatesRow])).toEqual([
      ['a', ['記者'], true],
      ['b', ['書く', '描く'], true],
      ['c', [], false],
    ]);
    expect(plan.items).toMatchObject({ file_name: 'i.json', bytes: itemBytes.byteLength, rows: 3 });
    // sha256 of the raw bytes, checked against Node's own implementation.
    const { createHash } = await import('node:crypto');
    expect(plan.items.sha256).toBe(createHash('sha256').update(itemBytes).digest('hex'));
    expect(plan.candidates.sha256).toBe(createHash('sha256').update(candidateBytes).digest('hex'));
  });

  it('reads the AJIMEE left context for ajimee items', async () => {
    const ajimee = json([
      { index: '7', context_text: '男性', input: 'セイネンシ', expected_output: ['青年誌'], original_text: 'x' },
    ]);
    const plan = await planSuite(
      { bytes: ajimee, fileName: 'i.json' },
      { bytes: json([{ id: '7', candidates: ['青年誌'] }]), fileName: 'c.json' },
      'ajimee',
    );
    expect(plan.rows[0]).toMatchObject({ id: '7', context: '男性', input: 'セイネンシ' });
    expect(rerankQuery(plan.rows[0].context, plan.rows[0].input)).toBe('男性 セイネンシ');
    expect(scorePrompt('', 'カク')).toBe('文脈: \n読み: カク\n変換: ');
  });

  it('refuses a bad items file before looking at candidates, naming the items file', async () => {
    await expect(
      planSuite(
        { bytes: json([{ id: 'a', input: 'x' }]), fileName: 'i.json' },
        { bytes: utf8('nope'), fileName: 'c.json' },
        'generic',
      ),
    ).rejects.toThrow(/^i\.json: id "a" references: /);
  });

  it('refuses candidates naming an unknown item, naming the candidates file and row', async () => {
    await expect(
      planSuite(
        { bytes: json(items), fileName: 'i.json' },
        { bytes: json([{ id: 'q', candidates: [] }]), fileName: 'c.json' },
        'generic',
      ),
    ).rejects.toThrow('c.json: id "q": names no row of the items file');
  });
});

describe('encodePredictions', () => {
  it('writes rows that the scorer parser reads back unchanged', () => {
    const rows = [
      rankCandidates('a', ['x', 'y'], [2, 1], marginPolicy(0.5), 'deberta').prediction,
      rankCandidates('b', ['x', 'y'], [1, 1.1], marginPolicy(0.5), 'deberta').prediction,
      rankCandidates('c', [], [], marginPolicy(0.5), 'deberta').prediction,
    ];
    const bytes = encodePredictions(rows, 'p.json');
    expect(parsePredictions(bytes, 'p.json')).toEqual(rows);
    expect(new TextDecoder().decode(bytes).endsWith('\n')).toBe(true);
  });
});
