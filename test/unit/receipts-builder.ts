/**
 * Receipts with chosen values for the grouping, statistics and promotion tests, made from the page's own receipts:
 * each starts as a copy of a receipt the real page produced (test/fixtures/receipts/), keeps everything the test
 * does not set (capabilities, navigation, resources, input, output digest, status transitions), and sets only the
 * fields the test controls (timings, route, device, commit, model id, lifecycle, outcome), keeping every receipt
 * invariant true (warm statistics are recomputed from the samples).
 */
import { coldFromCache } from '../../src/core/receipt/cache-state.ts';
import { TESTER_TAP } from '../../src/core/receipt/attestation.ts';
import { summarize } from '../../src/core/stats/stats.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { pageReceipt } from './receipts-fixtures.ts';

let counter = 0;

/** Options for one built receipt; every field has a default. */
export interface BuildOptions {
  kind?: 'cold' | 'warm';
  ep?: 'wasm' | 'webgpu';
  completedEp?: 'wasm' | 'webgpu' | null;
  threads?: number;
  coldMs?: { fetch: number; session: number; first: number };
  warmSamples?: number[];
  failed?: { stage: DeviceReceipt['outcome']['failed_stage']; reason: string };
  hidden?: boolean;
  userAgent?: string;
  commit?: string;
  modelId?: string;
  jsHeapUsed?: number | null;
  interruptedAt?: DeviceReceipt['run']['previous_run_interrupted'];
  /** Cold runs: where the runtime files came from (default every file over the network: a truly cold run);
   *  `http-cache` makes a run served from a cache, `unknown` one whose source could not be told. */
  runtimeCache?: 'network' | 'http-cache' | 'unknown';
  /** Cold runs: the start as the page measured it and as a tester attested it (default `full`: the tab's first page,
   *  navigated to, no earlier run, with the browser restart and the site data clear attested: a full protocol cold);
   *  `not-attested` measures a fresh start nobody attested; `reload` an attested start after a plain reload;
   *  `second-in-page` an attested start after an earlier run on the same page; `none` records neither (a receipt of
   *  an earlier page). */
  coldStart?: 'full' | 'not-attested' | 'reload' | 'second-in-page' | 'none';
}

/** The model id of the page's tiny fixture, which builder receipts carry unless told otherwise. */
export const BUILDER_MODEL_ID = 'ort-tiny-xenc';

/**
 * A receipt that passes validateReceipt, made from a page receipt with the given values.
 * Totals: a cold total is fetch + session + first + 1 ms; a warm total is the sum of samples + 2 ms.
 */
export function buildReceipt(options: BuildOptions = {}): DeviceReceipt {
  counter++;
  const kind = options.kind ?? 'cold';
  const ep = options.ep ?? 'wasm';
  const failed = options.failed ?? null;
  // The device (capabilities) always comes from the same page receipt, so only `userAgent` changes it.
  const device = pageReceipt(
    (r) => r.run.kind === 'cold' && r.outcome.status === 'ok' && r.route.completed_ep === 'wasm',
    'an ok cold wasm run',
  );
  const r = failed
    ? pageReceipt((x) => x.outcome.status === 'failed' && x.run.previous_run_interrupted === null, 'a failed run')
    : pageReceipt(
        (x) =>
          x.run.kind === kind &&
          x.outcome.status === 'ok' &&
          x.route.completed_ep === 'wasm' &&
          x.model.id === BUILDER_MODEL_ID,
        `an ok ${kind} wasm run of ${BUILDER_MODEL_ID}`,
      );
  const completed = failed ? null : options.completedEp === undefined ? ep : options.completedEp;
  const threads = options.threads ?? 1;
  const cold = options.coldMs ?? { fetch: 12, session: 40, first: 3 };
  const samples =
    kind === 'warm' && !failed ? (options.warmSamples ?? Array.from({ length: 20 }, (_, i) => 1 + (i % 5) * 0.1)) : [];
  const total = kind === 'cold' ? cold.fetch + cold.session + cold.first + 1 : samples.reduce((a, b) => a + b, 0) + 2;
  const fellBack = completed !== null && completed !== ep;
  const id = `r${String(counter).padStart(8, '0')}`;

  r.receipt_id = id;
  r.app.commit = options.commit ?? 'a'.repeat(40);
  r.run = {
    ...r.run,
    id: `run-${id}`,
    kind,
    warm_runs_requested: kind === 'warm' ? samples.length || 20 : null,
    inferences_completed: failed ? 0 : kind === 'cold' ? 1 : samples.length + 1,
    previous_run_interrupted: options.interruptedAt ?? null,
  };
  r.route = {
    requested_ep: ep,
    completed_ep: completed,
    fallback_reason: fellBack ? 'no WebGPU adapter' : null,
    allow_fallback: fellBack,
    threads_requested: threads,
    threads_effective: threads,
    attempts: [
      ...(fellBack
        ? [
            {
              ep,
              threads: null,
              outcome: 'failed' as const,
              reason: 'no WebGPU adapter',
              started_at_ms: 1,
              ended_at_ms: 2,
            },
          ]
        : []),
      {
        ep: completed ?? ep,
        threads,
        outcome: failed ? ('failed' as const) : ('succeeded' as const),
        reason: failed ? failed.reason : null,
        started_at_ms: 2,
        ended_at_ms: 5,
      },
    ],
  };
  r.model.id = options.modelId ?? BUILDER_MODEL_ID;
  r.timings = {
    model_fetch_ms: kind === 'cold' && !failed ? cold.fetch : null,
    session_create_ms: kind === 'cold' && !failed ? cold.session : null,
    first_inference_ms: kind === 'cold' && !failed ? cold.first : null,
    warmup_ms: kind === 'warm' && !failed ? 1.5 : null,
    warm_samples_ms: samples,
    warm_stats: summarize(samples),
    total_ms: total,
  };
  r.capabilities = structuredClone(device.capabilities);
  if (options.userAgent !== undefined) r.capabilities.user_agent = options.userAgent;
  if (options.jsHeapUsed === null) r.capabilities.js_heap = null;
  else
    r.capabilities.js_heap = {
      js_heap_size_limit: 4e9,
      total_js_heap_size: 3e7,
      used_js_heap_size: options.jsHeapUsed ?? 2e7,
    };
  r.lifecycle = { ...r.lifecycle, hidden_during_run: options.hidden ?? false, frozen_during_run: false };
  if (failed) {
    // A run that failed while fetching loaded nothing; a later failure had its files loaded and verified.
    const ok = pageReceipt(
      (x) => x.outcome.status === 'ok' && x.model.id === BUILDER_MODEL_ID,
      `an ok run of ${BUILDER_MODEL_ID}`,
    );
    r.model.files = failed.stage === 'fetch' ? [] : ok.model.files;
    r.model.integrity = failed.stage === 'fetch' ? 'not-loaded' : 'verified';
    r.output = null;
    r.errors = [{ stage: failed.stage, name: 'Error', message: failed.reason }];
    r.outcome = { status: 'failed', reason: failed.reason, failed_stage: failed.stage };
  }
  // Cache states as the page records them: model files over the network (fetched with no-store), runtime files as
  // the test asks; cold_from_cache follows from them exactly as the page derives it.
  r.model.files = r.model.files.map((f) => ({ ...f, cache_state: 'network' as const, cache_note: null }));
  const state = options.runtimeCache ?? 'network';
  r.runtime = {
    files: r.runtime.files.map((f) => ({
      ...f,
      cache_state: state,
      cache_note: state === 'unknown' ? 'no resource timing entry for this file' : null,
    })),
  };
  r.run.cold_from_cache = kind === 'cold' ? coldFromCache([...r.model.files, ...r.runtime.files]) : null;
  const start = kind === 'cold' ? (options.coldStart ?? 'full') : 'none';
  if (start === 'none') {
    delete r.run.cold_start;
    delete r.run.attestations;
    if (kind === 'warm') r.run.cold_start = null;
    if (kind === 'warm') r.run.attestations = [];
  } else {
    const ranAt = r.status_transitions.at(-1)?.at_ms ?? 1;
    r.run.cold_start = {
      navigation_type: start === 'reload' ? 'reload' : 'navigate',
      restored_from_bfcache: false,
      first_navigation_of_tab: start !== 'reload',
      runs_before_in_page: start === 'second-in-page' ? 1 : 0,
      navigation_to_result_ms: failed ? null : ranAt,
    };
    const at = new Date(Date.parse(r.run.started_at) - 60_000).toISOString();
    r.run.attestations =
      start === 'not-attested'
        ? []
        : [
            { claim: 'site-data-cleared', source: 'tester', by: 'tester', how: TESTER_TAP['site-data-cleared'], at },
            { claim: 'browser-restarted', source: 'tester', by: 'tester', how: TESTER_TAP['browser-restarted'], at },
          ];
  }
  return r;
}
