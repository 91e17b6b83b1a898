/**
 * `npm run lint` fails on an unformatted line: the project's biome.json, applied by `biome ci` (what the lint step
 * of `npm test` runs) to a folder holding one TypeScript file, refuses the file with one extra space and accepts it
 * formatted. The whole tree itself is checked by the lint step of `npm test` (scripts/test.mjs).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../temp-dir.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIOME = join(ROOT, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');

function biomeCi(source: string): number | null {
  const dir = testTempDir('drb-lint-');
  copyFileSync(join(ROOT, 'biome.json'), join(dir, 'biome.json'));
  writeFileSync(join(dir, 'probe.ts'), source);
  // The temporary folder is no git checkout, so the config's git integration is switched off for this run only.
  return spawnSync(process.execPath, [BIOME, 'ci', '--error-on-warnings', '--vcs-enabled=false', '.'], { cwd: dir })
    .status;
}

describe('the lint step', () => {
  it('refuses an unformatted line and accepts the same code formatted', () => {
    expect(biomeCi('export const  a = 1;\n')).toBe(1);
    expect(biomeCi("export const b = 'x';\n")).toBe(0);
    expect(biomeCi('export const c = "x";\n')).toBe(1);
  });
});
