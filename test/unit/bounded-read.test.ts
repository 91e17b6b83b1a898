/**
 * Bounded, honest reads (src/node/bounded-read.ts) and every CLI reader that goes through them: a FIFO with or
 * without a writer, a device that never ends (/dev/zero), a FIFO inside a folder, `--pins`, `--summary`, `--answers`
 * and a summary.json in the output folder that is a FIFO: each refused with one line, never read past the cap and
 * never blocked on; pipes for `drb score` read with the same cap and a time limit.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BoundedReadError, readBounded } from '../../src/node/bounded-read.ts';
import { readArtifact } from '../../src/cli/report-output.ts';
import { runCli, tempDirWith } from './cli-harness.ts';
import { pageReceipts } from './receipts-fixtures.ts';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A FIFO at `path`. */
function fifo(path: string): string {
  execFileSync('mkfifo', [path]);
  return path;
}

/**
 * A process holding the FIFO open for writing (opened read-write, so opening never waits for a reader) and writing
 * `chunk` every `everyMs` ms, or once and then nothing (`'once'`: it keeps the pipe open; `'once-then-exit'`: it
 * closes it 300 ms later); resolves once the FIFO is open.
 */
async function writer(path: string, chunk: string, everyMs: number | 'once' | 'once-then-exit'): Promise<ChildProcess> {
  const after =
    everyMs === 'once'
      ? 'setInterval(() => {}, 1000);'
      : everyMs === 'once-then-exit'
        ? 'setTimeout(() => process.exit(0), 300);'
        : `setInterval(write, ${everyMs});`;
  const script = `
    const fs = require('node:fs');
    const fd = fs.openSync(${JSON.stringify(path)}, 'r+');
    process.stdout.write('ready\\n');
    const write = () => { try { fs.writeSync(fd, ${JSON.stringify(chunk)}); } catch {} };
    write();
    ${after}`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`writer exited with ${code}`)));
  });
  return child;
}

function failure(run: () => unknown): BoundedReadError {
  try {
    run();
  } catch (error) {
    if (error instanceof BoundedReadError) return error;
    throw error;
  }
  throw new Error('expected a BoundedReadError');
}

describe('readBounded', () => {
  it('reads a regular file whole, and refuses one over the cap before reading it', () => {
    const dir = tempDirWith({ 'a.json': '{"a":1}' });
    expect(readBounded(join(dir, 'a.json'), { limitBytes: 100, hash: true })).toMatchObject({
      regular: true,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const over = failure(() => readBounded(join(dir, 'a.json'), { limitBytes: 3 }));
    expect([over.failure, over.size, over.message]).toEqual([
      'too-large',
      7,
      'is 7 bytes, over the limit of 3 bytes; not read',
    ]);
  });

  it('stops a file that reports no size (as /proc files do) at the cap', () => {
    const over = failure(() => readBounded('/proc/self/mountinfo', { limitBytes: 10 }));
    expect([over.failure, over.size]).toEqual(['too-large', undefined]);
    expect(over.message).toBe('grew past the limit of 10 bytes while it was read; not read');
  });

  it('refuses a FIFO, a character device and a folder at once, never blocking and never reading', () => {
    const dir = tempDirWith({});
    const path = fifo(join(dir, 'p.json'));
    expect(failure(() => readBounded(path, { limitBytes: 100 })).message).toBe(
      'is a FIFO (named pipe), not a regular file; not read',
    );
    expect(failure(() => readBounded('/dev/zero', { limitBytes: 100, pipes: true })).message).toBe(
      'is a character device, not a regular file; not read',
    );
    expect(failure(() => readBounded(dir, { limitBytes: 100 })).failure).toBe('folder');
  });

  it('reads a FIFO with no writer as empty at once when pipes are accepted', () => {
    const path = fifo(join(tempDirWith({}), 'p.json'));
    const started = Date.now();
    expect(readBounded(path, { limitBytes: 100, pipes: true }).bytes.length).toBe(0);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reads a pipe with a writer within the same cap, and gives up on one that never ends within the time limit', async () => {
    const dir = tempDirWith({});
    const endless = fifo(join(dir, 'endless.json'));
    await writer(endless, 'y'.repeat(4096), 1);
    const over = failure(() => readBounded(endless, { limitBytes: 64 * 1024, pipes: true }));
    expect(over.failure).toBe('too-large');
    const silent = fifo(join(dir, 'silent.json'));
    await writer(silent, '[', 'once');
    const started = Date.now();
    const stalled = failure(() => readBounded(silent, { limitBytes: 1024, pipes: true, timeLimitMs: 300 }));
    expect(stalled.failure).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("readArtifact (drb score, drb compare) says each refusal in the scorer's one-line form", async () => {
    const dir = tempDirWith({});
    const path = fifo(join(dir, 'items.json'));
    await writer(path, 'x'.repeat(1024), 1);
    expect(() => readArtifact(path, 4096)).toThrow(
      `${path}: $: too large to read: over the limit of 4096 bytes (the longest string JavaScript can hold)`,
    );
    expect(() => readArtifact('/dev/zero')).toThrow(
      '/dev/zero: $: is a character device, not a regular file; not read',
    );
  });
});

describe('the CLI readers', () => {
  it('validate names a FIFO (with or without a writer) and /dev/zero with one line each, and a FIFO inside a folder', async () => {
    const dir = tempDirWith({});
    const lone = fifo(join(dir, 'lone.json'));
    const fed = fifo(join(dir, 'fed.json'));
    await writer(fed, JSON.stringify(pageReceipts()[0]), 5);
    const named = await runCli(['receipts', 'validate', lone, fed, '/dev/zero']);
    expect(named.code).toBe(1);
    expect(named.stdout.trim().split('\n')).toEqual([
      `${lone}: (document): is a FIFO (named pipe), not a regular file; not read`,
      `${fed}: (document): is a FIFO (named pipe), not a regular file; not read`,
      '/dev/zero: (document): is a character device, not a regular file; not read',
    ]);
    mkdirSync(join(dir, 'folder'));
    writeFileSync(join(dir, 'folder', 'a.json'), JSON.stringify(pageReceipts()[0]));
    fifo(join(dir, 'folder', 'b.json'));
    const folder = await runCli(['receipts', 'validate', join(dir, 'folder')]);
    expect(folder.code).toBe(1);
    expect(folder.stdout).toBe(
      `${join(dir, 'folder', 'b.json')}: (document): a FIFO (named pipe) inside a folder, not a regular file: not read\n`,
    );
    expect(folder.stderr).toBe('1 of 2 file(s) failed validation\n');
  });

  it('summarize and report list a FIFO inside a folder as invalid, and a FIFO in place of summary.json is refused, nothing written', async () => {
    const dir = tempDirWith({});
    mkdirSync(join(dir, 'in'));
    pageReceipts()
      .slice(0, 2)
      .forEach((r, i) => writeFileSync(join(dir, 'in', `${i}.json`), JSON.stringify(r)));
    fifo(join(dir, 'in', 'pipe.json'));
    const out = join(dir, 'out');
    const run = await runCli(['receipts', 'summarize', join(dir, 'in'), '--out', out]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('warning: 1 invalid receipt(s) excluded');
    const report = await runCli(['receipts', 'report', join(dir, 'in'), '--out', join(dir, 'report')]);
    expect(report.stderr).toContain(
      `warning: ${join(dir, 'in', 'pipe.json')}: (document): a FIFO (named pipe) inside a folder, not a regular file: not read\n`,
    );
    const blocked = join(dir, 'blocked');
    mkdirSync(blocked);
    fifo(join(blocked, 'summary.json'));
    const refused = await runCli(['receipts', 'summarize', join(dir, 'in'), '--out', blocked]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `error: ${join(blocked, 'summary.json')}: exists and is a FIFO (named pipe), not a regular file; refusing to overwrite it\n`,
    );
    expect(readdirSync(blocked)).toEqual(['summary.json']);
  });

  it('review and review-template refuse a FIFO as --summary or --answers with one line, writing nothing', async () => {
    const dir = tempDirWith({});
    const pipe = fifo(join(dir, 'pipe.json'));
    const template = await runCli(['receipts', 'review-template', '--summary', pipe, '--target', 't-0123456789ab']);
    expect(template).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${pipe}: is a FIFO (named pipe), not a regular file; not read\n`,
    });
    mkdirSync(join(dir, 'in'));
    writeFileSync(join(dir, 'in', 'r.json'), JSON.stringify(pageReceipts()[0]));
    const out = join(dir, 'out');
    expect((await runCli(['receipts', 'summarize', join(dir, 'in'), '--out', out])).code).toBe(0);
    const { targets } = JSON.parse((await import('node:fs')).readFileSync(join(out, 'summary.json'), 'utf8')) as {
      targets: Array<{ key: string }>;
    };
    const review = await runCli([
      'receipts',
      'review',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      targets[0].key,
      '--answers',
      pipe,
    ]);
    expect(review).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${pipe}: is a FIFO (named pipe), not a regular file; not read\n`,
    });
    expect(existsSync(join(out, 'reviews'))).toBe(false);
  });

  it('models refuses a --pins FIFO (with a writer or none) and /dev/zero with one line', async () => {
    const dir = tempDirWith({});
    const pins = fifo(join(dir, 'pins.json'));
    const lone = await runCli(['models', 'verify', '--dir', dir, '--id', 'tfjs-tiny-qwen3', '--pins', pins]);
    expect(lone.code).toBe(2);
    expect(lone.stderr).toBe(`error: ${pins}: (root): is a FIFO (named pipe), not a regular file; not read\n`);
    await writer(pins, '{"schema":', 5);
    expect((await runCli(['models', 'verify', '--dir', dir, '--id', 'tfjs-tiny-qwen3', '--pins', pins])).stderr).toBe(
      lone.stderr,
    );
    const zero = await runCli(['models', 'verify', '--dir', dir, '--id', 'tfjs-tiny-qwen3', '--pins', '/dev/zero']);
    expect(zero.stderr).toBe('error: /dev/zero: (root): is a character device, not a regular file; not read\n');
  });

  it('score reads items from a pipe within the cap, and refuses /dev/zero as items', async () => {
    const dir = tempDirWith({ 'p.json': '[{"id":"a","candidates":["x"]}]' });
    const items = fifo(join(dir, 'items.json'));
    // The writer closes its end 300 ms after writing: the reader waits for it (it gave no end of file yet), then ends.
    await writer(items, '[{"id":"a","input":"x","references":["x"]}]', 'once-then-exit');
    const run = await runCli([
      'score',
      '--items',
      items,
      '--predictions',
      join(dir, 'p.json'),
      '--output-dir',
      join(dir, 'out'),
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const zero = await runCli([
      'score',
      '--items',
      '/dev/zero',
      '--predictions',
      join(dir, 'p.json'),
      '--output-dir',
      join(dir, 'out2'),
    ]);
    expect(zero).toMatchObject({
      code: 2,
      stderr: 'error: /dev/zero: $: is a character device, not a regular file; not read\n',
    });
    expect(existsSync(join(dir, 'out2'))).toBe(false);
  });
});
