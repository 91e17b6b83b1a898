import { readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../../src/core/catalog/csp.ts';
import { startStaticServer, type StaticServer } from '../../src/node/static-server.ts';

let dir: string;
let server: StaticServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'drb-static-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>t</title>');
  await writeFile(join(dir, 'assets', 'ort.wasm'), new Uint8Array([0, 97, 115, 109]));
  await writeFile(join(dir, 'assets', 'ort.mjs'), 'export {};');
  await writeFile(join(dir, 'secret.txt'), 'outside');
  // Far more than the socket buffers hold, so a client that stops reading leaves the server mid-file. Random bytes: a
  // .bin is never compressed, so the server streams it from an open file.
  await writeFile(
    join(dir, 'assets', 'big.bin'),
    new Uint8Array(32 * 1024 * 1024).map((_, i) => (i * 2654435761) >>> 24),
  );
  server = await startStaticServer({ dir: join(dir, 'assets', '..'), modelHosts: ['https://huggingface.co'] });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('static server', () => {
  it('listens on a free port of 127.0.0.1 and serves index.html for /', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const response = await fetch(server.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('sends cross-origin isolation headers and the strict CSP on every response, 404s included', async () => {
    for (const path of ['', 'assets/ort.wasm', 'missing.onnx']) {
      const response = await fetch(server.url + path);
      expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(response.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
      expect(response.headers.get('cross-origin-resource-policy')).toBe('same-origin');
      expect(response.headers.get('content-security-policy')).toBe(contentSecurityPolicy(['https://huggingface.co']));
    }
  });

  it('answers a matching If-None-Match with 304 and no body', async () => {
    const first = await fetch(`${server.url}assets/ort.wasm`);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    const again = await fetch(`${server.url}assets/ort.wasm`, { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect((await fetch(`${server.url}assets/ort.wasm`, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
  });

  it('uses the right MIME types', async () => {
    expect((await fetch(`${server.url}assets/ort.wasm`)).headers.get('content-type')).toBe('application/wasm');
    expect((await fetch(`${server.url}assets/ort.mjs`)).headers.get('content-type')).toBe(
      'text/javascript; charset=utf-8',
    );
  });

  it('answers 404 for a missing file (no SPA fallback) and never leaves the folder', async () => {
    const missing = await fetch(`${server.url}models/nope/model.onnx`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).not.toContain('<title>');
    const escaping = await fetch(`${server.url}assets/%2e%2e/%2e%2e/etc/passwd`);
    expect([403, 404]).toContain(escaping.status);
  });
});

/** How many of this process's open file descriptors point at `path` (Linux: /proc/self/fd). */
function openDescriptors(path: string): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) count++;
    } catch {
      // Closed between the listing and the read.
    }
  }
  return count;
}

/** `openDescriptors(path)` once it reaches 0, or after 5 s (the server closes a file a moment after its last byte). */
async function descriptorsAfterSettling(path: string): Promise<number> {
  const deadline = Date.now() + 5_000;
  while (openDescriptors(path) > 0 && Date.now() < deadline)
    await new Promise((resolveWait) => setTimeout(resolveWait, 20));
  return openDescriptors(path);
}

describe('static server, clients that go away', () => {
  it('closes the file when a client disconnects in the middle of it, without waiting for garbage collection', async () => {
    const file = join(dir, 'assets', 'big.bin');
    expect(openDescriptors(file)).toBe(0);
    // A download cancelled after its first bytes (a tester stopping a cold run).
    await new Promise<void>((resolveDone, reject) => {
      const req = request(`${server.url}assets/big.bin`, (response) => {
        expect(response.statusCode).toBe(200);
        response.once('data', () => {
          expect(openDescriptors(file)).toBe(1);
          req.destroy();
          resolveDone();
        });
      });
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
      req.end();
    });
    expect(await descriptorsAfterSettling(file)).toBe(0);
    // And the server goes on serving the file whole (closing it once sent: the client may have the last byte first).
    const whole = await fetch(`${server.url}assets/big.bin`);
    expect((await whole.arrayBuffer()).byteLength).toBe(32 * 1024 * 1024);
    expect(await descriptorsAfterSettling(file)).toBe(0);
  });
});

describe('contentSecurityPolicy', () => {
  it('allows only self plus the configured model hosts', () => {
    expect(contentSecurityPolicy(['https://huggingface.co'])).toBe(
      "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; connect-src 'self' https://huggingface.co; img-src 'self' data: blob:; style-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(contentSecurityPolicy([], true)).not.toContain('frame-ancestors');
  });
});
