/**
 * The page's run journal store: src/core/field/journal.ts transitions kept in `localStorage`.
 *
 * Why localStorage and not IndexedDB: its writes are synchronous, so the entry for a stage is in the browser's
 * storage before the stage's first instruction runs, and the browser process (not the killed tab's renderer) holds
 * it. An IndexedDB write is asynchronous: a tab killed right after starting a stage can lose that last write, and
 * the journal would then name the wrong stage, or none.
 *
 * Tabs: every operation re-reads the stored journal and writes it back at once, so two tabs of the site do not
 * overwrite each other's runs. Each run holds a Web Lock (`drb-run:<run id>`) while it is open: the browser releases
 * it when the page is gone (closed, reloaded, renderer killed), which is how a page load tells a run alive in
 * another tab from an interrupted one. The tab's own earlier runs (same sessionStorage tab id) are always gone.
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
  STAGE_ORDER,
  takeInterrupted,
  type InterruptedRun,
  type JournalRun,
  type RunJournal,
} from '../core/field/journal.ts';
import type { JournalStage } from '../core/receipt/receipt.ts';

/** The localStorage key of the journal (one key: each write replaces the whole journal at once). */
export const RUN_JOURNAL_KEY = 'drb.run-journal';
/** The sessionStorage key of this tab's id. */
export const TAB_ID_KEY = 'drb.tab-id';
/** Web Lock names of open runs: this prefix + the run id. */
export const RUN_LOCK_PREFIX = 'drb-run:';

/** The subset of the Web Storage API the store uses (a plain object in tests). */
export type JournalStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** The subset of the Web Locks API (`navigator.locks`) the store uses. */
export interface RunLocks {
  query(): Promise<{ held?: Array<{ name?: string }> }>;
  request(name: string, callback: () => Promise<void>): Promise<unknown>;
}

/** Where the store keeps things; each defaults to the browser's own, or null where it is missing or blocked. */
export interface JournalPlaces {
  storage?: JournalStorage | null;
  session?: JournalStorage | null;
  locks?: RunLocks | null;
}

/** A browser global that may be missing, or throw on access when site data is blocked. */
function optional<T>(get: () => T | undefined): T | null {
  try {
    return get() ?? null;
  } catch {
    return null;
  }
}

function newTabId(session: JournalStorage | null): string {
  const fresh = globalThis.crypto.randomUUID();
  if (session === null) return fresh;
  try {
    const known = session.getItem(TAB_ID_KEY);
    if (known) return known;
    session.setItem(TAB_ID_KEY, fresh);
  } catch {
    // No sessionStorage: a per-document id; the Web Locks check still finds this tab's dead runs.
  }
  return fresh;
}

/** The journal of this page. Create one at page load and await `load()` before the first run. */
export class RunJournalStore {
  /** False when storage is missing or a write failed; the journal then records nothing. */
  available: boolean;
  /** This tab's id (kept in sessionStorage, so a reload of the tab keeps it). */
  readonly tabId: string;
  private readonly storage: JournalStorage | null;
  private readonly locks: RunLocks | null;
  private readonly releases = new Map<string, () => void>();
  private warnedInvalid = false;

  /** @param places storage, session storage and locks; defaults to the browser's */
  constructor(places: JournalPlaces = {}) {
    this.storage = places.storage !== undefined ? places.storage : optional(() => globalThis.localStorage);
    const session = places.session !== undefined ? places.session : optional(() => globalThis.sessionStorage);
    this.locks =
      places.locks !== undefined
        ? places.locks
        : optional(() => (globalThis.navigator as Navigator | undefined)?.locks);
    this.available = this.storage !== null;
    this.tabId = newTabId(session);
  }

  /**
   * Reads the journal at page load. Open runs whose page is gone were interrupted (the tab was killed or reloaded);
   * the newest is kept as pending until a receipt takes it.
   * @returns the interrupted run to show (null when every earlier run ended cleanly or is still alive elsewhere)
   */
  async load(): Promise<InterruptedRun | null> {
    if (!this.storage) return null;
    let liveRunIds: Set<string> | null = null;
    if (this.locks) {
      try {
        const snapshot = await this.locks.query();
        liveRunIds = new Set(
          (snapshot.held ?? []).flatMap((lock) =>
            lock.name?.startsWith(RUN_LOCK_PREFIX) ? [lock.name.slice(RUN_LOCK_PREFIX.length)] : [],
          ),
        );
      } catch {
        liveRunIds = null;
      }
    }
    const loaded = onPageLoad(this.read(), { tabId: this.tabId, liveRunIds });
    this.write(loaded.journal);
    return loaded.interrupted;
  }

  /** The interruption waiting for the next receipt (null when none). */
  pending(): InterruptedRun | null {
    return this.read().interrupted;
  }

  /**
   * Records, synchronously, that `run` is about to start `stage` (call it BEFORE the stage's work begins), and
   * holds the run's Web Lock from its first stage on.
   * @param run the run entering the stage
   * @param stage the stage about to start
   */
  enterStage(run: Omit<JournalRun, 'tabId'>, stage: JournalStage): void {
    this.write(enterStage(this.read(), { ...run, tabId: this.tabId }, stage, new Date().toISOString()));
    if (this.locks && !this.releases.has(run.runId)) {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      this.releases.set(run.runId, release);
      this.locks
        .request(`${RUN_LOCK_PREFIX}${run.runId}`, () => held)
        .catch(() => {
          // No lock: other tabs then count this run as interrupted if they load meanwhile (the safe side).
        });
    }
  }

  /**
   * Records that `runId` ended (ok or failed: its receipt tells the story, so it is no interruption).
   * @param runId the run that ended
   */
  endRun(runId: string): void {
    this.write(endRun(this.read(), runId));
    this.releases.get(runId)?.();
    this.releases.delete(runId);
  }

  /**
   * Clears the pending interruption once a receipt has recorded it (exactly one receipt records each).
   * @param runId the interrupted run's id: cleared only if it is still the pending one
   * @returns the interruption that was cleared, or null
   */
  takeInterrupted(runId?: string): InterruptedRun | null {
    const taken = takeInterrupted(this.read(), runId);
    this.write(taken.journal);
    return taken.interrupted;
  }

  private read(): RunJournal {
    if (!this.storage || !this.available) return EMPTY_JOURNAL;
    let raw: string | null;
    try {
      raw = this.storage.getItem(RUN_JOURNAL_KEY);
    } catch {
      this.available = false;
      return EMPTY_JOURNAL;
    }
    const read = readJournal(raw);
    if (read.kind === 'ok') return read.journal;
    if (!this.warnedInvalid) console.warn(`${read.problem}; starting a new journal`);
    this.warnedInvalid = true;
    return EMPTY_JOURNAL;
  }

  private write(journal: RunJournal): void {
    if (!this.storage || !this.available) return;
    try {
      if (journal.active.length === 0 && journal.interrupted === null) this.storage.removeItem(RUN_JOURNAL_KEY);
      else this.storage.setItem(RUN_JOURNAL_KEY, JSON.stringify(journal));
    } catch (error) {
      this.available = false;
      console.warn(
        `run journal: storage refused a write (${(error as Error).name}); interrupted runs will not be detected`,
      );
    }
  }
}

/** The journal event a controller sends before each stage (`stage` null: the run ended, ok or failed). */
export interface JournalEvent {
  runId: string;
  /** Which controller's run: `single` (run-controller.ts, cold/warm), `suite`, `generation` or `comparison`. */
  mode: JournalRun['runMode'];
  kind: JournalRun['runKind'];
  stage: JournalStage | null;
  modelId: string;
  requestedEp: JournalRun['requestedEp'];
}

/**
 * The journal hooks every run controller uses through `openRunJournal` (`ControllerJournal`), over `store`.
 *
 * The pending interruption is handed to the next run when it starts but cleared from storage only when that run
 * ENDS: if the new run is itself killed before it produces a receipt, nothing was recorded, and the next load
 * reports the newest interruption (its open entry) instead.
 *
 * @param store the page's journal, already `load()`ed (await it before the first run)
 */
export function journalHooks(store: RunJournalStore): {
  takePreviousRunInterrupted: () => InterruptedRun | null;
  onJournal: (event: JournalEvent) => void;
} {
  // The pending interruption the next run took, and that run: storage forgets the interruption when that run ends.
  let claimed: InterruptedRun | null = null;
  let claimingRunId: string | null = null;
  // Runs that ended: a stage event arriving after the end (hooks use their own MessagePort, and WebKit may deliver
  // it late) must not reopen the run, or the next load would report a false interruption.
  const ended = new Set<string>();
  return {
    takePreviousRunInterrupted: () => {
      claimed = store.pending();
      claimingRunId = null;
      return claimed;
    },
    onJournal: (event) => {
      if (ended.has(event.runId)) return;
      // The controller asks for the interruption just before the run's first journal event: that run claimed it.
      if (claimed !== null && claimingRunId === null) claimingRunId = event.runId;
      if (event.stage === null) {
        if (claimed !== null && claimingRunId === event.runId) {
          store.takeInterrupted(claimed.run_id);
          claimed = null;
          claimingRunId = null;
        }
        store.endRun(event.runId);
        ended.add(event.runId);
        return;
      }
      try {
        store.enterStage(
          {
            runId: event.runId,
            runMode: event.mode,
            runKind: event.kind,
            modelId: event.modelId,
            requestedEp: event.requestedEp,
          },
          event.stage,
        );
      } catch (error) {
        // A stage event that arrives late from the worker (an earlier stage): keep the later stage on record.
        console.warn((error as Error).message);
      }
    },
  };
}

/** The journal hooks a controller takes (from `journalHooks`), and a promise that settles once the store is loaded. */
export interface ControllerJournal {
  /** Settles when the store has read the journal at page load (await it before taking the pending interruption). */
  ready: Promise<unknown>;
  takePreviousRunInterrupted: () => InterruptedRun | null;
  onJournal: (event: JournalEvent) => void;
}

/** One run's journal, as every run controller (cold/warm, suite, generation, comparison) uses it. */
export interface RunJournalWriter {
  /** The interruption this run records in its receipt (`previous_run_interrupted`), or null. */
  previous: InterruptedRun | null;
  /** Journals that the run is about to start `stage`; a stage not after the last journaled one is skipped. */
  stage(stage: JournalStage): void;
  /** Journals that the run ended (ok or failed: its receipt tells the story); later calls do nothing. */
  end(): void;
}

/**
 * Opens one run's journal: claims the pending interruption (the run's receipt records it) and returns the stage and
 * end writers. Without a journal (tests, storage blocked) it records nothing and `previous` is null.
 *
 * Stages only move forward: a comparison loads several routes one after another (fetch, session, fetch, ...), and
 * the journal keeps the furthest stage reached rather than warning about each step back.
 *
 * @param journal the page's journal hooks, or undefined
 * @param run the run's id, mode, model and requested route (`kind` null for the suite, generation and comparison modes)
 */
export async function openRunJournal(
  journal: ControllerJournal | undefined,
  run: Omit<JournalEvent, 'stage'>,
): Promise<RunJournalWriter> {
  if (!journal) return { previous: null, stage: () => undefined, end: () => undefined };
  await journal.ready.catch(() => undefined);
  const previous = journal.takePreviousRunInterrupted();
  let last = -1;
  let ended = false;
  return {
    previous,
    stage(stage) {
      const index = STAGE_ORDER.indexOf(stage);
      if (ended || index <= last) return;
      last = index;
      journal.onJournal({ ...run, stage });
    },
    end() {
      if (ended) return;
      ended = true;
      journal.onJournal({ ...run, stage: null });
    },
  };
}
