/**
 * `drb <command>` loads the module of that command only, and `drb --help` / `drb --version` load none (so no zod
 * schema): checked on the real binary, through its bundle and through tsx, by logging every module Node loads
 * (test/module-load-log.mjs). Every schema module imports the `zod` package, so a schema loaded eagerly shows up as
 * a file of node_modules/zod in the log; `drb schemas --help` is the control that shows it would.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, commandToLoad, createProgram } from '../../src/cli/main.ts';
import { testTempDir } from '../temp-dir.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOOK = join(ROOT, 'test', 'module-load-log.mjs');

interface LoggedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** every module URL Node loaded, in load order */
  modules: string[];
}

/** Runs the real `bin/drb.mjs` with every module load logged. */
function drbLogged(args: string[], env: Record<string, string> = {}): LoggedRun {
  const log = join(testTempDir('drb-modules-'), 'modules.log');
  const child = spawnSync(process.execPath, ['--import', HOOK, join(ROOT, 'bin', 'drb.mjs'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, DRB_MODULE_LOG: log, DRB_DEBUG_BUNDLE: '1', ...env },
  });
  let modules: string[] = [];
  try {
    modules = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
  } catch {
    // no module logged at all: the assertions below say so
  }
  return { code: child.status, stdout: child.stdout, stderr: child.stderr, modules };
}

/** The modules of the zod package among `modules`. */
const zodModules = (modules: string[]) => modules.filter((url) => url.includes('/node_modules/zod/'));

/**
 * The command modules among `modules`: `src/cli/<command>.ts` through tsx, or the bundle chunk esbuild names after
 * it (`<command>-<hash>.js`) in node_modules/.cache/drb-cli/.
 */
function commandModules(modules: string[]): string[] {
  const names = new Set<string>();
  for (const url of modules) {
    const source = /\/src\/cli\/([a-z-]+)\.ts$/.exec(url);
    const chunk = /\/node_modules\/\.cache\/drb-cli\/[0-9a-f]+\/([a-z-]+)-[A-Z0-9]{8}\.js$/.exec(url);
    const name = source?.[1] ?? chunk?.[1];
    if (name !== undefined && COMMAND_NAMES.includes(name)) names.add(name);
  }
  return [...names];
}

describe('drb loads only the command it runs', () => {
  for (const [path, env] of [
    ['bundle', {}],
    ['tsx', { DRB_NO_BUNDLE: '1' }],
  ] as const) {
    it(`--version and --help load no command module and no zod schema (${path})`, () => {
      const version = drbLogged(['--version'], env);
      expect(version.code).toBe(0);
      expect(version.stdout).toBe(
        `${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`,
      );
      // The run really went the way it says, and was logged: its entry module is in the log.
      if (path === 'bundle') {
        expect(version.stderr).toMatch(/^drb: (built and )?running the bundle /m);
        expect(version.modules.some((url) => /\/node_modules\/\.cache\/drb-cli\/[0-9a-f]+\/main\.js$/.test(url))).toBe(
          true,
        );
      } else {
        expect(version.modules).toContain(pathToFileURL(join(ROOT, 'src', 'cli', 'main.ts')).href);
      }
      expect(commandModules(version.modules)).toEqual([]);
      expect(zodModules(version.modules)).toEqual([]);

      const help = drbLogged(['--help'], env);
      expect(help.code).toBe(0);
      expect(commandModules(help.modules)).toEqual([]);
      expect(zodModules(help.modules)).toEqual([]);
      // Complete all the same: every command is listed.
      for (const name of COMMAND_NAMES) expect(help.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    });

    it(`a command loads its own module and no other's (${path})`, () => {
      const schemas = drbLogged(['schemas', '--help'], env);
      expect(schemas.code).toBe(0);
      expect(commandModules(schemas.modules)).toEqual(['schemas']);
      expect(zodModules(schemas.modules).length).toBeGreaterThan(0); // the control: a schema shows up as zod's modules

      const score = drbLogged(['help', 'score'], env);
      expect(score.code).toBe(0);
      expect(score.stdout).toMatch(/^Usage: drb score \[options\]$/m);
      expect(commandModules(score.modules)).toEqual(['score']);
      expect(zodModules(score.modules)).toEqual([]); // the score path reads plain files without zod
      expect(score.modules.filter((url) => /\/node_modules\/(vite|playwright-core)\//.test(url))).toEqual([]);
    });
  }
});

describe('drb --help without the command modules', () => {
  it('prints exactly the help commander makes with every command module registered', async () => {
    const listed = await createProgram([]);
    const full = await createProgram(COMMAND_NAMES);
    expect(listed.helpInformation()).toBe(full.helpInformation());
    // A real check: the full program has the options the listed one lacks.
    expect(full.commands.find((c) => c.name() === 'score')?.options.length).toBeGreaterThan(0);
    expect(listed.commands.find((c) => c.name() === 'score')?.options).toEqual([]);
    for (const command of full.commands) expect(listed.helpInformation()).toContain(`  ${command.name()}`);
  });

  it('names the command to load from the first word, or the word after help', () => {
    expect(commandToLoad(['score', '--items', 'a.json'])).toBe('score');
    expect(commandToLoad(['--help'])).toBeUndefined();
    expect(commandToLoad(['--version'])).toBeUndefined();
    expect(commandToLoad([])).toBeUndefined();
    expect(commandToLoad(['scor'])).toBeUndefined();
    expect(commandToLoad(['help'])).toBeUndefined();
    expect(commandToLoad(['help', 'receipts', 'validate'])).toBe('receipts');
    expect(commandToLoad(['toString'])).toBeUndefined(); // not a property of the command table's prototype
  });
});
