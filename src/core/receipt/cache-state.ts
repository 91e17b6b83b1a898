/**
 * Where the bytes of one model or runtime file came from, and whether a cold run was really cold.
 *
 * A cold run is only cold when every model and runtime byte crossed the network. The page can tell where bytes came
 * from in three ways, tried in this order:
 * 1. the engine's own storage held the file before the run (the Cache API or IndexedDB, as WebLLM keeps its
 *    downloads): `cache-storage`;
 * 2. the file's resource timing entry, when its sizes are visible (same origin, or a server that sends
 *    Timing-Allow-Origin): nothing transferred for a body that has bytes is the HTTP cache; a transfer smaller than
 *    the body is the HTTP cache after a revalidation (a 304); anything else crossed the network;
 * 3. a fetch that bypassed the HTTP cache crossed the network even when the sizes are hidden: the page fetches model
 *    files with `cache: 'no-store'`, and where resource timing gives no sizes (WebKit reports none for a worker's
 *    fetches) a cold run loads the runtime under a URL unique to the run.
 * Otherwise the state is `unknown`, with the reason. Pure: the worker and the page hand in plain entries.
 */
import { z } from 'zod';
import { Detail } from '../text/bounded-text.ts';

/** Where a file's bytes came from (see the module comment). */
export const CacheState = z.enum(['network', 'http-cache', 'cache-storage', 'unknown']);
export type CacheState = z.infer<typeof CacheState>;

/** A file's cache state and the note that says how it was decided (always set for `unknown` and revalidations). */
export const CacheFacts = z.strictObject({
  cache_state: CacheState,
  /** Why `unknown`, or how a state was decided when the sizes alone did not tell (a revalidation, a bypass). */
  cache_note: Detail.nullable(),
});
export type CacheFacts = z.infer<typeof CacheFacts>;

/** The resource timing fields the decision reads (a plain object, so Node tests can build one). */
export interface CacheTimingEntry {
  transferSize: number;
  encodedBodySize: number;
  decodedBodySize: number;
  /** Chromium's `deliveryType` ('cache' for an HTTP cache hit); absent elsewhere. */
  deliveryType?: string;
  /** The HTTP status where the browser exposes it (304: revalidated). */
  responseStatus?: number;
}

/** What is known about how one file was loaded. */
export interface CacheEvidence {
  /** The file's resource timing entry in the context that fetched it (the newest one), or null when there is none. */
  entry: CacheTimingEntry | null;
  /** The file is not on the page's origin (its sizes are hidden unless the server sends Timing-Allow-Origin). */
  crossOrigin: boolean;
  /** The engine's own storage (Cache API or IndexedDB) held the file before the run, and the engine reads it there. */
  storedBefore: boolean;
  /** How the fetch bypassed the HTTP cache (`cache: no-store`, `a URL unique to this run`), or null when it did not. */
  bypassedHttpCache: string | null;
}

/**
 * Decides a file's cache state (see the module comment for the order of the rules).
 * @param evidence what the fetching context knows about the file
 */
export function decideCacheState(evidence: CacheEvidence): CacheFacts {
  if (evidence.storedBefore)
    return { cache_state: 'cache-storage', cache_note: "the engine's own storage held this file before the run" };
  const entry = evidence.entry;
  const hidden =
    entry !== null &&
    evidence.crossOrigin &&
    entry.transferSize === 0 &&
    entry.encodedBodySize === 0 &&
    entry.decodedBodySize === 0;
  if (entry !== null && !hidden) {
    if (entry.deliveryType === 'cache' || (entry.transferSize === 0 && entry.decodedBodySize > 0)) {
      return { cache_state: 'http-cache', cache_note: null };
    }
    if (
      entry.responseStatus === 304 ||
      (entry.transferSize > 0 && entry.encodedBodySize > 0 && entry.transferSize < entry.encodedBodySize)
    ) {
      return {
        cache_state: 'http-cache',
        cache_note: 'revalidated with the server (304): the body came from the HTTP cache',
      };
    }
    if (entry.transferSize > 0) return { cache_state: 'network', cache_note: null };
  }
  const timing =
    entry === null
      ? 'no resource timing entry'
      : hidden
        ? 'cross-origin without Timing-Allow-Origin'
        : 'resource timing gives no sizes here';
  if (evidence.bypassedHttpCache !== null) {
    return {
      cache_state: 'network',
      cache_note: `fetched with ${evidence.bypassedHttpCache}, so not from the HTTP cache (${timing})`,
    };
  }
  if (entry === null) return { cache_state: 'unknown', cache_note: 'no resource timing entry for this file' };
  if (hidden)
    return {
      cache_state: 'unknown',
      cache_note: 'cross-origin without Timing-Allow-Origin: the browser hides the sizes',
    };
  return { cache_state: 'unknown', cache_note: 'the resource timing entry has no transfer and an empty body' };
}

/** States that mean some bytes did not cross the network. */
const FROM_A_CACHE: ReadonlySet<CacheState> = new Set(['http-cache', 'cache-storage']);

/**
 * Whether a cold run's bytes came from a cache: true when any model or runtime file did (not a truly cold run), false
 * when every file crossed the network, null when no file was loaded or a file's source is unknown (not proven cold).
 * @param files the run's model and runtime files with their cache states
 */
export function coldFromCache(files: ReadonlyArray<Pick<CacheFacts, 'cache_state'>>): boolean | null {
  if (files.some((f) => FROM_A_CACHE.has(f.cache_state))) return true;
  if (files.length === 0 || files.some((f) => f.cache_state === 'unknown')) return null;
  return false;
}

/** Why a cold receipt is not counted as a truly cold run (null: it is one). */
export function coldSetAsideReason(
  coldFromCacheValue: boolean | null,
): 'served-from-cache' | 'cache-state-unknown' | null {
  if (coldFromCacheValue === true) return 'served-from-cache';
  if (coldFromCacheValue === null) return 'cache-state-unknown';
  return null;
}
