/**
 * The run journal (`drb.run-journal.v1`): a tiny record the page writes to persistent storage BEFORE each stage of
 * a run and clears when the run ends. If the tab is killed (iOS evicts tabs under memory pressure) or reloaded
 * mid-run, the open entry survives; the next page load finds it, shows that the previous run was interrupted at
 * that stage, and the next receipt records it in `run.previous_run_interrupted`.
 *
 * Several tabs of the site share the journal, so it keeps one open entry per run, each tagged with its tab. At load,
 * an entry is dead (interrupted) when it belongs to this same tab (a tab shows one document at a time, so its
 * earlier document is gone) or when no live page holds its run (the caller asks the browser, see run-journal.ts);
 * a run still going in another tab is left alone.
 *
 * The journal holds identifiers and times only, never input or output text. Everything here is pure (no storage,
 * no globals): src/page/run-journal.ts is the thin storage layer. The whole journal is ONE stored value, so every
 * write replaces it at once and a crash can never leave the open runs and the pending interruption inconsistent.
 */
import { z } from 'zod';
import { firstIssueLine } from '../text/zod-issues.ts';
import {
  type ExecutionProvider,
  InterruptedRun,
  JournalStage,
  type RunKind,
  type RunMode,
} from '../receipt/receipt.ts';

export const RUN_JOURNAL_SCHEMA = 'drb.run-journal.v1';

/** At most this many open runs are kept (one per tab running one); the oldest go first. */
export const MAX_OPEN_RUNS = 16;

/** An open run: the stage it entered last, and the tab running it. Without `tab_id` it is the receipt's field. */
export const JournalEntry = InterruptedRun.extend({
  /** A random id the page keeps in sessionStorage: the same for every document this tab shows. */
  tab_id: z.string().min(1),
});
export type JournalEntry = z.infer<typeof JournalEntry>;
export type { InterruptedRun };

/** The stored journal. */
export const RunJournal = z.strictObject({
  schema: z.literal(RUN_JOURNAL_SCHEMA),
  /** Runs in progress. An entry still here whose page is gone = that run was interrupted. */
  active: z.array(JournalEntry).max(MAX_OPEN_RUNS),
  /** An interrupted run found at an earlier page load, waiting for the next receipt to record it. */
  interrupted: InterruptedRun.nullable(),
});
export type RunJournal = z.infer<typeof RunJournal>;

/** A journal with no open run and nothing pending. */
export const EMPTY_JOURNAL: RunJournal = Object.freeze({ schema: RUN_JOURNAL_SCHEMA, active: [], interrupted: null });

/** What identifies a run in the journal (everything but the stage and its start time). */
export interface JournalRun {
  runId: string;
  /** Which kind of run (a plain cold/warm run is `single`). */
  runMode: RunMode;
  /** cold or warm for a `single` run, null for the other modes. */
  runKind: RunKind | null;
  modelId: string;
  requestedEp: ExecutionProvider;
  /** The tab running it (see JournalEntry.tab_id). */
  tabId: string;
}

/** Stages in the order a run passes through them; a run's journal never moves backwards in this order. */
export const STAGE_ORDER: readonly JournalStage[] = JournalStage.options;

/** The outcome of reading the stored journal. */
export type JournalRead =
  | { kind: 'ok'; journal: RunJournal }
  /** Something is stored but is not a journal (another version, a hand edit): the caller replaces it with an
   *  empty journal rather than inventing an interruption from it. `problem` is one line for the console. */
  | { kind: 'invalid'; problem: string };

/**
 * Parses the raw stored journal value.
 *
 * @param raw the stored string (null when nothing is stored, which reads as the empty journal)
 */
export function readJournal(raw: string | null): JournalRead {
  if (raw === null || raw === '') return { kind: 'ok', journal: EMPTY_JOURNAL };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { kind: 'invalid', problem: 'run journal: stored value is not JSON' };
  }
  const parsed = RunJournal.safeParse(value);
  if (!parsed.success) {
    return { kind: 'invalid', problem: `run journal: ${firstIssueLine(parsed.error)}` };
  }
  return { kind: 'ok', journal: parsed.data };
}

/** The receipt's `run.previous_run_interrupted` value for an open entry whose page is gone. */
export function toInterruptedRun(entry: JournalEntry): InterruptedRun {
  const { tab_id: _tabId, ...rest } = entry;
  return InterruptedRun.parse(rest);
}

/** What the page knows at load about which open runs may still be alive. */
export interface LoadContext {
  /** This tab's id: its own open entries belong to a document that is gone. */
  tabId: string;
  /** Runs a live page still holds (Web Locks), or null when the browser cannot tell: then every open entry of
   *  another tab counts as interrupted too (a false alarm beats a silently lost crash). */
  liveRunIds: ReadonlySet<string> | null;
}

/**
 * Page load: open runs whose page is gone were interrupted. The newest of them moves to `interrupted`, where it
 * waits for the next receipt (replacing an older unrecorded one); runs alive in other tabs stay open.
 *
 * @param journal the journal as read at page load
 * @param context this tab and the runs still alive
 * @returns the journal to store, and the interrupted run to show (the pending one, new or from an earlier load)
 */
export function onPageLoad(
  journal: RunJournal,
  context: LoadContext,
): { journal: RunJournal; interrupted: InterruptedRun | null } {
  const isDead = (entry: JournalEntry) =>
    entry.tab_id === context.tabId || context.liveRunIds === null || !context.liveRunIds.has(entry.run_id);
  const dead = journal.active.filter(isDead);
  // ISO times with the same offset sort as strings.
  const newest = dead.reduce<JournalEntry | null>(
    (a, b) => (a === null || b.stage_started_at > a.stage_started_at ? b : a),
    null,
  );
  const interrupted = newest !== null ? toInterruptedRun(newest) : journal.interrupted;
  return {
    journal: { schema: RUN_JOURNAL_SCHEMA, active: journal.active.filter((e) => !isDead(e)), interrupted },
    interrupted,
  };
}

/**
 * The journal to store before `stage` of `run` starts.
 *
 * @param journal the stored journal
 * @param run the run about to enter `stage`
 * @param stage the stage about to start
 * @param startedAtIso when the stage starts (ISO 8601 with offset; passed in so this stays pure)
 * @throws Error when the run's open entry is at a later stage (a controller bug that would make the journal name
 *   the wrong stage after a crash)
 */
export function enterStage(
  journal: RunJournal,
  run: JournalRun,
  stage: JournalStage,
  startedAtIso: string,
): RunJournal {
  const open = journal.active.find((e) => e.run_id === run.runId);
  if (open !== undefined && STAGE_ORDER.indexOf(stage) < STAGE_ORDER.indexOf(open.stage)) {
    throw new Error(`run journal: stage "${stage}" cannot follow "${open.stage}" in run ${run.runId}`);
  }
  const entry = JournalEntry.parse({
    run_id: run.runId,
    run_mode: run.runMode,
    run_kind: run.runKind,
    stage,
    stage_started_at: startedAtIso,
    model_id: run.modelId,
    requested_ep: run.requestedEp,
    tab_id: run.tabId,
  });
  const others = journal.active.filter((e) => e.run_id !== run.runId);
  return { ...journal, active: [...others, entry].slice(-MAX_OPEN_RUNS) };
}

/**
 * The journal to store when a run ends, ok or failed (a failed run is recorded by its own receipt, so it is not an
 * interruption).
 *
 * @param journal the stored journal
 * @param runId the run that ended; other open runs are left alone
 */
export function endRun(journal: RunJournal, runId: string): RunJournal {
  if (!journal.active.some((e) => e.run_id === runId)) return journal;
  return { ...journal, active: journal.active.filter((e) => e.run_id !== runId) };
}

/**
 * Hands the pending interruption to the receipt being built and clears it, so exactly one receipt records it
 * (summaries then count each interruption once).
 *
 * @param journal the stored journal
 * @param onlyRunId clear only if the pending interruption is this run (another tab may have replaced it since)
 * @returns the value for `run.previous_run_interrupted` and the journal to store
 */
export function takeInterrupted(
  journal: RunJournal,
  onlyRunId?: string,
): { journal: RunJournal; interrupted: InterruptedRun | null } {
  if (onlyRunId !== undefined && journal.interrupted?.run_id !== onlyRunId) return { journal, interrupted: null };
  return { journal: { ...journal, interrupted: null }, interrupted: journal.interrupted };
}

/** The line the page shows for an interrupted run (identifiers only, no text from the run). */
export function interruptedRunMessage(run: InterruptedRun): string {
  const mode = run.run_mode ?? 'single';
  const what = mode === 'single' ? `${run.run_kind ?? 'single'} run` : `${mode} run`;
  return `The previous ${what} (model ${run.model_id}, ${run.requested_ep}) was interrupted at stage "${run.stage}" (stage started ${run.stage_started_at}).`;
}
