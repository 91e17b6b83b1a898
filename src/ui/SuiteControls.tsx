/**
 * The suite panel's choices: the demo suite or your own items and candidates files (only read, never written), the
 * model and its dtype, the route (EP, threads, fallback) and the abstention threshold.
 */
import type { ItemFormat } from '../core/artifacts/items.ts';
import type { CatalogModel } from '../core/catalog/catalog.ts';
import { availableDtypes } from '../core/catalog/transformers-dtype.ts';
import { DEMO_SUITE_ID } from '../core/suite/suite-manifest.ts';
import { EpSelect } from './EpSelect.tsx';
import { Field } from './Field.tsx';
import { ModelSelect } from './ModelSelect.tsx';
import { ThreadsSelect } from './ThreadsSelect.tsx';

/** What a suite run runs with. */
export interface SuiteChoice {
  modelId: string;
  ep: 'wasm' | 'webgpu';
  threads: number | null;
  allowFallback: boolean;
  /** null = the catalog's dtype for the model. */
  dtype: string | null;
  /** The abstention threshold as typed ('' = never abstain on margin). */
  threshold: string;
  source: 'demo' | 'files';
  format: ItemFormat;
  itemsFile: File | null;
  candidatesFile: File | null;
}

/** A file input's first file (null when none is chosen). */
const firstFile = (input: HTMLInputElement) => input.files?.[0] ?? null;

/** The items and candidates files and the items' format, when the tester runs their own files. */
function SuiteFiles(props: { choice: SuiteChoice; busy: boolean; set(patch: Partial<SuiteChoice>): void }) {
  const { busy, set } = props;
  return (
    <>
      <label>
        Items file
        <input
          type="file"
          accept=".json,application/json"
          disabled={busy}
          data-testid="suite-items"
          onChange={(e) => set({ itemsFile: firstFile(e.currentTarget) })}
        />
      </label>
      <label>
        Items format
        <select
          value={props.choice.format}
          disabled={busy}
          data-testid="suite-format"
          onChange={(e) => set({ format: e.currentTarget.value as ItemFormat })}
        >
          <option value="generic">generic</option>
          <option value="ajimee">ajimee</option>
        </select>
      </label>
      <label>
        Candidates file
        <input
          type="file"
          accept=".json,application/json"
          disabled={busy}
          data-testid="suite-candidates"
          onChange={(e) => set({ candidatesFile: firstFile(e.currentTarget) })}
        />
      </label>
    </>
  );
}

/**
 * @param props.models the rerankers and candidate scorers the panel offers
 * @param props.choice the choices shown
 * @param props.busy disables every control while the panel runs
 * @param props.onChange the changed choices
 */
export function SuiteControls(props: {
  models: CatalogModel[];
  choice: SuiteChoice;
  busy: boolean;
  onChange(choice: SuiteChoice): void;
}) {
  const { choice, busy } = props;
  const set = (patch: Partial<SuiteChoice>) => props.onChange({ ...choice, ...patch });
  const model = props.models.find((m) => m.id === choice.modelId);
  return (
    <div class="controls">
      <label>
        Suite
        <select
          value={choice.source}
          disabled={busy}
          data-testid="suite-source"
          onChange={(e) => set({ source: e.currentTarget.value as SuiteChoice['source'] })}
        >
          <option value="demo">demo suite ({DEMO_SUITE_ID}, AJIMEE rows, CC BY-SA 3.0)</option>
          <option value="files">my files…</option>
        </select>
      </label>
      {choice.source === 'files' && <SuiteFiles choice={choice} busy={busy} set={set} />}
      {/* A new model starts on its catalog dtype. */}
      <ModelSelect
        models={props.models}
        value={choice.modelId}
        busy={busy}
        testId="suite-model"
        onChange={(modelId) => set({ modelId, dtype: null })}
      />
      <label>
        dtype
        <select
          value={choice.dtype ?? ''}
          disabled={busy}
          data-testid="suite-dtype"
          onChange={(e) => set({ dtype: e.currentTarget.value === '' ? null : e.currentTarget.value })}
        >
          <option value="">catalog default ({model?.dtype ?? 'fp32'})</option>
          {model &&
            availableDtypes(model).map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
        </select>
      </label>
      <EpSelect value={choice.ep} busy={busy} testId="suite-ep" onChange={(ep) => set({ ep })} />
      <ThreadsSelect
        value={choice.threads}
        busy={busy}
        testId="suite-threads"
        onChange={(threads) => set({ threads })}
      />
      <label class="check">
        <input
          type="checkbox"
          checked={choice.allowFallback}
          disabled={busy}
          data-testid="suite-allow-fallback"
          onChange={(e) => set({ allowFallback: e.currentTarget.checked })}
        />
        allow fallback to wasm
      </label>
      <Field
        label="Abstain below margin"
        type="text"
        inputMode="decimal"
        placeholder="never"
        value={choice.threshold}
        busy={busy}
        testId="suite-threshold"
        onText={(threshold) => set({ threshold })}
      />
    </div>
  );
}
