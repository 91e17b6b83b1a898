#!/usr/bin/env node
/**
 * `npm test`: the type checks and the two vitest projects, in three lanes that run at the same time.
 *
 *   lane unit:  lint (`biome ci` and the commit subjects: `npm run lint`), tsc (tsconfig.json), tsc
 *               (tsconfig.core.json), then `vitest run --project unit`
 *   lane e2e-a: the e2e files that drive WebKitGTK (each starts xvfb-run and WebKitWebDriver; kept in one lane so
 *               no two of them race for a display), and a share of the Chromium-only files
 *   lane e2e-b: every other e2e file (a new one lands here by default)
 *
 * Within an e2e lane the files run one at a time, in one vitest worker whose Chromium they share (one browser per set
 * of flags, test/e2e/page-harness.ts; the WebKitGTK files start theirs per page); the page is built once, before the e2e
 * lanes start, and handed to them (DRB_E2E_DIST, read by test/e2e/global-setup.ts), with one folder for the static
 * server's compressed copies of its files (DRB_ENCODED_CACHE_DIR, src/node/static-server.ts). Vitest alone runs every
 * project's files through one pool whose size on a 2-core machine is 1, so all files used to take turns, although
 * the e2e files spend most of their time waiting on browsers. Each lane's lines are prefixed with its name; the
 * exit code is 0 only when every step of every lane passed.
 *
 * With arguments (`npm test -- test/unit/stats.test.ts -t median`) it runs `vitest run <arguments>` alone, as
 * vitest would, without the type checks.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (pkg, file) => join(root, 'node_modules', pkg, file);
const TSC = bin('typescript', 'bin/tsc');
const BIOME = bin('@biomejs/biome', 'bin/biome');
const VITEST = bin('vitest', 'vitest.mjs');
const VITE = bin('vite', 'bin/vite.js');

/**
 * The e2e files of lane e2e-a: the ones that open WebKitGTK, then Chromium-only files that roughly balance the
 * two lanes' time (measured per file; see docs/performance.md).
 */
const LANE_A = [
  'webkit-lane.test.ts',
  'trained-models-webkit.test.ts',
  'field-webkit.test.ts',
  'field-run.test.ts',
  'leaderboard.test.ts',
  'journal.test.ts',
  'public-pass.test.ts',
  'webkit-driver.test.ts',
  'remote-lanes.test.ts',
  'generate.test.ts',
  'suite-page.test.ts',
  'page-lifecycle.test.ts',
  'device-details.test.ts',
  'protocol-mode.test.ts',
];

/**
 * Runs one command with its output prefixed line by line; resolves to its exit code.
 * @param {string} lane the prefix
 * @param {string[]} args arguments to node
 */
function run(lane, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '0' },
    });
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      let rest = '';
      from.setEncoding('utf8');
      from.on('data', (chunk) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        if (lines.length > 0) to.write(lines.map((line) => `[${lane}] ${line}\n`).join(''));
      });
      from.on('end', () => {
        if (rest !== '') to.write(`[${lane}] ${rest}\n`);
      });
    }
    child.on('error', (error) => {
      process.stderr.write(`[${lane}] could not start: ${error.message}\n`);
      resolve(1);
    });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/**
 * Runs steps one after another; stops at the first failure. Resolves to the failed step's name, or null.
 * @param {string} lane the prefix
 * @param {Array<[string, string[]]>} steps name and node arguments of each step
 */
async function lane(lane, steps) {
  for (const [name, args] of steps) {
    const started = Date.now();
    const code = await run(lane, args);
    process.stdout.write(
      `[${lane}] ${name}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
    );
    if (code !== 0) return name;
  }
  return null;
}

const extra = process.argv.slice(2);
if (extra.length > 0) {
  process.exitCode = await run('vitest', [VITEST, 'run', ...extra]);
} else {
  const started = Date.now();
  const e2eFiles = readdirSync(join(root, 'test', 'e2e'))
    .filter((name) => name.endsWith('.test.ts'))
    .sort();
  const laneA = e2eFiles.filter((name) => LANE_A.includes(name));
  const laneB = e2eFiles.filter((name) => !LANE_A.includes(name));
  const dist = mkdtempSync(join(tmpdir(), 'drb-e2e-dist-'));
  process.env.DRB_E2E_DIST = dist;
  // Every e2e file serves that build from its own process; the static server keeps each file's compressed bytes
  // here, so the runtimes' .wasm files (14 and 27 MB) are compressed once for the whole run, not once per file.
  const encoded = mkdtempSync(join(tmpdir(), 'drb-e2e-encoded-'));
  process.env.DRB_ENCODED_CACHE_DIR = encoded;
  // Full paths relative to the root: vitest's file filters match substrings, and no such path holds another.
  const e2eRun = (files) => [VITEST, 'run', '--project', 'e2e', ...files.map((name) => `test/e2e/${name}`)];
  let failed;
  try {
    failed = await Promise.all([
      lane('unit', [
        ['lint (biome ci)', [BIOME, 'ci', '--error-on-warnings', '.']],
        ['lint (commit subjects)', [join(root, 'scripts', 'check-commits.mjs')]],
        ['typecheck (tsconfig.json)', [TSC, '--noEmit', '-p', 'tsconfig.json']],
        ['typecheck (tsconfig.core.json)', [TSC, '--noEmit', '-p', 'tsconfig.core.json']],
        ['vitest unit', [VITEST, 'run', '--project', 'unit']],
      ]),
      (async () => {
        const build = await lane('e2e', [
          ['vite build for the e2e tests', [VITE, 'build', '--outDir', dist, '--emptyOutDir', '--logLevel', 'warn']],
        ]);
        if (build !== null) return [build];
        return Promise.all([
          lane('e2e-a', [['vitest e2e (lane a)', e2eRun(laneA)]]),
          lane('e2e-b', [['vitest e2e (lane b)', e2eRun(laneB)]]),
        ]);
      })(),
    ]);
  } finally {
    rmSync(dist, { recursive: true, force: true });
    rmSync(encoded, { recursive: true, force: true });
  }
  failed = failed.flat();
  const failures = failed.filter((name) => name !== null);
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  process.stdout.write(
    failures.length === 0
      ? `npm test: every step passed in ${seconds} s\n`
      : `npm test: FAILED: ${failures.join(', ')} (${seconds} s)\n`,
  );
  process.exitCode = failures.length === 0 ? 0 : 1;
}
