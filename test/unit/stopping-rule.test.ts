/**
 * The comparison's stopping rule (src/core/comparison/stopping-rule.ts), driven round by round with seeded synthetic
 * samples (mulberry32; each round shares a drift factor, as interleaved routes do): two identical routes stop early
 * as a tie, clearly different routes stop early as clear, a small budget stops as "budget spent" with its interval,
 * the time budget, a fixed rule, the planned looks and their level (two identical routes under heavy noise stop
 * "clear" in at most 5% of seeded runs), and the
 * trace recomputed and checked by the invariants (a receipt that stopped late, early, or for another reason is
 * refused).
 */
import { describe, expect, it } from 'vitest';
import {
  checkStopping,
  decide,
  DEFAULT_STOPPING_RULE,
  fixedRule,
  isLook,
  lookLevel,
  plannedLooks,
  roundEntry,
  ruleProblem,
  StoppingTracker,
  stoppingSentence,
  tieZone,
  type RouteSeries,
  type Stopping,
  type StoppingRule,
} from '../../src/core/comparison/stopping-rule.ts';
import { bootstrapRatioOfMedians } from '../../src/core/stats/intervals.ts';
import { mulberry32 } from '../../src/core/stats/mulberry32.ts';

/** Runs the rule on synthetic routes: `speeds[i]` scales route i's time; noise is per sample, drift per round. */
function simulate(
  rule: StoppingRule,
  speeds: number[],
  options: { noise?: number; seed?: number; roundMs?: number; spikes?: number } = {},
) {
  const random = mulberry32(options.seed ?? 7);
  const noise = options.noise ?? 0.04;
  const spikes = options.spikes ?? 0;
  const ids = speeds.map((_, i) => (i === 0 ? 'a' : `r${i}`));
  const series: Array<{ id: string; samples_ms: number[] }> = ids.map((id) => ({ id, samples_ms: [] }));
  const tracker = new StoppingTracker(rule, 'a');
  let elapsed = 0;
  for (;;) {
    const drift = 1 + 0.2 * Math.sin(tracker.roundsDone / 3);
    speeds.forEach((speed, i) => {
      // A spike: a run the machine slowed down by up to 4x (a collection, another process), as loaded machines do.
      const spike = random() < spikes ? 1 + 3 * random() : 1;
      series[i].samples_ms.push(10 * speed * drift * spike * (1 + noise * (random() * 2 - 1)));
    });
    elapsed += options.roundMs ?? 100;
    const stop = tracker.afterRound(series, elapsed);
    if (stop !== null) return { stopping: tracker.result(), series };
  }
}

describe('the stopping rule', () => {
  it('decides an interval against the tie zone and the width', () => {
    const rule = { ...DEFAULT_STOPPING_RULE, tie_zone: 0.05, max_width: 0.05 };
    expect(tieZone(rule).low).toBeCloseTo(1 / 1.05, 12);
    expect(decide({ low: 0.5, high: 0.6 }, rule)).toBe('clear');
    expect(decide({ low: 1.2, high: 1.5 }, rule)).toBe('clear');
    expect(decide({ low: 0.97, high: 1.03 }, rule)).toBe('tie');
    // Straddles the zone's upper edge, but narrower than 1.05x: precise enough.
    expect(decide({ low: 1.03, high: 1.07 }, rule)).toBe('narrow');
    // Wide and straddling 1: open.
    expect(decide({ low: 0.8, high: 1.3 }, rule)).toBe('open');
    expect(decide(null, rule)).toBe('open');
  });

  it('two identical routes stop early as a tie, and say why', () => {
    const { stopping, series } = simulate(DEFAULT_STOPPING_RULE, [1, 1]);
    expect(stopping.reason).toBe('tie');
    expect(stopping.budget).toBeNull();
    expect(stopping.rounds.length).toBeGreaterThanOrEqual(DEFAULT_STOPPING_RULE.min_rounds);
    expect(stopping.rounds.length).toBeLessThan(DEFAULT_STOPPING_RULE.max_rounds);
    const last = stopping.rounds.at(-1)!.routes[0];
    expect(last.decision).toBe('tie');
    // It stopped at a planned look, and the recorded interval is the statistics module's paired bootstrap over every
    // round at the look level, not a re-implementation.
    expect(plannedLooks(DEFAULT_STOPPING_RULE)).toContain(stopping.rounds.length);
    expect(stopping.look_level).toBe(lookLevel(DEFAULT_STOPPING_RULE));
    const again = bootstrapRatioOfMedians(series[0].samples_ms, series[1].samples_ms, {
      paired: true,
      level: stopping.look_level,
    })!;
    expect(last.low).toBe(again.interval.low);
    expect(last.high).toBe(again.interval.high);
    expect(stoppingSentence(stopping)).toMatch(
      /^stopped after \d+ of at most 100 rounds: a tie within the zone \(r1: [\d.]+x, 99\.4% interval [\d.]+ to [\d.]+, inside the tie zone 0\.952 to 1\.05\)$/,
    );
    expect(checkStopping(stopping, series, 'a', stopping.rounds.length, null, 'stopping')).toEqual([]);
  });

  it('clearly different speeds stop early as clear, at the minimum rounds', () => {
    const { stopping, series } = simulate(DEFAULT_STOPPING_RULE, [1, 0.5]);
    expect(stopping.reason).toBe('clear');
    expect(stopping.rounds).toHaveLength(DEFAULT_STOPPING_RULE.min_rounds);
    // Before the minimum no route is decided, whatever its interval.
    expect(stopping.rounds.slice(0, -1).every((r) => r.routes.every((x) => x.decision === 'open'))).toBe(true);
    expect(stopping.rounds.at(-1)!.routes[0].high!).toBeLessThan(1 / 1.05);
    expect(stoppingSentence(stopping)).toMatch(
      /^stopped after 10 of at most 100 rounds: clear \(r1: 0\.\d+x, 99\.4% interval .* outside the tie zone/,
    );
    expect(checkStopping(stopping, series, 'a', 10, null, 'stopping')).toEqual([]);
  });

  it('a budget-limited run says "budget spent" with its interval', () => {
    const rule: StoppingRule = { ...DEFAULT_STOPPING_RULE, min_rounds: 3, max_rounds: 4 };
    const { stopping, series } = simulate(rule, [1, 1.02], { noise: 0.5 });
    expect(stopping).toMatchObject({ reason: 'budget-spent', budget: 'rounds' });
    expect(stopping.rounds).toHaveLength(4);
    const last = stopping.rounds.at(-1)!.routes[0];
    expect(last.decision).toBe('open');
    expect(last.low).not.toBeNull();
    expect(stoppingSentence(stopping)).toMatch(
      /^budget spent: all 4 rounds of the budget ran \(r1: [\d.]+x, 98\.3% interval [\d.]+ to [\d.]+, still open\)$/,
    );
    expect(checkStopping(stopping, series, 'a', 4, null, 'stopping')).toEqual([]);
  });

  it('the time budget stops the rounds and says so', () => {
    const rule: StoppingRule = { ...DEFAULT_STOPPING_RULE, min_rounds: 3, max_time_ms: 450 };
    const { stopping } = simulate(rule, [1, 1.02], { noise: 0.5, roundMs: 100 });
    expect(stopping).toMatchObject({ reason: 'budget-spent', budget: 'time' });
    expect(stopping.rounds).toHaveLength(5);
    // Round 5 is no planned look (3, 5 is; 3, then 5 = ceil(3 x 1.5)): it is, here, also where the time ran out.
    expect(stopping.rounds.map((r) => r.look)).toEqual([false, false, true, false, true]);
    expect(stoppingSentence(stopping)).toMatch(/^budget spent: the time budget of 0 s ran out after 5 rounds/);
    // A round where the time ran out is a look even when no look was planned there.
    expect(isLook(rule, 4, 449)).toBe(false);
    expect(isLook(rule, 4, 450)).toBe(true);
  });

  it('looks at planned rounds only, each at the level that keeps all the looks together at 95%', () => {
    // min 10, then x1.5 rounded up, and the budget's last round; a time budget may add one look.
    expect(plannedLooks(DEFAULT_STOPPING_RULE)).toEqual([10, 15, 23, 35, 53, 80, 100]);
    expect(lookLevel(DEFAULT_STOPPING_RULE)).toBeCloseTo(1 - 0.05 / 8, 12);
    expect(lookLevel({ ...DEFAULT_STOPPING_RULE, max_time_ms: null })).toBeCloseTo(1 - 0.05 / 7, 12);
    // Growth below one round still moves on by a round; a fixed rule looks once, at a plain 95%.
    expect(plannedLooks({ ...DEFAULT_STOPPING_RULE, min_rounds: 2, max_rounds: 6, look_growth: 1.1 })).toEqual([
      2, 3, 4, 5, 6,
    ]);
    expect(plannedLooks(fixedRule(12))).toEqual([12]);
    expect(lookLevel(fixedRule(12))).toBe(0.95);
    // Between looks a round records the ratio so far, no interval, and no decision.
    const { stopping } = simulate(DEFAULT_STOPPING_RULE, [1, 1]);
    for (const round of stopping.rounds) {
      expect(round.look).toBe(plannedLooks(DEFAULT_STOPPING_RULE).includes(round.round));
      if (!round.look) expect(round.routes[0]).toMatchObject({ low: null, high: null, decision: 'open' });
      expect(round.routes[0].ratio).toBeGreaterThan(0);
    }
  });

  it('two identical routes under heavy noise stop "clear" in at most 5% of seeded runs', () => {
    // Heavy noise: +-30% per run and one run in ten slowed by up to 4x. The rule promises at most 5% wrong stops
    // over all its looks together (bench/stopping.bench.ts contrasts it with reading a 95% interval every round).
    const rule: StoppingRule = { ...DEFAULT_STOPPING_RULE, min_rounds: 6, max_rounds: 120, tie_zone: 0.1 };
    const runs = 100;
    const reasons = new Map<string, number>();
    for (let seed = 1; seed <= runs; seed++) {
      const { reason } = simulate(rule, [1, 1], { noise: 0.3, spikes: 0.1, seed, roundMs: 0 }).stopping;
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
    expect((reasons.get('clear') ?? 0) / runs).toBeLessThanOrEqual(0.05);
    // The others say so honestly: a tie, or the budget spent (this much noise rarely settles in 120 rounds).
    expect([...reasons.keys()].every((r) => ['clear', 'tie', 'budget-spent'].includes(r))).toBe(true);
  });

  it('a fixed rule runs all its rounds, and still records the decisions', () => {
    const { stopping } = simulate(fixedRule(12), [1, 0.5]);
    expect(stopping.reason).toBe('fixed-rounds');
    expect(stopping.rounds).toHaveLength(12);
    expect(stopping.rounds.at(-1)!.routes[0].decision).toBe('clear');
  });

  it('every route must be decided; mixed decisions stop as "decided"', () => {
    const { stopping } = simulate(DEFAULT_STOPPING_RULE, [1, 0.5, 1]);
    expect(stopping.reason).toBe('decided');
    expect(stopping.rounds.at(-1)!.routes.map((r) => r.decision)).toEqual(['clear', 'tie']);
  });

  it('stops with nothing to compare when the baseline stopped producing samples', () => {
    const tracker = new StoppingTracker(DEFAULT_STOPPING_RULE, 'a');
    const series: RouteSeries[] = [
      { id: 'a', samples_ms: [] },
      { id: 'b', samples_ms: [5] },
    ];
    expect(tracker.afterRound(series, 10)).toEqual({ reason: 'nothing-to-compare', budget: null });
  });

  it('refuses unsound rules', () => {
    expect(ruleProblem({ ...DEFAULT_STOPPING_RULE, min_rounds: 20, max_rounds: 10 })).toMatch(/above max_rounds/);
    expect(ruleProblem({ ...DEFAULT_STOPPING_RULE, min_rounds: 1 })).toMatch(/at least 2 rounds/);
    expect(() => new StoppingTracker({ ...DEFAULT_STOPPING_RULE, min_rounds: 1 }, 'a')).toThrow(RangeError);
  });

  it('the invariants refuse a trace that stopped late, early, or for another reason', () => {
    const { stopping, series } = simulate(DEFAULT_STOPPING_RULE, [1, 0.5]);
    const n = stopping.rounds.length;
    // One more round than the rule allows.
    const longerSeries = series.map((s) => ({ id: s.id, samples_ms: [...s.samples_ms, s.samples_ms[0]] }));
    const late: Stopping = {
      ...stopping,
      rounds: [...stopping.rounds, roundEntry(longerSeries, 'a', n + 1, 5000, DEFAULT_STOPPING_RULE)],
    };
    expect(checkStopping(late, longerSeries, 'a', n + 1, null, 'stopping')[0].message).toMatch(
      /the rule stops here \(clear\), but more rounds ran/,
    );
    // Another reason.
    expect(checkStopping({ ...stopping, reason: 'tie' }, series, 'a', n, null, 'stopping')[0]).toEqual({
      path: 'stopping.reason',
      message: 'is tie, the rule gives clear',
    });
    // A forged interval, at a look and between looks; a round said to be a look that is none; a forged level.
    for (const index of [n - 1, 3]) {
      const forged = structuredClone(stopping);
      forged.rounds[index].routes[0].high = 0.99;
      expect(checkStopping(forged, series, 'a', n, null, 'stopping')[0].path).toBe(`stopping.rounds[${index}]`);
    }
    const notALook = structuredClone(stopping);
    notALook.rounds[3].look = true;
    expect(checkStopping(notALook, series, 'a', n, null, 'stopping')[0].path).toBe('stopping.rounds[3]');
    expect(checkStopping({ ...stopping, look_level: 0.95 }, series, 'a', n, null, 'stopping')[0]).toEqual({
      path: 'stopping.look_level',
      message: `is 0.95, the rule's looks give ${lookLevel(DEFAULT_STOPPING_RULE)}`,
    });
    // Rounds that do not match the schedule.
    expect(checkStopping(stopping, series, 'a', n + 2, null, 'stopping')[0].message).toMatch(/the schedule ran/);
    // Stopped before the rule says (a cancel may, nothing else).
    const early: Stopping = { ...stopping, rounds: stopping.rounds.slice(0, 5), reason: 'clear' };
    const earlySeries = series.map((s) => ({ id: s.id, samples_ms: s.samples_ms.slice(0, 5) }));
    expect(checkStopping(early, earlySeries, 'a', 5, null, 'stopping')[0].message).toMatch(
      /does not stop after round 5/,
    );
    expect(checkStopping({ ...early, reason: 'cancelled' }, earlySeries, 'a', 5, 'cancelled', 'stopping')).toEqual([]);
  });
});
