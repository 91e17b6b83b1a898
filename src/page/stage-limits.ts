/**
 * Every stage's time limit, as the worker bridge (worker-bridge.ts) applies them. A module of its own so the page's
 * first script can hold the limits (page-facts.ts) without the bridge, which arrives with the run code after the
 * first paint (lazy-run-controller.ts).
 */
import type { Stage } from '../core/receipt/receipt.ts';

/** Per-stage time limits in ms. */
export type StageLimits = Record<Stage, number>;

/** Generous defaults: real models on phones can take minutes to fetch and compile. */
export const DEFAULT_STAGE_LIMITS: Readonly<StageLimits> = Object.freeze({
  probe: 30_000,
  fetch: 15 * 60_000,
  runtime_fetch: 15 * 60_000,
  session: 5 * 60_000,
  first_inference: 5 * 60_000,
  warmup: 5 * 60_000,
  warm_inference: 30 * 60_000,
});

/**
 * The stage limits a run uses.
 * @param stageTimeoutMs the automation's `stage_timeout_ms` (replaces every stage's limit); null = the defaults
 */
export function stageLimits(stageTimeoutMs: number | null): StageLimits {
  const limits: StageLimits = { ...DEFAULT_STAGE_LIMITS };
  if (stageTimeoutMs !== null) for (const key of Object.keys(limits) as Stage[]) limits[key] = stageTimeoutMs;
  return limits;
}
