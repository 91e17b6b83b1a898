/**
 * `drb fixtures [--check] [--root DIR]`: regenerates every deterministic fixture under public/ and refreshes the
 * catalog pins. `--check` writes nothing and exits 1 when a committed file or pin differs from what the generators
 * produce. Every file under the root is read through the CLI's one bounded reader (src/node/bounded-read.ts): the
 * catalog within 16 MiB, each fixture within its generated size (a larger file differs, and is never read whole); a
 * FIFO, a device or a folder where a file belongs is refused with one line before anything is written.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CatalogError, parseCatalog } from '../core/catalog/catalog.ts';
import { jsonSyntaxProblem } from '../core/text/json-syntax.ts';
import { terminalText } from '../core/text/terminal-text.ts';
import { BoundedReadError, readBounded } from '../node/bounded-read.ts';
import { pinFixtures } from '../fixtures/catalog-pins.ts';
import { generateAllFixtures } from '../fixtures/fixture-generators.ts';
import { CliError } from './cli-error.ts';
import { setExitCode } from './exit-code.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where the catalog lives, relative to the project root. */
export const CATALOG_PATH = 'src/catalog/catalog.json';

/** The largest catalog.json read (it is tens of kB). */
const MAX_CATALOG_BYTES = 16 * 2 ** 20;

/**
 * A file under the root as bytes, read bounded: null when it does not exist or is larger than `limitBytes` (either
 * way it differs from the generated file and is rewritten).
 * @throws CliError naming the file for anything that is not a regular file, or that cannot be read
 */
function readUnderRoot(path: string, shown: string, limitBytes: number): Uint8Array | null {
  try {
    return new Uint8Array(readBounded(path, { limitBytes }).bytes);
  } catch (error) {
    if (!(error instanceof BoundedReadError)) throw error;
    if (error.failure === 'too-large' || error.code === 'ENOENT') return null;
    throw new CliError(`${shown}: (root): ${error.message}`);
  }
}

function sameBytes(a: Uint8Array | null, b: Uint8Array): boolean {
  return a !== null && a.byteLength === b.byteLength && a.every((v, i) => v === b[i]);
}

// Write to a temporary name, then rename: a crash never leaves a half-written fixture or catalog.
async function writeAtomic(path: string, bytes: Uint8Array | string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(`${path}.tmp`, bytes);
  await rename(`${path}.tmp`, path);
}

/** Registers `drb fixtures`' options and action on its command (named and described in main.ts). */
export function register(command: Command): void {
  command
    .option('--check', 'write nothing; exit 1 if committed fixtures or pins differ from the generators')
    .option('--root <dir>', 'project root to write into (default: this project)')
    .action(async function (this: Command, options: { check?: boolean; root?: string }) {
      const root = options.root ?? ROOT;
      const catalogFile = join(root, CATALOG_PATH);
      let catalogBytes: Uint8Array;
      try {
        catalogBytes = readBounded(catalogFile, { limitBytes: MAX_CATALOG_BYTES }).bytes;
      } catch (error) {
        if (!(error instanceof BoundedReadError)) throw error;
        throw new CliError(`${CATALOG_PATH}: (root): cannot read catalog: ${error.message}`);
      }
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(catalogBytes);
      } catch {
        throw new CliError(`${CATALOG_PATH}: (root): cannot read catalog: not valid UTF-8`);
      }
      let catalogJson: unknown;
      try {
        catalogJson = JSON.parse(text);
      } catch (error) {
        // Never V8's message: it quotes the file's bytes (terminal escapes) into the terminal.
        throw new CliError(
          `${CATALOG_PATH}: (root): cannot read catalog: not valid JSON (${jsonSyntaxProblem(error, text)})`,
        );
      }
      let catalog;
      try {
        catalog = parseCatalog(catalogJson, CATALOG_PATH);
      } catch (error) {
        if (error instanceof CatalogError) throw new CliError(error.message);
        throw error;
      }
      const files = await generateAllFixtures();
      const pinned = await pinFixtures(catalog, files);
      const stale = [];
      for (const file of files) {
        const target = join(root, 'public', file.publicPath);
        const shown = `public/${terminalText(file.publicPath)}`;
        if (!sameBytes(readUnderRoot(target, shown, file.bytes.byteLength), file.bytes)) stale.push(file);
      }
      if (options.check) {
        for (const file of stale)
          process.stderr.write(`error: public/${file.publicPath}: differs from the generator\n`);
        for (const pin of pinned.changed)
          process.stderr.write(`error: ${CATALOG_PATH}: ${pin}: pin differs from the generated file\n`);
        const problems = stale.length + pinned.changed.length;
        if (problems > 0) setExitCode(this, 1);
        else process.stdout.write(`fixtures: ${files.length} files and their catalog pins match the generators\n`);
        return;
      }
      for (const file of stale) {
        await writeAtomic(join(root, 'public', file.publicPath), file.bytes);
        process.stdout.write(`wrote public/${file.publicPath} (${file.bytes.byteLength} bytes)\n`);
      }
      if (pinned.changed.length > 0) {
        await writeAtomic(catalogFile, `${JSON.stringify(pinned.catalog, null, 2)}\n`);
        process.stdout.write(
          `updated ${CATALOG_PATH} to version ${pinned.catalog.version}: ${pinned.changed.join(', ')}\n`,
        );
      }
      process.stdout.write(
        `fixtures: ${files.length} files, ${stale.length} written, ${pinned.changed.length} pins updated\n`,
      );
    });
}
