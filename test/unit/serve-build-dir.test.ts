/**
 * `drb serve --build` empties its output folder (Vite's emptyOutDir): it must do so only for a folder that holds a
 * previous build of the page and nothing else, and never for the checkout or a parent of it.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { listBuildFiles, PAGE_BUILD_MARKER, refuseBuildDir, writePageBuildMarker } from '../../src/node/page-build.ts';
import { runCli } from './cli-harness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'drb.mjs');
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'drb-serve-build-'));
  made.push(dir);
  return dir;
}

/** A folder that looks like a previous build: a few page files and the marker listing them. */
function previousBuild(): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html>');
  writeFileSync(join(dir, 'assets', 'app.js'), 'export {};');
  writePageBuildMarker(dir, ['index.html', 'assets/app.js']);
  return dir;
}

describe('drb serve --build: which folders it may empty', () => {
  it("refuses a folder with the user's notes, deletes nothing and never starts Vite", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes.md'), 'my notes');
    mkdirSync(join(dir, 'drafts'));
    writeFileSync(join(dir, 'drafts', 'idea.txt'), 'idea');
    const run = await runCli(['serve', '--build', '--dir', dir, '--port', '0']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `error: --dir ${dir}: is not empty and is not a build of the page (no ${PAGE_BUILD_MARKER}); the build would delete what it holds: empty it yourself or choose another --dir; nothing was deleted\n`,
    );
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('my notes');
    expect(readFileSync(join(dir, 'drafts', 'idea.txt'), 'utf8')).toBe('idea');
    expect(readdirSync(dir).sort()).toEqual(['drafts', 'notes.md']);
  });

  it('refuses the project folder (--dir .) and its parents', async () => {
    const cwd = process.cwd();
    process.chdir(ROOT);
    try {
      const tracked = readdirSync(ROOT).sort();
      for (const dir of ['.', '..', dirname(dirname(ROOT)), '/']) {
        const run = await runCli(['serve', '--build', '--dir', dir, '--port', '0']);
        expect(run.code, dir).toBe(2);
        expect(run.stderr).toBe(
          `error: --dir ${dir}: is the project folder or one of its parents; the build empties its output folder; nothing was deleted\n`,
        );
      }
      expect(readdirSync(ROOT).sort()).toEqual(tracked);
    } finally {
      process.chdir(cwd);
    }
  });

  it('accepts a missing or empty folder and a previous build that holds only what its marker lists', () => {
    expect(refuseBuildDir(join(tempDir(), 'new', 'dist'), ROOT)).toBeNull();
    expect(refuseBuildDir(tempDir(), ROOT)).toBeNull();
    expect(refuseBuildDir(previousBuild(), ROOT)).toBeNull();
  });

  it('refuses a previous build once anything the build did not write sits in it', () => {
    const withNotes = previousBuild();
    writeFileSync(join(withNotes, 'assets', 'notes.md'), 'mine');
    expect(refuseBuildDir(withNotes, ROOT)).toBe(
      'holds 1 file(s) the previous build did not write ("assets/notes.md"); move them out or choose another --dir',
    );
    const withFolder = previousBuild();
    mkdirSync(join(withFolder, 'keep'));
    expect(refuseBuildDir(withFolder, ROOT)).toMatch(/holds 1 file\(s\) the previous build did not write \("keep\/"\)/);
    const withLink = previousBuild();
    rmSync(join(withLink, 'index.html'));
    symlinkSync('/etc/passwd', join(withLink, 'index.html'));
    expect(refuseBuildDir(withLink, ROOT)).toBe(
      'holds "index.html", which is not a regular file; move it out or choose another --dir',
    );
    const forgedMarker = tempDir();
    writeFileSync(join(forgedMarker, 'thesis.tex'), 'x');
    writeFileSync(join(forgedMarker, PAGE_BUILD_MARKER), '{"schema":"something"}');
    expect(refuseBuildDir(forgedMarker, ROOT)).toMatch(/is not a build of the page/);
    // A FIFO (no writer) or a link to a device under the marker's name is no marker, and reading it never blocks.
    const fifoMarker = tempDir();
    writeFileSync(join(fifoMarker, 'index.html'), 'x');
    execFileSync('mkfifo', [join(fifoMarker, PAGE_BUILD_MARKER)]);
    expect(refuseBuildDir(fifoMarker, ROOT)).toMatch(/is not a build of the page/);
    const deviceMarker = tempDir();
    writeFileSync(join(deviceMarker, 'index.html'), 'x');
    symlinkSync('/dev/zero', join(deviceMarker, PAGE_BUILD_MARKER));
    expect(refuseBuildDir(deviceMarker, ROOT)).toMatch(/is not a build of the page/);
    const file = join(tempDir(), 'file.txt');
    writeFileSync(file, 'x');
    expect(refuseBuildDir(file, ROOT)).toBe('exists and is not a folder');
  });

  it('the real binary builds into a fresh folder with a marker that lists every file, then refuses it once a user file sits there', async () => {
    const dir = join(tempDir(), 'site');
    const serveOnce = () =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, 'serve', '--build', '--dir', dir, '--port', '0'], {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
          if (/Serving .* at http:\/\/127\.0\.0\.1:\d+\//.test(out)) child.kill('SIGTERM');
        });
        child.once('exit', (code) =>
          /Serving/.test(out) ? resolve() : reject(new Error(`drb serve --build exited with ${code}: ${out}`)),
        );
      });
    await serveOnce();
    const marker = JSON.parse(readFileSync(join(dir, PAGE_BUILD_MARKER), 'utf8')) as { files: string[] };
    expect(marker.files).toEqual(listBuildFiles(dir));
    expect(marker.files).toContain('index.html');
    writeFileSync(join(dir, 'notes.md'), 'mine');
    const refused = await runCli(['serve', '--build', '--dir', dir, '--port', '0']);
    expect(refused.code).toBe(2);
    expect(existsSync(join(dir, 'notes.md'))).toBe(true);
  }, 120_000);
});
