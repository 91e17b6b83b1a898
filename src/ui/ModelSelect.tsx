import type { CatalogModel } from '../core/catalog.ts';

/**
 * The labelled "Model" select every run panel shows.
 * @param props.models the models this panel can run (by catalog label)
 * @param props.value the chosen model id
 * @param props.busy disables the select while a run is going
 * @param props.testId the select's data-testid (the e2e tests and automation find each panel's select by it)
 * @param props.onChange called with the newly chosen model id
 */
export function ModelSelect(props: { models: CatalogModel[]; value: string; busy: boolean; testId: string; onChange(modelId: string): void }) {
  return (
    <label>
      Model
      <select value={props.value} disabled={props.busy} data-testid={props.testId} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.models.map((m) => (
          <option key={m.id} value={m.id}>
            {m.label}
          </option>
        ))}
      </select>
    </label>
  );
}
