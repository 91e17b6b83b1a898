import { jsonSyntaxProblem } from '../text/json-syntax.ts';

/**
 * A bad input artifact. `message` is already the single line the CLI prints after `error: `:
 * `<file>: <where>: <problem>`, where `<where>` is a quoted row id (plus a field path), a `[row]` field path,
 * `byte N` for encoding errors, or `$` for the file as a whole.
 */
export class ArtifactError extends Error {
  override name = 'ArtifactError';
  /**
   * @param fileName the display name of the offending file (as the user gave it)
   * @param where the row id / field path / position inside that file
   * @param problem what is wrong, in a few words
   */
  constructor(
    readonly fileName: string,
    readonly where: string,
    readonly problem: string,
  ) {
    super(`${fileName}: ${where}: ${oneLine(problem)}`);
  }
}

/** Collapses line breaks so a message from a parser (which may quote a snippet) stays on one line. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
}

/** Quotes a row id for a message: JSON string syntax, so spaces, quotes and line breaks stay visible. */
export function quoteId(id: string): string {
  const quoted = JSON.stringify(id);
  return quoted.length > 82 ? `${quoted.slice(0, 80)}…"` : quoted;
}

/** Decodes valid UTF-8 bytes to text with one leading BOM removed, or returns undefined to leave them to TextDecoder. */
export type Utf8Decoder = (bytes: Uint8Array) => string | undefined;

// fatal: true refuses malformed UTF-8 instead of silently inserting U+FFFD; ignoreBOM false (the default) strips
// one leading BOM, as editors on Windows write one (the hash is over the raw bytes, computed elsewhere).
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The largest artifact read, in bytes: V8's longest string (2^29 - 24 UTF-16 code units on 64-bit builds, as in
 * Node and Chromium). A UTF-8 file never decodes to more code units than it has bytes, so every file within this
 * limit can be decoded into one string for JSON.parse; a larger one would fail inside the decoder with an error that
 * says nothing useful. Other engines allow longer strings; one limit everywhere keeps the behaviour the same.
 */
export const MAX_ARTIFACT_BYTES = 2 ** 29 - 24;

/**
 * Refuses an artifact too large to read (see MAX_ARTIFACT_BYTES), with one line that says so.
 * @param bytes the file's raw bytes
 * @param fileName the display name used in the message
 * @param limit the limit in bytes (a parameter so that tests need not make a half-gigabyte file)
 * @throws ArtifactError when the file is larger than the limit
 */
export function checkArtifactSize(bytes: Uint8Array, fileName: string, limit = MAX_ARTIFACT_BYTES): void {
  if (bytes.length > limit) throw tooLargeError(fileName, bytes.length, limit);
}

/**
 * The error for an artifact over `limit` bytes.
 * @param size its size in bytes, or undefined when it is not known (a pipe that was read until it passed the limit)
 */
export function tooLargeError(fileName: string, size: number | undefined, limit = MAX_ARTIFACT_BYTES): ArtifactError {
  const what = size === undefined ? '' : ` ${size} bytes,`;
  return new ArtifactError(
    fileName,
    '$',
    `too large to read:${what} over the limit of ${limit} bytes (the longest string JavaScript can hold)`,
  );
}

/**
 * Decodes an artifact's raw bytes as UTF-8 (one leading BOM accepted) and parses them as JSON.
 * @param bytes the file's raw bytes
 * @param fileName the display name used in error messages
 * @param fastDecode a faster platform UTF-8 decoder, when the caller has one (TextDecoder is most of the cost of
 *   reading a large non-ASCII file): it must return exactly what TextDecoder would (one leading BOM removed), or
 *   undefined to leave the bytes to TextDecoder here (always so for invalid UTF-8: the error names the first bad byte)
 * @throws ArtifactError for invalid UTF-8 (with the byte offset) or invalid JSON
 */
export function decodeJsonBytes(bytes: Uint8Array, fileName: string, fastDecode?: Utf8Decoder): unknown {
  checkArtifactSize(bytes, fileName);
  let text = fastDecode?.(bytes);
  if (text === undefined) {
    try {
      text = utf8.decode(bytes);
    } catch (error) {
      const offset = firstInvalidUtf8Offset(bytes);
      // Every byte well-formed: the decoder failed for another reason, which must not be reported as bad UTF-8.
      if (offset === bytes.length) throw error;
      throw new ArtifactError(fileName, `byte ${offset}`, 'not valid UTF-8');
    }
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ArtifactError(fileName, '$', `not valid JSON (${jsonSyntaxProblem(error, text)})`);
  }
}

/** A JSON value's type as a word for messages: `array`, `null`, `string`, ... */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  // JSON has no Infinity, but a literal such as 1e999 parses to it: name it rather than say "got number".
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}

/**
 * Byte offset of the first malformed UTF-8 sequence (only called after TextDecoder refused the bytes).
 * Written by hand because TextDecoder reports no position, and a position is what lets a user find the bad byte.
 * Follows the well-formed byte sequences table of Unicode 15, section 3.9, table 3-7.
 */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0; // no overlong 3-byte forms
      if (b === 0xed) hi = 0x9f; // no UTF-16 surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90; // no overlong 4-byte forms
      if (b === 0xf4) hi = 0x8f; // nothing above U+10FFFF
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined) return i;
      if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return bytes.length;
}
