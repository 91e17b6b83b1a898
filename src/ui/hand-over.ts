/**
 * Handing receipts over from protocol mode: a checked bundle of them (with the sheet, the protocol and the tester's
 * answers) through the share sheet where the browser can share files, else a download, and the hand-off recorded
 * beside the stored session when it happened (src/core/field/hand-off.ts), so the page knows what is in a file the
 * tester has before the cold step's site-data clear deletes the stored session.
 */
import type { Protocol } from '../core/field/field-protocol.ts';
import { bundleFileName, ReceiptBundle } from '../core/field/receipt-bundle.ts';
import { firstIssueLine } from '../core/text/zod-issues.ts';
import { shareJson } from '../page/share.ts';
import { storedSession } from '../page/stored-session.ts';

/**
 * The bundle of `receipts` as the page exports it, checked by its schema; or the line saying why it cannot be made.
 * @param receipts the receipts it carries
 */
export function checkedBundle(receipts: readonly unknown[]): { bundle: ReceiptBundle } | { line: string } {
  const parsed = ReceiptBundle.safeParse(storedSession.bundleOf(receipts));
  return parsed.success
    ? { bundle: parsed.data }
    : { line: `The bundle cannot be made: ${firstIssueLine(parsed.error)}` };
}

/**
 * Shares (or downloads) a bundle of `receipts` and records the hand-off when the file left the page.
 * @param receipts the receipts to hand over
 * @param protocol the protocol followed (names the file)
 * @returns the line that tells the tester what happened
 */
export async function handOver(receipts: readonly unknown[], protocol: Protocol | null): Promise<string> {
  const made = checkedBundle(receipts);
  if ('line' in made) return made.line;
  // Named from the bundle's own time, as every export is: the file and the note never differ.
  const name = bundleFileName(protocol, made.bundle.created_at);
  const outcome = await shareJson(made.bundle, name);
  if (outcome === 'shared' || outcome === 'downloaded') await storedSession.recordHandOff(receipts, outcome);
  if (outcome === 'shared') return `Shared ${receipts.length} receipt(s).`;
  if (outcome === 'downloaded') return `Saved ${receipts.length} receipt(s) as ${name}.`;
  return outcome === 'cancelled' ? 'Sharing cancelled.' : 'Sharing failed: use Download or Copy.';
}
