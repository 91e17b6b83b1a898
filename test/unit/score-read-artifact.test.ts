import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/cli-error.ts';
import { openArtifact, readArtifact } from '../../src/cli/report-output.ts';
import { checkArtifactSize, MAX_ARTIFACT_BYTES } from '../../src/core/artifacts/artifact-error.ts';
import { parsePredictions } from '../../src/core/artifacts/predictions.ts';
import { buildScoreReport } from '../../src/core/scoring/score-run.ts';
import { runCli, tempDirWith } from './cli-harness.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected an error');
}

describe('readArtifact (the CLI reads each input once, hashing as it reads)', () => {
  it('gives the file bytes and the SHA-256 of exactly those bytes, across several read chunks', () => {
    const content = new Uint8Array(3 * (1 << 20) + 12345).map((_, i) => (i * 7919) & 0xff);
    const dir = tempDirWith({ 'big.bin': content, 'empty.json': '' });
    const read = readArtifact(join(dir, 'big.bin'));
    expect(Buffer.from(read.bytes).equals(Buffer.from(content))).toBe(true);
    expect(read.sha256).toBe(sha256(content));
    expect(read.reportName).toBe('big.bin');
    const empty = readArtifact(join(dir, 'empty.json'));
    expect(empty.bytes.length).toBe(0);
    expect(empty.sha256).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('reads a file that reports no size (as pipes and /proc files do) to its end', () => {
    expect(statSync('/proc/self/mountinfo').size).toBe(0);
    const read = readArtifact('/proc/self/mountinfo');
    expect(read.bytes.length).toBeGreaterThan(0);
    expect(read.sha256).toBe(sha256(read.bytes));
    expect(textLines(read.bytes)[0]).toBe(textLines(readFileSync('/proc/self/mountinfo'))[0]);
  });

  it('refuses a file over the limit before reading it, and a sizeless one once it passes the limit', () => {
    const dir = tempDirWith({ 'p.json': '[{"id":"a","candidates":[]}]' });
    const error = (() => {
      try {
        readArtifact(join(dir, 'p.json'), 10);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toBe(
      `${join(dir, 'p.json')}: $: too large to read: 28 bytes, over the limit of 10 bytes (the longest string JavaScript can hold)`,
    );
    expect(messageOf(() => readArtifact('/proc/self/mountinfo', 10))).toBe(
      '/proc/self/mountinfo: $: too large to read: over the limit of 10 bytes (the longest string JavaScript can hold)',
    );
  });

  it('says which file cannot be read and why', () => {
    const dir = tempDirWith({});
    expect(messageOf(() => readArtifact(join(dir, 'missing.json')))).toBe(
      `${join(dir, 'missing.json')}: $: cannot read the file (ENOENT)`,
    );
    expect(messageOf(() => readArtifact(dir))).toBe(`${dir}: $: cannot read the file (EISDIR)`);
  });
});

describe('openArtifact (predictions read in pieces as they are scored)', () => {
  it('scores a file of many windows exactly as the same bytes held whole, escapes and all, with the same hash', async () => {
    const items = [];
    const predictions = [];
    for (let r = 0; r < 9000; r++) {
      items.push({
        id: `row-${r}`,
        input: 'かなカナ'.repeat(1 + (r % 5)),
        references: ['漢字𠮷', `ref "${r}"`],
        label: r % 7 === 0 ? 'clean' : 'typo',
      });
      if (r % 7 === 0) items[r].input = '漢字𠮷';
      predictions.push({
        id: `row-${r}`,
        candidates: [`ref "${r}"`, '漢字\u{20bb7}', 'x'.repeat(r % 300)],
        reason: r % 3 === 0 ? 'quote "q"' : 'accepted',
        margin: r / 7,
      });
    }
    // Unicode escapes in some rows (as other tools write them), so rows cut by the window also hold escapes.
    let seen = 0;
    const predictionsText = JSON.stringify(predictions).replaceAll('漢', (match) =>
      seen++ % 3 === 0 ? '\\u6f22' : match,
    );
    const dir = tempDirWith({ 'items.json': items, 'p.json': predictionsText });
    expect(statSync(join(dir, 'p.json')).size).toBeGreaterThan(2 * (1 << 20)); // more than two windows
    const options = { format: 'generic' as const, candidateLimit: 2, declared: {}, toolVersion: 't', perRow: true };
    const stream = openArtifact(join(dir, 'p.json'));
    let streamed;
    try {
      streamed = await buildScoreReport(readArtifact(join(dir, 'items.json')), stream, options);
    } finally {
      stream.close();
    }
    const bytes = readFileSync(join(dir, 'p.json'));
    const whole = await buildScoreReport(
      readArtifact(join(dir, 'items.json')),
      { bytes, fileName: 'p.json', reportName: 'p.json' },
      options,
    );
    expect(streamed).toEqual(whole);
    expect(streamed.inputs.predictions.sha256).toBe(sha256(bytes));
    expect(streamed.inputs.predictions.bytes).toBe(bytes.length);
    expect(streamed.declared.reasons).toEqual([
      { reason: 'accepted', count: 6000 },
      { reason: 'quote "q"', count: 3000 },
    ]);
  });

  it('reads a declined file again, whole, so the zod path names the problem', async () => {
    const dir = tempDirWith({
      'items.json': [{ id: 'a', input: 'x', references: ['x'] }],
      'p.json': `[{"id":"a","candidates":[]},${' '.repeat(3 << 20)}{"id":"a"}]`,
    });
    const run = await runCli([
      'score',
      '--items',
      join(dir, 'items.json'),
      '--predictions',
      join(dir, 'p.json'),
      '--output-dir',
      join(dir, 'out'),
    ]);
    expect(run.stderr).toBe(`error: ${join(dir, 'p.json')}: id "a": duplicate id (rows [0] and [1])\n`);
    expect(run.code).toBe(2);
  });
});

describe('inputs over the JavaScript string limit', () => {
  it('drb score and drb compare refuse them with one line naming the file, and write nothing', async () => {
    const dir = tempDirWith({ 'p.json': '[]', 'items.json': '[{"id":"a","input":"x","references":["x"]}]' });
    // A sparse file: 600 MB long without using the disk or being read (the size is checked first).
    const big = join(dir, 'big.json');
    writeFileSync(big, '');
    truncateSync(big, 600_000_000);
    const expected = `error: ${big}: $: too large to read: 600000000 bytes, over the limit of ${MAX_ARTIFACT_BYTES} bytes (the longest string JavaScript can hold)\n`;
    for (const args of [
      ['score', '--items', big, '--predictions', join(dir, 'p.json')],
      ['score', '--items', join(dir, 'items.json'), '--predictions', big],
      ['compare', '--items', join(dir, 'items.json'), '--baseline', join(dir, 'p.json'), '--candidate', big],
    ]) {
      const run = await runCli([...args, '--output-dir', join(dir, 'out')]);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(expected);
      expect(run.stdout).toBe('');
      expect(existsSync(join(dir, 'out'))).toBe(false);
    }
  });

  it('the core readers refuse them too, instead of failing inside the UTF-8 decoder with a wrong byte offset', () => {
    expect(messageOf(() => checkArtifactSize(new Uint8Array(11), 'p.json', 10))).toBe(
      'p.json: $: too large to read: 11 bytes, over the limit of 10 bytes (the longest string JavaScript can hold)',
    );
    expect(() => checkArtifactSize(new Uint8Array(10), 'p.json', 10)).not.toThrow();
    // One byte over the real limit, zero-filled: the memory is reserved, never written, so this costs no RAM.
    const huge = new Uint8Array(MAX_ARTIFACT_BYTES + 1);
    expect(messageOf(() => parsePredictions(huge, 'huge.json'))).toBe(
      `huge.json: $: too large to read: ${MAX_ARTIFACT_BYTES + 1} bytes, over the limit of ${MAX_ARTIFACT_BYTES} bytes (the longest string JavaScript can hold)`,
    );
  });
});

function textLines(bytes: Uint8Array): string[] {
  return new TextDecoder().decode(bytes).split('\n');
}
