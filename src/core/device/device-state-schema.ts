/**
 * The schemas of a receipt's `device_state` section (see device-state.ts for what each part means). Light (no
 * statistics, no checks): the receipt schema needs it before the page's first paint; device-state.ts re-exports all
 * of this beside the checks and the sentences.
 */
import { z } from 'zod';
import { Detail } from '../text/bounded-text.ts';
import { DriftProbe } from './drift-probe-schema.ts';

/** The CPU pressure states of the Compute Pressure API, lowest first. */
export const PressureState = z.enum(['nominal', 'fair', 'serious', 'critical']);
export type PressureState = z.infer<typeof PressureState>;

/** States under which a measurement is flagged: the device said it was near or at its limit. */
export const FLAGGED_PRESSURE: ReadonlySet<PressureState> = new Set(['serious', 'critical']);

const AtMs = z.number().finite().nonnegative();

/** CPU pressure around one run. */
export const PressureRecord = z.strictObject({
  /** `observed`: the API reported on the CPU; `not-available`: no PressureObserver here, or it refused (see reason). */
  status: z.enum(['observed', 'not-available']),
  source: z.literal('cpu'),
  /** Why pressure is not available (null when observed). */
  reason: Detail.nullable(),
  /** The state last reported when the run started (null: none reported yet, or not available). */
  before: PressureState.nullable(),
  /** Every change of state while the run ran, with its time on the page clock (ms since navigation start). */
  changes: z.array(z.strictObject({ state: PressureState, at_ms: AtMs })).max(4000),
  /** The state last reported when the run ended: the last change's, else `before`. */
  after: PressureState.nullable(),
});
export type PressureRecord = z.infer<typeof PressureRecord>;

/** Protocol mode's cooldown between receipts, as the protocol file declares it. */
export const CooldownRule = z.strictObject({
  /** The least time between the end of one run and the start of the next, ms. */
  min_pause_ms: z.number().int().min(0).max(600_000),
  /** After the pause, where pressure is observable, the longest wait for `nominal`, ms (0: do not wait). */
  wait_for_nominal_ms: z.number().int().min(0).max(1_800_000),
});
export type CooldownRule = z.infer<typeof CooldownRule>;

/** The cooldown before one run, as it went. */
export const CooldownRecord = z.strictObject({
  rule: CooldownRule,
  /** Time since the previous run of this page ended, when the wait began (null: no earlier run on this page). */
  since_previous_ms: AtMs.nullable(),
  /** How long the page waited in all before the run started. */
  waited_ms: AtMs,
  /** Of which waiting for `nominal` pressure after the minimum pause. */
  nominal_wait_ms: AtMs,
  /** The pressure state when the wait ended (null: not observable here). */
  pressure_at_end: PressureState.nullable(),
  /** `pause`: the minimum pause was all it took (pressure nominal, or not observable); `nominal`: the page waited
   *  until pressure was nominal; `limit`: it gave up waiting for nominal at the declared limit; `cancelled`: the
   *  run was cancelled during the wait. */
  ended: z.enum(['pause', 'nominal', 'limit', 'cancelled']),
});
export type CooldownRecord = z.infer<typeof CooldownRecord>;

/** The device's state around a run. */
export const DeviceState = z.strictObject({
  pressure: PressureRecord,
  drift_probe: DriftProbe,
  /** Protocol mode's cooldown before this run; null outside protocol mode (or when its protocol declares none). */
  cooldown: CooldownRecord.nullable(),
});
export type DeviceState = z.infer<typeof DeviceState>;

/** The pressure record of a browser without the API (or that refused to observe). */
export function pressureNotAvailable(reason: string): PressureRecord {
  return { status: 'not-available', source: 'cpu', reason, before: null, changes: [], after: null };
}
