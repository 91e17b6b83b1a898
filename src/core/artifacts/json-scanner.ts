/**
 * A strict reader of JSON text held as UTF-8 bytes, for the scorer's large artifacts. It walks the bytes once,
 * checking the JSON grammar (RFC 8259, exactly what JSON.parse accepts) and UTF-8 well-formedness (Unicode 15
 * table 3-7) as it goes, and hands back positions instead of strings, so reading a 100,000-row file allocates
 * almost nothing. Written by hand because the built-in route (decode the whole file to a string, JSON.parse it,
 * then walk the objects) copies every byte twice and makes a million short-lived strings for the garbage
 * collector, which was most of `drb score`'s time.
 *
 * It never reports what is wrong: anything it does not accept (bad JSON, bad UTF-8, a shape the caller did not
 * expect, a nesting deeper than it cares to follow) throws {@link NOT_PLAIN}, and the caller then takes the slow,
 * exact path (TextDecoder, JSON.parse, zod), whose message names the problem. So it may refuse valid input, but it
 * must never accept input that JSON.parse refuses.
 */

/** Thrown by the scanner (and by readers built on it) for any input it does not accept; never shown to a user. */
export class NotPlainJson extends Error {
  override name = 'NotPlainJson';
}

/** The one instance thrown: refusing is control flow, so no stack is captured per refusal. */
export const NOT_PLAIN = new NotPlainJson('input left the plain shape the fast reader accepts');

/** The deepest nesting followed inside values the caller skips (deeper input takes the slow path). */
const MAX_SKIP_DEPTH = 64;

// Classes of a byte inside a string: what the string loop does with it.
const PLAIN = 0; // printable ASCII other than '"' and '\'
const QUOTE = 1;
const ESCAPE = 2;
const LEAD2 = 3; // C2..DF: a two-byte sequence
const LEAD3 = 4; // E1..EC, EE, EF: a three-byte sequence whose next two bytes are any continuation bytes
const LEAD_NARROW = 5; // E0, ED, F0..F4: a sequence whose second byte has a narrower range (no overlong forms,
// surrogates or code points above U+10FFFF)
const REFUSE = 6; // control characters (JSON requires them escaped), stray continuation bytes, C0, C1, F5..FF

const STRING_CLASS = new Uint8Array(256);
// The allowed range of the byte after each lead byte (Unicode table 3-7); later continuation bytes are 80..BF.
const SECOND_LOW = new Uint8Array(256);
const SECOND_HIGH = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  let cls = PLAIN;
  if (b < 0x20) cls = REFUSE;
  else if (b === 0x22) cls = QUOTE;
  else if (b === 0x5c) cls = ESCAPE;
  else if (b < 0x80) cls = PLAIN;
  else if (b >= 0xc2 && b <= 0xdf) cls = LEAD2;
  else if (b === 0xe0 || b === 0xed || (b >= 0xf0 && b <= 0xf4)) cls = LEAD_NARROW;
  else if (b >= 0xe1 && b <= 0xef) cls = LEAD3;
  else cls = REFUSE;
  STRING_CLASS[b] = cls;
  SECOND_LOW[b] = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
  SECOND_HIGH[b] = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
}

// Characters allowed after a backslash, besides 'u'.
const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;

function isHexDigit(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
}

function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

/**
 * A cursor over JSON bytes. Callers drive it token by token (they know the shape they expect); every method
 * throws {@link NOT_PLAIN} when the bytes are not what it was asked to read.
 *
 * The bytes may be a window on a longer file (see byte-window.ts): reading stops at `limit`, where the byte is
 * either past the end of the array or a 0 byte placed there (a character JSON never allows unescaped and no token
 * can continue with), so a token cut by the end of the window is refused, never completed with stale bytes.
 */
export class JsonScanner {
  /** the index of the next byte to read */
  pos: number;
  /** after {@link string}: the string's raw content is bytes[start, end) (between the quotes, escapes as written) */
  start = 0;
  end = 0;
  /** after {@link string}: true when the content holds at least one backslash escape */
  escaped = false;

  /**
   * @param bytes the file from its start; one leading UTF-8 byte order mark is skipped, as TextDecoder does
   * @param limit where the bytes read so far end (bytes[limit] must be past the array or 0)
   */
  constructor(
    public bytes: Uint8Array,
    public limit = bytes.length,
  ) {
    this.pos = limit >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  }

  /** Skips JSON whitespace and returns the next byte, or -1 at the limit. */
  peek(): number {
    const bytes = this.bytes;
    const limit = this.limit;
    let i = this.pos;
    while (i < limit) {
      const b = bytes[i];
      if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) {
        this.pos = i;
        return b;
      }
      i++;
    }
    this.pos = i;
    return -1;
  }

  /** Skips whitespace and consumes `byte` (a structural character), or refuses. */
  expect(byte: number): void {
    if (this.peek() !== byte) throw NOT_PLAIN;
    this.pos++;
  }

  /**
   * Skips whitespace, then consumes `byte` if it comes next.
   * @returns whether it did
   */
  take(byte: number): boolean {
    if (this.peek() !== byte) return false;
    this.pos++;
    return true;
  }

  /** Refuses unless only whitespace is left. */
  finish(): void {
    if (this.peek() !== -1) throw NOT_PLAIN;
  }

  /**
   * Reads a string token (after whitespace): sets {@link start}, {@link end} and {@link escaped}. The content is
   * checked for UTF-8 well-formedness, unescaped control characters and escape syntax.
   */
  string(): void {
    if (this.peek() !== 0x22) throw NOT_PLAIN;
    const bytes = this.bytes;
    const start = this.pos + 1;
    let i = start;
    let escaped = false;
    for (;;) {
      // Past the end, bytes[i] is undefined and so is its class: the final branch refuses.
      const cls = STRING_CLASS[bytes[i]];
      if (cls === PLAIN) {
        i++;
      } else if (cls === LEAD3) {
        // Most CJK text: both following bytes must be continuation bytes (10xxxxxx); past the end they read as
        // undefined, whose bits are 0.
        if ((((bytes[i + 1] & 0xc0) << 8) | (bytes[i + 2] & 0xc0)) !== 0x8080) throw NOT_PLAIN;
        i += 3;
      } else if (cls === QUOTE) {
        break;
      } else if (cls === LEAD2) {
        if ((bytes[i + 1] & 0xc0) !== 0x80) throw NOT_PLAIN;
        i += 2;
      } else if (cls === LEAD_NARROW) {
        const lead = bytes[i];
        const b1 = bytes[i + 1];
        if (b1 < SECOND_LOW[lead] || b1 > SECOND_HIGH[lead] || (bytes[i + 2] & 0xc0) !== 0x80) throw NOT_PLAIN;
        if (lead >= 0xf0) {
          if ((bytes[i + 3] & 0xc0) !== 0x80) throw NOT_PLAIN;
          i += 4;
        } else {
          i += 3;
        }
      } else if (cls === ESCAPE) {
        const e = bytes[i + 1];
        if (e === 0x75) {
          if (
            !isHexDigit(bytes[i + 2]) ||
            !isHexDigit(bytes[i + 3]) ||
            !isHexDigit(bytes[i + 4]) ||
            !isHexDigit(bytes[i + 5])
          )
            throw NOT_PLAIN;
          i += 6;
        } else if (SIMPLE_ESCAPE[e] === 1) {
          i += 2;
        } else {
          throw NOT_PLAIN;
        }
        escaped = true;
      } else {
        throw NOT_PLAIN;
      }
    }
    this.start = start;
    this.end = i;
    this.escaped = escaped;
    this.pos = i + 1;
  }

  /**
   * Reads a number token (after whitespace), checking the JSON number grammar: sets {@link start} and {@link end}
   * to its bytes. Its value is left to {@link numberValues}, which converts many tokens in one call.
   */
  number(): void {
    this.peek();
    this.start = this.pos;
    this.end = this.numberEnd(this.pos);
    this.pos = this.end;
  }

  /** Skips any JSON value (after whitespace), checking it fully. */
  skipValue(): void {
    this.skip(0);
  }

  private skip(depth: number): void {
    const b = this.peek();
    if (b === 0x22) {
      this.string();
    } else if (b === 0x7b) {
      if (depth >= MAX_SKIP_DEPTH) throw NOT_PLAIN;
      this.pos++;
      if (this.take(0x7d)) return;
      do {
        this.string();
        this.expect(0x3a);
        this.skip(depth + 1);
      } while (this.take(0x2c));
      this.expect(0x7d);
    } else if (b === 0x5b) {
      if (depth >= MAX_SKIP_DEPTH) throw NOT_PLAIN;
      this.pos++;
      if (this.take(0x5d)) return;
      do this.skip(depth + 1);
      while (this.take(0x2c));
      this.expect(0x5d);
    } else if (b === 0x74) {
      this.literal('true');
    } else if (b === 0x66) {
      this.literal('false');
    } else if (b === 0x6e) {
      this.literal('null');
    } else {
      this.pos = this.numberEnd(this.pos);
    }
  }

  /**
   * Consumes `word` (true, false or null) if it comes next (after whitespace).
   * @returns whether it did; refuses a word that starts like it but differs
   */
  literal(word: 'true' | 'false' | 'null'): boolean {
    const bytes = this.bytes;
    const at = this.peek();
    if (at !== word.charCodeAt(0)) return false;
    for (let k = 1; k < word.length; k++) if (bytes[this.pos + k] !== word.charCodeAt(k)) throw NOT_PLAIN;
    this.pos += word.length;
    return true;
  }

  /** The end of the number token starting at `i`: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
  private numberEnd(i: number): number {
    const bytes = this.bytes;
    if (bytes[i] === 0x2d) i++;
    if (bytes[i] === 0x30) i++;
    else if (bytes[i] >= 0x31 && bytes[i] <= 0x39) while (isDigit(bytes[i])) i++;
    else throw NOT_PLAIN;
    if (bytes[i] === 0x2e) {
      i++;
      if (!isDigit(bytes[i])) throw NOT_PLAIN;
      while (isDigit(bytes[i])) i++;
    }
    if (bytes[i] === 0x65 || bytes[i] === 0x45) {
      i++;
      if (bytes[i] === 0x2b || bytes[i] === 0x2d) i++;
      if (!isDigit(bytes[i])) throw NOT_PLAIN;
      while (isDigit(bytes[i])) i++;
    }
    return i;
  }
}

/**
 * The values of number tokens, as JSON.parse gives them (possibly ±Infinity for a huge exponent): all of them are
 * copied into one JSON array text and parsed by one JSON.parse call, because making a string per token and
 * converting each one costs more than the rest of reading a predictions file's margins.
 * @param bytes the bytes the tokens are in
 * @param ranges token k is bytes[ranges[2k], ranges[2k + 1]), already checked by {@link JsonScanner.number}
 */
export function numberValues(bytes: Uint8Array, ranges: Uint32Array): Float64Array {
  const count = ranges.length / 2;
  const values = new Float64Array(count);
  if (count === 0) return values;
  let size = 1;
  for (let k = 0; k < count; k++) size += ranges[2 * k + 1] - ranges[2 * k] + 1;
  const text = new Uint8Array(size);
  let at = 0;
  text[at++] = 0x5b;
  for (let k = 0; k < count; k++) {
    if (k > 0) text[at++] = 0x2c;
    for (let i = ranges[2 * k]; i < ranges[2 * k + 1]; i++) text[at++] = bytes[i];
  }
  text[at++] = 0x5d;
  const parsed = JSON.parse(asciiDecoder.decode(text.subarray(0, at))) as number[];
  for (let k = 0; k < count; k++) values[k] = parsed[k];
  return values;
}

const asciiDecoder = new TextDecoder();
