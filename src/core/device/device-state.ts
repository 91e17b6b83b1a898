/**
 * The device's state while it measured, recorded beside the measurement in device, comparison and sweep receipts
 * (`device_state`):
 * - `pressure`: the CPU pressure state from the Compute Pressure API (`PressureObserver`, W3C Compute Pressure Level
 *   1; Chromium 125 and later) before, during (every change with its time on the page clock) and after the run;
 *   where the browser has no such API, or refuses to observe, `not-available` with the reason. Only the state names
 *   the API reports (`nominal`, `fair`, `serious`, `critical`) are recorded, nothing else;
 * - `drift_probe`: the reference kernel's times and their trend (drift-probe.ts), recorded everywhere;
 * - `cooldown`: protocol mode's declared pause before the run (and its wait for `nominal` pressure), as it went.
 * What the page measured is kept apart from what anyone stated: these are all measured by the page.
 */
import { driftProbeRecord } from './drift-probe.ts';
import { sameWithin } from '../stats/same-within.ts';
import { type DeviceState, FLAGGED_PRESSURE, type PressureRecord, type PressureState } from './device-state-schema.ts';

export * from './device-state-schema.ts';

/** One broken rule of a device-state section, its path relative to the section. */
export interface DeviceStateProblem {
  path: string;
  message: string;
}

/**
 * Rules beyond the schema: pressure that is not available holds no state and says why; observed changes run forward
 * in time, each a change, and `after` is the last state; the drift probe's trend and flag are the ones its times
 * give; a cooldown's parts add up and its ending agrees with its rule.
 * @param state a schema-valid device_state section
 * @param at the section's path in the receipt, e.g. `device_state`
 */
export function checkDeviceState(state: DeviceState, at: string): DeviceStateProblem[] {
  const problems: DeviceStateProblem[] = [];
  const p = state.pressure;
  if (p.status === 'not-available') {
    if (p.reason === null)
      problems.push({ path: `${at}.pressure.reason`, message: 'pressure that is not available must say why' });
    if (p.before !== null || p.after !== null || p.changes.length > 0) {
      problems.push({ path: `${at}.pressure`, message: 'holds states although pressure is not available' });
    }
  } else {
    if (p.reason !== null) problems.push({ path: `${at}.pressure.reason`, message: 'observed pressure has no reason' });
    let previous = p.before;
    let previousAt = -Infinity;
    p.changes.forEach((change, i) => {
      if (change.state === previous)
        problems.push({
          path: `${at}.pressure.changes[${i}]`,
          message: `is no change (the state was already ${previous})`,
        });
      if (change.at_ms < previousAt)
        problems.push({ path: `${at}.pressure.changes[${i}].at_ms`, message: 'goes back in time' });
      previous = change.state;
      previousAt = change.at_ms;
    });
    if (p.after !== previous)
      problems.push({
        path: `${at}.pressure.after`,
        message: `is ${p.after}, the last state reported was ${previous}`,
      });
  }
  const probe = state.drift_probe;
  const expected = driftProbeRecord(probe.samples_ms, probe, probe.max_slowdown);
  if (!sameWithin(expected.trend, probe.trend) || expected.slowed_beyond_bound !== probe.slowed_beyond_bound) {
    problems.push({
      path: `${at}.drift_probe.trend`,
      message: 'does not match the trend recomputed from the probe times',
    });
  }
  if (probe.work <= 0) problems.push({ path: `${at}.drift_probe.work`, message: 'must be positive' });
  const c = state.cooldown;
  if (c !== null) {
    if (c.nominal_wait_ms > c.waited_ms + 1e-6)
      problems.push({ path: `${at}.cooldown.nominal_wait_ms`, message: 'is longer than the whole wait' });
    if (c.ended === 'limit' && c.nominal_wait_ms + 1 < c.rule.wait_for_nominal_ms) {
      problems.push({
        path: `${at}.cooldown.ended`,
        message: 'says the limit was reached before the declared wait for nominal ran out',
      });
    }
    if (c.ended === 'nominal' && c.pressure_at_end !== 'nominal')
      problems.push({ path: `${at}.cooldown.ended`, message: 'says nominal, but the pressure was not' });
    const paused = (c.since_previous_ms ?? Infinity) + c.waited_ms;
    if (c.since_previous_ms !== null && c.ended !== 'cancelled' && paused + 1 < c.rule.min_pause_ms) {
      problems.push({
        path: `${at}.cooldown.waited_ms`,
        message: `the run started ${Math.round(paused)} ms after the previous one, under the declared ${c.rule.min_pause_ms}`,
      });
    }
  }
  return problems;
}

/** What a summary flags about a receipt's device state. */
export interface DeviceStateFlags {
  /** The pressure state when the run started was `serious` or `critical`. */
  started_under_pressure: PressureState | null;
  /** Pressure reached `serious` or `critical` at some point during the run (the highest state reached). */
  peak_pressure: PressureState | null;
  /** The drift probe slowed beyond its declared bound. */
  drift_beyond_bound: boolean;
}

const RANK: Record<PressureState, number> = { nominal: 0, fair: 1, serious: 2, critical: 3 };

/**
 * The highest pressure state a record reports (at the start or during the run); null when none was reported.
 * @param pressure the pressure record
 */
export function peakPressure(pressure: PressureRecord): PressureState | null {
  const seen = [pressure.before, ...pressure.changes.map((c) => c.state)].filter((s): s is PressureState => s !== null);
  return seen.reduce<PressureState | null>((top, s) => (top === null || RANK[s] > RANK[top] ? s : top), null);
}

/**
 * The flags a summary shows for one receipt's device state (absent sections flag nothing).
 * @param state the receipt's device_state, or undefined for a receipt made before it was recorded
 */
export function deviceStateFlags(state: DeviceState | undefined): DeviceStateFlags {
  if (state === undefined) return { started_under_pressure: null, peak_pressure: null, drift_beyond_bound: false };
  const before = state.pressure.before;
  const peak = peakPressure(state.pressure);
  return {
    started_under_pressure: before !== null && FLAGGED_PRESSURE.has(before) ? before : null,
    peak_pressure: peak !== null && FLAGGED_PRESSURE.has(peak) ? peak : null,
    drift_beyond_bound: state.drift_probe.slowed_beyond_bound === true,
  };
}

/**
 * The device state in one line for people, e.g. "pressure nominal -> serious -> fair; drift probe 1.00 (no trend,
 * p = 0.41)" or "pressure not available (...); drift probe ...".
 * @param state the receipt's device_state
 */
export function deviceStateLine(state: DeviceState): string {
  const p = state.pressure;
  const pressure =
    p.status === 'not-available'
      ? `pressure not available (${p.reason})`
      : `pressure ${[p.before ?? 'unknown', ...p.changes.map((c) => c.state)].join(' -> ')}`;
  const t = state.drift_probe.trend;
  const drift =
    t === null
      ? `drift probe: ${state.drift_probe.samples_ms.length} probe(s), too few for a trend`
      : `drift probe sustained speed ${t.sustained_speed_ratio === null ? 'n/a' : t.sustained_speed_ratio.toFixed(2)} (${t.direction === 'none' ? 'no trend' : t.direction}, Mann-Kendall p = ${t.p_value.toPrecision(2)})${state.drift_probe.slowed_beyond_bound ? `: slowed beyond the bound of ${Math.round(state.drift_probe.max_slowdown * 100)}%` : ''}`;
  const c = state.cooldown;
  const how = {
    pause: 'the minimum pause',
    nominal: 'until nominal',
    limit: 'gave up waiting for nominal',
    cancelled: 'cancelled',
  }[c?.ended ?? 'pause'];
  const cooldown = c === null ? '' : `; cooldown ${Math.round(c.waited_ms)} ms (${how})`;
  return `${pressure}; ${drift}${cooldown}`;
}
