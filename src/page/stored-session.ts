/**
 * The stored session: the tester's session of receipts on this device (what the page calls "the stored session" and
 * exports as one bundle), kept in IndexedDB by src/page/session-db.ts. It is the only thing the page's code calls a
 * session: the worker behind a run is a `WorkerBridge` (worker-bridge.ts), what the tester types about the sitting is
 * the `TesterSheet`, and a runtime's own sessions (ORT's `InferenceSession`) stay inside the worker.
 *
 * It is also the one way every panel offers a result: store it on the device first, then put it where the automation
 * contract and the page show it. The stored session is loaded once
 * at start; `document.documentElement.dataset.drbSession` is `ready` (or `unavailable` when storage does not work)
 * and `window.drbSession` holds the latest `{receipts, artifacts}` as stored, with the session's counts.
 *
 * A long session must not grow the page: while storage works, the page keeps only the latest
 * `SESSION_ITEMS_IN_MEMORY` items in memory (the rest are on the device, and every export reads them back from
 * there); when storage does not work, every item stays in memory, as it is then the only copy.
 */
import type { Protocol } from '../core/field/field-protocol.ts';
import { appSection } from '../core/receipt/receipt-envelope.ts';
import {
  EMPTY_TESTER_SHEET,
  RECEIPT_BUNDLE_SCHEMA,
  receiptFileText,
  type ReceiptBundle,
  type TesterSheet,
} from '../core/field/receipt-bundle.ts';
import type { DeviceReceipt } from '../core/receipt/receipt.ts';
import {
  EMPTY_HAND_OFF_LOG,
  notHandedOff,
  readHandOffLog,
  recordHandOff,
  type HandOffHow,
  type HandOffLog,
} from '../core/field/hand-off.ts';
import { restoreTesterSheet, type SheetField } from '../core/field/tester-sheet.ts';
import { SessionAttestation, testerAttestation, type SessionClaim } from '../core/receipt/attestation.ts';
import type { PickedFile, TakenBack } from '../core/validation/hand-off-files.ts';
import { SessionDb, snapshotOf, type SessionSnapshot, type StoredItem } from './session-db.ts';

/** The meta keys of the hand-off log and of the tester's session attestations. */
const HAND_OFF_KEY = 'hand-off';
const ATTESTATIONS_KEY = 'attestations';

/** How many of the session's latest items (and of this page's receipts and artifacts) the page keeps in memory. */
export const SESSION_ITEMS_IN_MEMORY = 50;

/** Artifact kinds that are receipts (they go into a bundle's `receipts`). */
const RECEIPT_KINDS: ReadonlySet<string> = new Set([
  'suite-receipt',
  'generation-receipt',
  'comparison-receipt',
  'sweep-receipt',
]);

/** The kinds of artifact besides device receipts a run offers (`window.drbArtifacts`' `kind`). */
export type ArtifactKind =
  | 'predictions'
  | 'suite-receipt'
  | 'comparison-receipt'
  | 'sweep-receipt'
  | 'generation-receipt'
  | 'answers';

/** One result a run offers: a device receipt, or another artifact of its kind. */
export type Offer = { kind: 'device-receipt'; data: DeviceReceipt } | { kind: ArtifactKind; data: unknown };

/** Appends `item` to one of the automation contract's lists, keeping only its latest SESSION_ITEMS_IN_MEMORY. */
function offered<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > SESSION_ITEMS_IN_MEMORY) list.splice(0, list.length - SESSION_ITEMS_IN_MEMORY);
}

type Listener = () => void;

/** The stored session, as this page holds it. */
class StoredSession {
  readonly db = new SessionDb();
  /**
   * The latest items of the session, oldest first (what was stored before this load, then this page's results): at
   * most `SESSION_ITEMS_IN_MEMORY` of those stored on the device, and every one storage refused.
   */
  items: MemoryItem[] = [];
  /** How many receipts and other artifacts the whole session holds (on the device, and those storage refused). */
  counts = { receipts: 0, artifacts: 0 };
  /** The tester's sheet as the tester filled it (saved on every edit). */
  sheet: TesterSheet = { ...EMPTY_TESTER_SHEET };
  /** The field protocol protocol mode follows (null in the developer panels); the bundle's `protocol`. */
  fieldProtocol: Protocol | null = null;
  /** Which receipts are in a file the tester has (handed off, or taken back from one). */
  handOffLog: HandOffLog = EMPTY_HAND_OFF_LOG;
  /** What the tester stated about the whole session (memory trouble seen or not), each a tap in protocol mode. */
  attestations: SessionAttestation[] = [];
  private readonly listeners = new Set<Listener>();
  readonly ready: Promise<void>;

  constructor() {
    this.ready = this.load();
  }

  private async load(): Promise<void> {
    await this.db.open();
    const stored = await this.db.items();
    this.counts = countsOf(stored);
    this.items = stored.slice(-SESSION_ITEMS_IN_MEMORY).map((item) => ({ ...item, stored: true }));
    this.sheet = await this.db.sheet();
    this.handOffLog = readHandOffLog(await this.db.meta(HAND_OFF_KEY));
    const said = await this.db.meta(ATTESTATIONS_KEY);
    this.attestations = Array.isArray(said) ? said.filter((a) => SessionAttestation.safeParse(a).success) : [];
    this.publish();
    window.drbExportBundle = () => this.bundle();
    document.documentElement.dataset.drbSession = this.db.failure === null ? 'ready' : 'unavailable';
  }

  /** Calls `listener` whenever the session changes; returns the unsubscribe. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Stores one result on the device, then offers it to the automation contract: a device receipt in
   * `window.drbReceipts`, any other artifact in `window.drbArtifacts` (each bounded to the latest ones).
   * @param offer what the run made
   */
  async offer(offer: Offer): Promise<void> {
    if (offer.kind === 'device-receipt') {
      await this.keep('receipt', offer.data);
      offered(window.drbReceipts, offer.data);
      window.drbReceiptCount = (window.drbReceiptCount ?? 0) + 1;
      return;
    }
    await this.keep(RECEIPT_KINDS.has(offer.kind) ? 'receipt' : offer.kind, offer.data);
    offered(window.drbArtifacts, { kind: offer.kind, data: offer.data });
    window.drbArtifactCount = (window.drbArtifactCount ?? 0) + 1;
  }

  /** Deletes the stored session (after the tester exported it). */
  async clear(): Promise<void> {
    await this.ready;
    if (await this.db.clear()) {
      this.items = [];
      this.counts = { receipts: 0, artifacts: 0 };
      this.handOffLog = EMPTY_HAND_OFF_LOG;
      this.attestations = [];
    }
    this.publish();
  }

  /** Keeps the tester's edit of the sheet (in memory at once, on the device when storage works). */
  async setSheet(sheet: TesterSheet): Promise<void> {
    this.sheet = sheet;
    await this.db.saveSheet(sheet);
  }

  /**
   * Every item of the session, oldest first: those on the device read back from it, and those storage refused
   * (kept in memory only).
   */
  async allItems(): Promise<StoredItem[]> {
    await this.ready;
    const refused = this.items.filter((item) => !item.stored);
    const stored = await this.db.items();
    if (refused.length === 0) return stored;
    // A stable sort by the time each was kept: the refused ones go back between the stored ones where they came.
    return [...stored, ...refused.map(({ stored: _, ...item }) => item)].sort((a, b) =>
      a.saved_at < b.saved_at ? -1 : a.saved_at > b.saved_at ? 1 : 0,
    );
  }

  /** Every receipt of the session (any kind), oldest first. */
  async allReceipts(): Promise<unknown[]> {
    return snapshotOf(await this.allItems()).receipts;
  }

  /** The receipts of the session not yet in any file the tester has, oldest first. */
  async receiptsNotHandedOff(): Promise<unknown[]> {
    return notHandedOff(await this.allReceipts(), this.handOffLog);
  }

  /**
   * Records that `receipts` went into a file the tester has (stored beside the session).
   * @param receipts the receipts the file carried
   * @param how how the file left the device
   */
  async recordHandOff(receipts: readonly unknown[], how: HandOffHow): Promise<void> {
    this.handOffLog = recordHandOff(this.handOffLog, receipts, how, new Date().toISOString());
    await this.db.saveMeta(HAND_OFF_KEY, this.handOffLog);
    this.publish();
  }

  /**
   * Records what the tester stated about the session (a tap: memory trouble seen, or none seen).
   * @param claim what the tester stated
   */
  async attest(claim: SessionClaim): Promise<void> {
    this.attestations = [...this.attestations, testerAttestation(claim, new Date().toISOString())].slice(-64);
    await this.db.saveMeta(ATTESTATIONS_KEY, this.attestations);
    this.publish();
  }

  /**
   * Takes back files the page handed off (after a site-data clear deleted the stored session): each is read exactly as
   * `drb receipts validate` reads it (src/core/validation/hand-off-files.ts); every valid receipt the session does
   * not hold yet is stored again (and counts as handed off: it is in a file already), the tester's sheet gets the
   * fields it lacks from the files' sheets, and the files' session attestations come back.
   * @param files the picked files
   * @returns what the files gave, and the sheet fields that differ between them and this page's sheet
   */
  async takeBack(files: readonly PickedFile[]): Promise<TakenBack & { differing: SheetField[] }> {
    const held = new Map<string, string>();
    for (const receipt of await this.allReceipts()) {
      const id = (receipt as { receipt_id?: unknown } | null)?.receipt_id;
      if (typeof id === 'string') held.set(id, receiptFileText(receipt));
    }
    // The reader (every receipt kind's schema and rules) is fetched only when a tester takes files back.
    const { takeBackFiles } = await import('../core/validation/hand-off-files.ts');
    const taken = takeBackFiles(files, held);
    for (const receipt of taken.receipts) await this.keep('receipt', receipt);
    if (taken.receipts.length > 0 || taken.notes.length > 0) {
      // Those already held came from a file too: every receipt the files carried is handed off.
      this.handOffLog = recordHandOff(this.handOffLog, taken.receipts, 'taken-back', new Date().toISOString());
      await this.db.saveMeta(HAND_OFF_KEY, this.handOffLog);
    }
    let differing: SheetField[] = [];
    if (taken.sheets.length > 0) {
      const restored = restoreTesterSheet(this.sheet, taken.sheets);
      differing = restored.differing;
      await this.setSheet(restored.sheet);
    }
    const known = new Set(this.attestations.map((a) => JSON.stringify(a)));
    const back = taken.attestations.filter((a) => !known.has(JSON.stringify(a)));
    if (back.length > 0) {
      this.attestations = [...this.attestations, ...back].slice(-64);
      await this.db.saveMeta(ATTESTATIONS_KEY, this.attestations);
    }
    if (this.fieldProtocol === null && taken.protocols.length > 0) this.fieldProtocol = taken.protocols.at(-1)!;
    this.publish();
    return { ...taken, differing };
  }

  /** The bundle the export buttons give: every receipt of the session, the protocol followed and the sheet. */
  async bundle(): Promise<ReceiptBundle> {
    return this.bundleOf(await this.allReceipts());
  }

  /**
   * A bundle of `receipts` (every receipt of the session, as `allReceipts` gave them) with the protocol and sheet.
   * @param receipts the session's receipts, oldest first
   */
  bundleOf(receipts: readonly unknown[]): ReceiptBundle {
    return {
      schema: RECEIPT_BUNDLE_SCHEMA,
      created_at: new Date().toISOString(),
      app: appSection({ version: __DRB_VERSION__, commit: __DRB_COMMIT__ }, location.href),
      protocol: this.fieldProtocol,
      sheet: this.sheet,
      ...(this.attestations.length > 0 ? { attestations: [...this.attestations] } : {}),
      receipts: [...receipts] as ReceiptBundle['receipts'],
    };
  }

  /** The session as the automation contract gives it: its latest items and its counts. */
  snapshot(): SessionSnapshot & { receiptCount: number; artifactCount: number } {
    return { ...snapshotOf(this.items), receiptCount: this.counts.receipts, artifactCount: this.counts.artifacts };
  }

  private async keep(kind: string, data: unknown): Promise<void> {
    await this.ready;
    const stored = await this.db.save(kind, data);
    // Kept in memory even when storage refused it: the page still shows and exports it for this visit.
    const items = [...this.items, { kind, data, saved_at: new Date().toISOString(), stored }];
    // Only items on the device leave memory, the oldest first; what storage refused stays (its only copy).
    let excess = items.filter((item) => item.stored).length - SESSION_ITEMS_IN_MEMORY;
    this.items = excess > 0 ? items.filter((item) => !(item.stored && excess-- > 0)) : items;
    if (kind === 'receipt') this.counts.receipts++;
    else this.counts.artifacts++;
    this.publish();
  }

  private publish(): void {
    window.drbSession = this.snapshot();
    for (const listener of this.listeners) listener();
  }
}

/** An item as the page holds it: `stored` says whether the device has it (else memory is its only copy). */
interface MemoryItem extends StoredItem {
  stored: boolean;
}

function countsOf(items: readonly StoredItem[]): { receipts: number; artifacts: number } {
  const receipts = items.filter((item) => item.kind === 'receipt').length;
  return { receipts, artifacts: items.length - receipts };
}

/** The page's stored session (created when the page starts). */
export const storedSession = new StoredSession();

/**
 * The one way a panel offers a result: every offer is stored on the device first, in order, and only then does `show`
 * put it on the page, so a tab killed afterwards loses nothing it showed.
 * @param offers what the run made, in the order it is stored
 * @param show puts the result on the page (after every offer is stored)
 */
export async function storeThenShow(offers: readonly Offer[], show: () => void): Promise<void> {
  for (const offer of offers) await storedSession.offer(offer);
  show();
}
