/**
 * Two lines every comparison-like result shows under its verdicts: why the rounds stopped (the declared stopping
 * rule's reason with the last intervals), and the device's state (CPU pressure, or that it is not available here;
 * the drift probe; protocol mode's cooldown), flagged when the run started under serious or critical pressure or
 * its drift probe slowed beyond its bound. The words are src/core's, so the page, the CLI and the report agree.
 */
import { stoppingSentence, type Stopping } from '../core/comparison/stopping-rule.ts';
import { deviceStateFlags, deviceStateLine, type DeviceState } from '../core/device/device-state.ts';

/** Why the rounds stopped, in one sentence. */
export function StoppingNote(props: { stopping: Stopping | undefined; testId: string }) {
  if (props.stopping === undefined) return null;
  return (
    <p class="note" data-testid={props.testId}>
      {stoppingSentence(props.stopping)}
    </p>
  );
}

/** The device's state in one line, with a warning when it is flagged. */
export function DeviceStateNote(props: { state: DeviceState | undefined; testId: string }) {
  if (props.state === undefined) return null;
  const flags = deviceStateFlags(props.state);
  const why = [
    flags.started_under_pressure ? `it started under ${flags.started_under_pressure} CPU pressure` : null,
    flags.drift_beyond_bound ? 'the drift probe slowed beyond its bound' : null,
  ].filter((x): x is string => x !== null);
  return (
    <p class={why.length > 0 ? 'warn' : 'note'} data-testid={props.testId}>
      Device: {deviceStateLine(props.state)}
      {why.length > 0 && ` (flagged: ${why.join(' and ')}; the timings may not be this device's usual speed)`}
    </p>
  );
}
