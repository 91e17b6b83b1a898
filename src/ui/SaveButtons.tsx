import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { copyJson, downloadReceipt } from '../page/download.ts';

/** Test ids of the buttons and the note (a copy id of null: no Copy button). */
export interface SaveButtonIds {
  download: string;
  copy?: string | null;
  note?: string;
}

/**
 * A receipt's Download and Copy buttons (Copy for browsers where downloads are awkward, iOS) and the note saying
 * where it went ("Saved as drb-....json.", "Copied."). The note belongs to the result shown: a new result is a new
 * ResultRegion, so it starts without one.
 * @param props.receipt the receipt (any kind; downloaded under its artifact file name)
 * @param props.label the Download button's text
 * @param props.ids the test ids
 * @param props.before buttons of the panel's own before Download, given the note's setter (suite: predictions)
 * @param props.after buttons of the panel's own after Copy, given the note's setter (generation: answers)
 */
export function SaveButtons(props: {
  receipt: unknown;
  label: string;
  ids: SaveButtonIds;
  before?: (say: (note: string) => void) => ComponentChildren;
  after?: (say: (note: string) => void) => ComponentChildren;
}) {
  const { receipt, ids } = props;
  const [note, setNote] = useState<string | null>(null);
  const copy = async () => setNote((await copyJson(receipt)) ? 'Copied.' : 'Copy failed: use Download.');
  return (
    <div class="buttons">
      {props.before?.(setNote)}
      <button type="button" data-testid={ids.download} onClick={() => setNote(`Saved as ${downloadReceipt(receipt)}.`)}>
        {props.label}
      </button>
      {ids.copy !== null && (
        <button type="button" data-testid={ids.copy} onClick={() => void copy()}>
          Copy receipt
        </button>
      )}
      {props.after?.(setNote)}
      {note && (
        <span role="status" data-testid={ids.note}>
          {note}
        </span>
      )}
    </div>
  );
}
