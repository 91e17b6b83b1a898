/**
 * Reads up to `length` bytes of a file, in order, into `target` from `offset`.
 * @returns how many bytes it read; 0 only at the end of the file
 */
export type ReadBytes = (target: Uint8Array, offset: number, length: number) => number;

/** How much a streaming window reads per call. */
export const WINDOW_CHUNK_BYTES = 1 << 20;

/**
 * A window on a file read front to back, so that a reader can walk a large file holding only a chunk of it: the
 * reader keeps a position it may need to come back to (the start of the row it is reading), and when it runs out
 * of bytes, {@link advance} drops what lies before that position and reads more after it. On this project's
 * machines the first touch of fresh memory costs more than reading the file, so one reused buffer beats a buffer
 * the size of the file. The byte after the data is always past the array or 0 (see JsonScanner).
 */
export class ByteWindow {
  /** the buffer; bytes[0, limit) are the file's bytes from offset `base` on */
  bytes: Uint8Array;
  limit: number;
  /** how many bytes of the file lie before bytes[0] */
  base = 0;
  /** true once the end of the file is in the window */
  ended: boolean;

  private constructor(
    bytes: Uint8Array,
    limit: number,
    private readonly read: ReadBytes | null,
  ) {
    this.bytes = bytes;
    this.limit = limit;
    this.ended = read === null;
  }

  /** A window that already holds the whole file. */
  static over(bytes: Uint8Array): ByteWindow {
    return new ByteWindow(bytes, bytes.length, null);
  }

  /** A window that reads the file through `read`, starting with its first chunk. */
  static reading(read: ReadBytes, chunkBytes = WINDOW_CHUNK_BYTES): ByteWindow {
    const window = new ByteWindow(new Uint8Array(chunkBytes + 1), 0, read);
    window.advance(0);
    return window;
  }

  /** How many bytes of the file have been read so far. */
  get bytesRead(): number {
    return this.base + this.limit;
  }

  /**
   * Keeps bytes[keep, limit), moved to the front, and reads more after them (growing the buffer when what is kept
   * leaves less than half of it free, as a row longer than the window does).
   * @returns false when the file had already ended (nothing more can come), else true
   */
  advance(keep: number): boolean {
    if (this.ended || this.read === null) return false;
    const kept = this.limit - keep;
    if (keep > 0) this.bytes.copyWithin(0, keep, this.limit);
    this.base += keep;
    this.limit = kept;
    const capacity = this.bytes.length - 1; // one byte stays free for the 0 after the data
    if (capacity - kept < capacity / 2) {
      const larger = new Uint8Array(2 * capacity + 1);
      larger.set(this.bytes.subarray(0, kept));
      this.bytes = larger;
    }
    const read = this.read(this.bytes, kept, this.bytes.length - 1 - kept);
    if (read === 0) this.ended = true;
    this.limit = kept + read;
    this.bytes[this.limit] = 0;
    return true;
  }
}
