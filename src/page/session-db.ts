/**
 * The stored session's database: every receipt and artifact the page makes is written to IndexedDB the moment it is
 * made, before it is shown, so nothing is lost when iOS kills the tab, the page is reloaded or the browser restarts.
 * The tester's sheet is kept there too. Nothing is ever sent anywhere: the tester
 * exports the session as one bundle (src/core/field/receipt-bundle.ts) and hands it back.
 *
 * A storage failure (a private window, a full quota, blocked site data) never stops a run: the store turns itself
 * off, the page says so, and every result is still offered for download.
 *
 * Each item's data is stored as gzip-compressed JSON where the browser can (src/page/stored-item-codec.ts).
 */
import { EMPTY_TESTER_SHEET, TesterSheet } from '../core/field/receipt-bundle.ts';
import { decodeRecord, encodeRecord } from './stored-item-codec.ts';

/** The IndexedDB database of the session ("Clear this site's stored models" keeps it). */
export const SESSION_DB = 'drb-session';
const DB_VERSION = 1;
const ITEMS = 'items';
const META = 'meta';

/** One stored item: a receipt of any kind, or another artifact (`{kind, data}` as `window.drbArtifacts` holds). */
export interface StoredItem {
  /** `receipt` for device, suite, generation and comparison receipts; otherwise the artifact's kind. */
  kind: string;
  data: unknown;
  /** ISO time it was stored. */
  saved_at: string;
}

/** What the automation contract exposes once the stored session is loaded (`window.drbSession`). */
export interface SessionSnapshot {
  receipts: unknown[];
  artifacts: Array<{ kind: string; data: unknown }>;
}

function promised<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

/** The stored session in this browser's IndexedDB. */
export class SessionDb {
  /** Why storage is not working (shown on the page); null while it works. */
  failure: string | null = null;
  /** Stored records the last `items()` could not read back, each as one line (shown on the page; none is deleted). */
  unreadable: string[] = [];
  private db: IDBDatabase | null = null;

  /** Opens the database (once per page). Never throws: a failure is kept in `failure`. */
  async open(): Promise<this> {
    try {
      if (typeof indexedDB === 'undefined') throw new Error('this browser offers no IndexedDB here');
      const request = indexedDB.open(SESSION_DB, DB_VERSION);
      request.onupgradeneeded = () => {
        const db = request.result;
        if (!db.objectStoreNames.contains(ITEMS)) db.createObjectStore(ITEMS, { autoIncrement: true });
        if (!db.objectStoreNames.contains(META)) db.createObjectStore(META);
      };
      this.db = await promised(request);
      // Ask the browser to keep this origin's storage under pressure (where it offers that); the answer is its own.
      void navigator.storage?.persist?.().catch(() => false);
    } catch (error) {
      this.fail(error);
    }
    return this;
  }

  /**
   * Stores one item before it is shown. Resolves false (and sets `failure`) when storage refused it: the caller still
   * shows and offers it.
   * @param kind `receipt` or an artifact kind
   * @param data the receipt or artifact
   */
  async save(kind: string, data: unknown): Promise<boolean> {
    if (this.db === null) return false;
    try {
      // Encoded before the transaction starts: a transaction that waits on anything but its own requests commits.
      const record = await encodeRecord(kind, data, new Date().toISOString());
      const tx = this.db.transaction(ITEMS, 'readwrite');
      tx.objectStore(ITEMS).add(record);
      await done(tx);
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  /**
   * Every stored item, oldest first (empty when storage does not work). A record that cannot be read back is left
   * where it is and named in `unreadable`; the others are returned.
   */
  async items(): Promise<StoredItem[]> {
    if (this.db === null) return [];
    let records: unknown[];
    let keys: IDBValidKey[];
    try {
      const tx = this.db.transaction(ITEMS);
      [records, keys] = await Promise.all([
        promised(tx.objectStore(ITEMS).getAll()),
        promised(tx.objectStore(ITEMS).getAllKeys()),
      ]);
    } catch (error) {
      this.fail(error);
      return [];
    }
    const items: StoredItem[] = [];
    this.unreadable = [];
    for (const [i, record] of records.entries()) {
      try {
        items.push(await decodeRecord(record));
      } catch (error) {
        this.unreadable.push(`stored item ${String(keys[i])}: ${(error as Error).message}`);
      }
    }
    return items;
  }

  /** The tester's sheet as last saved (an empty one when none was, or it no longer fits the schema). */
  async sheet(): Promise<TesterSheet> {
    if (this.db === null) return { ...EMPTY_TESTER_SHEET };
    try {
      const stored = await promised(this.db.transaction(META).objectStore(META).get('sheet'));
      const parsed = TesterSheet.safeParse(stored);
      return parsed.success ? parsed.data : { ...EMPTY_TESTER_SHEET };
    } catch (error) {
      this.fail(error);
      return { ...EMPTY_TESTER_SHEET };
    }
  }

  /** Saves the tester's sheet (false when storage refused it). */
  async saveSheet(sheet: TesterSheet): Promise<boolean> {
    if (this.db === null) return false;
    try {
      const tx = this.db.transaction(META, 'readwrite');
      tx.objectStore(META).put(sheet, 'sheet');
      await done(tx);
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  /**
   * Another value kept beside the items (the hand-off log, the tester's session attestations), as stored; undefined
   * when none was (or storage does not work).
   * @param key its key in the meta store
   */
  async meta(key: string): Promise<unknown> {
    if (this.db === null) return undefined;
    try {
      return await promised(this.db.transaction(META).objectStore(META).get(key));
    } catch (error) {
      this.fail(error);
      return undefined;
    }
  }

  /**
   * Stores a value beside the items (false when storage refused it).
   * @param key its key in the meta store
   * @param value a structured-cloneable value
   */
  async saveMeta(key: string, value: unknown): Promise<boolean> {
    if (this.db === null) return false;
    try {
      const tx = this.db.transaction(META, 'readwrite');
      tx.objectStore(META).put(value, key);
      await done(tx);
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  /** Deletes every stored item, the sheet and the other values kept beside them (the tester's choice, after exporting). */
  async clear(): Promise<boolean> {
    if (this.db === null) return false;
    try {
      const tx = this.db.transaction([ITEMS, META], 'readwrite');
      tx.objectStore(ITEMS).clear();
      tx.objectStore(META).clear();
      await done(tx);
      // The records that could not be read back went with the others.
      this.unreadable = [];
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  private fail(error: unknown): void {
    const name = error instanceof Error ? error.name : 'Error';
    const why =
      name === 'QuotaExceededError'
        ? 'the storage quota is full'
        : name === 'SecurityError' || name === 'InvalidStateError'
          ? 'site storage is blocked here (a private window?)'
          : `storage refused it (${name})`;
    this.failure = `Receipts cannot be kept on this device: ${why}. Download or copy each one before you leave the page.`;
  }
}

/** Splits stored items into the automation contract's `{receipts, artifacts}`. */
export function snapshotOf(items: readonly StoredItem[]): SessionSnapshot {
  return {
    receipts: items.filter((i) => i.kind === 'receipt').map((i) => i.data),
    artifacts: items.filter((i) => i.kind !== 'receipt').map((i) => ({ kind: i.kind, data: i.data })),
  };
}
