/**
 * Redaction for everything a receipt records about URLs. A receipt keeps origin + path only: the query, the
 * fragment and any credentials are dropped, because they are where tokens, user text and secrets travel.
 */
import { boundDetail } from './bounded-text.ts';
import { memoizeStringCheck } from './string-memo.ts';

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

function holdsUnredactedUrl(text: string): boolean {
  for (const match of text.matchAll(URL_IN_TEXT)) {
    if (redactUrl(match[0]) !== match[0]) return true;
  }
  return false;
}

// Receipts of one target repeat the same model and resource URLs: parsing each with WHATWG URL every time was a
// tenth of `drb receipts export`'s validation (bounded: src/core/text/string-memo.ts).
const holdsUnredactedUrlMemo = memoizeStringCheck(holdsUnredactedUrl);

/** True when `text` holds a URL with a query, a fragment or credentials (what validation refuses). */
export function containsUnredactedUrl(text: string): boolean {
  // URL_IN_TEXT needs "://": most strings a validator walks have none, and skipping the regex for them halves
  // the URL check's share of `drb receipts validate`.
  if (!text.includes('://')) return false;
  return holdsUnredactedUrlMemo(text);
}

// A host-like run of typed text with no scheme (or a scheme written without its two slashes, `https:host`): optional
// user info before an `@`, then a host (a dotted name ending in a label of letters such as `example.com`, a dotted
// IPv4 address, `localhost`, or a bracketed IPv6 address), an optional port, and whatever follows up to whitespace or
// a quote. A version (`17.4.1`), a frequency (`3.5 GHz`) or `A/B` has no such host, so it never matches. Group 1 is
// the user info, 2 the host, 3 the port, 4 the rest (path, query, fragment).
const HOST_LIKE =
  /(?<![\w.+-])(?:([\w.~%!$&*+,;=-]+(?::[^\s"'<>()@/?#]*)?)@)?((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})|(?:\d{1,3}\.){3}\d{1,3}|localhost|\[[0-9a-f:.]{2,45}\])(:\d{1,5})?(?![\w.-]*@)([/\\?#][^\s"'<>()]*)?/gi;
// User info with a password before a host that is one label (`user:pw@router/`): credentials whatever the host.
const PASSWORD_AT_LABEL = /(?<![\w.+-])[a-z][\w.~%!$&*+,;=-]*:[^\s"'<>()@/?#]+@[a-z0-9][a-z0-9-]*(?![\w.-])/i;

/** True when a host-like match (see HOST_LIKE) carries a query, a fragment or credentials. */
function hostLikeCarriesSecret(match: RegExpMatchArray): boolean {
  const [, user, host, port = '', rest = ''] = match;
  // `user:password@host` is credentials; `name@host` alone is an e-mail address, and credentials once a path follows.
  if (user !== undefined && (user.includes(':') || rest.length > 0)) return true;
  if (rest.length === 0) return false;
  let parsed: URL;
  try {
    parsed = new URL(`http://${host}${port}${rest}`);
  } catch {
    // Not a URL WHATWG would read: only a literal `?x` or `#x` in it counts.
    return /[?#][^?#]/.test(rest);
  }
  // A lone `?` or `#` (the end of a question, say) carries nothing: URL reads both as empty.
  return parsed.search !== '' || parsed.hash !== '';
}

/**
 * True when `text` (something a person typed: a session sheet's notes, OS build, network, ...) holds a URL with a
 * query, a fragment or credentials, with a scheme (`https://host/?token=x`, `https:user:pw@host/`) or without one
 * (`www.example.com/?token=abc`, `example.com/path#frag`, `user:pass@host.example/x`). Ordinary notes are not URLs:
 * versions (`iOS 17.4.1`, `v1.2.3`), `A/B test`, `3.5 GHz`, a question mark ending a sentence, an e-mail address.
 * Stricter than `containsUnredactedUrl`, which receipts' own strings are held to (they come from the page, which
 * redacts every URL it records).
 */
export function containsTypedUrlSecret(text: string): boolean {
  if (containsUnredactedUrl(text)) return true;
  // Nothing can carry a secret without one of these characters.
  if (!/[?#@]/.test(text)) return false;
  if (PASSWORD_AT_LABEL.test(text)) return true;
  for (const match of text.matchAll(HOST_LIKE)) if (hostLikeCarriesSecret(match)) return true;
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
