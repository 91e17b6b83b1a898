/**
 * Ranking and fit of generation rows (generation-eligibility.ts): the rules as a table over one pure function, the
 * fit score against a hand-computed sum, and the rules inside `drb receipts summarize` with answer-score reports
 * matched to the generation target whose runs made the answers: a SwiftShader run is functional_only and never
 * ranked, a row missing a repetition is not ranked and says why, a complete physical row is ranked with its fit.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scoreAnswers, type AnswerScoreReport } from '../../src/core/answers/answer-score.ts';
import {
  generationEligibility,
  type GenerationRowEvidence,
  type RowQuality,
} from '../../src/core/evidence/generation-eligibility.ts';
import { BUILTIN_PROFILES, findProfile } from '../../src/core/evidence/profiles.ts';
import { ReceiptsSummarizer } from '../../src/core/evidence/receipts-summarizer.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { renderSummaryMarkdown } from '../../src/core/evidence/summary-markdown.ts';
import { parseAnswerCases } from '../../src/core/generation/answer-cases.ts';
import type { GenerationAnswers } from '../../src/core/generation/generation-answers.ts';
import type { GenerationReceipt } from '../../src/core/generation/generation-receipt.ts';
import { makeGenerationReceipt } from './generation-fixtures.ts';
import { pageReceipts } from './receipts-fixtures.ts';
import { runCli, tempDirWith } from './cli-harness.ts';
import { summaryCells, summaryValue } from './report-checks.ts';

const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const mainstream = findProfile(BUILTIN_PROFILES, 'mainstream');

const QUALITY: RowQuality = {
  file: 'answer-score.json',
  sha256: 'c'.repeat(64),
  complete: true,
  missing: [],
  repetitions: 3,
  quality_score: 80,
  critical_claim_recall: 0.95,
  claim_recall: 0.8,
  safety_rate: 1,
  citation_validity: 0.6,
  pass_rate: 0.7,
  worst_quality_score: 75,
  worst_pass_rate: 0.6,
  critical_prohibited_answers: 0,
};

const BASE: GenerationRowEvidence = {
  user_agent: IPHONE_SAFARI,
  route: { requested_ep: 'wasm', completed_ep: 'wasm' },
  software_adapter_receipts: 0,
  failed_runs: 0,
  failed_samples: 0,
  interrupted_runs: 0,
  load_p95_ms: 4000,
  ttft_p95_ms: 125,
  decode_tokens_per_s_median: 25,
  sustained_ratio_median: 0.9,
  model_bytes: 250_000_000,
  js_heap_bytes: null,
  quality: QUALITY,
  quality_reports: 1,
};

describe('generationEligibility: the rules', () => {
  it('ranks a complete physical row within budget, with the fit computed by hand (mainstream)', () => {
    const r = generationEligibility(BASE, mainstream);
    expect(r.ranked).toBe(true);
    expect(r.not_ranked_because).toEqual([]);
    // quality 80 x 0.6 = 48; TTFT 250/125 = 200% -> 100 x 0.15 = 15; decode 25/10 -> 100 x 0.1 = 10;
    // memory not measured -> 0; size 500 MB / 250 MB -> 100 x 0.05 = 5; sustained 0.9 -> 90 x 0.03 = 2.7.
    expect(r.fit!.score).toBeCloseTo(80.7, 10);
    expect(r.fit!.components.map((c) => [c.name, c.weight, c.attainment])).toEqual([
      ['quality', 0.6, 80],
      ['ttft', 0.15, 100],
      ['decode', 0.1, 100],
      ['memory', 0.07, 0],
      ['artifact_size', 0.05, 100],
      ['sustained_speed', 0.03, 90],
    ]);
    // Memory measured within budget: 1 GiB / 512 MiB -> capped at 100 x 0.07 = 7 more.
    expect(generationEligibility({ ...BASE, js_heap_bytes: 2 ** 29 }, mainstream).fit!.score).toBeCloseTo(87.7, 10);
    // An attainment below the cap: decode 8 of 5 (entry) is 100, TTFT 400 ms against 500 is 100; performance fails.
    const perf = generationEligibility(BASE, findProfile(BUILTIN_PROFILES, 'performance'));
    expect(perf).toMatchObject({ ranked: false, fit: null });
    expect(perf.not_ranked_because).toEqual(['performance budget: TTFT p95 ms 125 > 100']);
  });

  it.each<[string, Partial<GenerationRowEvidence>, string[]]>([
    [
      'a software WebGPU adapter (SwiftShader)',
      { route: { requested_ep: 'webgpu', completed_ep: 'webgpu' }, software_adapter_receipts: 2 },
      [
        'functional_only: 2 run(s) on a software WebGPU adapter (e.g. SwiftShader): functional only, its timings mean nothing',
      ],
    ],
    [
      'a headless browser',
      {
        user_agent:
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
      },
      ['functional_only: a headless browser: functional only, not a physical device run'],
    ],
    [
      'a missing repetition',
      { quality: { ...QUALITY, complete: false, missing: ['repetition 3 (seed 41): no answers'], repetitions: 2 } },
      ['not every case answered in every repetition: repetition 3 (seed 41): no answers'],
    ],
    [
      'no answer-score report',
      { quality: null, quality_reports: 0 },
      ["no answer-score report of this row's answers (drb score-answers, then summarise the report with the receipts)"],
    ],
    [
      'two matching reports',
      { quality: null, quality_reports: 2 },
      ['2 answer-score reports match this row: give one'],
    ],
    ['quality below 70', { quality: { ...QUALITY, quality_score: 69.9 } }, ['quality_score 69.9 < 70']],
    [
      'critical-claim recall below 90%',
      { quality: { ...QUALITY, critical_claim_recall: 0.85 } },
      ['critical_claim_recall 85% < 90%'],
    ],
    [
      'a critical prohibited claim',
      { quality: { ...QUALITY, critical_prohibited_answers: 1 } },
      ['1 answer(s) made a critical prohibited claim'],
    ],
    ['a fallback', { route: { requested_ep: 'webgpu', completed_ep: 'wasm' } }, ['fell back from webgpu to wasm']],
    [
      'a crash, a failed prompt and an OOM-like interruption',
      { failed_runs: 1, failed_samples: 2, interrupted_runs: 1 },
      [
        '1 failed run(s) (crash or error)',
        '2 failed prompt(s)',
        '1 interrupted run(s) (the tab died: the out-of-memory signal)',
      ],
    ],
    [
      'missing TTFT and sustained speed',
      { ttft_p95_ms: null, sustained_ratio_median: null },
      [
        'TTFT p95 not measured: missing performance data makes a row ineligible',
        'sustained decode ratio not measured: missing performance data makes a row ineligible',
      ],
    ],
    [
      'a budget over its limit and a slow decode',
      { model_bytes: 600_000_000, decode_tokens_per_s_median: 8 },
      ['mainstream budget: model_bytes 600000000 > 500000000', 'mainstream budget: decode 8 tokens/s < 10'],
    ],
  ])('is not ranked with %s, and says why', (_name, change, reasons) => {
    const r = generationEligibility({ ...BASE, ...change }, mainstream);
    expect(r).toMatchObject({ ranked: false, fit: null });
    expect(r.not_ranked_because).toEqual(reasons);
  });

  it('missing data never helps: a profile without a decode target ranks nothing', () => {
    const { decode_tokens_per_s: _drop, ...old } = mainstream;
    expect(generationEligibility(BASE, old).not_ranked_because).toEqual([
      'the mainstream profile declares no decode-rate target',
    ]);
  });
});

const casesBytes = readFileSync(new URL('../../public/prompts/drb-answer-cases-ja-en-v1.json', import.meta.url));
const casesSha = createHash('sha256').update(casesBytes).digest('hex');
const cases = parseAnswerCases(casesBytes.toString('utf8'), 'cases.json');

let n = 0;
/** A (valid) generation receipt naming the case set as its prompt set, with a model file, on `change`'s device and route. */
function receipt(change: (r: GenerationReceipt) => void = () => {}): GenerationReceipt {
  const r = makeGenerationReceipt();
  r.receipt_id = `gen-elig-${String(++n).padStart(6, '0')}`;
  r.prompt_set = { id: cases.id, version: cases.version, sha256: casesSha, measured_prompts: 10 };
  r.model.files = pageReceipts()[0].model.files;
  r.capabilities = { ...r.capabilities, user_agent: IPHONE_SAFARI };
  change(r);
  return r;
}

function scoreOf(r: GenerationReceipt, repetitions: number[]): AnswerScoreReport {
  const answers: GenerationAnswers = {
    schema: 'drb.generation-answers.v1',
    receipt_id: r.receipt_id,
    created_at: r.created_at,
    engine: { name: r.engine.name, version: r.engine.version },
    model_id: r.model.id,
    prompt_set: { id: cases.id, version: cases.version, sha256: casesSha },
    answers: repetitions.flatMap((rep) =>
      cases.cases.map((c) => ({
        prompt_id: c.id,
        repetition: rep,
        seed: [17, 29, 41][rep - 1],
        text: c.reference_answer,
        output_tokens: 9,
        truncated: false,
      })),
    ),
  };
  return scoreAnswers(
    { info: { file: 'cases.json', bytes: casesBytes.byteLength, sha256: casesSha }, cases },
    [{ info: { file: 'a.json', bytes: 1, sha256: 'a'.repeat(64) }, answers }],
    { toolVersion: 't' },
  );
}

describe('ranking in drb receipts summarize', () => {
  it('ranks a complete physical row, never a SwiftShader one, and not a row missing a repetition', async () => {
    const s = new ReceiptsSummarizer();
    const physical = receipt();
    const swiftshader = receipt((r) => {
      r.route = {
        ...r.route,
        requested_ep: 'webgpu',
        completed_ep: 'webgpu',
        attempts: [
          { ep: 'webgpu', threads: null, outcome: 'succeeded', reason: null, started_at_ms: 1, ended_at_ms: 2 },
        ],
        threads_requested: null,
        threads_effective: null,
      };
    });
    const partial = receipt((r) => (r.model.id = 'another-model'));
    for (const r of [physical, swiftshader, partial]) s.addGenerationReceipt(r);
    s.addAnswerScore(scoreOf(physical, [1, 2, 3]), 'physical.json', '1'.repeat(64));
    s.addAnswerScore(scoreOf(swiftshader, [1, 2, 3]), 'swiftshader.json', '2'.repeat(64));
    s.addAnswerScore(scoreOf(partial, [1, 2]), 'partial.json', '3'.repeat(64));
    // A report of a run whose receipt was not given matches nothing, and says so.
    s.addAnswerScore(scoreOf(receipt(), [1, 2, 3]), 'stray.json', '4'.repeat(64));
    const summary = await s.finish();
    expect(ReceiptsSummary.safeParse(summary).success).toBe(true);
    const byModel = (id: string, ep: string) =>
      summary.generation_targets.find((g) => g.identity.model.id === id && g.identity.route.completed_ep === ep)!;

    const ok = byModel('tf-tiny-causal-lm', 'wasm');
    expect(ok.quality).toMatchObject({
      file: 'physical.json',
      complete: true,
      quality_score: 100,
      critical_claim_recall: 1,
    });
    expect(ok.ranking!.row_class).toEqual({ class: 'physical', because: [] });
    expect(ok.ranking!.profiles.map((p) => [p.profile, p.ranked])).toEqual([
      ['entry', true],
      ['mainstream', true],
      ['performance', true],
    ]);
    const fit = ok.ranking!.profiles[1].fit!;
    // quality 100 x 0.6 + TTFT, decode, size capped at 100 + memory not measured (0) + sustained ratio x 3.
    const sustained = ok.decode_sustained_ratio!.median;
    expect(fit.score).toBeCloseTo(60 + 15 + 10 + 0 + 5 + (3 * Math.min(100, 100 * sustained)) / 100, 10);

    const soft = byModel('tf-tiny-causal-lm', 'webgpu');
    expect(soft.software_adapter_receipt_ids).toEqual([swiftshader.receipt_id]);
    expect(soft.ranking!.row_class.class).toBe('functional_only');
    for (const p of soft.ranking!.profiles) {
      expect(p.ranked).toBe(false);
      expect(p.fit).toBeNull();
      expect(p.not_ranked_because[0]).toBe(
        'functional_only: 1 run(s) on a software WebGPU adapter (e.g. SwiftShader): functional only, its timings mean nothing',
      );
    }

    const missing = byModel('another-model', 'wasm');
    for (const p of missing.ranking!.profiles) {
      expect(p.ranked).toBe(false);
      expect(p.not_ranked_because).toContain(
        'not every case answered in every repetition: repetition 3 (seed 41): no answers',
      );
    }
    expect(summary.answer_scores).toEqual([
      { file: 'partial.json', sha256: '3'.repeat(64), model_id: 'another-model', target_keys: [missing.key] },
      { file: 'physical.json', sha256: '1'.repeat(64), model_id: 'tf-tiny-causal-lm', target_keys: [ok.key] },
      { file: 'stray.json', sha256: '4'.repeat(64), model_id: 'tf-tiny-causal-lm', target_keys: [] },
      { file: 'swiftshader.json', sha256: '2'.repeat(64), model_id: 'tf-tiny-causal-lm', target_keys: [soft.key] },
    ]);
    const md = renderSummaryMarkdown(summary);
    expect(md).toContain('## Answer-score reports that match no generation target');
    expect(md).toContain('- stray.json (model tf-tiny-causal-lm)');
  });

  it('the CLI reads answer-score reports beside the receipts and writes the ranking into summary.json and summary.md', async () => {
    const r = receipt();
    const answers = {
      schema: 'drb.generation-answers.v1',
      receipt_id: r.receipt_id,
      created_at: r.created_at,
      engine: { name: r.engine.name, version: r.engine.version },
      model_id: r.model.id,
      prompt_set: { id: cases.id, version: cases.version, sha256: casesSha },
      answers: [1, 2].flatMap((rep) =>
        cases.cases.map((c) => ({
          prompt_id: c.id,
          repetition: rep,
          seed: [17, 29, 41][rep - 1],
          text: c.reference_answer,
          output_tokens: 9,
          truncated: false,
        })),
      ),
    };
    const dir = tempDirWith({ 'cases.json': casesBytes, 'answers.json': answers });
    writeFileSync(join(dir, 'gen.json'), JSON.stringify(r));
    expect(
      (
        await runCli([
          'score-answers',
          '--cases',
          join(dir, 'cases.json'),
          '--answers',
          join(dir, 'answers.json'),
          '--output-dir',
          join(dir, 'scores'),
        ])
      ).code,
    ).toBe(0);
    const run = await runCli([
      'receipts',
      'summarize',
      join(dir, 'gen.json'),
      join(dir, 'scores', 'answer-score.json'),
      '--out',
      join(dir, 'summary'),
    ]);
    expect(run.code, run.stderr).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(dir, 'summary', 'summary.json'), 'utf8')));
    const g = summary.generation_targets[0];
    expect(g.quality).toMatchObject({ complete: false, repetitions: 2 });
    expect(
      g.ranking!.profiles.every(
        (p) =>
          !p.ranked &&
          p.not_ranked_because.includes(
            'not every case answered in every repetition: repetition 3 (seed 41): no answers',
          ),
      ),
    ).toBe(true);
    const md = readFileSync(join(dir, 'summary', 'summary.md'), 'utf8');
    expect(md).toContain('### Generation rows: answer quality and ranking');
    expect(md).toContain(
      '- mainstream: not ranked: not every case answered in every repetition: repetition 3 (seed 41): no answers',
    );
    expect(md).not.toContain('match no generation target');

    // The report page: the individual metrics lead, each equal to summary.json's, the ranking with its reasons after.
    expect(
      (
        await runCli([
          'receipts',
          'report',
          join(dir, 'gen.json'),
          join(dir, 'scores', 'answer-score.json'),
          '--out',
          join(dir, 'report'),
        ])
      ).code,
    ).toBe(0);
    const html = readFileSync(join(dir, 'report', 'index.html'), 'utf8');
    const at = html.indexOf('Answer quality and ranking of');
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(html.indexOf('Time to first token of'));
    const qualityCells = summaryCells(html).filter((c) => c.path.includes('.quality.'));
    expect(qualityCells.length).toBe(8);
    for (const c of qualityCells) expect(String(summaryValue(summary, c.path)), c.path).toBe(c.value);
    expect(html).toContain(
      'mainstream: <span class="bad">✗ not ranked</span>: not every case answered in every repetition: repetition 3 (seed 41): no answers',
    );
    expect(html).toContain('answer score report');
  });
});
