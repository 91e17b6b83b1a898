/**
 * The labelled "Execution provider" select (wasm or webgpu) of the run, suite and generation panels.
 * @param props.value the requested execution provider
 * @param props.busy disables the select while a run is going
 * @param props.testId the select's data-testid (the e2e tests and automation find each panel's select by it)
 * @param props.onChange called with the newly chosen execution provider
 */
export function EpSelect(props: {
  value: 'wasm' | 'webgpu';
  busy: boolean;
  testId: string;
  onChange(ep: 'wasm' | 'webgpu'): void;
}) {
  return (
    <label>
      Execution provider
      <select
        value={props.value}
        disabled={props.busy}
        data-testid={props.testId}
        onChange={(e) => props.onChange(e.currentTarget.value as 'wasm' | 'webgpu')}
      >
        <option value="wasm">wasm</option>
        <option value="webgpu">webgpu</option>
      </select>
    </label>
  );
}
