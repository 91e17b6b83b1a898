/**
 * Text kept as UTF-8 bytes, for the scorer's artifact tables: a string is a range of a byte buffer instead of a
 * JavaScript string, so a 100,000-row file costs one buffer instead of a million small heap objects.
 *
 * The encoding is UTF-8, extended to lone UTF-16 surrogates the way WTF-8 does (a surrogate that is not half of a
 * pair is written as its own three-byte sequence), so that two JavaScript strings are equal exactly when their
 * bytes are, and a lone surrogate counts as one character with its own value, as String.prototype.codePointAt has
 * it. Text read straight from a file is plain UTF-8 (JSON escapes are the only way to write a lone surrogate).
 */

/** A growable array of unsigned 32-bit integers (positions and counts), doubling as it fills. */
export class U32List {
  data: Uint32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.data = new Uint32Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = value;
  }

  /** Makes room for `capacity` values in total. */
  grow(capacity: number): void {
    if (capacity <= this.data.length) return;
    let size = this.data.length * 2;
    while (size < capacity) size *= 2;
    const next = new Uint32Array(size);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }

  /** The values pushed so far (a view, not a copy). */
  view(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}

/** A growable byte buffer that text is encoded into. */
export class ByteSink {
  data: Uint8Array;
  length = 0;

  constructor(capacity = 1024) {
    this.data = new Uint8Array(capacity);
  }

  /** Makes room for `extra` more bytes. */
  reserve(extra: number): void {
    const needed = this.length + extra;
    if (needed <= this.data.length) return;
    let size = this.data.length * 2;
    while (size < needed) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }

  /**
   * Appends `text` in WTF-8 (UTF-8, plus lone surrogates as three-byte sequences).
   * @returns the number of bytes written
   */
  writeText(text: string): number {
    this.reserve(text.length * 3);
    const out = this.data;
    const begin = this.length;
    let at = begin;
    const length = text.length;
    for (let i = 0; i < length; i++) {
      let c = text.charCodeAt(i);
      if (c < 0x80) {
        out[at++] = c;
        continue;
      }
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < length) {
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          c = ((c - 0xd800) << 10) + (next - 0xdc00) + 0x10000;
          i++;
          out[at++] = 0xf0 | (c >>> 18);
          out[at++] = 0x80 | ((c >>> 12) & 0x3f);
          out[at++] = 0x80 | ((c >>> 6) & 0x3f);
          out[at++] = 0x80 | (c & 0x3f);
          continue;
        }
      }
      if (c < 0x800) {
        out[at++] = 0xc0 | (c >>> 6);
        out[at++] = 0x80 | (c & 0x3f);
      } else {
        out[at++] = 0xe0 | (c >>> 12);
        out[at++] = 0x80 | ((c >>> 6) & 0x3f);
        out[at++] = 0x80 | (c & 0x3f);
      }
    }
    this.length = at;
    return at - begin;
  }

  /** The bytes written so far (a view, not a copy). */
  view(): Uint8Array {
    return this.data.subarray(0, this.length);
  }
}

/** A few ASCII words, each with a code, to match byte ranges against (JSON keys, enum values). */
export class WordCodes {
  private readonly words: Uint8Array[];
  private readonly codes: number[];

  /** @param entries [word, code] pairs */
  constructor(entries: readonly (readonly [string, number])[]) {
    this.words = entries.map(([word]) => Uint8Array.from(word, (c) => c.charCodeAt(0)));
    this.codes = entries.map(([, code]) => code);
  }

  /** The code of the word bytes[start, end) spells, or `otherwise`. */
  match(bytes: Uint8Array, start: number, end: number, otherwise: number): number {
    const length = end - start;
    for (let w = 0; w < this.words.length; w++) {
      const word = this.words[w];
      if (word.length !== length) continue;
      let k = 0;
      while (k < length && bytes[start + k] === word[k]) k++;
      if (k === length) return this.codes[w];
    }
    return otherwise;
  }
}

/** True when a[aStart, aEnd) and b[bStart, bEnd) hold the same bytes. */
export function bytesEqual(
  a: Uint8Array,
  aStart: number,
  aEnd: number,
  b: Uint8Array,
  bStart: number,
  bEnd: number,
): boolean {
  const length = aEnd - aStart;
  if (length !== bEnd - bStart) return false;
  for (let k = 0; k < length; k++) if (a[aStart + k] !== b[bStart + k]) return false;
  return true;
}

/**
 * Decodes the code points of bytes[start, end) (well-formed WTF-8) into `out` from index `at`.
 * @returns how many code points there were
 */
export function decodeCodePoints(bytes: Uint8Array, start: number, end: number, out: Uint32Array, at: number): number {
  let count = 0;
  let i = start;
  while (i < end) {
    const b = bytes[i];
    if (b < 0x80) {
      out[at + count] = b;
      i++;
    } else if (b < 0xe0) {
      out[at + count] = ((b & 0x1f) << 6) | (bytes[i + 1] & 0x3f);
      i += 2;
    } else if (b < 0xf0) {
      out[at + count] = ((b & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f);
      i += 3;
    } else {
      out[at + count] =
        ((b & 0x07) << 18) | ((bytes[i + 1] & 0x3f) << 12) | ((bytes[i + 2] & 0x3f) << 6) | (bytes[i + 3] & 0x3f);
      i += 4;
    }
    count++;
  }
  return count;
}

/** The JavaScript string whose WTF-8 bytes are bytes[start, end). */
export function textOf(bytes: Uint8Array, start: number, end: number): string {
  let text = '';
  let i = start;
  while (i < end) {
    const b = bytes[i];
    let c: number;
    if (b < 0x80) {
      c = b;
      i++;
    } else if (b < 0xe0) {
      c = ((b & 0x1f) << 6) | (bytes[i + 1] & 0x3f);
      i += 2;
    } else if (b < 0xf0) {
      c = ((b & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f);
      i += 3;
    } else {
      c = ((b & 0x07) << 18) | ((bytes[i + 1] & 0x3f) << 12) | ((bytes[i + 2] & 0x3f) << 6) | (bytes[i + 3] & 0x3f);
      i += 4;
    }
    // fromCharCode, not fromCodePoint: a lone surrogate must come back as itself.
    text +=
      c < 0x10000
        ? String.fromCharCode(c)
        : String.fromCharCode(0xd800 + ((c - 0x10000) >> 10), 0xdc00 + ((c - 0x10000) & 0x3ff));
  }
  return text;
}

/**
 * A hash set of byte strings, all ranges of one buffer, numbered in the order they were added: row ids (to find
 * duplicates, and to look a prediction's row up without making a string of its id) and distinct reasons. Open
 * addressing with linear probing over FNV-1a hashes; it keeps positions, not copies.
 */
export class ByteStringIndex {
  private slots: Int32Array; // entry number + 1; 0 = empty
  /** entry e is source[ranges[2e], ranges[2e + 1]) */
  private ranges: Uint32Array;
  private count = 0;

  /**
   * @param source the buffer every added string is a range of (reassign it when that buffer is replaced)
   * @param expected how many strings are expected (the table still grows)
   */
  constructor(
    public source: Uint8Array,
    expected = 16,
  ) {
    this.slots = new Int32Array(tableSize(expected));
    this.ranges = new Uint32Array(2 * expected);
  }

  /**
   * An index of the strings source[ranges[2e], ranges[2e + 1]), numbered e in that order, kept in `ranges` itself
   * (not copied).
   * @returns the index, or undefined when two of the strings are equal
   */
  static ofRanges(source: Uint8Array, ranges: Uint32Array): ByteStringIndex | undefined {
    const index = new ByteStringIndex(source, 0);
    const count = ranges.length / 2;
    index.slots = new Int32Array(tableSize(count));
    index.ranges = ranges;
    for (let e = 0; e < count; e++) {
      const slot = index.slotOf(source, ranges[2 * e], ranges[2 * e + 1]);
      if (index.slots[slot] !== 0) return undefined;
      index.slots[slot] = e + 1;
      index.count = e + 1;
    }
    return index;
  }

  /** How many distinct strings were added. */
  get size(): number {
    return this.count;
  }

  /**
   * Adds source[start, end) unless an equal string is already in.
   * @returns its entry number when new, or -(the earlier entry number) - 1 when it was already there
   */
  add(start: number, end: number): number {
    const slot = this.slotOf(this.source, start, end);
    if (this.slots[slot] !== 0) return -this.slots[slot];
    const entry = this.count;
    if (2 * entry + 2 > this.ranges.length) {
      const larger = new Uint32Array(Math.max(4, 2 * this.ranges.length));
      larger.set(this.ranges);
      this.ranges = larger;
    }
    this.ranges[2 * entry] = start;
    this.ranges[2 * entry + 1] = end;
    this.slots[slot] = entry + 1;
    this.count = entry + 1;
    if (this.count * 2 > this.slots.length) this.rehash();
    return entry;
  }

  /** The entry number of the string bytes[start, end) (any buffer), or -1 when it was never added. */
  find(bytes: Uint8Array, start: number, end: number): number {
    return this.slots[this.slotOf(bytes, start, end)] - 1;
  }

  /** The slot holding the string bytes[start, end), or the empty slot where it would go. */
  private slotOf(bytes: Uint8Array, start: number, end: number): number {
    const mask = this.slots.length - 1;
    const ranges = this.ranges;
    const source = this.source;
    let slot = hashBytes(bytes, start, end) & mask;
    for (;;) {
      const entry = this.slots[slot] - 1;
      if (entry < 0 || bytesEqual(source, ranges[2 * entry], ranges[2 * entry + 1], bytes, start, end)) return slot;
      slot = (slot + 1) & mask;
    }
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let entry = 0; entry < this.count; entry++) {
      let slot = hashBytes(this.source, this.ranges[2 * entry], this.ranges[2 * entry + 1]) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = entry + 1;
    }
    this.slots = slots;
  }
}

/** A power of two at least twice `count` (a load factor of at most 1/2 keeps probes short). */
function tableSize(count: number): number {
  let size = 16;
  while (size < count * 2) size *= 2;
  return size;
}

/** FNV-1a over bytes[start, end), as an unsigned 32-bit integer. */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  return hash >>> 0;
}
