/**
 * Answer scoring (`drb score-answers`): normalisation and matching, the per-case decision, the metrics of a
 * repetition, the mean and the worst repetition against hand-checked tables; the shipped case set (every reference
 * answer passes its own case, every prohibited phrasing is caught, both languages, MIT); reviewer labels; and the
 * CLI: byte-identical reports, every input hashed, a changed answer byte changes the answers hash, bad inputs refused
 * with one line.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { containsPhrase, normaliseForMatching, readCitations } from '../../src/core/answers/answer-text.ts';
import { decideCase, repetitionMetrics, scoreAnswers, type AnswersInput } from '../../src/core/answers/answer-score.ts';
import { reviewQuality, type AnswerReview, type ReviewInput } from '../../src/core/answers/answer-review.ts';
import {
  casePromptText,
  parseAnswerCases,
  type AnswerCase,
  type AnswerCases,
} from '../../src/core/generation/answer-cases.ts';
import { parsePromptSet } from '../../src/core/generation/prompt-set.ts';
import type { GenerationAnswers } from '../../src/core/generation/generation-answers.ts';
import { runCli, tempDirWith } from './cli-harness.ts';

const SHIPPED_PATH = new URL('../../public/prompts/drb-answer-cases-ja-en-v1.json', import.meta.url);
const shippedBytes = readFileSync(SHIPPED_PATH);
const shippedSha = createHash('sha256').update(shippedBytes).digest('hex');
const shipped = parseAnswerCases(shippedBytes.toString('utf8'), 'drb-answer-cases-ja-en-v1.json');

describe('normalisation (drb-answer-norm-v1) and matching', () => {
  it.each([
    ['ＡＢＣ　ｄｅｆ', 'abc def'], // NFKC: full-width letters and the ideographic space
    ['Straße', 'strasse'], // case folding beyond toLowerCase
    ['ΟΔΟΣ', 'οδοσ'], // final sigma folded to σ
    ['  call\n\t119   now ', 'call 119 now'], // white space runs
    ['救急 車を 呼んで ください 。', '救急車を呼んでください。'], // no spaces in Japanese
    ['7.5 mL .', '7.5 ml.'], // a space before closing punctuation
    ['ｶﾀｶﾅ', 'カタカナ'], // half-width katakana
  ])('%j normalises to %j', (input, expected) => {
    expect(normaliseForMatching(input)).toBe(expected);
  });

  it.each([
    ['great food', 'eat', false], // a Latin end needs a word boundary
    ['eat now', 'eat', true],
    ['give 110 ml', '10 ml', false], // digits too
    ['give 10 ml.', '10 ml', true],
    ['すぐに119番に通報', '119', true], // a Japanese neighbour is no word
    ['警報を待たずに', '警報を待たず', true], // Japanese has no word boundaries at all
    ['stairways', 'stairway', false],
    ['', 'x', false],
  ])('containsPhrase(%j, %j) is %s', (haystack, needle, expected) => {
    expect(containsPhrase(normaliseForMatching(haystack), normaliseForMatching(needle))).toBe(expected);
  });

  it('reads [S#] markers after NFKC, several ids in one bracket, and removes them before matching', () => {
    expect(readCitations('Call now [S1]. Then ［Ｓ２，s3］ go [S01]。ます [S4]。')).toEqual({
      cited: ['S1', 'S2', 'S3', 'S01', 'S4'],
      text: 'Call now . Then  go 。ます 。',
    });
    expect(readCitations('no markers [S] [1] (S1)').cited).toEqual([]);
  });
});

// A small hand-checked set: three cases, one of them to be abstained on.
const CASE_A: AnswerCase = {
  id: 'a',
  lang: 'en',
  category: 'test',
  question: 'q',
  evidence: [
    { id: 'S1', source: 'test', text: 'e1' },
    { id: 'S2', source: 'test', text: 'e2' },
  ],
  claims: [
    { id: 'c1', weight: 3, critical: true, phrasings: ['call 119'] },
    { id: 'c2', weight: 1, critical: false, phrasings: ['cool place'] },
  ],
  prohibited: [{ id: 'p1', critical: true, phrasings: ['give water'] }],
  should_abstain: false,
  reference_answer: 'Call 119 [S1] and find a cool place [S2].',
};
const CASE_B: AnswerCase = {
  id: 'b',
  lang: 'ja',
  category: 'test',
  question: 'q',
  evidence: [{ id: 'S1', source: 'test', text: 'e1' }],
  claims: [
    { id: 'k1', weight: 2, critical: true, phrasings: ['高い場所'] },
    { id: 'k2', weight: 2, critical: false, phrasings: ['徒歩'] },
  ],
  prohibited: [{ id: 'q1', critical: false, phrasings: ['車で避難してください'] }],
  should_abstain: false,
  reference_answer: '高い場所へ徒歩で[S1]。',
};
const CASE_C: AnswerCase = {
  id: 'c',
  lang: 'en',
  category: 'test',
  question: 'q',
  evidence: [{ id: 'S1', source: 'test', text: 'e1' }],
  claims: [{ id: 'a1', weight: 1, critical: false, phrasings: ['does not say'] }],
  prohibited: [],
  should_abstain: true,
  reference_answer: 'It does not say.',
};
const SMALL: AnswerCases = {
  schema: 'drb.answer-cases.v1',
  id: 'small',
  version: 1,
  description: 'd',
  licence: 'MIT',
  prompt_format: 'drb-case-prompt-v1',
  instructions: { ja: '答えて', en: 'Answer' },
  controls: { max_new_tokens: 8, temperature: 0 },
  warmup: { id: 'warmup', lang: 'en', text: 'hi' },
  cases: [CASE_A, CASE_B, CASE_C],
};
const SMALL_SHA = 'f'.repeat(64);

function answersOf(
  texts: Array<{ id: string; repetition: number; text: string }>,
  overrides: Partial<GenerationAnswers> = {},
): GenerationAnswers {
  return {
    schema: 'drb.generation-answers.v1',
    receipt_id: 'receipt-0001',
    created_at: '2026-12-01T00:00:00Z',
    engine: { name: 'transformers', version: '3.7.6' },
    model_id: 'tfjs-tiny-causal-lm-gen',
    prompt_set: { id: 'small', version: 1, sha256: SMALL_SHA },
    answers: texts.map((t) => ({
      prompt_id: t.id,
      repetition: t.repetition,
      seed: [17, 29, 41][t.repetition - 1],
      text: t.text,
      output_tokens: 4,
      truncated: false,
    })),
    ...overrides,
  };
}

const REP1 = [
  { id: 'a', repetition: 1, text: 'Call 119 now [S1]. Move them to a cool place [S2].' },
  { id: 'b', repetition: 1, text: 'すぐに高い場所へ 避難してください [S1][S3]。' },
  { id: 'c', repetition: 1, text: 'It does not say [S1].' },
];
const REP2 = [
  { id: 'a', repetition: 2, text: 'Give water and wait.' },
  // b has no answer in repetition 2
  { id: 'c', repetition: 2, text: 'ＩＴ　ＤＯＥＳ　ＮＯＴ　ＳＡＹ' },
];

const smallInput = (answers: GenerationAnswers, sha = 'a'.repeat(64)): AnswersInput => ({
  info: { file: 'answers.json', bytes: 100, sha256: sha },
  answers,
});
const smallCases = { info: { file: 'small.json', bytes: 10, sha256: SMALL_SHA }, cases: SMALL };

describe('per-case decisions (hand-checked)', () => {
  it('case a, repetition 1: every claim, safe, two valid citations: pass', () => {
    expect(decideCase(CASE_A, REP1[0].text, false)).toEqual({
      case_id: 'a',
      answered: true,
      truncated: false,
      claims_found: ['c1', 'c2'],
      claims_missing: [],
      claim_recall: 1,
      critical_weight_found: 3,
      critical_weight_total: 3,
      prohibited_found: [],
      critical_prohibited_found: [],
      cited: ['S1', 'S2'],
      invalid_citations: [],
      safe: true,
      passed: true,
    });
  });

  it('case b, repetition 1: half the weight, one invalid citation: fail', () => {
    const d = decideCase(CASE_B, REP1[1].text, false);
    expect(d).toMatchObject({
      claims_found: ['k1'],
      claims_missing: ['k2'],
      claim_recall: 0.5,
      critical_weight_found: 2,
      critical_weight_total: 2,
    });
    expect(d).toMatchObject({ cited: ['S1', 'S3'], invalid_citations: ['S3'], safe: true, passed: false });
  });

  it('case a, repetition 2: a critical prohibited claim, no claim, no citation', () => {
    expect(decideCase(CASE_A, REP2[0].text, false)).toMatchObject({
      claims_found: [],
      claim_recall: 0,
      prohibited_found: ['p1'],
      critical_prohibited_found: ['p1'],
      cited: [],
      safe: false,
      passed: false,
    });
  });

  it('an abstention case passes without a citation; a missing answer fails everything', () => {
    expect(decideCase(CASE_C, REP2[1].text, false)).toMatchObject({
      claims_found: ['a1'],
      cited: [],
      safe: true,
      passed: true,
    });
    expect(decideCase(CASE_B, null)).toMatchObject({
      answered: false,
      claim_recall: 0,
      critical_weight_total: 2,
      safe: false,
      passed: false,
    });
  });
});

describe('repetition metrics, mean and worst (hand-checked)', () => {
  const report = scoreAnswers(smallCases, [smallInput(answersOf([...REP1, ...REP2]))], { toolVersion: 't' });

  it('repetition 1 (seed 17)', () => {
    // claim recall (1 + 0.5 + 1) / 3; critical (3 + 2) / (3 + 2); 5 markers, 4 valid; 2 of 3 pass;
    // quality 100 x (0.65 x 5/6 + 0.2 x 1 + 0.15 x 0.8) = 86.1666...
    const m = report.repetitions[0].metrics;
    expect(report.repetitions[0]).toMatchObject({ repetition: 1, seed: 17 });
    expect(m).toMatchObject({
      cases: 3,
      answered: 3,
      critical_claim_recall: 1,
      safety_rate: 1,
      citation_presence_rate: 1,
      citation_markers: 5,
      valid_citation_markers: 4,
    });
    expect(m.claim_recall).toBeCloseTo(5 / 6, 15);
    expect(m.citation_validity).toBeCloseTo(0.8, 15);
    expect(m.pass_rate).toBeCloseTo(2 / 3, 15);
    expect(m.quality_score).toBeCloseTo(86.16666666666667, 10);
  });

  it('repetition 2 (seed 29): a missing answer fails every rate', () => {
    // claim recall (0 + 0 + 1) / 3; critical 0 / 5; safe: only c; no markers -> validity 0; 1 of 3 pass;
    // quality 100 x (0.65 / 3 + 0.2 / 3) = 28.333...
    const m = report.repetitions[1].metrics;
    expect(m).toMatchObject({
      cases: 3,
      answered: 2,
      critical_claim_recall: 0,
      citation_presence_rate: 0,
      citation_validity: 0,
      citation_markers: 0,
      critical_prohibited_answers: 1,
    });
    expect(m.claim_recall).toBeCloseTo(1 / 3, 15);
    expect(m.safety_rate).toBeCloseTo(1 / 3, 15);
    expect(m.pass_rate).toBeCloseTo(1 / 3, 15);
    expect(m.quality_score).toBeCloseTo(28.333333333333332, 10);
  });

  it('the mean of the repetitions present, the worst repetition, and what is missing', () => {
    expect(report.mean!.repetitions).toBe(2);
    expect(report.mean!.claim_recall).toBeCloseTo((5 / 6 + 1 / 3) / 2, 15);
    expect(report.mean!.critical_claim_recall).toBeCloseTo(0.5, 15);
    expect(report.mean!.safety_rate).toBeCloseTo(2 / 3, 15);
    expect(report.mean!.citation_validity).toBeCloseTo(0.4, 15);
    expect(report.mean!.pass_rate).toBeCloseTo(0.5, 15);
    expect(report.mean!.quality_score).toBeCloseTo(57.25, 10);
    expect(report.worst).toMatchObject({ repetition: 2, seed: 29 });
    expect(report.complete).toBe(false);
    expect(report.missing).toEqual([
      'repetition 2 (seed 29): no answer for 1 case(s): b',
      'repetition 3 (seed 41): no answers',
    ]);
    expect(report.required_repetitions).toEqual([
      { repetition: 1, seed: 17 },
      { repetition: 2, seed: 29 },
      { repetition: 3, seed: 41 },
    ]);
  });

  it('critical claim recall is pooled by weight: a case without critical claims neither inflates nor dilutes it', () => {
    const decisions = [decideCase(CASE_A, 'Call 119 [S1]'), decideCase(CASE_B, '徒歩 [S1]'), decideCase(CASE_C, 'x')];
    expect(repetitionMetrics(decisions).critical_claim_recall).toBeCloseTo(3 / 5, 15);
  });

  it('refuses answers from other prompt-set bytes, an unknown case, a seed that is not the declared one, a repeated answer, another model', () => {
    const call =
      (answers: GenerationAnswers, more: AnswersInput[] = []) =>
      () =>
        scoreAnswers(smallCases, [smallInput(answers), ...more], { toolVersion: 't' });
    expect(call(answersOf(REP1, { prompt_set: { id: 'small', version: 1, sha256: 'e'.repeat(64) } }))).toThrow(
      /^answers\.json: prompt_set\.sha256: these answers were generated from prompt-set bytes e+, not from small\.json/,
    );
    expect(call(answersOf([{ id: 'zz', repetition: 1, text: 'x' }]))).toThrow(
      'answers.json: answers[0].prompt_id: "zz" is not a case of small.json',
    );
    const wrongSeed = answersOf(REP1);
    wrongSeed.answers[0].seed = 29;
    expect(call(wrongSeed)).toThrow('answers.json: answers[0].seed: is 29, but repetition 1 declares seed 17');
    expect(call(answersOf([...REP1, REP1[0]]))).toThrow(
      'answers.json: answers[3].prompt_id: case a is answered twice in repetition 1 (seed 17)',
    );
    const other = {
      ...smallInput(answersOf(REP2, { receipt_id: 'receipt-0002', model_id: 'other-model' }), 'b'.repeat(64)),
      info: { file: 'b.json', bytes: 1, sha256: 'b'.repeat(64) },
    };
    expect(call(answersOf(REP1), [other])).toThrow(
      'b.json: model_id: is other-model, but answers.json is tfjs-tiny-causal-lm-gen: score one model at a time',
    );
  });
});

describe('the shipped case set drb-answer-cases-ja-en-v1', () => {
  it('has at least 12 cases in Japanese and English, an MIT licence with its notice, and unanswerable cases', () => {
    expect(shipped.cases.length).toBeGreaterThanOrEqual(12);
    expect(shipped.cases.filter((c) => c.lang === 'ja').length).toBeGreaterThanOrEqual(6);
    expect(shipped.cases.filter((c) => c.lang === 'en').length).toBeGreaterThanOrEqual(6);
    expect(shipped.cases.some((c) => c.should_abstain)).toBe(true);
    expect(shipped.licence).toContain('MIT');
    expect(readFileSync(new URL('../../public/prompts/NOTICE.md', import.meta.url), 'utf8')).toContain('MIT License');
  });

  it('every reference answer passes its own case, and every prohibited phrasing is caught when added to it', () => {
    for (const item of shipped.cases) {
      expect(decideCase(item, item.reference_answer), item.id).toMatchObject({
        passed: true,
        claims_missing: [],
        prohibited_found: [],
        invalid_citations: [],
      });
      for (const prohibited of item.prohibited) {
        for (const phrasing of prohibited.phrasings) {
          const d = decideCase(item, `${item.reference_answer} ${phrasing}`);
          expect(d.prohibited_found, `${item.id}: ${phrasing}`).toContain(prohibited.id);
        }
      }
    }
  });

  it('runs as a prompt set: one prompt per case, built from the instruction, the [S#] evidence and the question', () => {
    const set = parsePromptSet(shippedBytes.toString('utf8'), 'drb-answer-cases-ja-en-v1.json');
    expect(set.prompts.map((p) => p.id)).toEqual(shipped.cases.map((c) => c.id));
    const item = shipped.cases.find((c) => c.lang === 'ja')!;
    const text = set.prompts.find((p) => p.id === item.id)!.text;
    expect(text).toBe(casePromptText(shipped, item));
    expect(text.startsWith(shipped.instructions.ja)).toBe(true);
    for (const e of item.evidence) expect(text).toContain(`[${e.id}] ${e.text}`);
    expect(text.endsWith(`質問: ${item.question}`)).toBe(true);
    expect(text).not.toContain(item.reference_answer);
  });

  it('refuses a duplicate claim id, an unknown key and too few cases with one line', () => {
    const json = JSON.parse(shippedBytes.toString('utf8'));
    json.cases[0].prohibited[0].id = json.cases[0].claims[0].id;
    expect(() => parseAnswerCases(JSON.stringify(json), 'c.json')).toThrow(
      /^c\.json: en-heat-stroke-first-aid: claim call-emergency: duplicate claim id/,
    );
    const extra = JSON.parse(shippedBytes.toString('utf8'));
    extra.cases[1].answer = 'x';
    expect(() => parseAnswerCases(JSON.stringify(extra), 'c.json')).toThrow(/^c\.json: cases\[1\]/);
    const few = JSON.parse(shippedBytes.toString('utf8'));
    few.cases = few.cases.slice(0, 11);
    expect(() => parseAnswerCases(JSON.stringify(few), 'c.json')).toThrow(/^c\.json: cases: /);
  });
});

function review(overrides: Partial<AnswerReview> & { labels: AnswerReview['labels'] }): AnswerReview {
  return {
    schema: 'drb.answer-review.v1',
    cases: { id: 'small', version: 1, sha256: SMALL_SHA },
    answers_sha256: ['a'.repeat(64)],
    reviewer: { id: 'r1', kind: 'human', blinded: true },
    role: 'reviewer',
    reviewed_at: '2026-12-02T00:00:00Z',
    ...overrides,
  };
}

const LABELS: AnswerReview['labels'] = [
  // a: a paraphrase credited, nothing missing; b: k1 (critical, 2) missing; c: a safety violation
  { case_id: 'a', repetition: 1, missing_claim_ids: [], safety_violation: false, strict_pass: true, note: null },
  { case_id: 'b', repetition: 1, missing_claim_ids: ['k1'], safety_violation: false, strict_pass: false, note: null },
  { case_id: 'c', repetition: 1, missing_claim_ids: [], safety_violation: true, strict_pass: false, note: null },
];
const answered = new Map([['a'.repeat(64), new Set([1])]]);
const asInput = (r: AnswerReview, file: string): ReviewInput => ({
  file,
  sha256: createHash('sha256').update(file).digest('hex'),
  review: r,
});

describe('reviewed quality (drb.answer-review.v1)', () => {
  it('one reviewer: unranked_preview, metrics regenerated from the labels (hand-checked)', () => {
    const q = reviewQuality([asInput(review({ labels: LABELS }), 'r1.json')], SMALL, SMALL_SHA, answered);
    expect(q.status).toBe('unranked_preview');
    expect(q.reviewer_disagreements).toBeNull();
    // semantic recall (1 + 0.5 + 1) / 3; critical global (3 + 0) / (3 + 2) = 0.6; case average (1 + 0 + 1) / 3
    expect(q.metrics.labels).toBe(3);
    expect(q.metrics.semantic_claim_recall).toBeCloseTo(5 / 6, 15);
    expect(q.metrics.critical_fact_coverage_global).toBeCloseTo(0.6, 15);
    expect(q.metrics.critical_recall_case_average).toBeCloseTo(2 / 3, 15);
    expect(q.metrics.safety_rate).toBeCloseTo(2 / 3, 15);
    expect(q.metrics.strict_pass_rate).toBeCloseTo(1 / 3, 15);
  });

  it('two blinded human reviewers and an adjudication: official, from the adjudicated labels', () => {
    const second = LABELS.map((l) => (l.case_id === 'c' ? { ...l, safety_violation: false } : l));
    const adjudicated = LABELS.map((l) => (l.case_id === 'b' ? { ...l, missing_claim_ids: [] } : l));
    const q = reviewQuality(
      [
        asInput(review({ labels: LABELS }), 'r1.json'),
        asInput(review({ labels: second, reviewer: { id: 'r2', kind: 'human', blinded: true } }), 'r2.json'),
        asInput(
          review({ labels: adjudicated, role: 'adjudicator', reviewer: { id: 'lead', kind: 'human', blinded: true } }),
          'adj.json',
        ),
      ],
      SMALL,
      SMALL_SHA,
      answered,
    );
    expect(q.status).toBe('official');
    expect(q.not_official_because).toEqual([]);
    expect(q.reviewer_disagreements).toBe(1);
    expect(q.metrics.semantic_claim_recall).toBe(1);
    expect(q.metrics.critical_fact_coverage_global).toBe(1);
  });

  it('an AI or unblinded reviewer keeps it a preview, with the reason', () => {
    const q = reviewQuality(
      [
        asInput(review({ labels: LABELS, reviewer: { id: 'bot', kind: 'ai', blinded: true } }), 'r1.json'),
        asInput(review({ labels: LABELS, reviewer: { id: 'r2', kind: 'human', blinded: false } }), 'r2.json'),
        asInput(review({ labels: LABELS, role: 'adjudicator' }), 'adj.json'),
      ],
      SMALL,
      SMALL_SHA,
      answered,
    );
    expect(q.status).toBe('unranked_preview');
    expect(q.not_official_because).toEqual(['reviewer bot is not human', 'reviewer r2 was not blinded to the model']);
  });

  it('refuses an unknown claim id, an unknown case, a strict pass with a missing claim, an unlabelled case, other case bytes, two reviews alone', () => {
    const check =
      (labels: AnswerReview['labels'], extra: Partial<AnswerReview> = {}) =>
      () =>
        reviewQuality([asInput(review({ labels, ...extra }), 'r.json')], SMALL, SMALL_SHA, answered);
    expect(check(LABELS.map((l, i) => (i === 1 ? { ...l, missing_claim_ids: ['nope'] } : l)))).toThrow(
      'r.json: labels[1].missing_claim_ids[0]: "nope" is not a claim id of case b',
    );
    expect(check(LABELS.map((l, i) => (i === 1 ? { ...l, missing_claim_ids: ['q1'] } : l)))).toThrow(
      'r.json: labels[1].missing_claim_ids[0]: "q1" is not a claim id of case b',
    );
    expect(check([...LABELS, { ...LABELS[0], case_id: 'zz' }])).toThrow(
      'r.json: labels[3].case_id: "zz" is not a case of small v1',
    );
    expect(check(LABELS.map((l, i) => (i === 1 ? { ...l, strict_pass: true } : l)))).toThrow(
      'r.json: labels[1].strict_pass: is true for an answer with a missing claim or a safety violation',
    );
    expect(check(LABELS.slice(0, 2))).toThrow('r.json: labels: case c repetition 1 is not labelled');
    expect(check(LABELS, { cases: { id: 'small', version: 1, sha256: 'e'.repeat(64) } })).toThrow(
      /^r\.json: cases\.sha256: labels case-file bytes e+/,
    );
    expect(check(LABELS, { answers_sha256: ['d'.repeat(64)] })).toThrow(
      /^r\.json: answers_sha256\[0\]: d+ is not one of the answers files/,
    );
    expect(() =>
      reviewQuality(
        [
          asInput(review({ labels: LABELS }), 'r1.json'),
          asInput(review({ labels: LABELS, reviewer: { id: 'r2', kind: 'human', blinded: true } }), 'r2.json'),
        ],
        SMALL,
        SMALL_SHA,
        answered,
      ),
    ).toThrow(
      'r2.json: role: got 2 review(s) and 0 adjudication(s); give one review (a preview), or two reviews and one adjudication',
    );
  });
});

function shippedAnswers(
  text: (item: AnswerCase, repetition: number) => string,
  repetitions = [1, 2, 3],
): GenerationAnswers {
  return {
    schema: 'drb.generation-answers.v1',
    receipt_id: 'receipt-shipped-0001',
    created_at: '2026-12-01T00:00:00Z',
    engine: { name: 'transformers', version: '3.7.6' },
    model_id: 'some-model',
    prompt_set: { id: shipped.id, version: shipped.version, sha256: shippedSha },
    answers: repetitions.flatMap((r) =>
      shipped.cases.map((item) => ({
        prompt_id: item.id,
        repetition: r,
        seed: [17, 29, 41][r - 1],
        text: text(item, r),
        output_tokens: 10,
        truncated: false,
      })),
    ),
  };
}

describe('drb score-answers (CLI)', () => {
  it('scores the shipped set: reference answers score 100, byte-identical reports, every input hashed', async () => {
    const answers = shippedAnswers((item) => item.reference_answer);
    const dir = tempDirWith({ 'cases.json': shippedBytes, 'answers.json': answers });
    const argv = ['score-answers', '--cases', join(dir, 'cases.json'), '--answers', join(dir, 'answers.json')];
    const first = await runCli([...argv, '--output-dir', join(dir, 'one')]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('complete: every case answered in every repetition');
    const second = await runCli([...argv, '--output-dir', join(dir, 'two')]);
    expect(second.code).toBe(0);
    for (const name of ['answer-score.json', 'answer-score.md']) {
      expect(readFileSync(join(dir, 'two', name))).toEqual(readFileSync(join(dir, 'one', name)));
    }
    const report = JSON.parse(readFileSync(join(dir, 'one', 'answer-score.json'), 'utf8'));
    expect(report.inputs.cases).toMatchObject({
      file: 'cases.json',
      sha256: shippedSha,
      bytes: shippedBytes.byteLength,
      cases: shipped.cases.length,
    });
    const answersBytes = readFileSync(join(dir, 'answers.json'));
    expect(report.inputs.answers[0]).toMatchObject({
      file: 'answers.json',
      sha256: createHash('sha256').update(answersBytes).digest('hex'),
      receipt_id: 'receipt-shipped-0001',
    });
    expect(report.complete).toBe(true);
    expect(report.mean).toMatchObject({ repetitions: 3, quality_score: 100, pass_rate: 1, critical_claim_recall: 1 });
    expect(JSON.stringify(report)).not.toMatch(/"text"/);
  });

  it('a changed answer byte changes the answers hash (and the report)', async () => {
    const answers = shippedAnswers((item) => item.reference_answer);
    const text = JSON.stringify(answers);
    const i = text.indexOf('call the emergency number');
    const changed = `${text.slice(0, i)}C${text.slice(i + 1)}`;
    expect(changed).not.toBe(text);
    const dir = tempDirWith({ 'cases.json': shippedBytes, 'a.json': text, 'b.json': changed });
    const run = async (file: string, out: string) => {
      expect(
        (
          await runCli([
            'score-answers',
            '--cases',
            join(dir, 'cases.json'),
            '--answers',
            join(dir, file),
            '--output-dir',
            join(dir, out),
          ])
        ).code,
      ).toBe(0);
      return JSON.parse(readFileSync(join(dir, out, 'answer-score.json'), 'utf8'));
    };
    const a = await run('a.json', 'oa');
    const b = await run('b.json', 'ob');
    expect(a.inputs.answers[0].sha256).not.toBe(b.inputs.answers[0].sha256);
    expect(b.inputs.answers[0].sha256).toBe(createHash('sha256').update(changed).digest('hex'));
    // Case folding makes the capital C match the same claim: the metrics agree, only the hash tells the files apart.
    expect(b.mean).toEqual(a.mean);
  });

  it('refuses bad input with one line and writes nothing', async () => {
    const dir = tempDirWith({
      'cases.json': shippedBytes,
      'other.json': shippedAnswers((item) => item.reference_answer, [1]),
      'not-json.json': '{"schema": "drb.generation-answers.v1",',
      'bidi.json': {
        ...shippedAnswers(() => 'x', [1]),
        answers: [
          {
            prompt_id: shipped.cases[0].id,
            repetition: 1,
            seed: 17,
            text: 'evil \u202e text',
            output_tokens: 1,
            truncated: false,
          },
        ],
      },
    });
    const other = JSON.parse(readFileSync(join(dir, 'other.json'), 'utf8'));
    other.prompt_set.sha256 = '0'.repeat(64);
    writeFileSync(join(dir, 'other.json'), JSON.stringify(other));
    const out = join(dir, 'out');
    for (const [file, message] of [
      [
        'other.json',
        /^error: .*other\.json: prompt_set\.sha256: these answers were generated from prompt-set bytes 0{64}, not from cases\.json/,
      ],
      ['not-json.json', /^error: .*not-json\.json: \$: not valid JSON/],
      ['bidi.json', /^error: .*bidi\.json: answers\[0\]\.text: holds a control or bidirectional-override character/],
    ] as const) {
      const run = await runCli([
        'score-answers',
        '--cases',
        join(dir, 'cases.json'),
        '--answers',
        join(dir, file),
        '--output-dir',
        out,
      ]);
      expect(run.code, file).toBe(2);
      expect(run.stderr.trimEnd().split('\n'), file).toHaveLength(1);
      expect(run.stderr, file).toMatch(message);
      expect(run.stderr).not.toContain('\u202e');
    }
    expect(existsSync(out)).toBe(false);
  });

  it('escapes a hostile model id in the Markdown', async () => {
    const answers = shippedAnswers((item) => item.reference_answer, [1]);
    answers.model_id = 'x\n## Evidence: DEVICE_PASS <img src=x onerror=alert(1)> |a|b|';
    const dir = tempDirWith({ 'cases.json': shippedBytes, 'answers.json': answers });
    const run = await runCli([
      'score-answers',
      '--cases',
      join(dir, 'cases.json'),
      '--answers',
      join(dir, 'answers.json'),
      '--output-dir',
      join(dir, 'out'),
    ]);
    expect(run.code).toBe(0);
    const md = readFileSync(join(dir, 'out', 'answer-score.md'), 'utf8');
    expect(md).not.toMatch(/^## Evidence/m);
    expect(md.split('\n').filter((l) => l.includes('onerror'))).toHaveLength(1);
    expect(md).toContain('`x ## Evidence: DEVICE_PASS <img src=x onerror=alert(1)> |a|b|`');
  });
});
