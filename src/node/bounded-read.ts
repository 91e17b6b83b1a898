/**
 * The one reader of user-named files for every CLI command (receipts, bundles, summaries, review answers, stored
 * reviews, the pins overlay, score and compare inputs, files about to be replaced): bounded and honest.
 * - It opens without blocking (O_NONBLOCK: opening a FIFO that has no writer returns at once instead of hanging).
 * - A regular file is read up to the cap, and refused once it passes it, whether its size said so before the read
 *   or it grew while being read; a file whose size reads as 0 (/proc) is read to its end, within the cap.
 * - Anything else is refused with one line naming what it is (a FIFO, a character device such as /dev/zero, a
 *   socket, a folder), unless the caller accepts pipes (`drb score` and `drb compare` read `<(command)`): a pipe is
 *   then read with the same cap and a time limit, and one that gives no end of file in time is refused.
 * Synchronous, as the commands read one file at a time. Written by hand: it is Node's own open/fstat/read.
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** Why a file was not read: what to say in the one line. */
export type BoundedReadFailure = 'cannot-open' | 'folder' | 'special' | 'too-large' | 'timeout' | 'read-error';

/** A file that was not read, with the reason as a phrase (`is a FIFO (named pipe), not a regular file; not read`). */
export class BoundedReadError extends Error {
  override name = 'BoundedReadError';
  /**
   * @param message the reason, without the file name
   * @param failure which kind of failure
   * @param size for `too-large`: the size the file said it had (undefined: it grew past the cap while read)
   * @param code the system error code, when there is one
   */
  constructor(
    message: string,
    readonly failure: BoundedReadFailure,
    readonly size?: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** What to read and how far. */
export interface BoundedReadOptions {
  /** The largest file accepted, in bytes. */
  limitBytes: number;
  /** Read a pipe (FIFO) with the same cap within `timeLimitMs` instead of refusing it (default: refuse). */
  pipes?: boolean;
  /** How long a pipe may take to reach its end of file (default 60 s). */
  timeLimitMs?: number;
  /** Hash the bytes (SHA-256) as they are read. */
  hash?: boolean;
}

/** A file as read. */
export interface BoundedRead {
  bytes: Buffer;
  /** SHA-256 of `bytes` as lowercase hex, when asked for. */
  sha256: string | null;
  /** False for a pipe read whole. */
  regular: boolean;
}

const CHUNK_BYTES = 1 << 20;
const DEFAULT_PIPE_TIME_LIMIT_MS = 60_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** What a file that is neither a regular file nor a folder is, in words. */
export function specialFileKind(
  stats: Pick<Stats, 'isFIFO' | 'isCharacterDevice' | 'isBlockDevice' | 'isSocket'>,
): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Opens `path` without blocking and says what it is.
 * @param path the path as the user gave it
 * @returns the open descriptor and its stats (close it)
 * @throws BoundedReadError `cannot-open`
 */
export function openNonBlocking(path: string): { fd: number; stats: Stats } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BoundedReadError(
      `cannot read the file (${code ?? (error as Error).message})`,
      'cannot-open',
      undefined,
      code,
    );
  }
  try {
    return { fd, stats: fstatSync(fd) };
  } catch (error) {
    closeSync(fd);
    const code = (error as NodeJS.ErrnoException).code;
    throw new BoundedReadError(
      `cannot read the file (${code ?? (error as Error).message})`,
      'cannot-open',
      undefined,
      code,
    );
  }
}

/**
 * Reads `path` within `options.limitBytes` (see the module comment).
 * @param path the path as the user gave it
 * @param options the cap, whether pipes are read, their time limit, hashing
 * @throws BoundedReadError naming why the file was not read
 */
export function readBounded(path: string, options: BoundedReadOptions): BoundedRead {
  const { fd, stats } = openNonBlocking(path);
  try {
    if (stats.isDirectory()) throw new BoundedReadError('is a folder, not a file', 'folder');
    const regular = stats.isFile();
    if (!regular && !(options.pipes === true && stats.isFIFO())) {
      throw new BoundedReadError(`is ${specialFileKind(stats)}, not a regular file; not read`, 'special');
    }
    if (regular && stats.size > options.limitBytes) {
      throw new BoundedReadError(
        `is ${stats.size} bytes, over the limit of ${options.limitBytes} bytes; not read`,
        'too-large',
        stats.size,
      );
    }
    const hash = options.hash ? createHash('sha256') : null;
    const bytes = regular
      ? readRegular(fd, stats.size, options.limitBytes, hash)
      : readPipe(fd, options.limitBytes, options.timeLimitMs ?? DEFAULT_PIPE_TIME_LIMIT_MS, hash);
    return { bytes, sha256: hash?.digest('hex') ?? null, regular };
  } finally {
    closeSync(fd);
  }
}

function readError(error: unknown): BoundedReadError {
  const code = (error as NodeJS.ErrnoException).code;
  return new BoundedReadError(
    `cannot read the file (${code ?? (error as Error).message})`,
    'read-error',
    undefined,
    code,
  );
}

function tooLargeWhileRead(limit: number): BoundedReadError {
  return new BoundedReadError(`grew past the limit of ${limit} bytes while it was read; not read`, 'too-large');
}

/** A regular file: into a buffer of its size, then on into larger ones while reads still give bytes (a growing or sizeless file). */
function readRegular(fd: number, size: number, limit: number, hash: Hash | null): Buffer {
  let bytes = Buffer.allocUnsafe(size);
  let length = 0;
  for (;;) {
    if (length === bytes.length) {
      // Full: one more byte says whether the file goes on. Most files end at the size they stated, so the probe reads
      // into a shared byte and a larger buffer is made only when one comes (making one of a megabyte for every file
      // and copying it over was most of `drb receipts export`'s garbage).
      let more: number;
      try {
        more = readSync(fd, probe, 0, 1, null);
      } catch (error) {
        throw readError(error);
      }
      if (more === 0) break;
      // At the cap: one more byte means the file is over it.
      if (length >= limit) throw tooLargeWhileRead(limit);
      const larger = Buffer.allocUnsafe(Math.min(Math.max(bytes.length * 2, length + CHUNK_BYTES), limit));
      bytes.copy(larger, 0, 0, length);
      larger[length] = probe[0];
      hash?.update(larger.subarray(length, length + 1));
      length += 1;
      bytes = larger;
      continue;
    }
    let read: number;
    try {
      read = readSync(fd, bytes, length, Math.min(CHUNK_BYTES, bytes.length - length), null);
    } catch (error) {
      throw readError(error);
    }
    if (read === 0) break;
    hash?.update(bytes.subarray(length, length + read));
    length += read;
  }
  return length === bytes.length ? bytes : bytes.subarray(0, length);
}

/** The byte `readRegular` reads past a full buffer to learn whether the file ends there. */
const probe = Buffer.alloc(1);

/** A pipe opened without blocking: read until its end of file, the cap or the time limit. */
function readPipe(fd: number, limit: number, timeLimitMs: number, hash: Hash | null): Buffer {
  const chunks: Buffer[] = [];
  let length = 0;
  const deadline = Date.now() + timeLimitMs;
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  for (;;) {
    let read: number;
    try {
      read = readSync(fd, chunk, 0, chunk.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw readError(error);
      if (Date.now() >= deadline) {
        throw new BoundedReadError(
          `is a pipe that gave no end of file within ${Math.round(timeLimitMs / 1000)} s; not read`,
          'timeout',
        );
      }
      Atomics.wait(pause, 0, 0, 5);
      continue;
    }
    if (read === 0) break;
    if (length + read > limit) throw tooLargeWhileRead(limit);
    const copy = Buffer.from(chunk.subarray(0, read));
    hash?.update(copy);
    chunks.push(copy);
    length += read;
  }
  return Buffer.concat(chunks, length);
}
