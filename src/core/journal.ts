/**
 * The run journal (`drb.run-journal.v1`): a tiny record the page writes to persistent storage BEFORE each stage of
 * a run and clears when the run ends. If the tab is killed (iOS evicts tabs under memory pressure) or reloaded
 * mid-run, the open entry survives; the next page load finds it, shows that the previous run was interrupted at
 * that stage, and the next receipt records it in `run.previous_run_interrupted`.
 *
 * The journal holds identifiers and times only, never input or output text. Everything here is pure (no storage,
 * no globals): src/page/run-journal.ts is the thin storage layer. The whole journal is ONE stored value, so every
 * write replaces it at once and a crash can never leave the open run and the pending interruption inconsistent.
 */
import { z } from 'zod';
import { ExecutionProvider, InterruptedRun, RunKind, Stage } from './receipt.ts';

export const RUN_JOURNAL_SCHEMA = 'drb.run-journal.v1';

/** The open run: the stage it entered last. Its fields are exactly the receipt's `run.previous_run_interrupted`. */
export const JournalEntry = InterruptedRun;
export type JournalEntry = z.infer<typeof JournalEntry>;
export type InterruptedRun = z.infer<typeof InterruptedRun>;

/** The stored journal. */
export const RunJournal = z.strictObject({
  schema: z.literal(RUN_JOURNAL_SCHEMA),
  /** The run in progress (null between runs). Still set at page load = that run was interrupted. */
  active: JournalEntry.nullable(),
  /** An interrupted run found at an earlier page load, waiting for the next receipt to record it. */
  interrupted: InterruptedRun.nullable(),
});
export type RunJournal = z.infer<typeof RunJournal>;

/** A journal with no open run and nothing pending. */
export const EMPTY_JOURNAL: RunJournal = Object.freeze({ schema: RUN_JOURNAL_SCHEMA, active: null, interrupted: null });

/** What identifies a run in the journal (everything but the stage and its start time). */
export interface JournalRun {
  runId: string;
  runKind: RunKind;
  modelId: string;
  requestedEp: ExecutionProvider;
}

/** Stages in the order a run passes through them; a run's journal never moves backwards in this order. */
export const STAGE_ORDER: readonly Stage[] = Stage.options;

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
    const issue = parsed.error.issues[0];
    return { kind: 'invalid', problem: `run journal: ${issue.path.join('.') || '(root)'}: ${issue.message}` };
  }
  return { kind: 'ok', journal: parsed.data };
}

/**
 * Page load: a run still open in the journal was interrupted (the page that ran it is gone). It moves to
 * `interrupted`, where it waits for the next receipt; a newer interruption replaces an older unrecorded one.
 *
 * @param journal the journal as read at page load
 * @returns the journal to store, and the interrupted run to show (the pending one, new or from an earlier load)
 */
export function onPageLoad(journal: RunJournal): { journal: RunJournal; interrupted: InterruptedRun | null } {
  const interrupted = journal.active ?? journal.interrupted;
  return { journal: { schema: RUN_JOURNAL_SCHEMA, active: null, interrupted }, interrupted };
}

/**
 * The journal to store before `stage` of `run` starts.
 *
 * @param journal the stored journal
 * @param run the run about to enter `stage`
 * @param stage the stage about to start
 * @param startedAtIso when the stage starts (ISO 8601 with offset; passed in so this stays pure)
 * @throws Error when the open entry belongs to the same run and `stage` comes before its stage (a controller bug
 *   that would make the journal name the wrong stage after a crash)
 */
export function enterStage(journal: RunJournal, run: JournalRun, stage: Stage, startedAtIso: string): RunJournal {
  const open = journal.active;
  if (open !== null && open.run_id === run.runId && STAGE_ORDER.indexOf(stage) < STAGE_ORDER.indexOf(open.stage)) {
    throw new Error(`run journal: stage "${stage}" cannot follow "${open.stage}" in run ${run.runId}`);
  }
  const active = JournalEntry.parse({
    run_id: run.runId,
    run_kind: run.runKind,
    stage,
    stage_started_at: startedAtIso,
    model_id: run.modelId,
    requested_ep: run.requestedEp,
  });
  return { ...journal, active };
}

/**
 * The journal to store when a run ends, ok or failed (a failed run is recorded by its own receipt, so it is not an
 * interruption).
 *
 * @param journal the stored journal
 * @param runId the run that ended; an open entry of another run is left alone
 */
export function endRun(journal: RunJournal, runId: string): RunJournal {
  if (journal.active === null || journal.active.run_id !== runId) return journal;
  return { ...journal, active: null };
}

/**
 * Hands the pending interruption to the receipt being built and clears it, so exactly one receipt records it
 * (summaries then count each interruption once).
 *
 * @param journal the stored journal
 * @returns the value for `run.previous_run_interrupted` and the journal to store
 */
export function takeInterrupted(journal: RunJournal): { journal: RunJournal; interrupted: InterruptedRun | null } {
  return { journal: { ...journal, interrupted: null }, interrupted: journal.interrupted };
}

/** The line the page shows for an interrupted run (identifiers only, no text from the run). */
export function interruptedRunMessage(run: InterruptedRun): string {
  return `The previous ${run.run_kind} run (model ${run.model_id}, ${run.requested_ep}) was interrupted at stage "${run.stage}" (stage started ${run.stage_started_at}).`;
}
