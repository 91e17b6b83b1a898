/** The automation contract's page state, `data-drb-state` on <html>, which automated runs wait on. */

/** The states a run sets (main.tsx sets `loading` before the app starts, and `failed` when it cannot start). */
export type DrbState = 'idle' | 'running' | 'done' | 'failed';

/**
 * Sets `data-drb-state` on the document element.
 * @param state what the page is doing now: `running` while a run goes, `done` / `failed` when it ended, `idle` ready
 */
export function setDrbState(state: DrbState): void {
  document.documentElement.dataset.drbState = state;
}
