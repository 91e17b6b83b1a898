/**
 * A receipt's device state as the receipts summary shows it: pressure observable or not, the state at the start and
 * the highest reached, the drift probe's sustained-speed ratio, trend and bound, and whether the receipt is flagged
 * (started under `serious` or `critical` pressure, or its drift probe slowed beyond its declared bound). Flagged
 * receipts are named in summaries and reports; they are not set aside (the flags say the device may not have been
 * at its usual speed, not that the measurement is wrong).
 */
import { deviceStateFlags, deviceStateLine, peakPressure, type DeviceState } from '../device/device-state.ts';
import type { DeviceStateFlags, DeviceStateSummary } from './receipts-summary.ts';

/**
 * The summary of one receipt's device state.
 * @param state the receipt's `device_state`
 */
export function deviceStateSummary(state: DeviceState): DeviceStateSummary {
  const flags = deviceStateFlags(state);
  const trend = state.drift_probe.trend;
  return {
    pressure: state.pressure.status,
    started_under: state.pressure.before,
    peak: peakPressure(state.pressure),
    drift_sustained_speed_ratio: trend?.sustained_speed_ratio ?? null,
    drift_trend: trend?.direction ?? null,
    drift_p_value: trend?.p_value ?? null,
    drift_beyond_bound: flags.drift_beyond_bound,
    flagged: flags.started_under_pressure !== null || flags.drift_beyond_bound,
    line: deviceStateLine(state),
  };
}

/** Collects the device-state flags of a target's receipts. */
export class DeviceStateFlagsAccumulator {
  private recorded = 0;
  private observed = 0;
  private readonly underPressure: string[] = [];
  private readonly drift: string[] = [];

  /**
   * Folds one receipt in.
   * @param receiptId the receipt's id
   * @param state its device_state (undefined: made before it was recorded)
   */
  add(receiptId: string, state: DeviceState | undefined): void {
    if (state === undefined) return;
    this.recorded++;
    if (state.pressure.status === 'observed') this.observed++;
    const flags = deviceStateFlags(state);
    if (flags.started_under_pressure !== null) this.underPressure.push(receiptId);
    if (flags.drift_beyond_bound) this.drift.push(receiptId);
  }

  /** The flags, receipt ids sorted; undefined when no receipt recorded a device state. */
  finish(): DeviceStateFlags | undefined {
    if (this.recorded === 0) return undefined;
    const sorted = (ids: string[]) => [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      recorded: this.recorded,
      pressure_observed: this.observed,
      started_under_pressure: sorted(this.underPressure),
      drift_beyond_bound: sorted(this.drift),
    };
  }
}
