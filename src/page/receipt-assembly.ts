/**
 * Assembles a device receipt from what a run recorded, then validates it (schema + invariants) before the page
 * offers it. Pure: no browser globals, so unit tests can drive it with hand-built records.
 */
import { checkReceiptInvariants, type InvariantProblem } from '../core/receipt-invariants.ts';
import {
  DEVICE_RECEIPT_SCHEMA,
  DeviceReceipt,
  type Capabilities,
  type EngineName,
  type ExecutionProvider,
  type ModelStatus,
  type ResourceEntry,
  type RouteAttempt,
  type RunKind,
  type Stage,
} from '../core/receipt.ts';
import type { CatalogModel } from '../core/catalog.ts';
import { boundCode } from '../core/bounded-text.ts';
import { receiptText, redactUrl } from '../core/redact.ts';
import { summarize } from '../core/stats.ts';
import { issueLines } from '../core/zod-issues.ts';
import type { LoadedFile, OutputDigestData } from '../../workers/engines/engine.ts';

/** Everything a run recorded, in page-clock milliseconds. */
export interface RunRecord {
  receiptId: string;
  createdAt: string;
  runId: string;
  kind: RunKind;
  startedAt: string;
  startedAtMs: number;
  endedAtMs: number;
  warmRunsRequested: number | null;
  app: { version: string; commit: string | null; pageUrl: string };
  engine: { name: EngineName; version: string };
  request: { ep: ExecutionProvider; threads: number | null; allowFallback: boolean };
  attempts: RouteAttempt[];
  completedEp: ExecutionProvider | null;
  fallbackReason: string | null;
  threadsEffective: number | null;
  model: CatalogModel;
  files: LoadedFile[];
  integrity: 'verified' | 'unpinned' | 'mismatch' | 'not-loaded';
  input: { id: string; sha256: string };
  output: OutputDigestData | null;
  fetchMs: number | null;
  sessionMs: number | null;
  firstInferenceMs: number | null;
  warmupMs: number | null;
  warmSamplesMs: number[];
  inferencesCompleted: number;
  transitions: Array<{ status: ModelStatus; at_ms: number }>;
  navigation: DeviceReceipt['navigation'];
  resources: ResourceEntry[];
  capabilities: Capabilities;
  lifecycle: DeviceReceipt['lifecycle'];
  errors: Array<{ stage: Stage | null; name: string; message: string }>;
  failure: { reason: string; stage: Stage | null } | null;
  previousRunInterrupted: DeviceReceipt['run']['previous_run_interrupted'];
}

/** A receipt and the problems validation found (empty when it may be offered). */
export interface AssembledReceipt {
  receipt: DeviceReceipt;
  problems: string[];
}

/**
 * A non-fatal `ThreadsLimited` entry for `errors` when the engine ran fewer WASM threads than requested, saying why
 * (H5, WebKit lane): a receipt with threads_effective 1 must not leave the reader guessing.
 * @param record what the run recorded
 */
export function threadsLimitedError(record: Pick<RunRecord, 'request' | 'threadsEffective' | 'capabilities'>): RunRecord['errors'][number] | null {
  const requested = record.request.threads;
  const effective = record.threadsEffective;
  if (requested === null || effective === null || effective >= requested) return null;
  const caps = record.capabilities;
  const why = !caps?.cross_origin_isolated
    ? 'the page is not cross-origin isolated (the host sent no COOP/COEP headers), so there is no SharedArrayBuffer'
    : !caps.shared_array_buffer
      ? 'this browser hides SharedArrayBuffer although the page is cross-origin isolated'
      : 'the engine used fewer threads than requested';
  return { stage: 'session', name: 'ThreadsLimited', message: `WASM threads limited to ${effective} (${requested} requested): ${why}` };
}

/**
 * Builds and validates the receipt for `record`.
 * @param record what the run recorded
 */
export function assembleReceipt(record: RunRecord): AssembledReceipt {
  const failed = record.failure !== null;
  const threadsNote = threadsLimitedError(record);
  const output = record.output && record.output.sha256 !== null ? { ...record.output, sha256: record.output.sha256 } : null;
  const receipt: DeviceReceipt = {
    schema: DEVICE_RECEIPT_SCHEMA,
    receipt_id: record.receiptId,
    created_at: record.createdAt,
    evidence_state: 'DEVICE_RECEIPT',
    app: { name: 'device-receipts-bench', version: record.app.version, commit: record.app.commit, page_url: redactUrl(record.app.pageUrl) },
    run: {
      id: record.runId,
      kind: record.kind,
      started_at: record.startedAt,
      warm_runs_requested: record.warmRunsRequested,
      inferences_completed: record.inferencesCompleted,
      previous_run_interrupted: record.previousRunInterrupted,
    },
    engine: record.engine,
    route: {
      requested_ep: record.request.ep,
      completed_ep: record.completedEp,
      fallback_reason:
        record.completedEp !== null && record.completedEp !== record.request.ep && record.fallbackReason !== null ? receiptText(record.fallbackReason) : null,
      allow_fallback: record.request.allowFallback,
      threads_requested: record.request.threads,
      threads_effective: record.threadsEffective,
      attempts: record.attempts.map((a) => ({ ...a, reason: a.reason === null ? null : receiptText(a.reason) })),
    },
    model: {
      id: record.model.id,
      kind: record.model.kind,
      task: record.model.task,
      dtype: record.model.dtype,
      source: record.model.source.type,
      revision: record.model.source.type === 'huggingface' ? record.model.source.revision : null,
      integrity: record.integrity,
      files: record.files,
    },
    input: record.input,
    output,
    timings: {
      model_fetch_ms: record.fetchMs,
      session_create_ms: record.sessionMs,
      first_inference_ms: record.firstInferenceMs,
      warmup_ms: record.warmupMs,
      warm_samples_ms: record.warmSamplesMs,
      warm_stats: summarize(record.warmSamplesMs),
      total_ms: Math.max(0, record.endedAtMs - record.startedAtMs),
    },
    status_transitions: record.transitions,
    navigation: record.navigation,
    resources: record.resources,
    capabilities: record.capabilities,
    lifecycle: record.lifecycle,
    errors: [...(threadsNote ? [threadsNote] : []), ...record.errors].map((e) => ({ ...e, name: boundCode(e.name), message: receiptText(e.message) })),
    outcome: failed
      ? { status: 'failed', reason: receiptText(record.failure!.reason), failed_stage: record.failure!.stage }
      : { status: 'ok', reason: null, failed_stage: null },
  };
  const problems: string[] = [];
  const parsed = DeviceReceipt.safeParse(receipt);
  if (!parsed.success) {
    problems.push(...issueLines(parsed.error));
  } else {
    problems.push(...checkReceiptInvariants(parsed.data).map((p: InvariantProblem) => `${p.path}: ${p.message}`));
  }
  return { receipt, problems };
}

/**
 * A readable download file name: `drb-<engine>-<ep>-<kind>-<timestamp>.json` (timestamp from created_at, colons
 * removed so every file system accepts it).
 * @param receipt the receipt to name
 */
export function receiptFileName(receipt: DeviceReceipt): string {
  const ep = receipt.route.completed_ep ?? receipt.route.requested_ep;
  const stamp = receipt.created_at.replace(/\.\d+/, '').replace(/[:]/g, '').replace(/[^0-9A-Za-z+-]/g, '-');
  return `drb-${receipt.engine.name}-${ep}-${receipt.run.kind}-${stamp}.json`;
}
