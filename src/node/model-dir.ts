/**
 * Reads a downloaded model folder for `drb models pin` / `verify`, treating everything in it as hostile: a file is
 * read only when its real path stays inside the folder (a symbolic link leading out is refused, not followed), only
 * when it is a regular file (a FIFO, socket or device is refused before anything blocks on it), and it is hashed in
 * chunks so a multi-gigabyte weight file never sits in memory whole.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readdir, realpath, stat, type FileHandle } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { REVISION_PATTERN } from '../core/catalog/catalog-overlay.ts';

/** Why a file of the folder could not be used. `missing`: absent; `refused`: present but not safe or not a file. */
export class ModelDirError extends Error {
  override name = 'ModelDirError';
  constructor(
    message: string,
    readonly kind: 'missing' | 'refused',
  ) {
    super(message);
  }
}

/** A hashed file. */
export interface HashedFile {
  bytes: number;
  sha256: string;
}

// 4 MiB reads: large enough that syscalls do not dominate, small enough to keep memory flat on any file size.
const CHUNK_BYTES = 4 << 20;

/**
 * The folder's real path, after checking it is a directory.
 * @param dir the folder as the user gave it
 * @throws Error with a one-line reason when it does not exist or is not a directory
 */
export async function resolveModelDir(dir: string): Promise<string> {
  let info;
  try {
    info = await stat(dir);
  } catch (error) {
    throw new Error(`cannot read the folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (!info.isDirectory()) throw new Error('is not a folder');
  return realpath(dir);
}

/** A file whose times are this close to the read's start is hashed twice (see hashModelFile). */
const RECENT_WRITE_MS = 2000;

/** One pass over a file's bytes: how many, and their SHA-256. */
async function hashOnce(
  handle: FileHandle,
  size: number,
  onProgress?: (done: number, total: number) => void,
): Promise<HashedFile> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let done = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, done);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    done += bytesRead;
    onProgress?.(done, size);
  }
  return { bytes: done, sha256: hash.digest('hex') };
}

/**
 * The real path of `relPath` inside `dirReal`, refusing one that leaves the folder.
 * @param dirReal the folder's real path (from resolveModelDir)
 * @param relPath a catalog file path (relative, no "..")
 */
async function insidePath(dirReal: string, relPath: string): Promise<string> {
  const full = join(dirReal, relPath);
  try {
    await lstat(full);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ModelDirError(`${relPath} is missing`, 'missing');
    throw new ModelDirError(`${relPath} cannot be read (${code ?? (error as Error).message})`, 'refused');
  }
  let real: string;
  try {
    real = await realpath(full);
  } catch (error) {
    throw new ModelDirError(
      `${relPath} cannot be resolved (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; a dangling symbolic link?)`,
      'refused',
    );
  }
  if (!real.startsWith(dirReal.endsWith(sep) ? dirReal : dirReal + sep))
    throw new ModelDirError(`${relPath} is a symbolic link leading out of the folder; refusing to read it`, 'refused');
  return real;
}

/**
 * Bytes and SHA-256 of one file of the folder, read in chunks.
 * @param dirReal the folder's real path
 * @param relPath the file's path inside the folder (a catalog path)
 * @param onProgress called after each chunk with bytes read so far and the file's size
 * @throws ModelDirError `missing` when absent, `refused` when it leaves the folder, is not a regular file, or changed
 *   while being read
 */
export async function hashModelFile(
  dirReal: string,
  relPath: string,
  onProgress?: (done: number, total: number) => void,
): Promise<HashedFile> {
  const real = await insidePath(dirReal, relPath);
  let handle;
  try {
    // O_NOFOLLOW: the path is already resolved, so a link swapped in since is refused; O_NONBLOCK: opening a FIFO
    // returns at once instead of waiting for a writer, and fstat below then refuses it.
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw new ModelDirError(
      `${relPath} cannot be opened (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      'refused',
    );
  }
  try {
    const startedMs = Date.now();
    const info = await handle.stat({ bigint: true });
    if (!info.isFile()) throw new ModelDirError(`${relPath} is not a regular file; refusing to read it`, 'refused');
    const size = Number(info.size);
    const changed = (how: string) =>
      new ModelDirError(
        `${relPath} changed while it was read (${how}); hash it again when nothing writes to it`,
        'refused',
      );
    const first = await hashOnce(handle, size, onProgress);
    // The hash is of bytes that existed only if nothing wrote to the file meanwhile: the same size, and the same
    // modification and change times (nanoseconds), before and after the read.
    const after = await handle.stat({ bigint: true });
    if (first.bytes !== size || after.size !== info.size)
      throw changed(`${size} bytes at the start, ${first.bytes} read, ${after.size} at the end`);
    if (after.mtimeNs !== info.mtimeNs || after.ctimeNs !== info.ctimeNs)
      throw changed('its modification time moved during the read');
    // A file system stamps times in clock ticks (a few ms): a write in the same tick as the file's last one leaves
    // them as they were. So a file written shortly before the read is hashed a second time, and both must agree.
    const recentNs = BigInt(startedMs - RECENT_WRITE_MS) * 1_000_000n;
    if (info.mtimeNs >= recentNs || info.ctimeNs >= recentNs) {
      const second = await hashOnce(handle, size);
      const last = await handle.stat({ bigint: true });
      if (
        second.sha256 !== first.sha256 ||
        second.bytes !== first.bytes ||
        last.size !== info.size ||
        last.mtimeNs !== info.mtimeNs ||
        last.ctimeNs !== info.ctimeNs
      ) {
        throw changed('a second read of a file written moments before gave other bytes');
      }
    }
    return first;
  } finally {
    await handle.close();
  }
}

/**
 * The commit a `huggingface-cli download --local-dir` copy of `relPath` came from, read from the metadata file the
 * Hugging Face client writes beside it (`.cache/huggingface/download/<path>.metadata`, first line); null when there is
 * none or it does not hold a commit id.
 * @param dirReal the folder's real path
 * @param relPath the file's path inside the folder
 */
export async function downloadedRevision(dirReal: string, relPath: string): Promise<string | null> {
  const metaPath = join('.cache', 'huggingface', 'download', `${relPath}.metadata`);
  let real: string;
  try {
    real = await insidePath(dirReal, metaPath);
  } catch {
    return null;
  }
  let handle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!(await handle.stat()).isFile()) return null;
    // The metadata is three short lines; read at most 4 KiB whatever the file holds.
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const first = buffer.subarray(0, bytesRead).toString('utf8').split('\n')[0].trim();
    return REVISION_PATTERN.test(first) ? first : null;
  } finally {
    await handle.close();
  }
}

/**
 * Regular files in the folder (relative paths with "/"), skipping hidden entries (`.cache`, `.git`, ...) and never
 * following symbolic links; at most `limit` paths, `depth` levels deep.
 * @param dirReal the folder's real path
 */
export async function listModelDir(dirReal: string, limit = 10_000, depth = 8): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, level: number): Promise<void> => {
    if (level > depth || out.length >= limit) return;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (out.length >= limit) return;
      if (entry.name.startsWith('.')) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full, level + 1);
      else if (entry.isFile()) out.push(relative(dirReal, full).split(sep).join('/'));
    }
  };
  await walk(dirReal, 0);
  return out;
}
