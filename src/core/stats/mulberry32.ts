/**
 * mulberry32: a tiny 32-bit seeded PRNG (https://gist.github.com/tommyettinger/46a874533244883189143505d203312c).
 * Written out rather than taken from a library because fixtures, demo suites, benchmark data and comparison schedules
 * must be byte-for-byte reproducible from a declared seed, in any browser and in Node, forever; a dependency's
 * generator could change between versions, and Math.random cannot be seeded.
 * @param seed any 32-bit integer
 * @returns a function giving the next number in [0, 1)
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
