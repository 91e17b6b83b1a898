/**
 * `drb serve`'s server against hostile requests and files: an unreadable file, symlinks out of the folder, dotfiles,
 * requests Node itself refuses (400, 431), and methods it does not serve. Every answer carries the headers and the
 * server keeps running.
 */
import { appendFile, chmod, mkdir, mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStaticServer, type StaticServer } from '../../src/node/static-server.ts';

let dir: string;
let server: StaticServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'drb-static-hostile-'));
  await chmod(dir, 0o755);
  await mkdir(join(dir, 'assets'));
  await mkdir(join(dir, '.git'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>t</title>');
  await writeFile(join(dir, 'assets', 'app.js'), 'export {};');
  await writeFile(join(dir, 'assets', 'locked.wasm'), 'secret');
  await chmod(join(dir, 'assets', 'locked.wasm'), 0o000);
  await writeFile(join(dir, '.env'), 'TOKEN=1');
  await writeFile(join(dir, '.npmrc'), '//registry/:_authToken=x');
  await writeFile(join(dir, '.git', 'config'), '[core]');
  await symlink('/etc/passwd', join(dir, 'passwd'));
  await symlink('/etc', join(dir, 'etc'));
  await symlink(join(dir, 'assets', 'app.js'), join(dir, 'inside.js'));
  await symlink(join(dir, '.env'), join(dir, 'env.txt'));
  server = await startStaticServer({ dir, modelHosts: [] });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function expectHeaders(headers: Headers): void {
  expect(headers.get('cross-origin-opener-policy')).toBe('same-origin');
  expect(headers.get('cross-origin-embedder-policy')).toBe('require-corp');
  expect(headers.get('cross-origin-resource-policy')).toBe('same-origin');
  expect(headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
  expect(headers.get('x-content-type-options')).toBe('nosniff');
}

/** Runs `body` with the effective uid of `nobody` when the tests run as root (root reads a mode-000 file). */
async function asUnprivileged<T>(body: () => Promise<T>): Promise<T> {
  const root = process.geteuid?.() === 0;
  if (root) process.seteuid!(65534);
  try {
    return await body();
  } finally {
    if (root) process.seteuid!(0);
  }
}

/** Sends raw bytes and returns the raw answer (status line and headers parsed). */
function rawRequest(bytes: string): Promise<{ status: number; headers: Map<string, string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head] = answer.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = new Map(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers });
    });
    socket.write(bytes);
  });
}

describe('static server against hostile input', () => {
  it('answers 500 with every header for a file it cannot read, and keeps serving', async () => {
    const locked = await asUnprivileged(() => fetch(`${server.url}assets/locked.wasm`));
    expect(locked.status).toBe(500);
    expectHeaders(locked.headers);
    expect(await locked.text()).not.toContain('secret');
    expect((await fetch(`${server.url}assets/app.js`)).status).toBe(200);
  });

  it('refuses symlinks that leave the folder and follows those that stay inside', async () => {
    for (const path of ['passwd', 'etc/passwd', 'etc/hostname']) {
      const response = await fetch(server.url + path);
      expect(response.status, path).toBe(403);
      expectHeaders(response.headers);
      expect(await response.text()).not.toContain('root:');
    }
    expect(await (await fetch(`${server.url}inside.js`)).text()).toBe('export {};');
  });

  it('never serves dotfiles or dot-folders, directly, encoded or through a symlink', async () => {
    for (const path of ['.env', '.npmrc', '.git/config', '%2egit/config', 'assets/..%2f.env', 'env.txt']) {
      const response = await fetch(server.url + path);
      expect(response.status, path).toBe(404);
      expectHeaders(response.headers);
    }
  });

  it('answers 405 with Allow for other methods', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      const response = await fetch(server.url, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
      expectHeaders(response.headers);
    }
  });

  it('sets the headers on the 400 and 431 answers Node gives to requests it cannot parse', async () => {
    const bad = await rawRequest('GARBAGE\r\n\r\n');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(bad.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
    const huge = await rawRequest(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge.status).toBe(431);
    expect(huge.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(huge.headers.get('x-content-type-options')).toBe('nosniff');
    const malformed = await fetch(`${server.url}%E0%A4%A`);
    expect(malformed.status).toBe(400);
    expectHeaders(malformed.headers);
    expect((await fetch(server.url)).status).toBe(200);
  });

  it("answers an HTTP/1.1 request without Host with 400 and every header (Node's own answer carried none)", async () => {
    const noHost = await rawRequest('GET / HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(noHost.status).toBe(400);
    for (const [name, value] of [
      ['cross-origin-opener-policy', 'same-origin'],
      ['cross-origin-embedder-policy', 'require-corp'],
      ['cross-origin-resource-policy', 'same-origin'],
      ['x-content-type-options', 'nosniff'],
    ])
      expect(noHost.headers.get(name), name).toBe(value);
    expect(noHost.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
    // HTTP/1.0 needs no Host: it is served.
    expect((await rawRequest('GET / HTTP/1.0\r\n\r\n')).status).toBe(200);
  });

  it('sends exactly Content-Length bytes of a file that grows while it is streamed, so a pipelined answer stays whole', async () => {
    const big = join(dir, 'assets', 'growing.bin');
    const size = 6 * 2 ** 20;
    await writeFile(big, Buffer.alloc(size, 0x61));
    const answer = await new Promise<Buffer>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1');
      const chunks: Buffer[] = [];
      let grown = false;
      socket.on('data', (chunk) => {
        chunks.push(chunk);
        // Once the first answer has started, the file grows by 1 MiB of other bytes.
        if (!grown) {
          grown = true;
          socket.pause();
          void appendFile(big, Buffer.alloc(2 ** 20, 0x62)).then(() => socket.resume());
        }
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks)));
      // Two pipelined requests on one connection: the second answer must start right after the first's body.
      socket.write(
        'GET /assets/growing.bin HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\nGET /assets/app.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
    });
    const headEnd = answer.indexOf('\r\n\r\n');
    const head = answer.subarray(0, headEnd).toString('latin1');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).toContain(`Content-Length: ${size}`);
    const body = answer.subarray(headEnd + 4, headEnd + 4 + size);
    expect(body.every((byte) => byte === 0x61)).toBe(true);
    const next = answer.subarray(headEnd + 4 + size).toString('latin1');
    expect(next).toMatch(/^HTTP\/1\.1 200 /);
    expect(next.endsWith('\r\n\r\nexport {};')).toBe(true);
  });

  it("closes the connection instead of finishing a file that shrank while it was streamed (a short body, never the next answer's bytes)", async () => {
    const big = join(dir, 'assets', 'shrinking.bin');
    const size = 6 * 2 ** 20;
    await writeFile(big, Buffer.alloc(size, 0x61));
    const answer = await new Promise<Buffer>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1');
      const chunks: Buffer[] = [];
      let cut = false;
      socket.on('data', (chunk) => {
        chunks.push(chunk);
        if (!cut) {
          cut = true;
          socket.pause();
          void truncate(big, 2 ** 20).then(() => socket.resume());
        }
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks)));
      socket.write(
        'GET /assets/shrinking.bin HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\nGET /assets/app.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
    });
    const headEnd = answer.indexOf('\r\n\r\n');
    expect(answer.subarray(0, headEnd).toString('latin1')).toContain(`Content-Length: ${size}`);
    // Fewer bytes than announced, and no second answer after them: the connection was closed.
    expect(answer.length - headEnd - 4).toBeLessThan(size);
    expect(answer.subarray(headEnd + 4).toString('latin1')).not.toContain('HTTP/1.1 200');
    expect((await fetch(`${server.url}assets/app.js`)).status).toBe(200);
  });
});
