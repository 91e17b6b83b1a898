/**
 * The page's run journal store: src/core/journal.ts transitions kept in `localStorage`.
 *
 * Why localStorage and not IndexedDB: its writes are synchronous, so the entry for a stage is in the browser's
 * storage before the stage's first instruction runs, and the browser process (not the killed tab's renderer) holds
 * it. An IndexedDB write is asynchronous: a tab killed right after starting a stage can lose that last write, and
 * the journal would then name the wrong stage, or none.
 *
 * Storage can be missing or refuse writes (private modes, full quota, blocked site data). The journal then turns
 * itself off (`available` false) and runs go on: a journal must never be the reason a run fails.
 */
import {
  EMPTY_JOURNAL,
  endRun,
  enterStage,
  onPageLoad,
  readJournal,
  takeInterrupted,
  type InterruptedRun,
  type JournalRun,
  type RunJournal,
} from '../core/journal.ts';
import type { Stage } from '../core/receipt.ts';

/** The localStorage key of the journal (one key: each write replaces the whole journal at once). */
export const RUN_JOURNAL_KEY = 'drb.run-journal';

/** The subset of the Web Storage API the store uses (a plain object in tests). */
export type JournalStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** localStorage, or null where reading it throws (storage blocked for the site). */
function defaultStorage(): JournalStorage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** The journal of this page. Create one at page load and call `load()` before the first run. */
export class RunJournalStore {
  /** False when storage is missing or a write failed; the journal then records nothing. */
  available: boolean;
  private journal: RunJournal = EMPTY_JOURNAL;

  /** @param storage where to keep the journal; defaults to `localStorage` */
  constructor(private readonly storage: JournalStorage | null = defaultStorage()) {
    this.available = storage !== null;
  }

  /**
   * Reads the journal at page load. A run still open there was interrupted (the tab was killed or reloaded); it is
   * kept as pending until a receipt takes it.
   * @returns the interrupted run to show (null when the last run ended cleanly)
   */
  load(): InterruptedRun | null {
    if (!this.storage) return null;
    let raw: string | null;
    try {
      raw = this.storage.getItem(RUN_JOURNAL_KEY);
    } catch {
      this.available = false;
      return null;
    }
    const read = readJournal(raw);
    if (read.kind === 'invalid') console.warn(`${read.problem}; starting a new journal`);
    const loaded = onPageLoad(read.kind === 'ok' ? read.journal : EMPTY_JOURNAL);
    this.write(loaded.journal);
    return loaded.interrupted;
  }

  /** The interruption waiting for the next receipt (null when none). */
  pending(): InterruptedRun | null {
    return this.journal.interrupted;
  }

  /**
   * Records, synchronously, that `run` is about to start `stage`. Call it BEFORE the stage's work begins.
   * @param run the run entering the stage
   * @param stage the stage about to start
   */
  enterStage(run: JournalRun, stage: Stage): void {
    this.write(enterStage(this.journal, run, stage, new Date().toISOString()));
  }

  /**
   * Records that `runId` ended (ok or failed: its receipt tells the story, so it is no interruption).
   * @param runId the run that ended
   */
  endRun(runId: string): void {
    this.write(endRun(this.journal, runId));
  }

  /** Gives the pending interruption to the receipt being built (exactly one receipt records it) and clears it. */
  takeInterrupted(): InterruptedRun | null {
    const taken = takeInterrupted(this.journal);
    this.write(taken.journal);
    return taken.interrupted;
  }

  private write(journal: RunJournal): void {
    this.journal = journal;
    if (!this.storage || !this.available) return;
    try {
      if (journal.active === null && journal.interrupted === null) this.storage.removeItem(RUN_JOURNAL_KEY);
      else this.storage.setItem(RUN_JOURNAL_KEY, JSON.stringify(journal));
    } catch (error) {
      this.available = false;
      console.warn(`run journal: storage refused a write (${(error as Error).name}); interrupted runs will not be detected`);
    }
  }
}

/** The journal event the run controller sends before each stage (`stage` null: the run ended, ok or failed). */
export interface JournalEvent {
  runId: string;
  kind: JournalRun['runKind'];
  stage: Stage | null;
  modelId: string;
  requestedEp: JournalRun['requestedEp'];
}

/**
 * The two hooks the run controller takes (RunEnvironment.takePreviousRunInterrupted and .onJournal), over `store`.
 *
 * The pending interruption is handed to the next run when it starts but cleared from storage only when that run
 * ENDS: if the new run is itself killed before it produces a receipt, nothing was recorded, and the next load
 * reports the newest interruption (its open entry) instead.
 *
 * @param store the page's journal, already `load()`ed
 */
export function journalHooks(store: RunJournalStore): {
  takePreviousRunInterrupted: () => InterruptedRun | null;
  onJournal: (event: JournalEvent) => void;
} {
  let claimed = false;
  let claimingRunId: string | null = null;
  // Runs that ended: a stage event arriving after the end (hooks use their own MessagePort, and WebKit may deliver
  // it late) must not reopen the run, or the next load would report a false interruption.
  const ended = new Set<string>();
  return {
    takePreviousRunInterrupted: () => {
      const pending = store.pending();
      claimed = pending !== null;
      claimingRunId = null;
      return pending;
    },
    onJournal: (event) => {
      if (ended.has(event.runId)) return;
      // The controller asks for the interruption just before the run's first journal event: that run claimed it.
      if (claimed && claimingRunId === null) claimingRunId = event.runId;
      if (event.stage === null) {
        if (claimed && claimingRunId === event.runId) {
          store.takeInterrupted();
          claimed = false;
          claimingRunId = null;
        }
        store.endRun(event.runId);
        ended.add(event.runId);
        return;
      }
      try {
        store.enterStage({ runId: event.runId, runKind: event.kind, modelId: event.modelId, requestedEp: event.requestedEp }, event.stage);
      } catch (error) {
        // A stage event that arrives late from the worker (an earlier stage): keep the later stage on record.
        console.warn((error as Error).message);
      }
    },
  };
}
