/**
 * How the session database (src/page/session-db.ts) keeps an item's data on the device: as gzip-compressed JSON
 * where the browser has CompressionStream (Chromium 80, Safari 16.4, Firefox 113 and later), as the plain value
 * elsewhere. A device receipt is about 4 KB of JSON and a third of that compressed; a tester's long session keeps a
 * third of the bytes on the device. It also keeps a third of the memory where the browser holds IndexedDB in memory:
 * WebKit under WebDriver (MiniBrowser `--automation`, the WebKit lane) uses an ephemeral data store, so there every
 * stored receipt lives in the network process for the page's lifetime (docs/performance.md, "Long sessions").
 *
 * Every item the page stores is JSON (receipts, predictions, answers), so a JSON round trip gives back the same
 * value. Items stored before this form existed (the plain value under `data`) are still read.
 *
 * Uses only web platform globals (Response, CompressionStream) that browsers, workers and Node 20 all have, so
 * its tests run in Node.
 */

/** One record as IndexedDB holds it. */
export interface StoredRecord {
  kind: string;
  saved_at: string;
  /** The data as UTF-8 JSON, gzip-compressed (where CompressionStream exists). */
  gzip?: Uint8Array<ArrayBuffer>;
  /** The data as it is (no CompressionStream, or a record stored before compression). */
  data?: unknown;
}

/**
 * A stream of `data`, through a Response body rather than a Blob: WebKit registers every Blob with its network
 * process, which keeps the bytes until the page's garbage collector frees the Blob (measured in WebKitGTK: 2,000
 * Blob-fed compressions grew the network process by 8 MiB, Response-fed ones not at all).
 */
function bodyOf(data: string | Uint8Array<ArrayBuffer>): ReadableStream<BufferSource> {
  return new Response(data).body! as ReadableStream<BufferSource>;
}

/** Whether this browser can compress what it stores (and so also decompress it). */
export function canCompress(): boolean {
  return typeof CompressionStream === 'function' && typeof DecompressionStream === 'function';
}

/**
 * The record to store for an item.
 * @param kind the item's kind
 * @param data the item (JSON)
 * @param savedAt ISO time it was stored
 */
export async function encodeRecord(kind: string, data: unknown, savedAt: string): Promise<StoredRecord> {
  if (!canCompress()) return { kind, data, saved_at: savedAt };
  const json = JSON.stringify(data);
  const gzip = new Uint8Array(
    await new Response(bodyOf(json).pipeThrough(new CompressionStream('gzip'))).arrayBuffer(),
  );
  return { kind, saved_at: savedAt, gzip };
}

/**
 * An item's kind, time and data read back from its record; throws a one-line error naming what is wrong when the
 * record is not one this page wrote (another page's data, a damaged value).
 * @param record what IndexedDB gave back
 */
export async function decodeRecord(record: unknown): Promise<{ kind: string; data: unknown; saved_at: string }> {
  if (record === null || typeof record !== 'object') throw new Error('not an object');
  const { kind, saved_at: savedAt, gzip } = record as Partial<StoredRecord>;
  if (typeof kind !== 'string') throw new Error('kind is not a string');
  if (typeof savedAt !== 'string') throw new Error('saved_at is not a string');
  if (gzip === undefined) {
    if (!('data' in record)) throw new Error('neither gzip nor data');
    return { kind, data: (record as StoredRecord).data, saved_at: savedAt };
  }
  if (!(gzip instanceof Uint8Array)) throw new Error('gzip is not bytes');
  if (!canCompress()) throw new Error('this browser cannot decompress it');
  let json: string;
  try {
    json = await new Response(
      bodyOf(gzip as Uint8Array<ArrayBuffer>).pipeThrough(new DecompressionStream('gzip')),
    ).text();
  } catch {
    // The browser's own message says nothing useful here (Chromium: "Failed to fetch").
    throw new Error('gzip does not decompress (not gzip, or cut short)');
  }
  try {
    return { kind, data: JSON.parse(json), saved_at: savedAt };
  } catch {
    throw new Error('gzip does not hold JSON');
  }
}
