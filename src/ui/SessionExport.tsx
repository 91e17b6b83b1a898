/**
 * Protocol mode's "Your receipts": the stored session's list, taking back handed-off files, the memory question (in
 * the done step's card once both minimums are met), the tester's sheet, and the whole session as one bundle (the share
 * sheet where the browser can share files, else a download; Download and Copy beside it; each records the hand-off),
 * with the deletion of the stored session once it was exported.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Protocol } from '../core/field/field-protocol.ts';
import { isProtocolReceipt } from '../core/field/field-progress.ts';
import { notHandedOff } from '../core/field/hand-off.ts';
import { bundleFileName, type ReceiptBundle, type TesterSheet } from '../core/field/receipt-bundle.ts';
import { copyJson, downloadJson } from '../page/download.ts';
import { canShareFiles } from '../page/share.ts';
import { storedSession } from '../page/stored-session.ts';
import { checkedBundle, handOver } from './hand-over.ts';
import { SessionList } from './ProtocolParts.tsx';
import { MemoryQuestion } from './MemoryQuestion.tsx';
import { TakeBack } from './TakeBack.tsx';
import { TesterSheetForm } from './TesterSheetForm.tsx';
import type { StoredReceipts } from './protocol-state.ts';

/**
 * @param props.stored every receipt of the stored session
 * @param props.protocol the field protocol followed (null while it loads or when it is bad)
 * @param props.busy a run of this view is in progress (the session cannot be deleted meanwhile)
 */
export function SessionExport(props: {
  stored: StoredReceipts;
  protocol: Protocol | null;
  busy: boolean;
  done: boolean;
  note: string | null;
  onNote(line: string): void;
}) {
  const { receipts, ready } = props.stored;
  const [sheet, setSheet] = useState<TesterSheet | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const setNote = props.onNote;
  const note = props.note;
  useEffect(() => {
    if (ready) setSheet(storedSession.sheet);
  }, [ready, props.stored.version]);

  // One name per export, from the bundle's own time: the file saved and the note saying so never differ.
  const name = (bundle: ReceiptBundle) => bundleFileName(props.protocol, bundle.created_at);
  const checked = () => {
    const made = checkedBundle(receipts);
    if ('line' in made) setNote(made.line);
    return 'bundle' in made ? made.bundle : null;
  };
  const share = async () => setNote(await handOver(receipts, props.protocol));
  const download = async () => {
    const bundle = checked();
    if (!bundle) return;
    const file = name(bundle);
    downloadJson(bundle, file);
    await storedSession.recordHandOff(receipts, 'downloaded');
    setNote(`Saved as ${file}.`);
  };
  const copy = async () => {
    const bundle = checked();
    if (!bundle) return;
    const copied = await copyJson(bundle);
    if (copied) await storedSession.recordHandOff(receipts, 'copied');
    setNote(copied ? 'Copied the bundle.' : 'Copy failed: use Download.');
  };
  const pending = ready ? notHandedOff(receipts, storedSession.handOffLog).length : 0;
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
      <h2>Your receipts</h2>
      {ready ? <SessionList receipts={receipts} protocol={props.protocol} /> : <p>Loading the stored session…</p>}
      <TakeBack disabled={!ready || props.busy} onTaken={props.stored.reload} />
      {!props.done && <MemoryQuestion disabled={!ready} />}
      {sheet && (
        <TesterSheetForm
          sheet={sheet}
          onChange={(next) => {
            setSheet(next);
            void storedSession.setSheet(next);
          }}
        />
      )}
      <p class="small">
        {pending > 0 ? `${pending} receipt(s) not yet handed off.` : 'Every receipt is in a file you have.'} The bundle
        holds every stored receipt, the sheet and your answers: give the desk it or the handed-off files, not both (a
        receipt in two files is a copy).
      </p>
      <div class="buttons">
        <button type="button" class="big" data-testid="export-share" disabled={nothing} onClick={() => void share()}>
          {canShareFiles() ? 'Share the bundle' : 'Download the bundle'}
        </button>
        {canShareFiles() && (
          <button type="button" data-testid="export-download" disabled={nothing} onClick={() => void download()}>
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
