/**
 * Bounded string types for every artifact schema: no string field accepts "anything of any length". Each field
 * gets the narrowest type fit for its content: an identifier or code pattern, a version, a URL that is exactly its
 * own origin + path, or bounded printable text. Free text (error messages, reasons) is a bounded detail with no
 * control or bidirectional-override characters; the page shortens long messages itself (`receiptText`) so a real
 * receipt never fails its own schema.
 */
import { z } from 'zod';
import { memoizeStringCheck } from './string-memo.ts';

/** Longest free-text detail (an error message or a reason) a receipt keeps; the page cuts longer ones here. */
export const DETAIL_MAX_CHARS = 2000;

// C0/C1 controls and the bidi overrides that make text display in another order than it is stored.
const CONTROL_OR_BIDI = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const CONTROL_OR_BIDI_EXCEPT_BREAKS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/**
 * One line of printable text (no control or bidi characters) of at most `max` characters.
 * @param max the longest value the field can need
 */
export function textLine(max: number) {
  return z
    .string()
    .max(max)
    .refine((value) => !CONTROL_OR_BIDI.test(value), {
      message: 'holds a control or bidirectional-override character',
    });
}

/**
 * Free text of at most `max` characters: line breaks and tabs allowed, other control and bidi characters not.
 * @param max the longest value the field can need
 */
export function detailText(max: number) {
  return z
    .string()
    .max(max)
    .refine((value) => !CONTROL_OR_BIDI_EXCEPT_BREAKS.test(value), {
      message: 'holds a control or bidirectional-override character',
    });
}

/** Free text from an error or a reason (URLs redacted by the page), at most DETAIL_MAX_CHARS. */
export const Detail = detailText(DETAIL_MAX_CHARS);

/** An error's name as a code (`RouteError`, `WorkerFailure`, `AbortError`, a minified class name). */
export const ERROR_CODE_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$.:-]{0,63}$/;
export const ErrorCode = z
  .string()
  .regex(ERROR_CODE_PATTERN, 'expected an error code (a letter, then letters, digits, _ $ . : -; at most 64)');

/** A model, input, suite, prompt or route id (`ort-tiny-xenc`, `webllm-qwen2.5-0.5b-instruct-q4f16_1`, `wasm-1`). */
export const Identifier = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:+@/-]{0,127}$/, 'expected an id (letters, digits, . _ : + @ / -; at most 128)');

/** A receipt id as the page makes them (a UUID; test builders use shorter ids of the same characters). */
export const ReceiptId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{7,127}$/, 'expected an id of 8 to 128 letters, digits, . _ -');

/** A run id (a UUID from the page). */
export const RunId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'expected an id of letters, digits, . _ - (at most 128)');

/** A package, engine or app version (`1.30.0`, `1.31.0-dev.20260914-8d85527a0`, `156.0.7390.54`). */
export const Version = z
  .string()
  .regex(/^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/, 'expected a version (letters, digits, . + _ -; at most 64)');

/** An engine's version as the page reports it, which may name its runtime too (`4.3.2 (onnxruntime-web 1.30.0)`). */
export const EngineVersion = z
  .string()
  .regex(
    /^[0-9A-Za-z][0-9A-Za-z .+_()-]{0,79}$/,
    'expected a version (letters, digits, space . + _ ( ) -; at most 80)',
  );

/** A git commit (abbreviated or full). */
export const GitCommit = z.string().regex(/^[0-9a-f]{4,64}$/, 'expected a git commit (4 to 64 lowercase hex digits)');

/** A name from a fixed vocabulary the browser or engine defines (`navigate`, `fetch`, `q4f16`, `visibilitychange:hidden`). */
export const Token = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}$/, 'expected a short name (letters, digits, _ . : + -; at most 64)');

/** A WebGPU feature name (`shader-f16`, `chromium-experimental-subgroup-matrix`). */
export const WebGpuFeature = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,79}$/, 'expected a WebGPU feature name (lowercase letters, digits, -)');

/** A WebGPU limit name (`maxBufferSize`). */
export const WebGpuLimitName = z.string().regex(/^[A-Za-z][A-Za-z0-9]{0,63}$/, 'expected a WebGPU limit name');

/** A file name or path as a tool shows it (a summary's `file`, a report's input name). */
export const FileLabel = textLine(4096);

/** A schema id (`drb.device-receipt.v2`). */
export const SchemaId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/, 'expected a schema id');

// The http(s) origin + path exactly as WHATWG URL parsing gives it; other schemes are refused too.
const URL_MESSAGE = 'URL must be origin + path only (no query, fragment or credentials)';

const MARKERS = /^(?:[a-z][a-z0-9+.-]{0,31}:\[redacted\]|\[unparseable-url\])$/;

/**
 * True when `value` is an http(s) URL that equals the origin + path of its own WHATWG parse: no credentials, query,
 * fragment, backslashes, missing slashes, upper-case scheme or host, or anything else a parser would rewrite. (So
 * `https:user:pw@host/`, `https:\\user:pw@host/` and `https:/user:pw@host/m.onnx`, which WHATWG reads as URLs with
 * credentials, are refused; so are `javascript:` and `data:` URLs.)
 * @param value the stored URL
 */
export function isOriginPathUrl(value: string): boolean {
  if (value.length > 2048) return false;
  return isOriginPathUrlMemo(value);
}

function parsesAsOriginPath(value: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return false;
  }
  return (
    (parsed.protocol === 'https:' || parsed.protocol === 'http:') && `${parsed.origin}${parsed.pathname}` === value
  );
}

// Every receipt of a target holds the same model and page URLs: a WHATWG parse of each, each time, was a share of
// `drb receipts export`'s schema check worth saving (bounded: src/core/text/string-memo.ts).
const isOriginPathUrlMemo = memoizeStringCheck(parsesAsOriginPath);

/**
 * A URL field: an http(s) URL equal to its own origin + path (see isOriginPathUrl), or one of the markers the page's
 * redaction writes for what it will not record (`data:[redacted]`, `blob:[redacted]`, `[unparseable-url]`).
 */
export const RedactedUrl = z
  .string()
  .max(2048)
  .refine((value) => isOriginPathUrl(value) || MARKERS.test(value), {
    message: URL_MESSAGE,
  });

/** An http(s) URL field with no redaction markers allowed (a page address). */
export const OriginPathUrl = z.string().max(2048).refine(isOriginPathUrl, { message: URL_MESSAGE });

/**
 * Free text as it may enter a receipt: control and bidi characters replaced by U+FFFD, and cut to DETAIL_MAX_CHARS
 * with an ellipsis (a real runtime error can run to many lines). Redact URLs before this (redact.ts).
 * @param text an error message or reason
 */
export function boundDetail(text: string): string {
  const clean = text.replace(new RegExp(CONTROL_OR_BIDI_EXCEPT_BREAKS.source, 'g'), '\uFFFD');
  return clean.length <= DETAIL_MAX_CHARS ? clean : `${cut(clean, DETAIL_MAX_CHARS - 1)}…`;
}

/** The first `length` UTF-16 units of `text`, one fewer when that would split a surrogate pair. */
function cut(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

/**
 * One line of printable text as it may enter a receipt: controls and bidi characters replaced, cut to `max`.
 * @param text a browser-reported string (user agent, adapter description)
 * @param max the field's bound
 */
export function boundLine(text: string, max: number): string {
  const clean = text.replace(new RegExp(CONTROL_OR_BIDI.source, 'g'), '\uFFFD');
  return clean.length <= max ? clean : `${cut(clean, max - 1)}…`;
}

/**
 * An error name as it may enter a receipt: the name when it is a code, else `Error`.
 * @param name `error.name` (any string a runtime threw)
 */
export function boundCode(name: string): string {
  return ERROR_CODE_PATTERN.test(name) ? name : 'Error';
}
