import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { MAX_ARTIFACT_BYTES, tooLargeError } from '../core/artifacts/artifact-error.ts';
import type { ArtifactBytes, ArtifactReader, ArtifactStream } from '../core/scoring/score-run.ts';
import { CliError } from './cli-error.ts';
import { checkFileName, makeOutputDir, writeFilesAtomically } from './output-files.ts';
import { decodeUtf8Text } from './utf8-text.ts';

/** How much is read (and hashed, while it is still in the CPU cache) per read call. */
const CHUNK_BYTES = 1 << 20;

/**
 * Reads an input artifact for the scorer, once: the bytes in chunks, each hashed (SHA-256) as soon as it is read,
 * so no second pass over the file is needed for its hash. Returns the bytes, the path as given (for messages), its
 * base name (for the report, so the report does not depend on where the file sat), the hash, and Node's fast UTF-8
 * decoder for the rare file the core's byte readers decline. Node's hash works on the bytes where they are (Web
 * Crypto's digest would first copy them: 94 MB for the benchmark files).
 * @param path the path the user gave
 * @param limit the largest file accepted, in bytes (a parameter so that tests need not make a half-gigabyte file)
 * @throws CliError when the file cannot be read or is larger than `limit` (checked before reading a byte, and again
 *   while reading, for files that grow or report no size, such as pipes)
 */
export function readArtifact(path: string, limit = MAX_ARTIFACT_BYTES): ArtifactBytes {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw cannotRead(path, error);
  }
  try {
    let size: number;
    try {
      size = fstatSync(fd).size;
    } catch (error) {
      throw cannotRead(path, error);
    }
    if (size > limit) throw new CliError(tooLargeError(path, size, limit).message);
    const hash = createHash('sha256');
    // A regular file is read into a buffer of its size; a pipe or a file that reports no size (or grows while it
    // is read) goes on into larger buffers as long as reads deliver bytes.
    let bytes: Buffer = Buffer.allocUnsafe(size);
    let length = 0;
    let spare: Buffer | undefined;
    const readInto = (target: Buffer, at: number): number => {
      try {
        return readSync(fd, target, at, Math.min(CHUNK_BYTES, target.length - at), null);
      } catch (error) {
        throw cannotRead(path, error);
      }
    };
    for (;;) {
      let read: number;
      if (length < bytes.length) {
        read = readInto(bytes, length);
        if (read === 0) break;
      } else {
        // Full: only if more bytes come is a larger buffer made (so a regular file is never copied).
        spare ??= Buffer.allocUnsafe(CHUNK_BYTES);
        read = readInto(spare, 0);
        if (read === 0) break;
        if (length + read > limit) throw new CliError(tooLargeError(path, undefined, limit).message);
        const larger = Buffer.allocUnsafe(Math.min(Math.max(bytes.length * 2, length + CHUNK_BYTES), limit));
        bytes.copy(larger, 0, 0, length);
        spare.copy(larger, length, 0, read);
        bytes = larger;
      }
      hash.update(bytes.subarray(length, length + read));
      length += read;
    }
    return {
      bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, length),
      fileName: path,
      reportName: basename(path),
      fastDecode: decodeUtf8Text,
      sha256: hash.digest('hex'),
    };
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens a predictions file for the scorer to read in pieces (see ArtifactStream): a regular file is read through a
 * reused window and hashed as it is read, so it never sits in memory whole; anything else (a pipe, a /proc file)
 * is read whole now, as readArtifact does. Close it when done.
 * @param path the path the user gave
 * @param limit the largest file accepted, in bytes
 * @throws CliError when the file cannot be opened or is larger than `limit`
 */
export function openArtifact(path: string, limit = MAX_ARTIFACT_BYTES): (ArtifactStream | ArtifactBytes) & { close(): void } {
  let fd: number;
  let size: number;
  let regular: boolean;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw cannotRead(path, error);
  }
  try {
    const stats = fstatSync(fd);
    size = stats.size;
    regular = stats.isFile();
  } catch (error) {
    closeSync(fd);
    throw cannotRead(path, error);
  }
  if (!regular) {
    closeSync(fd);
    return { ...readArtifact(path, limit), close: () => undefined };
  }
  if (size > limit) {
    closeSync(fd);
    throw new CliError(tooLargeError(path, size, limit).message);
  }
  let closed = false;
  return {
    fileName: path,
    reportName: basename(path),
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
  return new CliError(`${path}: $: cannot read the file (${code ?? (error as Error).message})`);
}

/**
 * Parses `--candidate-limit`.
 * @param text the flag's value as typed
 */
export function parseCandidateLimit(text: string): number {
  if (!/^[0-9]+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw new CliError(`--candidate-limit: must be a whole number >= 1, got ${JSON.stringify(text)}`);
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
    throw new CliError(`--stem: must be a plain file name without a directory, got ${JSON.stringify(stem)}`);
  }
  for (const file of files) checkFileName(`${stem}${file.extension}`, '--stem');
  const inputs = new Set(inputPaths.map((path) => resolve(path)));
  const targets = files.map((file) => join(outputDir, `${stem}${file.extension}`));
  files.forEach((file, i) => {
    const target = targets[i];
    if (inputs.has(resolve(target))) throw new CliError(`${target}: $: the output would overwrite an input file; choose another --stem or --output-dir`);
    if (existsSync(target)) {
      let existing: string;
      try {
        existing = readFileSync(target, 'utf8');
      } catch {
        throw new CliError(`${target}: $: exists and cannot be read; refusing to overwrite it`);
      }
      if (!file.isOurs(existing)) throw new CliError(`${target}: $: exists and is not an earlier report of this kind; refusing to overwrite it`);
    }
  });
  makeOutputDir(outputDir, '--output-dir');
  writeFilesAtomically(
    targets.map((path, i) => ({ path, content: files[i].text })),
    `--output-dir ${outputDir}`,
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
