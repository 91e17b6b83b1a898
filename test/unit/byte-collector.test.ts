import { describe, expect, it } from 'vitest';
import { ByteCollector, declaredBodyLength, MAX_PREALLOCATED_BYTES } from '../../src/core/bytes/byte-collector.ts';

/** `n` bytes counting up from `start` (mod 256). */
const bytes = (n: number, start = 0) => Uint8Array.from({ length: n }, (_, i) => (start + i) % 256);

/** Splits `all` into chunks of the given sizes (each its own buffer, as a stream reader yields them). */
function chunksOf(all: Uint8Array, sizes: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const size of sizes) {
    out.push(all.slice(at, at + size));
    at += size;
  }
  expect(at).toBe(all.byteLength);
  return out;
}

function collect(
  declared: number | null,
  chunks: Uint8Array[],
): { result: Uint8Array; copied: boolean | null; lengths: number[] } {
  const collector = new ByteCollector(declared);
  const lengths: number[] = [];
  for (const chunk of chunks) {
    collector.push(chunk);
    lengths.push(collector.length);
  }
  const result = new Uint8Array(collector.finish());
  return { result, copied: collector.copiedOnFinish, lengths };
}

describe('ByteCollector', () => {
  const all = bytes(10_000, 7);

  it('writes chunks straight into a buffer of the declared length, and that buffer is the result (no copy)', () => {
    const run = collect(10_000, chunksOf(all, [4096, 4096, 1808]));
    expect(run.result).toEqual(all);
    expect(run.result.byteLength).toBe(10_000);
    expect(run.copied).toBe(false);
    expect(run.lengths).toEqual([4096, 8192, 10_000]);
  });

  it('joins the chunks once when no length was declared', () => {
    const run = collect(null, chunksOf(all, [1, 999, 5000, 4000]));
    expect(run.result).toEqual(all);
    expect(run.copied).toBe(true);
  });

  it('hands back a single whole chunk as it is', () => {
    const chunk = bytes(300);
    const collector = new ByteCollector(null);
    collector.push(chunk);
    expect(collector.finish()).toBe(chunk.buffer);
    expect(collector.copiedOnFinish).toBe(false);
  });

  it('keeps every byte when the server sends more than it declared', () => {
    const run = collect(6000, chunksOf(all, [4096, 4096, 1808]));
    expect(run.result).toEqual(all);
    expect(run.copied).toBe(true);
    expect(run.lengths).toEqual([4096, 8192, 10_000]);
  });

  it('cuts the buffer to what arrived when the server sends less than it declared', () => {
    const run = collect(20_000, chunksOf(all, [4096, 5904]));
    expect(run.result).toEqual(all);
    expect(run.result.byteLength).toBe(10_000);
    expect(run.copied).toBe(true);
  });

  it('gives an empty buffer for an empty body, declared or not', () => {
    expect(collect(null, []).result.byteLength).toBe(0);
    expect(collect(0, []).result.byteLength).toBe(0);
    expect(collect(64, [new Uint8Array(0)]).result.byteLength).toBe(0);
  });

  it('believes no declared length it should not: negative, fractional, NaN, infinite, or beyond the preallocation cap', () => {
    for (const declared of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, MAX_PREALLOCATED_BYTES + 1, 2 ** 53]) {
      const run = collect(declared, chunksOf(all, [5000, 5000]));
      expect(run.result, String(declared)).toEqual(all);
      // Collected chunk by chunk, so nothing of the declared size was reserved.
      expect(run.copied, String(declared)).toBe(true);
    }
  });

  it('refuses to be used after it finished', () => {
    const collector = new ByteCollector(4);
    collector.push(bytes(4));
    collector.finish();
    expect(() => collector.push(bytes(1))).toThrow(/push after finish/);
    expect(() => collector.finish()).toThrow(/finish called twice/);
  });
});

describe('declaredBodyLength', () => {
  it('is the Content-Length of a body that is not encoded', () => {
    expect(declaredBodyLength(null, '14239897')).toBe(14_239_897);
    expect(declaredBodyLength('identity', '10')).toBe(10);
  });

  it('is unknown for an encoded body (its Content-Length counts the encoded bytes), or without a usable length', () => {
    expect(declaredBodyLength('br', '4000000')).toBeNull();
    expect(declaredBodyLength('gzip', '10')).toBeNull();
    for (const length of [null, '', '0', '-5', 'ten', 'Infinity'])
      expect(declaredBodyLength(null, length), String(length)).toBeNull();
  });
});
