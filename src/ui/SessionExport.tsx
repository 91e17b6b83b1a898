/**
 * Protocol mode's "Your session": the stored session's list, the tester's sheet, and the one bundle to hand back
 * (the share sheet where the browser can share files, else a download; Download and Copy beside it), with the
 * deletion of the stored session once it was exported.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Protocol } from '../core/field/field-protocol.ts';
import { isProtocolReceipt } from '../core/field/field-progress.ts';
import { bundleFileName, ReceiptBundle, type TesterSheet } from '../core/field/receipt-bundle.ts';
import { firstIssueLine } from '../core/text/zod-issues.ts';
import { copyJson, downloadJson } from '../page/download.ts';
import { canShareFiles, shareJson } from '../page/share.ts';
import { storedSession } from '../page/stored-session.ts';
import { SessionList } from './ProtocolParts.tsx';
import { TesterSheetForm } from './TesterSheetForm.tsx';
import type { StoredReceipts } from './protocol-state.ts';

/** What the share sheet's outcome tells the tester. */
const SHARED: Record<string, (name: string) => string> = {
  shared: () => 'Shared.',
  downloaded: (name) => `Saved as ${name}.`,
  cancelled: () => 'Sharing cancelled.',
};

/**
 * @param props.stored every receipt of the stored session
 * @param props.protocol the field protocol followed (null while it loads or when it is bad)
 * @param props.busy a run of this view is in progress (the session cannot be deleted meanwhile)
 */
export function SessionExport(props: { stored: StoredReceipts; protocol: Protocol | null; busy: boolean }) {
  const { receipts, ready } = props.stored;
  const [sheet, setSheet] = useState<TesterSheet | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  useEffect(() => {
    if (ready) setSheet(storedSession.sheet);
  }, [ready]);

  // One name per export, from the bundle's own time: the file saved and the note saying so never differ.
  const name = (bundle: ReceiptBundle) => bundleFileName(props.protocol, bundle.created_at);
  const checked = (): ReceiptBundle | null => {
    const parsed = ReceiptBundle.safeParse(storedSession.bundleOf(receipts));
    if (parsed.success) return parsed.data;
    setNote(`The bundle cannot be made: ${firstIssueLine(parsed.error)}`);
    return null;
  };
  const share = async () => {
    const bundle = checked();
    if (!bundle) return;
    const outcome = await shareJson(bundle, name(bundle));
    setNote(SHARED[outcome]?.(name(bundle)) ?? 'Sharing failed: use Download or Copy.');
  };
  const download = () => {
    const bundle = checked();
    if (!bundle) return;
    downloadJson(bundle, name(bundle));
    setNote(`Saved as ${name(bundle)}.`);
  };
  const copy = async () => {
    const bundle = checked();
    if (bundle) setNote((await copyJson(bundle)) ? 'Copied the bundle.' : 'Copy failed: use Download.');
  };
  const remove = async () => {
    await storedSession.clear();
    setConfirmDelete(false);
    setNote('The stored session was deleted.');
  };
  const nothing = !ready || receipts.length === 0;
  const unreadable = storedSession.db.unreadable.length;
  const protocol = props.protocol;
  return (
    <section class="panel" data-testid="session">
      <h2>Your session</h2>
      {ready ? <SessionList receipts={receipts} /> : <p>Loading the stored session…</p>}
      {sheet && (
        <TesterSheetForm
          sheet={sheet}
          onChange={(next) => {
            setSheet(next);
            void storedSession.setSheet(next);
          }}
        />
      )}
      <div class="buttons">
        <button type="button" class="big" data-testid="export-share" disabled={nothing} onClick={() => void share()}>
          {canShareFiles() ? 'Share the bundle' : 'Download the bundle'}
        </button>
        {canShareFiles() && (
          <button type="button" data-testid="export-download" disabled={nothing} onClick={download}>
            Download
          </button>
        )}
        <button type="button" data-testid="export-copy" disabled={nothing} onClick={() => void copy()}>
          Copy
        </button>
        {!confirmDelete ? (
          <button
            type="button"
            class="secondary"
            data-testid="delete-session"
            disabled={props.busy || (receipts.length === 0 && unreadable === 0)}
            onClick={() => setConfirmDelete(true)}
          >
            Delete the stored session
          </button>
        ) : (
          <button type="button" class="danger" data-testid="delete-confirm" onClick={() => void remove()}>
            Delete {receipts.length} receipt(s){unreadable > 0 ? ` and ${unreadable} unreadable item(s)` : ''} from this
            device
          </button>
        )}
      </div>
      {note && (
        <p role="status" data-testid="export-note">
          {note}
        </p>
      )}
      {protocol && receipts.some((r) => !isProtocolReceipt(r, protocol)) && (
        <p class="small">The bundle holds every stored receipt, also those of other targets.</p>
      )}
    </section>
  );
}
