/**
 * The cross-field rules of an answer score report (`drb.answer-score.v1`,
 * src/core/answers/answer-score-invariants.ts): reports the real `drb score-answers` writes keep them (complete and
 * incomplete, good and poor answers); each edit that would raise a generation row's rank is refused, and
 * `drb receipts validate` refuses such a file with one line naming the field.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AnswerScoreReport } from '../../src/core/answers/answer-score.ts';
import { checkAnswerScoreReport } from '../../src/core/answers/answer-score-invariants.ts';
import { parseAnswerCases, type AnswerCase } from '../../src/core/generation/answer-cases.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { displayPath } from '../../src/cli/receipt-files.ts';
import { buildReceipt } from './receipts-builder.ts';
import { runCli, tempDirWith } from './cli-harness.ts';

const SHIPPED = readFileSync(new URL('../../public/prompts/drb-answer-cases-ja-en-v1.json', import.meta.url));
const SHIPPED_SHA = createHash('sha256').update(SHIPPED).digest('hex');
const shipped = parseAnswerCases(SHIPPED.toString('utf8'), 'drb-answer-cases-ja-en-v1.json');

function answers(text: (item: AnswerCase, repetition: number) => string | null, repetitions: number[]) {
  return {
    schema: 'drb.generation-answers.v1',
    receipt_id: 'receipt-invariants-0001',
    created_at: '2026-12-01T00:00:00Z',
    engine: { name: 'transformers', version: '3.7.6' },
    model_id: 'some-model',
    prompt_set: { id: shipped.id, version: shipped.version, sha256: SHIPPED_SHA },
    answers: repetitions.flatMap((r) =>
      shipped.cases.flatMap((item) => {
        const t = text(item, r);
        return t === null
          ? []
          : [
              {
                prompt_id: item.id,
                repetition: r,
                seed: [17, 29, 41][r - 1],
                text: t,
                output_tokens: 10,
                truncated: false,
              },
            ];
      }),
    ),
  };
}

/** A real report from `drb score-answers`, and the folder it is in. */
async function scored(
  text: (item: AnswerCase, repetition: number) => string | null,
  repetitions = [1, 2, 3],
): Promise<{ dir: string; file: string; report: AnswerScoreReport }> {
  const dir = tempDirWith({ 'cases.json': SHIPPED, 'answers.json': answers(text, repetitions) });
  const run = await runCli([
    'score-answers',
    '--cases',
    join(dir, 'cases.json'),
    '--answers',
    join(dir, 'answers.json'),
    '--output-dir',
    join(dir, 'out'),
  ]);
  expect(run.code, run.stderr).toBe(0);
  const file = join(dir, 'out', 'answer-score.json');
  return { dir, file, report: AnswerScoreReport.parse(JSON.parse(readFileSync(file, 'utf8'))) };
}

// Mixed quality: the reference answer in repetition 1, half of it in 2, nothing useful in 3 (and a case left out).
const mixed = (item: AnswerCase, r: number) =>
  r === 1
    ? item.reference_answer
    : r === 2
      ? item.reference_answer.slice(0, Math.ceil(item.reference_answer.length / 2))
      : item.id === shipped.cases[0].id
        ? null
        : 'I do not know.';

describe('checkAnswerScoreReport', () => {
  it('finds nothing in reports drb score-answers writes (complete, incomplete, good and poor)', async () => {
    for (const [text, reps] of [
      [(item: AnswerCase) => item.reference_answer, [1, 2, 3]],
      [mixed, [1, 2, 3]],
      [mixed, [2, 3]],
    ] as const) {
      const { report } = await scored(text, [...reps]);
      expect(checkAnswerScoreReport(report)).toEqual([]);
    }
  });

  it.each<[string, (r: AnswerScoreReport) => void, string]>([
    ['a mean quality score raised', (r) => (r.mean!.quality_score = 95), 'mean.quality_score'],
    ['a mean pass rate raised', (r) => (r.mean!.pass_rate = 1), 'mean.pass_rate'],
    [
      'a repetition quality score raised',
      (r) => (r.repetitions[2].metrics.quality_score = 90),
      'repetitions[2].metrics',
    ],
    ['a case decision dropped', (r) => r.repetitions[0].cases.pop(), 'repetitions[0].cases'],
    [
      'the worst repetition swapped for the best',
      (r) => {
        const best = r.repetitions[0];
        r.worst = { repetition: best.repetition, seed: best.seed, metrics: best.metrics };
      },
      'worst',
    ],
    ['the quality weights changed', (r) => (r.quality_weights.safety_rate = 0.5), 'quality_weights.safety_rate'],
    ['an incomplete run called complete', (r) => (r.complete = true), 'complete'],
  ])('refuses %s', async (_what, edit, path) => {
    const { report } = await scored(mixed);
    edit(report);
    const problems = checkAnswerScoreReport(report);
    expect(
      problems.some((p) => p.path.startsWith(path)),
      JSON.stringify(problems),
    ).toBe(true);
  });

  it('drb receipts validate refuses an edited report with one line naming the field', async () => {
    const { file, report } = await scored(mixed);
    const edited = structuredClone(report);
    edited.mean!.quality_score = 95;
    writeFileSync(file, JSON.stringify(edited, null, 2));
    const run = await runCli(['receipts', 'validate', file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/answer-score\.json: mean\.quality_score: is 95, but the repetitions give [\d.]+\n$/);
  });

  it('drb receipts summarize lists an edited report as invalid instead of ranking it or dropping it silently', async () => {
    const { dir, file, report } = await scored(mixed);
    const edited = structuredClone(report);
    edited.mean!.quality_score = 95;
    writeFileSync(file, JSON.stringify(edited, null, 2));
    writeFileSync(join(dir, 'out', 'cold.json'), JSON.stringify(buildReceipt({ kind: 'cold' })));
    const run = await runCli(['receipts', 'summarize', join(dir, 'out'), '--out', join(dir, 'summary')]);
    expect(run.code, run.stderr).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(dir, 'summary', 'summary.json'), 'utf8')));
    expect(summary.invalid).toContainEqual({
      file: displayPath(file),
      problems: 1,
      first_problem: expect.stringMatching(/^mean\.quality_score: is 95, but the repetitions give /),
    });
    expect(summary.not_receipts.map((n) => n.file)).not.toContain(displayPath(file));
  });
});
