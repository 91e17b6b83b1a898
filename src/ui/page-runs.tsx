/**
 * The panels' view of the page-wide run claim (src/page/run-gate.ts): which run holds the page, and the note that
 * says why a panel's Run button is disabled while another panel runs.
 */
import { useEffect, useState } from 'preact/hooks';
import type { AutomationSettings } from '../core/automation/automation.ts';
import type { ModelCatalog } from '../core/catalog/catalog.ts';
import { pageRuns } from '../page/run-gate.ts';
import type { ControllerJournal } from '../page/run-journal.ts';

/** What a run panel (comparison, generation) is given by the page. */
export interface RunPanelProps {
  /** The bundled catalog; the panel offers the models that can do its kind of run. */
  catalog: ModelCatalog;
  /** The parsed URL settings. */
  automation: Readonly<AutomationSettings>;
  /** The URL's bad parameters: while any is there, the panel runs nothing. */
  paramErrors?: readonly string[];
  /** Whether the panel starts its run on load (the URL's `autorun`). */
  autorun: boolean;
  /** The page's run journal (the run's stages are journaled; its receipt records a pending interruption). */
  journal?: ControllerJournal;
}

/** What holds the page now (null: nothing runs); re-renders the component on each change. */
export function usePageRun(): string | null {
  const [owner, setOwner] = useState<string | null>(pageRuns.owner);
  useEffect(() => {
    setOwner(pageRuns.owner);
    return pageRuns.subscribe(setOwner);
  }, []);
  return owner;
}

/** The line shown when a second run is refused because `owner` holds the page. */
export function refusedLine(owner: string | null): string {
  return `Another run is in progress (${owner ?? 'a run'}): one run at a time on this page, so timings are not shared with another run. Wait for it to end or cancel it.`;
}

/** What a panel shows of its own run: busy, its Cancel, and its one error line. */
export interface PanelRunUi {
  setBusy(busy: boolean): void;
  setCancel(abort: AbortController | null): void;
  setError(line: string): void;
}

/**
 * Runs a panel's `work` as the page's one run: claims the page (when another run holds it, the panel's error line says
 * which, and nothing starts), marks the panel busy with a Cancel for the run's AbortController, and always lets go of
 * the claim, the Cancel and the busy mark at the end. An error `work` throws becomes the panel's error line.
 * @param name how the page names this run to the other panels ("comparison", "generation run")
 * @param ui the panel's setters
 * @param work the run itself, given the run's AbortSignal; resolves to whether the run ended ok
 * @returns whether the run ended ok (false when it was refused or threw)
 */
export async function runAsPageRun(name: string, ui: PanelRunUi, work: (signal: AbortSignal) => Promise<boolean>): Promise<boolean> {
  // One run at a time, page-wide: a second run would share the device's cores with this one.
  const claim = pageRuns.claim(name);
  if (claim === null) {
    ui.setError(refusedLine(pageRuns.owner));
    return false;
  }
  ui.setBusy(true);
  const abort = new AbortController();
  ui.setCancel(abort);
  try {
    return await work(abort.signal);
  } catch (error) {
    ui.setError(error instanceof Error ? error.message : String(error));
    return false;
  } finally {
    claim.release();
    ui.setCancel(null);
    ui.setBusy(false);
  }
}

/**
 * The note beside a panel's Run button while another panel's run holds the page.
 * @param props.owner what holds the page (from usePageRun)
 * @param props.ownBusy this panel's own run is the one in progress (no note then)
 * @param props.testId the note's data-testid
 */
export function PageBusyNote(props: { owner: string | null; ownBusy: boolean; testId: string }) {
  if (props.owner === null || props.ownBusy) return null;
  return (
    <span class="note" data-testid={props.testId}>
      Disabled while another run is in progress ({props.owner}): one run at a time on this page.
    </span>
  );
}

/**
 * The note beside a panel's Run button while the page's URL holds a bad parameter: every panel is disabled, since a
 * run would not be the one the URL asked for (the banner at the top names each bad parameter).
 * @param props.errors the URL's parameter errors (none: no note)
 * @param props.testId the note's data-testid
 */
export function BadParamsNote(props: { errors: readonly string[]; testId: string }) {
  if (props.errors.length === 0) return null;
  return (
    <span class="note" data-testid={props.testId}>
      Disabled: the page's URL has {props.errors.length === 1 ? 'a bad parameter' : `${props.errors.length} bad parameters`} ({props.errors.join('; ')}). Fix
      or remove {props.errors.length === 1 ? 'it' : 'them'} and reload.
    </span>
  );
}

/**
 * A live region (announced by screen readers, not shown) that says when any panel's run starts and ends; the new
 * result then takes the focus and says ok or failed itself.
 */
export function RunAnnouncer() {
  const owner = usePageRun();
  const [message, setMessage] = useState('');
  const [last, setLast] = useState<string | null>(null);
  useEffect(() => {
    if (owner !== null) {
      setLast(owner);
      setMessage(`Running: ${owner}. Run buttons are disabled until it ends.`);
    } else if (last !== null) {
      setMessage(`Ended: ${last}. The result follows.`);
    }
  }, [owner]);
  return (
    <p class="offscreen" role="status" aria-live="polite" data-testid="run-announcer">
      {message}
    </p>
  );
}
