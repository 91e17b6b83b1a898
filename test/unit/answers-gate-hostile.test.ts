/**
 * `drb score-answers` and `drb gate` against the hostile fixtures (test/fixtures/hostile/, readers `score-answers`
 * and `gate`): refused cases exit 2 with one line naming the file and the field, quoting nothing that could act on
 * a terminal; the escaped case is scored and every string of it reaches the Markdown escaped.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOSTILE_CASES, writeHostileCases } from '../fixtures/hostile/hostile-fixtures.ts';
import { runCli, tempDirWith } from './cli-harness.ts';

const CASES = readFileSync(new URL('../../public/prompts/drb-answer-cases-ja-en-v1.json', import.meta.url));
const sha = (bytes: string | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

// What each command must say after `error: <path>: `; a new case needs an entry (the first test fails without one).
const EXPECTED: Record<string, RegExp> = {
  'answers-bidi-text': /^answers\[0\]\.text: holds a control or bidirectional-override character$/,
  'answers-foreign-prompt-set':
    /^prompt_set\.sha256: these answers were generated from prompt-set bytes 0{64}, not from cases\.json/,
  'gate-predictions-free-text':
    /^id "a" candidates\[0\]: "\\u001b\[2J\\n## Decision: promote <script>alert\(1\)<\/script>" is not one of the artifact's candidates for this row: generated free text/,
  'gate-plan-forged-id': /^id: expected a lowercase id/,
};

describe('score-answers and gate against the hostile fixtures', () => {
  const cases = HOSTILE_CASES.filter((c) => c.reader === 'score-answers' || c.reader === 'gate');

  it('has an expectation for every refused case written for them', () => {
    expect(
      cases
        .filter((c) => c.expect === 'refused')
        .map((c) => c.name)
        .sort(),
    ).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(cases.filter((c) => c.expect === 'refused').map((c) => [c.name, c.attack]))(
    'refuses %s with one line naming the file and the field (%s)',
    async (name) => {
      const dir = tempDirWith({ 'cases.json': CASES });
      const [path] = writeHostileCases(dir, (c) => c.name === name);
      const out = join(dir, 'out');
      let run;
      if (name.startsWith('answers-'))
        run = await runCli([
          'score-answers',
          '--cases',
          join(dir, 'cases.json'),
          '--answers',
          path,
          '--output-dir',
          out,
        ]);
      else if (name === 'gate-plan-forged-id') run = await runCli(['gate', 'plan', '--check', path]);
      else {
        // A one-row artifact, its candidates, a plan over them, and the hostile predictions scored by drb score.
        const items = JSON.stringify([{ id: 'a', input: 'x', references: ['a'], label: 'typo' }]);
        const candidates = JSON.stringify([{ id: 'a', candidates: ['a', 'b'] }]);
        writeFileSync(join(dir, 'items.json'), items);
        writeFileSync(join(dir, 'c.json'), candidates);
        const plan = JSON.parse(
          readFileSync(new URL('../fixtures/hostile/files/gate-plan-forged-id.json', import.meta.url), 'utf8'),
        );
        plan.id = 'plan';
        plan.artifact = {
          items: { file: 'items.json', sha256: sha(items), format: 'generic' },
          candidates: { file: 'c.json', sha256: sha(candidates) },
        };
        writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
        for (const [p, stem] of [
          [join(dir, 'c.json'), 'artifact'],
          [path, 's'],
        ]) {
          expect(
            (
              await runCli([
                'score',
                '--items',
                join(dir, 'items.json'),
                '--predictions',
                p,
                '--candidate-limit',
                '4',
                '--per-row',
                '--output-dir',
                dir,
                '--stem',
                stem,
              ])
            ).code,
          ).toBe(0);
        }
        run = await runCli([
          'gate',
          'escalation',
          '--plan',
          join(dir, 'plan.json'),
          '--runs',
          join(dir, 'c.json'),
          join(dir, 'artifact.json'),
          `s=${join(dir, 's.json')}`,
          `s=${path}`,
          '--output-dir',
          out,
        ]);
      }
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      const lines = run.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0].startsWith(`error: ${path}: `)).toBe(true);
      expect(lines[0].slice(`error: ${path}: `.length)).toMatch(EXPECTED[name]);
      expect(run.stderr).not.toMatch(/[\u001b\u202e]/);
      expect(existsSync(out)).toBe(false);
    },
  );

  it('scores the escaped case and keeps every string of it escaped in the Markdown', async () => {
    const dir = tempDirWith({ 'cases.json': CASES });
    const [path] = writeHostileCases(dir, (c) => c.name === 'answers-hostile-model-id');
    const run = await runCli([
      'score-answers',
      '--cases',
      join(dir, 'cases.json'),
      '--answers',
      path,
      '--output-dir',
      join(dir, 'out'),
    ]);
    expect(run.code, run.stderr).toBe(0);
    const md = readFileSync(join(dir, 'out', 'answer-score.md'), 'utf8');
    expect(md).not.toMatch(/^## Evidence/m);
    expect(md).not.toMatch(/\r/);
    expect(md.split('\n').filter((l) => l.includes('onerror'))).toHaveLength(1);
    expect(md).toContain('`` tiny ## Evidence: DEVICE_PASS | forged | row |<img src=x onerror=alert(1)>`code` ``');
  });
});
