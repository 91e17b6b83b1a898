import type { CatalogModel } from '../core/catalog.ts';
import { CancelButton } from './CancelButton.tsx';
import { EpSelect } from './EpSelect.tsx';
import { ModelSelect } from './ModelSelect.tsx';
import { PageBusyNote } from './page-runs.tsx';

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
 * @param props.maxThreads upper bound for the threads choice (hardwareConcurrency)
 * @param props.busy disables everything while a run is going
 * @param props.hasSession whether a warm run would reuse a live session
 * @param props.onCancel cancels the running run (null when nothing runs)
 */
export function RunControls(props: {
  models: CatalogModel[];
  settings: RunSettings;
  maxThreads: number;
  busy: boolean;
  hasSession: boolean;
  onChange(settings: RunSettings): void;
  onRun(kind: 'cold' | 'warm'): void;
  onCancel: (() => void) | null;
  /** What holds the page when it is another panel's run (null otherwise): the buttons say why they are disabled. */
  pageRun?: string | null;
}) {
  const { settings, onChange } = props;
  const model = props.models.find((m) => m.id === settings.modelId);
  const threadChoices = Array.from({ length: Math.max(1, props.maxThreads) }, (_, i) => i + 1);
  return (
    <section class="panel" data-testid="controls">
      <h2>Run</h2>
      <div class="controls">
        <ModelSelect models={props.models} value={settings.modelId} busy={props.busy} testId="model" onChange={(modelId) => onChange({ ...settings, modelId })} />
        <EpSelect value={settings.ep} busy={props.busy} testId="ep" onChange={(ep) => onChange({ ...settings, ep })} />
        <label>
          WASM threads
          <select
            value={settings.threads === null ? 'default' : String(settings.threads)}
            disabled={props.busy}
            data-testid="threads"
            onChange={(e) => onChange({ ...settings, threads: e.currentTarget.value === 'default' ? null : Number(e.currentTarget.value) })}
          >
            <option value="default">engine default</option>
            {threadChoices.map((n) => (
              <option key={n} value={String(n)}>
                {n}
              </option>
            ))}
            {settings.threads !== null && settings.threads > props.maxThreads && <option value={String(settings.threads)}>{settings.threads}</option>}
          </select>
        </label>
        <label>
          Warm runs
          <input
            type="number"
            min={1}
            max={1000}
            value={settings.warmRuns}
            disabled={props.busy}
            data-testid="warm-runs"
            onInput={(e) => {
              const n = Number(e.currentTarget.value);
              if (Number.isInteger(n) && n >= 1 && n <= 1000) onChange({ ...settings, warmRuns: n });
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
      <div class="buttons">
        <button type="button" disabled={props.busy} data-testid="run-cold" onClick={() => props.onRun('cold')}>
          Cold run
        </button>
        <button type="button" disabled={props.busy} data-testid="run-warm" onClick={() => props.onRun('warm')}>
          Warm run ({settings.warmRuns}){props.hasSession ? '' : ' – loads the model first'}
        </button>
        <CancelButton onCancel={props.onCancel} testId="run-cancel" />
        <PageBusyNote owner={props.pageRun ?? null} ownBusy={false} testId="run-page-busy" />
      </div>
    </section>
  );
}
