/**
 * `drb serve [--build] [--port N] [--host H] [--dir DIR]`: serves the built page with cross-origin isolation headers
 * and the strict CSP, and prints its URL. `npm start` = `drb serve --build`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CatalogError } from '../core/catalog/catalog.ts';
import { modelHosts } from '../core/catalog/csp.ts';
import { loadCatalog } from '../node/catalog-file.ts';
import { refuseBuildDir } from '../node/page-build.ts';
import { startStaticServer } from '../node/static-server.ts';
import { CliError } from './cli-error.ts';
import { terminalText } from '../core/text/terminal-text.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The model hosts the page's CSP must allow, from this checkout's catalog (the static server's `modelHosts`); a
 * catalog that does not load is one line. Shared by `drb serve` and `drb field-run`, which serves the page too.
 */
export function catalogModelHosts(): string[] {
  try {
    return modelHosts(loadCatalog(ROOT).catalog);
  } catch (error) {
    if (error instanceof CatalogError) throw new CliError(error.message);
    throw error;
  }
}

/** Registers `drb serve`'s options and action on its command (named and described in main.ts). */
export function register(command: Command): void {
  command
    .option('--build', 'run `vite build` first')
    .option('--port <n>', 'port (0 = any free port)', '8080')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--dir <dir>', 'folder to serve', 'dist')
    .action(async (options: { build?: boolean; port: string; host: string; dir: string }) => {
      if (!/^\d+$/.test(options.port) || Number(options.port) > 65535) {
        throw new CliError(`--port: '${terminalText(options.port)}': expected an integer from 0 to 65535`);
      }
      const dir = resolve(options.dir);
      if (options.build) {
        // Vite empties its output folder: only a folder that holds nothing but an earlier build of the page may be
        // handed to it (never the checkout, a parent of it, or a folder with anything the build did not write).
        const refused = refuseBuildDir(dir, ROOT);
        if (refused !== null) throw new CliError(`--dir ${terminalText(options.dir)}: ${refused}; nothing was deleted`);
        const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
        const result = spawnSync(process.execPath, [vite, 'build', '--outDir', dir, '--emptyOutDir'], {
          cwd: ROOT,
          stdio: 'inherit',
        });
        if (result.status !== 0) throw new CliError(`vite build failed (exit ${result.status})`, 1);
      }
      if (!existsSync(join(dir, 'index.html'))) {
        throw new CliError(
          `${terminalText(options.dir)}: no index.html: build the page first (npm run build, or drb serve --build)`,
        );
      }
      const hosts = catalogModelHosts();
      let server;
      try {
        server = await startStaticServer({
          dir,
          port: Number(options.port),
          host: options.host,
          modelHosts: hosts,
        });
      } catch (error) {
        throw new CliError(
          `cannot listen on ${terminalText(options.host)}:${terminalText(options.port)}: ${terminalText((error as Error).message)}`,
          1,
        );
      }
      process.stdout.write(
        `Serving ${terminalText(dir)} at ${terminalText(server.url)} (cross-origin isolated; Ctrl+C to stop)\n`,
      );
      await new Promise<void>((resolveStop) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void server.close().then(resolveStop);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
