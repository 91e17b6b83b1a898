// Cold runs split into what the page measured and what a tester or driver attested (src/core/receipt/cold-start.ts):
// a cold counts as a full protocol cold only with both; the receipt invariants keep the two parts honest; and protocol
// mode's progress (src/core/field/field-progress.ts) and `drb receipts summarize` count every receipt the same way.
import { describe, expect, it } from 'vitest';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { coldStartEvidence, countClass, notFreshReasons } from '../../src/core/receipt/cold-start.ts';
import { testerAttestation } from '../../src/core/receipt/attestation.ts';
import { checkColdStartRecord } from '../../src/core/receipt/receipt-invariants.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import { coldEvidenceLine, nextStep, progressLine, protocolProgress } from '../../src/core/field/field-progress.ts';
import { ReceiptsSummarizer } from '../../src/core/evidence/receipts-summarizer.ts';
import type { Protocol } from '../../src/core/field/field-protocol.ts';
import { buildReceipt } from './receipts-builder.ts';

const PROTOCOL: Protocol = {
  schema: 'drb.protocol.v1',
  id: 'ort-tiny-xenc-wasm',
  title: 'fixture',
  model: 'ort-tiny-xenc',
  engine: 'ort',
  ep: 'wasm',
  threads: 1,
  dtype: 'fp32',
  input: 'tokens-2x16',
  warm_runs: 20,
  min_cold: 5,
  min_warm: 20,
  memory_note: 'a fixture',
};

/** A builder receipt as the protocol's target (the builder's fixture input is the protocol's). */
function protocolReceipt(options: Parameters<typeof buildReceipt>[0]): DeviceReceipt {
  const r = buildReceipt(options);
  expect(r.input.id).toBe(PROTOCOL.input);
  return r;
}

function overlappedByAnotherTab(r: DeviceReceipt): DeviceReceipt {
  return { ...r, run: { ...r.run, overlap: { this_page: false, other_tabs: true } } };
}

describe('a full protocol cold needs the measured and the attested part', () => {
  it('counts a network-cold run from a fresh start with both claims attested, and nothing less', () => {
    const full = protocolReceipt({ kind: 'cold' });
    expect(coldStartEvidence(full)).toEqual({
      networkCold: true,
      freshStart: true,
      attestedRestart: true,
      attestedClear: true,
      full: true,
      missing: [],
    });
    expect(countClass(full)).toBe('cold-full');

    const notAttested = protocolReceipt({ kind: 'cold', coldStart: 'not-attested' });
    expect(coldStartEvidence(notAttested)).toMatchObject({
      networkCold: true,
      freshStart: true,
      full: false,
      missing: ['browser restart not attested', 'website data clear not attested'],
    });
    expect(countClass(notAttested)).toBe('cold-network');

    // A cold run after a plain reload, and a second one on the same page, are network-cold and attested, never full.
    const reload = protocolReceipt({ kind: 'cold', coldStart: 'reload' });
    expect(coldStartEvidence(reload)).toMatchObject({
      networkCold: true,
      freshStart: false,
      attestedRestart: true,
      full: false,
    });
    expect(coldStartEvidence(reload).missing).toEqual([
      'the page was opened by a reload',
      'not the first page of its tab',
    ]);
    expect(countClass(reload)).toBe('cold-network');
    const second = protocolReceipt({ kind: 'cold', coldStart: 'second-in-page' });
    expect(coldStartEvidence(second).missing).toEqual(['1 earlier run(s) on the same page']);
    expect(countClass(second)).toBe('cold-network');

    // A receipt of an earlier page (no start facts, no attestations) is network-cold at most.
    const old = protocolReceipt({ kind: 'cold', coldStart: 'none' });
    expect(old.run.cold_start).toBeUndefined();
    expect(countClass(old)).toBe('cold-network');
    expect(notFreshReasons(undefined)).toEqual(['no start facts recorded (a receipt of an earlier page)']);

    // Attested but served from a cache: measured part fails first.
    const cached = protocolReceipt({ kind: 'cold', runtimeCache: 'http-cache' });
    expect(coldStartEvidence(cached)).toMatchObject({
      networkCold: false,
      attestedRestart: true,
      attestedClear: true,
      full: false,
    });
    expect(countClass(cached)).toBe('cold-cache');
    expect(countClass(protocolReceipt({ kind: 'cold', runtimeCache: 'unknown' }))).toBe('cold-unknown');
  });

  it('names every way a start is not fresh', () => {
    const base = {
      navigation_type: 'navigate',
      restored_from_bfcache: false,
      first_navigation_of_tab: true,
      runs_before_in_page: 0,
      navigation_to_result_ms: 10,
    };
    expect(notFreshReasons(base)).toEqual([]);
    expect(notFreshReasons({ ...base, navigation_type: 'back_forward', restored_from_bfcache: true })).toEqual([
      'the page was opened by back/forward',
      'the page came back from the back/forward cache',
    ]);
    expect(notFreshReasons({ ...base, navigation_type: null, first_navigation_of_tab: null })).toEqual([
      'no navigation entry',
      'the first document of the tab could not be told',
    ]);
    expect(
      notFreshReasons({
        ...base,
        navigation_type: 'prerender',
        first_navigation_of_tab: false,
        runs_before_in_page: 3,
      }),
    ).toEqual([
      'the page was opened by "prerender"',
      'not the first page of its tab',
      '3 earlier run(s) on the same page',
    ]);
  });

  it('a driver statement counts like a tester tap, each with its source', () => {
    const r = protocolReceipt({ kind: 'cold', coldStart: 'not-attested' });
    const at = new Date(Date.parse(r.run.started_at) - 1000).toISOString();
    r.run.attestations = [
      {
        claim: 'browser-restarted',
        source: 'driver',
        by: 'drb field-run',
        how: 'started Chromium with a new, empty profile',
        at,
      },
      {
        claim: 'site-data-cleared',
        source: 'driver',
        by: 'drb field-run',
        how: 'the profile was new: no site data existed',
        at,
      },
    ];
    expect(validateReceipt(r).problems).toEqual([]);
    expect(countClass(r)).toBe('cold-full');
  });
});

describe('the receipt invariants keep the two parts apart and honest', () => {
  it('accepts the builder receipts of every kind of start', () => {
    for (const coldStart of ['full', 'not-attested', 'reload', 'second-in-page', 'none'] as const) {
      expect(validateReceipt(buildReceipt({ kind: 'cold', coldStart })).problems, coldStart).toEqual([]);
    }
    expect(validateReceipt(buildReceipt({ kind: 'warm' })).problems).toEqual([]);
  });

  it('refuses start facts or attestations on a warm receipt, a claim stated twice or after the start, and a result time that contradicts the run', () => {
    const warm = buildReceipt({ kind: 'warm' });
    warm.run.attestations = [testerAttestation('browser-restarted', '2026-01-01T00:00:00Z')];
    warm.run.cold_start = {
      navigation_type: 'navigate',
      restored_from_bfcache: false,
      first_navigation_of_tab: true,
      runs_before_in_page: 0,
      navigation_to_result_ms: 3,
    };
    expect(checkColdStartRecord(warm).map((p) => p.path)).toEqual(['run.cold_start', 'run.attestations']);

    const cold = buildReceipt({ kind: 'cold' });
    const late = new Date(Date.parse(cold.run.started_at) + 1).toISOString();
    cold.run.attestations = [...cold.run.attestations!, testerAttestation('browser-restarted', late)];
    expect(checkColdStartRecord(cold)).toEqual([
      { path: 'run.attestations[2].claim', message: '"browser-restarted" is stated more than once' },
      {
        path: 'run.attestations[2].at',
        message: 'is after the run started: an attestation about the start is stated before it',
      },
    ]);

    const noResult = buildReceipt({ kind: 'cold' });
    noResult.run.cold_start!.navigation_to_result_ms = null;
    expect(checkColdStartRecord(noResult)).toEqual([
      { path: 'run.cold_start.navigation_to_result_ms', message: 'is null although the first inference completed' },
    ]);
    const early = buildReceipt({ kind: 'cold' });
    early.status_transitions[0].at_ms = 500;
    early.run.cold_start!.navigation_to_result_ms = 100;
    expect(checkColdStartRecord(early)).toEqual([
      { path: 'run.cold_start.navigation_to_result_ms', message: 'is 100, before the run started (500)' },
    ]);
    const failed = buildReceipt({ kind: 'cold', failed: { stage: 'fetch', reason: 'offline' } });
    expect(checkColdStartRecord(failed)).toEqual([]);
    failed.run.cold_start!.navigation_to_result_ms = 10_000;
    expect(checkColdStartRecord(failed)).toEqual([
      { path: 'run.cold_start.navigation_to_result_ms', message: 'is set although no inference completed' },
    ]);

    const perRun = buildReceipt({ kind: 'cold' });
    perRun.runtime = { ...perRun.runtime, files: [], fetch_method: 'per-run-url' };
    expect(checkColdStartRecord(perRun)).toEqual([
      { path: 'runtime.fetch_method', message: 'is "per-run-url" but no runtime file is listed' },
    ]);
  });
});

describe('protocol mode and drb receipts summarize agree on every count', () => {
  it('gives the same counts for a session with every kind of run', async () => {
    const session: DeviceReceipt[] = [
      ...Array.from({ length: 3 }, () => protocolReceipt({ kind: 'cold' })),
      protocolReceipt({ kind: 'cold', coldStart: 'not-attested' }),
      protocolReceipt({ kind: 'cold', coldStart: 'reload' }),
      protocolReceipt({ kind: 'cold', coldStart: 'second-in-page' }),
      protocolReceipt({ kind: 'cold', runtimeCache: 'http-cache' }),
      protocolReceipt({ kind: 'cold', runtimeCache: 'unknown', coldStart: 'not-attested' }),
      overlappedByAnotherTab(protocolReceipt({ kind: 'cold' })),
      protocolReceipt({ kind: 'cold', hidden: true }),
      ...Array.from({ length: 7 }, () => protocolReceipt({ kind: 'warm' })),
      overlappedByAnotherTab(protocolReceipt({ kind: 'warm' })),
      protocolReceipt({ kind: 'warm', failed: { stage: 'warm_inference', reason: 'worker crashed' } }),
    ];
    const p = protocolProgress(session, PROTOCOL);
    expect(p).toEqual({
      cold: 3,
      coldNetworkOnly: 3,
      coldFromCache: 1,
      coldUnknown: 1,
      measured: { networkCold: 6, freshStart: 4 },
      attested: 6,
      warm: 7,
      failed: 1,
      overlapped: 2,
      noisy: 1,
      minCold: 5,
      minWarm: 20,
    });
    const summarizer = new ReceiptsSummarizer();
    for (const r of session) summarizer.addReceipt(r);
    const summary = await summarizer.finish();
    // The failed receipt's route differs (no completed EP): the summary counts it as a related failure.
    const target = summary.targets.find((t) => t.identity.route.completed_ep !== null)!;
    const failed = target.counts.failed + target.related.failed_receipt_ids.length;
    expect({
      cold: target.counts.full_cold,
      coldNetworkOnly: target.counts.clean_cold - target.counts.full_cold,
      coldFromCache: target.cold_set_aside.served_from_cache.length,
      coldUnknown: target.cold_set_aside.cache_state_unknown.length,
      measured: { networkCold: target.counts.measured_network_cold, freshStart: target.counts.measured_fresh_start },
      attested: target.counts.attested_cold,
      warm: target.counts.clean_warm,
      failed,
      overlapped: target.counts.overlap_set_aside,
      noisy: target.counts.noisy,
      minCold: target.counts.min_cold,
      minWarm: target.counts.min_warm,
    }).toEqual(p);
    expect(target.cold_set_aside.not_fresh_start).toHaveLength(2);
    expect(target.cold_set_aside.not_attested).toHaveLength(1);
    expect(progressLine(p)).toBe(
      'cold 3 of 5 receipts, warm 7 of 20 receipts; not counted: 3 cold not a full protocol cold, 1 cold from a cache, 1 cold of unknown cache state, 2 overlapped by another run, 1 page hidden, 1 failed',
    );
    expect(coldEvidenceLine(p)).toBe(
      'cold receipts: 6 network-cold (4 from a fresh start) measured, 6 restart and clear attested, 3 both',
    );
  });

  it('counts a receipt taken back twice once', () => {
    const cold = protocolReceipt({ kind: 'cold' });
    expect(protocolProgress([cold, structuredClone(cold)], PROTOCOL).cold).toBe(1);
  });

  it('asks for a cold run only as the first run of a page load, and for the cold steps after', () => {
    const p = protocolProgress([], PROTOCOL);
    expect(nextStep(p, false)).toBe('cold');
    expect(nextStep(p, true)).toBe('warm');
    const warmDone = { ...p, warm: 20 };
    expect(nextStep(warmDone, true)).toBe('restart');
    expect(nextStep(warmDone, false)).toBe('cold');
    expect(nextStep({ ...warmDone, cold: 5 }, true)).toBe('done');
  });
});
