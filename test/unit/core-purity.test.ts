/**
 * src/core/ is pure: `npm run typecheck` checks it with tsconfig.core.json, which has no DOM or Node types. These
 * tests prove the guard bites: the same check on a copy of src/core passes, and on a core folder holding a planted
 * browser or Node global (beside the globals core may use, src/core/globals.d.ts) it fails and names each. The
 * planted check compiles only that small folder: the guard is in the compiler options, not in the other files.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'drb-core-purity-'));
cpSync(join(root, 'src', 'core'), join(work, 'src', 'core'), { recursive: true });
cpSync(join(root, 'tsconfig.core.json'), join(work, 'tsconfig.core.json'));
symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
const small = mkdtempSync(join(tmpdir(), 'drb-core-purity-planted-'));
mkdirSync(join(small, 'src', 'core'), { recursive: true });
cpSync(join(root, 'src', 'core', 'globals.d.ts'), join(small, 'src', 'core', 'globals.d.ts'));
cpSync(join(root, 'tsconfig.core.json'), join(small, 'tsconfig.core.json'));
symlinkSync(join(root, 'node_modules'), join(small, 'node_modules'), 'dir');
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(small, { recursive: true, force: true });
});

/** Runs the project's core type check in `cwd` (a copy); returns the exit status and what tsc printed. */
function checkCore(cwd: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', 'tsconfig.core.json'], { cwd, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('tsconfig.core.json keeps src/core pure', () => {
  // tsc over all of src/core takes half a minute on a loaded 2-core machine.
  it('passes on src/core as it is', { timeout: 120_000 }, () => {
    const { status, output } = checkCore(work);
    expect(output).toBe('');
    expect(status).toBe(0);
  });

  it('fails on a planted window, document or process use, naming each', () => {
    const planted = join(small, 'src', 'core', 'planted-globals.ts');
    writeFileSync(planted, 'export const href = window.location.href;\nexport const title = document.title;\nexport const env = process.env.HOME;\n');
    try {
      const { status, output } = checkCore(small);
      expect(status).not.toBe(0);
      expect(output).toMatch(/planted-globals\.ts\(1,\d+\): error TS\d+: Cannot find name 'window'/);
      expect(output).toMatch(/planted-globals\.ts\(2,\d+\): error TS\d+: Cannot find name 'document'/);
      expect(output).toMatch(/planted-globals\.ts\(3,\d+\): error TS\d+: Cannot find name 'process'/);
    } finally {
      rmSync(planted);
    }
  });
});
