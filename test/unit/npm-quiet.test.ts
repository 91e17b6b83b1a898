/**
 * `npx drb` prints nothing of npm's before the tool's own output: the project config holds no key npm does not
 * know (an unknown `.npmrc` key made every call print "Unknown project config ... will stop working in the next
 * major version"), and onnxruntime-node, whose install script downloads CUDA files, is kept out of the install tree.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('npm and the install tree', () => {
  it('npx drb --version prints only the version', () => {
    const run = spawnSync('npx', ['drb', '--version'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      `${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`,
    );
    expect(run.status).toBe(0);
  });

  it('installs no onnxruntime-node: its place is taken by onnxruntime-web, which has no install script', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { name?: string; version?: string; hasInstallScript?: boolean }>;
    };
    expect(lock.packages['node_modules/onnxruntime-node']).toMatchObject({
      name: 'onnxruntime-web',
      version: '1.30.0',
    });
    expect(lock.packages['node_modules/onnxruntime-node'].hasInstallScript).toBeUndefined();
    const installed = JSON.parse(
      readFileSync(join(ROOT, 'node_modules', 'onnxruntime-node', 'package.json'), 'utf8'),
    ) as { name: string };
    expect(installed.name).toBe('onnxruntime-web');
    expect(existsSync(join(ROOT, '.npmrc')) ? readFileSync(join(ROOT, '.npmrc'), 'utf8') : '').not.toMatch(
      /onnxruntime/,
    );
  });
});
