import { Command, CommanderError } from 'commander';
import { CliError } from './cli-error.ts';
import { exitCodeOf } from './exit-code.ts';
import { toolVersion } from './tool-version.ts';

/**
 * Each command module exports `register(program)`; one entry per command keeps this file free of logic.
 * Commands throw CliError for expected failures and return (or set) their exit code otherwise.
 * Keyed by command name so a run loads only the module it needs: start-up time counts in `drb score`'s
 * throughput, and some modules pull in heavy dependencies (Vite, playwright-core).
 */
const commandModules: Record<string, () => Promise<{ register: (program: Command) => void }>> = {
  // drb-commands (one entry per line: 'name': () => import('./file.ts'); keep this marker)
  'public-pass': () => import('./public-pass.ts'),
  receipts: () => import('./receipts.ts'),
  score: () => import('./score.ts'),
  compare: () => import('./compare.ts'),
  schemas: () => import('./schemas.ts'),
  fixtures: () => import('./fixtures.ts'),
  serve: () => import('./serve.ts'),
  models: () => import('./models.ts'),
  leaderboard: () => import('./leaderboard.ts'),
};

/** Runs the CLI with `argv` (without node and script) and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = new Command('drb')
    .description('Device Receipts Bench: device receipts for in-browser model runs, and a local-only scorer.')
    .version(toolVersion())
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  let exitCode = 0;
  program.hook('postAction', (_this, action) => {
    const code = exitCodeOf(action);
    if (typeof code === 'number') exitCode = code;
  });
  // The first non-option word names the command; with none (or `help`, or a typo) every command is loaded so
  // help and commander's "unknown command" suggestions see them all.
  const named = argv.find((arg) => !arg.startsWith('-'));
  const loaders = named !== undefined && Object.hasOwn(commandModules, named) ? [commandModules[named]] : Object.values(commandModules);
  for (const load of loaders) (await load()).register(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(`error: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof CommanderError) {
      // Commander has already printed its own message (usage errors, --help, --version).
      return error.exitCode === 0 ? 0 : 2;
    }
    throw error;
  }
}
