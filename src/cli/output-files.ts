/**
 * Writing output files from the CLI so that a failure is one line, a non-zero exit and nothing left behind: output
 * folders made one level at a time, files written all-or-nothing through short temporary names that are removed
 * again on any failure, and file-system errors turned into one line with their code.
 */
import { lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CliError } from './cli-error.ts';
import { quotedText, terminalText } from '../core/text/terminal-text.ts';

/** The longest file name (in bytes) the common file systems (ext4, APFS, NTFS as UTF-16 units) accept. */
export const MAX_FILE_NAME_BYTES = 255;

// What a user can do about the common file-system failures, by error code.
const FS_PROBLEMS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EEXIST: 'already exists',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'is a folder',
  ENOENT: 'no such folder (or it cannot hold files)',
  ENAMETOOLONG: 'the name is too long',
  EIO: 'input/output error',
};

/**
 * One line for a file-system error: its code and what it means (never a stack).
 * @param error what node:fs threw
 */
export function fsProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === undefined) return error instanceof Error ? error.message : String(error);
  return FS_PROBLEMS[code] ? `${FS_PROBLEMS[code]} (${code})` : code;
}

/**
 * Refuses a file name the file system cannot hold (CliError, exit 2), before anything is written.
 * @param name the file name (no folder)
 * @param what how to name its source in the message, e.g. `--stem`
 */
export function checkFileName(name: string, what: string): void {
  const bytes = Buffer.byteLength(name);
  if (bytes > MAX_FILE_NAME_BYTES) {
    throw new CliError(
      `${what}: the file name ${quotedText(`${name.slice(0, 40)}...`)} is ${bytes} bytes; a file name holds at most ${MAX_FILE_NAME_BYTES}`,
    );
  }
}

/**
 * Makes `dir` and any missing parents, one level at a time: Node 20's recursive mkdir never returns for a path in
 * a file system that refuses new folders with ENOENT (`/proc/x` spins at 100% CPU), so it is not used.
 * @param dir the folder to make
 * @param what how to name it in the message, e.g. `--out`
 * @throws CliError (exit 2) with one line when it cannot be made or a part of it is a file
 */
export function makeOutputDir(dir: string, what: string): void {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    let info;
    try {
      info = lstatSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new CliError(`${what} ${terminalText(dir)}: cannot use ${terminalText(at)}: ${fsProblem(error)}`);
    }
    if (info !== undefined) {
      // A symlink is taken as the folder it names; writing through it reports any problem with it.
      if (!info.isDirectory() && !info.isSymbolicLink())
        throw new CliError(`${what} ${terminalText(dir)}: ${terminalText(at)} is a file, not a folder`);
      break;
    }
    missing.push(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new CliError(`${what} ${terminalText(dir)}: cannot create ${terminalText(folder)}: ${fsProblem(error)}`);
    }
  }
}

/** One file to write: where, and its content. */
export interface OutputFile {
  path: string;
  content: string | Uint8Array;
}

/**
 * Writes `files` so that either all are in place or none is changed: each goes to a short temporary name in its own
 * folder (`.drb-<pid>-<n>.tmp`, whatever the target's name, so a long name never breaks the clean-up) and is
 * renamed into place only after every write succeeded. On any failure every temporary file is removed and one line
 * is thrown. By hand rather than write-file-atomic: several files must switch together, and it is a few lines.
 * @param files what to write (their folders must exist)
 * @param what how to name the output in the message, e.g. `--out receipts/summary`
 * @param write the writer (tests inject a failing one; node:fs otherwise)
 */
export function writeFilesAtomically(
  files: readonly OutputFile[],
  what: string,
  write: (path: string, content: string | Uint8Array) => void = writeFileSync,
): void {
  for (const { path } of files) checkFileName(basename(path), what);
  const temps = files.map(({ path }, index) => join(dirname(path), `.drb-${process.pid}-${index}.tmp`));
  let renamed = 0;
  try {
    files.forEach(({ content }, index) => write(temps[index], content));
    for (; renamed < files.length; renamed++) renameSync(temps[renamed], files[renamed].path);
  } catch (error) {
    for (const temp of temps.slice(renamed)) {
      try {
        rmSync(temp, { force: true });
      } catch {
        // Nothing more to do: the message below names the failure.
      }
    }
    const at = renamed > 0 ? ` (${renamed} of ${files.length} file(s) were already replaced)` : '';
    throw new CliError(
      `${what}: cannot write ${terminalText(files[renamed]?.path ?? files[0].path)}: ${fsProblem(error)}${at}`,
      1,
    );
  }
}
