/**
 * Generic model-file fetch for every engine: streams each catalog file with progress, hashes it (SHA-256, computed
 * here, in the browser), and checks it against the catalog pins. Any engine adapter can reuse it and hand the bytes
 * to its runtime.
 */
import { modelFileUrl, type CatalogFile, type CatalogModel } from '../src/core/catalog/catalog.ts';
import { redactUrl } from '../src/core/text/redact.ts';
import { ByteCollector, declaredBodyLength } from '../src/core/bytes/byte-collector.ts';
import { sha256Hex } from '../src/core/bytes/sha256.ts';
import type { ModelFetchMethod, ModelFile, RuntimeInfo } from '../src/core/receipt/receipt.ts';
import type { EngineHooks, FetchedFacts, UserSuppliedFile } from '../src/worker-api/worker-messages.ts';
import { USER_FILE_URL } from '../src/core/user-model/user-run.ts';
import { IntegrityError } from './engines/engine.ts';
import { cacheFactsOf, settleEntries } from './cache-evidence.ts';

/** The fetched files: bytes in catalog order plus their receipt entries. */
export interface FetchedModel {
  buffers: Uint8Array[];
  files: ModelFile[];
  integrity: 'verified' | 'unpinned';
  fetchMs: number;
  /** How the files were fetched (the receipt's `model.fetch_method`). */
  fetchMethod: ModelFetchMethod;
}

/**
 * A load's fetched facts as the receipt takes them (`onFetched`, and a route that fails after the fetch): the model's
 * files, and the runtime build once that was fetched too.
 * @param fetched the model's files as fetched (or read)
 * @param runtime the runtime build and its fetch time, when fetched
 */
export function fetchedFacts(fetched: FetchedModel, runtime?: { info: RuntimeInfo; fetchMs: number }): FetchedFacts {
  return {
    model: { files: fetched.files, integrity: fetched.integrity, fetch_method: fetched.fetchMethod },
    timings: { model_fetch_ms: fetched.fetchMs },
    ...(runtime ? { runtime: { info: runtime.info, fetchMs: runtime.fetchMs } } : {}),
  };
}

/**
 * The pin rule every engine applies to a loaded file: throws an IntegrityError (the page records integrity
 * `mismatch` and refuses the run) when its size or SHA-256 differs from the catalog's pin; null pins check nothing.
 * @param file the catalog file and its pins
 * @param bytes byte length of what was loaded
 * @param sha256 SHA-256 (lowercase hex) of what was loaded
 */
export function checkPins(file: CatalogFile, bytes: number, sha256: string): void {
  if (file.bytes !== null && file.bytes !== bytes) {
    throw new IntegrityError(`integrity failure: ${file.path} has ${bytes} bytes, the catalog pins ${file.bytes}`);
  }
  if (file.sha256 !== null && file.sha256 !== sha256) {
    throw new IntegrityError(`integrity failure: ${file.path} has SHA-256 ${sha256}, the catalog pins ${file.sha256}`);
  }
}

// Progress callbacks cross the worker boundary as messages: a few per second is enough for a progress bar.
const PROGRESS_INTERVAL_MS = 100;

/**
 * Fetches every file of `model` with progress and integrity checks.
 * @param model the catalog entry whose files to fetch
 * @param pageBaseUrl the page's base URL, for page-origin models
 * @param hooks receives `onProgress`
 * @param cache fetch cache mode: `no-store` (the only one used), so every run measures a real transfer past the
 *   HTTP cache, and nothing is stored there for a later cold run to find
 */
export async function fetchModelFiles(
  model: CatalogModel,
  pageBaseUrl: string,
  hooks: EngineHooks,
  cache: 'no-store' = 'no-store',
): Promise<FetchedModel> {
  const started = performance.now();
  const knownTotal = model.files.every((f) => f.bytes !== null)
    ? model.files.reduce((sum, f) => sum + (f.bytes ?? 0), 0)
    : null;
  let bytesDone = 0;
  let lastReport = 0;
  const buffers: Uint8Array[] = [];
  const files: Array<Omit<ModelFile, 'cache_state' | 'cache_note'>> = [];
  const urls: string[] = [];
  for (const [fileIndex, file] of model.files.entries()) {
    const url = modelFileUrl(model, file, pageBaseUrl);
    urls.push(url);
    const shownUrl = redactUrl(url);
    let response: Response;
    try {
      response = await fetch(url, { cache, credentials: 'same-origin' });
    } catch (error) {
      // The browser says only "Failed to fetch": name the file and its host, and what usually causes it.
      throw new Error(
        `model file ${shownUrl} could not be fetched from ${new URL(url).host} (${(error as Error).message}): offline, or the host is blocked ` +
          '(a firewall, a content blocker or a captive portal); check the connection, then run again',
      );
    }
    if (!response.ok) throw new Error(`model file ${shownUrl} answered HTTP ${response.status}`);
    // The pinned size where the catalog has one (written straight into a buffer of that size as the bytes arrive;
    // a server that sends another size costs a copy, and the pin check below names it), else the declared one.
    const expected =
      file.bytes ??
      declaredBodyLength(response.headers.get('content-encoding'), response.headers.get('content-length'));
    const bytesTotal = knownTotal ?? (model.files.length === 1 ? expected : null);
    const collector = new ByteCollector(expected);
    // Progress never passes its total: past it, the total is unknown.
    const report = () =>
      hooks.onProgress?.({
        kind: 'model',
        path: file.path,
        fileIndex,
        fileCount: model.files.length,
        bytesDone,
        bytesTotal: bytesTotal !== null && bytesDone > bytesTotal ? null : bytesTotal,
      });
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      collector.push(value);
      bytesDone += value.byteLength;
      const now = performance.now();
      if (now - lastReport >= PROGRESS_INTERVAL_MS) {
        lastReport = now;
        report();
      }
    }
    report();
    // One contiguous buffer: runtimes want a single Uint8Array, and hashing it once is cheaper than per chunk.
    const bytes = new Uint8Array(collector.finish());
    const fileBytes = bytes.byteLength;
    const sha256 = await sha256Hex(bytes);
    checkPins(file, fileBytes, sha256);
    buffers.push(bytes);
    files.push({ url: shownUrl, bytes: fileBytes, sha256, expected_bytes: file.bytes, expected_sha256: file.sha256 });
  }
  const fetchMs = performance.now() - started;
  const integrity = model.files.every((f) => f.sha256 !== null) ? 'verified' : 'unpinned';
  // Where each file's bytes came from (after the fetch time: waiting for timing entries is not part of the fetch).
  await settleEntries(urls);
  const bypassedHttpCache = `cache: ${cache}`;
  const withCache = files.map(
    (f, i): ModelFile => ({ ...f, ...cacheFactsOf(urls[i], { storedBefore: false, bypassedHttpCache }) }),
  );
  return { buffers, files: withCache, integrity, fetchMs, fetchMethod: 'no-store' };
}

/**
 * Reads the files a developer picked (a user-supplied model) with progress, hashing each: the same result as a fetch,
 * with no pins to check (integrity `unpinned`) and every file recorded under the marker URL `user-supplied:[redacted]`
 * (never its name or path).
 * @param model the user model's catalog-shaped entry (its files are roles, in the picked order)
 * @param picked the picked files, in `model.files` order
 * @param hooks receives `onProgress` (with the role as the path)
 */
export async function readUserFiles(
  model: CatalogModel,
  picked: readonly UserSuppliedFile[],
  hooks: EngineHooks,
): Promise<FetchedModel> {
  if (picked.length !== model.files.length)
    throw new Error(`the user model lists ${model.files.length} files, ${picked.length} were handed over`);
  const started = performance.now();
  const bytesTotal = picked.reduce((sum, f) => sum + f.blob.size, 0);
  let bytesDone = 0;
  const buffers: Uint8Array[] = [];
  const files: ModelFile[] = [];
  for (const [fileIndex, file] of picked.entries()) {
    const role = model.files[fileIndex].path;
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await file.blob.arrayBuffer());
    } catch (error) {
      // A file changed or removed since it was picked cannot be read; say which one by its role only.
      throw new Error(
        `the picked file for ${role} could not be read (${error instanceof Error ? error.name : 'error'}): pick the files again`,
      );
    }
    bytesDone += bytes.byteLength;
    hooks.onProgress?.({ kind: 'model', path: role, fileIndex, fileCount: picked.length, bytesDone, bytesTotal });
    buffers.push(bytes);
    files.push({
      url: USER_FILE_URL,
      bytes: bytes.byteLength,
      sha256: await sha256Hex(bytes),
      expected_bytes: null,
      expected_sha256: null,
      cache_state: 'unknown',
      cache_note: 'read from a file picked on this device: not fetched, so no network or cache was involved',
    });
  }
  return { buffers, files, integrity: 'unpinned', fetchMs: performance.now() - started, fetchMethod: 'picked-files' };
}
