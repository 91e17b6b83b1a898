/**
 * A small static file server for the built page: cross-origin isolation headers (COOP/COEP/CORP), the strict CSP,
 * correct MIME types, 404 for missing files (no SPA fallback), and no directory listings. It serves nothing outside
 * its folder (no `..`, no symlink leading out) and no dotfiles, and every response carries the headers, including
 * the 400/431 answers to requests Node cannot parse and the 500 for a file it cannot read.
 * Written by hand on node:http because it is ~100 lines and must not pull a dependency into `npm start`.
 */
import { open, realpath, stat, type FileHandle } from 'node:fs/promises';
import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import type { Duplex } from 'node:stream';
import { crossOriginHeaders } from '../core/csp.ts';

const MIME_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.bin': 'application/octet-stream',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** Options for `startStaticServer`. */
export interface StaticServerOptions {
  /** Folder to serve (the built page). */
  dir: string;
  /** 0 = any free port. */
  port?: number;
  host?: string;
  modelHosts?: readonly string[];
  /** false = leave out COOP/COEP/CORP, as a static host that cannot set headers would (tests the page's banner). */
  crossOriginIsolation?: boolean;
  /** Called once per request with method, path (no query) and status, for logs and tests. */
  onRequest?: (method: string, path: string, status: number) => void;
}

/** A running server. */
export interface StaticServer {
  server: Server;
  /** Base URL, e.g. `http://127.0.0.1:41234/`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Starts serving `options.dir`.
 * @param options folder, port, host and CSP model hosts
 */
export async function startStaticServer(options: StaticServerOptions): Promise<StaticServer> {
  const root = resolve(options.dir);
  const headers = crossOriginHeaders(options.modelHosts ?? []);
  if (options.crossOriginIsolation === false) {
    for (const name of ['Cross-Origin-Opener-Policy', 'Cross-Origin-Embedder-Policy', 'Cross-Origin-Resource-Policy']) delete headers[name];
  }
  const realRoot = await realpath(root).catch(() => root);
  const plain = { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' };
  const server = createServer((request, response) => {
    const method = request.method ?? 'GET';
    let path = '/';
    const finish = (status: number, extra: Record<string, string> = {}) => {
      response.writeHead(status, { ...plain, ...extra });
      response.end(method === 'HEAD' ? undefined : `${status}\n`);
      options.onRequest?.(method, path, status);
    };
    const serve = async (): Promise<void> => {
      if (method !== 'GET' && method !== 'HEAD') return finish(405, { Allow: 'GET, HEAD' });
      try {
        path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
      } catch {
        return finish(400); // a malformed %-escape
      }
      if (path.includes('\0')) return finish(400);
      // Dotfiles and dot-folders (.git, .env, .npmrc, the build marker) are never part of the page.
      if (path.split(/[\\/]/).some((segment) => segment.startsWith('.'))) return finish(404);
      // normalize + prefix check: a request can never leave the served folder (../, encoded or not).
      let file = normalize(join(root, path));
      if (file !== root && !file.startsWith(root + sep)) return finish(403);
      let info = await stat(file).catch(() => null);
      if (info?.isDirectory()) {
        file = join(file, 'index.html');
        info = await stat(file).catch(() => null);
      }
      if (!info?.isFile()) return finish(404);
      // A symlink is followed only while its target stays inside the served folder (and is no dotfile there).
      const real = await realpath(file).catch(() => null);
      if (real === null) return finish(404);
      const inside = relative(realRoot, real);
      if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return finish(403);
      if (inside.split(sep).some((segment) => segment.startsWith('.'))) return finish(404);
      // Open before the headers go out, so an unreadable file (EACCES) is a 500 with every header, not a crash.
      let handle: FileHandle;
      try {
        handle = await open(real, 'r');
      } catch {
        return finish(500);
      }
      try {
        info = await handle.stat();
      } catch {
        await handle.close().catch(() => undefined);
        return finish(500);
      }
      const type = MIME_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
      // A validator lets a repeated cold run revalidate the runtime's .wasm (14 or 27 MB) with a 304 instead of downloading it again.
      const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
      if (request.headers['if-none-match'] === etag || method === 'HEAD') await handle.close().catch(() => undefined);
      if (request.headers['if-none-match'] === etag) {
        response.writeHead(304, { ...headers, ETag: etag, 'Cache-Control': 'no-cache' });
        response.end();
        options.onRequest?.(method, path, 304);
        return;
      }
      response.writeHead(200, {
        ETag: etag,
        'Last-Modified': new Date(info.mtimeMs).toUTCString(),
        ...headers,
        'Content-Type': type,
        'Content-Length': String(info.size),
        // Revalidate every time (ETag above): simple and always current; model files are fetched with no-store anyway.
        'Cache-Control': 'no-cache',
      });
      options.onRequest?.(method, path, 200);
      if (method === 'HEAD') return void response.end();
      const stream = handle.createReadStream();
      // A read that fails after the headers went out can only cut the response short (the length tells the client).
      stream.once('error', () => response.destroy());
      stream.pipe(response);
    };
    serve().catch(() => {
      if (!response.headersSent) finish(500);
      else response.destroy();
    });
  });
  // Node answers requests it cannot parse (400) or whose headers are too large (431) itself, without our headers:
  // answer them here instead, with every header the page's responses carry.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = `${status}\n`;
    const head = { ...plain, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' };
    const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status]}`, ...Object.entries(head).map(([name, value]) => `${name}: ${value}`)];
    socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    server,
    url: `http://${shownHost}:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
