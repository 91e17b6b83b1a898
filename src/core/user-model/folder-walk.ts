/**
 * Walking what was dropped on the page: a dropped folder arrives as a tree of entries (the File and Directory
 * Entries API: `DataTransferItem.webkitGetAsEntry()`, `FileSystemDirectoryEntry.createReader()`), not as a file
 * list. This walks that tree into (path, file) pairs, the shape a folder pick gives, for `recogniseUserModel`.
 *
 * Written over the small interface below (the real entries fit it), so a unit test drives it with a fake tree.
 * The tree is the user's and may be hostile: a directory reader answers in batches (Chromium gives at most 100
 * entries a call) and is read until it answers an empty batch; the walk stops with one line at a depth or a file
 * count over its limit, and at a name that is not a plain file name (empty, `.`, `..`, or holding `/`, `\` or a
 * NUL). No message quotes a name: names are the user's, and they never enter a receipt.
 */
import { MAX_USER_FILES } from './user-model-files.ts';

/** An entry of a dropped tree (`FileSystemEntry`). */
export interface DroppedEntry {
  readonly name: string;
  readonly isFile: boolean;
  readonly isDirectory: boolean;
}

/** A file entry (`FileSystemFileEntry`): `file()` hands over its file. */
export interface DroppedFileEntry<F> extends DroppedEntry {
  file(success: (file: F) => void, failure?: (error: unknown) => void): void;
}

/** A directory entry (`FileSystemDirectoryEntry`): its reader answers its entries in batches. */
export interface DroppedDirectoryEntry extends DroppedEntry {
  createReader(): { readEntries(success: (entries: DroppedEntry[]) => void, failure?: (error: unknown) => void): void };
}

/** One file found: its path from the dropped root (`folder/onnx/model.onnx`) and the file itself. */
export interface WalkedFile<F> {
  path: string;
  file: F;
}

/** How deep the walk goes below a dropped folder (a model folder is two levels: `onnx/model.onnx`). */
export const MAX_DROP_DEPTH = 8;

class WalkProblem extends Error {}

function promised<T>(
  call: (success: (value: T) => void, failure: (error: unknown) => void) => void,
  what: string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    call(resolve, (error) => reject(new WalkProblem(`${what} (${error instanceof Error ? error.name : 'error'})`)));
  });
}

function plainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\u0000]/.test(name);
}

/**
 * Walks dropped entries (files and folders) into their files, depth first, each folder's entries in the order its
 * reader gave them.
 * @param roots the dropped entries (null where an item was not a file system entry: skipped)
 * @param limits the deepest folder level, and the most files and folders together (defaults: MAX_DROP_DEPTH,
 *   MAX_USER_FILES)
 * @returns the files with their paths, or `{ problem }`: one line, naming no file or folder
 */
export async function walkDroppedEntries<F>(
  roots: ReadonlyArray<DroppedEntry | null>,
  limits: { maxDepth: number; maxFiles: number } = { maxDepth: MAX_DROP_DEPTH, maxFiles: MAX_USER_FILES },
): Promise<{ files: Array<WalkedFile<F>> } | { problem: string }> {
  const files: Array<WalkedFile<F>> = [];
  // Folders count too: a reader that keeps answering folders must end as surely as one that keeps answering files.
  let entries = 0;
  const visit = async (entry: DroppedEntry, prefix: string, depth: number): Promise<void> => {
    if (!plainName(entry.name))
      throw new WalkProblem('a dropped file or folder has a name that is not a plain file name');
    if (++entries > limits.maxFiles)
      throw new WalkProblem(
        `the drop holds more than ${limits.maxFiles} files and folders; a model folder here holds at most ${limits.maxFiles}`,
      );
    const path = `${prefix}${entry.name}`;
    if (entry.isFile) {
      const file = await promised<F>(
        (ok, fail) => (entry as DroppedFileEntry<F>).file(ok, fail),
        'a dropped file could not be read',
      );
      files.push({ path, file });
      return;
    }
    if (!entry.isDirectory) return;
    if (depth >= limits.maxDepth)
      throw new WalkProblem(`the dropped folder is nested more than ${limits.maxDepth} levels deep`);
    const reader = (entry as DroppedDirectoryEntry).createReader();
    // readEntries answers a batch per call, and an empty batch once the folder is exhausted.
    for (;;) {
      const batch = await promised<DroppedEntry[]>(
        (ok, fail) => reader.readEntries(ok, fail),
        'a dropped folder could not be listed',
      );
      if (batch.length === 0) break;
      for (const child of batch) await visit(child, `${path}/`, depth + 1);
    }
  };
  try {
    for (const root of roots) if (root !== null) await visit(root, '', 0);
  } catch (error) {
    if (error instanceof WalkProblem) return { problem: error.message };
    throw error;
  }
  return { files };
}
