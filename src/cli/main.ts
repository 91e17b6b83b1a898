import { Command, CommanderError, Help } from 'commander';
import { runsFromCheckout } from './checkout.ts';
import { CliError } from './cli-error.ts';
import { exitCodeOf } from './exit-code.ts';
import { toolVersion } from './tool-version.ts';
import { terminalLines } from '../core/text/terminal-text.ts';

/** What a command module exports: `register` adds the command's options, subcommands and action to it. */
interface CommandModule {
  register: (command: Command) => void;
}

/** One `drb` command as `drb --help` lists it, and the module that implements it. */
interface CommandEntry {
  /** the description `drb --help` lists and `drb <name> --help` shows */
  description: string;
  /** what `drb --help` prints after the name, as commander would: '[options]', its arguments, or '' for neither */
  usage: string;
  /** imports the command's module */
  load: () => Promise<CommandModule>;
  /**
   * Set when the command works only in a checkout: what it needs from one. An installed copy of a packed tarball
   * (no sources, no development dependencies) refuses it with one line before loading its module.
   */
  needsCheckout?: string;
}

/**
 * Every command, in the order `drb --help` lists them. Commands throw CliError for expected failures and return
 * (or set) their exit code otherwise. A run imports the module of the command it names and no other: start-up
 * counts in `drb score`'s throughput, and modules pull in heavy dependencies (Vite, playwright-core, the zod
 * schemas). `drb --help`, `drb --version` and a mistyped name import none, so `drb --help` is made from this
 * table; test/unit/cli-lazy-commands.test.ts checks it against the help made with every module registered.
 */
const COMMANDS: Record<string, CommandEntry> = {
  // drb-commands (one entry per command: its description, whether it has options, and its module; keep this marker)
  'field-run': {
    description:
      "carry out a field protocol's procedure unattended in a browser lane: fresh-session colds, warms, one bundle " +
      'and a review template',
    usage: '[options]',
    load: () => import('./field-run.ts'),
    needsCheckout: 'drives a browser through playwright-core, a development dependency',
  },
  'public-pass': {
    description:
      'open a deployed page anonymously in a fresh browser, run cold and warm, save and validate receipts, write a ' +
      'PUBLIC_PASS record',
    usage: '[options]',
    load: () => import('./public-pass.ts'),
    needsCheckout: 'drives a browser through playwright-core, a development dependency',
  },
  receipts: {
    description: 'Validate, summarise and review device receipts.',
    usage: '',
    load: () => import('./receipts.ts'),
  },
  score: {
    description:
      'Score a predictions artifact against a pinned items artifact (LOCAL_EVALUATION); writes JSON + Markdown reports.',
    usage: '[options]',
    load: () => import('./score.ts'),
  },
  compare: {
    description:
      'Paired comparison of two runs (predictions files, or --per-row score reports) over the same items; with ' +
      '--url, routes compared on the page in a browser.',
    usage: '[options]',
    load: () => import('./compare.ts'),
  },
  schemas: {
    description: 'Regenerate the JSON Schema files under docs/schemas/ from the zod sources (or --check them).',
    usage: '[options]',
    load: () => import('./schemas.ts'),
  },
  fixtures: {
    description: 'regenerate the deterministic model fixtures under public/ and refresh their catalog pins',
    usage: '[options]',
    load: () => import('./fixtures.ts'),
    needsCheckout: 'writes the model fixtures into the sources (public/, the catalog) with onnx-proto',
  },
  serve: {
    description: 'serve the built page on 127.0.0.1 with COOP/COEP/CORP and the CSP',
    usage: '[options]',
    load: () => import('./serve.ts'),
    needsCheckout: 'builds and serves the page from the sources and their model catalog',
  },
  models: {
    description: 'pin real catalog models from a downloaded copy, and verify a copy against the pins',
    usage: '',
    load: () => import('./models.ts'),
    needsCheckout: "reads and writes the sources' model catalog and pins",
  },
  'score-answers': {
    description:
      'Score generated answers against a case set (claims, critical claims, prohibited claims, [S#] citations); ' +
      'writes JSON + Markdown.',
    usage: '[options]',
    load: () => import('./score-answers.ts'),
  },
  gate: {
    description:
      'The reranker escalation gate: a frozen plan, then per-step decisions from score, compare and device reports.',
    usage: '',
    load: () => import('./gate.ts'),
  },
  leaderboard: {
    description:
      'Write DIR/index.html: an offline leaderboard of many targets (individual metrics first, fit score only for ' +
      'ranked rows, failed rows marked, verified and community rows apart, Pareto view, governance at the top).',
    usage: '[options] <paths...>',
    load: () => import('./leaderboard.ts'),
  },
};

/** The names of every command, in `drb --help`'s order. */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

/**
 * The command a run names, whose module it needs: the first word that is not an option (or, after `help`, the word
 * after it); undefined when that is no command (no word at all, `--help`, `--version`, a typo).
 * @param argv the arguments without node and script
 */
export function commandToLoad(argv: readonly string[]): string | undefined {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  const named = words[0] === 'help' ? words[1] : words[0];
  return named !== undefined && Object.hasOwn(COMMANDS, named) ? named : undefined;
}

/**
 * The root command with every command on it: the ones in `load` with their module registered, the others as
 * their name and description only (enough for `drb --help`, and for commander's "unknown command" suggestions).
 * @param load the names of the commands whose modules to import and register
 */
export async function createProgram(load: readonly string[]): Promise<Command> {
  const program = new Command('drb')
    .description('Device Receipts Bench: device receipts for in-browser model runs, and a local-only scorer.')
    .version(toolVersion())
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  const listedOnly = new Map<Command, CommandEntry>();
  program.configureHelp({
    // A command whose module was not loaded has no options on it yet: `drb --help` takes its usage from the table.
    subcommandTerm(this: Help, command: Command): string {
      const entry = listedOnly.get(command);
      if (entry === undefined) return Help.prototype.subcommandTerm.call(this, command);
      return entry.usage === '' ? command.name() : `${command.name()} ${entry.usage}`;
    },
  });
  const modules = await Promise.all(load.map((name) => COMMANDS[name].load()));
  for (const [name, entry] of Object.entries(COMMANDS)) {
    const command = program.command(name).description(entry.description);
    const at = load.indexOf(name);
    if (at >= 0) modules[at].register(command);
    else listedOnly.set(command, entry);
  }
  return program;
}

/** Runs the CLI with `argv` (without node and script) and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const named = commandToLoad(argv);
  const needs = named === undefined ? undefined : COMMANDS[named].needsCheckout;
  if (needs !== undefined && !runsFromCheckout()) {
    process.stderr.write(
      `error: drb ${named} works only in a checkout (it ${needs}): clone the repository, run \`npm ci\` in it, ` +
        `then \`npx drb ${named}\` there; this drb is an installed copy\n`,
    );
    return 2;
  }
  const program = await createProgram(named === undefined ? [] : [named]);
  let exitCode = 0;
  program.hook('postAction', (_this, action) => {
    const code = exitCodeOf(action);
    if (typeof code === 'number') exitCode = code;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(`error: ${terminalLines(error.message)}\n`);
      return error.exitCode;
    }
    if (error instanceof CommanderError) {
      // Commander has already printed its own message (usage errors, --help, --version).
      return error.exitCode === 0 ? 0 : 2;
    }
    throw error;
  }
}
