/**
 * The stopping rule as a comparison declares it: its fields and defaults, its planned looks and their confidence
 * level, and what one interval decides. Light on purpose (no statistics): the page's URL parameters are checked
 * against it before the first paint. The trace of the rounds, the invariants and the tracker are in
 * stopping-rule.ts, which re-exports all of this; the reasons for the looks are given there.
 */
import { z } from 'zod';

/** The declared rule. */
export const StoppingRule = z.strictObject({
  /** `until-clear`: stop early once every compared route is decided; `fixed`: always run `max_rounds` rounds. */
  kind: z.enum(['until-clear', 'fixed']),
  /** No early stop before this many rounds (at least 2: one round gives no spread). */
  min_rounds: z.number().int().min(1).max(200),
  /** The rounds budget. */
  max_rounds: z.number().int().min(1).max(200),
  /** The time budget for the timed rounds, ms (null: none). Checked after each round. */
  max_time_ms: z.number().int().positive().max(3_600_000).nullable(),
  /** Half-width of the tie zone on the ratio scale: [1 / (1 + tie_zone), 1 + tie_zone]. */
  tie_zone: z.number().gt(0).lt(1),
  /** An interval with high / low <= 1 + max_width is narrow enough to stop. */
  max_width: z.number().gt(0).max(10),
  /** After `min_rounds`, the next look comes when the rounds have grown by this factor (rounded up, at least one). */
  look_growth: z.number().min(1.1).max(4),
});
export type StoppingRule = z.infer<typeof StoppingRule>;

/** The defaults: tachometer's auto-sampling with a 5% target on each side, fewer minimum rounds than its 50 samples
 *  (a route is a whole model run on a phone), and its 3-minute timeout. */
export const DEFAULT_STOPPING_RULE: Readonly<StoppingRule> = Object.freeze({
  kind: 'until-clear',
  min_rounds: 10,
  max_rounds: 100,
  max_time_ms: 180_000,
  tie_zone: 0.05,
  max_width: 0.05,
  look_growth: 1.5,
});

/**
 * A fixed rule: exactly `rounds` rounds (how comparisons ran before the rule existed), with the default zone and width
 * for the recorded decisions.
 * @param rounds the rounds to run
 */
export function fixedRule(rounds: number): StoppingRule {
  return { ...DEFAULT_STOPPING_RULE, kind: 'fixed', min_rounds: rounds, max_rounds: rounds, max_time_ms: null };
}

/** The error the rule allows over all its looks together: its intervals are 95% simultaneously. */
export const FAMILY_ERROR = 0.05;

/**
 * The rounds after which the rule reads the intervals, when no time budget cuts it short: a fixed rule only its last;
 * an until-clear rule `min_rounds`, then each time the rounds have grown by `look_growth` (rounded up), and
 * `max_rounds`.
 * @param rule the declared rule
 */
export function plannedLooks(rule: StoppingRule): number[] {
  if (rule.kind === 'fixed') return [rule.max_rounds];
  const looks: number[] = [];
  for (let r = rule.min_rounds; r < rule.max_rounds; r = Math.max(r + 1, Math.ceil(r * rule.look_growth - 1e-9)))
    looks.push(r);
  looks.push(rule.max_rounds);
  return looks;
}

/**
 * The confidence level of each look's interval: 1 - 0.05 / L, where L counts the planned looks and, with a time
 * budget, the one look its running out may add.
 * @param rule the declared rule
 */
export function lookLevel(rule: StoppingRule): number {
  const looks = plannedLooks(rule).length + (rule.kind === 'until-clear' && rule.max_time_ms !== null ? 1 : 0);
  return 1 - FAMILY_ERROR / looks;
}

/** What a route's interval says after a round. `open`: not decided (no look, or before the minimum rounds). */
export const RouteDecision = z.enum(['clear', 'tie', 'narrow', 'open']);
export type RouteDecision = z.infer<typeof RouteDecision>;

/** The tie zone's ends. */
export function tieZone(rule: Pick<StoppingRule, 'tie_zone'>): { low: number; high: number } {
  return { low: 1 / (1 + rule.tie_zone), high: 1 + rule.tie_zone };
}

/**
 * What one interval decides under the rule.
 * @param interval the ratio interval (null: none could be computed)
 * @param rule the declared rule
 */
export function decide(interval: { low: number; high: number } | null, rule: StoppingRule): RouteDecision {
  if (interval === null) return 'open';
  const zone = tieZone(rule);
  if (interval.high < zone.low || interval.low > zone.high) return 'clear';
  if (interval.low >= zone.low && interval.high <= zone.high) return 'tie';
  if (interval.low > 0 && interval.high / interval.low <= 1 + rule.max_width) return 'narrow';
  return 'open';
}

/**
 * Whether the rule reads the intervals after round `k`: a planned look, or the round after which the time budget is
 * spent.
 * @param rule the declared rule
 * @param k the round just finished (1-based)
 * @param elapsedMs time since the timed rounds began
 */
export function isLook(rule: StoppingRule, k: number, elapsedMs: number): boolean {
  if (plannedLooks(rule).includes(k)) return true;
  return rule.kind === 'until-clear' && rule.max_time_ms !== null && elapsedMs >= rule.max_time_ms;
}

/**
 * A rule as settings may give it, checked: null when it is sound, else what is wrong.
 * @param rule the rule
 */
export function ruleProblem(rule: StoppingRule): string | null {
  if (rule.min_rounds > rule.max_rounds)
    return `min_rounds (${rule.min_rounds}) is above max_rounds (${rule.max_rounds})`;
  if (rule.kind === 'until-clear' && rule.min_rounds < 2)
    return 'an until-clear rule needs at least 2 rounds before it may stop';
  if (rule.kind === 'fixed' && rule.min_rounds !== rule.max_rounds)
    return 'a fixed rule runs min_rounds = max_rounds rounds';
  return null;
}
