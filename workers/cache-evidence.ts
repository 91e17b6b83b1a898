/**
 * The worker's side of the cache-state decision (src/core/receipt/cache-state.ts): finds the resource timing entry of each
 * file the worker fetched (the worker's own timeline, where its fetches and the runtime's imports are recorded) and
 * decides where its bytes came from.
 */
import { decideCacheState, type CacheFacts, type CacheTimingEntry } from '../src/core/receipt/cache-state.ts';
import type { RuntimeFile } from '../src/core/receipt/receipt.ts';
import { redactUrl } from '../src/core/text/redact.ts';

/** How long to wait for resource timing entries that the browser queues after a response ends. */
const ENTRY_WAIT_MS = 250;

function newestEntry(url: string): (CacheTimingEntry & { decodedBodySize: number }) | null {
  const entries = performance.getEntriesByName(url, 'resource') as Array<
    PerformanceResourceTiming & { deliveryType?: string; responseStatus?: number }
  >;
  const entry = entries.at(-1);
  if (entry === undefined) return null;
  return {
    transferSize: entry.transferSize,
    encodedBodySize: entry.encodedBodySize,
    decodedBodySize: entry.decodedBodySize,
    deliveryType: entry.deliveryType,
    responseStatus: entry.responseStatus,
  };
}

/**
 * Waits (briefly) until every URL has a resource timing entry: the browser adds an entry when a response ends,
 * which can be a task after the body was read.
 * @param urls absolute URLs
 */
export async function settleEntries(urls: readonly string[]): Promise<void> {
  const deadline = performance.now() + ENTRY_WAIT_MS;
  while (urls.some((url) => newestEntry(url) === null) && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A file's cache facts from this context's resource timing.
 * @param url the absolute URL fetched
 * @param how whether the engine's storage held the file before the run, and whether the fetch bypassed the HTTP cache
 */
export function cacheFactsOf(
  url: string,
  how: { storedBefore: boolean; bypassedHttpCache: string | null },
): CacheFacts {
  // No location (a Node test): every URL counts as cross-origin, whose hidden sizes decide nothing.
  const origin = (globalThis as { location?: { origin: string } }).location?.origin ?? null;
  let crossOrigin = true;
  try {
    crossOrigin = origin === null || new URL(url).origin !== origin;
  } catch {
    crossOrigin = true;
  }
  return decideCacheState({ entry: newestEntry(url), crossOrigin, ...how });
}

/** The runtime files a load uses, and how they bypass the HTTP cache (null: they do not). */
export interface RuntimeProbe {
  /** The URLs the runtime loads (with the run's unique query when bypassing). */
  urls: readonly string[];
  bypassedHttpCache: string | null;
}

/**
 * The runtime file URLs for a load. A cold run loads them under a query unique to the run, in every browser: no HTTP
 * cache entry, no compiled-code cache keyed by URL and no module map can hold a URL nobody asked for before, so the
 * bytes cross the network however the profile was left (the page's own Clear cannot empty the HTTP cache, and a
 * second cold run in one browser process would otherwise take the runtime from it). Where resource timing shows
 * sizes (Chromium) the entry confirms it; where it shows none (WebKit, for a worker's fetches) the unique URL is the
 * proof, and the note says so. A warm run's load uses the build's own URLs (the HTTP cache may serve them).
 * @param urls the runtime files' absolute URLs (`.mjs`, `.wasm`)
 * @param cold whether this is a cold run
 */
export function runtimeUrlsFor(
  urls: { mjs: string; wasm: string },
  cold: boolean,
): { mjs: string; wasm: string; probe: RuntimeProbe } {
  if (!cold) return { ...urls, probe: { urls: [urls.mjs, urls.wasm], bypassedHttpCache: null } };
  const nonce = globalThis.crypto.randomUUID();
  const busted = (url: string) => `${url}${url.includes('?') ? '&' : '?'}drb-cold=${nonce}`;
  const mjs = busted(urls.mjs);
  const wasm = busted(urls.wasm);
  return { mjs, wasm, probe: { urls: [mjs, wasm], bypassedHttpCache: 'a URL unique to this cold run' } };
}

/**
 * The receipt's records of the runtime files a load used (onnxruntime-web's `.wasm` and `.mjs`, fetched by the
 * runtime itself): size from resource timing, no SHA-256 (the page did not read the bytes), and the cache state.
 * @param probe the files the runtime loaded and how they bypassed the HTTP cache (`runtimeUrlsFor`)
 */
export async function runtimeFileFacts(probe: RuntimeProbe): Promise<RuntimeFile[]> {
  const { urls } = probe;
  await settleEntries(urls);
  return urls.map((url) => {
    const entry = newestEntry(url);
    const hidden = entry === null || (entry.decodedBodySize === 0 && entry.transferSize === 0);
    return {
      url: redactUrl(url),
      bytes: hidden ? null : Math.round(entry.decodedBodySize),
      sha256: null,
      ...cacheFactsOf(url, { storedBefore: false, bypassedHttpCache: probe.bypassedHttpCache }),
    };
  });
}
