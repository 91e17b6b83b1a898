/**
 * A small static file server for the built page: cross-origin isolation headers (COOP/COEP/CORP), the strict CSP,
 * correct MIME types, 404 for missing files (no SPA fallback), and no directory listings. It serves nothing outside
 * its folder (no `..`, no symlink leading out) and no dotfiles, and every response carries the headers, including
 * the 400/431 answers to requests Node cannot parse and the 500 for a file it cannot read.
 * Written by hand on node:http because it is ~100 lines and must not pull a dependency into `npm start`.
 *
 * Compression: a text, `.wasm`, `.onnx` or `.json` file goes out brotli- or gzip-encoded when the request's
 * Accept-Encoding allows it (brotli preferred), with `Vary: Accept-Encoding`, the encoded length as Content-Length
 * and an ETag of its own. Each file's encoded bytes are made once (zlib's thread pool, brotli at a fast quality)
 * and kept in memory for every server of the process, keyed by the file's path, size and modification time, so a
 * file is never recompressed per request. A request with a Range header gets the plain bytes (this server sends
 * whole files only), as does a file that compression would not shrink. When the environment names a folder in
 * DRB_ENCODED_CACHE_DIR (`npm test` does, for its many test processes serving one build), encoded bytes are also
 * kept there, under the same key, and read back by any later process instead of being made again.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, realpath, rename, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, extname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import type { Duplex } from 'node:stream';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import { crossOriginHeaders } from '../core/catalog/csp.ts';

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

/** Extensions whose files are sent compressed when the client accepts it (the others are already compressed). */
const COMPRESSIBLE = new Set([
  '.html',
  '.js',
  '.mjs',
  '.css',
  '.json',
  '.wasm',
  '.onnx',
  '.svg',
  '.txt',
  '.md',
  '.map',
]);
/** Files smaller than this go out as they are (the encoding would not pay for its header). */
const MIN_COMPRESS_BYTES = 1024;
/** Brotli quality: 4 gets most of brotli's gain at about twice gzip's time (11, the default, takes minutes on a 14 MB .wasm). */
const BROTLI_QUALITY = 4;
/** The most encoded bytes kept in memory; beyond it the oldest entries are dropped. */
const CACHE_LIMIT_BYTES = 512 * 2 ** 20;

/** A content coding this server offers. */
export type ContentCoding = 'br' | 'gzip';

/**
 * The coding to send for an Accept-Encoding header: `br` or `gzip` when the client accepts it (q > 0; brotli when
 * both are equally acceptable), else null (identity). `*` accepts both unless they are named with q=0.
 * @param header the request's Accept-Encoding, or undefined
 */
export function chooseCoding(header: string | undefined): ContentCoding | null {
  if (!header) return null;
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam === undefined ? 1 : Number(qParam.slice(2));
    q.set(name.trim(), Number.isFinite(value) ? value : 0);
  }
  const of = (name: ContentCoding) => q.get(name) ?? (name === 'gzip' ? q.get('x-gzip') : undefined) ?? q.get('*') ?? 0;
  const br = of('br');
  const gzip = of('gzip');
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return null;
}

/** Encoded bytes per file version and coding, shared by every server of the process (null: would not shrink). */
const encodedCache = new Map<string, Promise<Buffer | null>>();
/** The sizes of the finished entries of `encodedCache`, oldest first, and their sum. */
const encodedSizes = new Map<string, number>();
let encodedCacheBytes = 0;

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/**
 * Where a file version's encoded bytes are kept in a DRB_ENCODED_CACHE_DIR folder (an empty file: would not shrink).
 * @param dir the cache folder
 * @param file the served file's path
 * @param size its size in bytes
 * @param mtimeMs its modification time
 * @param coding the content coding
 */
export function encodedCacheFile(
  dir: string,
  file: string,
  size: number,
  mtimeMs: number,
  coding: ContentCoding,
): string {
  return join(dir, `${createHash('sha256').update(`${coding}\0${size}\0${mtimeMs}\0${file}`).digest('hex')}.${coding}`);
}

/**
 * The file's bytes in `coding`, made once per file version (path, size, mtime) and kept; null when the encoding
 * would not make it smaller.
 */
function encodedBytes(file: string, size: number, mtimeMs: number, coding: ContentCoding): Promise<Buffer | null> {
  const key = `${coding}\0${size}\0${mtimeMs}\0${file}`;
  const hit = encodedCache.get(key);
  if (hit) return hit;
  const made = (async () => {
    const diskDir = process.env.DRB_ENCODED_CACHE_DIR;
    const diskFile = diskDir ? encodedCacheFile(diskDir, file, size, mtimeMs, coding) : null;
    if (diskFile) {
      const kept = await readFile(diskFile).catch(() => null);
      // An empty file records "would not shrink".
      if (kept) return kept.length > 0 ? kept : null;
    }
    const plain = await readFile(file);
    const encoded =
      coding === 'gzip'
        ? await gzipAsync(plain, { level: 6 })
        : await brotliAsync(plain, {
            params: {
              [zlibConstants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
              [zlibConstants.BROTLI_PARAM_SIZE_HINT]: plain.length,
            },
          });
    if (plain.length !== size) return null; // The file changed while it was read: send it plain this time.
    const result = encoded.length < plain.length ? encoded : null;
    if (diskFile) {
      // Written whole under a temporary name, then renamed: a reader sees the finished bytes or nothing.
      const temporary = `${diskFile}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      await mkdir(dirname(diskFile), { recursive: true })
        .then(() => writeFile(temporary, result ?? new Uint8Array(0)))
        .then(() => rename(temporary, diskFile))
        .catch(() => undefined);
    }
    return result;
  })();
  encodedCache.set(key, made);
  made.then(
    (bytes) => {
      if (bytes === null || encodedCache.get(key) !== made) return;
      encodedSizes.set(key, bytes.length);
      encodedCacheBytes += bytes.length;
      // Drop the oldest finished entries beyond the limit (a Map iterates in insertion order).
      for (const [oldKey, oldSize] of encodedSizes) {
        if (encodedCacheBytes <= CACHE_LIMIT_BYTES || oldKey === key) break;
        encodedSizes.delete(oldKey);
        encodedCache.delete(oldKey);
        encodedCacheBytes -= oldSize;
      }
    },
    () => encodedCache.delete(key),
  );
  return made;
}

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
  /**
   * Called once per request with method, path (no query) and status, for logs and tests; for a 200 also the body
   * bytes sent (0 for HEAD) and the content coding (null: the file as it is).
   */
  onRequest?: (
    method: string,
    path: string,
    status: number,
    sent?: { bytes: number; coding: ContentCoding | null },
  ) => void;
  /** false = never compress (send every file as it is). Default true. */
  compression?: boolean;
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
    for (const name of ['Cross-Origin-Opener-Policy', 'Cross-Origin-Embedder-Policy', 'Cross-Origin-Resource-Policy'])
      delete headers[name];
  }
  const realRoot = await realpath(root).catch(() => root);
  const plain = { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' };
  // requireHostHeader off: Node would answer an HTTP/1.1 request without Host with its own bare 400, without the
  // page's headers; this handler answers it instead (below), with every header.
  const server = createServer({ requireHostHeader: false }, (request, response) => {
    const method = request.method ?? 'GET';
    let path = '/';
    const finish = (status: number, extra: Record<string, string> = {}) => {
      response.writeHead(status, { ...plain, ...extra });
      response.end(method === 'HEAD' ? undefined : `${status}\n`);
      options.onRequest?.(method, path, status);
    };
    const serve = async (): Promise<void> => {
      // HTTP/1.1 requires Host (RFC 9112, 3.2): a request without one is a 400, as Node would send, with our headers.
      if (request.headers.host === undefined && request.httpVersionMajor === 1 && request.httpVersionMinor >= 1) {
        return finish(400, { Connection: 'close' });
      }
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
      const extension = extname(file).toLowerCase();
      const type = MIME_TYPES[extension] ?? 'application/octet-stream';
      const compressible = options.compression !== false && COMPRESSIBLE.has(extension);
      // A Range request gets the plain bytes: ranges of an encoded body are not what the client asked for.
      const coding =
        compressible && info.size >= MIN_COMPRESS_BYTES && request.headers.range === undefined
          ? chooseCoding(request.headers['accept-encoding'])
          : null;
      let encoded: Buffer | null = null;
      if (coding !== null) {
        try {
          encoded = await encodedBytes(real, info.size, info.mtimeMs, coding);
        } catch {
          encoded = null; // Could not read or encode it here: the stream below sends it plain (or fails with a 500).
        }
      }
      const sentCoding = encoded === null ? null : coding;
      const vary: Record<string, string> = compressible ? { Vary: 'Accept-Encoding' } : {};
      // A validator lets a repeated cold run revalidate the runtime's .wasm (14 or 27 MB) with a 304 instead of
      // downloading it again; each encoding is its own representation, with its own validator.
      const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}${sentCoding === null ? '' : `-${sentCoding}`}"`;
      if (request.headers['if-none-match'] === etag || method === 'HEAD' || encoded !== null)
        await handle.close().catch(() => undefined);
      if (request.headers['if-none-match'] === etag) {
        response.writeHead(304, { ...headers, ...vary, ETag: etag, 'Cache-Control': 'no-cache' });
        response.end();
        options.onRequest?.(method, path, 304);
        return;
      }
      response.writeHead(200, {
        ETag: etag,
        'Last-Modified': new Date(info.mtimeMs).toUTCString(),
        ...headers,
        ...vary,
        'Content-Type': type,
        ...(sentCoding === null ? {} : { 'Content-Encoding': sentCoding }),
        'Content-Length': String(encoded === null ? info.size : encoded.length),
        // Revalidate every time (ETag above): simple and always current; model files are fetched with no-store anyway.
        'Cache-Control': 'no-cache',
      });
      options.onRequest?.(method, path, 200, {
        bytes: method === 'HEAD' ? 0 : encoded === null ? info.size : encoded.length,
        coding: sentCoding,
      });
      if (method === 'HEAD') return void response.end();
      if (encoded !== null) return void response.end(encoded);
      // Exactly Content-Length bytes: the stream stops at the size the headers announced even if the file grows
      // meanwhile (the bytes after it would be read as the next pipelined response). A file that shrank, or a read
      // that failed, cannot be finished honestly: the connection is closed, so the client sees a short body, never
      // another response's bytes taken for this one's. When the client goes away mid-file (a cancelled run, a closed
      // tab) the read stream is destroyed too, which closes the file now instead of whenever it is collected.
      if (info.size === 0) {
        await handle.close().catch(() => undefined);
        return void response.end();
      }
      const size = info.size;
      const stream = handle.createReadStream({ start: 0, end: size - 1 });
      stream.pipe(response, { end: false });
      stream.on('end', () => {
        if (stream.bytesRead === size) response.end();
        else response.destroy();
      });
      stream.on('error', () => response.destroy());
      response.on('close', () => stream.destroy());
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
    const lines = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      ...Object.entries(head).map(([name, value]) => `${name}: ${value}`),
    ];
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
