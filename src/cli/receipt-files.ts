/**
 * File handling for `drb receipts`: expanding PATH arguments into JSON files (folders recursed, sorted so every
 * run sees the same order), and writing output files atomically without clobbering a file that is not ours.
 */
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, isAbsolute } from 'node:path';
import { CliError } from './cli-error.ts';

/** The files `collectJsonFiles` found: the ones to read, and symbolic links met inside folders (reported, not read). */
export interface JsonFiles {
  files: string[];
  symlinks: string[];
}

/** The line a reader reports for a symbolic link met inside a folder. */
export const SYMLINK_PROBLEM = 'a symbolic link inside a folder: not followed (name its target to check it)';

/**
 * Every file named by `paths`: files as given, folders recursed for `*.json` (sorted, hidden entries and
 * node_modules skipped). A `*.json` symbolic link inside a folder is not followed (it may point anywhere, or at a
 * file counted already) but listed in `symlinks`, so readers report it instead of skipping it without a word.
 * Throws CliError (exit 2) for a missing path or when nothing is found.
 * @param paths the PATH arguments
 * @param skip folders to leave out (absolute), e.g. the summary output folder
 */
export function collectJsonFiles(paths: readonly string[], skip: readonly string[] = []): JsonFiles {
  if (paths.length === 0) throw new CliError('no PATH given: name receipt files or folders');
  const out: string[] = [];
  const symlinks: string[] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      throw new CliError(`${dir}: cannot read folder: ${(error as Error).message}`);
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!skip.some((s) => sameFile(s, full))) walk(full);
      } else if (entry.isFile() && entry.name.endsWith('.json')) out.push(full);
      else if (entry.isSymbolicLink() && entry.name.endsWith('.json')) symlinks.push(full);
    }
  };
  for (const path of paths) {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      throw new CliError(`${path}: no such file or folder`);
    }
    if (stat.isDirectory()) walk(path);
    else out.push(path);
  }
  if (out.length === 0 && symlinks.length === 0) throw new CliError(`${paths.join(', ')}: no .json files found (an empty input is not a pass)`);
  return { files: out, symlinks };
}

function sameFile(a: string, b: string): boolean {
  try {
    const sa = statSync(a);
    const sb = statSync(b);
    return sa.ino === sb.ino && sa.dev === sb.dev;
  } catch {
    return false;
  }
}

/** `file` as shown in output and stored in summaries: relative to the working folder when inside it. */
export function displayPath(file: string, cwd = process.cwd()): string {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split('\\').join('/') : file;
}

/**
 * Reads a file as bytes, turning a read error into CliError (exit 2).
 * @param file the path to read
 */
export function readBytes(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new CliError(`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * Writes `files` (path -> content) so that either all are written or none is changed: each goes to a temporary
 * name first and is renamed into place only after every write succeeded. By hand rather than write-file-atomic:
 * two files must switch together, and it is a few lines of node:fs.
 * @param files what to write
 */
export function writeFilesAtomically(files: ReadonlyArray<{ path: string; content: string | Uint8Array }>): void {
  const temps: Array<{ temp: string; path: string }> = [];
  for (const { path, content } of files) {
    const temp = `${path}.tmp-${process.pid}`;
    writeFileSync(temp, content);
    temps.push({ temp, path });
  }
  for (const { temp, path } of temps) renameSync(temp, path);
}

/**
 * Refuses (CliError, exit 2) to replace an existing file unless `isOurs` says it is one this tool wrote.
 * @param path the file about to be replaced
 * @param isOurs inspects the existing content
 * @param what how to describe the expected content in the error
 */
export function guardOverwrite(path: string, isOurs: (content: string) => boolean, what: string): void {
  if (!existsSync(path)) return;
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch {
    throw new CliError(`${path}: exists and cannot be read; refusing to overwrite it`);
  }
  if (!isOurs(content)) throw new CliError(`${path}: exists and is not ${what}; refusing to overwrite it (choose another --out)`);
}
