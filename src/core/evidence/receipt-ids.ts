/**
 * A receipt counts once. Every receipt the page makes has its own random `receipt_id`, so a second file with an id
 * already seen is a copy: byte-identical copies (a folder copied twice) are noted and counted once; a copy whose
 * bytes differ is an edited or forged receipt and is an error. Used wherever receipts are counted (validate,
 * summarize, review through the summary, and the report), so five copies of one cold run can never meet a minimum
 * of five.
 */
import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';

/** Where a receipt came from: the file as shown to the user, and a fingerprint of its bytes (their SHA-256). */
export interface ReceiptSource {
  file: string;
  /** SHA-256 of the file's bytes (in-memory callers may give any string that is equal exactly for equal content). */
  fingerprint: string;
  /** The bundle file (as shown) a receipt was read from, when it came in a bundle. */
  bundle?: string;
}

/** What a claim on an id found: the first file with it, or a copy of an earlier one (identical bytes or not). */
export type ReceiptIdClaim = { kind: 'first' } | { kind: 'identical' | 'conflict'; firstFile: string };

/** One receipt id seen in more than one file: the file that was counted, and every further copy. */
export const DuplicateReceipt = z.strictObject({
  receipt_id: detailText(4096).max(128),
  /** The file that was counted (the first in sorted order). */
  counted_file: detailText(4096).max(4096),
  copies: z.array(
    z.strictObject({
      file: detailText(4096).max(4096),
      /** Byte-identical to the counted file (a copy, noted); false: different bytes under the same id (an error). */
      identical: z.boolean(),
    }),
  ),
});
export type DuplicateReceipt = z.infer<typeof DuplicateReceipt>;

/** Tracks every receipt id seen and the files that repeat one. */
export class ReceiptIdLedger {
  private readonly first = new Map<string, ReceiptSource>();
  private readonly copies = new Map<string, Array<{ file: string; identical: boolean }>>();

  /**
   * Records `receiptId` as seen in `source`.
   * @param receiptId the receipt's `receipt_id`
   * @param source its file and byte fingerprint
   * @returns `first` when the id is new (count the receipt), else `identical` or `conflict` (do not count it)
   */
  claim(receiptId: string, source: ReceiptSource): ReceiptIdClaim {
    const first = this.first.get(receiptId);
    if (first === undefined) {
      this.first.set(receiptId, source);
      return { kind: 'first' };
    }
    const identical = first.fingerprint === source.fingerprint;
    const list = this.copies.get(receiptId) ?? [];
    list.push({ file: source.file, identical });
    this.copies.set(receiptId, list);
    return { kind: identical ? 'identical' : 'conflict', firstFile: first.file };
  }

  /** True when `receiptId` was seen in more than one file. */
  isDuplicated(receiptId: string): boolean {
    return this.copies.has(receiptId);
  }

  /** Every id seen more than once, sorted by id (copies in the order they were seen). */
  duplicates(): DuplicateReceipt[] {
    return [...this.copies.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([receipt_id, copies]) => ({ receipt_id, counted_file: this.first.get(receipt_id)!.file, copies }));
  }
}

/**
 * The line a reader prints for a copy: a note for identical bytes, an error for different bytes.
 * @param file the copy
 * @param receiptId its id
 * @param claim what the ledger found
 */
export function duplicateMessage(receiptId: string, claim: Exclude<ReceiptIdClaim, { kind: 'first' }>): string {
  return claim.kind === 'identical'
    ? `receipt_id ${receiptId} is a byte-identical copy of ${claim.firstFile}; counted once`
    : `receipt_id ${receiptId} is already used by ${claim.firstFile} with different bytes: an edited or forged copy; not counted`;
}
