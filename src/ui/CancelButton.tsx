/**
 * The Cancel button every run panel shows while its run goes: it aborts the run's AbortSignal, the worker is
 * terminated, and the run ends `failed` with reason `cancelled` (its receipt says so).
 * @param props.onCancel aborts the running run; null when nothing runs (the button is then disabled)
 * @param props.testId the button's test id
 */
export function CancelButton(props: { onCancel: (() => void) | null; testId: string }) {
  return (
    <button
      type="button"
      disabled={props.onCancel === null}
      data-testid={props.testId}
      onClick={() => props.onCancel?.()}
    >
      Cancel
    </button>
  );
}
