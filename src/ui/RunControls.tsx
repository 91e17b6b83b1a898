import { useState } from 'preact/hooks';
import type { CatalogModel } from '../core/catalog/catalog.ts';
import { CancelButton } from './CancelButton.tsx';
import { EpSelect } from './EpSelect.tsx';
import { ModelSelect } from './ModelSelect.tsx';
import { BadParamsNote, PageBusyNote } from './page-runs.tsx';
import { RouteNote } from './RouteNote.tsx';
import { ThreadsSelect } from './ThreadsSelect.tsx';
import type { RouteChoiceNote } from '../core/automation/route-choice.ts';

/** The most timed runs one warm run takes (the automation parameter's limit too). */
const MAX_WARM_RUNS = 1000;

/** The run settings the controls edit. */
export interface RunSettings {
  modelId: string;
  ep: 'wasm' | 'webgpu';
  /** null = engine default */
  threads: number | null;
  warmRuns: number;
  allowFallback: boolean;
}

/**
 * Model / EP / threads / warm runs / allow-fallback controls and the run buttons.
 * @param props.models the models this build can run
 * @param props.busy disables everything while a run is going
 * @param props.hasLoadedModel whether a warm run would reuse the loaded model
 * @param props.onCancel cancels the running run (null when nothing runs)
 */
export function RunControls(props: {
  models: CatalogModel[];
  settings: RunSettings;
  busy: boolean;
  hasLoadedModel: boolean;
  onChange(settings: RunSettings): void;
  onRun(kind: 'cold' | 'warm'): void;
  onCancel: (() => void) | null;
  /** What holds the page when it is another panel's run (null otherwise): the buttons say why they are disabled. */
  pageRun?: string | null;
  /** The URL's bad parameters: the buttons say why they are disabled. */
  paramErrors?: readonly string[];
  /** What the route chosen would do here, said before the run (null: nothing to say). */
  routeNote?: RouteChoiceNote | null;
}) {
  const { settings, onChange } = props;
  const model = props.models.find((m) => m.id === settings.modelId);
  // The field's own text: a value out of range stays visible (and says so) instead of being silently ignored while the
  // button still shows the last valid count.
  const [warmText, setWarmText] = useState(String(settings.warmRuns));
  const warmNumber = Number(warmText);
  const warmInvalid =
    warmText.trim() === '' || !Number.isInteger(warmNumber) || warmNumber < 1 || warmNumber > MAX_WARM_RUNS;
  return (
    <section class="panel" data-testid="controls">
      <h2>Run</h2>
      <div class="controls">
        <ModelSelect
          models={props.models}
          value={settings.modelId}
          busy={props.busy}
          testId="model"
          onChange={(modelId) => onChange({ ...settings, modelId })}
        />
        <EpSelect value={settings.ep} busy={props.busy} testId="ep" onChange={(ep) => onChange({ ...settings, ep })} />
        <ThreadsSelect
          value={settings.threads}
          busy={props.busy}
          testId="threads"
          onChange={(threads) => onChange({ ...settings, threads })}
        />
        <label>
          Warm runs
          <input
            type="number"
            min={1}
            max={MAX_WARM_RUNS}
            value={warmText}
            disabled={props.busy}
            data-testid="warm-runs"
            aria-invalid={warmInvalid}
            aria-describedby={warmInvalid ? 'warm-runs-error' : undefined}
            onInput={(e) => {
              const text = e.currentTarget.value;
              setWarmText(text);
              const n = Number(text);
              if (Number.isInteger(n) && n >= 1 && n <= MAX_WARM_RUNS) onChange({ ...settings, warmRuns: n });
            }}
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={settings.allowFallback}
            disabled={props.busy}
            data-testid="allow-fallback"
            onChange={(e) => onChange({ ...settings, allowFallback: e.currentTarget.checked })}
          />
          allow fallback to wasm
        </label>
      </div>
      {model?.kind === 'fixture' && (
        <p class="note" data-testid="fixture-note">
          Fixture with random weights: a pipeline check, not a measure of quality.
        </p>
      )}
      <RouteNote note={props.routeNote ?? null} testId="route-note" />
      {warmInvalid && (
        <p class="error" id="warm-runs-error" data-testid="warm-runs-error">
          Warm runs: {warmText === '' ? 'empty' : `'${warmText}'`} is not a whole number from 1 to {MAX_WARM_RUNS}; the
          Warm run button waits for one.
        </p>
      )}
      <div class="buttons">
        <button type="button" disabled={props.busy} data-testid="run-cold" onClick={() => props.onRun('cold')}>
          Cold run
        </button>
        <button
          type="button"
          disabled={props.busy || warmInvalid}
          data-testid="run-warm"
          onClick={() => props.onRun('warm')}
        >
          {warmInvalid
            ? 'Warm run (set 1 to 1000 runs)'
            : `Warm run (${settings.warmRuns})${props.hasLoadedModel ? '' : ' – loads the model first'}`}
        </button>
        <CancelButton onCancel={props.onCancel} testId="run-cancel" />
        <PageBusyNote owner={props.pageRun ?? null} ownBusy={false} testId="run-page-busy" />
        <BadParamsNote errors={props.paramErrors ?? []} testId="run-bad-params" />
      </div>
    </section>
  );
}
