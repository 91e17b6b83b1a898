import { describe, expect, it } from 'vitest';
import {
  EMPTY_JOURNAL,
  endRun,
  enterStage,
  interruptedRunMessage,
  MAX_OPEN_RUNS,
  onPageLoad,
  readJournal,
  RUN_JOURNAL_SCHEMA,
  takeInterrupted,
  type JournalRun,
  type RunJournal,
} from '../../src/core/field/journal.ts';
import { InterruptedRun } from '../../src/core/receipt/receipt.ts';

const TAB = 'tab-a';
const OTHER_TAB = 'tab-b';
const cold: JournalRun = {
  runId: 'run-cold-1',
  runMode: 'single',
  runKind: 'cold',
  modelId: 'ort-heavy-xenc',
  requestedEp: 'wasm',
  tabId: TAB,
};
const warm: JournalRun = {
  runId: 'run-warm-1',
  runMode: 'single',
  runKind: 'warm',
  modelId: 'ort-heavy-xenc',
  requestedEp: 'webgpu',
  tabId: TAB,
};
const T1 = '2026-11-29T11:00:00.000Z';
const T2 = '2026-11-29T11:00:01.500Z';
const T3 = '2026-11-29T11:00:02.000Z';
/** This tab reloaded; no live runs known elsewhere. */
const reloadHere = { tabId: TAB, liveRunIds: new Set<string>() };

/** Stores and reads back through the string form, as the page does, so every step crosses the parser. */
function roundTrip(journal: RunJournal): RunJournal {
  const read = readJournal(JSON.stringify(journal));
  if (read.kind !== 'ok') throw new Error(read.problem);
  return read.journal;
}

describe('run journal transitions', () => {
  it('records the stage entered last, and a clean end clears it', () => {
    let journal = roundTrip(enterStage(EMPTY_JOURNAL, cold, 'fetch', T1));
    journal = roundTrip(enterStage(journal, cold, 'session', T2));
    expect(journal.active).toEqual([
      {
        run_id: 'run-cold-1',
        run_mode: 'single',
        run_kind: 'cold',
        stage: 'session',
        stage_started_at: T2,
        model_id: 'ort-heavy-xenc',
        requested_ep: 'wasm',
        tab_id: TAB,
      },
    ]);
    journal = roundTrip(endRun(journal, cold.runId));
    expect(journal).toEqual({ schema: RUN_JOURNAL_SCHEMA, active: [], interrupted: null });
    expect(onPageLoad(journal, reloadHere).interrupted).toBeNull();
  });

  it('a run of this tab still open at page load becomes the interruption the next receipt takes, exactly once', () => {
    let journal = enterStage(EMPTY_JOURNAL, warm, 'warmup', T1);
    journal = roundTrip(enterStage(journal, warm, 'warm_inference', T2));
    // The same tab reloaded: its earlier document is gone even if the browser still lists the run's lock.
    const loaded = onPageLoad(journal, { tabId: TAB, liveRunIds: new Set([warm.runId]) });
    expect(loaded.interrupted).toEqual({
      run_id: 'run-warm-1',
      run_mode: 'single',
      run_kind: 'warm',
      stage: 'warm_inference',
      stage_started_at: T2,
      model_id: 'ort-heavy-xenc',
      requested_ep: 'webgpu',
    });
    // Exactly what the receipt schema accepts for run.previous_run_interrupted (no tab id).
    expect(InterruptedRun.safeParse(loaded.interrupted).success).toBe(true);
    expect(loaded.journal.active).toEqual([]);

    // A second reload before any new run still shows the same interruption (it has not been recorded yet).
    const reloaded = onPageLoad(roundTrip(loaded.journal), reloadHere);
    expect(reloaded.interrupted).toEqual(loaded.interrupted);

    // The next run journals its own stages without losing the pending interruption...
    let next = enterStage(reloaded.journal, cold, 'fetch', T3);
    expect(next.interrupted).toEqual(loaded.interrupted);
    // ...and its receipt takes it; the receipt after that gets null.
    const taken = takeInterrupted(next, 'run-warm-1');
    expect(taken.interrupted).toEqual(loaded.interrupted);
    next = endRun(taken.journal, cold.runId);
    expect(takeInterrupted(next).interrupted).toBeNull();
  });

  it('another tab: a run whose page holds its lock is alive and stays open; one whose lock is gone was interrupted', () => {
    const otherRun: JournalRun = { ...cold, runId: 'run-other', tabId: OTHER_TAB };
    const deadRun: JournalRun = { ...warm, runId: 'run-dead', tabId: 'tab-c' };
    let journal = enterStage(EMPTY_JOURNAL, otherRun, 'session', T1);
    journal = enterStage(journal, deadRun, 'warm_inference', T2);
    const loaded = onPageLoad(journal, { tabId: TAB, liveRunIds: new Set(['run-other']) });
    expect(loaded.interrupted?.run_id).toBe('run-dead');
    expect(loaded.journal.active.map((e) => e.run_id)).toEqual(['run-other']);
    // The live run goes on and ends in its own tab; nothing of it is ever reported.
    const ended = endRun(enterStage(loaded.journal, otherRun, 'first_inference', T3), 'run-other');
    expect(ended.active).toEqual([]);
    expect(ended.interrupted?.run_id).toBe('run-dead');
  });

  it('when the browser cannot tell which runs are alive, every open run counts as interrupted (newest reported)', () => {
    let journal = enterStage(EMPTY_JOURNAL, { ...cold, tabId: OTHER_TAB }, 'session', T1);
    journal = enterStage(journal, { ...warm, tabId: 'tab-c' }, 'warmup', T2);
    const loaded = onPageLoad(journal, { tabId: TAB, liveRunIds: null });
    expect(loaded.interrupted?.run_id).toBe('run-warm-1');
    expect(loaded.journal.active).toEqual([]);
  });

  it('a newer interruption replaces an older one that no receipt recorded yet', () => {
    const first = onPageLoad(enterStage(EMPTY_JOURNAL, cold, 'session', T1), reloadHere).journal;
    const second = onPageLoad(enterStage(first, warm, 'warmup', T2), reloadHere);
    expect(second.interrupted?.run_id).toBe('run-warm-1');
  });

  it('clears a pending interruption only for the run that took it (another tab may have replaced it)', () => {
    const pending = onPageLoad(enterStage(EMPTY_JOURNAL, cold, 'session', T1), reloadHere).journal;
    expect(takeInterrupted(pending, 'some-other-run')).toEqual({ journal: pending, interrupted: null });
    expect(takeInterrupted(pending, 'run-cold-1').journal.interrupted).toBeNull();
  });

  it('refuses to move a run backwards, but a new run may start at any stage', () => {
    const journal = enterStage(EMPTY_JOURNAL, cold, 'first_inference', T1);
    expect(() => enterStage(journal, cold, 'fetch', T2)).toThrow(
      'stage "fetch" cannot follow "first_inference" in run run-cold-1',
    );
    // The same stage again is fine (a stage can be announced twice: by the page and by the worker).
    expect(enterStage(journal, cold, 'first_inference', T2).active[0].stage_started_at).toBe(T2);
    expect(enterStage(journal, warm, 'warmup', T2).active.map((e) => e.run_id)).toEqual(['run-cold-1', 'run-warm-1']);
  });

  it('ending another run leaves the open entry alone; at most MAX_OPEN_RUNS entries are kept (oldest dropped)', () => {
    const journal = enterStage(EMPTY_JOURNAL, cold, 'fetch', T1);
    expect(endRun(journal, 'some-other-run')).toBe(journal);
    let many = EMPTY_JOURNAL;
    for (let i = 0; i <= MAX_OPEN_RUNS; i++) many = enterStage(many, { ...cold, runId: `r${i}` }, 'fetch', T1);
    expect(many.active).toHaveLength(MAX_OPEN_RUNS);
    expect(many.active[0].run_id).toBe('r1');
  });

  it('the banner line names the stage and holds no text from the run', () => {
    const loaded = onPageLoad(enterStage(EMPTY_JOURNAL, cold, 'session', T1), reloadHere);
    expect(interruptedRunMessage(loaded.interrupted!)).toBe(
      'The previous cold run (model ort-heavy-xenc, wasm) was interrupted at stage "session" (stage started 2026-11-29T11:00:00.000Z).',
    );
  });

  it('names the run mode for suite, generation and comparison runs (no cold/warm kind there)', () => {
    const suite: JournalRun = {
      runId: 'suite-1',
      runMode: 'suite',
      runKind: null,
      modelId: 'tfjs-tiny-reranker',
      requestedEp: 'webgpu',
      tabId: TAB,
    };
    const loaded = onPageLoad(enterStage(EMPTY_JOURNAL, suite, 'rows', T1), reloadHere);
    expect(loaded.interrupted).toMatchObject({ run_mode: 'suite', run_kind: null, stage: 'rows' });
    expect(interruptedRunMessage(loaded.interrupted!)).toBe(
      'The previous suite run (model tfjs-tiny-reranker, webgpu) was interrupted at stage "rows" (stage started 2026-11-29T11:00:00.000Z).',
    );
    // A receipt written before run modes existed has no run_mode: a single cold/warm run.
    const { run_mode: _mode, ...old } = {
      ...loaded.interrupted!,
      run_mode: 'single' as const,
      run_kind: 'warm' as const,
    };
    expect(interruptedRunMessage(old)).toMatch(/^The previous warm run /);
  });
});

describe('readJournal', () => {
  it('reads nothing stored as the empty journal', () => {
    expect(readJournal(null)).toEqual({ kind: 'ok', journal: EMPTY_JOURNAL });
    expect(readJournal('')).toEqual({ kind: 'ok', journal: EMPTY_JOURNAL });
  });

  const open = enterStage(EMPTY_JOURNAL, cold, 'fetch', T1);
  it.each([
    ['{not json', 'run journal: stored value is not JSON'],
    ['[]', 'run journal: (root): Invalid input: expected object, received array'],
    [
      JSON.stringify({ schema: 'drb.run-journal.v0', active: [], interrupted: null }),
      'run journal: schema: Invalid input: expected "drb.run-journal.v1"',
    ],
    [JSON.stringify({ ...open, note: 'free text' }), 'run journal: (root): Unrecognized key: "note"'],
    [
      JSON.stringify({ ...open, active: [{ ...open.active[0], stage: 'typing' }] }),
      'run journal: active[0].stage: Invalid option: expected one of "probe"|"fetch"|"runtime_fetch"|"session"|"first_inference"|"warmup"|"warm_inference"|"rows"',
    ],
    [
      JSON.stringify({ ...open, active: [{ ...open.active[0], input_text: 'secret' }] }),
      'run journal: active[0]: Unrecognized key: "input_text"',
    ],
    [
      JSON.stringify({ ...open, active: [{ ...open.active[0], tab_id: '' }] }),
      'run journal: active[0].tab_id: Too small: expected string to have >=1 characters',
    ],
  ])('refuses %s', (raw, problem) => {
    expect(readJournal(raw)).toEqual({ kind: 'invalid', problem });
  });
});
