/**
 * The device's state (src/core/device/): the Mann–Kendall trend test against values enumerated by hand in python3
 * (itertools.permutations for the exact p-values, the textbook formula for the normal one), the drift probe's trend
 * and bound, the pressure and cooldown rules, and the flags a summary shows.
 */
import { describe, expect, it } from 'vitest';
import { erfc, mannKendall } from '../../src/core/stats/sample-order.ts';
import {
  DEFAULT_DRIFT_MAX_SLOWDOWN,
  driftKernel,
  driftProbeRecord,
  driftTrend,
  DRIFT_KERNEL_WORK,
} from '../../src/core/device/drift-probe.ts';
import {
  checkDeviceState,
  deviceStateFlags,
  deviceStateLine,
  pressureNotAvailable,
  type DeviceState,
} from '../../src/core/device/device-state.ts';

describe('Mann–Kendall trend test', () => {
  it('gives the exact permutation p-value without ties (checked by enumerating every permutation)', () => {
    // python3: S([3,1,4,5,9,2,6]) = 9; 1204 of the 5040 permutations have |S| >= 9.
    expect(mannKendall([3, 1, 4, 5, 9, 2, 6])).toEqual({
      s: 9,
      pValue: expect.closeTo(1204 / 5040, 12),
      method: 'exact',
    });
    // A strictly rising run of 5: only the two monotone orders reach |S| = 10.
    expect(mannKendall([1, 2, 3, 4, 5])!.pValue).toBeCloseTo(2 / 120, 12);
    expect(mannKendall([5, 4, 3, 2, 1])!.s).toBe(-10);
    expect(mannKendall([1, 2])).toBeNull();
  });

  it('uses the tie-corrected normal approximation with ties', () => {
    // python3: S = 62, Var = 208, z = (S - 1) / sqrt(Var) = 4.2296, p = erfc(z / sqrt 2) = 2.341e-5.
    const result = mannKendall([1, 1, 2, 3, 3, 3, 4, 5, 6, 7, 8, 9])!;
    expect(result.s).toBe(62);
    expect(result.method).toBe('normal');
    expect(result.pValue).toBeCloseTo(2.3411864798773113e-5, 9);
    expect(erfc(0)).toBeCloseTo(1, 7);
    expect(erfc(1)).toBeCloseTo(0.157299207, 7);
    expect(erfc(-1)).toBeCloseTo(1.842700793, 7);
  });
});

describe('the drift probe', () => {
  it('runs the same work every time (the kernel is deterministic)', () => {
    expect(driftKernel(1000)).toBe(driftKernel(1000));
    expect(driftKernel(DRIFT_KERNEL_WORK)).not.toBe(driftKernel(DRIFT_KERNEL_WORK - 1));
  });

  it('reports the sustained-speed ratio of the last five probes against the first five, and the trend', () => {
    // Probe times rising from 2 ms to 2.9 ms: the device slowed by about 30%.
    const times = Array.from({ length: 10 }, (_, i) => 2 + i * 0.1);
    const trend = driftTrend(times)!;
    expect(trend.window).toBe(5);
    // median(first five) = 2.2, median(last five) = 2.7: speed ratio 2.2 / 2.7.
    expect(trend.sustained_speed_ratio).toBeCloseTo(2.2 / 2.7, 12);
    expect(trend).toMatchObject({ direction: 'slowing', method: 'exact', mann_kendall_s: 45 });
    expect(trend.theil_sen_ms_per_probe).toBeCloseTo(0.1, 12);
    const record = driftProbeRecord(times, { context: 'page', placement: 'between-rounds' });
    expect(record).toMatchObject({ max_slowdown: DEFAULT_DRIFT_MAX_SLOWDOWN, slowed_beyond_bound: true });
    // A steady device: no trend, within the bound.
    const steady = driftProbeRecord([2, 2.1, 1.9, 2, 2.05, 1.95, 2.02], {
      context: 'worker',
      placement: 'between-warm-runs',
    });
    expect(steady.trend).toMatchObject({ direction: 'none', window: 3 });
    expect(steady.slowed_beyond_bound).toBe(false);
    // Two probes (around a cold run): recorded, too few for a trend.
    expect(driftProbeRecord([2, 2.2], { context: 'worker', placement: 'around-run' })).toMatchObject({
      trend: null,
      slowed_beyond_bound: null,
    });
  });
});

const probe = driftProbeRecord([2, 2.1, 1.9, 2, 2.05], { context: 'page', placement: 'between-rounds' });

describe('device state rules', () => {
  it('accepts pressure not available with a reason, and observed changes that run forward', () => {
    const state: DeviceState = {
      pressure: pressureNotAvailable('this browser has no PressureObserver (Compute Pressure API)'),
      drift_probe: probe,
      cooldown: null,
    };
    expect(checkDeviceState(state, 'device_state')).toEqual([]);
    const observed: DeviceState = {
      pressure: {
        status: 'observed',
        source: 'cpu',
        reason: null,
        before: 'nominal',
        changes: [
          { state: 'serious', at_ms: 10 },
          { state: 'fair', at_ms: 20 },
        ],
        after: 'fair',
      },
      drift_probe: probe,
      cooldown: {
        rule: { min_pause_ms: 1000, wait_for_nominal_ms: 5000 },
        since_previous_ms: 200,
        waited_ms: 2500,
        nominal_wait_ms: 1700,
        pressure_at_end: 'nominal',
        ended: 'nominal',
      },
    };
    expect(checkDeviceState(observed, 'device_state')).toEqual([]);
    expect(deviceStateLine(observed)).toMatch(
      /^pressure nominal -> serious -> fair; drift probe sustained speed .*; cooldown 2500 ms \(until nominal\)$/,
    );
  });

  it('refuses states that contradict each other', () => {
    const lines = (state: DeviceState) => checkDeviceState(state, 'device_state').map((p) => `${p.path}: ${p.message}`);
    expect(
      lines({ pressure: { ...pressureNotAvailable('x'), before: 'nominal' }, drift_probe: probe, cooldown: null }),
    ).toEqual(['device_state.pressure: holds states although pressure is not available']);
    expect(
      lines({
        pressure: {
          status: 'observed',
          source: 'cpu',
          reason: null,
          before: 'fair',
          changes: [
            { state: 'fair', at_ms: 5 },
            { state: 'serious', at_ms: 3 },
          ],
          after: 'nominal',
        },
        drift_probe: probe,
        cooldown: null,
      }),
    ).toEqual([
      'device_state.pressure.changes[0]: is no change (the state was already fair)',
      'device_state.pressure.changes[1].at_ms: goes back in time',
      'device_state.pressure.after: is nominal, the last state reported was serious',
    ]);
    expect(
      lines({
        pressure: pressureNotAvailable('x'),
        drift_probe: { ...probe, slowed_beyond_bound: true },
        cooldown: null,
      }),
    ).toEqual(['device_state.drift_probe.trend: does not match the trend recomputed from the probe times']);
    expect(
      lines({
        pressure: pressureNotAvailable('x'),
        drift_probe: probe,
        cooldown: {
          rule: { min_pause_ms: 3000, wait_for_nominal_ms: 5000 },
          since_previous_ms: 100,
          waited_ms: 500,
          nominal_wait_ms: 0,
          pressure_at_end: null,
          ended: 'limit',
        },
      }),
    ).toEqual([
      'device_state.cooldown.ended: says the limit was reached before the declared wait for nominal ran out',
      'device_state.cooldown.waited_ms: the run started 600 ms after the previous one, under the declared 3000',
    ]);
  });

  it('flags a run that started under serious or critical pressure, or slowed beyond its bound', () => {
    expect(deviceStateFlags(undefined)).toEqual({
      started_under_pressure: null,
      peak_pressure: null,
      drift_beyond_bound: false,
    });
    const slowed = driftProbeRecord(
      Array.from({ length: 10 }, (_, i) => 2 + i * 0.1),
      { context: 'page', placement: 'between-rounds' },
    );
    expect(
      deviceStateFlags({
        pressure: {
          status: 'observed',
          source: 'cpu',
          reason: null,
          before: 'critical',
          changes: [{ state: 'fair', at_ms: 1 }],
          after: 'fair',
        },
        drift_probe: slowed,
        cooldown: null,
      }),
    ).toEqual({ started_under_pressure: 'critical', peak_pressure: 'critical', drift_beyond_bound: true });
    expect(
      deviceStateFlags({
        pressure: {
          status: 'observed',
          source: 'cpu',
          reason: null,
          before: 'nominal',
          changes: [{ state: 'serious', at_ms: 1 }],
          after: 'serious',
        },
        drift_probe: probe,
        cooldown: null,
      }),
    ).toEqual({ started_under_pressure: null, peak_pressure: 'serious', drift_beyond_bound: false });
  });
});
