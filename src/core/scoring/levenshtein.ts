/**
 * Unit-cost Levenshtein distance over Unicode code points (a surrogate pair such as 𠮷 is one character; nothing is
 * normalised). Written by hand rather than taken from a library: the npm packages we looked at (fast-levenshtein,
 * leven, fastest-levenshtein) compare UTF-16 code units, which would count 𠮷 as two characters.
 *
 * Algorithm: Myers' bit-parallel edit distance in Hyyrö's blocked form (G. Myers, "A fast bit-vector algorithm for
 * approximate string matching based on dynamic programming", JACM 46(3), 1999; H. Hyyrö, "A bit-vector algorithm
 * for computing Levenshtein and Damerau edit distances", Nordic J. Computing 10, 2003; the block step follows
 * edlib's calculateBlock). The shorter string is the pattern, packed 32 code points per Int32 block; each character
 * of the longer string costs a few bit operations per block instead of one DP cell per pattern character.
 *
 * One instance owns its scratch buffers (code points of both strings, the pattern's per-character bit masks in a
 * small open-addressing table keyed by code point, and the vertical delta vectors) and grows them to the longest
 * string seen, so a distance call allocates nothing, let alone per cell. Not re-entrant: use one instance per loop.
 */
export class CodePointLevenshtein {
  private left = new Uint32Array(64);
  private right = new Uint32Array(64);
  // Pattern bit masks (Peq): slot s holds code point keys[s]; its masks for blocks 0..w-1 sit at masks[s*w + b].
  // A slot is live only when stamps[s] === generation, so the table is never cleared between calls.
  private tableBits = 7;
  private keys = new Int32Array(128);
  private stamps = new Uint32Array(128);
  private masks = new Int32Array(128 * 2);
  private generation = 0;
  private refStarts = new Uint32Array(4); // where each reference of minCer's strings sits in `right`
  private refLengths = new Uint32Array(4);
  private positive = new Int32Array(2); // Pv per block
  private negative = new Int32Array(2); // Mv per block

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
    const n = writeCodePoints(a, this.left, 0);
    const m = writeCodePoints(b, this.right, 0);
    return this.distanceOfCodes(this.left, 0, n, this.right, 0, m);
  }

  /**
   * Edit distance between the code points a[aAt, aAt + n) and b[bAt, bAt + m).
   * @param a code points of the first string (it may be a scratch buffer of this instance)
   * @param b code points of the second string
   */
  distanceOfCodes(a: Uint32Array, aAt: number, n: number, b: Uint32Array, bAt: number, m: number): number {
    // Common prefix and suffix never change the distance; trimming them makes near-identical strings cheap.
    let start = 0;
    while (start < n && start < m && a[aAt + start] === b[bAt + start]) start++;
    while (n > start && m > start && a[aAt + n - 1] === b[bAt + m - 1]) {
      n--;
      m--;
    }
    n -= start;
    m -= start;
    if (n === 0) return m;
    if (m === 0) return n;
    // The shorter string is the pattern (fewer blocks per text character).
    if (m <= n) {
      this.buildPattern(b, bAt + start, m);
      return this.runText(a, aAt + start, n, m);
    }
    this.buildPattern(a, aAt + start, n);
    return this.runText(b, bAt + start, m, n);
  }

  /**
   * Minimum CER of `hypothesis` over `references`: min over refs of distance(ref, hyp) / code-point length of ref.
   * @param hypothesis the text being judged
   * @param references acceptable outputs; each must be a non-empty string
   */
  minCer(hypothesis: string, references: readonly string[]): number {
    let total = 0;
    for (const reference of references) total += reference.length;
    this.ensureCapacity(Math.max(hypothesis.length, total));
    if (this.refStarts.length < references.length) {
      this.refStarts = new Uint32Array(references.length);
      this.refLengths = new Uint32Array(references.length);
    }
    let at = 0;
    references.forEach((reference, k) => {
      this.refStarts[k] = at;
      this.refLengths[k] = writeCodePoints(reference, this.right, at);
      at += this.refLengths[k];
    });
    const m = writeCodePoints(hypothesis, this.left, 0);
    return this.minCerOfCodes(this.left, 0, m, this.right, this.refStarts, this.refLengths, references.length);
  }

  /**
   * Minimum CER of a hypothesis over references, all given as code points: min over refs of distance(ref, hyp) /
   * the ref's length. The hypothesis is packed as the bit-parallel pattern once and reused for every reference.
   * @param hypothesis code points of the text being judged, hypothesis[at, at + m)
   * @param references code points of the references; reference k is references[starts[k], starts[k] + lengths[k])
   * @param count how many references (at least one, each non-empty)
   */
  minCerOfCodes(
    hypothesis: Uint32Array,
    at: number,
    m: number,
    references: Uint32Array,
    starts: Uint32Array,
    lengths: Uint32Array,
    count: number,
  ): number {
    for (let k = 0; k < count; k++) {
      if (lengths[k] !== m) continue;
      let same = 0;
      while (same < m && references[starts[k] + same] === hypothesis[at + same]) same++;
      if (same === m) return 0;
    }
    let best = Infinity;
    if (m > 32) {
      // A long hypothesis: pair it with each reference through distanceOfCodes, which trims common ends and packs the
      // shorter string (usually the reference) so most runs stay in the one-block loop.
      for (let k = 0; k < count; k++) {
        const n = lengths[k];
        if (n === 0) throw new RangeError('a reference must not be empty (CER divides by its length)');
        const cer = this.distanceOfCodes(references, starts[k], n, hypothesis, at, m) / n;
        if (cer < best) best = cer;
      }
      return best;
    }
    if (m > 0) this.buildPattern(hypothesis, at, m);
    for (let k = 0; k < count; k++) {
      const n = lengths[k];
      if (n === 0) throw new RangeError('a reference must not be empty (CER divides by its length)');
      const cer = (m === 0 ? n : this.runText(references, starts[k], n, m)) / n;
      if (cer < best) best = cer;
    }
    return best;
  }

  /** Fills the Peq table (one bit mask per distinct code point, per 32-character block) for pattern[offset, offset+m). */
  private buildPattern(pattern: Uint32Array, offset: number, m: number): void {
    const blocks = (m + 31) >>> 5;
    this.ensureTable(m, blocks);
    const keys = this.keys;
    const stamps = this.stamps;
    const masks = this.masks;
    const shift = 32 - this.tableBits;
    const slotMask = (1 << this.tableBits) - 1;
    const generation = this.nextGeneration();
    for (let i = 0; i < m; i++) {
      const c = pattern[offset + i];
      let slot = Math.imul(c, 0x9e3779b1) >>> shift; // Fibonacci hashing
      while (stamps[slot] === generation && keys[slot] !== c) slot = (slot + 1) & slotMask;
      if (stamps[slot] !== generation) {
        stamps[slot] = generation;
        keys[slot] = c;
        // A plain loop, not masks.fill: a builtin call per new character costs more than the whole 1-block clear.
        for (let b = slot * blocks, end = b + blocks; b < end; b++) masks[b] = 0;
      }
      masks[slot * blocks + (i >>> 5)] |= 1 << (i & 31);
    }
  }

  /** Runs the text text[offset, offset+n) against the pattern (length m) last packed by buildPattern. */
  private runText(text: Uint32Array, offset: number, n: number, m: number): number {
    const blocks = (m + 31) >>> 5;
    const keys = this.keys;
    const stamps = this.stamps;
    const masks = this.masks;
    const shift = 32 - this.tableBits;
    const slotMask = (1 << this.tableBits) - 1;
    const generation = this.generation;
    if (blocks === 1) {
      // The common case (pattern of at most 32 code points): the same step with both vectors held in locals.
      const high = 1 << (m - 1);
      let p = -1;
      let q = 0;
      let score = m;
      for (let j = 0; j < n; j++) {
        const c = text[offset + j];
        let slot = Math.imul(c, 0x9e3779b1) >>> shift;
        while (stamps[slot] === generation && keys[slot] !== c) slot = (slot + 1) & slotMask;
        const eq = stamps[slot] === generation ? masks[slot] : 0;
        const xv = eq | q;
        const xh = (((eq & p) + p) ^ p) | eq;
        let ph = q | ~(xh | p);
        let mh = p & xh;
        if ((ph & high) !== 0) score++;
        else if ((mh & high) !== 0) score--;
        ph = (ph << 1) | 1;
        mh <<= 1;
        p = mh | ~(xv | ph);
        q = ph & xv;
      }
      return score;
    }
    const pv = this.positive;
    const mv = this.negative;
    pv.fill(-1, 0, blocks);
    mv.fill(0, 0, blocks);
    const lastHigh = 1 << ((m - 1) & 31);
    let score = m;
    for (let j = 0; j < n; j++) {
      const c = text[offset + j];
      let slot = Math.imul(c, 0x9e3779b1) >>> shift;
      while (stamps[slot] === generation && keys[slot] !== c) slot = (slot + 1) & slotMask;
      const found = stamps[slot] === generation;
      const base = slot * blocks;
      let carry = 1; // horizontal delta entering block 0: row 0 of the DP is 0, 1, 2, ... so it always grows by 1
      for (let b = 0; b < blocks; b++) {
        let eq = found ? masks[base + b] : 0;
        const p = pv[b];
        const q = mv[b];
        const xv = eq | q;
        if (carry < 0) eq |= 1;
        const xh = (((eq & p) + p) ^ p) | eq;
        let ph = q | ~(xh | p);
        let mh = p & xh;
        const high = b === blocks - 1 ? lastHigh : -2147483648;
        const out = (ph & high) !== 0 ? 1 : (mh & high) !== 0 ? -1 : 0;
        ph <<= 1;
        mh <<= 1;
        if (carry < 0) mh |= 1;
        else if (carry > 0) ph |= 1;
        pv[b] = mh | ~(xv | ph);
        mv[b] = ph & xv;
        carry = out;
      }
      score += carry;
    }
    return score;
  }

  private nextGeneration(): number {
    this.generation = (this.generation + 1) >>> 0;
    if (this.generation === 0) {
      // After 2^32 calls the stamps wrap: clear them once so no stale slot looks live.
      this.stamps.fill(0);
      this.generation = 1;
    }
    return this.generation;
  }

  private ensureTable(patternLength: number, blocks: number): void {
    let bits = this.tableBits;
    while (1 << bits < patternLength * 2) bits++; // load factor <= 1/2 keeps probes short
    if (bits !== this.tableBits || this.masks.length < (1 << bits) * blocks) {
      this.tableBits = bits;
      this.keys = new Int32Array(1 << bits);
      this.stamps = new Uint32Array(1 << bits);
      this.masks = new Int32Array((1 << bits) * Math.max(blocks, this.masks.length >> bits));
      this.generation = 0;
    }
    if (this.positive.length < blocks) {
      this.positive = new Int32Array(blocks);
      this.negative = new Int32Array(blocks);
    }
  }

  private ensureCapacity(codeUnits: number): void {
    if (codeUnits <= this.left.length) return;
    let size = this.left.length;
    while (size < codeUnits) size *= 2;
    this.left = new Uint32Array(size);
    this.right = new Uint32Array(size);
  }
}

/**
 * Writes the code points of `text` into `out` from index `at` and returns how many there are. A lone surrogate
 * counts as one character with its own value (as String.prototype.codePointAt does).
 */
function writeCodePoints(text: string, out: Uint32Array, at: number): number {
  let count = at;
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
  return count - at;
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
