/**
 * The skeleton every run panel shares (the Run panel, protocol mode, your own model, generation, comparison, suite):
 * claiming the page's one run (src/page/run-gate.ts), busy and Cancel, the panel's one error line, its result, the
 * automation state, and the autorun, written once here. A panel keeps only what is its own: its settings, its
 * controller call, its progress and how it shows its result.
 *
 * The shape is squoosh's worker bridge seen from the UI: the panel asks for a run, the skeleton owns its life
 * (start, cancel, end) and hands the panel one AbortSignal.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { AutomationSettings } from '../core/automation/automation.ts';
import type { ModelCatalog } from '../core/catalog/catalog.ts';
import type { Capabilities } from '../core/receipt/receipt.ts';
import { setDrbState } from '../page/drb-state.ts';
import { pageRuns } from '../page/run-gate.ts';
import type { ControllerJournal } from '../page/run-journal.ts';
import { storeThenShow, type Offer } from '../page/stored-session.ts';
import { refusedLine, usePageRun } from './page-runs.tsx';

/** What a run panel (generation, comparison, suite) is given by the page. */
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
  /** The capability probe (null while it runs): the panel says before a run what its route choice would do here. */
  capabilities?: Capabilities | null;
}

/** How a panel runs. */
export interface PanelRunOptions {
  /** The URL's bad parameters: while any is there, the panel starts nothing (its Run button says why). */
  paramErrors?: readonly string[];
  /** A tapped run sets the automation state too (the Run panel, protocol mode); else only the autorun does. */
  tapsSetState?: boolean;
  /** The URL checked, once the panel is ready, against what the panel would run: the line that refuses it (shown as
   *  the panel's error, and `failed` when an autorun was asked), or null when it fits. */
  check?: () => string | null;
  /** The run the URL asks for on load (`autorun`), started once the panel is ready when `check` finds nothing;
   *  resolves to whether it ended ok (the automation state follows). Null or absent: none. */
  autorun?: (() => Promise<boolean>) | null;
  /** Called once the panel is ready when no autorun was asked (the page can be driven now). */
  onReady?: () => void;
  /** Whether what the check and the autorun need has arrived (protocol mode: its protocol file and the stored
   *  session); they run once, on the first render where it is true. Absent: at once, after the first render. */
  ready?: boolean;
}

/** What a run's work is handed. */
export interface RunScope<R> {
  /** The run's AbortSignal (the Cancel button aborts it). */
  signal: AbortSignal;
  /** Stores every offer on the device, then shows `result`: a tab killed afterwards loses nothing it showed. */
  keep(result: R, offers: readonly Offer[]): Promise<void>;
  /** Shows `result` without offering it (a receipt that failed its own checks is shown, never offered). */
  show(result: R): void;
}

/** A panel's run, as the panel renders it. */
export interface PanelRun<R> {
  /** This panel's run is in progress. */
  busy: boolean;
  /** What holds the page (this panel's run or another's); null when nothing runs. */
  owner: string | null;
  /** Whether a Run button may start a run now (nothing runs, and the URL has no bad parameter). */
  canStart: boolean;
  /** The panel's one error line (a refused run, a bad choice, what a run threw); null when none. */
  error: string | null;
  /** The latest run's result, shown until the next run starts. */
  result: R | null;
  /** Cancels the running run; null when nothing of this panel runs. */
  cancel: (() => void) | null;
  /** Clears the result and sets the error line (a choice refused before any run started); returns false. */
  refuse(line: string): false;
  /** Forgets the result and the error line (the panel's input changed under them). */
  clear(): void;
  /**
   * Runs `work` as the page's one run: claims the page (when another run holds it the error line says which, and
   * nothing starts), clears the last result and error, marks the panel busy with a Cancel, and always lets go of the
   * claim at the end. What `work` throws becomes the error line.
   * @param name how the page names this run to the other panels ("comparison", "cold run")
   * @param work the run; resolves to whether it ended ok
   * @returns whether the run ended ok (false when it was refused or threw)
   */
  start(name: string, work: (scope: RunScope<R>) => Promise<boolean>): Promise<boolean>;
}

/**
 * The panel skeleton's state and actions (see the module comment).
 * @param options the URL's bad parameters, whether taps set the automation state, and the autorun
 */
export function usePanelRun<R>(options: PanelRunOptions = {}): PanelRun<R> {
  const paramErrors = options.paramErrors ?? [];
  const owner = usePageRun();
  // The running run's AbortController: busy is "one is held", never a state of its own.
  const [abort, setAbort] = useState<AbortController | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<R | null>(null);

  const start: PanelRun<R>['start'] = async (name, work) => {
    // One run at a time, page-wide: a second run would share the device's cores with this one.
    const claim = pageRuns.claim(name);
    if (claim === null) {
      setError(refusedLine(pageRuns.owner));
      return false;
    }
    // An autorun's state is the effect's below; a tapped run's is set here only where taps set it.
    const reports = options.tapsSetState === true;
    const controller = new AbortController();
    setAbort(controller);
    setError(null);
    setResult(null);
    if (reports) setDrbState('running');
    const scope: RunScope<R> = {
      signal: controller.signal,
      keep: (shown, offers) => storeThenShow(offers, () => setResult(shown)),
      show: setResult,
    };
    let ok = false;
    try {
      ok = await work(scope);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      claim.release();
      setAbort(null);
    }
    if (reports) setDrbState(ok ? 'done' : 'failed');
    return ok;
  };

  // The URL's check and the autorun, for every panel: once, as soon as the panel is ready. A bad parameter runs
  // nothing (the page shows it and is `failed`); a refused autorun is `failed` with its line; `idle` (onReady) only
  // when nothing was asked.
  const loaded = useRef(false);
  const ready = options.ready ?? true;
  useEffect(() => {
    if (!ready || loaded.current) return;
    loaded.current = true;
    const { check, autorun, onReady } = options;
    if (paramErrors.length > 0) return;
    if (autorun) setDrbState('running');
    const problem = check?.() ?? null;
    if (problem !== null) setError(problem);
    if (autorun && problem !== null) setDrbState('failed');
    else if (autorun) void autorun().then((ok) => setDrbState(ok ? 'done' : 'failed'));
    else onReady?.();
  }, [ready]);

  return {
    busy: abort !== null,
    owner,
    canStart: abort === null && owner === null && paramErrors.length === 0,
    error,
    result,
    cancel: abort ? () => abort.abort() : null,
    refuse: (line) => {
      setResult(null);
      setError(line);
      return false;
    },
    clear: () => {
      setResult(null);
      setError(null);
    },
    start,
  };
}
