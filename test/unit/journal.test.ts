import { describe, expect, it } from 'vitest';
import {
  EMPTY_JOURNAL,
  endRun,
  enterStage,
  interruptedRunMessage,
  onPageLoad,
  readJournal,
  RUN_JOURNAL_SCHEMA,
  takeInterrupted,
  type JournalRun,
} from '../../src/core/journal.ts';
import { InterruptedRun } from '../../src/core/receipt.ts';

const cold: JournalRun = { runId: 'run-cold-1', runKind: 'cold', modelId: 'ort-heavy-fixture', requestedEp: 'wasm' };
const warm: JournalRun = { runId: 'run-warm-1', runKind: 'warm', modelId: 'ort-heavy-fixture', requestedEp: 'webgpu' };
const T1 = '2026-11-29T11:00:00.000Z';
const T2 = '2026-11-29T11:00:01.500Z';

/** Stores and reads back through the string form, as the page does, so every step crosses the parser. */
function roundTrip(journal: unknown) {
  const read = readJournal(JSON.stringify(journal));
  if (read.kind !== 'ok') throw new Error(read.problem);
  return read.journal;
}

describe('run journal transitions', () => {
  it('records the stage entered last, and a clean end clears it', () => {
    let journal = roundTrip(enterStage(EMPTY_JOURNAL, cold, 'fetch', T1));
    journal = roundTrip(enterStage(journal, cold, 'session', T2));
    expect(journal.active).toEqual({
      run_id: 'run-cold-1',
      run_kind: 'cold',
      stage: 'session',
      stage_started_at: T2,
      model_id: 'ort-heavy-fixture',
      requested_ep: 'wasm',
    });
    journal = roundTrip(endRun(journal, cold.runId));
    expect(journal).toEqual({ schema: RUN_JOURNAL_SCHEMA, active: null, interrupted: null });
    // A load after a clean end finds nothing to report.
    expect(onPageLoad(journal).interrupted).toBeNull();
  });

  it('a run still open at page load becomes the interruption the next receipt takes, exactly once', () => {
    let journal = enterStage(EMPTY_JOURNAL, warm, 'warmup', T1);
    journal = roundTrip(enterStage(journal, warm, 'warm_inference', T2));
    const loaded = onPageLoad(journal);
    expect(loaded.interrupted).toMatchObject({ run_id: 'run-warm-1', stage: 'warm_inference', requested_ep: 'webgpu' });
    // The interrupted value is exactly what the receipt schema accepts for run.previous_run_interrupted.
    expect(InterruptedRun.safeParse(loaded.interrupted).success).toBe(true);
    expect(loaded.journal.active).toBeNull();

    // A second reload before any new run still shows the same interruption (it has not been recorded yet).
    const reloaded = onPageLoad(roundTrip(loaded.journal));
    expect(reloaded.interrupted).toEqual(loaded.interrupted);

    // The next run journals its own stages without losing the pending interruption...
    let next = enterStage(reloaded.journal, cold, 'fetch', T2);
    expect(next.interrupted).toEqual(loaded.interrupted);
    // ...and its receipt takes it; the receipt after that gets null.
    const taken = takeInterrupted(next);
    expect(taken.interrupted).toEqual(loaded.interrupted);
    next = endRun(taken.journal, cold.runId);
    expect(takeInterrupted(next).interrupted).toBeNull();
  });

  it('a newer interruption replaces an older one that no receipt recorded yet', () => {
    const first = onPageLoad(enterStage(EMPTY_JOURNAL, cold, 'session', T1)).journal;
    const second = onPageLoad(enterStage(first, warm, 'warmup', T2));
    expect(second.interrupted?.run_id).toBe('run-warm-1');
  });

  it('refuses to move a run backwards, but a new run may start at any stage', () => {
    const journal = enterStage(EMPTY_JOURNAL, cold, 'first_inference', T1);
    expect(() => enterStage(journal, cold, 'fetch', T2)).toThrow('stage "fetch" cannot follow "first_inference" in run run-cold-1');
    // The same stage again is fine (warm_inference is entered once per sample by some controllers).
    expect(enterStage(journal, cold, 'first_inference', T2).active?.stage_started_at).toBe(T2);
    expect(enterStage(journal, warm, 'warmup', T2).active?.run_id).toBe('run-warm-1');
  });

  it('ending another run leaves the open entry alone', () => {
    const journal = enterStage(EMPTY_JOURNAL, cold, 'fetch', T1);
    expect(endRun(journal, 'some-other-run')).toBe(journal);
  });

  it('the banner line names the stage and holds no text from the run', () => {
    const loaded = onPageLoad(enterStage(EMPTY_JOURNAL, cold, 'session', T1));
    expect(interruptedRunMessage(loaded.interrupted!)).toBe(
      'The previous cold run (model ort-heavy-fixture, wasm) was interrupted at stage "session" (stage started 2026-11-29T11:00:00.000Z).',
    );
  });
});

describe('readJournal', () => {
  it('reads nothing stored as the empty journal', () => {
    expect(readJournal(null)).toEqual({ kind: 'ok', journal: EMPTY_JOURNAL });
    expect(readJournal('')).toEqual({ kind: 'ok', journal: EMPTY_JOURNAL });
  });

  it.each([
    ['{not json', 'run journal: stored value is not JSON'],
    ['[]', 'run journal: (root): Invalid input: expected object, received array'],
    [JSON.stringify({ schema: 'drb.run-journal.v0', active: null, interrupted: null }), 'run journal: schema: Invalid input: expected "drb.run-journal.v1"'],
    [
      JSON.stringify({ ...enterStage(EMPTY_JOURNAL, cold, 'fetch', T1), note: 'free text' }),
      'run journal: (root): Unrecognized key: "note"',
    ],
    [
      JSON.stringify({ schema: RUN_JOURNAL_SCHEMA, interrupted: null, active: { ...enterStage(EMPTY_JOURNAL, cold, 'fetch', T1).active, stage: 'typing' } }),
      'run journal: active.stage: Invalid option: expected one of "probe"|"fetch"|"session"|"first_inference"|"warmup"|"warm_inference"',
    ],
    [
      JSON.stringify({ schema: RUN_JOURNAL_SCHEMA, interrupted: null, active: { ...enterStage(EMPTY_JOURNAL, cold, 'fetch', T1).active, input_text: 'secret' } }),
      'run journal: active: Unrecognized key: "input_text"',
    ],
  ])('refuses %s', (raw, problem) => {
    expect(readJournal(raw)).toEqual({ kind: 'invalid', problem });
  });
});
