/**
 * The origin's own storage, as far as a page can see and clear it: usage (navigator.storage.estimate), the Cache
 * API caches the engines keep (transformers.js `transformers-cache`, WebLLM's `webllm/*`), IndexedDB databases and
 * the origin private file system. What a page can never clear is said where it is offered: the browser's HTTP cache
 * and the browser process itself (compiled code caches live there).
 */
import type { SiteStorage } from '../core/receipt/receipt.ts';

const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9._:+@/-]{0,127}$/;

/** The origin's storage usage in bytes, or null where the browser does not say. */
export async function storageUsageBytes(): Promise<number | null> {
  try {
    const estimate = await navigator.storage?.estimate?.();
    return typeof estimate?.usage === 'number' ? estimate.usage : null;
  } catch {
    return null;
  }
}

/** The Cache API cache names that exist now (plain ids recorded, others counted). */
export async function cacheNames(): Promise<{ names: string[]; other: number }> {
  try {
    if (typeof caches === 'undefined') return { names: [], other: 0 };
    const all = await caches.keys();
    const names = all
      .filter((n) => PLAIN_ID.test(n))
      .sort()
      .slice(0, 64);
    return { names, other: all.length - names.length };
  } catch {
    return { names: [], other: 0 };
  }
}

/**
 * The receipt's `site_storage` as known before a run (usage after is filled when the run ends).
 */
export async function siteStorageBefore(): Promise<SiteStorage> {
  const [usage, caches] = await Promise.all([storageUsageBytes(), cacheNames()]);
  return {
    usage_before_bytes: usage,
    usage_after_bytes: null,
    cache_names_before: caches.names,
    other_caches_before: caches.other,
  };
}

/** What "Clear this site's stored models" did, one line per store, and what no page can clear. */
export interface ClearReport {
  cleared: string[];
  failed: string[];
  cannot: string[];
}

/** What a page can never clear, said wherever clearing is offered. */
export const CANNOT_CLEAR = [
  "the browser's HTTP cache (clear it in the browser's settings: on iPhone, Settings > Apps > Safari > Advanced > Website Data, or Clear History and Website Data)",
  'the browser process and its compiled-code caches (quit the browser and open it again)',
];

/**
 * Clears the model stores this origin holds: every Cache API cache, every IndexedDB database except `keep` (the
 * tester's stored receipts), and the origin private file system. Never throws: each store's failure is a line.
 * @param keep IndexedDB database names to keep
 */
export async function clearSiteModels(keep: readonly string[]): Promise<ClearReport> {
  const cleared: string[] = [];
  const failed: string[] = [];
  try {
    if (typeof caches !== 'undefined') {
      const names = await caches.keys();
      for (const name of names) await caches.delete(name);
      cleared.push(`Cache API: ${names.length} cache(s)`);
    } else failed.push('Cache API: not available here');
  } catch (error) {
    failed.push(`Cache API: ${(error as Error).name}`);
  }
  try {
    const dbs = typeof indexedDB.databases === 'function' ? await indexedDB.databases() : null;
    if (dbs === null) failed.push('IndexedDB: this browser cannot list its databases');
    else {
      const names = dbs.map((d) => d.name).filter((n): n is string => typeof n === 'string' && !keep.includes(n));
      await Promise.all(
        names.map(
          (name) =>
            new Promise<void>((resolve) => {
              const request = indexedDB.deleteDatabase(name);
              request.onsuccess = request.onerror = request.onblocked = () => resolve();
            }),
        ),
      );
      cleared.push(`IndexedDB: ${names.length} database(s) (your stored receipts kept)`);
    }
  } catch (error) {
    failed.push(`IndexedDB: ${(error as Error).name}`);
  }
  try {
    const root = await navigator.storage?.getDirectory?.();
    if (root) {
      const entries: string[] = [];
      for await (const name of (root as unknown as { keys(): AsyncIterable<string> }).keys()) entries.push(name);
      for (const name of entries) await root.removeEntry(name, { recursive: true });
      cleared.push(`Origin private file system: ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}`);
    } else failed.push('Origin private file system: not available here');
  } catch (error) {
    failed.push(`Origin private file system: ${(error as Error).name}`);
  }
  return { cleared, failed, cannot: CANNOT_CLEAR };
}
