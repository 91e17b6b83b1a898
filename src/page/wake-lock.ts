/**
 * The Screen Wake Lock a run holds so a phone's screen does not lock mid-run (a locked screen hides the page, and a
 * hidden page is throttled or killed). Where the browser offers none, or declines, the run goes on and its receipt
 * records that (`run.wake_lock`).
 */
import type { WakeLockState } from '../core/receipt/receipt.ts';

/** A wake lock held for one run. */
export interface RunWakeLock {
  /** Releases the lock (if held) and returns what the run had: held throughout, released early, refused, unsupported. */
  end(): Promise<WakeLockState>;
}

interface SentinelLike {
  released: boolean;
  release(): Promise<void>;
  addEventListener(type: 'release', listener: () => void): void;
}

/**
 * Asks for a screen wake lock for the run that starts now. Never throws.
 */
export async function holdWakeLock(): Promise<RunWakeLock> {
  const api = (navigator as Navigator & { wakeLock?: { request(type: 'screen'): Promise<SentinelLike> } }).wakeLock;
  if (!api || typeof api.request !== 'function') return { end: async () => 'unsupported' };
  let sentinel: SentinelLike;
  try {
    sentinel = await api.request('screen');
  } catch {
    // NotAllowedError: a hidden page, a battery saver, a permissions policy.
    return { end: async () => 'refused' };
  }
  let releasedEarly = false;
  let ending = false;
  sentinel.addEventListener('release', () => {
    if (!ending) releasedEarly = true;
  });
  return {
    end: async () => {
      ending = true;
      const early = releasedEarly || sentinel.released;
      if (!sentinel.released) await sentinel.release().catch(() => undefined);
      return early ? 'released' : 'held';
    },
  };
}
