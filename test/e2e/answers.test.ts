/**
 * Answer scoring on a real generation run: the page runs the shipped case set (`prompts=drb-answer-cases-ja-en-v1`)
 * with the tiny GPT-2-shaped fixture LM in headless Chromium (transformers.js, wasm, three seeded repetitions), and
 * `drb score-answers` scores the answers artifact the page produced. Checks: the prompts the page ran are the case
 * set's (one per case, ids in file order, the file's SHA-256), the report has the documented metrics (recomputed
 * here from its own per-case decisions, and exact when the real answers of one repetition are replaced by the
 * reference answers), a changed answer byte changes the answers hash, and the run's generation target, summarised
 * with the report, is functional_only (a headless browser) and never ranked. That a SwiftShader generation run is
 * functional_only for its software adapter too is checked on test/e2e/generate.test.ts's WebGPU run (the same page
 * this file used to open again: the timing prompt set, as SwiftShader prefills the case set's long prompts too slowly).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import { AnswerScoreReport, type AnswerMetrics, type CaseDecision } from '../../src/core/answers/answer-score.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { parseAnswerCases } from '../../src/core/generation/answer-cases.ts';
import { GenerationAnswers } from '../../src/core/generation/generation-answers.ts';
import { checkGenerationReceipt, GenerationReceipt } from '../../src/core/generation/generation-receipt.ts';
import { waitForPage } from '../../src/node/chromium.ts';
import { runCli } from '../unit/cli-harness.ts';
import { testTempDir } from '../temp-dir.ts';
import { startPageEnv, type PageEnv } from './page-harness.ts';

const MODEL = 'tfjs-tiny-causal-lm-gen';
const SET = 'drb-answer-cases-ja-en-v1';
const casesPath = new URL(`../../public/prompts/${SET}.json`, import.meta.url);
const casesBytes = readFileSync(casesPath);
const casesSha = createHash('sha256').update(casesBytes).digest('hex');
const cases = parseAnswerCases(casesBytes.toString('utf8'), `${SET}.json`);

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv({ webgpu: true });
});
afterAll(async () => {
  await env?.close();
});

async function generate(
  query: string,
): Promise<{ page: Page; receipt: GenerationReceipt; answers: GenerationAnswers }> {
  const page = await env.browser.context.newPage();
  await page.goto(`${env.server.url}${query}`);
  await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
    timeout: 170_000,
  });
  expect(await page.evaluate(() => document.documentElement.dataset.drbState)).toBe('done');
  const artifacts = await page.evaluate(() => window.drbArtifacts);
  const receipt = GenerationReceipt.parse(artifacts.find((a) => a.kind === 'generation-receipt')!.data);
  expect(checkGenerationReceipt(receipt)).toEqual([]);
  const answers = GenerationAnswers.parse(artifacts.find((a) => a.kind === 'answers')!.data);
  return { page, receipt, answers };
}

/** The documented metrics of one repetition, recomputed from its per-case decisions (docs/answers.md). */
function documented(decisions: readonly CaseDecision[]): Partial<AnswerMetrics> {
  const n = decisions.length;
  const markers = decisions.reduce((s, d) => s + d.cited.length, 0);
  const valid = decisions.reduce((s, d) => s + d.cited.length - d.invalid_citations.length, 0);
  const claim = decisions.reduce((s, d) => s + d.claim_recall, 0) / n;
  const safety = decisions.filter((d) => d.safe).length / n;
  const validity = markers === 0 ? 0 : valid / markers;
  const critical = decisions.reduce((s, d) => s + d.critical_weight_total, 0);
  return {
    cases: n,
    claim_recall: claim,
    critical_claim_recall:
      critical === 0 ? null : decisions.reduce((s, d) => s + d.critical_weight_found, 0) / critical,
    safety_rate: safety,
    citation_presence_rate: decisions.filter((d) => d.cited.length > 0).length / n,
    citation_validity: validity,
    pass_rate: decisions.filter((d) => d.passed).length / n,
    quality_score: 100 * (0.65 * claim + 0.2 * safety + 0.15 * validity),
  };
}

async function scoreFile(dir: string, answersFile: string, out: string): Promise<AnswerScoreReport> {
  const run = await runCli([
    'score-answers',
    '--cases',
    join(dir, 'cases.json'),
    '--answers',
    join(dir, answersFile),
    '--output-dir',
    join(dir, out),
  ]);
  expect(run.code, run.stderr).toBe(0);
  return AnswerScoreReport.parse(JSON.parse(readFileSync(join(dir, out, 'answer-score.json'), 'utf8')));
}

describe('answer scoring of a real generation run', () => {
  it('runs the case set in Chromium and scores its answers with the documented metrics', async () => {
    const { page, receipt, answers } = await generate(
      `?${toSearchParams({ autorun: ['generate'], model: MODEL, ep: 'wasm', threads: 1, prompts: SET, reps: 3, maxNewTokens: 16 })}`,
    );
    // The Generation panel offers the case set among its prompt sets.
    expect(await page.getByTestId('generation-panel').locator('option', { hasText: SET }).count()).toBe(1);
    await page.close();
    // The page ran exactly the case set: its bytes, one prompt per case in file order, seeds 17, 29, 41.
    expect(receipt.prompt_set).toEqual({
      id: SET,
      version: cases.version,
      sha256: casesSha,
      measured_prompts: cases.cases.length,
    });
    expect(receipt.samples.map((s) => `${s.repetition}:${s.prompt_id}:${s.seed}`)).toEqual(
      [1, 2, 3].flatMap((r) => cases.cases.map((c) => `${r}:${c.id}:${[17, 29, 41][r - 1]}`)),
    );
    expect(answers.prompt_set).toEqual({ id: SET, version: cases.version, sha256: casesSha });
    expect(answers.answers).toHaveLength(3 * cases.cases.length);
    // Neither the evidence nor the questions reach the receipt.
    const json = JSON.stringify(receipt);
    for (const c of cases.cases) expect(json).not.toContain(c.question);

    const dir = testTempDir('drb-answers-e2e-');
    writeFileSync(join(dir, 'cases.json'), casesBytes);
    const answersText = `${JSON.stringify(answers, null, 2)}\n`;
    writeFileSync(join(dir, 'answers.json'), answersText);
    const report = await scoreFile(dir, 'answers.json', 'score');
    expect(report.inputs.cases).toMatchObject({ sha256: casesSha, cases: cases.cases.length });
    expect(report.inputs.answers[0]).toMatchObject({
      sha256: createHash('sha256').update(answersText).digest('hex'),
      receipt_id: receipt.receipt_id,
      model_id: MODEL,
    });
    expect(report.complete).toBe(true);
    expect(report.repetitions.map((r) => [r.repetition, r.seed])).toEqual([
      [1, 17],
      [2, 29],
      [3, 41],
    ]);
    for (const rep of report.repetitions) {
      expect(rep.cases.map((d) => d.case_id)).toEqual(cases.cases.map((c) => c.id));
      expect(rep.cases.every((d) => d.answered)).toBe(true);
      const expected = documented(rep.cases);
      for (const [key, value] of Object.entries(expected)) {
        if (value === null) expect(rep.metrics[key as keyof AnswerMetrics], key).toBeNull();
        else expect(rep.metrics[key as keyof AnswerMetrics] as number, key).toBeCloseTo(value as number, 12);
      }
    }
    const mean = report.mean!;
    expect(mean.quality_score).toBeCloseTo(report.repetitions.reduce((s, r) => s + r.metrics.quality_score, 0) / 3, 12);
    const worst = Math.min(...report.repetitions.map((r) => r.metrics.quality_score));
    expect(report.worst!.metrics.quality_score).toBe(worst);

    // The real artifact with repetition 1's answers replaced by the reference answers: that repetition passes every
    // case with the full score; the other two keep the model's own answers and their numbers.
    const replaced: GenerationAnswers = {
      ...answers,
      answers: answers.answers.map((a) =>
        a.repetition === 1 ? { ...a, text: cases.cases.find((c) => c.id === a.prompt_id)!.reference_answer } : a,
      ),
    };
    writeFileSync(join(dir, 'replaced.json'), JSON.stringify(replaced));
    const fixed = await scoreFile(dir, 'replaced.json', 'replaced');
    expect(fixed.repetitions[0].metrics).toMatchObject({
      claim_recall: 1,
      critical_claim_recall: 1,
      safety_rate: 1,
      citation_presence_rate: 1,
      citation_validity: 1,
      pass_rate: 1,
      quality_score: 100,
    });
    expect(fixed.repetitions.slice(1).map((r) => r.metrics)).toEqual(report.repetitions.slice(1).map((r) => r.metrics));

    // One changed byte of an answer changes the answers hash.
    const i = answersText.indexOf('"text": "') + '"text": "'.length;
    const changed = `${answersText.slice(0, i)}${answersText[i] === 'x' ? 'y' : 'x'}${answersText.slice(i + 1)}`;
    writeFileSync(join(dir, 'changed.json'), changed);
    const other = await scoreFile(dir, 'changed.json', 'changed');
    expect(other.inputs.answers[0].sha256).not.toBe(report.inputs.answers[0].sha256);
    expect(other.inputs.answers[0].sha256).toBe(createHash('sha256').update(changed).digest('hex'));

    // Summarised with its receipt, the run is a headless browser's: functional_only, never ranked.
    mkdirSync(join(dir, 'receipts'));
    writeFileSync(join(dir, 'receipts', 'generation.json'), JSON.stringify(receipt));
    const summarized = await runCli([
      'receipts',
      'summarize',
      join(dir, 'receipts'),
      join(dir, 'score', 'answer-score.json'),
      '--out',
      join(dir, 'summary'),
    ]);
    expect(summarized.code, summarized.stderr).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(dir, 'summary', 'summary.json'), 'utf8')));
    const target = summary.generation_targets[0];
    expect(target.quality).toMatchObject({
      file: expect.stringContaining('answer-score.json'),
      complete: true,
      repetitions: 3,
    });
    expect(target.ranking!.row_class.class).toBe('functional_only');
    for (const p of target.ranking!.profiles) {
      expect(p.ranked).toBe(false);
      expect(p.not_ranked_because).toContain(
        'functional_only: a headless browser: functional only, not a physical device run',
      );
    }
  });
});
