// The static server's compression: what it sends for each Accept-Encoding, Range and HEAD, read as raw bytes over
// node:http (fetch would decode them), and that a file's encoded bytes are made once per version of the file.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseCoding, encodedCacheFile, startStaticServer, type StaticServer } from '../../src/node/static-server.ts';

let dir: string;
let server: StaticServer;
const sent: Array<{ path: string; status: number; bytes?: number; coding?: string | null }> = [];
// Text that compresses (a bundle-like script) and bytes that do not (random).
const script = Buffer.from(Array.from({ length: 4000 }, (_, i) => `export const value${i} = ${i} * 2;\n`).join(''));
const noise = randomBytes(64 * 1024);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'drb-static-gz-'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>t</title>');
  await writeFile(join(dir, 'app.js'), script);
  await writeFile(join(dir, 'noise.wasm'), noise);
  await writeFile(join(dir, 'picture.png'), script);
  await writeFile(join(dir, 'changing.json'), JSON.stringify({ text: 'a'.repeat(5000) }));
  server = await startStaticServer({
    dir,
    onRequest: (_m, path, status, info) => sent.push({ path, status, bytes: info?.bytes, coding: info?.coding }),
  });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** One raw request: status, headers and the body bytes exactly as sent. */
function get(
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('chooseCoding', () => {
  it('prefers brotli, honours q-values and *, and falls back to the file as it is', () => {
    expect(chooseCoding(undefined)).toBeNull();
    expect(chooseCoding('')).toBeNull();
    expect(chooseCoding('identity')).toBeNull();
    expect(chooseCoding('gzip, deflate, br, zstd')).toBe('br');
    expect(chooseCoding('gzip, deflate')).toBe('gzip');
    expect(chooseCoding('x-gzip')).toBe('gzip');
    expect(chooseCoding('br;q=0, gzip')).toBe('gzip');
    expect(chooseCoding('br;q=0.5, gzip;q=0.8')).toBe('gzip');
    expect(chooseCoding('gzip;q=0, br;q=0')).toBeNull();
    expect(chooseCoding('*')).toBe('br');
    expect(chooseCoding('*;q=0, gzip')).toBe('gzip');
    expect(chooseCoding('BR;Q=1')).toBe('br');
    expect(chooseCoding('gzip;q=nonsense')).toBeNull();
  });
});

describe('static server compression', () => {
  it('sends gzip when only gzip is accepted: Vary, the encoded length, bytes that decode to the file', async () => {
    const r = await get('app.js', { 'accept-encoding': 'gzip, deflate' });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers.vary).toBe('Accept-Encoding');
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(r.body.length).toBeLessThan(script.length / 3);
    expect(gunzipSync(r.body).equals(script)).toBe(true);
    expect(r.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(r.headers['cross-origin-embedder-policy']).toBe('require-corp');
    expect(sent.at(-1)).toEqual({ path: '/app.js', status: 200, bytes: r.body.length, coding: 'gzip' });
  });

  it('sends brotli when the browser accepts it (Chromium sends gzip, deflate, br, zstd)', async () => {
    const r = await get('app.js', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(r.headers['content-encoding']).toBe('br');
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(brotliDecompressSync(r.body).equals(script)).toBe(true);
  });

  it('sends the file as it is without Accept-Encoding, for identity, and for a Range request, still with Vary', async () => {
    const cases: Array<Record<string, string>> = [
      {},
      { 'accept-encoding': 'identity' },
      { 'accept-encoding': 'gzip, br', range: 'bytes=0-99' },
    ];
    for (const headers of cases) {
      const r = await get('app.js', headers);
      expect(r.status).toBe(200);
      expect(r.headers['content-encoding']).toBeUndefined();
      expect(r.headers.vary).toBe('Accept-Encoding');
      expect(Number(r.headers['content-length'])).toBe(script.length);
      expect(r.body.equals(script)).toBe(true);
    }
  });

  it('sends a file compression would not shrink as it is, and never encodes images or small files', async () => {
    const random = await get('noise.wasm', { 'accept-encoding': 'gzip, br' });
    expect(random.headers['content-encoding']).toBeUndefined();
    expect(random.body.equals(noise)).toBe(true);
    expect(Number(random.headers['content-length'])).toBe(noise.length);
    const png = await get('picture.png', { 'accept-encoding': 'gzip, br' });
    expect(png.headers['content-encoding']).toBeUndefined();
    expect(png.headers.vary).toBeUndefined();
    expect(png.body.equals(script)).toBe(true);
    const small = await get('', { 'accept-encoding': 'gzip, br' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.body.toString()).toBe('<!doctype html><title>t</title>');
  });

  it('answers HEAD with the encoded length and no body', async () => {
    const full = await get('app.js', { 'accept-encoding': 'gzip' });
    const head = await get('app.js', { 'accept-encoding': 'gzip' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(head.headers['content-length']).toBe(full.headers['content-length']);
    expect(head.body.length).toBe(0);
  });

  it('gives each encoding its own ETag, and revalidates each against its own', async () => {
    const gz = await get('app.js', { 'accept-encoding': 'gzip' });
    const br = await get('app.js', { 'accept-encoding': 'br' });
    const raw = await get('app.js');
    const tags = [gz, br, raw].map((r) => r.headers.etag);
    expect(new Set(tags).size).toBe(3);
    expect(raw.headers.etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect((await get('app.js', { 'accept-encoding': 'gzip', 'if-none-match': gz.headers.etag! })).status).toBe(304);
    // A client that cached the gzip bytes but now accepts only identity must get the plain file, not a 304.
    const other = await get('app.js', { 'if-none-match': gz.headers.etag! });
    expect(other.status).toBe(200);
    expect(other.body.equals(script)).toBe(true);
  });

  it("makes a file version's encoded bytes once, and again when the file changes", async () => {
    const path = join(dir, 'changing.json');
    const first = await get('changing.json', { 'accept-encoding': 'gzip' });
    expect(JSON.parse(gunzipSync(first.body).toString())).toEqual({ text: 'a'.repeat(5000) });
    // Same size and modification time, other bytes: the cached encoding is what goes out (it was not remade).
    const when = new Date(Date.now() - 60_000);
    await utimes(path, when, when);
    const cachedVersion = await get('changing.json', { 'accept-encoding': 'gzip' });
    await writeFile(path, JSON.stringify({ text: 'b'.repeat(5000) }));
    await utimes(path, when, when);
    const again = await get('changing.json', { 'accept-encoding': 'gzip' });
    expect(again.body.equals(cachedVersion.body)).toBe(true);
    expect(JSON.parse(gunzipSync(again.body).toString())).toEqual({ text: 'a'.repeat(5000) });
    // A new modification time is a new version: encoded anew.
    const later = new Date(Date.now());
    await utimes(path, later, later);
    const changed = await get('changing.json', { 'accept-encoding': 'gzip' });
    expect(JSON.parse(gunzipSync(changed.body).toString())).toEqual({ text: 'b'.repeat(5000) });
  });

  it('keeps encoded bytes in DRB_ENCODED_CACHE_DIR, and answers from there as a later process would', async () => {
    const before = process.env.DRB_ENCODED_CACHE_DIR;
    const cache = await mkdtemp(join(tmpdir(), 'drb-static-cache-'));
    process.env.DRB_ENCODED_CACHE_DIR = cache;
    try {
      await writeFile(join(dir, 'kept.json'), JSON.stringify({ text: 'k'.repeat(5000) }));
      const first = await get('kept.json', { 'accept-encoding': 'gzip' });
      const kept = await readdir(cache);
      expect(kept).toHaveLength(1);
      expect(kept[0]).toMatch(/^[0-9a-f]{64}\.gzip$/);
      expect((await readFile(join(cache, kept[0]))).equals(first.body)).toBe(true);
      // A file version this process never encoded, whose encoding another process left in the folder: sent as kept.
      const planted = join(dir, 'planted.json');
      await writeFile(planted, JSON.stringify({ text: 'p'.repeat(5000) }));
      const info = await stat(planted);
      const marker = gzipSync(Buffer.from(JSON.stringify({ from: 'the cache folder' })));
      await writeFile(encodedCacheFile(cache, planted, info.size, info.mtimeMs, 'gzip'), marker);
      const answered = await get('planted.json', { 'accept-encoding': 'gzip' });
      expect(answered.body.equals(marker)).toBe(true);
      expect(Number(answered.headers['content-length'])).toBe(marker.length);
    } finally {
      if (before === undefined) delete process.env.DRB_ENCODED_CACHE_DIR;
      else process.env.DRB_ENCODED_CACHE_DIR = before;
      await rm(cache, { recursive: true, force: true });
    }
  });

  it('does not compress when told not to', async () => {
    const plain = await startStaticServer({ dir, compression: false });
    try {
      const r = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
        httpRequest(`${plain.url}app.js`, { headers: { 'accept-encoding': 'gzip, br' } }, (res) => {
          res.resume();
          resolve(res.headers);
        })
          .on('error', reject)
          .end();
      });
      expect(r['content-encoding']).toBeUndefined();
      expect(Number(r['content-length'])).toBe(script.length);
    } finally {
      await plain.close();
    }
  });
});
