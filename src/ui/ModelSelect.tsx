import type { CatalogModel } from '../core/catalog/catalog.ts';
import { threeSignificant } from '../core/text/format-number.ts';

/**
 * The labelled "Model" select every run panel shows.
 * @param props.models the models this panel can run (by catalog label)
 * @param props.value the chosen model id
 * @param props.busy disables the select while a run is going
 * @param props.testId the select's data-testid (the e2e tests and automation find each panel's select by it)
 * @param props.onChange called with the newly chosen model id
 */
export function ModelSelect(props: {
  models: CatalogModel[];
  value: string;
  busy: boolean;
  testId: string;
  onChange(modelId: string): void;
}) {
  const chosen = props.models.find((m) => m.id === props.value);
  return (
    <label>
      Model
      <select
        value={props.value}
        disabled={props.busy}
        data-testid={props.testId}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        {props.models.map((m) => (
          <option key={m.id} value={m.id}>
            {m.label}
          </option>
        ))}
      </select>
      {chosen && <small data-testid={`${props.testId}-size`}>Model download: {modelSize(chosen)}</small>}
      {props.models.some(
        (m) => m.task === 'rerank' || (m.source.type === 'page-origin' && m.source.package !== undefined),
      ) && (
        <small data-testid={`${props.testId}-trained-note`}>
          Fixtures have random weights (pipeline checks); the models labelled "trained weights" are real models that
          ship with the page. No text reranker with trained weights ships: bring your own in "Your own model".
        </small>
      )}
    </label>
  );
}

/** The model's download before a run starts: its files' pinned sizes added up, or "size unknown" when one is not pinned. */
function modelSize(model: CatalogModel): string {
  if (model.files.some((f) => f.bytes === null)) return 'size unknown';
  const bytes = model.files.reduce((sum, f) => sum + (f.bytes ?? 0), 0);
  if (bytes < 1024 * 1024) return `${threeSignificant(bytes / 1024)} KiB`;
  if (bytes < 1024 ** 3) return `${threeSignificant(bytes / 1024 ** 2)} MiB`;
  return `${threeSignificant(bytes / 1024 ** 3)} GiB`;
}
