/**
 * The generation panel's choices: the model, the route (EP and threads), the prompt set and the repetitions.
 */
import type { CatalogModel } from '../core/catalog/catalog.ts';
import { EpSelect } from './EpSelect.tsx';
import { ModelSelect } from './ModelSelect.tsx';
import { ThreadsSelect } from './ThreadsSelect.tsx';

/** The prompt sets this build ships (public/prompts/<id>.json). */
const PROMPT_SETS = ['drb-gen-ja-en-v1', 'drb-answer-cases-ja-en-v1'];

/** What a generation run runs with. */
export interface GenerationChoice {
  modelId: string;
  ep: 'wasm' | 'webgpu';
  threads: number | null;
  reps: number;
  promptSetId: string;
}

/**
 * @param props.models the generate models the panel offers
 * @param props.choice the choices shown
 * @param props.busy disables every control while the panel runs
 * @param props.onChange the changed choices
 */
export function GenerationControls(props: {
  models: CatalogModel[];
  choice: GenerationChoice;
  busy: boolean;
  onChange(choice: GenerationChoice): void;
}) {
  const { models, choice, busy } = props;
  const set = (patch: Partial<GenerationChoice>) => props.onChange({ ...choice, ...patch });
  return (
    <div class="controls">
      <ModelSelect
        models={models}
        value={choice.modelId}
        busy={busy}
        testId="gen-model"
        onChange={(modelId) => set({ modelId })}
      />
      <EpSelect value={choice.ep} busy={busy} testId="gen-ep" onChange={(ep) => set({ ep })} />
      <ThreadsSelect value={choice.threads} busy={busy} testId="gen-threads" onChange={(threads) => set({ threads })} />
      <label>
        Prompt set
        <select
          value={choice.promptSetId}
          disabled={busy}
          onChange={(e) => set({ promptSetId: e.currentTarget.value })}
        >
          {[...new Set([...PROMPT_SETS, choice.promptSetId])].map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
      </label>
      <label>
        Repetitions
        <select
          value={String(choice.reps)}
          disabled={busy}
          data-testid="gen-reps"
          onChange={(e) => set({ reps: Number(e.currentTarget.value) })}
        >
          {[1, 2, 3].map((n) => (
            <option key={n} value={String(n)}>
              {n}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
