/**
 * `drb models pin --dir DIR --id ID` and `drb models verify --dir DIR --id ID`: pins for real catalog models, taken
 * from a copy of the model that someone with network downloaded (for example
 * `huggingface-cli download REPO --revision COMMIT --local-dir DIR`).
 *
 * `pin` hashes every file the catalog entry lists (or only the shared files plus one dtype's with `--dtype`) and
 * writes their bytes and SHA-256, and the revision they were taken at, into the local pins overlay
 * (`src/catalog/pins.json`, docs/models.md), which the page build and the CLI both apply. `verify` checks a folder
 * against the pins in force (catalog + overlay).
 *
 * Exit codes: `verify` 0 when every file is pinned and matches, 1 for any mismatch, missing or unpinned file; `pin` 0
 * when the overlay was written, 1 when the folder's content is refused (a missing file, a file that differs from a pin
 * the catalog already has, another revision); both 2 for a bad id, folder, overlay or option, with one line.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CatalogError, type CatalogFile, type CatalogModel } from '../core/catalog/catalog.ts';
import {
  applyCatalogPins,
  CATALOG_PINS_SCHEMA,
  emptyCatalogPins,
  REVISION_PATTERN,
  type CatalogPins,
  type PinnedFile,
} from '../core/catalog/catalog-overlay.ts';
import { filesForDtype } from '../core/catalog/transformers-dtype.ts';
import { loadCatalog, PINS_FILE, type LoadedCatalog } from '../node/catalog-file.ts';
import {
  downloadedRevision,
  hashModelFile,
  listModelDir,
  ModelDirError,
  resolveModelDir,
  type HashedFile,
} from '../node/model-dir.ts';
import { CliError } from './cli-error.ts';
import { setExitCode } from './exit-code.ts';
import { writeFilesAtomically } from './output-files.ts';
import { quotedText, terminalText } from '../core/text/terminal-text.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface CommonOptions {
  dir: string;
  id: string;
  dtype?: string;
  pins?: string;
}

/** The catalog (with the overlay), the model, the files to check and the folder's real path; every usage error is exit 2. */
async function prepare(
  options: CommonOptions,
): Promise<{ loaded: LoadedCatalog; model: CatalogModel; files: CatalogFile[]; dirReal: string }> {
  let loaded: LoadedCatalog;
  try {
    loaded = loadCatalog(ROOT, options.pins === undefined ? undefined : resolve(options.pins));
  } catch (error) {
    if (error instanceof CatalogError) throw new CliError(error.message);
    throw error;
  }
  const model = loaded.catalog.models.find((m) => m.id === options.id);
  if (!model)
    throw new CliError(`--id: no catalog model ${quotedText(options.id)} (see src/catalog/catalog.json for the ids)`);
  let files = model.files;
  if (options.dtype !== undefined) {
    try {
      files = filesForDtype(model, options.dtype);
    } catch (error) {
      throw new CliError(`--dtype: ${terminalText((error as Error).message)}`);
    }
  }
  let dirReal: string;
  try {
    dirReal = await resolveModelDir(options.dir);
  } catch (error) {
    throw new CliError(`--dir ${terminalText(options.dir)}: ${(error as Error).message}`);
  }
  return { loaded, model, files, dirReal };
}

/** Progress on a terminal only (stderr), at most a few updates a second; nothing when output is piped. */
function progressReporter(): { file(path: string): (done: number, total: number) => void; end(): void } {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  const mb = (n: number) => `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)} MB`;
  return {
    file: (path) => (done, total) => {
      const now = Date.now();
      if (!tty || (now - last < 200 && done < total)) return;
      last = now;
      process.stderr.write(`\rhashing ${path}: ${mb(done)} of ${mb(total)}\u001b[K`);
    },
    end: () => {
      if (tty) process.stderr.write('\r\u001b[K');
    },
  };
}

/** Hashes each file; a missing file is returned as null, a refused one is a usage error (exit 2) naming it. */
async function hashAll(dirReal: string, files: CatalogFile[]): Promise<Array<HashedFile | null>> {
  const progress = progressReporter();
  const out: Array<HashedFile | null> = [];
  try {
    for (const file of files) {
      try {
        out.push(await hashModelFile(dirReal, file.path, progress.file(file.path)));
      } catch (error) {
        if (error instanceof ModelDirError && error.kind === 'missing') out.push(null);
        else if (error instanceof ModelDirError) throw new CliError(`--dir: ${error.message}`);
        else throw error;
      }
    }
  } finally {
    progress.end();
  }
  return out;
}

const human = (hashed: HashedFile) => `${hashed.bytes} bytes, sha256 ${hashed.sha256}`;

/** Files in the folder the entry does not list (quoted: names in a downloaded folder are not trusted text). */
async function unlistedNote(dirReal: string, model: CatalogModel): Promise<string | null> {
  const listed = new Set(model.files.map((f) => f.path));
  const extra = (await listModelDir(dirReal)).filter((path) => !listed.has(path));
  if (extra.length === 0) return null;
  const shown = extra.slice(0, 20).map((path) => quotedText(path));
  return `note: ${extra.length} file(s) in the folder are not in the catalog entry and were not pinned: ${shown.join(', ')}${extra.length > 20 ? ', ...' : ''}`;
}

/**
 * The revision the folder holds, from `--revision` and the Hugging Face download metadata; refuses a disagreement.
 * @returns the revision, and a note when it was assumed from the catalog
 */
async function folderRevision(
  model: CatalogModel,
  dirReal: string,
  files: CatalogFile[],
  given: string | undefined,
): Promise<{ revision: string | null; note: string | null }> {
  if (model.source.type !== 'huggingface') {
    if (given !== undefined)
      throw new CliError(`--revision: ${model.id} is served from the page's own origin and has no revision`);
    return { revision: null, note: null };
  }
  if (given !== undefined && !REVISION_PATTERN.test(given))
    throw new CliError(
      `--revision: ${quotedText(given)}: expected a 40-hex-digit commit id (a branch name moves, so it cannot be pinned)`,
    );
  const fromMetadata = new Set<string>();
  for (const file of files) {
    const revision = await downloadedRevision(dirReal, file.path);
    if (revision !== null) fromMetadata.add(revision);
  }
  if (fromMetadata.size > 1)
    throw new CliError(
      `--dir: the folder's download metadata names several revisions (${[...fromMetadata].join(', ')}); download one revision into an empty folder`,
      1,
    );
  const metadata = [...fromMetadata][0] ?? null;
  if (given !== undefined && metadata !== null && given !== metadata) {
    throw new CliError(`--revision ${given}: the folder's download metadata says its files come from ${metadata}`, 1);
  }
  const revision = given ?? metadata;
  const catalogRevision = model.source.revision;
  if (revision !== null && catalogRevision !== null && revision !== catalogRevision) {
    throw new CliError(
      `--dir: the folder holds revision ${revision}, the catalog loads ${model.id} at ${catalogRevision}; download that revision`,
      1,
    );
  }
  if (revision !== null) return { revision, note: null };
  if (catalogRevision === null) {
    throw new CliError(
      `--revision: ${model.id} names no revision in the catalog and the folder has no Hugging Face download metadata; pass the commit the files were downloaded at`,
    );
  }
  return {
    revision: catalogRevision,
    note: `note: no --revision and no download metadata: the files are taken to be the catalog's revision ${catalogRevision}`,
  };
}

async function pin(options: CommonOptions & { revision?: string }, command: Command): Promise<void> {
  const { loaded, model, files, dirReal } = await prepare(options);
  const base = loaded.base.models.find((m) => m.id === model.id)!;
  const { revision, note } = await folderRevision(base, dirReal, files, options.revision);
  const hashed = await hashAll(dirReal, files);
  const problems: string[] = [];
  const pinned: PinnedFile[] = [];
  files.forEach((file, i) => {
    const got = hashed[i];
    const own = base.files.find((f) => f.path === file.path)!;
    if (got === null) problems.push(`missing ${file.path}`);
    else if ((own.bytes !== null && own.bytes !== got.bytes) || (own.sha256 !== null && own.sha256 !== got.sha256)) {
      problems.push(`mismatch ${file.path}: ${human(got)}; the catalog pins ${own.bytes} bytes, sha256 ${own.sha256}`);
    } else pinned.push({ path: file.path, bytes: got.bytes, sha256: got.sha256 });
  });
  if (problems.length > 0) {
    for (const line of problems) process.stdout.write(`${line}\n`);
    process.stderr.write(
      `error: --dir ${terminalText(options.dir)}: ${problems.length} file(s) of ${model.id} cannot be pinned; nothing was written\n`,
    );
    setExitCode(command, 1);
    return;
  }
  const previous = loaded.pins ?? emptyCatalogPins();
  // Pins of other files of the same model at the same revision (another dtype pinned earlier) are kept.
  const earlier = previous.models[model.id];
  const kept =
    earlier && earlier.revision === revision ? earlier.files.filter((f) => !pinned.some((p) => p.path === f.path)) : [];
  const order = (path: string) => base.files.findIndex((f) => f.path === path);
  const modelFiles = [...kept, ...pinned].sort((a, b) => order(a.path) - order(b.path));
  const next: CatalogPins = {
    schema: CATALOG_PINS_SCHEMA,
    models: { ...previous.models, [model.id]: { revision, files: modelFiles } },
  };
  next.models = Object.fromEntries(Object.entries(next.models).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  try {
    applyCatalogPins(loaded.base, next, PINS_FILE);
  } catch (error) {
    if (error instanceof CatalogError) throw new CliError(error.message, 1);
    throw error;
  }
  if (note) process.stderr.write(`${note}\n`);
  const extra = await unlistedNote(dirReal, model);
  if (extra) process.stderr.write(`${extra}\n`);
  // All or nothing: a failure is one line, exit 1, the earlier overlay left as it was and no temporary file left.
  writeFilesAtomically([{ path: loaded.pinsPath, content: `${JSON.stringify(next, null, 2)}\n` }], '--pins');
  for (const file of pinned) process.stdout.write(`pinned ${file.path}: ${human(file)}\n`);
  const replaced =
    earlier && earlier.revision !== revision ? ` (replacing its pins at revision ${earlier.revision})` : '';
  process.stdout.write(
    `wrote ${terminalText(loaded.pinsPath)}: ${model.id}${revision ? ` at revision ${revision}` : ''}, ${modelFiles.length} file(s) pinned${replaced}\n`,
  );
}

async function verify(options: CommonOptions, command: Command): Promise<void> {
  const { model, files, dirReal } = await prepare(options);
  const hashed = await hashAll(dirReal, files);
  let problems = 0;
  files.forEach((file, i) => {
    const got = hashed[i];
    if (got === null) {
      problems++;
      process.stdout.write(`missing ${file.path}\n`);
    } else if (file.bytes === null || file.sha256 === null) {
      problems++;
      process.stdout.write(`unpinned ${file.path}: ${human(got)} (no pin to compare with: run drb models pin)\n`);
    } else if (file.bytes !== got.bytes || file.sha256 !== got.sha256) {
      problems++;
      process.stdout.write(`mismatch ${file.path}: ${human(got)}; pinned ${file.bytes} bytes, sha256 ${file.sha256}\n`);
    } else {
      process.stdout.write(`ok ${file.path}\n`);
    }
  });
  if (model.source.type === 'huggingface' && model.source.revision !== null) {
    const revisions = new Set(
      (await Promise.all(files.map((f) => downloadedRevision(dirReal, f.path)))).filter((r): r is string => r !== null),
    );
    for (const revision of revisions) {
      if (revision !== model.source.revision) {
        problems++;
        process.stdout.write(
          `mismatch revision: the folder's download metadata says ${revision}; pinned ${model.source.revision}\n`,
        );
      }
    }
  }
  if (problems > 0) {
    process.stderr.write(
      `error: --dir ${terminalText(options.dir)}: ${problems} problem(s) against the pins of ${model.id}\n`,
    );
    setExitCode(command, 1);
  } else {
    process.stdout.write(`verified: all ${files.length} file(s) of ${model.id} are pinned and match\n`);
  }
}

/** Registers `drb models pin` and `drb models verify` on `drb models` (named and described in main.ts). */
export function register(models: Command): void {
  const common = (sub: Command) =>
    sub
      .requiredOption(
        '--dir <dir>',
        'the downloaded model folder (the repository layout: config.json, tokenizer files, onnx/...)',
      )
      .requiredOption('--id <id>', 'the catalog model id')
      .option('--dtype <dtype>', "only the shared files and this dtype's ONNX files (fp32, fp16, q8, q4, ...)")
      .option('--pins <file>', `the pins overlay to use (default ${PINS_FILE})`);
  common(
    models
      .command('pin')
      .description(`hash the folder's files and write their pins and revision into the overlay (${PINS_FILE})`),
  )
    .option(
      '--revision <commit>',
      'the Hugging Face commit the folder was downloaded at (read from its download metadata when present)',
    )
    .action((options: CommonOptions & { revision?: string }, command: Command) => pin(options, command));
  common(
    models
      .command('verify')
      .description('check the folder against the pins in force; exit 1 on any mismatch, missing or unpinned file'),
  ).action((options: CommonOptions, command: Command) => verify(options, command));
}
