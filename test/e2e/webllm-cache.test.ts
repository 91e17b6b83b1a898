/**
 * The WebLLM adapter's cache read-back in a REAL Chromium Cache API, checked against WebLLM 0.2.86's OWN cache code
 * (no GPU needed, no WebLLM model run): a local server serves a tiny WebLLM-shaped model folder (config, tokenizer,
 * tensor-cache.json, two shards) and a model library; the page stores them the way WebLLM's ArtifactCache does
 * (`cache.add(new Request(url))` into webllm/config, webllm/wasm, webllm/model), then
 *   - WebLLM's `hasModelInCache` must say the model is cached (its URLs and cache name for the weights match);
 *   - `hashWebLlmFiles` must hash exactly those files, with the same SHA-256 as Node computes for the served bytes;
 *   - after WebLLM's own `deleteModelAllInfoInCache`, the read-back must find only what WebLLM leaves behind
 *     (`tensor-cache.json`): so the config, library, tokenizer and shard entries it reads are the ones WebLLM owns.
 * The files are synthetic (no real weights); what a real WebLLM load writes on a GPU is not exercised here.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedChromium } from '../../src/node/chromium.ts';
import { startStaticServer, type StaticServer } from '../../src/node/static-server.ts';
import type { MlcModelRecord } from '../../workers/engines/webllm-engine.ts';
import type { WebLlmCacheReadBack } from '../../workers/engines/webllm-cache.ts';
import { launchTestChromium } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FOLDER_PATH = 'mlc-ai/Tiny-q4f32_1-MLC/resolve/main/';
const LIB_PATH = 'libs/Tiny-q4f32_1-webgpu.wasm';

const text = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const bytesOf = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 131 + seed * 17 + (i >> 8)) & 0xff);

/** The served files: path under the server root, the cache WebLLM stores it in, and its bytes. */
const FILES: Array<{ path: string; cache: string; bytes: Uint8Array }> = [
  { path: `${FOLDER_PATH}mlc-chat-config.json`, cache: 'webllm/config', bytes: text({ tokenizer_files: ['tokenizer.json'], context_window_size: 512 }) },
  { path: LIB_PATH, cache: 'webllm/wasm', bytes: bytesOf(4096, 1) },
  { path: `${FOLDER_PATH}tokenizer.json`, cache: 'webllm/model', bytes: text({ model: { type: 'BPE', vocab: { a: 0, b: 1 } } }) },
  {
    path: `${FOLDER_PATH}tensor-cache.json`,
    cache: 'webllm/model',
    bytes: text({ metadata: { ParamSize: 2 }, records: [{ dataPath: 'params_shard_0.bin', nbytes: 1_500_000, records: [] }, { dataPath: 'params_shard_1.bin', nbytes: 700_000, records: [] }] }),
  },
  { path: `${FOLDER_PATH}params_shard_0.bin`, cache: 'webllm/model', bytes: bytesOf(1_500_000, 2) },
  { path: `${FOLDER_PATH}params_shard_1.bin`, cache: 'webllm/model', bytes: bytesOf(700_000, 3) },
];

let dir: string;
let server: StaticServer;
let browser: LaunchedChromium;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'drb-webllm-cache-'));
  // The entry is bundled into this test's own temp folder (never the shared dist/).
  await build({
    configFile: false,
    root: REPO_ROOT,
    // 'error': the bundle statically imports WebLLM, which the adapter imports dynamically, and Vite warns about that.
    logLevel: 'error',
    build: {
      outDir: join(dir, 'lib'),
      emptyOutDir: true,
      minify: false,
      lib: { entry: join(REPO_ROOT, 'test/e2e/webllm-cache-entry.ts'), formats: ['es'], fileName: () => 'entry.js' },
    },
  });
  await writeFile(join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><title>webllm cache</title><script type="module" src="/lib/entry.js"></script>');
  for (const file of FILES) {
    await mkdir(dirname(join(dir, file.path)), { recursive: true });
    await writeFile(join(dir, file.path), file.bytes);
  }
  server = await startStaticServer({ dir });
  browser = await launchTestChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("WebLLM cache read-back against WebLLM's own cache code (real Chromium Cache API)", () => {
  it('hashes exactly the entries WebLLM owns for the model, and nothing WebLLM deletes is left unread', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}index.html`);
    await waitForPage(page, () => 'drbWebLlmCache' in window, null, { timeout: 60_000 });
    const record: MlcModelRecord = { model: `${server.url}${FOLDER_PATH.replace(/\/$/, '')}`, model_id: 'Tiny-q4f32_1-MLC', model_lib: `${server.url}${LIB_PATH}` };
    const result = await page.evaluate(
      async ({ record, files, base }) => {
        type Api = {
          hashWebLlmFiles(record: unknown, storage: CacheStorage): Promise<WebLlmCacheReadBack>;
          hasModelInCache(id: string, appConfig: unknown): Promise<boolean>;
          deleteModelAllInfoInCache(id: string, appConfig: unknown): Promise<void>;
          cacheBackend: string;
        };
        const api = (window as unknown as { drbWebLlmCache: Api }).drbWebLlmCache;
        const appConfig = { model_list: [record], cacheBackend: api.cacheBackend };
        const before = await api.hasModelInCache(record.model_id, appConfig);
        // Stored exactly as WebLLM's ArtifactCache.addToCache does: cache.add(new Request(url)).
        for (const file of files) await (await caches.open(file.cache)).add(new Request(new URL(file.path, base).href));
        const cached = await api.hasModelInCache(record.model_id, appConfig);
        const read = await api.hashWebLlmFiles(record, caches);
        await api.deleteModelAllInfoInCache(record.model_id, appConfig);
        const afterDelete = await api.hashWebLlmFiles(record, caches);
        // With the config gone the read-back cannot learn the tokenizer's name: look for it where it was read from.
        const tokenizerLeft = (await (await caches.open('webllm/model')).match(new URL(files[2].path, base).href)) !== undefined;
        return { before, cached, read, afterDelete, tokenizerLeft };
      },
      { record, files: FILES.map(({ path, cache }) => ({ path, cache })), base: server.url },
    );
    expect(result.before).toBe(false);
    expect(result.cached, "WebLLM's hasModelInCache finds the weights where they were stored").toBe(true);
    expect(result.read.problems).toEqual([]);
    expect(result.read.files).toEqual(
      FILES.map((f) => ({
        url: `${server.url}${f.path}`,
        path: f.path === LIB_PATH ? null : f.path.slice(FOLDER_PATH.length),
        bytes: f.bytes.byteLength,
        sha256: createHash('sha256').update(f.bytes).digest('hex'),
      })),
    );
    // WebLLM's delete removes the config, library, tokenizer and shards from the caches the adapter read them from;
    // it leaves tensor-cache.json (its deleteTensorCache removes only the shards).
    expect(result.afterDelete.files.map((f) => f.path)).toEqual(['tensor-cache.json']);
    expect(result.afterDelete.problems).toHaveLength(4);
    for (const path of ['mlc-chat-config.json', LIB_PATH, 'params_shard_0.bin', 'params_shard_1.bin']) {
      expect(result.afterDelete.problems.some((p) => p.includes(path) && p.includes("is not in WebLLM's cache"))).toBe(true);
    }
    expect(result.tokenizerLeft, 'WebLLM deleted tokenizer.json from the cache the adapter reads it from').toBe(false);
    await page.close();
  });
});
