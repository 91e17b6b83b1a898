/**
 * The session store's record codec (src/page/stored-item-codec.ts): receipts stored as gzip-compressed JSON, read
 * back as the same value; records of the older plain form still read; damaged or foreign records refused with one
 * line each. Runs on Node 20's own CompressionStream, the same web API the page uses.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { canCompress, decodeRecord, encodeRecord } from '../../src/page/stored-item-codec.ts';

const receipt = JSON.parse(
  readFileSync(new URL('../fixtures/receipts/05-ort-heavy-wasm-t2-cold-ok.json', import.meta.url), 'utf8'),
) as unknown;
const AT = '2026-12-01T20:00:00.000Z';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('stored item records', () => {
  it('stores a captured device receipt compressed to well under half its JSON, and reads back the same value', async () => {
    expect(canCompress()).toBe(true);
    const record = await encodeRecord('receipt', receipt, AT);
    expect(record).toEqual({ kind: 'receipt', saved_at: AT, gzip: expect.any(Uint8Array) });
    expect(record.data).toBeUndefined();
    const json = new TextEncoder().encode(JSON.stringify(receipt)).length;
    expect(record.gzip!.length).toBeLessThan(json / 2);
    expect(await decodeRecord(record)).toEqual({ kind: 'receipt', data: receipt, saved_at: AT });
  });

  it('keeps non-ASCII text and every JSON kind of value exactly', async () => {
    const data = { text: '変換 𠮷 é', n: [0, -1.5, 1e-300], ok: true, none: null, nested: [{ a: [] }] };
    expect((await decodeRecord(await encodeRecord('answers', data, AT))).data).toEqual(data);
  });

  it('reads a record of the older plain form as it was stored', async () => {
    expect(await decodeRecord({ kind: 'receipt', data: receipt, saved_at: AT })).toEqual({
      kind: 'receipt',
      data: receipt,
      saved_at: AT,
    });
  });

  it('stores the plain value where the browser has no CompressionStream, and refuses to guess at compressed records there', async () => {
    const compressed = await encodeRecord('receipt', receipt, AT);
    vi.stubGlobal('CompressionStream', undefined);
    expect(canCompress()).toBe(false);
    expect(await encodeRecord('receipt', receipt, AT)).toEqual({ kind: 'receipt', data: receipt, saved_at: AT });
    await expect(decodeRecord(compressed)).rejects.toThrow(/^this browser cannot decompress it$/);
  });

  it.each([
    ['null', null, /^not an object$/],
    ['a string', 'receipt', /^not an object$/],
    ['no kind', { saved_at: AT, data: 1 }, /^kind is not a string$/],
    ['no time', { kind: 'receipt', data: 1 }, /^saved_at is not a string$/],
    ['no data at all', { kind: 'receipt', saved_at: AT }, /^neither gzip nor data$/],
    ['gzip that is not bytes', { kind: 'receipt', saved_at: AT, gzip: 'H4sI' }, /^gzip is not bytes$/],
    [
      'bytes that are not gzip',
      { kind: 'receipt', saved_at: AT, gzip: new Uint8Array([1, 2, 3, 4]) },
      /^gzip does not decompress \(not gzip, or cut short\)$/,
    ],
    [
      'a truncated gzip',
      { kind: 'receipt', saved_at: AT, gzip: new Uint8Array(gzipSync('{"a":1}').subarray(0, 12)) },
      /^gzip does not decompress \(not gzip, or cut short\)$/,
    ],
    [
      'gzip of something else than JSON',
      { kind: 'receipt', saved_at: AT, gzip: new Uint8Array(gzipSync('<html>')) },
      /^gzip does not hold JSON$/,
    ],
  ])('refuses %s with one line', async (_what, record, message) => {
    await expect(decodeRecord(record)).rejects.toThrow(message);
  });
});
