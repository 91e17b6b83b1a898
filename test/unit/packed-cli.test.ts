/**
 * `drb` as a tester at the desk gets it without a checkout: `npm pack` in the checkout, `npm install -g` of the
 * tarball into a temporary prefix (from the npm cache the checkout's `npm ci` filled: `--prefer-offline`), then the
 * installed binary run from a folder outside the checkout validates, summarises and reviews a bundle to DEVICE_PASS.
 * The installed copy carries no sources and only the runtime dependencies, keeps the per-command chunks (--version
 * loads no command and no zod), and refuses the commands that need a checkout with one line. Takes about 15 s.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_TESTER_SHEET,
  RECEIPT_BUNDLE_SCHEMA,
  type ReceiptBundle,
  type TesterSheet,
} from '../../src/core/field/receipt-bundle.ts';
import type { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { buildReceipt } from './receipts-builder.ts';
import { testTempDir } from '../temp-dir.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOOK = join(ROOT, 'test', 'module-load-log.mjs');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
};

/** The environment for npm and the installed drb: npm's own variables of an enclosing `npm test` left out. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
  return { ...env, ...extra };
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): SpawnSyncReturns<string> {
  const child = spawnSync(command, args, { cwd, encoding: 'utf8', env: childEnv(env), timeout: 180_000 });
  if (child.error !== undefined) throw child.error;
  return child;
}

/** Asserts a run ended with `code`, showing what it printed when it did not. */
function expectCode(child: SpawnSyncReturns<string>, code: number): void {
  expect({ code: child.status, stdout: child.stdout, stderr: child.stderr }).toEqual({
    code,
    stdout: child.stdout,
    stderr: child.stderr,
  });
}

describe('drb installed from the packed tarball', () => {
  it('runs from a folder outside the checkout: version, validate, summarize, review-template, review', {
    timeout: 240_000,
  }, () => {
    const packDir = testTempDir('drb-pack-');
    const prefix = testTempDir('drb-prefix-');
    const desk = testTempDir('drb-desk-');
    expect(relative(ROOT, desk).startsWith('..')).toBe(true);

    // npm pack: its prepack step builds dist-cli/, its postpack step removes it again.
    const pack = run('npm', ['pack', '--json', '--pack-destination', packDir], ROOT);
    expectCode(pack, 0);
    const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    expect(packed.filename).toBe(`${PACKAGE.name}-${PACKAGE.version}.tgz`);
    const paths = packed.files.map((file) => file.path);
    expect(paths).toContain('dist-cli/main.js');
    expect(paths).toContain('bin/drb.mjs');
    // No sources, no fixtures, no page: the CLI bundle and the desk docs only.
    expect(paths.filter((path) => /^(src|test|public|workers|data|receipts|scripts)\//.test(path))).toEqual([]);
    expect(existsSync(join(ROOT, 'dist-cli'))).toBe(false);

    const install = run(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        join(packDir, packed.filename),
      ],
      desk,
    );
    expectCode(install, 0);
    const installed = join(prefix, 'lib', 'node_modules', PACKAGE.name);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    // Only the runtime dependencies and what they depend on came along (the lock file's packages not marked dev):
    // nothing of the page's (transformers.js, onnxruntime, WebLLM).
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const runtime = Object.entries(lock.packages)
      .filter(([path, entry]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path) && entry.dev !== true)
      .map(([path]) => path.slice('node_modules/'.length));
    for (const name of Object.keys(PACKAGE.dependencies)) expect(runtime).toContain(name);
    const installedNames = readdirSync(join(installed, 'node_modules')).flatMap((name) =>
      name.startsWith('@')
        ? readdirSync(join(installed, 'node_modules', name)).map((inner) => `${name}/${inner}`)
        : [name],
    );
    expect(installedNames.filter((name) => !name.startsWith('.')).sort()).toEqual(runtime.sort());
    const drb = join(prefix, 'bin', 'drb');

    const version = run(drb, ['--version'], desk);
    expectCode(version, 0);
    expect(version.stdout).toBe(`${PACKAGE.version}\n`);

    // The packed bundle keeps its per-command chunks: --version loads no command and no zod; `receipts` loads its own.
    const logged = (args: string[]) => {
      const log = join(desk, `modules-${args.join('-')}.log`);
      const child = run(process.execPath, ['--import', HOOK, join(installed, 'bin', 'drb.mjs'), ...args], desk, {
        DRB_MODULE_LOG: log,
      });
      expectCode(child, 0);
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter((url) => url.includes('/node_modules/'));
    };
    const versionModules = logged(['--version']);
    expect(versionModules.some((url) => url.endsWith(`/${PACKAGE.name}/dist-cli/main.js`))).toBe(true);
    expect(
      versionModules.filter((url) => /\/dist-cli\/[a-z-]+-[A-Z0-9]{8}\.js$/.test(url) && !url.includes('/chunk-')),
    ).toEqual([]);
    expect(versionModules.filter((url) => url.includes('/node_modules/zod/'))).toEqual([]);
    const receiptsModules = logged(['receipts', '--help']);
    expect(receiptsModules.some((url) => /\/dist-cli\/receipts-[A-Z0-9]{8}\.js$/.test(url))).toBe(true);
    expect(receiptsModules.filter((url) => /\/dist-cli\/(serve|score|public-pass)-/.test(url))).toEqual([]);

    // A tester's bundle: 5 network-cold and 20 warm receipts and the session sheet.
    const receipts = [
      ...Array.from({ length: 5 }, () =>
        buildReceipt({ kind: 'cold', coldMs: { fetch: 100, session: 200, first: 5 }, runtimeCache: 'network' }),
      ),
      ...Array.from({ length: 20 }, () => buildReceipt({ kind: 'warm', warmSamples: [2, 3, 4] })),
    ];
    const sheet: TesterSheet = {
      ...EMPTY_TESTER_SHEET,
      device_model: 'Pixel 8',
      ram_gb: 8,
      os_build: 'Android 16',
      browser: 'Chrome',
      browser_version: '142',
      network: 'Wi-Fi 5 GHz',
      battery_percent: 80,
      charging: false,
      thermal_state: 'nominal',
    };
    const bundle: ReceiptBundle = {
      schema: RECEIPT_BUNDLE_SCHEMA,
      created_at: '2026-12-01T08:00:00Z',
      app: receipts[0].app,
      protocol: null,
      sheet,
      receipts,
    };
    mkdirSync(join(desk, 'in'));
    writeFileSync(join(desk, 'in', 'session.json'), JSON.stringify(bundle));

    const validate = run(drb, ['receipts', 'validate', 'in/session.json'], desk);
    expectCode(validate, 0);
    expect(validate.stdout).toBe('ok: 25 receipt(s) valid, and 1 other drb artifact(s) valid by their own schema\n');

    const summarize = run(drb, ['receipts', 'summarize', 'in', '--out', 'summary'], desk);
    expectCode(summarize, 0);
    const summary = JSON.parse(readFileSync(join(desk, 'summary', 'summary.json'), 'utf8')) as ReceiptsSummary;
    expect(summary.targets).toHaveLength(1);
    const [target] = summary.targets;
    expect(target.counts).toMatchObject({ clean_cold: 5, clean_warm: 20, cold_set_aside: 0 });
    expect(target.session_sheets).toEqual([{ bundle: 'in/session.json', sheet }]);
    expect(readFileSync(join(desk, 'summary', 'summary.md'), 'utf8')).toContain(target.key);

    const template = run(
      drb,
      ['receipts', 'review-template', '--summary', 'summary/summary.json', '--target', target.key],
      desk,
    );
    expectCode(template, 0);
    const answers = JSON.parse(template.stdout) as Record<string, unknown>;
    expect(answers.device).toMatchObject({
      hardware_model: 'Pixel 8',
      ram_gb: 8,
      os_build: 'Android 16',
      browser: 'Chrome',
    });
    Object.assign(answers, {
      reviewer: 'qa-1',
      reviewed_at: '2026-12-01T10:00:00Z',
      public_revision: 'a'.repeat(40),
      launch_to_result_ms: 4000,
      tab: { reloaded_or_evicted: false, details: null },
      memory_pressure: { observed: false, behaviour: 'none observed' },
      output_stayed_correct: true,
    });
    writeFileSync(join(desk, 'answers.json'), JSON.stringify(answers));
    const review = run(
      drb,
      ['receipts', 'review', '--summary', 'summary/summary.json', '--target', target.key, '--answers', 'answers.json'],
      desk,
    );
    expectCode(review, 0);
    expect(review.stdout.split('\n')[0]).toBe(`${target.key}: DEVICE_PASS`);

    // What needs a checkout says so in one line, never with a stack trace.
    for (const args of [
      ['serve', '--build'],
      ['fixtures'],
      ['public-pass', '--url', 'https://example.invalid/'],
      ['models', 'verify'],
    ]) {
      const refused = run(drb, args, desk);
      expectCode(refused, 2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(
        new RegExp(
          `^error: drb ${args[0]} works only in a checkout \\(it [^\\n]+\\): clone the repository, ` +
            `run \`npm ci\` in it, then \`npx drb ${args[0]}\` there; this drb is an installed copy\\n$`,
        ),
      );
    }

    // An installed copy without its bundle (not made by npm pack) says so in one line.
    renameSync(join(installed, 'dist-cli'), join(installed, 'dist-cli-moved'));
    const unbundled = run(drb, ['--version'], desk);
    expectCode(unbundled, 2);
    expect(unbundled.stderr).toBe(
      `error: ${join(installed, 'dist-cli', 'main.js')}: missing, so this copy of drb cannot run: make the tarball ` +
        'with `npm pack` in a checkout and install that tarball again\n',
    );
  });
});
