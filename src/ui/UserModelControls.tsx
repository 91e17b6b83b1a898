/**
 * Your own model's choices: the files or folder (picked, or dropped on the zone), the dtype of a transformers.js
 * folder, the route, and the warm runs (a graph, a reranker) or the token limit (a causal LM).
 */
import { useRef } from 'preact/hooks';
import { EpSelect } from './EpSelect.tsx';
import { Field } from './Field.tsx';
import { ThreadsSelect } from './ThreadsSelect.tsx';
import { listed, type UserModelPick } from './user-model-pick.ts';

/** How your own model runs. */
export interface UserModelChoice {
  ep: 'wasm' | 'webgpu';
  threads: number | null;
  warmRuns: number;
  /** null = the prompt set's own limit. */
  maxNewTokens: number | null;
}

/** A whole number from 1 to `max` in `text`, else null. */
function wholeIn(text: string, max: number): number | null {
  const n = Number(text);
  return text !== '' && Number.isInteger(n) && n >= 1 && n <= max ? n : null;
}

/**
 * @param props.pick the panel's pick (its file inputs and drop zone feed it)
 * @param props.choice the route and counts shown
 * @param props.generate the pick is a causal LM (a token limit instead of warm runs)
 * @param props.busy disables every control while the panel runs
 * @param props.onChange the changed choices
 */
export function UserModelControls(props: {
  pick: UserModelPick;
  choice: UserModelChoice;
  generate: boolean;
  busy: boolean;
  onChange(choice: UserModelChoice): void;
}) {
  const { pick, choice, busy } = props;
  const set = (patch: Partial<UserModelChoice>) => props.onChange({ ...choice, ...patch });
  const model = pick.picked !== null && !('problem' in pick.picked) ? pick.picked.model : null;
  // One pick at a time: a pick through one input (or a drop) empties the other, which would still show its old file.
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const clearOthers = (kept: HTMLInputElement | null) => {
    for (const input of [filesInput.current, folderInput.current]) if (input && input !== kept) input.value = '';
  };
  const onFiles = (e: { currentTarget: HTMLInputElement }) => {
    clearOthers(e.currentTarget);
    pick.choose(listed(e.currentTarget.files));
  };
  return (
    <section
      class="controls drop-zone"
      aria-label="Your model: drop an ONNX file or a model folder here, or pick one"
      data-testid="user-model-drop"
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        if (busy) return;
        clearOthers(null);
        pick.drop(e.dataTransfer);
      }}
    >
      <label>
        Files (or drop files or a folder here)
        <input
          ref={filesInput}
          type="file"
          multiple
          disabled={busy}
          data-testid="user-model-files"
          onChange={onFiles}
        />
      </label>
      <label>
        A model folder
        <input
          type="file"
          multiple
          ref={folderInput}
          disabled={busy}
          data-testid="user-model-folder"
          {...{ webkitdirectory: true }}
          onChange={onFiles}
        />
      </label>
      {model?.kind === 'transformers' && (
        <label>
          Dtype
          <select
            value={pick.dtype ?? model.dtypes[0]}
            disabled={busy}
            data-testid="user-model-dtype"
            onChange={(e) => pick.setDtype(e.currentTarget.value)}
          >
            {model.dtypes.map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </label>
      )}
      <EpSelect value={choice.ep} busy={busy} testId="user-model-ep" onChange={(ep) => set({ ep })} />
      <ThreadsSelect
        value={choice.threads}
        busy={busy}
        testId="user-model-threads"
        onChange={(threads) => set({ threads })}
      />
      {props.generate ? (
        <Field
          label="Max new tokens"
          min={1}
          max={4096}
          placeholder="the prompt set's"
          value={choice.maxNewTokens ?? ''}
          busy={busy}
          testId="user-model-max-new-tokens"
          onText={(text) => {
            // Empty: the set's own limit; anything else but a whole number in range is ignored.
            const n = wholeIn(text, 4096);
            if (text === '' || n !== null) set({ maxNewTokens: n });
          }}
        />
      ) : (
        <Field
          label="Warm runs"
          min={1}
          max={1000}
          value={choice.warmRuns}
          busy={busy}
          testId="user-model-warm-runs"
          onText={(text) => {
            const n = wholeIn(text, 1000);
            if (n !== null) set({ warmRuns: n });
          }}
        />
      )}
    </section>
  );
}
