/**
 * When a comparison stops: the declared stopping rule, the interval of every compared route after every round, and
 * why the rounds stopped. Modelled on tachometer's auto-sampling (github.com/google/tachometer, "Auto sampling":
 * keep drawing samples until each confidence interval lies unambiguously on one side of every target, or a timeout
 * expires), with the comparison's own interval: the paired percentile bootstrap of the ratio of medians from the
 * statistics module (src/core/stats/intervals.ts `bootstrapRatioOfMedians`, declared seed), recomputed here over
 * the rounds so far.
 *
 * Looking after every round and stopping at the first 95% interval that decides would not be a 95% rule: each look is
 * another chance for noise to decide (`npm run bench -- stopping`: of 200 seeded A/A runs at a 10% tie zone under
 * heavy noise, 5% stopped "clear"; 1% with the looks below). So the rule looks only at planned rounds, `min_rounds` and
 * then each time the rounds have grown by `look_growth` (rounded up), and at `max_rounds`, plus the round where the
 * time budget runs out; each look's interval is at the level 1 - 0.05 / L, for the L looks the rule may make
 * (Bonferroni over the looks: with 95% probability every interval the rule reads holds the true ratio, so one is
 * wrong at most 5% of the time, however many rounds run; as group-sequential designs do, cf. Jennison and Turnbull,
 * "Group Sequential Methods", 2000, ch. 1, 7). A fixed rule looks once, at its last round: a plain 95% interval. Rounds between looks record the ratio
 * so far and no interval.
 *
 * The rule (`until-clear`): at a look, a compared route is decided when its interval
 * - lies clear of the tie zone [1 / (1 + tie_zone), 1 + tie_zone]: `clear` (faster or slower by more than the zone);
 * - lies inside the tie zone: `tie` (whatever the difference is, it is smaller than the zone);
 * - is narrower than the declared width (high / low <= 1 + max_width) while touching an edge of the zone: `narrow`
 *   (precise enough; the difference is about the size of the zone).
 * The rounds stop when every compared route is decided at a look, or when `max_rounds` rounds have run or
 * `max_time_ms` has passed since the timed rounds began (`budget-spent`, with which budget). A `fixed` rule runs exactly `max_rounds`
 * rounds (the decisions are still recorded). The trace is deterministic given the samples and the times, so
 * `checkStopping` recomputes it from the receipt's samples.
 */
import { z } from 'zod';
import { Identifier } from '../text/bounded-text.ts';
import { bootstrapRatioOfMedians, ratioOfMedians } from '../stats/intervals.ts';
import { threeSignificant } from '../text/format-number.ts';
import { decide, isLook, lookLevel, RouteDecision, ruleProblem, StoppingRule, tieZone } from './stopping-rule-spec.ts';

export * from './stopping-rule-spec.ts';

/** Why the rounds stopped. */
export const StopReason = z.enum([
  'clear',
  'tie',
  'narrow',
  'decided',
  'budget-spent',
  'fixed-rounds',
  'nothing-to-compare',
  'route-failed',
  'cancelled',
]);
export type StopReason = z.infer<typeof StopReason>;

/** One round of the trace: every compared route's ratio, interval and decision after it. */
export const StoppingRound = z.strictObject({
  round: z.number().int().positive(),
  /** Time from the start of the timed rounds to the end of this round, ms (page clock). */
  elapsed_ms: z.number().finite().nonnegative(),
  /** Whether the rule read the intervals after this round (a planned look, or the time budget ran out). */
  look: z.boolean(),
  routes: z.array(
    z.strictObject({
      route_id: Identifier,
      /** median(route) / median(baseline) over the rounds so far; null with a zero sample. */
      ratio: z.number().finite().positive().nullable(),
      /** The interval at the rule's look level (`look_level`); null between looks or with a zero sample. */
      low: z.number().finite().nullable(),
      high: z.number().finite().nullable(),
      decision: RouteDecision,
    }),
  ),
});
export type StoppingRound = z.infer<typeof StoppingRound>;

/** The stopping section of a comparison receipt (and of each sweep point). */
export const Stopping = z.strictObject({
  rule: StoppingRule,
  /** The level of every look's interval, 1 - 0.05 / looks (`lookLevel`): 95% over all the looks together. */
  look_level: z.number().gt(0).lt(1),
  /** Every round that ran, in order. */
  rounds: z.array(StoppingRound).max(200),
  reason: StopReason,
  /** With `budget-spent`: which budget ran out; null otherwise. */
  budget: z.enum(['rounds', 'time']).nullable(),
});
export type Stopping = z.infer<typeof Stopping>;

/** Samples of one route in round order (the first k are the first k rounds). */
export interface RouteSeries {
  id: string;
  samples_ms: readonly number[];
}

/**
 * The trace entry after round `k`: every compared route (not the baseline, and only routes that ran every round so
 * far) with its ratio over its first k rounds, and at a look the interval paired with the baseline's at the rule's
 * look level and its decision (open before the minimum rounds).
 * @param series every route's samples in round order
 * @param baselineId the baseline route
 * @param k the round just finished (1-based)
 * @param elapsedMs time since the timed rounds began
 * @param rule the declared rule
 */
export function roundEntry(
  series: readonly RouteSeries[],
  baselineId: string,
  k: number,
  elapsedMs: number,
  rule: StoppingRule,
): StoppingRound {
  const baseline = series.find((s) => s.id === baselineId);
  const look = isLook(rule, k, elapsedMs);
  const routes: StoppingRound['routes'] = [];
  if (baseline && baseline.samples_ms.length >= k) {
    const base = baseline.samples_ms.slice(0, k);
    for (const s of series) {
      if (s.id === baselineId || s.samples_ms.length < k) continue;
      const samples = s.samples_ms.slice(0, k);
      if (!look) {
        routes.push({ route_id: s.id, ratio: ratioOfMedians(base, samples), low: null, high: null, decision: 'open' });
        continue;
      }
      const result = bootstrapRatioOfMedians(base, samples, { paired: true, level: lookLevel(rule) });
      const interval = result?.interval ?? null;
      routes.push({
        route_id: s.id,
        ratio: result?.estimate ?? null,
        low: interval?.low ?? null,
        high: interval?.high ?? null,
        decision: k >= rule.min_rounds ? decide(interval, rule) : 'open',
      });
    }
  }
  return { round: k, elapsed_ms: elapsedMs, look, routes };
}

/**
 * Whether to stop after a round, and why (null: go on).
 * @param entry the round's trace entry
 * @param rule the declared rule
 */
export function stopAfter(entry: StoppingRound, rule: StoppingRule): Pick<Stopping, 'reason' | 'budget'> | null {
  // A fixed rule runs its rounds whatever happens (as comparisons always did); an until-clear rule stops when the
  // baseline or every other route has failed, since no round can decide anything any more.
  if (rule.kind === 'fixed') return entry.round >= rule.max_rounds ? { reason: 'fixed-rounds', budget: null } : null;
  if (entry.routes.length === 0) return { reason: 'nothing-to-compare', budget: null };
  const decisions = new Set(entry.routes.map((r) => r.decision));
  if (entry.round >= rule.min_rounds && !decisions.has('open')) {
    return {
      reason: decisions.size === 1 ? ([...decisions][0] as 'clear' | 'tie' | 'narrow') : 'decided',
      budget: null,
    };
  }
  if (entry.round >= rule.max_rounds) return { reason: 'budget-spent', budget: 'rounds' };
  if (rule.max_time_ms !== null && entry.elapsed_ms >= rule.max_time_ms)
    return { reason: 'budget-spent', budget: 'time' };
  return null;
}

/** One broken rule of a stopping section (path relative to the receipt). */
export interface StoppingProblem {
  path: string;
  message: string;
}

/**
 * Recomputes the trace from the samples and the recorded times, and checks that the rounds stopped where the rule
 * says, for the reason it says.
 * @param stopping the receipt's stopping section
 * @param series every route's samples in round order
 * @param baselineId the baseline route
 * @param roundsRun the rounds the schedule says ran
 * @param cut what cut the rounds short, when something did (a cancel, or a sweep's route failing): they may then stop
 *   anywhere, with that reason; null when only the rule could stop them
 * @param at the section's path, e.g. `stopping`
 */
export function checkStopping(
  stopping: Stopping,
  series: readonly RouteSeries[],
  baselineId: string,
  roundsRun: number,
  cut: 'cancelled' | 'route-failed' | null,
  at: string,
): StoppingProblem[] {
  const cancelled = cut !== null;
  const problems: StoppingProblem[] = [];
  const rule = stopping.rule;
  const bad = ruleProblem(rule);
  if (bad !== null) problems.push({ path: `${at}.rule`, message: bad });
  if (!close(stopping.look_level, lookLevel(rule)))
    problems.push({
      path: `${at}.look_level`,
      message: `is ${stopping.look_level}, the rule's looks give ${lookLevel(rule)}`,
    });
  // A cancel may stop a round half-way: the schedule counts it, the trace holds the rounds that finished.
  if (stopping.rounds.length !== roundsRun && !(cancelled && stopping.rounds.length <= roundsRun)) {
    problems.push({
      path: `${at}.rounds`,
      message: `records ${stopping.rounds.length} rounds, the schedule ran ${roundsRun}`,
    });
    return problems;
  }
  if (roundsRun > rule.max_rounds)
    problems.push({ path: `${at}.rounds`, message: `ran ${roundsRun} rounds, over the budget of ${rule.max_rounds}` });
  let previousElapsed = 0;
  for (let k = 1; k <= stopping.rounds.length; k++) {
    const recorded = stopping.rounds[k - 1];
    const path = `${at}.rounds[${k - 1}]`;
    if (recorded.round !== k) problems.push({ path: `${path}.round`, message: `is ${recorded.round}, expected ${k}` });
    if (recorded.elapsed_ms < previousElapsed)
      problems.push({ path: `${path}.elapsed_ms`, message: 'goes back in time' });
    previousElapsed = recorded.elapsed_ms;
    const expected = roundEntry(series, baselineId, k, recorded.elapsed_ms, rule);
    if (!sameRound(expected, recorded)) {
      problems.push({
        path,
        message: 'does not match the intervals and decisions recomputed from the samples of the rounds so far',
      });
      return problems;
    }
    const stop = stopAfter(expected, rule);
    const last = k === stopping.rounds.length;
    if (!last && stop !== null && !cancelled) {
      problems.push({ path, message: `the rule stops here (${stop.reason}), but more rounds ran` });
      return problems;
    }
    if (last) {
      if (cancelled && stop === null) {
        if (stopping.reason !== cut)
          problems.push({
            path: `${at}.reason`,
            message: `is ${stopping.reason}, but the rounds were cut short (${cut})`,
          });
      } else if (stop === null) {
        problems.push({
          path: `${at}.reason`,
          message: `is ${stopping.reason}, but the rule does not stop after round ${k}`,
        });
      } else if (stop.reason !== stopping.reason || stop.budget !== stopping.budget) {
        problems.push({
          path: `${at}.reason`,
          message: `is ${stopping.reason}${stopping.budget ? ` (${stopping.budget})` : ''}, the rule gives ${stop.reason}${stop.budget ? ` (${stop.budget})` : ''}`,
        });
      }
    }
  }
  if (stopping.rounds.length === 0 && stopping.reason !== cut && stopping.reason !== 'nothing-to-compare') {
    problems.push({ path: `${at}.reason`, message: `is ${stopping.reason}, but no round ran` });
  }
  if ((stopping.reason === 'budget-spent') !== (stopping.budget !== null)) {
    problems.push({ path: `${at}.budget`, message: 'names a budget exactly when the reason is budget-spent' });
  }
  return problems;
}

function close(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

function sameRound(a: StoppingRound, b: StoppingRound): boolean {
  return (
    a.look === b.look &&
    a.routes.length === b.routes.length &&
    a.routes.every((r, i) => {
      const o = b.routes[i];
      return (
        r.route_id === o.route_id &&
        r.decision === o.decision &&
        close(r.ratio, o.ratio) &&
        close(r.low, o.low) &&
        close(r.high, o.high)
      );
    })
  );
}

/**
 * Why the rounds stopped, in one sentence for people, e.g. "stopped after 15 of at most 100 rounds: clear (wasm-2:
 * 0.612x, 99.4% interval 0.588 to 0.640, outside the tie zone 0.952 to 1.05)", with each look's level (95% over all
 * the looks together). Route ids are given as they are: the
 * caller escapes for Markdown or HTML.
 * @param stopping the stopping section
 */
export function stoppingSentence(stopping: Stopping): string {
  const rule = stopping.rule;
  const zone = tieZone(rule);
  const zoneText = `${threeSignificant(zone.low)} to ${threeSignificant(zone.high)}`;
  const last = stopping.rounds.at(-1);
  const n = stopping.rounds.length;
  const level = `${threeSignificant(stopping.look_level * 100)}%`;
  const routeText = (last?.routes ?? [])
    .map((r) => {
      const interval =
        r.low === null || r.high === null
          ? last?.look
            ? 'no interval'
            : 'no interval (not a look)'
          : `${level} interval ${threeSignificant(r.low)} to ${threeSignificant(r.high)}`;
      const where =
        r.decision === 'clear'
          ? `outside the tie zone ${zoneText}`
          : r.decision === 'tie'
            ? `inside the tie zone ${zoneText}`
            : r.decision === 'narrow'
              ? `narrower than ${threeSignificant(1 + rule.max_width)}x, at the edge of the tie zone ${zoneText}`
              : 'still open';
      return `${r.route_id}: ${r.ratio === null ? 'no ratio' : `${threeSignificant(r.ratio)}x`}, ${interval}, ${where}`;
    })
    .join('; ');
  const detail = routeText === '' ? '' : ` (${routeText})`;
  switch (stopping.reason) {
    case 'clear':
      return `stopped after ${n} of at most ${rule.max_rounds} rounds: clear${detail}`;
    case 'tie':
      return `stopped after ${n} of at most ${rule.max_rounds} rounds: a tie within the zone${detail}`;
    case 'narrow':
      return `stopped after ${n} of at most ${rule.max_rounds} rounds: the interval is narrow, at the edge of the tie zone${detail}`;
    case 'decided':
      return `stopped after ${n} of at most ${rule.max_rounds} rounds: every route decided${detail}`;
    case 'budget-spent':
      return stopping.budget === 'time'
        ? `budget spent: the time budget of ${Math.round((rule.max_time_ms ?? 0) / 1000)} s ran out after ${n} rounds${detail}`
        : `budget spent: all ${n} rounds of the budget ran${detail}`;
    case 'fixed-rounds':
      return `ran the fixed ${n} rounds${detail}`;
    case 'nothing-to-compare':
      return `stopped after ${n} rounds: nothing left to compare (the baseline or every other route failed)`;
    case 'route-failed':
      return `stopped after ${n} rounds: a route failed`;
    case 'cancelled':
      return `cancelled after ${n} rounds${detail}`;
  }
}

/**
 * Follows a comparison round by round under a rule: after each round, `afterRound` records the trace entry and says
 * whether to stop; `result` gives the stopping section. The page's controllers use it, and the tests drive it with
 * seeded samples, so both apply the rule the same way.
 */
export class StoppingTracker {
  private readonly rounds: StoppingRound[] = [];
  private stopped: Pick<Stopping, 'reason' | 'budget'> | null = null;

  /**
   * @param rule the declared rule (refused when `ruleProblem` finds it unsound)
   * @param baselineId the baseline route
   */
  constructor(
    readonly rule: StoppingRule,
    private readonly baselineId: string,
  ) {
    const bad = ruleProblem(rule);
    if (bad !== null) throw new RangeError(`stopping rule: ${bad}`);
  }

  /**
   * Records the round just finished and says whether the rule stops here.
   * @param series every route's samples so far, in round order
   * @param elapsedMs time since the timed rounds began
   * @returns the reason to stop, or null to run another round
   */
  afterRound(series: readonly RouteSeries[], elapsedMs: number): Pick<Stopping, 'reason' | 'budget'> | null {
    if (this.stopped !== null) throw new Error('the rule has already stopped');
    const entry = roundEntry(series, this.baselineId, this.rounds.length + 1, elapsedMs, this.rule);
    this.rounds.push(entry);
    this.stopped = stopAfter(entry, this.rule);
    return this.stopped;
  }

  /** The rounds recorded so far. */
  get roundsDone(): number {
    return this.rounds.length;
  }

  /** The last round recorded (null before the first). */
  get lastRound(): StoppingRound | null {
    return this.rounds.at(-1) ?? null;
  }

  /**
   * The stopping section.
   * @param cut what cut the rounds short before the rule stopped them (a cancel; a sweep's route failing), if anything
   */
  result(cut: 'cancelled' | 'route-failed' | null = null): Stopping {
    const stop = cut !== null && this.stopped === null ? { reason: cut, budget: null } : this.stopped;
    if (stop === null) throw new Error('the rule has not stopped yet');
    return {
      rule: { ...this.rule },
      look_level: lookLevel(this.rule),
      rounds: this.rounds.map((r) => ({ ...r, routes: r.routes.map((x) => ({ ...x })) })),
      reason: stop.reason,
      budget: stop.budget,
    };
  }
}
