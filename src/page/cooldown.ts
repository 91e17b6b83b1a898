/**
 * Protocol mode's cooldown before a run, as the protocol file declares it (`cooldown`): wait until at least
 * `min_pause_ms` have passed since the previous run of this page ended, then, where CPU pressure is observable and
 * is not `nominal`, wait for `nominal` up to `wait_for_nominal_ms`. What happened is recorded in the receipt
 * (`device_state.cooldown`), so a receipt measured on a warm device says so instead of hiding it.
 */
import type { CooldownRecord, CooldownRule } from '../core/device/device-state.ts';
import type { PressureMonitor } from './pressure-monitor.ts';

let lastRunEndedAtMs: number | null = null;

/** Notes that a run of this page just ended (the next cooldown counts its pause from here). */
export function noteRunEnded(): void {
  lastRunEndedAtMs = performance.now();
}

/** Forgets the last run's end (tests). */
export function resetCooldownClock(): void {
  lastRunEndedAtMs = null;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * Waits out the cooldown and says how it went.
 * @param rule the protocol's declared cooldown
 * @param monitor the page's pressure monitor
 * @param onWait called when the page starts waiting, with what it waits for (for the page to say so)
 * @param signal cancels the wait (the run then starts at once, or is cancelled by its caller)
 */
export async function coolDown(
  rule: CooldownRule,
  monitor: PressureMonitor,
  onWait?: (what: 'pause' | 'nominal', untilMs: number) => void,
  signal?: AbortSignal,
): Promise<CooldownRecord> {
  const started = performance.now();
  const since = lastRunEndedAtMs === null ? null : started - lastRunEndedAtMs;
  if (since !== null && since < rule.min_pause_ms) {
    onWait?.('pause', rule.min_pause_ms - since);
    await sleep(rule.min_pause_ms - since, signal);
  }
  const pausedAt = performance.now();
  let ended: CooldownRecord['ended'] = 'pause';
  if (monitor.observable && monitor.state !== 'nominal' && rule.wait_for_nominal_ms > 0 && !signal?.aborted) {
    onWait?.('nominal', rule.wait_for_nominal_ms);
    const nominal = await monitor.waitUntil((s) => s === 'nominal', rule.wait_for_nominal_ms, signal);
    ended = nominal ? 'nominal' : 'limit';
  }
  if (signal?.aborted) ended = 'cancelled';
  const end = performance.now();
  return {
    rule,
    since_previous_ms: since,
    waited_ms: end - started,
    nominal_wait_ms: end - pausedAt,
    pressure_at_end: monitor.observable ? monitor.state : null,
    ended,
  };
}
