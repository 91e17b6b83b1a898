/**
 * The hand-off log: which receipts of the stored session have left the device in a file (shared, downloaded, copied,
 * or taken back from one), and when. Protocol mode hands off every receipt not yet handed off in one tap before the
 * cold step asks the tester to clear the site's data (which deletes the stored session), and the page stores this log
 * beside the session, so the tester is never asked to hand a receipt off twice and never loses one that was not.
 * Pure: the page stores the value (src/page/session-db.ts).
 */
import { z } from 'zod';
import { ReceiptId } from '../text/bounded-text.ts';
import { IsoTime } from '../receipt/receipt.ts';
import { MAX_BUNDLE_RECEIPTS } from './receipt-bundle.ts';

/** How receipts left the device: the share sheet, a download, the clipboard; or came back from a file. */
export const HandOffHow = z.enum(['shared', 'downloaded', 'copied', 'taken-back']);
export type HandOffHow = z.infer<typeof HandOffHow>;

/** The stored log. */
export const HandOffLog = z.strictObject({
  /** Every receipt id that is in a file the tester has (handed off, or taken back from one). */
  receipt_ids: z.array(ReceiptId).max(MAX_BUNDLE_RECEIPTS),
  /** Each hand-off, oldest first: when, how, and how many receipts it carried that no earlier file had. */
  hand_offs: z
    .array(z.strictObject({ at: IsoTime, how: HandOffHow, receipts: z.number().int().nonnegative() }))
    .max(1000),
});
export type HandOffLog = z.infer<typeof HandOffLog>;

/** A log with nothing handed off. */
export const EMPTY_HAND_OFF_LOG: HandOffLog = Object.freeze({ receipt_ids: [], hand_offs: [] });

/**
 * Reads a stored log; anything that is not one reads as the empty log (every receipt is then offered again: a
 * receipt handed off twice counts once at the desk, one never handed off would be lost).
 * @param value the stored value
 */
export function readHandOffLog(value: unknown): HandOffLog {
  const parsed = HandOffLog.safeParse(value);
  return parsed.success ? parsed.data : { receipt_ids: [], hand_offs: [] };
}

/** The receipt id of a stored receipt of any kind (null for a value without one). */
function idOf(receipt: unknown): string | null {
  const id = (receipt as { receipt_id?: unknown } | null)?.receipt_id;
  return typeof id === 'string' ? id : null;
}

/**
 * The receipts not yet in any file the tester has, oldest first.
 * @param receipts the session's receipts (any kind)
 * @param log the hand-off log
 */
export function notHandedOff(receipts: readonly unknown[], log: HandOffLog): unknown[] {
  const done = new Set(log.receipt_ids);
  return receipts.filter((r) => {
    const id = idOf(r);
    return id === null || !done.has(id);
  });
}

/**
 * The log after receipts went into a file (or came back from one).
 * @param log the log before
 * @param receipts the receipts the file carried
 * @param how how they left (or came back)
 * @param at when (ISO time)
 */
export function recordHandOff(log: HandOffLog, receipts: readonly unknown[], how: HandOffHow, at: string): HandOffLog {
  const ids = new Set(log.receipt_ids);
  let added = 0;
  for (const receipt of receipts) {
    const id = idOf(receipt);
    if (id !== null && !ids.has(id)) {
      ids.add(id);
      added++;
    }
  }
  return {
    receipt_ids: [...ids].slice(-MAX_BUNDLE_RECEIPTS),
    hand_offs: [...log.hand_offs, { at, how, receipts: added }].slice(-1000),
  };
}
