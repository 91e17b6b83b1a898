import { afterEach, describe, expect, it, vi } from 'vitest';
import { RUN_JOURNAL_SCHEMA, type JournalRun } from '../../src/core/journal.ts';
import { journalHooks, RUN_JOURNAL_KEY, RunJournalStore, type JournalStorage } from '../../src/page/run-journal.ts';

/** An in-memory Web Storage; `failWrites` makes setItem throw like a full quota does. */
class MemoryStorage implements JournalStorage {
  readonly items = new Map<string, string>();
  failWrites = false;
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    if (this.failWrites) throw new DOMException('quota', 'QuotaExceededError');
    this.items.set(key, value);
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

const run: JournalRun = { runId: 'r1', runKind: 'cold', modelId: 'ort-tiny-xenc', requestedEp: 'wasm' };

afterEach(() => vi.restoreAllMocks());

describe('RunJournalStore', () => {
  it('writes before each stage, and a page load in between finds the run interrupted at the stage it was in', () => {
    const storage = new MemoryStorage();
    const first = new RunJournalStore(storage);
    expect(first.load()).toBeNull();
    first.enterStage(run, 'fetch');
    first.enterStage(run, 'session');
    // The write is synchronous: storage already holds the stage (what a killed tab leaves behind).
    expect(JSON.parse(storage.getItem(RUN_JOURNAL_KEY)!)).toMatchObject({ schema: RUN_JOURNAL_SCHEMA, active: { stage: 'session' } });

    // "Reload": a new store over the same storage.
    const second = new RunJournalStore(storage);
    const interrupted = second.load();
    expect(interrupted).toMatchObject({ run_id: 'r1', run_kind: 'cold', stage: 'session', model_id: 'ort-tiny-xenc', requested_ep: 'wasm' });
    expect(second.pending()).toEqual(interrupted);
    expect(second.takeInterrupted()).toEqual(interrupted);
    expect(second.takeInterrupted()).toBeNull();
    // Nothing left: the key is removed rather than kept as an empty journal.
    expect(storage.items.has(RUN_JOURNAL_KEY)).toBe(false);
  });

  it('a run that ends leaves nothing behind', () => {
    const storage = new MemoryStorage();
    const store = new RunJournalStore(storage);
    store.load();
    store.enterStage(run, 'fetch');
    store.endRun('r1');
    expect(storage.items.size).toBe(0);
    expect(new RunJournalStore(storage).load()).toBeNull();
  });

  it('replaces a stored value that is not a journal, without inventing an interruption', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const storage = new MemoryStorage();
    storage.items.set(RUN_JOURNAL_KEY, '{"schema":"something-else"}');
    expect(new RunJournalStore(storage).load()).toBeNull();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('run journal: schema:'));
    expect(storage.items.has(RUN_JOURNAL_KEY)).toBe(false);
  });

  it('turns itself off when storage refuses writes, and never throws into the run', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const storage = new MemoryStorage();
    const store = new RunJournalStore(storage);
    store.load();
    storage.failWrites = true;
    expect(() => store.enterStage(run, 'fetch')).not.toThrow();
    expect(store.available).toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('QuotaExceededError'));
    expect(() => store.endRun('r1')).not.toThrow();
  });

  it('works without storage at all', () => {
    const store = new RunJournalStore(null);
    expect(store.available).toBe(false);
    expect(store.load()).toBeNull();
    store.enterStage(run, 'fetch');
    expect(store.takeInterrupted()).toBeNull();
  });
});

describe('journalHooks (the run controller side)', () => {
  const event = (runId: string, stage: 'probe' | 'session' | 'warm_inference' | null) =>
    ({ runId, kind: 'cold', stage, modelId: 'ort-tiny-xenc', requestedEp: 'wasm' }) as const;

  it('the run after an interruption records it, and storage forgets it only when that run ends', () => {
    const storage = new MemoryStorage();
    const killed = new RunJournalStore(storage);
    killed.load();
    journalHooks(killed).onJournal(event('old', 'session'));

    const store = new RunJournalStore(storage);
    const interrupted = store.load();
    const hooks = journalHooks(store);
    expect(hooks.takePreviousRunInterrupted()).toEqual(interrupted);
    hooks.onJournal(event('new', 'probe'));
    // Killed again before the new run ended: the newest open run is what the next load reports.
    expect(JSON.parse(storage.getItem(RUN_JOURNAL_KEY)!)).toMatchObject({ active: { run_id: 'new' }, interrupted: { run_id: 'old' } });
    hooks.onJournal(event('new', null));
    expect(storage.items.has(RUN_JOURNAL_KEY)).toBe(false);
    expect(hooks.takePreviousRunInterrupted()).toBeNull();
  });

  it('ignores a stage event that arrives after its run ended (no false interruption on the next load)', () => {
    const storage = new MemoryStorage();
    const store = new RunJournalStore(storage);
    store.load();
    const hooks = journalHooks(store);
    hooks.takePreviousRunInterrupted();
    hooks.onJournal(event('r', 'probe'));
    hooks.onJournal(event('r', null));
    hooks.onJournal(event('r', 'session'));
    expect(new RunJournalStore(storage).load()).toBeNull();
  });

  it('keeps the later stage when the worker reports an earlier one late', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const storage = new MemoryStorage();
    const store = new RunJournalStore(storage);
    store.load();
    const hooks = journalHooks(store);
    hooks.onJournal(event('r', 'warm_inference'));
    hooks.onJournal(event('r', 'session'));
    expect(warn).toHaveBeenCalledWith('run journal: stage "session" cannot follow "warm_inference" in run r');
    expect(new RunJournalStore(storage).load()?.stage).toBe('warm_inference');
  });
});
