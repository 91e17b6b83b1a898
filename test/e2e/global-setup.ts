/**
 * Builds the page ONCE for the whole e2e project into a fresh temp folder (never the shared dist/, which other
 * builds may be writing) and provides its path to every test file as `inject('distDir')`; or, when the environment
 * variable DRB_E2E_DIST names a build made already (scripts/test.mjs does), provides that one.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The built page, served by each test file with src/node/static-server.ts. */
    distDir: string;
  }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // `npm test` (scripts/test.mjs) builds once for its two e2e lanes and names the folder here; it removes it itself.
  const prebuilt = process.env.DRB_E2E_DIST;
  if (prebuilt) {
    project.provide('distDir', prebuilt);
    return async () => {};
  }
  const dir = await mkdtemp(join(tmpdir(), 'drb-e2e-dist-'));
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  // The build that ships: vitest sets NODE_ENV=test, which would keep Preact's development checks in the page (and
  // its first script 1 KB larger than what `npm test` and `drb serve` build).
  const result = spawnSync(process.execPath, [vite, 'build', '--outDir', dir, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0) throw new Error(`vite build for the e2e tests failed:\n${result.stdout}\n${result.stderr}`);
  project.provide('distDir', dir);
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
