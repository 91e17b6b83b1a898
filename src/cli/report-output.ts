import { createHash } from 'node:crypto';
import { closeSync, existsSync, readSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { MAX_ARTIFACT_BYTES, tooLargeError } from '../core/artifacts/artifact-error.ts';
import type { ArtifactBytes, ArtifactReader, ArtifactStream } from '../core/scoring/score-run.ts';
import { CliError } from './cli-error.ts';
import { checkFileName, makeOutputDir, writeFilesAtomically } from './output-files.ts';
import { decodeUtf8Text } from './utf8-text.ts';
import { BoundedReadError, openNonBlocking, readBounded } from '../node/bounded-read.ts';
import { hasUnsafeTerminalChar, quotedText, terminalText } from '../core/text/terminal-text.ts';

/**
 * Reads an input artifact for the scorer, once, through the CLI's one bounded reader (src/node/bounded-read.ts): the
 * bytes in chunks, each hashed (SHA-256) as soon as it is read, so no second pass over the file is needed for its
 * hash. A regular file is read up to `limit`; a pipe (`<(command)`) too, within a time limit; a FIFO that has no
 * writer is read as empty at once (it never blocks); a character device, socket or folder is refused with one line.
 * Returns the bytes, the path as given (for messages), its base name (for the report, so the report does not depend
 * on where the file sat), the hash, and Node's fast UTF-8 decoder for the rare file the core's byte readers decline.
 * @param path the path the user gave
 * @param limit the largest file accepted, in bytes (a parameter so that tests need not make a half-gigabyte file)
 * @param timeLimitMs how long a pipe may take to reach its end
 * @throws CliError when the file cannot be read, is not a regular file or a pipe, or is larger than `limit` (checked
 *   before reading a byte, and again while reading, for files that grow or report no size)
 */
export function readArtifact(path: string, limit = MAX_ARTIFACT_BYTES, timeLimitMs?: number): ArtifactBytes {
  let read;
  try {
    read = readBounded(path, { limitBytes: limit, pipes: true, hash: true, timeLimitMs });
  } catch (error) {
    throw artifactReadError(path, error, limit);
  }
  return {
    // A plain Uint8Array over the same memory: the core's byte readers run faster on it than on a Buffer subclass.
    bytes: new Uint8Array(read.bytes.buffer, read.bytes.byteOffset, read.bytes.length),
    fileName: shownArg(path),
    reportName: shownArg(basename(path)),
    fastDecode: decodeUtf8Text,
    sha256: read.sha256!,
  };
}

/** The one line for a file the bounded reader refused, in the scorer's `<file>: $: <problem>` form. */
function artifactReadError(path: string, error: unknown, limit: number): CliError {
  if (!(error instanceof BoundedReadError)) throw error;
  if (error.failure === 'too-large') return new CliError(tooLargeError(shownArg(path), error.size, limit).message);
  if (error.failure === 'cannot-open' || error.failure === 'read-error')
    return new CliError(`${shownArg(path)}: $: cannot read the file (${error.code ?? error.message})`);
  if (error.failure === 'folder') return new CliError(`${shownArg(path)}: $: cannot read the file (EISDIR)`);
  return new CliError(`${shownArg(path)}: $: ${error.message}`);
}

/**
 * Opens a predictions file for the scorer to read in pieces (see ArtifactStream): a regular file is read through a
 * reused window and hashed as it is read, so it never sits in memory whole; a pipe is read whole now, as
 * readArtifact does (bounded, with a time limit). Opening never blocks (a FIFO without a writer). Close it when done.
 * @param path the path the user gave
 * @param limit the largest file accepted, in bytes
 * @throws CliError when the file cannot be opened, is not a regular file or a pipe, or is larger than `limit`
 */
export function openArtifact(
  path: string,
  limit = MAX_ARTIFACT_BYTES,
): (ArtifactStream | ArtifactBytes) & { close(): void } {
  let fd: number;
  let size: number;
  let regular: boolean;
  try {
    const opened = openNonBlocking(path);
    fd = opened.fd;
    size = opened.stats.size;
    regular = opened.stats.isFile();
  } catch (error) {
    throw artifactReadError(path, error, limit);
  }
  if (!regular) {
    closeSync(fd);
    return { ...readArtifact(path, limit), close: () => undefined };
  }
  if (size > limit) {
    closeSync(fd);
    throw new CliError(tooLargeError(shownArg(path), size, limit).message);
  }
  let closed = false;
  return {
    fileName: shownArg(path),
    reportName: shownArg(basename(path)),
    fastDecode: decodeUtf8Text,
    size,
    open(): ArtifactReader {
      const hash = createHash('sha256');
      let position = 0;
      return {
        read(target: Uint8Array, offset: number, length: number): number {
          let read: number;
          try {
            read = readSync(fd, target, offset, length, position);
          } catch (error) {
            throw cannotRead(path, error);
          }
          hash.update(target.subarray(offset, offset + read));
          position += read;
          return read;
        },
        sha256: () => hash.digest('hex'),
      };
    },
    close() {
      if (!closed) closeSync(fd);
      closed = true;
    },
  };
}

function cannotRead(path: string, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException).code;
  return new CliError(`${shownArg(path)}: $: cannot read the file (${code ?? (error as Error).message})`);
}

/**
 * A path or value the user typed, as a message shows it: control, line-separator and bidirectional characters as
 * visible escapes (src/core/text/terminal-text.ts).
 * @param value the flag's value as typed
 */
export function shownArg(value: string): string {
  return terminalText(value);
}

/**
 * Parses `--candidate-limit`.
 * @param text the flag's value as typed
 */
export function parseCandidateLimit(text: string): number {
  if (!/^[0-9]+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw new CliError(`--candidate-limit: must be a whole number >= 1, got ${quotedText(text)}`);
  }
  return Number(text);
}

/** One report file about to be written: its content and how to recognise an earlier file of ours at that path. */
export interface ReportFile {
  extension: '.json' | '.md';
  text: string;
  /** true when the existing text at the path is a report of the same kind (safe to replace on a re-run) */
  isOurs: (existing: string) => boolean;
}

/**
 * Writes `DIR/STEM.json` and `DIR/STEM.md` only after everything succeeded: each goes to a temporary name first and
 * is renamed into place, so no reader ever sees a partial report. Replacing an earlier report of the same kind is a
 * normal re-run; any other existing file, or a path that is one of the inputs, is refused (never overwritten).
 * Written by hand rather than with write-file-atomic: a temp file and a rename per report is a few lines, and the
 * all-or-nothing rule spans two files, which a per-file library does not cover.
 * @param outputDir the output directory (created if missing)
 * @param stem the file name without extension
 * @param files the files to write
 * @param inputPaths the input files of this run (never to be overwritten)
 * @param write the file writer (tests inject a failing one)
 * @returns the written paths
 */
export function writeReportFiles(
  outputDir: string,
  stem: string,
  files: ReportFile[],
  inputPaths: string[],
  write: (path: string, content: string | Uint8Array) => void = writeFileSync,
): string[] {
  if (stem === '' || stem === '.' || stem === '..' || /[/\\]/.test(stem)) {
    throw new CliError(`--stem: must be a plain file name without a directory, got ${quotedText(stem)}`);
  }
  // A file name made from what the user typed never holds a control, line-separator or bidirectional character.
  if (hasUnsafeTerminalChar(stem))
    throw new CliError(`--stem: holds a control or bidirectional character, got ${quotedText(stem)}`);
  for (const file of files) checkFileName(`${stem}${file.extension}`, '--stem');
  const inputs = new Set(inputPaths.map((path) => resolve(path)));
  const targets = files.map((file) => join(outputDir, `${stem}${file.extension}`));
  files.forEach((file, i) => {
    const target = targets[i];
    if (inputs.has(resolve(target)))
      throw new CliError(
        `${shownArg(target)}: $: the output would overwrite an input file; choose another --stem or --output-dir`,
      );
    if (existsSync(target)) {
      let existing: string;
      try {
        existing = readBounded(target, { limitBytes: MAX_ARTIFACT_BYTES }).bytes.toString('utf8');
      } catch (error) {
        const why =
          error instanceof BoundedReadError && error.failure === 'special'
            ? `exists and ${error.message.replace(/; not read$/, '')}`
            : 'exists and cannot be read';
        throw new CliError(`${shownArg(target)}: $: ${why}; refusing to overwrite it`);
      }
      if (!file.isOurs(existing))
        throw new CliError(
          `${shownArg(target)}: $: exists and is not an earlier report of this kind; refusing to overwrite it`,
        );
    }
  });
  makeOutputDir(outputDir, '--output-dir');
  writeFilesAtomically(
    targets.map((path, i) => ({ path, content: files[i].text })),
    `--output-dir ${shownArg(outputDir)}`,
    write,
  );
  return targets;
}

/** True when `text` is JSON whose `schema` field equals `schema`. */
export function isJsonWithSchema(text: string, schema: string): boolean {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && (value as { schema?: unknown }).schema === schema;
  } catch {
    return false;
  }
}
