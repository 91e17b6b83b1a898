/**
 * A receipt counts once. Every receipt the page makes has its own random `receipt_id` and every device run its own
 * `run.id`, so a second receipt with an id already seen is a copy. Identity is by content and canonical form:
 * - ids are compared without regard to letter case (a UUID is the same UUID in capitals);
 * - a copy is "identical" when its content is, whatever its formatting: the fingerprint of a receipt is the hash of
 *   its canonical JSON (keys sorted, no whitespace), so a re-saved file (compact JSON, CRLF, keys reordered, a BOM)
 *   or a receipt read out of a bundle is the same receipt; any other difference (a changed number, an id in other
 *   letter case) is an edited or forged copy, an error;
 * - two device receipts of one `run.id` never count twice: the second is an error too (one run makes one receipt).
 * Used wherever receipts are counted (validate, summarize, review, the report), so five copies of one cold run can
 * never meet a minimum of five.
 */
import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';

/** Where a receipt came from: the file as shown to the user, and a fingerprint of its content. */
export interface ReceiptSource {
  file: string;
  /**
   * The receipt's content fingerprint: equal exactly for equal canonical JSON (the CLI hashes `canonicalJson` of the
   * parsed value with SHA-256; in-memory callers may give the canonical JSON itself).
   */
  fingerprint: string;
  /** The bundle file (as shown) a receipt was read from, when it came in a bundle. */
  bundle?: string;
}

/** What a claim found: the first receipt with the id, or a copy of an earlier one (by receipt id or by run id). */
export type ReceiptIdClaim =
  | { kind: 'first' }
  | {
      kind: 'identical' | 'conflict';
      firstFile: string;
      /** The earlier receipt's id as it spelled it. */
      firstId: string;
      /** What matched: the receipt id (any letter case), or the device run id of another receipt. */
      matchedBy: 'receipt_id' | 'run_id';
      /** The run id, for a match by run id. */
      runId?: string;
    };

/** One receipt counted once though more files hold it: the file that was counted, and every further copy. */
export const DuplicateReceipt = z.strictObject({
  receipt_id: detailText(4096).max(128),
  /** The file that was counted (the first in sorted order). */
  counted_file: detailText(4096).max(4096),
  copies: z.array(
    z.strictObject({
      file: detailText(4096).max(4096),
      /** The same content (a copy, noted); false: other content under the same id (an error). */
      identical: z.boolean(),
      /** `receipt_id`: the copy has the id (in any letter case); `run_id`: another receipt of the same device run. */
      matched_by: z.enum(['receipt_id', 'run_id']),
    }),
  ),
});
export type DuplicateReceipt = z.infer<typeof DuplicateReceipt>;

/** The key an id is compared by: ids are the same whatever their letter case. */
export function idKey(id: string): string {
  return id.toLowerCase();
}

/** Tracks every receipt id (and device run id) seen and the files that repeat one. */
export class ReceiptIdLedger {
  private readonly first = new Map<string, ReceiptSource & { id: string }>();
  private readonly runs = new Map<string, string>();
  private readonly copies = new Map<
    string,
    Array<{ file: string; identical: boolean; matched_by: 'receipt_id' | 'run_id' }>
  >();

  /**
   * Records a receipt as seen in `source`.
   * @param receiptId the receipt's `receipt_id`
   * @param source its file and content fingerprint
   * @param runId a device receipt's `run.id` (null for kinds without one)
   * @returns `first` when the receipt is new (count it), else `identical` or `conflict` (do not count it)
   */
  claim(receiptId: string, source: ReceiptSource, runId: string | null = null): ReceiptIdClaim {
    const key = idKey(receiptId);
    const first = this.first.get(key);
    if (first !== undefined) {
      const identical = first.fingerprint === source.fingerprint;
      this.addCopy(key, { file: source.file, identical, matched_by: 'receipt_id' });
      return {
        kind: identical ? 'identical' : 'conflict',
        firstFile: first.file,
        firstId: first.id,
        matchedBy: 'receipt_id',
      };
    }
    if (runId !== null) {
      const owner = this.runs.get(idKey(runId));
      if (owner !== undefined) {
        // Another receipt of the same run: never the same content (its receipt id differs), never counted.
        const earlier = this.first.get(owner)!;
        this.addCopy(owner, { file: source.file, identical: false, matched_by: 'run_id' });
        return { kind: 'conflict', firstFile: earlier.file, firstId: earlier.id, matchedBy: 'run_id', runId };
      }
      this.runs.set(idKey(runId), key);
    }
    this.first.set(key, { ...source, id: receiptId });
    return { kind: 'first' };
  }

  private addCopy(key: string, copy: { file: string; identical: boolean; matched_by: 'receipt_id' | 'run_id' }): void {
    const list = this.copies.get(key) ?? [];
    list.push(copy);
    this.copies.set(key, list);
  }

  /** True when the receipt `receiptId` (any letter case) was seen in more than one file. */
  isDuplicated(receiptId: string): boolean {
    return this.copies.has(idKey(receiptId));
  }

  /** Every receipt held by more than one file, sorted by id (copies in the order they were seen). */
  duplicates(): DuplicateReceipt[] {
    return [...this.copies.entries()]
      .map(([key, copies]) => ({
        receipt_id: this.first.get(key)!.id,
        counted_file: this.first.get(key)!.file,
        copies,
      }))
      .sort((a, b) => (a.receipt_id < b.receipt_id ? -1 : a.receipt_id > b.receipt_id ? 1 : 0));
  }
}

/**
 * The line a reader prints for a copy: a note for the same content, an error for other content or another receipt
 * of the same run.
 * @param receiptId the copy's own receipt id
 * @param claim what the ledger found
 */
export function duplicateMessage(receiptId: string, claim: Exclude<ReceiptIdClaim, { kind: 'first' }>): string {
  if (claim.matchedBy === 'run_id') {
    return `receipt_id ${receiptId} is another receipt of run ${claim.runId ?? '(the same run)'}, already counted from ${claim.firstFile} (receipt_id ${claim.firstId}): one run makes one receipt; not counted`;
  }
  const spelled = receiptId === claim.firstId ? '' : ` (the same id as ${claim.firstId}, in other letter case)`;
  return claim.kind === 'identical'
    ? `receipt_id ${receiptId}${spelled} is a copy of ${claim.firstFile} (the same content); counted once`
    : `receipt_id ${receiptId}${spelled} is already used by ${claim.firstFile} with different content: an edited or forged copy; not counted`;
}
