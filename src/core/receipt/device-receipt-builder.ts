/**
 * The device receipt, built directly from a run's data: the page starts a draft in the receipt's own shape
 * (`draftDeviceReceipt`), writes each measured value into its field as the run measures it (the worker's load and
 * series results are receipt sections already), and `finishDeviceReceipt` derives what follows from the rest
 * (warm statistics, total time, the fallback rule, redaction, the threads note, the outcome) and validates it.
 * Pure: Node tests drive it with hand-built drafts.
 */
import type { CatalogModel } from '../catalog/catalog.ts';
import {
  appSection,
  modelSection,
  receiptProblems,
  redactedErrors,
  routeSection,
  unloadedEngine,
  type PageBuild,
  type RouteRequest,
} from './receipt-envelope.ts';
import { coldFromCache } from './cache-state.ts';
import { checkReceiptInvariants } from './receipt-invariants.ts';
import {
  DEVICE_RECEIPT_SCHEMA,
  DeviceReceipt,
  type Capabilities,
  type ColdStartAttestation,
  type ColdStartFacts,
  type RunKind,
  type Stage,
  type Timings,
} from './receipt.ts';
import { receiptText } from '../text/redact.ts';
import { summarize } from '../stats/stats.ts';
import { memoryUnavailable } from './memory-figures.ts';

/** A device receipt while its run goes on: the fields finishing derives are absent, the page facts not yet known null. */
export type DeviceReceiptDraft = Omit<
  DeviceReceipt,
  'created_at' | 'timings' | 'capabilities' | 'lifecycle' | 'outcome'
> & {
  /** The measured timings; `warm_stats` and `total_ms` are derived when the run finishes. */
  timings: Omit<Timings, 'warm_stats' | 'total_ms'>;
  capabilities: Capabilities | null;
  lifecycle: DeviceReceipt['lifecycle'] | null;
};

/** What a device run knows when it starts. */
export interface DeviceRunStart {
  receiptId: string;
  runId: string;
  kind: RunKind;
  /** ISO time the run started. */
  startedAt: string;
  /** Page-clock ms the run started (the first status transition, `idle`). */
  startedAtMs: number;
  /** Timed runs asked for (warm runs); null for a cold run. */
  warmRuns: number | null;
  build: PageBuild;
  pageUrl: string;
  model: CatalogModel;
  /** The input's id and pinned SHA-256 (replaced by the hash of the served bytes once the worker loaded them). */
  input: DeviceReceipt['input'];
  request: RouteRequest;
  previousRunInterrupted: DeviceReceipt['run']['previous_run_interrupted'];
  /** Cold runs: what the page knows about its own start (the time to the first result is written when it comes). */
  coldStart?: Omit<ColdStartFacts, 'navigation_to_result_ms'>;
  /** Cold runs: what the tester (or a driver) stated about the start before the run (see attestation.ts). */
  attestations?: ColdStartAttestation[];
}

/**
 * A draft with every field at its "nothing measured yet" value.
 * @param start what the run knows when it starts
 */
export function draftDeviceReceipt(start: DeviceRunStart): DeviceReceiptDraft {
  return {
    schema: DEVICE_RECEIPT_SCHEMA,
    receipt_id: start.receiptId,
    evidence_state: 'DEVICE_RECEIPT',
    app: appSection(start.build, start.pageUrl),
    run: {
      id: start.runId,
      kind: start.kind,
      started_at: start.startedAt,
      warm_runs_requested: start.warmRuns,
      inferences_completed: 0,
      previous_run_interrupted: start.previousRunInterrupted,
      // Derived from the files' cache states when the run finishes.
      cold_from_cache: null,
      wake_lock: 'unsupported',
      // Measured and attested start facts belong to cold runs only.
      cold_start:
        start.kind === 'cold' && start.coldStart !== undefined
          ? { ...start.coldStart, navigation_to_result_ms: null }
          : null,
      attestations: start.kind === 'cold' ? [...(start.attestations ?? [])] : [],
    },
    engine: unloadedEngine(start.model.engine),
    route: routeSection(start.request, null),
    model: modelSection(start.model, null, { files: [], integrity: 'not-loaded' }),
    runtime: { build: null, files: [] },
    site_storage: { usage_before_bytes: null, usage_after_bytes: null, cache_names_before: [], other_caches_before: 0 },
    input: start.input,
    output: null,
    timings: {
      model_fetch_ms: null,
      runtime_fetch_ms: null,
      session_create_ms: null,
      first_inference_ms: null,
      warmup_ms: null,
      warm_samples_ms: [],
    },
    status_transitions: [{ status: 'idle', at_ms: start.startedAtMs }],
    navigation: null,
    resources: [],
    capabilities: null,
    lifecycle: null,
    errors: [],
  };
}

/**
 * A non-fatal `ThreadsLimited` entry for `errors` when the engine ran fewer WASM threads than requested, saying why:
 * a receipt with threads_effective 1 must not leave the reader guessing (WebKit hides SharedArrayBuffer, a host
 * without COOP/COEP gives no isolation).
 * @param route the receipt's route (threads requested and effective)
 * @param capabilities the capability probe's result
 */
export function threadsLimitedError(
  route: Pick<DeviceReceipt['route'], 'threads_requested' | 'threads_effective'>,
  capabilities: Capabilities | null,
): DeviceReceipt['errors'][number] | null {
  const requested = route.threads_requested;
  const effective = route.threads_effective;
  if (requested === null || effective === null || effective >= requested) return null;
  const why = !capabilities?.cross_origin_isolated
    ? 'the page is not cross-origin isolated (the host sent no COOP/COEP headers), so there is no SharedArrayBuffer'
    : !capabilities.shared_array_buffer
      ? 'this browser hides SharedArrayBuffer although the page is cross-origin isolated'
      : 'the engine used fewer threads than requested';
  return {
    stage: 'session',
    name: 'ThreadsLimited',
    message: `WASM threads limited to ${effective} (${requested} requested): ${why}`,
  };
}

/** How a run ended, and the page facts known only at its end. */
export interface DeviceRunEnd {
  /** ISO time the receipt is made. */
  createdAt: string;
  startedAtMs: number;
  endedAtMs: number;
  /** Why the run failed and in which stage; null for a run that completed. */
  failure: { reason: string; stage: Stage | null } | null;
}

/** A finished receipt and the problems validation found (empty when it may be offered). */
export interface FinishedReceipt {
  receipt: DeviceReceipt;
  problems: string[];
}

/**
 * Derives the rest of the receipt from the draft and validates it (schema, then invariants).
 * @param draft the run's draft, with its capabilities and lifecycle filled in
 * @param end how the run ended
 */
export function finishDeviceReceipt(
  draft: DeviceReceiptDraft & { capabilities: Capabilities; lifecycle: DeviceReceipt['lifecycle'] },
  end: DeviceRunEnd,
): FinishedReceipt {
  const threadsNote = threadsLimitedError(draft.route, draft.capabilities);
  const { route } = draft;
  const receipt: DeviceReceipt = {
    ...draft,
    run: {
      ...draft.run,
      cold_from_cache: draft.run.kind === 'cold' ? coldFromCache([...draft.model.files, ...draft.runtime.files]) : null,
    },
    created_at: end.createdAt,
    // The fallback rule and redaction, once, whatever the load wrote into the route.
    route: routeSection(
      { ep: route.requested_ep, threads: route.threads_requested, allowFallback: route.allow_fallback },
      route,
    ),
    timings: {
      ...draft.timings,
      warm_stats: summarize(draft.timings.warm_samples_ms),
      total_ms: Math.max(0, end.endedAtMs - end.startedAtMs),
    },
    // Every new receipt says where its work ran and what memory it took, null with the reason where nothing was read.
    check: draft.check ?? null,
    placement: draft.placement ?? null,
    memory: draft.memory ?? memoryUnavailable('the run ended before the worker reported its memory'),
    errors: redactedErrors([...(threadsNote ? [threadsNote] : []), ...draft.errors]),
    outcome: end.failure
      ? { status: 'failed', reason: receiptText(end.failure.reason), failed_stage: end.failure.stage }
      : { status: 'ok', reason: null, failed_stage: null },
  };
  return { receipt, problems: receiptProblems(DeviceReceipt, receipt, checkReceiptInvariants) };
}
