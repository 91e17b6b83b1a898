/**
 * The comparison panel's choices: the model, the routes (`wasm-1,wasm-2,webgpu` ...), the baseline among them, when
 * the rounds stop (after a fixed number, or when the answer is clear), the rounds, and for a reranker or candidate
 * scorer how many candidate rows every route scores.
 */
import type { CatalogModel } from '../core/catalog/catalog.ts';
import { parseRouteSpec } from '../core/comparison/route-spec.ts';
import { scoresCandidates } from '../core/engines/engine-capabilities.ts';
import { Field } from './Field.tsx';
import { ModelSelect } from './ModelSelect.tsx';

/** What a comparison runs with. */
export interface CompareChoice {
  modelId: string;
  routesText: string;
  baseline: string;
  /** `fixed`: `rounds` rounds; `until-clear`: the URL's declared rule (docs/comparison.md). */
  stop: 'fixed' | 'until-clear';
  rounds: number;
  rowCount: number;
}

/** A whole number from 1 to `max` out of a number field (a bad entry becomes 1). */
const clamped = (text: string, max: number) => Math.max(1, Math.min(max, Math.round(Number(text)) || 1));

/**
 * @param props.models the models the panel offers
 * @param props.choice the choices shown
 * @param props.busy disables every control while the panel runs
 * @param props.onChange the changed choices
 */
export function CompareControls(props: {
  models: CatalogModel[];
  choice: CompareChoice;
  busy: boolean;
  onChange(choice: CompareChoice): void;
}) {
  const { choice, busy } = props;
  const set = (patch: Partial<CompareChoice>) => props.onChange({ ...choice, ...patch });
  const selected = props.models.find((m) => m.id === choice.modelId);
  const common = { busy, min: 1 };
  return (
    <div class="controls">
      <ModelSelect
        models={props.models}
        value={choice.modelId}
        busy={busy}
        testId="cmp-model"
        onChange={(modelId) => set({ modelId })}
      />
      <Field
        label="Routes"
        type="text"
        // Wide enough for its whole text (a few routes), never wider than the screen.
        size={Math.max(24, choice.routesText.length + 2)}
        value={choice.routesText}
        busy={busy}
        testId="cmp-routes"
        onText={(routesText) => set({ routesText })}
      />
      <label>
        Baseline
        <select
          value={choice.baseline}
          disabled={busy}
          data-testid="cmp-baseline"
          onChange={(e) => set({ baseline: e.currentTarget.value })}
        >
          {(parseRouteSpec(choice.routesText) ?? []).map((r) => (
            <option key={r.id} value={r.id}>
              {r.id}
            </option>
          ))}
        </select>
      </label>
      <label>
        Stop
        <select
          value={choice.stop}
          disabled={busy}
          data-testid="cmp-stop"
          onChange={(e) => set({ stop: e.currentTarget.value as CompareChoice['stop'] })}
        >
          <option value="fixed">after the rounds below</option>
          <option value="until-clear">when the answer is clear</option>
        </select>
      </label>
      <Field
        label="Rounds"
        {...common}
        max={200}
        value={choice.rounds}
        testId="cmp-rounds"
        onCommit={(text) => set({ rounds: clamped(text, 200) })}
      />
      {selected && scoresCandidates(selected) && (
        <Field
          label="Candidate rows"
          {...common}
          max={64}
          value={choice.rowCount}
          testId="cmp-rows"
          onCommit={(text) => set({ rowCount: clamped(text, 64) })}
        />
      )}
    </div>
  );
}
