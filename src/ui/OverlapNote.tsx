import { overlapped, type RunOverlap } from '../core/receipt/receipt.ts';

/**
 * The receipt's overlap flag on the page: another run (of this page or of another tab of the site) ran during this
 * one, so its timings measure both; `drb receipts summarize` sets such receipts aside.
 * @param props.overlap the receipt's `overlap` (absent: an older receipt, nothing shown)
 */
export function OverlapNote(props: { overlap: RunOverlap | undefined }) {
  const { overlap } = props;
  if (!overlapped(overlap)) return null;
  const where = [overlap!.this_page ? 'on this page' : '', overlap!.other_tabs ? 'in another tab of this site' : '']
    .filter(Boolean)
    .join(' and ');
  return (
    <p class="warn" data-testid="receipt-overlap">
      Warning: another run overlapped this one ({where}): its timings are not representative, and summaries set this
      receipt aside. Run one at a time, in one tab.
    </p>
  );
}
