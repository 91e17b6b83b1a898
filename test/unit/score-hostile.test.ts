import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOSTILE_CASES, writeHostileCases } from '../fixtures/hostile/hostile-fixtures.ts';
import { runCli, tempDirWith } from './cli-harness.ts';

// What drb score must say about each hostile case for the scorer (after `error: <path>: `). A new case must be
// added here too: the test fails for a case it has no expectation for.
const EXPECTED: Record<string, RegExp> = {
  'score-items-overlong-utf8': /^byte 20: not valid UTF-8$/,
  'score-items-raw-control': /^\$: not valid JSON \(syntax error at line 1, column 21\)$/,
  'score-items-bom-twice': /^\$: not valid JSON \(syntax error\)$/,
  'score-predictions-infinite-margin': /^id "a" margin: must be a finite number, got Infinity$/,
  'score-predictions-deep-nesting': /^id "a" candidates\[0\]: .*expected string/,
  'score-predictions-proto-key': /^id "a": .*__proto__/,
  'score-predictions-key-twice': /^id "zz": names no item row in .*items\.json$/,
};

// Cases written for other readers whose bytes are no valid artifact of any kind: the scorer refuses them as items
// and as predictions alike.
const FOREIGN: Record<string, RegExp> = {
  'not-json': /^\$: not valid JSON \(syntax error\)$/,
  'invalid-utf8': /^byte 39: not valid UTF-8$/,
};

async function score(items: string, predictions: string, outputDir: string) {
  return runCli(['score', '--items', items, '--predictions', predictions, '--output-dir', outputDir]);
}

describe('drb score against the hostile fixtures', () => {
  const scoreCases = HOSTILE_CASES.filter((c) => c.reader === 'score');

  it('has an expectation for every case written for it', () => {
    expect(scoreCases.map((c) => c.name).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(scoreCases.map((c) => [c.name, c.attack]))(
    'refuses %s with one line naming the file, quoting none of it (%s)',
    async (name) => {
      const dir = tempDirWith({ 'items.json': [{ id: 'a', input: 'x', references: ['x'] }], 'p.json': [] });
      const [path] = writeHostileCases(dir, (c) => c.name === name);
      const out = join(dir, 'out');
      const run = name.startsWith('score-items')
        ? await score(path, join(dir, 'p.json'), out)
        : await score(join(dir, 'items.json'), path, out);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      const lines = run.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0].startsWith(`error: ${path}: `)).toBe(true);
      expect(lines[0].slice(`error: ${path}: `.length)).toMatch(EXPECTED[name]);
      expect(run.stderr).not.toMatch(/\u001b|DEVICE_PASS/);
      expect(existsSync(out)).toBe(false);
    },
  );

  it.each(Object.keys(FOREIGN))('refuses the %s case as items and as predictions', async (name) => {
    const dir = tempDirWith({ 'items.json': [{ id: 'a', input: 'x', references: ['x'] }], 'p.json': [] });
    const [path] = writeHostileCases(dir, (c) => c.name === name);
    const out = join(dir, 'out');
    for (const run of [await score(path, join(dir, 'p.json'), out), await score(join(dir, 'items.json'), path, out)]) {
      expect(run.code).toBe(2);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr.trimEnd().slice(`error: ${path}: `.length)).toMatch(FOREIGN[name]);
      expect(run.stderr).not.toMatch(/\u001b|DEVICE_PASS|hello/);
      expect(existsSync(out)).toBe(false);
    }
  });
});
