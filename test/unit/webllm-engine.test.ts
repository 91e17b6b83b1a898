/**
 * CONTRACT TEST of the WebLLM adapter against the engine interface: the adapter is driven with a FAKE MLC engine
 * object that implements the same methods the adapter calls on the real one (reload, resetChat, unload,
 * chat.completions.create streaming chunks with usage.extra), a FAKE CacheStorage holding fake WebLLM entries under
 * WebLLM 0.2.86's cache names and URLs, and a fake clock. It checks the adapter's gate, timing, file hashing and
 * integrity logic; it does not run WebLLM. What needs a real GPU is listed in docs/generation.md.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { parseCatalog, type CatalogModel } from '../../src/core/catalog/catalog.ts';
import { modelHosts } from '../../src/core/catalog/csp.ts';
import type { WebGpuProbe } from '../../src/core/generation/webllm-gate.ts';
import { quantizationNeedsShaderF16, webLlmGate } from '../../src/core/generation/webllm-gate.ts';
import { sha256Hex } from '../../src/core/bytes/sha256.ts';
import type { LoadRequest } from '../../src/worker-api/worker-messages.ts';
import {
  hexToSri,
  modelRecordFor,
  WebLlmEngine,
  type MlcChunk,
  type MlcEngineLike,
  type MlcInitProgress,
  type MlcModelRecord,
  type WebLlmDeps,
  type WebLlmModule,
} from '../../workers/engines/webllm-engine.ts';
import {
  hashWebLlmFiles,
  WEBLLM_CACHE_NAMES,
  webLlmModelFolderUrl,
  type CacheStorageLike,
} from '../../workers/engines/webllm-cache.ts';

const model = (over: Partial<CatalogModel> = {}): CatalogModel => ({
  id: 'webllm-qwen2.5-0.5b-instruct-q4f16_1',
  label: 'Qwen2.5 0.5B Instruct (WebLLM q4f16_1)',
  engine: 'webllm',
  task: 'generate',
  kind: 'real',
  source: { type: 'huggingface', repo: 'mlc-ai/Qwen2.5-0.5B-Instruct-q4f16_1-MLC', revision: null },
  files: [{ path: 'mlc-chat-config.json', bytes: null, sha256: null }],
  dtype: 'q4f16_1',
  licence: 'Apache-2.0',
  default_input: null,
  notes: null,
  ...over,
});

const request = (over: Partial<LoadRequest> = {}): LoadRequest => ({
  model: model(),
  pageBaseUrl: 'http://127.0.0.1:1/',
  ep: 'webgpu',
  threads: null,
  allowFallback: false,
  dtype: null,
  ...over,
});

const prebuilt: MlcModelRecord[] = [
  // The library URL carries a query so the receipt's redaction (origin + path) is visible.
  {
    model: 'https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f16_1-MLC',
    model_id: 'Qwen2.5-0.5B-Instruct-q4f16_1-MLC',
    model_lib: 'https://example.invalid/libs/qwen.wasm?token=secret',
  },
  {
    model: 'https://huggingface.co/mlc-ai/X-q4f32_1-MLC',
    model_id: 'X-q4f32_1-MLC',
    model_lib: 'https://example.invalid/x.wasm',
    required_features: ['timestamp-query'],
  },
];

const f16Gpu: WebGpuProbe = {
  navigator_gpu: true,
  adapter_granted: true,
  adapter_error: null,
  features: ['shader-f16'],
};

/** A fake Cache API: named caches of URL -> bytes, answering `match` with a real `Response` like the browser's. */
class FakeCacheStorage implements CacheStorageLike {
  readonly stores = new Map<string, Map<string, Uint8Array>>();
  readonly opened: string[] = [];
  put(cacheName: string, url: string, bytes: Uint8Array): void {
    if (!this.stores.has(cacheName)) this.stores.set(cacheName, new Map());
    this.stores.get(cacheName)!.set(url, bytes);
  }
  async open(cacheName: string) {
    this.opened.push(cacheName);
    const store = this.stores.get(cacheName) ?? new Map<string, Uint8Array>();
    return {
      match: async (url: string) => (store.has(url) ? new Response(store.get(url)!.slice()) : undefined),
      keys: async () => [...store.keys()].map((url) => ({ url })),
    };
  }
}

const FOLDER = 'https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f16_1-MLC/resolve/main/';
const LIB = prebuilt[0].model_lib;
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
/** Deterministic shard bytes (not zeros, so a one-byte change alters the hash). */
const shardBytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 7) & 0xff);

/** The entries WebLLM 0.2.86's reload() leaves in its caches for the Qwen record, plus unrelated ones it did not load. */
function webLlmEntries(): Array<{ cache: string; url: string; path: string | null; bytes: Uint8Array }> {
  return [
    {
      cache: WEBLLM_CACHE_NAMES.config,
      url: `${FOLDER}mlc-chat-config.json`,
      path: 'mlc-chat-config.json',
      bytes: json({ tokenizer_files: ['tokenizer.json', 'vocab.json'], context_window_size: 4096 }),
    },
    { cache: WEBLLM_CACHE_NAMES.wasm, url: LIB, path: null, bytes: shardBytes(3000, 9) },
    {
      cache: WEBLLM_CACHE_NAMES.model,
      url: `${FOLDER}tokenizer.json`,
      path: 'tokenizer.json',
      bytes: json({ model: { vocab: { a: 0 } } }),
    },
    {
      cache: WEBLLM_CACHE_NAMES.model,
      url: `${FOLDER}tensor-cache.json`,
      path: 'tensor-cache.json',
      bytes: json({
        metadata: {},
        records: [
          { dataPath: 'params_shard_0.bin', nbytes: 70000 },
          { dataPath: 'params_shard_1.bin', nbytes: 50000 },
        ],
      }),
    },
    {
      cache: WEBLLM_CACHE_NAMES.model,
      url: `${FOLDER}params_shard_0.bin`,
      path: 'params_shard_0.bin',
      bytes: shardBytes(70000, 1),
    },
    {
      cache: WEBLLM_CACHE_NAMES.model,
      url: `${FOLDER}params_shard_1.bin`,
      path: 'params_shard_1.bin',
      bytes: shardBytes(50000, 2),
    },
  ];
}

/** Entries in the same caches that this load did not use: another model's shard, and a tokenizer WebLLM skipped. */
const unrelatedEntries = [
  {
    cache: WEBLLM_CACHE_NAMES.model,
    url: 'https://huggingface.co/mlc-ai/Other-MLC/resolve/main/params_shard_0.bin',
    bytes: shardBytes(10, 3),
  },
  { cache: WEBLLM_CACHE_NAMES.model, url: `${FOLDER}tokenizer.model`, bytes: shardBytes(10, 4) },
];

/** SHA-256 with Node's own implementation, independent of the Web Crypto one the adapter uses. */
const nodeSha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The receipt files the adapter should record for `webLlmEntries()` (URLs redacted to origin + path). */
/** Where the files came from: WebLLM's cache held them before the load (`cached`), or this load downloaded them,
 *  which a Node test cannot time (no resource timing entry: unknown, with the reason). */
const CACHE_FACTS = {
  cached: { cache_state: 'cache-storage', cache_note: "the engine's own storage held this file before the run" },
  download: { cache_state: 'unknown', cache_note: 'no resource timing entry for this file' },
} as const;
const expectedFiles = (
  pins: Record<string, { bytes: number | null; sha256: string | null }> = {},
  cache: keyof typeof CACHE_FACTS = 'cached',
) =>
  webLlmEntries().map((e) => ({
    url: e.url === LIB ? 'https://example.invalid/libs/qwen.wasm' : e.url,
    bytes: e.bytes.byteLength,
    sha256: nodeSha256(e.bytes),
    expected_bytes: (e.path && pins[e.path]?.bytes) ?? null,
    expected_sha256: (e.path && pins[e.path]?.sha256) ?? null,
    ...CACHE_FACTS[cache],
  }));

/** A fake clock the fake engine advances, so every timing below is exact. */
class Clock {
  t = 1000;
  now = () => this.t;
}

/** A fake MLCEngine: records calls and streams scripted chunks, advancing the clock before each. */
class FakeMlcEngine implements MlcEngineLike {
  calls: string[] = [];
  requests: unknown[] = [];
  constructor(
    private readonly clock: Clock,
    private readonly onProgress: (r: MlcInitProgress) => void,
    private readonly script: Array<{ afterMs: number; chunk: MlcChunk }>,
    private readonly reloadError: Error | null = null,
    private readonly onReload: () => void = () => {},
  ) {}
  async reload(modelId: string) {
    this.calls.push(`reload:${modelId}`);
    // Like WebLLM's reload: download into the cache (when the test says so), then load from it.
    this.onReload();
    this.clock.t += 100;
    this.onProgress({
      progress: 0.5,
      timeElapsed: 0.1,
      text: 'Fetching param cache[1/2]: 150MB fetched. 50% completed, 1 secs elapsed.',
    });
    this.clock.t += 400;
    this.onProgress({
      progress: 1,
      timeElapsed: 0.5,
      text: 'Loading model from cache[1/2]: 300MB loaded. 100% completed, 1 secs elapsed.',
    });
    this.clock.t += 250;
    if (this.reloadError) throw this.reloadError;
  }
  async resetChat() {
    this.calls.push('resetChat');
  }
  async unload() {
    this.calls.push('unload');
  }
  chat = {
    completions: {
      create: async (req: unknown) => {
        this.requests.push(req);
        const { clock, script } = this;
        return (async function* () {
          for (const step of script) {
            clock.t += step.afterMs;
            yield step.chunk;
          }
        })();
      },
    },
  };
}

interface SetupOptions {
  probe?: WebGpuProbe;
  script?: Array<{ afterMs: number; chunk: MlcChunk }>;
  reloadError?: Error;
  /** `download`: the fake reload writes WebLLM's entries into the cache (first visit); `cached`: they were already
   *  there from an earlier run; `none`: the cache holds nothing of this model; `unavailable`: no Cache API. */
  cache?: 'download' | 'cached' | 'none' | 'unavailable';
}

function setup(opts: SetupOptions = {}) {
  const clock = new Clock();
  const created: FakeMlcEngine[] = [];
  const storage = new FakeCacheStorage();
  for (const e of unrelatedEntries) storage.put(e.cache, e.url, e.bytes);
  const mode = opts.cache ?? 'cached';
  const fill = () => {
    for (const e of webLlmEntries()) storage.put(e.cache, e.url, e.bytes);
  };
  if (mode === 'cached') fill();
  const importWebLlm = vi.fn(
    async (): Promise<WebLlmModule> => ({
      prebuiltAppConfig: { model_list: prebuilt },
      MLCEngine: class {
        constructor(config: {
          appConfig: { model_list: MlcModelRecord[] };
          initProgressCallback: (r: MlcInitProgress) => void;
        }) {
          const fake = new FakeMlcEngine(
            clock,
            config.initProgressCallback,
            opts.script ?? [],
            opts.reloadError ?? null,
            mode === 'download' ? fill : () => {},
          );
          (fake as unknown as { config: unknown }).config = config;
          created.push(fake);
          // biome-ignore lint/correctness/noConstructorReturn: the stand-in for web-llm's class hands back the fake engine the test records
          return fake;
        }
      } as unknown as WebLlmModule['MLCEngine'],
    }),
  );
  const deps: WebLlmDeps = {
    probeWebGpu: async () => opts.probe ?? f16Gpu,
    importWebLlm,
    cacheStorage: () => (mode === 'unavailable' ? null : storage),
    now: clock.now,
    version: '0.2.86',
  };
  return { engine: new WebLlmEngine(deps), importWebLlm, created, clock, storage };
}

const chunk = (content: string | null, finish: string | null = null, usage: MlcChunk['usage'] = null): MlcChunk => ({
  choices: content === null && finish === null ? [] : [{ delta: { content }, finish_reason: finish }],
  usage,
});

describe('WebLLM capability gate (pure)', () => {
  it('knows which MLC quantisations compute in float16', () => {
    expect(quantizationNeedsShaderF16('q4f16_1')).toBe(true);
    expect(quantizationNeedsShaderF16('q0f16')).toBe(true);
    expect(quantizationNeedsShaderF16('q4f32_1')).toBe(false);
    expect(quantizationNeedsShaderF16('q0f32')).toBe(false);
    expect(quantizationNeedsShaderF16(null)).toBe(false);
  });

  it('gives a code and a reason for each missing capability', () => {
    expect(
      webLlmGate({ navigator_gpu: false, adapter_granted: false, adapter_error: null, features: [] }, 'q4f32_1'),
    ).toMatchObject({ ok: false, code: 'no-webgpu' });
    expect(
      webLlmGate({ navigator_gpu: true, adapter_granted: false, adapter_error: 'blocked', features: [] }, 'q4f32_1'),
    ).toMatchObject({
      ok: false,
      code: 'no-adapter',
      reason: expect.stringContaining('(blocked)'),
    });
    const noF16 = webLlmGate({ ...f16Gpu, features: [] }, 'q4f16_1');
    expect(noF16).toMatchObject({ ok: false, code: 'missing-feature', required_features: ['shader-f16'] });
    expect(noF16.ok ? '' : noF16.reason).toBe(
      'the WebGPU adapter lacks shader-f16 (the q4f16_1 quantisation computes in float16); nothing was downloaded',
    );
    expect(webLlmGate({ ...f16Gpu, features: [] }, 'q4f32_1')).toEqual({ ok: true, required_features: [] });
  });
});

describe('WebLLM catalog entry and CSP', () => {
  const catalog = parseCatalog(
    JSON.parse(readFileSync(new URL('../../src/catalog/catalog.json', import.meta.url), 'utf8')),
    'catalog.json',
  );

  it('lists one small WebLLM model with a licence, unpinned, whose quantisation the gate understands', () => {
    const webllm = catalog.models.filter((m) => m.engine === 'webllm');
    expect(webllm.map((m) => [m.id, m.task, m.kind, m.dtype])).toEqual([
      ['webllm-qwen2.5-0.5b-instruct-q4f16_1', 'generate', 'real', 'q4f16_1'],
    ]);
    expect(webllm[0].licence).toMatch(/^Apache-2\.0/);
    expect(webllm[0].source).toEqual({
      type: 'huggingface',
      repo: 'mlc-ai/Qwen2.5-0.5B-Instruct-q4f16_1-MLC',
      revision: null,
    });
    expect(webllm[0].files.every((f) => f.bytes === null && f.sha256 === null)).toBe(true);
    expect(quantizationNeedsShaderF16(webllm[0].dtype)).toBe(true);
  });

  it("lets the page reach WebLLM's model-library host only because a WebLLM model is in the catalog", () => {
    expect(modelHosts(catalog)).toContain('https://raw.githubusercontent.com');
    const without = { ...catalog, models: catalog.models.filter((m) => m.engine !== 'webllm') };
    expect(modelHosts(without)).not.toContain('https://raw.githubusercontent.com');
  });
});

describe('WebLlmEngine load (contract test with a fake MLC engine)', () => {
  it('fails the gate without WebGPU before importing WebLLM', async () => {
    const { engine, importWebLlm } = setup({
      probe: { navigator_gpu: false, adapter_granted: false, adapter_error: null, features: [] },
    });
    const error = await engine.load(request(), {}).catch((e) => e);
    expect(error.name).toBe('RouteError');
    expect(error.message).toBe(
      'WebLLM capability gate: WebLLM needs WebGPU, and this browser has no navigator.gpu; nothing was downloaded',
    );
    expect(error.attempts).toEqual([
      expect.objectContaining({ ep: 'webgpu', outcome: 'failed', reason: error.message }),
    ]);
    expect(importWebLlm).not.toHaveBeenCalled();
  });

  it('fails the gate without shader-f16 for a q4f16 model, before importing WebLLM', async () => {
    const { engine, importWebLlm } = setup({ probe: { ...f16Gpu, features: [] } });
    const error = await engine.load(request(), {}).catch((e) => e);
    expect(error.name).toBe('RouteError');
    expect(error.message).toMatch(/lacks shader-f16/);
    expect(importWebLlm).not.toHaveBeenCalled();
  });

  it('says there is no wasm route to fall back to', async () => {
    const { engine } = setup({ probe: { ...f16Gpu, features: [] } });
    await expect(engine.load(request({ allowFallback: true }), {})).rejects.toThrow(
      /has no wasm route to fall back to/,
    );
    await expect(setup().engine.load(request({ ep: 'wasm' }), {})).rejects.toThrow(
      'WebLLM runs on WebGPU only: choose webgpu under Execution provider',
    );
  });

  it("applies the model record's own required features before creating an engine", async () => {
    const { engine, created } = setup({ probe: { ...f16Gpu, features: [] } });
    const m = model({
      id: 'webllm-x',
      source: { type: 'huggingface', repo: 'mlc-ai/X-q4f32_1-MLC', revision: null },
      dtype: 'q4f32_1',
    });
    await expect(engine.load(request({ model: m }), {})).rejects.toThrow(/lacks timestamp-query/);
    expect(created).toHaveLength(0);
  });

  it('loads, splitting the parameter download (fetch) from GPU loading (session), and reports progress in bytes', async () => {
    const { engine, created } = setup();
    const stages: string[] = [];
    const progress: Array<{ bytesDone: number; bytesTotal: number | null }> = [];
    const result = await engine.load(request(), {
      onStage: (s, p) => stages.push(`${s}:${p}`),
      onProgress: (p) => progress.push({ bytesDone: p.bytesDone, bytesTotal: p.bytesTotal }),
    });
    expect(created[0].calls).toEqual(['reload:Qwen2.5-0.5B-Instruct-q4f16_1-MLC']);
    expect(result).toMatchObject({
      route: { completed_ep: 'webgpu', fallback_reason: null, threads_effective: null },
      model: { integrity: 'unpinned' },
      timings: { model_fetch_ms: 500, session_create_ms: 250 },
    });
    expect(result.model.files).toHaveLength(6);
    expect(result.engine).toEqual({ name: 'webllm', version: '0.2.86' });
    expect(result.route.attempts).toEqual([
      { ep: 'webgpu', threads: null, outcome: 'succeeded', reason: null, started_at_ms: 1000, ended_at_ms: 1750 },
    ]);
    expect(stages).toEqual(['probe:start', 'probe:end', 'fetch:start', 'fetch:end', 'session:start', 'session:end']);
    expect(progress[0]).toEqual({ bytesDone: 150 * 1048576, bytesTotal: 300 * 1048576 });
  });

  it('turns a minified WebLLM device error (matched by name) into a route failure', async () => {
    const lost = Object.assign(new Error('GPU device lost'), { name: 'DeviceLostError' });
    const { engine } = setup({ reloadError: lost });
    const error = await engine.load(request(), {}).catch((e) => e);
    expect(error.name).toBe('RouteError');
    expect(error.message).toBe('WebLLM: DeviceLostError: GPU device lost');
    const other = await setup({ reloadError: new TypeError('Failed to fetch') })
      .engine.load(request(), {})
      .catch((e) => e);
    expect(other.name).toBe('TypeError');
  });

  it('pins the model URL to the catalog revision and passes SRI for pinned files', () => {
    const hex = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
    expect(hexToSri(hex)).toBe('sha256-n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=');
    const record = modelRecordFor(
      model({
        source: { type: 'huggingface', repo: 'mlc-ai/Qwen2.5-0.5B-Instruct-q4f16_1-MLC', revision: 'abc123' },
        files: [{ path: 'mlc-chat-config.json', bytes: 10, sha256: hex }],
      }),
      prebuilt,
    );
    expect(record.model).toBe('https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f16_1-MLC/resolve/abc123');
    expect(record.integrity).toEqual({
      onFailure: 'error',
      config: 'sha256-n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
    });
    expect(modelRecordFor(model(), prebuilt).integrity).toBeUndefined();
    expect(() =>
      modelRecordFor(model({ source: { type: 'huggingface', repo: 'mlc-ai/Nope-MLC', revision: null } }), prebuilt),
    ).toThrow(/no prebuilt model library for "Nope-MLC"/);
  });
});

describe('WebLLM model files: hashed from its cache after load (contract test with a fake CacheStorage)', () => {
  it('pins the Cache API backend when creating the engine', async () => {
    const { engine, created } = setup();
    await engine.load(request(), {});
    const config = (created[0] as unknown as { config: { appConfig: { cacheBackend: string } } }).config;
    expect(config.appConfig.cacheBackend).toBe('cache');
  });

  it("hashes every file this model's load used (downloaded by this load), with redacted URLs, and nothing else", async () => {
    const { engine, storage } = setup({ cache: 'download' });
    const result = await engine.load(request(), {});
    // Config, library, the tokenizer WebLLM chose, the tensor manifest and both shards: not tokenizer.model, not
    // another model's shard, though both sit in the same cache.
    expect(result.model.files).toEqual(expectedFiles({}, 'download'));
    expect(result.model.files[1].url).toBe('https://example.invalid/libs/qwen.wasm');
    expect(JSON.stringify(result.model.files)).not.toContain('secret');
    expect(result.model.integrity).toBe('unpinned');
    expect(result.loadErrors).toBeUndefined();
    expect(new Set(storage.opened)).toEqual(new Set(['webllm/config', 'webllm/wasm', 'webllm/model']));
  });

  it('still hashes the files when they were cached by an earlier run (what is recorded is what was loaded)', async () => {
    const { engine } = setup({ cache: 'cached' });
    expect((await engine.load(request(), {})).model.files).toEqual(expectedFiles());
  });

  it('a one-byte change in a cached shard changes its recorded hash', async () => {
    const { engine, storage } = setup({ cache: 'cached' });
    const changed = shardBytes(50000, 2);
    changed[100] ^= 1;
    storage.put(WEBLLM_CACHE_NAMES.model, `${FOLDER}params_shard_1.bin`, changed);
    const files = (await engine.load(request(), {})).model.files;
    expect(files[5].sha256).toBe(nodeSha256(changed));
    expect(files[5].sha256).not.toBe(expectedFiles()[5].sha256);
  });

  it('records the pins of a pinned catalog entry whose files match, and stays unpinned (the library has no pin)', async () => {
    const entries = webLlmEntries();
    const pins = {
      'mlc-chat-config.json': { bytes: entries[0].bytes.byteLength, sha256: nodeSha256(entries[0].bytes) },
      'params_shard_0.bin': { bytes: null, sha256: nodeSha256(entries[4].bytes) },
    };
    const m = model({ files: Object.entries(pins).map(([path, pin]) => ({ path, ...pin })) });
    const { engine } = setup();
    const result = await engine.load(request({ model: m }), {});
    expect(result.model.files).toEqual(expectedFiles(pins));
    expect(result.model.integrity).toBe('unpinned');
  });

  it('refuses a file whose bytes differ from the catalog pin (IntegrityError, model unloaded)', async () => {
    const pinned = 'a'.repeat(64);
    const m = model({ files: [{ path: 'params_shard_1.bin', bytes: null, sha256: pinned }] });
    const { engine, created } = setup();
    const error = await engine.load(request({ model: m }), {}).catch((e) => e);
    expect(error.name).toBe('IntegrityError');
    expect(error.message).toBe(
      `integrity failure: params_shard_1.bin has SHA-256 ${expectedFiles()[5].sha256}, the catalog pins ${pinned}`,
    );
    expect(created[0].calls.at(-1)).toBe('unload');
    // A size pin is checked too, with the same rule as every engine (model-fetch.ts checkPins).
    const sized = model({ files: [{ path: 'tokenizer.json', bytes: 1, sha256: null }] });
    await expect(setup().engine.load(request({ model: sized }), {})).rejects.toThrow(
      /^integrity failure: tokenizer\.json has \d+ bytes, the catalog pins 1$/,
    );
  });

  it('refuses a pinned file that WebLLM did not load', async () => {
    const m = model({ files: [{ path: 'tokenizer_config.json', bytes: null, sha256: 'b'.repeat(64) }] });
    const error = await setup()
      .engine.load(request({ model: m }), {})
      .catch((e) => e);
    expect(error.name).toBe('IntegrityError');
    expect(error.message).toBe(
      'integrity failure: the catalog pins tokenizer_config.json, but WebLLM did not load that file',
    );
  });

  it('without the Cache API: files [], unpinned, and a load error saying why (never verified)', async () => {
    const { engine } = setup({ cache: 'unavailable' });
    const result = await engine.load(request(), {});
    expect(result.model.files).toEqual([]);
    expect(result.model.integrity).toBe('unpinned');
    expect(result.loadErrors).toEqual([
      {
        name: 'WebLlmFilesNotHashed',
        message: "the Cache API is not available here, so WebLLM's files could not be read back and hashed",
      },
    ]);
    // A pinned entry cannot be checked then: the run is refused rather than recorded as verified or unpinned.
    const m = model({ files: [{ path: 'mlc-chat-config.json', bytes: null, sha256: 'c'.repeat(64) }] });
    const refused = await setup({ cache: 'unavailable' })
      .engine.load(request({ model: m }), {})
      .catch((e) => e);
    expect(refused.name).toBe('Error');
    expect(refused.message).toMatch(
      /^integrity unverifiable: the catalog pins mlc-chat-config\.json, which could not be read back from WebLLM's cache \(the Cache API is not available here/,
    );
  });

  it('names each file missing from the cache (redacted) and keeps the ones it could hash', async () => {
    const { engine, storage } = setup({ cache: 'cached' });
    storage.stores.get(WEBLLM_CACHE_NAMES.model)!.delete(`${FOLDER}params_shard_0.bin`);
    storage.stores.get(WEBLLM_CACHE_NAMES.wasm)!.delete(LIB);
    const result = await engine.load(request(), {});
    expect(result.model.files.map((f) => f.url)).toEqual([
      `${FOLDER}mlc-chat-config.json`,
      `${FOLDER}tokenizer.json`,
      `${FOLDER}tensor-cache.json`,
      `${FOLDER}params_shard_1.bin`,
    ]);
    expect(result.model.integrity).toBe('unpinned');
    expect(result.loadErrors).toEqual([
      {
        name: 'WebLlmFilesNotHashed',
        message: `https://example.invalid/libs/qwen.wasm is not in WebLLM's cache "webllm/wasm", so it was not hashed`,
      },
      {
        name: 'WebLlmFilesNotHashed',
        message: `${FOLDER}params_shard_0.bin is not in WebLLM's cache "webllm/model", so it was not hashed`,
      },
    ]);
  });

  it('a cache that throws yields files [] and the reason; a malformed manifest is named', async () => {
    const record = modelRecordFor(model(), prebuilt);
    const broken: CacheStorageLike = {
      open: async () => {
        throw Object.assign(new Error(`denied for ${LIB}`), { name: 'SecurityError' });
      },
    };
    expect(await hashWebLlmFiles(record, broken)).toEqual({
      files: [],
      problems: [
        "WebLLM's cache could not be read back (SecurityError: denied for https://example.invalid/libs/qwen.wasm), so no file was hashed",
      ],
    });
    const storage = new FakeCacheStorage();
    for (const e of webLlmEntries()) storage.put(e.cache, e.url, e.bytes);
    storage.put(WEBLLM_CACHE_NAMES.model, `${FOLDER}tensor-cache.json`, json({ records: [{ nbytes: 1 }] }));
    const partial = await hashWebLlmFiles(record, storage);
    expect(partial.files.map((f) => f.path)).toEqual([
      'mlc-chat-config.json',
      null,
      'tokenizer.json',
      'tensor-cache.json',
    ]);
    expect(partial.problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${FOLDER.replace(/[.]/g, '\\.')}tensor-cache\\.json: records\\[0\\]\\.dataPath: .*, so the files it names were not hashed$`,
        ),
      ),
    ]);
  });

  it("finds the model folder as WebLLM's cleanModelUrl does", () => {
    expect(webLlmModelFolderUrl('https://huggingface.co/mlc-ai/X-MLC')).toBe(
      'https://huggingface.co/mlc-ai/X-MLC/resolve/main/',
    );
    expect(webLlmModelFolderUrl('https://huggingface.co/mlc-ai/X-MLC/resolve/abc123')).toBe(
      'https://huggingface.co/mlc-ai/X-MLC/resolve/abc123/',
    );
  });
});

describe('WebLlmEngine run (contract test with a fake MLC engine)', () => {
  const usage = {
    completion_tokens: 5,
    prompt_tokens: 12,
    extra: {
      e2e_latency_s: 0.33,
      prefill_tokens_per_s: 200,
      decode_tokens_per_s: 20,
      time_to_first_token_s: 0.06,
      time_per_output_token_s: 0.05,
    },
  };
  const script = [
    { afterMs: 70, chunk: chunk('こん') },
    { afterMs: 50, chunk: chunk('にち') },
    { afterMs: 50, chunk: chunk('は、') },
    { afterMs: 50, chunk: chunk('世界') },
    { afterMs: 50, chunk: chunk('。', 'stop') },
    { afterMs: 10, chunk: chunk(null, null, usage) },
  ];
  const step = {
    task: 'generate' as const,
    prompt_id: 'ja-1',
    text: '挨拶して',
    max_new_tokens: 64,
    temperature: 0.1,
    seed: 29,
  };

  it('times the stream with its own clock and keeps usage.extra beside it with the difference', async () => {
    const { engine, created } = setup({ script });
    await engine.load(request(), {});
    const tokens: number[] = [];
    const result = await engine.run({ id: 'ja-1', data: step }, { digest: true }, { onToken: (i) => tokens.push(i) });
    const fake = created[0];
    expect(fake.calls).toEqual(['reload:Qwen2.5-0.5B-Instruct-q4f16_1-MLC', 'resetChat']);
    expect(fake.requests[0]).toEqual({
      messages: [{ role: 'user', content: '挨拶して' }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 64,
      temperature: 0.1,
      seed: 29,
    });
    expect(tokens).toEqual([0, 1, 2, 3, 4]);
    // First delta after 70 ms, last after 270 ms, end after 280 ms; 5 tokens => 4 tokens over 200 ms = 20 tokens/s.
    expect(result.generation!.sample).toEqual({
      prompt_tokens: 12,
      output_tokens: 5,
      truncated: false,
      ttft_ms: 70,
      e2e_ms: 280,
      prefill_tokens_per_s: (12 * 1000) / 70,
      decode_tokens_per_s: 20,
      engine_reported: { ttft_ms: 60, e2e_ms: 330, prefill_tokens_per_s: 200, decode_tokens_per_s: 20 },
      clock_minus_engine: { ttft_ms: 10, e2e_ms: -50, decode_tokens_per_s: 0 },
    });
    expect(result.durationMs).toBe(280);
    expect(result.generation!.text).toBe('こんにちは、世界。');
    expect(result.generation!.finish_reason).toBe('stop');
    // The digest is a hash of the text and a token count: no text in `output`.
    expect(result.output).toEqual({
      name: 'generated_tokens',
      dims: [5],
      head: [],
      sha256: await sha256Hex(new TextEncoder().encode('こんにちは、世界。')),
    });
  });

  it('marks a stream that stopped at the token limit as truncated and sends no seed without seed control', async () => {
    const { engine, created } = setup({
      script: [
        { afterMs: 5, chunk: chunk('a') },
        { afterMs: 5, chunk: chunk('b', 'length') },
      ],
    });
    await engine.load(request(), {});
    const result = await engine.run(
      { id: 'x', data: { ...step, seed: null, max_new_tokens: 2 } },
      { digest: true },
      {},
    );
    expect(result.generation!.sample).toMatchObject({
      truncated: true,
      output_tokens: 2,
      engine_reported: null,
      clock_minus_engine: null,
    });
    expect(created[0].requests[0]).not.toHaveProperty('seed');
  });

  it('refuses a malformed step and a run before load', async () => {
    const { engine } = setup({ script });
    await expect(engine.run({ id: 'x', data: step }, { digest: true }, {})).rejects.toThrow(
      'no WebLLM model is loaded',
    );
    await engine.load(request(), {});
    await expect(engine.run({ id: 'x', data: { ...step, max_new_tokens: 0 } }, { digest: true }, {})).rejects.toThrow(
      /^generate input: max_new_tokens: /,
    );
  });

  it('unloads on dispose', async () => {
    const { engine, created } = setup({ script });
    await engine.load(request(), {});
    await engine.dispose();
    expect(created[0].calls.at(-1)).toBe('unload');
  });
});
