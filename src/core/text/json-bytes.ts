/**
 * Reading a JSON file's bytes the one way every drb reader does (the CLI's receipt tools and the page taking back
 * handed-off files): strict UTF-8 (a malformed byte is refused, never replaced), one leading byte order mark allowed,
 * then JSON, with a syntax error described by line and column without quoting the file. Pure.
 */
import { jsonSyntaxProblem } from './json-syntax.ts';

/** A file's bytes read as JSON, or the one-line reason they are not. */
export type ParsedJson = { ok: true; value: unknown } | { ok: false; message: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Strict UTF-8 decoding: throws on a malformed byte (a TypeError) or past the string limit (a RangeError). */
export type StrictUtf8Decode = (bytes: Uint8Array) => string;

const fatalDecode: StrictUtf8Decode = (bytes) => utf8.decode(bytes);

/**
 * Decodes `bytes` as UTF-8 (one leading BOM allowed) and parses them as JSON.
 * @param bytes the file's bytes
 * @param decode a strict decoder (default: the fatal TextDecoder; the CLI hands in Node's faster one)
 */
export function parseJsonBytes(bytes: Uint8Array, decode: StrictUtf8Decode = fatalDecode): ParsedJson {
  let text: string;
  try {
    text = decode(bytes);
  } catch (error) {
    // A RangeError is the engine's string limit, not a bad byte.
    return {
      ok: false,
      message:
        error instanceof RangeError ? `is ${bytes.byteLength} bytes, too large to hold as text` : 'not valid UTF-8',
    };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a BOM is allowed, as editors on Windows write one
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `not valid JSON: ${jsonSyntaxProblem(error, text)}` };
  }
}
