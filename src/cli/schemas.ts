import { join } from 'node:path';
import type { Command } from 'commander';
import { renderJsonSchemaFiles } from '../core/validation/json-schemas.ts';
import { setExitCode } from './exit-code.ts';
import { makeOutputDir, writeFilesAtomically } from './output-files.ts';
import { readBounded } from '../node/bounded-read.ts';
import { terminalText } from '../core/text/terminal-text.ts';

/**
 * Registers `drb schemas`: writes the published JSON Schema files (generated from the zod schemas registered in
 * src/core/validation/json-schemas.ts) into docs/schemas/, or with --check reports which committed files are stale.
 * @param command `drb schemas`, named and described in main.ts
 */
export function register(command: Command): void {
  command
    .option('--out <dir>', 'directory to write into', 'docs/schemas')
    .option('--check', 'write nothing; exit 1 when a committed file differs from the generated one')
    .action((flags: { out: string; check?: boolean }, command: Command) => {
      const files = renderJsonSchemaFiles();
      if (flags.check) {
        const stale = files.filter(({ fileName, text }) => {
          try {
            // Bounded, never blocking: --out may hold anything (a FIFO where a schema file should be is stale).
            return readBounded(join(flags.out, fileName), { limitBytes: 16 * 2 ** 20 }).bytes.toString('utf8') !== text;
          } catch {
            return true;
          }
        });
        for (const { fileName } of stale)
          process.stderr.write(
            `${terminalText(join(flags.out, fileName))}: $: missing or stale; run \`npx drb schemas\`\n`,
          );
        if (stale.length > 0) setExitCode(command, 1);
        else process.stdout.write(`${files.length} schema files up to date in ${terminalText(flags.out)}\n`);
        return;
      }
      makeOutputDir(flags.out, '--out');
      writeFilesAtomically(
        files.map(({ fileName, text }) => ({ path: join(flags.out, fileName), content: text })),
        `--out ${terminalText(flags.out)}`,
      );
      process.stdout.write(`wrote ${files.length} schema files to ${terminalText(flags.out)}\n`);
    });
}
