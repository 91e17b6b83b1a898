/**
 * The one WASM thread choice every panel offers (Run, generation, suite): the engine's default, or 1 up to the
 * device's logical cores (`navigator.hardwareConcurrency`), plus a value from the URL above that, shown as given.
 * @param props.value null = the engine's default
 * @param props.busy disables the choice while a run is going
 * @param props.testId the select's data-testid
 */
export function ThreadsSelect(props: {
  value: number | null;
  busy: boolean;
  testId: string;
  onChange(threads: number | null): void;
}) {
  const max = Math.max(1, typeof navigator !== 'undefined' ? (navigator.hardwareConcurrency ?? 1) : 1);
  const choices = Array.from({ length: max }, (_, i) => i + 1);
  return (
    <label>
      WASM threads
      <select
        value={props.value === null ? 'default' : String(props.value)}
        disabled={props.busy}
        data-testid={props.testId}
        onChange={(e) => props.onChange(e.currentTarget.value === 'default' ? null : Number(e.currentTarget.value))}
      >
        <option value="default">engine default</option>
        {choices.map((n) => (
          <option key={n} value={String(n)}>
            {n}
          </option>
        ))}
        {props.value !== null && props.value > max && <option value={String(props.value)}>{props.value}</option>}
      </select>
    </label>
  );
}
