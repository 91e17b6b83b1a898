/**
 * Redaction for everything a receipt records about URLs. A receipt keeps origin + path only: the query, the
 * fragment and any credentials are dropped, because they are where tokens, user text and secrets travel.
 */
import { boundDetail } from './bounded-text.ts';

/** The longest URL a receipt keeps (a longer path is replaced by a marker). */
export const MAX_URL_CHARS = 2048;

/** Origin + path of `url` (resolved against `base` when relative). Unparseable input becomes `"[unparseable-url]"`. */
export function redactUrl(url: string, base?: string): string {
  let parsed: URL;
  try {
    parsed = base === undefined ? new URL(url) : new URL(url, base);
  } catch {
    return '[unparseable-url]';
  }
  // Only http(s) URLs are kept (as origin + path); a blob:, data:, extension or file URL says nothing a receipt
  // needs and may carry content, so only its scheme is recorded.
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `${parsed.protocol}[redacted]`;
  // `origin` excludes username/password; `pathname` excludes search and hash.
  const kept = `${parsed.origin}${parsed.pathname}`;
  return kept.length <= MAX_URL_CHARS ? kept : `${parsed.origin}/[redacted-long-path]`;
}

// A URL inside free text (an error message, say): scheme, then everything up to whitespace or a quote.
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]+/gi;

/** Replaces every URL inside `text` with its redacted form (used on error messages before they enter a receipt). */
export function redactUrlsInText(text: string): string {
  return text.replace(URL_IN_TEXT, (match) => redactUrl(match));
}

/**
 * Free text (an error message, a failure or fallback reason) as it enters a receipt: every URL redacted, control
 * characters replaced and the length cut to the schema's bound (a runtime's message can run to many lines).
 * @param text the message as the runtime gave it
 */
export function receiptText(text: string): string {
  return boundDetail(redactUrlsInText(text));
}

/** True when `text` holds a URL with a query, a fragment or credentials (what validation refuses). */
export function containsUnredactedUrl(text: string): boolean {
  // URL_IN_TEXT needs "://": most strings a validator walks have none, and skipping the regex for them halves
  // the URL check's share of `drb receipts validate`.
  if (!text.includes('://')) return false;
  for (const match of text.matchAll(URL_IN_TEXT)) {
    if (redactUrl(match[0]) !== match[0]) return true;
  }
  return false;
}

/** The fields of a PerformanceResourceTiming entry that a receipt uses (a plain object, so Node tests can build one). */
export interface ResourceTimingLike {
  name: string;
  initiatorType: string;
  startTime: number;
  duration: number;
  transferSize: number;
  encodedBodySize: number;
  decodedBodySize: number;
  /** HTTP status where the browser exposes it (0 or undefined when hidden cross-origin). */
  responseStatus?: number;
}

/**
 * Turns a resource timing entry into a receipt entry. A cross-origin entry whose sizes are all zero had its sizes
 * hidden by the browser (no Timing-Allow-Origin): the sizes are recorded as unknown (null, `size_unknown`), never
 * as zero bytes. Same-origin zeros are real (a cache hit transfers zero bytes).
 */
export function toResourceEntry(entry: ResourceTimingLike, pageOrigin: string) {
  const url = redactUrl(entry.name, pageOrigin);
  let crossOrigin: boolean;
  try {
    crossOrigin = new URL(entry.name, pageOrigin).origin !== pageOrigin;
  } catch {
    crossOrigin = true;
  }
  const hidden = crossOrigin && entry.transferSize === 0 && entry.encodedBodySize === 0 && entry.decodedBodySize === 0;
  const size = (value: number) => (hidden ? null : Math.max(0, Math.round(value)));
  return {
    url,
    initiator_type: entry.initiatorType,
    start_ms: Math.max(0, entry.startTime),
    duration_ms: Math.max(0, entry.duration),
    cross_origin: crossOrigin,
    transfer_size: size(entry.transferSize),
    encoded_body_size: size(entry.encodedBodySize),
    decoded_body_size: size(entry.decodedBodySize),
    size_unknown: hidden,
  };
}
