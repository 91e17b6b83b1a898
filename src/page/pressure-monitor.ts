/**
 * The CPU pressure the device reports through the Compute Pressure API (W3C Compute Pressure Level 1,
 * `PressureObserver`; Chromium 125 and later, where the page is visible and focused), followed for the page's whole
 * life once a run asks for it: the latest state, every change with its time on the page clock, and a wait for a
 * state (protocol mode's cooldown waits for `nominal`). Where the API does not exist (WebKit, Firefox) or refuses to
 * observe (a permissions policy, a platform without a collector), the monitor says so with the reason, and every
 * record it gives is `not-available`: a receipt never guesses a state.
 */
import { pressureNotAvailable, PressureState, type PressureRecord } from '../core/device/device-state.ts';

/** The slice of the Compute Pressure API used here (not in TypeScript's DOM library yet). */
interface PressureRecordLike {
  source: string;
  state: string;
  time: number;
}
interface PressureObserverLike {
  observe(source: 'cpu', options?: { sampleInterval?: number }): Promise<void>;
  disconnect(): void;
}
type PressureObserverCtor = new (callback: (records: PressureRecordLike[]) => void) => PressureObserverLike;

/** How often the API is asked to report, ms (Chromium samples about once a second whatever is asked). */
const SAMPLE_INTERVAL_MS = 1000;
/** How long a run waits for the first report before it starts, ms: Chromium's first report comes after about a second. */
export const FIRST_REPORT_WAIT_MS = 2500;

/** One observed change. */
interface Change {
  state: PressureState;
  atMs: number;
}

/** Follows CPU pressure for the page; one per page (`pressureMonitor()`). */
export class PressureMonitor {
  private readonly changes: Change[] = [];
  private latest: PressureState | null = null;
  private waiters = new Set<() => void>();
  /** Held for the page's life: an observer nothing references may be collected, and its reports stop with it
   *  (Chromium did: a protocol session's later runs kept reading the state of its first). */
  private observer: PressureObserverLike | null = null;

  /** @param unavailable why pressure cannot be observed here, or null when it is being observed */
  private constructor(private unavailable: string | null) {}

  /** Starts observing (or records why it cannot). Never throws. */
  static async start(): Promise<PressureMonitor> {
    const Ctor = (globalThis as { PressureObserver?: PressureObserverCtor }).PressureObserver;
    if (typeof Ctor !== 'function')
      return new PressureMonitor('this browser has no PressureObserver (Compute Pressure API)');
    const monitor = new PressureMonitor(null);
    try {
      monitor.observer = new Ctor((records) => monitor.take(records));
      await monitor.observer.observe('cpu', { sampleInterval: SAMPLE_INTERVAL_MS });
    } catch (error) {
      const e = error as Error;
      monitor.unavailable = `the browser refused to observe CPU pressure (${e?.name ?? 'Error'}: ${e?.message ?? String(error)})`;
    }
    return monitor;
  }

  private take(records: PressureRecordLike[]): void {
    for (const record of records) {
      const state = PressureState.safeParse(record.state);
      if (record.source !== 'cpu' || !state.success) continue;
      // Only changes are kept: the API may report the same state again on every sample.
      if (state.data !== this.latest) this.changes.push({ state: state.data, atMs: performance.now() });
      this.latest = state.data;
    }
    for (const wake of [...this.waiters]) wake();
  }

  /** Whether pressure is observable here. */
  get observable(): boolean {
    return this.unavailable === null;
  }

  /** The state last reported (null: none yet, or not observable). */
  get state(): PressureState | null {
    return this.latest;
  }

  /**
   * Waits until `predicate` holds for the latest state, the time runs out, or the signal aborts.
   * @returns true when the predicate held
   */
  async waitUntil(
    predicate: (state: PressureState | null) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    if (predicate(this.latest)) return true;
    if (!this.observable || timeoutMs <= 0 || signal?.aborted) return false;
    return new Promise<boolean>((resolve) => {
      const done = (held: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        signal?.removeEventListener('abort', abort);
        resolve(held);
      };
      const check = () => {
        if (predicate(this.latest)) done(true);
      };
      const abort = () => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.waiters.add(check);
      signal?.addEventListener('abort', abort, { once: true });
    });
  }

  /**
   * Marks the start of a run: waits briefly for a first report when none has come yet, and returns a handle whose
   * `record()` gives the run's pressure record (the state at the start, every change since, the state at the end).
   * @param signal stops the wait for a first report
   */
  async begin(signal?: AbortSignal): Promise<{ record(): PressureRecord }> {
    if (this.unavailable !== null) {
      const reason = this.unavailable;
      return { record: () => pressureNotAvailable(reason) };
    }
    await this.waitUntil((s) => s !== null, FIRST_REPORT_WAIT_MS, signal);
    const before = this.latest;
    const from = this.changes.length;
    return {
      record: () => {
        const during = this.changes.slice(from).map((c) => ({ state: c.state, at_ms: c.atMs }));
        return {
          status: 'observed',
          source: 'cpu',
          reason: null,
          before,
          changes: during,
          after: during.at(-1)?.state ?? before,
        };
      },
    };
  }
}

let shared: Promise<PressureMonitor> | null = null;

/** The page's one pressure monitor, started on first use. */
export function pressureMonitor(): Promise<PressureMonitor> {
  shared ??= PressureMonitor.start();
  return shared;
}
