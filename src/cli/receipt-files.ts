/**
 * File handling for `drb receipts`: expanding PATH arguments into JSON files (folders recursed, sorted so every
 * run sees the same order), the one reader of those files (`readInputDocuments`: validate, summarize and report all
 * read through it), and writing output files atomically without clobbering a file that is not ours.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join, relative, isAbsolute } from 'node:path';
import { CliError } from './cli-error.ts';
import { jsonSyntaxProblem } from '../core/text/json-syntax.ts';
import { bundledReceiptName, RECEIPT_BUNDLE_SCHEMA, ReceiptBundle, receiptFileText } from '../core/field/receipt-bundle.ts';

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

/** A file's bytes read as JSON, or the one-line reason they are not. */
export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes a receipt-tooling file as UTF-8 (one leading BOM allowed) and parses it as JSON.
 * @param bytes the file's bytes
 */
export function parseJson(bytes: Uint8Array): Parsed {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch (error) {
    // A RangeError is V8's string limit, not a bad byte.
    return { ok: false, message: error instanceof RangeError ? `is ${bytes.byteLength} bytes, too large to hold as text` : 'not valid UTF-8' };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a BOM is allowed, as editors on Windows write one
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `not valid JSON: ${jsonSyntaxProblem(error, text)}` };
  }
}

/** SHA-256 of `bytes` as lowercase hex. */
export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** One document read from the inputs: where it came from, the SHA-256 and size of its bytes, and its JSON. */
export interface InputDocument {
  /** Set for a receipt read out of a receipt bundle: the bundle as shown and the receipt's index in it. */
  bundle?: { shown: string; index: number };
  /** The file as given (to read it again) and as shown in output and summaries (relative when inside the cwd). */
  file: string;
  shown: string;
  /** SHA-256 of the file's bytes (tells a byte-identical copy of a receipt from an edited one; named by reports). */
  sha256: string;
  bytes: number;
  /** The parsed JSON, or why the bytes are not JSON. */
  parsed: Parsed;
}

/**
 * The one reader of receipt-tool inputs (validate, summarize, report): each file read, hashed and parsed, in the
 * given order, one at a time, so a caller folds each document before the next file is read. A receipt bundle
 * (`drb.receipt-bundle.v1`) is its own document (checked by its schema, the session sheet included), followed by
 * every receipt it holds as a document of its own: every command that reads receipts reads bundles the same way.
 * A read error stops the command (CliError, exit 2).
 * @param files the files from `collectJsonFiles`
 */
export function* readInputDocuments(files: readonly string[]): Generator<InputDocument> {
  for (const file of files) {
    const size = fileSize(file);
    if (size > MAX_INPUT_DOCUMENT_BYTES) {
      // Never decoded: far beyond any receipt, and past V8's string limit it could not even be held as text.
      const message = `is ${size} bytes, larger than any drb receipt or artifact (at most ${MAX_INPUT_DOCUMENT_BYTES / 2 ** 20} MiB); not read`;
      yield { file, shown: displayPath(file), sha256: sha256OfFile(file), bytes: size, parsed: { ok: false, message } };
      continue;
    }
    const bytes = readBytes(file);
    const shown = displayPath(file);
    const parsed = parseJson(bytes);
    yield { file, shown, sha256: sha256(bytes), bytes: bytes.byteLength, parsed };
    if (parsed.ok) yield* bundledReceipts(file, shown, parsed.value);
  }
}

/**
 * The receipts inside a receipt bundle, each as the document its own download would be: shown as
 * `<bundle>#receipts[n]`, fingerprinted by the bytes the page's Download button gives for it (so a loose copy of the
 * same receipt is a byte-identical copy, counted once). Nothing for a value that is not a valid bundle: the bundle's
 * own document (yielded before) carries its problems.
 * @param file the bundle file
 * @param shown the bundle as shown
 * @param value its parsed JSON
 */
function* bundledReceipts(file: string, shown: string, value: unknown): Generator<InputDocument> {
  if ((value as { schema?: unknown } | null)?.schema !== RECEIPT_BUNDLE_SCHEMA) return;
  const bundle = ReceiptBundle.safeParse(value);
  if (!bundle.success) return;
  for (const [index, receipt] of bundle.data.receipts.entries()) {
    const text = Buffer.from(receiptFileText(receipt));
    yield {
      file,
      shown: bundledReceiptName(shown, index),
      sha256: sha256(text),
      bytes: text.byteLength,
      parsed: { ok: true, value: receipt },
      bundle: { shown, index },
    };
  }
}

/** The largest input document the receipt tools read (a receipt with 1,000 warm samples is about 100 kB). */
export const MAX_INPUT_DOCUMENT_BYTES = 64 * 2 ** 20;

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch (error) {
    throw new CliError(`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** SHA-256 of a file read in 1 MiB pieces (for a file too large to hold). */
function sha256OfFile(file: string): string {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(2 ** 20);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) hash.update(buffer.subarray(0, read));
  } catch (error) {
    throw new CliError(`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return hash.digest('hex');
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
