/**
 * One run at a time, page-wide, and the record of runs that overlapped anyway.
 *
 * Two runs on one device share its cores: a warm run started during a comparison measured 46.9 ms against 15 to
 * 20 ms alone, and both receipts said `ok`. So:
 * - **The claim** (`pageRuns.claim`): every panel (Run, generation, comparison, suite, protocol mode) claims the page
 *   synchronously when its Run button is pressed (or its autorun starts) and releases it when the run ends; while a
 *   claim is held every panel's Run buttons are disabled (`pageRuns.busy`, `subscribe`) and a second claim is refused.
 * - **The overlap watch** (`watchOverlap`): each run controller watches its run from start to end. Another run of
 *   this page during it (only possible if something bypasses the claim) sets `this_page`; a run in another tab of
 *   the site sets `other_tabs`. Other tabs are seen two ways: a run holds a Web Lock (`drb-active-run:<run id>`)
 *   while it runs, so a run that started earlier in another tab is in `navigator.locks.query()` when this one starts
 *   or ends; and a run announces its start on a BroadcastChannel, so one that starts (and maybe ends) during this run
 *   is heard. Without Web Locks or BroadcastChannel, `other_tabs` is null unless an overlap was seen.
 */
import type { RunOverlap } from '../core/receipt/receipt.ts';
import { noteRunStarted } from './page-start.ts';

/** Web Lock names of running runs: this prefix + the run id (held from the run's start to its end). */
export const ACTIVE_RUN_LOCK_PREFIX = 'drb-active-run:';
/** The BroadcastChannel runs announce their start (and end) on. */
export const RUN_CHANNEL = 'drb-runs';

/** How often a view following other tabs' runs looks at the held locks (besides each announcement). */
const OTHER_TABS_LOOK_MS = 1000;

/** One run's overlap watch (see `watchOverlap`). */
export interface OverlapWatch {
  /** Ends the watch: the receipt's `overlap`. Idempotent (a `finally` may call it again). */
  finish(): Promise<RunOverlap>;
}

/** A held claim on the page: `release` ends it (later calls do nothing). */
export interface RunClaim {
  /** What holds the page (shown as the reason other Run buttons are disabled). */
  readonly owner: string;
  release(): void;
}

interface Watch {
  runId: string;
  thisPage: boolean;
  otherTabs: boolean;
}

interface LockManagerLike {
  query(): Promise<{ held?: Array<{ name?: string }> }>;
  request(name: string, callback: () => Promise<void>): Promise<unknown>;
}

function optional<T>(get: () => T | undefined): T | null {
  try {
    return get() ?? null;
  } catch {
    return null;
  }
}

/** The page's runs: the claim every panel takes, and the overlap watches of the runs in progress. */
class PageRuns {
  private current: RunClaim | null = null;
  private readonly listeners = new Set<(owner: string | null) => void>();
  private readonly watches = new Set<Watch>();
  private channel: BroadcastChannel | null | undefined;
  private readonly locks: LockManagerLike | null = optional(
    () => (globalThis.navigator as Navigator | undefined)?.locks as LockManagerLike | undefined,
  );

  /** What holds the page now (null: nothing runs, every Run button is enabled). */
  get owner(): string | null {
    return this.current?.owner ?? null;
  }

  /** True while a run holds the page. */
  get busy(): boolean {
    return this.current !== null;
  }

  /**
   * Claims the page for one run (or one sequence of runs).
   * @param owner what runs, in a few words ("comparison", "cold run")
   * @returns the claim, or null when another run holds the page (the caller starts nothing)
   */
  claim(owner: string): RunClaim | null {
    if (this.current !== null) return null;
    const claim: RunClaim = {
      owner,
      release: () => {
        if (this.current !== claim) return;
        this.current = null;
        this.notify();
      },
    };
    this.current = claim;
    this.notify();
    return claim;
  }

  /**
   * Follows who holds the page.
   * @param listener called with the owner (null when free) after each change
   * @returns the unsubscribe function
   */
  subscribe(listener: (owner: string | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Watches one run for overlapping runs, from now until `finish`.
   * @param runId the run's id (its lock name and its announcement carry it)
   * @returns `finish`, which ends the watch and gives the receipt's `overlap` (call it when the run ends, also when it
   *   threw: later calls give the first call's answer)
   */
  watch(runId: string): OverlapWatch {
    noteRunStarted();
    const watch: Watch = { runId, thisPage: false, otherTabs: false };
    for (const other of this.watches) {
      other.thisPage = true;
      watch.thisPage = true;
    }
    this.watches.add(watch);
    const channel = this.openChannel();
    try {
      channel?.postMessage({ type: 'run-start', runId });
    } catch {
      // A closed channel: the lock query still sees runs that overlap the start or end.
    }
    let release: (() => void) | null = null;
    if (this.locks) {
      const held = new Promise<void>((resolve) => (release = resolve));
      this.locks.request(`${ACTIVE_RUN_LOCK_PREFIX}${runId}`, () => held).catch(() => undefined);
    }
    const atStart = this.othersHoldLocks();
    let finished: Promise<RunOverlap> | null = null;
    const finish = async (): Promise<RunOverlap> => {
      const [start, end] = await Promise.all([atStart, this.othersHoldLocks()]);
      if (start === true || end === true) watch.otherTabs = true;
      this.watches.delete(watch);
      release?.();
      try {
        channel?.postMessage({ type: 'run-end', runId });
      } catch {
        // A closed channel: other tabs see the lock released on their next look.
      }
      const canTell = this.locks !== null && channel !== null && start !== null && end !== null;
      return { this_page: watch.thisPage, other_tabs: watch.otherTabs ? true : canTell ? false : null };
    };
    // Idempotent: the receipt's call and a controller's `finally` (a run that threw) end the same watch.
    return { finish: () => (finished ??= finish()) };
  }

  /** Whether a run not of this page holds its lock now (null: the browser cannot say). */
  private async othersHoldLocks(): Promise<boolean | null> {
    const count = await this.otherTabRuns();
    return count === null ? null : count > 0;
  }

  /** How many runs not of this page hold their lock now: runs in other tabs of the site (null: the browser cannot say). */
  async otherTabRuns(): Promise<number | null> {
    if (!this.locks) return null;
    try {
      const snapshot = await this.locks.query();
      const mine = new Set([...this.watches].map((w) => `${ACTIVE_RUN_LOCK_PREFIX}${w.runId}`));
      return (snapshot.held ?? []).filter(
        (lock) => lock.name?.startsWith(ACTIVE_RUN_LOCK_PREFIX) && !mine.has(lock.name),
      ).length;
    } catch {
      return null;
    }
  }

  /**
   * Follows the runs in other tabs of the site, so a view can show them: looks when another tab announces a run's
   * start or end, and once a second besides (a tab that died announces nothing; its lock goes with it).
   * @param listener called with how many runs other tabs hold now (null: this browser cannot tell), after each look
   * @returns the function that stops following
   */
  followOtherTabs(listener: (running: number | null) => void): () => void {
    let stopped = false;
    const look = () => {
      void this.otherTabRuns().then((n) => {
        if (!stopped) listener(n);
      });
    };
    const channel = this.openChannel();
    const onMessage = () => look();
    channel?.addEventListener('message', onMessage);
    const timer = setInterval(look, OTHER_TABS_LOOK_MS);
    look();
    return () => {
      stopped = true;
      clearInterval(timer);
      channel?.removeEventListener('message', onMessage);
    };
  }

  private openChannel(): BroadcastChannel | null {
    if (this.channel !== undefined) return this.channel;
    this.channel = optional(() =>
      typeof BroadcastChannel === 'function' ? new BroadcastChannel(RUN_CHANNEL) : undefined,
    );
    if (this.channel) {
      this.channel.onmessage = (event: MessageEvent) => {
        const data = event.data as { type?: unknown } | null;
        if (data?.type !== 'run-start') return;
        for (const watch of this.watches) watch.otherTabs = true;
      };
    }
    return this.channel;
  }

  private notify(): void {
    for (const listener of this.listeners) listener(this.owner);
  }
}

/** The page's one instance: every panel and controller uses it. */
export const pageRuns = new PageRuns();

/**
 * Watches a run for overlapping runs (see the module comment); call it when the run starts.
 * @param runId the run's id
 */
export function watchOverlap(runId: string): OverlapWatch {
  return pageRuns.watch(runId);
}
