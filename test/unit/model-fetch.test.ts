/**
 * The generic model fetch (workers/model-fetch.ts) runs unchanged in Node 20 (fetch, streams, Web Crypto): served
 * by the real static server from a temp folder holding the committed fixture, then the same file with one byte flipped.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCatalog, type CatalogModel } from '../../src/core/catalog/catalog.ts';
import { startStaticServer, type StaticServer } from '../../src/node/static-server.ts';
import { fetchModelFiles } from '../../workers/model-fetch.ts';
import type { FetchProgress } from '../../src/worker-api/worker-messages.ts';

const root = new URL('../../', import.meta.url);
const catalog = parseCatalog(
  JSON.parse(await readFile(new URL('src/catalog/catalog.json', root), 'utf8')),
  'catalog.json',
);
const heavy = catalog.models.find((m) => m.id === 'ort-heavy-xenc')!;
let dir: string;
let server: StaticServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'drb-model-fetch-'));
  await cp(new URL('public/models/ort-heavy-xenc/', root), join(dir, 'models', 'ort-heavy-xenc'), { recursive: true });
  const flipped = new Uint8Array(await readFile(new URL('public/models/ort-heavy-xenc/model.onnx', root)));
  flipped[flipped.length - 1] ^= 0x01;
  await writeFile(join(dir, 'models', 'flipped.onnx'), flipped);
  server = await startStaticServer({ dir });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('fetchModelFiles', () => {
  it('fetches with progress up to the pinned total and verifies the SHA-256 it computes', async () => {
    const progress: FetchProgress[] = [];
    const fetched = await fetchModelFiles(heavy, server.url, { onProgress: (p) => progress.push(p) }, 'no-store');
    const pin = heavy.files[0];
    expect(fetched.integrity).toBe('verified');
    expect(fetched.files).toEqual([
      {
        url: `${server.url}models/ort-heavy-xenc/model.onnx`,
        bytes: pin.bytes,
        sha256: pin.sha256,
        expected_bytes: pin.bytes,
        expected_sha256: pin.sha256,
        // Fetched with no-store: not from the HTTP cache, whatever resource timing shows in this context.
        cache_state: 'network',
        cache_note: expect.toSatisfy(
          (note: string | null) =>
            note === null || note.startsWith('fetched with cache: no-store, so not from the HTTP cache'),
        ),
      },
    ]);
    expect(fetched.buffers[0].byteLength).toBe(pin.bytes);
    expect(progress.at(-1)).toEqual({
      kind: 'model',
      path: 'model.onnx',
      fileIndex: 0,
      fileCount: 1,
      bytesDone: pin.bytes,
      bytesTotal: pin.bytes,
    });
  });

  it('refuses a file changed by one byte with an IntegrityError naming both hashes', async () => {
    const tampered: CatalogModel = {
      ...heavy,
      files: [{ ...heavy.files[0], path: 'flipped.onnx' }],
      source: { type: 'page-origin', base_path: 'models/' },
    };
    await expect(fetchModelFiles(tampered, server.url, {})).rejects.toMatchObject({
      name: 'IntegrityError',
      message: expect.stringMatching(
        new RegExp(
          `^integrity failure: flipped\\.onnx has SHA-256 [0-9a-f]{64}, the catalog pins ${heavy.files[0].sha256}$`,
        ),
      ),
    });
  });

  it('records an unpinned model as unpinned, with the hash it computed', async () => {
    const unpinned: CatalogModel = { ...heavy, files: [{ path: 'model.onnx', bytes: null, sha256: null }] };
    const fetched = await fetchModelFiles(unpinned, server.url, {});
    expect(fetched.integrity).toBe('unpinned');
    expect(fetched.files[0].sha256).toBe(heavy.files[0].sha256);
    expect(fetched.files[0].expected_sha256).toBeNull();
  });

  it('names the file and its host when the network refuses, and says what to check', async () => {
    const unreachable: CatalogModel = { ...heavy, source: { type: 'page-origin', base_path: 'models/heavy/' } };
    // Port 9 on the loopback: nothing listens there, so the fetch itself fails (as offline or a blocked host does).
    await expect(fetchModelFiles(unreachable, 'http://127.0.0.1:9/app/?token=SECRET', {})).rejects.toThrow(
      /^model file http:\/\/127\.0\.0\.1:9\/app\/models\/heavy\/model\.onnx could not be fetched from 127\.0\.0\.1:9 \(.+\): offline, or the host is blocked/,
    );
  });

  it('names the redacted URL and status of a missing file', async () => {
    const missing: CatalogModel = { ...heavy, source: { type: 'page-origin', base_path: 'models/nope/' } };
    await expect(fetchModelFiles(missing, `${server.url}?token=SECRET`, {})).rejects.toThrow(
      `model file ${server.url}models/nope/model.onnx answered HTTP 404`,
    );
  });
});
