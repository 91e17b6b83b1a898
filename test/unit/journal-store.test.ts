/**
 * The journal store over in-memory stand-ins for localStorage, sessionStorage and navigator.locks (the real browser
 * APIs are exercised in test/e2e/journal.test.ts, in Chromium and WebKitGTK).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RUN_JOURNAL_SCHEMA } from '../../src/core/field/journal.ts';
import {
  journalHooks,
  openRunJournal,
  RUN_JOURNAL_KEY,
  RunJournalStore,
  TAB_ID_KEY,
  type JournalStorage,
  type RunLocks,
} from '../../src/page/run-journal.ts';

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

/** Web Locks with the one behaviour the store relies on: a lock is held until its callback's promise settles. */
class MemoryLocks implements RunLocks {
  readonly held = new Set<string>();
  async query() {
    return { held: [...this.held].map((name) => ({ name })) };
  }
  async request(name: string, callback: () => Promise<void>) {
    this.held.add(name);
    try {
      await callback();
    } finally {
      this.held.delete(name);
    }
  }
  /** What the browser does when a page dies: its locks go. */
  dropAll() {
    this.held.clear();
  }
}

const run = { runId: 'r1', runMode: 'single', runKind: 'cold', modelId: 'ort-tiny-xenc', requestedEp: 'wasm' } as const;
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => vi.restoreAllMocks());

describe('RunJournalStore', () => {
  it('writes before each stage, and a reload of the same tab finds the run interrupted at the stage it was in', async () => {
    const storage = new MemoryStorage();
    const session = new MemoryStorage();
    const locks = new MemoryLocks();
    const first = new RunJournalStore({ storage, session, locks });
    expect(await first.load()).toBeNull();
    first.enterStage(run, 'fetch');
    first.enterStage(run, 'session');
    // The write is synchronous: storage already holds the stage (what a killed tab leaves behind).
    expect(JSON.parse(storage.getItem(RUN_JOURNAL_KEY)!)).toMatchObject({
      schema: RUN_JOURNAL_SCHEMA,
      active: [{ stage: 'session', tab_id: first.tabId }],
    });
    await flush();
    expect(locks.held).toEqual(new Set(['drb-run:r1']));

    // Reload: same sessionStorage (same tab id), and the old document's lock may not even be released yet.
    const second = new RunJournalStore({ storage, session, locks });
    expect(second.tabId).toBe(first.tabId);
    const interrupted = await second.load();
    expect(interrupted).toEqual({
      run_id: 'r1',
      run_mode: 'single',
      run_kind: 'cold',
      stage: 'session',
      stage_started_at: expect.any(String),
      model_id: 'ort-tiny-xenc',
      requested_ep: 'wasm',
    });
    expect(second.pending()).toEqual(interrupted);
    expect(second.takeInterrupted('r1')).toEqual(interrupted);
    expect(second.takeInterrupted()).toBeNull();
    // Nothing left: the key is removed rather than kept as an empty journal.
    expect(storage.items.has(RUN_JOURNAL_KEY)).toBe(false);
  });

  it('two tabs: a run going on in another tab is not an interruption; once its page dies, it is', async () => {
    const storage = new MemoryStorage();
    const locks = new MemoryLocks();
    const tabA = new RunJournalStore({ storage, session: new MemoryStorage(), locks });
    await tabA.load();
    tabA.enterStage(run, 'warm_inference');
    await flush();

    const tabB = new RunJournalStore({ storage, session: new MemoryStorage(), locks });
    expect(tabB.tabId).not.toBe(tabA.tabId);
    expect(await tabB.load()).toBeNull();
    // Tab B's own run does not clobber tab A's entry (every write re-reads storage).
    tabB.enterStage({ ...run, runId: 'r2' }, 'fetch');
    expect(JSON.parse(storage.getItem(RUN_JOURNAL_KEY)!).active.map((e: { run_id: string }) => e.run_id)).toEqual([
      'r1',
      'r2',
    ]);
    tabB.endRun('r2');

    // Tab A's renderer is killed: its lock goes, and the next load in a new tab reports the run.
    locks.dropAll();
    const tabC = new RunJournalStore({ storage, session: new MemoryStorage(), locks });
    expect((await tabC.load())?.run_id).toBe('r1');
  });

  it('without Web Locks, every open run counts as interrupted at load (a false alarm beats a lost crash)', async () => {
    const storage = new MemoryStorage();
    const tabA = new RunJournalStore({ storage, session: new MemoryStorage(), locks: null });
    await tabA.load();
    tabA.enterStage(run, 'fetch');
    const tabB = new RunJournalStore({ storage, session: new MemoryStorage(), locks: null });
    expect((await tabB.load())?.run_id).toBe('r1');
  });

  it('a run that ends leaves nothing behind and releases its lock', async () => {
    const storage = new MemoryStorage();
    const locks = new MemoryLocks();
    const store = new RunJournalStore({ storage, session: new MemoryStorage(), locks });
    await store.load();
    store.enterStage(run, 'fetch');
    await flush();
    store.endRun('r1');
    await flush();
    expect(storage.items.size).toBe(0);
    expect(locks.held.size).toBe(0);
    expect(await new RunJournalStore({ storage, session: new MemoryStorage(), locks }).load()).toBeNull();
  });

  it('keeps the tab id in sessionStorage', () => {
    const session = new MemoryStorage();
    const store = new RunJournalStore({ storage: new MemoryStorage(), session, locks: null });
    expect(session.getItem(TAB_ID_KEY)).toBe(store.tabId);
  });

  it('replaces a stored value that is not a journal, without inventing an interruption', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const storage = new MemoryStorage();
    storage.items.set(RUN_JOURNAL_KEY, '{"schema":"something-else"}');
    expect(await new RunJournalStore({ storage, session: null, locks: null }).load()).toBeNull();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('run journal: schema:'));
    expect(storage.items.has(RUN_JOURNAL_KEY)).toBe(false);
  });

  it('turns itself off when storage refuses writes, and never throws into the run', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const storage = new MemoryStorage();
    const store = new RunJournalStore({ storage, session: null, locks: null });
    await store.load();
    storage.failWrites = true;
    expect(() => store.enterStage(run, 'fetch')).not.toThrow();
    expect(store.available).toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('QuotaExceededError'));
    expect(() => store.endRun('r1')).not.toThrow();
  });

  it('works without storage at all', async () => {
    const store = new RunJournalStore({ storage: null, session: null, locks: null });
    expect(store.available).toBe(false);
    expect(await store.load()).toBeNull();
    store.enterStage(run, 'fetch');
    expect(store.takeInterrupted()).toBeNull();
  });
});

describe('journalHooks (the run controller side)', () => {
  const event = (runId: string, stage: 'probe' | 'session' | 'warm_inference' | null) =>
    ({ runId, mode: 'single', kind: 'cold', stage, modelId: 'ort-tiny-xenc', requestedEp: 'wasm' }) as const;

  it('the run after an interruption records it, and storage forgets it only when that run ends', async () => {
    const storage = new MemoryStorage();
    const session = new MemoryStorage();
    const killed = new RunJournalStore({ storage, session, locks: null });
    await killed.load();
    journalHooks(killed).onJournal(event('old', 'session'));

    const store = new RunJournalStore({ storage, session, locks: null });
    const interrupted = await store.load();
    const hooks = journalHooks(store);
    expect(hooks.takePreviousRunInterrupted()).toEqual(interrupted);
    hooks.onJournal(event('new', 'probe'));
    // Killed again before the new run ended: the interruption is still stored, next to the new open run.
    expect(JSON.parse(storage.getItem(RUN_JOURNAL_KEY)!)).toMatchObject({
      active: [{ run_id: 'new' }],
      interrupted: { run_id: 'old' },
    });
    hooks.onJournal(event('new', null));
    expect(storage.items.has(RUN_JOURNAL_KEY)).toBe(false);
    expect(hooks.takePreviousRunInterrupted()).toBeNull();
  });

  it('ignores a stage event that arrives after its run ended (no false interruption on the next load)', async () => {
    const storage = new MemoryStorage();
    const session = new MemoryStorage();
    const store = new RunJournalStore({ storage, session, locks: null });
    await store.load();
    const hooks = journalHooks(store);
    hooks.takePreviousRunInterrupted();
    hooks.onJournal(event('r', 'probe'));
    hooks.onJournal(event('r', null));
    hooks.onJournal(event('r', 'session'));
    expect(await new RunJournalStore({ storage, session, locks: null }).load()).toBeNull();
  });

  it('keeps the later stage when the worker reports an earlier one late', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const storage = new MemoryStorage();
    const session = new MemoryStorage();
    const store = new RunJournalStore({ storage, session, locks: null });
    await store.load();
    const hooks = journalHooks(store);
    hooks.onJournal(event('r', 'warm_inference'));
    hooks.onJournal(event('r', 'session'));
    expect(warn).toHaveBeenCalledWith('run journal: stage "session" cannot follow "warm_inference" in run r');
    expect((await new RunJournalStore({ storage, session, locks: null }).load())?.stage).toBe('warm_inference');
  });
});

describe("openRunJournal (the suite, generation and comparison controllers' side)", () => {
  const suiteRun = {
    runId: 'suite-1',
    mode: 'suite',
    kind: null,
    modelId: 'tfjs-tiny-reranker',
    requestedEp: 'wasm',
  } as const;

  it('claims the pending interruption from any run mode, journals stages forward only, and ends once', async () => {
    const storage = new MemoryStorage();
    const session = new MemoryStorage();
    // A single (cold) run killed in its session stage ...
    const killed = new RunJournalStore({ storage, session, locks: null });
    await killed.load();
    journalHooks(killed).onJournal({
      runId: 'old',
      mode: 'single',
      kind: 'cold',
      stage: 'session',
      modelId: 'ort-heavy-xenc',
      requestedEp: 'wasm',
    });
    // ... is recorded by the suite run of the next page load.
    const store = new RunJournalStore({ storage, session, locks: null });
    const loaded = store.load();
    const writer = await openRunJournal({ ready: loaded, ...journalHooks(store) }, suiteRun);
    expect(writer.previous).toMatchObject({
      run_id: 'old',
      run_mode: 'single',
      run_kind: 'cold',
      stage: 'session',
      model_id: 'ort-heavy-xenc',
    });
    writer.stage('probe');
    writer.stage('fetch');
    writer.stage('session');
    // A comparison's second route loads again: an earlier stage after a later one is not written.
    writer.stage('fetch');
    writer.stage('rows');
    const stored = JSON.parse(storage.getItem(RUN_JOURNAL_KEY)!);
    expect(stored.active).toEqual([
      expect.objectContaining({
        run_id: 'suite-1',
        run_mode: 'suite',
        run_kind: null,
        stage: 'rows',
        model_id: 'tfjs-tiny-reranker',
      }),
    ]);
    expect(stored.interrupted).toMatchObject({ run_id: 'old' });
    writer.end();
    writer.end();
    writer.stage('rows');
    expect(storage.items.has(RUN_JOURNAL_KEY)).toBe(false);
  });

  it('a suite run killed in its rows is found at the next load with its mode and stage', async () => {
    const storage = new MemoryStorage();
    const session = new MemoryStorage();
    const store = new RunJournalStore({ storage, session, locks: null });
    const writer = await openRunJournal({ ready: store.load(), ...journalHooks(store) }, suiteRun);
    expect(writer.previous).toBeNull();
    writer.stage('rows');
    const next = new RunJournalStore({ storage, session, locks: null });
    expect(await next.load()).toMatchObject({
      run_id: 'suite-1',
      run_mode: 'suite',
      run_kind: null,
      stage: 'rows',
      requested_ep: 'wasm',
    });
  });

  it('records nothing without a journal', async () => {
    const writer = await openRunJournal(undefined, suiteRun);
    expect(writer.previous).toBeNull();
    expect(() => {
      writer.stage('fetch');
      writer.end();
    }).not.toThrow();
  });
});
