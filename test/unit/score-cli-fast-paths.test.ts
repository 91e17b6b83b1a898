import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openArtifact, readArtifact } from '../../src/cli/report-output.ts';
import { decodeUtf8Text } from '../../src/cli/utf8-text.ts';
import { readWhole } from '../../src/core/scoring/score-run.ts';
import { sha256Hex } from '../../src/core/bytes/sha256.ts';
import { testTempDir } from '../temp-dir.ts';

const encoder = new TextEncoder();
const strict = new TextDecoder('utf-8', { fatal: true });

describe('decodeUtf8Text (the CLI fast path for reading artifacts)', () => {
  it('gives exactly what the scorer TextDecoder gives, BMP and astral characters alike', () => {
    const text = JSON.stringify([{ id: 'a', input: 'かんじ𠮷', references: ['漢字𠮷', ''] }, 'ｶﾀｶﾅ\u0000\u2028é']);
    const bytes = encoder.encode(text);
    expect(decodeUtf8Text(bytes)).toBe(strict.decode(bytes));
    expect(decodeUtf8Text(bytes)).toBe(text);
  });

  it('removes exactly one leading BOM, as TextDecoder does', () => {
    const bom = [0xef, 0xbb, 0xbf];
    const once = new Uint8Array([...bom, ...encoder.encode('["猫"]')]);
    const twice = new Uint8Array([...bom, ...bom, ...encoder.encode('["猫"]')]);
    expect(decodeUtf8Text(once)).toBe('["猫"]');
    expect(decodeUtf8Text(twice)).toBe(strict.decode(twice));
    expect(decodeUtf8Text(twice)).toBe('\ufeff["猫"]');
    expect(decodeUtf8Text(new Uint8Array(bom))).toBe('');
  });

  it('returns undefined for bytes that are not valid UTF-8 (the scorer then names the bad byte)', () => {
    expect(decodeUtf8Text(new Uint8Array([0x5b, 0x22, 0xff, 0x22, 0x5d]))).toBeUndefined();
    expect(decodeUtf8Text(new Uint8Array([0xed, 0xa0, 0x80]))).toBeUndefined(); // an encoded surrogate
    expect(decodeUtf8Text(new Uint8Array([0xe3, 0x81]))).toBeUndefined(); // truncated sequence
  });

  it('leaves pure ASCII to TextDecoder (faster there), and decodes any non-ASCII text itself', () => {
    expect(decodeUtf8Text(new Uint8Array(0))).toBeUndefined();
    expect(decodeUtf8Text(encoder.encode('[{"id":"a"}]'))).toBeUndefined();
    expect(decodeUtf8Text(encoder.encode('abcé'))).toBe('abcé'); // odd byte length
    expect(decodeUtf8Text(encoder.encode('é'))).toBe('é');
  });
});

describe('the CLI hash of input files (readArtifact and openArtifact hash each chunk as they read it)', () => {
  /** The hashes both readers give for a file holding `bytes`. */
  function cliHashes(bytes: Uint8Array): string[] {
    const dir = testTempDir('drb-hash-');
    const path = join(dir, 'f.json');
    writeFileSync(path, bytes);
    const stream = openArtifact(path);
    try {
      const streamed = 'bytes' in stream ? stream.sha256 : readWhole(stream).sha256;
      return [readArtifact(path).sha256 ?? '', streamed ?? ''];
    } finally {
      stream.close();
    }
  }

  it('agrees with the Web Crypto hash the core uses, and with a published test vector', async () => {
    expect(cliHashes(encoder.encode('abc'))).toEqual(
      Array(2).fill('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'),
    );
    const bytes = new Uint8Array(3 * (1 << 20) + 100_003).map((_, i) => (i * 7919) & 0xff); // several read chunks
    expect(cliHashes(bytes)).toEqual(Array(2).fill(await sha256Hex(bytes)));
    const view = bytes.subarray(5, 70_000); // a view into a larger buffer: only its own bytes are written and hashed
    expect(cliHashes(view)).toEqual(Array(2).fill(await sha256Hex(view)));
  });
});
