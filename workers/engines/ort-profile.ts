/**
 * Where an ORT-backed session's nodes ran (the ORT engine and transformers.js share it): sessions are created with
 * ORT's profiler on (`enableProfiling`), and after their first run `finishProfiling` ends it, capturing the profile
 * the runtime prints (runtime-observer.ts `capture`: it never reaches the console) and counting its node events per
 * execution provider (src/core/receipt/ep-placement.ts). Profiling ends with that first run, so every later run (warm
 * samples) runs unprofiled. Why the profiler and not ORT's verbose log: docs/receipt.md "Where the work ran".
 *
 * A developer can also ask for ORT's own verbose session log (`ort_log=verbose` on the page): the session is then
 * created with `logSeverityLevel: 0` under `env.logLevel = 'verbose'`, everything the runtime prints is captured,
 * and only its "Node placements" lines are printed to the console, to compare with the receipt's counts.
 */
import {
  loggedPlacements,
  profileNodeEvents,
  sessionPlacement,
  type SessionPlacement,
} from '../../src/core/receipt/ep-placement.ts';
import { capture, printLines } from '../runtime-observer.ts';

/** Whether this worker creates ORT sessions with ORT's verbose log on (set once, before the first session). */
let verboseLog = false;

/** Turns ORT's verbose session log on for this worker's sessions (`ort_log=verbose`). */
export function setOrtVerboseLog(on: boolean): void {
  verboseLog = on;
}

/** Whether ORT's verbose session log is on in this worker. */
export function ortVerboseLog(): boolean {
  return verboseLog;
}

/** The session options every ORT-backed session gets: the profiler on; the verbose log when asked for. */
export function profiledSessionOptions(): { enableProfiling: true; logSeverityLevel: 0 | 3; logVerbosityLevel: 0 } {
  return { enableProfiling: true, logSeverityLevel: verboseLog ? 0 : 3, logVerbosityLevel: 0 };
}

/** The prefix of the log lines printed for a developer (`ort_log=verbose`), so tests and people can find them. */
export const ORT_LOG_PREFIX = '[drb ort log]';

/**
 * Runs `call` (a session's creation, or a run) and, when the verbose log is on, captures what the runtime prints and
 * prints only its "Node placements" lines (prefixed); without the verbose log, `call` runs as it is.
 * @param call the call
 */
export async function withOrtLog<T>(call: () => Promise<T>): Promise<T> {
  if (!verboseLog) return call();
  const { value, lines } = await capture(call);
  const placements = lines.filter(
    (l) => /VerifyEachNodeIsAssignedToAnEp/.test(l) && !/Some nodes were not assigned/.test(l),
  );
  if (placements.length > 0) {
    const counted = loggedPlacements(placements);
    printLines([
      ...placements.map((l) => `${ORT_LOG_PREFIX} ${l}`),
      `${ORT_LOG_PREFIX} summary ${JSON.stringify([...counted.values()].map((p) => ({ provider: p.provider, nodes: p.nodes, ops: Object.fromEntries(p.ops) })))}`,
    ]);
  }
  return value;
}

/** A session whose profiling can be ended. */
export interface ProfiledSession {
  name: string;
  session: { endProfiling(): unknown };
}

/**
 * Ends profiling on every session and counts where their nodes ran. A session that ran no node during profiling
 * (transformers.js loads some it does not call for every task) is left out.
 * @param sessions the sessions, each with its name
 * @returns the placements, or null with the reason when a profile could not be read
 */
export async function finishProfiling(
  sessions: readonly ProfiledSession[],
): Promise<{ placements: SessionPlacement[] | null; problem: string | null }> {
  const placements: SessionPlacement[] = [];
  try {
    for (const { name, session } of sessions) {
      const { lines } = await capture(async () => {
        await session.endProfiling();
      });
      const events = profileNodeEvents(lines);
      if (events.length > 0) placements.push(sessionPlacement(name, events));
    }
  } catch (error) {
    return {
      placements: null,
      problem: `the runtime's profile could not be read: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  return placements.length > 0
    ? { placements, problem: null }
    : { placements: null, problem: "the runtime's profile held no node events" };
}
