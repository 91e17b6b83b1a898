/**
 * What WebLLM loaded, read back from its Cache API storage and checked against the catalog's pins: the cache names and
 * URLs WebLLM 0.2.86 uses with the `cache` backend, the read-back that hashes every file a load used (config, model
 * library, tokenizer, tensor cache manifest, weight shards), the files and integrity for the receipt with the pins
 * applied, and the list of what the caches held before a load. The adapter (webllm-engine.ts) calls these after
 * WebLLM's `reload`; nothing here imports WebLLM.
 */
import type { CatalogModel } from '../../src/core/catalog/catalog.ts';
import type { ModelFile } from '../../src/core/receipt/receipt.ts';
import { cacheFactsOf } from '../cache-evidence.ts';
import { redactUrl, redactUrlsInText } from '../../src/core/text/redact.ts';
import { sha256Hex } from '../../src/core/bytes/sha256.ts';
import { firstIssueLine } from '../../src/core/text/zod-issues.ts';
import { z } from 'zod';
import { checkPins } from '../model-fetch.ts';
import { IntegrityError } from './engine.ts';

/** The fields of a WebLLM model record (web-llm's `ModelRecord`) the read-back follows to the files a load used. */
export interface WebLlmRecordFiles {
  /** The model folder's URL. */
  model: string;
  /** The model library's URL. */
  model_lib: string;
  /** Set on records whose files are named by a package manifest (not read back). */
  model_manifest?: string;
}

/** The slice of the Cache API (`CacheStorage`) the read-back uses; the contract test implements it over a Map. */
export interface CacheStorageLike {
  open(cacheName: string): Promise<{ match(url: string): Promise<Response | undefined>; keys?(): Promise<ReadonlyArray<{ url: string }>> }>;
}

/**
 * The storage backend the adapter asks WebLLM for, pinned so the read-back below knows where to look: the Cache
 * API (WebLLM's default; `indexeddb`, `opfs` and `cross-origin` store the files elsewhere and in other shapes).
 */
export const WEBLLM_CACHE_BACKEND = 'cache' as const;

/** The Cache API cache names WebLLM 0.2.86 stores into with the `cache` backend (its `createArtifactCache` scopes). */
export const WEBLLM_CACHE_NAMES = { config: 'webllm/config', wasm: 'webllm/wasm', model: 'webllm/model' } as const;

/** One file read back from WebLLM's cache: its full URL, its path inside the model folder (null for the model
 *  library, which lives elsewhere), and its size and SHA-256. */
export interface WebLlmCachedFile {
  url: string;
  path: string | null;
  bytes: number;
  sha256: string;
}

/** What `hashWebLlmFiles` found: the files it hashed and, one line each, what it could not (URLs redacted). */
export interface WebLlmCacheReadBack {
  files: WebLlmCachedFile[];
  problems: string[];
}

/**
 * WebLLM's `cleanModelUrl` (support.ts), rewritten here because the package does not export it: the model folder URL,
 * ending in "/", with `resolve/main/` added when the URL names no revision.
 */
export function webLlmModelFolderUrl(modelUrl: string): string {
  let url = modelUrl.endsWith('/') ? modelUrl : `${modelUrl}/`;
  if (!/.+\/resolve\/.+\//.test(url)) url += 'resolve/main/';
  return new URL(url).href;
}

// Only the fields of WebLLM's JSON files the read-back needs; the rest is WebLLM's business (loose objects).
const ChatConfigTokenizer = z.looseObject({ tokenizer_files: z.array(z.string()) });
const TensorCacheManifest = z.looseObject({ records: z.array(z.looseObject({ dataPath: z.string().min(1) })).min(1) });

/**
 * Reads back, from WebLLM's Cache API storage, exactly the files `MLCEngine.reload` (0.2.86, `cache` backend) used
 * for `record`: `mlc-chat-config.json` (webllm/config), the model library (webllm/wasm), the tokenizer file it chose
 * (`tokenizer.json`, else `tokenizer.model`), `tensor-cache.json` and every weight shard it lists (webllm/model).
 * Each body is hashed on its own and dropped before the next is read, so at most one shard (~30 MB) is held at a time.
 * Whether the files were downloaded by this load or were already cached by an earlier one, what is hashed is what
 * the cache served to WebLLM. Never throws: anything unreadable becomes a line in `problems`.
 * @param record the model record the engine was loaded with
 * @param storage the Cache API, or null where the context has none
 */
export async function hashWebLlmFiles(record: WebLlmRecordFiles, storage: CacheStorageLike | null): Promise<WebLlmCacheReadBack> {
  if (storage === null) return { files: [], problems: ["the Cache API is not available here, so WebLLM's files could not be read back and hashed"] };
  if (record.model_manifest !== undefined) {
    return { files: [], problems: [`the model record names a package manifest (${record.model_manifest}); this adapter does not read its file list, so no file was hashed`] };
  }
  const files: WebLlmCachedFile[] = [];
  const problems: string[] = [];
  const folder = webLlmModelFolderUrl(record.model);
  // Hashes one cached entry; returns its bytes only when `keep` (the small JSON files the file list is read from).
  const hashEntry = async (cacheName: string, url: string, path: string | null, keep: boolean): Promise<Uint8Array | null> => {
    const response = await (await storage.open(cacheName)).match(url);
    if (response === undefined) {
      problems.push(`${redactUrl(url)} is not in WebLLM's cache "${cacheName}", so it was not hashed`);
      return null;
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    files.push({ url, path, bytes: bytes.byteLength, sha256: await sha256Hex(bytes) });
    return keep ? bytes : null;
  };
  const parseJson = <T>(bytes: Uint8Array, schema: z.ZodType<T>, url: string): T | null => {
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      problems.push(`${redactUrl(url)} is not JSON, so the files it names were not hashed`);
      return null;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      problems.push(`${redactUrl(url)}: ${firstIssueLine(parsed.error)}, so the files it names were not hashed`);
      return null;
    }
    return parsed.data;
  };
  try {
    const configUrl = new URL('mlc-chat-config.json', folder).href;
    const configBytes = await hashEntry(WEBLLM_CACHE_NAMES.config, configUrl, 'mlc-chat-config.json', true);
    // WebLLM fetches a model library on localhost or on the page's own server without its cache (reload()).
    if (/^https?:\/\//.test(record.model_lib) && !record.model_lib.includes('localhost')) {
      await hashEntry(WEBLLM_CACHE_NAMES.wasm, record.model_lib, null, false);
    } else {
      problems.push(`WebLLM fetches the model library ${redactUrl(record.model_lib, folder)} outside its cache, so it was not hashed`);
    }
    const config = configBytes && parseJson(configBytes, ChatConfigTokenizer, configUrl);
    if (config) {
      // The same choice as WebLLM's asyncLoadTokenizer: tokenizer.json first, else tokenizer.model.
      const tokenizer = ['tokenizer.json', 'tokenizer.model'].find((name) => config.tokenizer_files.includes(name));
      if (tokenizer) await hashEntry(WEBLLM_CACHE_NAMES.model, new URL(tokenizer, folder).href, tokenizer, false);
      else problems.push(`mlc-chat-config.json lists no tokenizer.json or tokenizer.model, so no tokenizer file was hashed`);
    }
    const manifestUrl = new URL('tensor-cache.json', folder).href;
    const manifestBytes = await hashEntry(WEBLLM_CACHE_NAMES.model, manifestUrl, 'tensor-cache.json', true);
    const manifest = manifestBytes && parseJson(manifestBytes, TensorCacheManifest, manifestUrl);
    for (const shard of manifest?.records ?? []) {
      const url = new URL(shard.dataPath, folder).href;
      await hashEntry(WEBLLM_CACHE_NAMES.model, url, url.startsWith(folder) ? url.slice(folder.length) : null, false);
    }
  } catch (error) {
    // The cache itself failed (a SecurityError, a quota or storage error): nothing read so far counts as complete.
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { files: [], problems: [`WebLLM's cache could not be read back (${redactUrlsInText(message)}), so no file was hashed`] };
  }
  return { files, problems };
}

/**
 * The receipt's files and integrity for a WebLLM load, with the catalog's pins applied (the same rule as every engine:
 * `checkPins` from model-fetch.ts). `verified` only when every file WebLLM loaded was read back and matched a pinned
 * SHA-256 (the catalog cannot pin the model library, so today that never happens); otherwise `unpinned`.
 * @param model the catalog entry (its files are paths inside the model folder, with optional pins)
 * @param readBack what `hashWebLlmFiles` found
 * @param storedBefore the URLs WebLLM's cache held before the load (those files came from it, not the network)
 * @throws IntegrityError when a file differs from its pin, or a pinned file is not among the files WebLLM loaded
 *   although the read-back was complete; Error when a pinned file could not be read back (unverifiable: refused)
 */
export function webLlmIntegrity(
  model: CatalogModel,
  readBack: WebLlmCacheReadBack,
  storedBefore: ReadonlySet<string> = new Set(),
): { files: ModelFile[]; integrity: 'verified' | 'unpinned' } {
  const pins = new Map(model.files.map((f) => [f.path, f]));
  for (const pin of model.files) {
    if (pin.bytes === null && pin.sha256 === null) continue;
    const loaded = readBack.files.find((f) => f.path === pin.path);
    if (loaded) checkPins(pin, loaded.bytes, loaded.sha256);
    else if (readBack.problems.length > 0) {
      throw new Error(`integrity unverifiable: the catalog pins ${pin.path}, which could not be read back from WebLLM's cache (${readBack.problems[0]})`);
    } else throw new IntegrityError(`integrity failure: the catalog pins ${pin.path}, but WebLLM did not load that file`);
  }
  const files = readBack.files.map((f): ModelFile => {
    const pin = f.path === null ? undefined : pins.get(f.path);
    return {
      url: redactUrl(f.url),
      bytes: f.bytes,
      sha256: f.sha256,
      expected_bytes: pin?.bytes ?? null,
      expected_sha256: pin?.sha256 ?? null,
      // A file WebLLM had cached before this load came from its cache; one it downloaded now, from its fetch.
      ...cacheFactsOf(f.url, { storedBefore: storedBefore.has(f.url), bypassedHttpCache: null }),
    };
  });
  const verified = readBack.problems.length === 0 && files.length > 0 && files.every((f) => f.expected_sha256 !== null);
  return { files, integrity: verified ? 'verified' : 'unpinned' };
}

/**
 * Every URL WebLLM's caches hold now (read before a load: those files will not cross the network). Never throws: a
 * cache that cannot be listed counts as empty.
 * @param storage the Cache API, or null where the context has none
 */
export async function storedWebLlmUrls(storage: CacheStorageLike | null): Promise<Set<string>> {
  const urls = new Set<string>();
  if (storage === null) return urls;
  for (const name of Object.values(WEBLLM_CACHE_NAMES)) {
    try {
      const cache = await storage.open(name);
      for (const request of (await cache.keys?.()) ?? []) urls.add(request.url);
    } catch {
      // Unlistable: nothing known to be stored there.
    }
  }
  return urls;
}
