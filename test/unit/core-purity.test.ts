/**
 * src/core/ is pure: `npm run typecheck` checks it with tsconfig.core.json, which has no DOM or Node types. These
 * tests prove the guard bites: on a core folder holding only the globals core may use (src/core/globals.d.ts) and
 * code that uses them, the check passes; with a planted browser or Node global it fails and names each. They compile
 * that small folder only: the guard is in the compiler options, not in the other files. That the real src/core passes
 * the same check is `npm test`'s own step (typecheck with tsconfig.core.json, scripts/test.mjs): this file used to
 * run it a second time on a copy of src/core, the same half a minute of tsc.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const small = mkdtempSync(join(tmpdir(), 'drb-core-purity-planted-'));
mkdirSync(join(small, 'src', 'core'), { recursive: true });
cpSync(join(root, 'src', 'core', 'globals.d.ts'), join(small, 'src', 'core', 'globals.d.ts'));
cpSync(join(root, 'tsconfig.core.json'), join(small, 'tsconfig.core.json'));
symlinkSync(join(root, 'node_modules'), join(small, 'node_modules'), 'dir');
afterAll(() => {
  rmSync(small, { recursive: true, force: true });
});

/** Runs the project's core type check in `cwd` (a copy); returns the exit status and what tsc printed. */
function checkCore(cwd: string): { status: number | null; output: string } {
  const run = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', 'tsconfig.core.json'],
    { cwd, encoding: 'utf8' },
  );
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('tsconfig.core.json keeps src/core pure', () => {
  it('passes on code that uses only the globals core may use', () => {
    const clean = join(small, 'src', 'core', 'clean-globals.ts');
    writeFileSync(
      clean,
      [
        "export const bytes = new TextEncoder().encode('x');",
        'export const text: string = new TextDecoder().decode(bytes);',
        "export const path: string = new URL('https://example.test/a?b=1').pathname;",
        "export const query: string | null = new URLSearchParams('b=1').get('b');",
        "export const digest = (data: Uint8Array<ArrayBuffer>) => crypto.subtle.digest('SHA-256', data);",
        '',
      ].join('\n'),
    );
    try {
      const { status, output } = checkCore(small);
      expect(output).toBe('');
      expect(status).toBe(0);
    } finally {
      rmSync(clean);
    }
  });

  it('fails on a planted window, document or process use, naming each', () => {
    const planted = join(small, 'src', 'core', 'planted-globals.ts');
    writeFileSync(
      planted,
      'export const href = window.location.href;\nexport const title = document.title;\nexport const env = process.env.HOME;\n',
    );
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
