/**
 * Unit-cost Levenshtein distance over Unicode code points (a surrogate pair such as 𠮷 is one character; nothing is
 * normalised). Written by hand rather than taken from a library: the npm packages we looked at (fast-levenshtein,
 * leven, fastest-levenshtein) compare UTF-16 code units, which would count 𠮷 as two characters.
 *
 * One instance owns its scratch buffers (code points of both strings and one DP row) and grows them to the longest
 * string seen, so a distance call allocates nothing, let alone per DP cell. Not re-entrant: use one instance per
 * scoring loop (JavaScript is single-threaded, so a module-wide instance is safe too).
 */
export class CodePointLevenshtein {
  private left = new Uint32Array(64);
  private right = new Uint32Array(64);
  private row = new Int32Array(65);

  /**
   * @param initialCapacity the longest string (in UTF-16 code units) expected; buffers still grow on demand
   */
  constructor(initialCapacity = 64) {
    this.ensureCapacity(initialCapacity);
  }

  /** Edit distance between `a` and `b` in code points (insert, delete, substitute each cost 1). */
  distance(a: string, b: string): number {
    if (a === b) return 0;
    this.ensureCapacity(Math.max(a.length, b.length));
    let n = writeCodePoints(a, this.left);
    let m = writeCodePoints(b, this.right);
    const left = this.left;
    const right = this.right;
    // Common prefix and suffix never change the distance; trimming them makes near-identical strings cheap.
    let start = 0;
    while (start < n && start < m && left[start] === right[start]) start++;
    while (n > start && m > start && left[n - 1] === right[m - 1]) {
      n--;
      m--;
    }
    n -= start;
    m -= start;
    if (n === 0) return m;
    if (m === 0) return n;
    // Keep the DP row over the shorter string.
    let outer = left;
    let inner = right;
    if (m > n) {
      outer = right;
      inner = left;
      const t = n;
      n = m;
      m = t;
    }
    const row = this.row;
    for (let j = 0; j <= m; j++) row[j] = j;
    for (let i = 1; i <= n; i++) {
      const ch = outer[start + i - 1];
      let diagonal = row[0]; // D[i-1][j-1]
      row[0] = i;
      for (let j = 1; j <= m; j++) {
        const above = row[j]; // D[i-1][j]
        const substitute = diagonal + (ch === inner[start + j - 1] ? 0 : 1);
        const insert = row[j - 1] + 1;
        const remove = above + 1;
        row[j] = substitute < insert ? (substitute < remove ? substitute : remove) : insert < remove ? insert : remove;
        diagonal = above;
      }
    }
    return row[m];
  }

  private ensureCapacity(codeUnits: number): void {
    if (codeUnits <= this.left.length) return;
    let size = this.left.length;
    while (size < codeUnits) size *= 2;
    this.left = new Uint32Array(size);
    this.right = new Uint32Array(size);
    this.row = new Int32Array(size + 1);
  }
}

/**
 * Writes the code points of `text` into `out` and returns how many there are. A lone surrogate counts as one
 * character with its own value (as String.prototype.codePointAt does).
 */
function writeCodePoints(text: string, out: Uint32Array): number {
  let count = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out[count++] = ((unit - 0xd800) << 10) + (next - 0xdc00) + 0x10000;
        i++;
        continue;
      }
    }
    out[count++] = unit;
  }
  return count;
}

/** The number of Unicode code points in `text` (a surrogate pair counts once; a lone surrogate counts once). */
export function codePointLength(text: string): number {
  let count = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}
