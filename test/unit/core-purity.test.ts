/**
 * src/core/ is pure: `npm run typecheck` checks it with tsconfig.core.json, which has no DOM or Node types. These
 * tests prove the guard bites: the same check on a copy of src/core with a planted browser or Node global fails and
 * names it, while the unchanged copy passes.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'drb-core-purity-'));
cpSync(join(root, 'src', 'core'), join(work, 'src', 'core'), { recursive: true });
cpSync(join(root, 'tsconfig.core.json'), join(work, 'tsconfig.core.json'));
symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the project's core type check on the copy; returns the exit status and what tsc printed. */
function checkCore(): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', 'tsconfig.core.json'], { cwd: work, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('tsconfig.core.json keeps src/core pure', () => {
  it('passes on src/core as it is', () => {
    const { status, output } = checkCore();
    expect(output).toBe('');
    expect(status).toBe(0);
  });

  it('fails on a planted window, document or process use, naming each', () => {
    const planted = join(work, 'src', 'core', 'planted-globals.ts');
    writeFileSync(planted, 'export const href = window.location.href;\nexport const title = document.title;\nexport const env = process.env.HOME;\n');
    try {
      const { status, output } = checkCore();
      expect(status).not.toBe(0);
      expect(output).toMatch(/planted-globals\.ts\(1,\d+\): error TS\d+: Cannot find name 'window'/);
      expect(output).toMatch(/planted-globals\.ts\(2,\d+\): error TS\d+: Cannot find name 'document'/);
      expect(output).toMatch(/planted-globals\.ts\(3,\d+\): error TS\d+: Cannot find name 'process'/);
    } finally {
      rmSync(planted);
    }
  });
});
