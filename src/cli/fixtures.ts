/**
 * `drb fixtures [--check]`: regenerates every deterministic fixture under public/ and refreshes the catalog pins.
 * `--check` writes nothing and exits 1 when a committed file or pin differs from what the generators produce.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CatalogError, parseCatalog } from '../core/catalog/catalog.ts';
import { pinFixtures } from '../fixtures/catalog-pins.ts';
import { generateAllFixtures } from '../fixtures/fixture-generators.ts';
import { CliError } from './cli-error.ts';
import { setExitCode } from './exit-code.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where the catalog lives, relative to the project root. */
export const CATALOG_PATH = 'src/catalog/catalog.json';

async function readOrNull(path: string): Promise<Uint8Array | null> {
  try {
    return new Uint8Array(await readFile(path));
  } catch {
    return null;
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
      let catalogJson: unknown;
      try {
        catalogJson = JSON.parse(await readFile(catalogFile, 'utf8'));
      } catch (error) {
        throw new CliError(`${CATALOG_PATH}: (root): cannot read catalog: ${(error as Error).message}`);
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
        if (!sameBytes(await readOrNull(target), file.bytes)) stale.push(file);
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
