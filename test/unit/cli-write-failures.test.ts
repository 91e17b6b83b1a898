/**
 * CLI writes that fail: one `error:` line, a non-zero exit, and no temporary or partial file left behind, for a
 * full disk (a real 16 KiB tmpfs when the tests run as root, and /dev/full through the writer everywhere), an
 * output path that is a file, a long --stem, and an output folder no file system will create (/proc/x).
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/cli-error.ts';
import { writeFilesAtomically } from '../../src/cli/output-files.ts';
import { runCli, tempDirWith } from './cli-harness.ts';
import { testTempDir } from '../temp-dir.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'drb.mjs');
const RECEIPTS = join(ROOT, 'test', 'fixtures', 'receipts');

function receiptsDir(): string {
  const dir = testTempDir('drb-write-in-');
  for (const name of readdirSync(RECEIPTS).filter((n) => n.endsWith('.json')))
    copyFileSync(join(RECEIPTS, name), join(dir, name));
  return dir;
}

/** A 16 KiB tmpfs (root only): a real full disk. */
function smallDisk(): string | null {
  if (process.getuid?.() !== 0) return null;
  const dir = mkdtempSync(join(tmpdir(), 'drb-full-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', dir]);
  return mounted.status === 0 ? dir : null;
}
const disk = smallDisk();
afterAll(() => {
  if (disk !== null) {
    spawnSync('umount', [disk]);
    rmSync(disk, { recursive: true, force: true });
  }
});

describe('CLI write failures', () => {
  it.skipIf(disk === null)(
    'summarize onto a full disk: one line, exit 1, no summary and no temporary file',
    async () => {
      const out = join(disk!, 'summary');
      mkdirSync(out);
      writeFileSync(join(disk!, 'notes.txt'), 'kept');
      const run = await runCli(['receipts', 'summarize', receiptsDir(), '--out', out]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `error: --out ${out}: cannot write ${join(out, 'summary.json')}: no space left on the device (ENOSPC)\n`,
      );
      expect(readdirSync(out)).toEqual([]);
      expect(readFileSync(join(disk!, 'notes.txt'), 'utf8')).toBe('kept');
    },
  );

  it('a write that fails with ENOSPC (/dev/full) removes every temporary file and replaces nothing', () => {
    const dir = testTempDir('drb-write-');
    writeFileSync(join(dir, 'a.json'), 'old a');
    const failing = (path: string, content: string | Uint8Array) =>
      writeFileSync(path.endsWith('-1.tmp') ? '/dev/full' : path, content);
    let thrown: unknown;
    try {
      writeFilesAtomically(
        [
          { path: join(dir, 'a.json'), content: 'new a' },
          { path: join(dir, 'b.md'), content: 'new b' },
        ],
        '--out x',
        failing,
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CliError);
    expect((thrown as CliError).message).toBe(
      `--out x: cannot write ${join(dir, 'a.json')}: no space left on the device (ENOSPC)`,
    );
    expect(readdirSync(dir)).toEqual(['a.json']);
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('old a');
  });

  it('summarize --out naming an existing file: one line, exit 2, the file untouched', async () => {
    const dir = tempDirWith({ 'notes.txt': 'my notes' });
    const run = await runCli(['receipts', 'summarize', receiptsDir(), '--out', join(dir, 'notes.txt')]);
    expect(run).toMatchObject({
      code: 2,
      stderr: `error: --out ${join(dir, 'notes.txt')}: ${join(dir, 'notes.txt')} is a file, not a folder\n`,
    });
    expect(readdirSync(dir)).toEqual(['notes.txt']);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('my notes');
  });

  it('score takes a 240-character --stem (short temporary names) and refuses one the file system cannot hold', async () => {
    const dir = tempDirWith({
      'items.json': [{ id: 'a', input: 'x', references: ['y'], label: 'typo' }],
      'p.json': [{ id: 'a', candidates: ['y'] }],
    });
    const args = [
      'score',
      '--items',
      join(dir, 'items.json'),
      '--predictions',
      join(dir, 'p.json'),
      '--output-dir',
      join(dir, 'out'),
    ];
    const long = 's'.repeat(240);
    const ok = await runCli([...args, '--stem', long]);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(readdirSync(join(dir, 'out')).sort()).toEqual([`${long}.json`, `${long}.md`]);
    const tooLong = await runCli([...args, '--stem', 's'.repeat(251)]);
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toBe(
      `error: --stem: the file name "${'s'.repeat(40)}..." is 256 bytes; a file name holds at most 255\n`,
    );
    expect(readdirSync(join(dir, 'out')).sort()).toEqual([`${long}.json`, `${long}.md`]);
  });

  it('an output folder in /proc (refused with ENOENT) fails at once with one line instead of spinning', () => {
    const dir = tempDirWith({
      'items.json': [{ id: 'a', input: 'x', references: ['y'], label: 'typo' }],
      'p.json': [{ id: 'a', candidates: ['y'] }],
    });
    const runs = [
      ['score', '--items', join(dir, 'items.json'), '--predictions', join(dir, 'p.json'), '--output-dir', '/proc/x/y'],
      ['receipts', 'summarize', RECEIPTS, '--out', '/proc/x'],
    ];
    for (const argv of runs) {
      const run = spawnSync(process.execPath, [BIN, ...argv], { encoding: 'utf8', timeout: 60_000 });
      expect(run.signal, argv.join(' ')).toBeNull();
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(
        /^error: --(output-dir|out) \/proc\/x(\/y)?: cannot create \/proc\/x: no such folder \(or it cannot hold files\) \(ENOENT\)\n$/,
      );
    }
    expect(existsSync('/proc/x')).toBe(false);
  });
});

describe('receipt tools and inputs too large to hold', () => {
  it('reports a file larger than any receipt (a sparse 100 MB file) without reading it as text', async () => {
    const dir = testTempDir('drb-big-');
    copyFileSync(join(RECEIPTS, '01-ort-wasm-t1-cold-ok.json'), join(dir, 'ok.json'));
    writeFileSync(join(dir, 'big.json'), '');
    truncateSync(join(dir, 'big.json'), 100_000_000);
    const run = await runCli(['receipts', 'validate', dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(
      `${join(dir, 'big.json')}: (document): is 100000000 bytes, larger than any drb receipt or artifact (at most 64 MiB); not read\n`,
    );
    expect(run.stderr).toBe('1 of 2 file(s) failed validation\n');
  });
});
