/**
 * Collects the chunks of a streamed download into one ArrayBuffer of exactly their length, touching as little memory
 * as it can: where the length is declared up front (an unencoded response's Content-Length), each chunk is written
 * straight into a buffer of that size as it arrives, and that buffer is the result (the chunks themselves can go at
 * once); otherwise the chunks are kept and joined once at the end. A wrong declaration costs a copy, never bytes:
 * more bytes than declared switch to keeping chunks, fewer give a buffer cut to what arrived.
 *
 * Pure: no browser or Node globals (used by the worker's runtime fetch, tested in Node).
 */

/**
 * The decoded body length a response declares: its Content-Length where the body is not encoded, else null. An
 * encoded response's Content-Length counts the encoded bytes (gzip, br) while a stream reader yields decoded ones;
 * a cross-origin host may hide Content-Encoding, so a caller never lets progress pass this total either.
 * @param contentEncoding the Content-Encoding header (null when absent)
 * @param contentLength the Content-Length header (null when absent)
 */
export function declaredBodyLength(contentEncoding: string | null, contentLength: string | null): number | null {
  if ((contentEncoding ?? 'identity') !== 'identity') return null;
  const length = Number(contentLength);
  return Number.isFinite(length) && length > 0 ? length : null;
}

/** Declared lengths above this are not believed for preallocation (a hostile or broken header must not make the
 * collector reserve memory the download never fills); the bytes are still collected as they come. */
export const MAX_PREALLOCATED_BYTES = 512 * 1024 * 1024;

export class ByteCollector {
  private buffer: Uint8Array | null;
  private filled = 0;
  private readonly chunks: Uint8Array[] = [];
  private chunkBytes = 0;
  private copied: boolean | null = null;

  /**
   * @param declaredBytes the length the response declared for its decoded body, or null when unknown
   */
  constructor(declaredBytes: number | null) {
    const usable =
      declaredBytes !== null &&
      Number.isSafeInteger(declaredBytes) &&
      declaredBytes > 0 &&
      declaredBytes <= MAX_PREALLOCATED_BYTES;
    this.buffer = usable ? new Uint8Array(declaredBytes) : null;
  }

  /** Bytes collected so far. */
  get length(): number {
    return this.filled + this.chunkBytes;
  }

  /** After `finish()`: whether the result had to be copied together (null before). */
  get copiedOnFinish(): boolean | null {
    return this.copied;
  }

  /**
   * Adds the next chunk (the stream's order).
   * @param chunk the bytes; not kept when they fit the declared buffer
   */
  push(chunk: Uint8Array): void {
    if (this.copied !== null) throw new Error('ByteCollector: push after finish');
    if (chunk.byteLength === 0) return;
    if (this.buffer !== null) {
      if (this.filled + chunk.byteLength <= this.buffer.byteLength) {
        this.buffer.set(chunk, this.filled);
        this.filled += chunk.byteLength;
        return;
      }
      // More than declared: what arrived so far becomes the first chunk, and the rest is kept as it comes.
      this.chunks.push(this.buffer.subarray(0, this.filled));
      this.chunkBytes += this.filled;
      this.filled = 0;
      this.buffer = null;
    }
    this.chunks.push(chunk);
    this.chunkBytes += chunk.byteLength;
  }

  /** The collected bytes, as an ArrayBuffer of exactly `length` bytes. */
  finish(): ArrayBuffer {
    if (this.copied !== null) throw new Error('ByteCollector: finish called twice');
    if (this.buffer !== null) {
      const whole = this.buffer.buffer as ArrayBuffer;
      this.copied = this.filled !== this.buffer.byteLength;
      return this.copied ? whole.slice(0, this.filled) : whole;
    }
    const only = this.chunks.length === 1 ? this.chunks[0] : null;
    if (
      only !== null &&
      only.byteOffset === 0 &&
      only.byteLength === only.buffer.byteLength &&
      only.buffer instanceof ArrayBuffer
    ) {
      this.copied = false;
      return only.buffer;
    }
    const joined = new Uint8Array(this.chunkBytes);
    let offset = 0;
    for (const chunk of this.chunks) {
      joined.set(chunk, offset);
      offset += chunk.byteLength;
    }
    this.chunks.length = 0;
    this.copied = true;
    return joined.buffer;
  }
}
