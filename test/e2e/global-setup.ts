/**
 * Builds the page ONCE for the whole e2e project into a fresh temp folder (never the shared dist/, which other
 * builds may be writing) and provides its path to every test file as `inject('distDir')`; or, when the environment
 * variable DRB_E2E_DIST names a build made already (scripts/test.mjs does), provides that one.
 *
 * Every temporary file of the run goes into one folder of its own (TMPDIR, which the test workers inherit), removed
 * when the run ends: the e2e browsers are shared by the files of a worker (test/e2e/page-harness.ts) and end with it,
 * without a chance to remove the profiles Playwright made for them. Screenshots meant to be looked at go to
 * `inject('screenshotDir')`, the system's temporary folder, and stay.
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
    /** Where the e2e files write the screenshots a person looks at afterwards (kept after the run). */
    screenshotDir: string;
  }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  project.provide('screenshotDir', tmpdir());
  // WebKitGTK's web processes (every WebKit page of the e2e files, also those `drb public-pass` opens) without
  // JavaScriptCore's optimizing WebAssembly tier (OMG), as E2E_CHROMIUM_ARGS does for V8 (test/e2e/page-harness.ts):
  // a page that loads onnxruntime-web for a few short runs spends CPU on optimizing compiles it never profits from.
  // Both tiers give WebAssembly the same meaning; no e2e test asserts a speed. Measured on webkit-lane.test.ts: the
  // web processes took 71 against 82 CPU seconds (docs/performance.md). The benchmarks keep JSC's defaults.
  process.env.JSC_useOMGJIT ??= '0';
  const runTmp = await mkdtemp(join(tmpdir(), 'drb-e2e-tmp-'));
  const outerTmp = process.env.TMPDIR;
  process.env.TMPDIR = runTmp;
  const removeRunTmp = async () => {
    if (outerTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outerTmp;
    await rm(runTmp, { recursive: true, force: true, maxRetries: 5 });
  };
  // `npm test` (scripts/test.mjs) builds once for its two e2e lanes and names the folder here; it removes it itself.
  const prebuilt = process.env.DRB_E2E_DIST;
  if (prebuilt) {
    project.provide('distDir', prebuilt);
    return removeRunTmp;
  }
  const dir = await mkdtemp(join(tmpdir(), 'drb-e2e-dist-'));
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--outDir', dir, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`vite build for the e2e tests failed:\n${result.stdout}\n${result.stderr}`);
  project.provide('distDir', dir);
  return async () => {
    await rm(dir, { recursive: true, force: true });
    await removeRunTmp();
  };
}
