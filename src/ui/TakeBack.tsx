/**
 * "Take back saved files": after the cold step's site-data clear deleted the stored session, the tester picks the
 * files protocol mode handed off (any number); the page reads each as `drb receipts validate` does and stores the
 * receipts again (src/page/stored-session.ts `takeBack`), so the tally goes on, and says what it took and what not.
 */
import { useState } from 'preact/hooks';
import { storedSession } from '../page/stored-session.ts';

/** Reads the picked files' bytes. */
async function picked(list: FileList | null): Promise<Array<{ name: string; bytes: Uint8Array }>> {
  return Promise.all(
    [...(list ?? [])].map(async (file) => ({ name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) })),
  );
}

/**
 * @param props.disabled the picker cannot be used now (a run goes, or the stored session is not read yet)
 * @param props.onTaken called after files were taken back: the view reads the session again (the note saying what
 *   was taken back shows only once the tally holds it)
 */
export function TakeBack(props: { disabled: boolean; onTaken(): Promise<void> }) {
  const [lines, setLines] = useState<string[] | null>(null);
  const take = async (list: FileList | null) => {
    const files = await picked(list);
    if (files.length === 0) return;
    const taken = await storedSession.takeBack(files);
    await props.onTaken();
    setLines([
      `Took back ${taken.receipts.length} receipt(s) from ${files.length} file(s)${taken.notes.length > 0 ? `; ${taken.notes.length} this device had already` : ''}.`,
      ...(taken.differing.length > 0
        ? [`The files' sheets differ from this page's in: ${taken.differing.join(', ')} (this page's values kept).`]
        : []),
      ...taken.problems,
    ]);
  };
  return (
    <>
      <label class="take-back">
        Take back saved files (after clearing this site's data):{' '}
        <input
          type="file"
          multiple
          accept=".json,application/json"
          data-testid="take-back"
          disabled={props.disabled}
          onChange={(e) => void take(e.currentTarget.files)}
        />
      </label>
      {lines && (
        <ul role="status" class="small" data-testid="take-back-note">
          {lines.map((line, i) => (
            <li key={i}>{line}</li>
          ))}
        </ul>
      )}
    </>
  );
}
