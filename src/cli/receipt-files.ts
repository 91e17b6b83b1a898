/**
 * File handling for `drb receipts`: expanding PATH arguments into JSON files (folders recursed, sorted so every
 * run sees the same order), the one reader of those files (`readInputDocuments`: validate, summarize and report all
 * read through it), and writing output files atomically without clobbering a file that is not ours.
 */
import { Buffer, isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, isAbsolute } from 'node:path';
import { CliError } from './cli-error.ts';
import { parseJsonBytes, type ParsedJson } from '../core/text/json-bytes.ts';
import { terminalText } from '../core/text/terminal-text.ts';
import { jsonShapeProblems } from '../core/text/json-shape.ts';
import { bundledReceiptName, RECEIPT_BUNDLE_SCHEMA, receiptFileText } from '../core/field/receipt-bundle.ts';
import { canonicalJson } from '../core/evidence/target-identity.ts';
import { validateReceipt } from '../core/validation/validate-receipt.ts';
import { BoundedReadError, readBounded, specialFileKind } from '../node/bounded-read.ts';

/**
 * The files `collectJsonFiles` found: the ones to read, and what it met inside folders and did not read: symbolic
 * links and special files (FIFOs, sockets, devices) named `*.json`, each reported with its problem line instead of
 * being skipped without a word.
 */
export interface JsonFiles {
  files: string[];
  symlinks: string[];
  /** Special files met inside folders, with what they are (`a FIFO (named pipe)`). */
  specials: Array<{ file: string; kind: string }>;
}

/** The line a reader reports for a symbolic link met inside a folder. */
export const SYMLINK_PROBLEM = 'a symbolic link inside a folder: not followed (name its target to check it)';

/**
 * The line a reader reports for a special file met inside a folder.
 * @param kind what it is (`a FIFO (named pipe)`)
 */
export function specialProblem(kind: string): string {
  return `${kind} inside a folder, not a regular file: not read`;
}

/** Every entry `collectJsonFiles` met but did not read, as `<file as shown>: (document): <problem>` lines. */
export function unreadLines(found: JsonFiles): Array<{ shown: string; problem: string }> {
  return [
    ...found.symlinks.map((link) => ({ shown: displayPath(link), problem: SYMLINK_PROBLEM })),
    ...found.specials.map((special) => ({ shown: displayPath(special.file), problem: specialProblem(special.kind) })),
  ];
}

/**
 * Every file named by `paths`: files as given, folders recursed for `*.json` (sorted, hidden entries and
 * node_modules skipped). A `*.json` symbolic link inside a folder is not followed (it may point anywhere, or at a
 * file counted already) but listed in `symlinks`; a `*.json` FIFO, socket or device inside a folder is never opened
 * (a FIFO blocks, a device never ends) but listed in `specials`; readers report both instead of skipping them.
 * Throws CliError (exit 2) for a missing path or when nothing is found.
 * @param paths the PATH arguments
 * @param skip folders to leave out (absolute), e.g. the summary output folder
 */
export function collectJsonFiles(paths: readonly string[], skip: readonly string[] = []): JsonFiles {
  if (paths.length === 0) throw new CliError('no PATH given: name receipt files or folders');
  const out: string[] = [];
  const symlinks: string[] = [];
  const specials: JsonFiles['specials'] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      throw new CliError(
        `${displayPath(dir)}: cannot read folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!skip.some((s) => sameFile(s, full))) walk(full);
      } else if (!entry.name.endsWith('.json')) continue;
      else if (entry.isFile()) out.push(full);
      else if (entry.isSymbolicLink()) symlinks.push(full);
      else specials.push({ file: full, kind: specialFileKind(entry) });
    }
  };
  for (const path of paths) {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      throw new CliError(`${displayPath(path)}: no such file or folder`);
    }
    if (stat.isDirectory()) walk(path);
    else out.push(path);
  }
  if (out.length === 0 && symlinks.length === 0 && specials.length === 0) {
    throw new CliError(
      `${paths.map((p) => displayPath(p)).join(', ')}: no .json files found (an empty input is not a pass)`,
    );
  }
  return { files: out, symlinks, specials };
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

/** The longest file name a summary or a problem line shows (longer ones are cut, with an ellipsis). */
const MAX_SHOWN_PATH_CHARS = 2048;

/**
 * `file` as shown in output and stored in summaries: relative to the working folder when inside it, with every
 * control, line-separator and bidirectional character as a visible escape (src/core/text/terminal-text.ts: a file
 * name may hold a newline, an escape sequence or a right-to-left override), and cut to a bounded length. For showing
 * only: the file is read under its real name.
 * @param file the path
 * @param cwd the working folder
 */
export function displayPath(file: string, cwd = process.cwd()): string {
  const rel = relative(cwd, file);
  const shown = terminalText(rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split('\\').join('/') : file);
  return shown.length <= MAX_SHOWN_PATH_CHARS ? shown : `${shown.slice(0, MAX_SHOWN_PATH_CHARS - 1)}…`;
}

/** The largest single file the receipt tools read besides input documents (review answers, stored reviews). */
export const MAX_SMALL_FILE_BYTES = 16 * 2 ** 20;

/**
 * Reads a file the user named (a summary, review answers, a stored review) as bytes, bounded (src/node/bounded-read.ts:
 * regular files only, at most `limitBytes`), turning any refusal into CliError (exit 2) with one line.
 * @param file the path to read
 * @param limitBytes the largest file accepted
 */
export function readBytes(file: string, limitBytes = MAX_INPUT_DOCUMENT_BYTES): Buffer {
  try {
    return readBounded(file, { limitBytes }).bytes;
  } catch (error) {
    if (error instanceof BoundedReadError) throw new CliError(`${displayPath(file)}: ${error.message}`);
    throw error;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

// Node's SIMD check, then a plain decode, is cheaper than the fatal decoder; the fatal one still refuses bad bytes.
const nodeUtf8 = (bytes: Uint8Array): string =>
  isUtf8(bytes) ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8') : utf8.decode(bytes);

/** A file's bytes read as JSON, or the one-line reason they are not. */
export type Parsed = ParsedJson;

/**
 * Decodes a receipt-tooling file as UTF-8 (one leading BOM allowed) and parses it as JSON: the core reader the page
 * uses too (src/core/text/json-bytes.ts).
 * @param bytes the file's bytes
 */
export function parseJson(bytes: Uint8Array): Parsed {
  return parseJsonBytes(bytes, nodeUtf8);
}

/** SHA-256 of `bytes` as lowercase hex. */
export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * A receipt's content fingerprint: the SHA-256 of its canonical JSON (keys sorted, no whitespace), so the same receipt
 * re-saved in another formatting (compact, CRLF, keys reordered) or read out of a bundle has the same fingerprint, and
 * any edit gives another (src/core/evidence/receipt-ids.ts). Only for values that passed validation (bounded depth).
 * @param value the parsed receipt
 */
export function contentFingerprint(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** One document read from the inputs: where it came from, the SHA-256 and size of its bytes, and its JSON. */
export interface InputDocument {
  /** Set for a receipt read out of a receipt bundle: the bundle as shown and the receipt's index in it. */
  bundle?: { shown: string; index: number };
  /** The file as given (to read it again) and as shown in output and summaries (relative when inside the cwd). */
  file: string;
  shown: string;
  /** SHA-256 of the file's bytes ('' for a file that was not read; named by reports). */
  sha256: string;
  bytes: number;
  /** The parsed JSON, or why the bytes are not JSON (or were not read). */
  parsed: Parsed;
}

/**
 * The one reader of receipt-tool inputs (validate, summarize, review, report): each file read (bounded, regular files
 * only: src/node/bounded-read.ts), hashed and parsed, in the given order, one at a time, so a caller folds each
 * document before the next file is read. A file over the cap, or one that is not a regular file, is a document whose
 * `parsed` says why (one problem line). A receipt bundle (`drb.receipt-bundle.v1`) is its own document, followed,
 * when it passes its own checks (src/core/validation: schema, sheet, its items being receipts), by every receipt it
 * holds as a document of its own, exactly as the bundle's bytes were parsed (never a copy that could drop a key), so
 * each is checked as strictly as its own file would be. A read error stops the command (CliError, exit 2).
 * @param files the files from `collectJsonFiles`
 */
export function* readInputDocuments(files: readonly string[]): Generator<InputDocument> {
  for (const file of files) {
    const shown = displayPath(file);
    let bytes: Buffer;
    let fingerprint: string;
    try {
      const read = readBounded(file, { limitBytes: MAX_INPUT_DOCUMENT_BYTES, hash: true });
      bytes = read.bytes;
      fingerprint = read.sha256!;
    } catch (error) {
      if (!(error instanceof BoundedReadError)) throw error;
      if (error.failure === 'cannot-open' || error.failure === 'read-error')
        throw new CliError(`${shown}: ${error.message}`);
      // Too large, special or a folder: a problem line for this file; the others are still read.
      const message =
        error.failure === 'too-large'
          ? `${error.size === undefined ? 'grew while it was read past' : `is ${error.size} bytes, larger than`} any drb receipt or artifact (at most ${MAX_INPUT_DOCUMENT_BYTES / 2 ** 20} MiB); not read`
          : error.message;
      yield { file, shown, sha256: '', bytes: error.size ?? 0, parsed: { ok: false, message } };
      continue;
    }
    const parsed = parseJson(bytes);
    yield { file, shown, sha256: fingerprint, bytes: bytes.byteLength, parsed };
    if (parsed.ok) yield* bundledReceipts(file, shown, parsed.value);
  }
}

/**
 * The receipts inside a receipt bundle that passed its own checks, each as the document its own file would be (the
 * value exactly as the bundle's bytes were parsed), shown as `<bundle>#receipts[n]`. Nothing for a value that is not
 * a valid bundle: the bundle's own document (yielded before) carries its problems, and its receipts are neither
 * checked nor counted. A receipt's `sha256` is that of its text as the page's Download button writes it.
 * @param file the bundle file
 * @param shown the bundle as shown
 * @param value its parsed JSON
 */
function* bundledReceipts(file: string, shown: string, value: unknown): Generator<InputDocument> {
  if ((value as { schema?: unknown } | null)?.schema !== RECEIPT_BUNDLE_SCHEMA) return;
  if (validateReceipt(value).problems.length > 0) return;
  const receipts = (value as { receipts: unknown[] }).receipts;
  for (const [index, receipt] of receipts.entries()) {
    // A receipt nested too deep to be a receipt is never serialised (it would run a recursive writer out of stack):
    // its own checks refuse it with one line.
    const text = jsonShapeProblems(receipt, undefined, 1).length === 0 ? Buffer.from(receiptFileText(receipt)) : null;
    yield {
      file,
      shown: bundledReceiptName(shown, index),
      sha256: text === null ? '' : sha256(text),
      bytes: text?.byteLength ?? 0,
      parsed: { ok: true, value: receipt },
      bundle: { shown, index },
    };
  }
}

/** The largest input document the receipt tools read (a receipt with 1,000 warm samples is about 100 kB). */
export const MAX_INPUT_DOCUMENT_BYTES = 64 * 2 ** 20;

/**
 * Refuses (CliError, exit 2) to replace an existing file unless `isOurs` says it is one this tool wrote. The existing
 * file is read bounded (a FIFO or device in its place is refused, never opened for reading in a way that blocks).
 * @param path the file about to be replaced
 * @param isOurs inspects the existing content
 * @param what how to describe the expected content in the error
 */
export function guardOverwrite(path: string, isOurs: (content: string) => boolean, what: string): void {
  if (!existsSync(path)) return;
  let content: string;
  try {
    content = readBounded(path, { limitBytes: MAX_INPUT_DOCUMENT_BYTES }).bytes.toString('utf8');
  } catch (error) {
    if (!(error instanceof BoundedReadError)) throw error;
    const why =
      error.failure === 'special' || error.failure === 'folder'
        ? error.message.replace(/; not read$/, '')
        : `cannot be read (${error.code ?? error.message})`;
    throw new CliError(`${displayPath(path)}: exists and ${why}; refusing to overwrite it`);
  }
  if (!isOurs(content))
    throw new CliError(
      `${displayPath(path)}: exists and is not ${what}; refusing to overwrite it (choose another --out)`,
    );
}
