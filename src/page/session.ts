/**
 * The page's one session (src/page/session-store.ts) and the one way every panel offers a result: store it on the
 * device first, then put it where the automation contract and the page show it. The stored session is loaded once
 * at start; `document.documentElement.dataset.drbSession` is `ready` (or `unavailable` when storage does not work)
 * and `window.drbSession` holds `{receipts, artifacts}` as stored.
 */
import type { Protocol } from '../core/protocol.ts';
import { appSection } from '../core/receipt-envelope.ts';
import { EMPTY_SESSION_SHEET, RECEIPT_BUNDLE_SCHEMA, type ReceiptBundle, type SessionSheet } from '../core/receipt-bundle.ts';
import type { DeviceReceipt } from '../core/receipt.ts';
import { SessionStore, snapshotOf, type SessionSnapshot, type StoredItem } from './session-store.ts';

/** Artifact kinds that are receipts (they go into a bundle's `receipts`). */
const RECEIPT_KINDS: ReadonlySet<string> = new Set(['suite-receipt', 'generation-receipt', 'comparison-receipt']);

type Listener = () => void;

/** The session of this page. */
class PageSession {
  readonly store = new SessionStore();
  /** Every stored item, oldest first (what was stored before this load, then this page's results). */
  items: StoredItem[] = [];
  /** The session sheet as the tester filled it (saved on every edit). */
  sheet: SessionSheet = { ...EMPTY_SESSION_SHEET };
  /** The protocol protocol mode follows (null in the developer panels). */
  protocol: Protocol | null = null;
  private readonly listeners = new Set<Listener>();
  readonly ready: Promise<void>;

  constructor() {
    this.ready = this.load();
  }

  private async load(): Promise<void> {
    await this.store.open();
    this.items = await this.store.items();
    this.sheet = await this.store.sheet();
    this.publish();
    window.drbExportBundle = () => this.bundle();
    document.documentElement.dataset.drbSession = this.store.failure === null ? 'ready' : 'unavailable';
  }

  /** Calls `listener` whenever the session changes; returns the unsubscribe. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stores a device receipt, then offers it (`window.drbReceipts`). */
  async offerReceipt(receipt: DeviceReceipt): Promise<void> {
    await this.keep('receipt', receipt);
    window.drbReceipts.push(receipt);
  }

  /** Stores another artifact (a suite, comparison or generation receipt, predictions, answers), then offers it. */
  async offerArtifact(kind: string, data: unknown): Promise<void> {
    await this.keep(RECEIPT_KINDS.has(kind) ? 'receipt' : kind, data);
    window.drbArtifacts.push({ kind, data });
  }

  /** Deletes the stored session (after the tester exported it). */
  async clear(): Promise<void> {
    await this.ready;
    if (await this.store.clear()) this.items = [];
    this.publish();
  }

  /** Keeps the tester's edit of the session sheet (in memory at once, on the device when storage works). */
  async setSheet(sheet: SessionSheet): Promise<void> {
    this.sheet = sheet;
    await this.store.saveSheet(sheet);
  }

  /** The bundle the export buttons give: every stored receipt, the protocol followed and the sheet. */
  bundle(): ReceiptBundle {
    return {
      schema: RECEIPT_BUNDLE_SCHEMA,
      created_at: new Date().toISOString(),
      app: appSection({ version: __DRB_VERSION__, commit: __DRB_COMMIT__ }, location.href),
      protocol: this.protocol,
      sheet: this.sheet,
      receipts: this.snapshot().receipts as ReceiptBundle['receipts'],
    };
  }

  /** The session as the automation contract gives it. */
  snapshot(): SessionSnapshot {
    return snapshotOf(this.items);
  }

  private async keep(kind: string, data: unknown): Promise<void> {
    await this.ready;
    await this.store.save(kind, data);
    // Kept in memory even when storage refused it: the page still shows and exports it for this visit.
    this.items = [...this.items, { kind, data, saved_at: new Date().toISOString() }];
    this.publish();
  }

  private publish(): void {
    window.drbSession = this.snapshot();
    for (const listener of this.listeners) listener();
  }
}

/** The page's session (created when the page starts). */
export const pageSession = new PageSession();
