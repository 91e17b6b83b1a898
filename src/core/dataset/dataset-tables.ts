/**
 * The receipts dataset (`drb receipts export`): four flat tables made from validated receipts, with documented,
 * stable column names and types, so DuckDB, pandas, Polars, Spark or a dataset viewer can read raw results without a
 * script of ours. One row per receipt (`receipts`), one per warm sample of a device receipt (`samples`), one per
 * measured generation sample (`generation_samples`) and one per comparison round and route (`comparison_rounds`).
 *
 * Pure: receipts in, rows out. Every row is a plain object keyed by column name; a value is a string, a number, a
 * boolean or null (timestamps are ISO 8601 UTC strings here; the Parquet writer stores them as timestamps). A column's
 * meaning never changes within DATASET_VERSION: a new column or a changed meaning is a new version.
 */
import type { ComparisonReceipt } from '../comparison/comparison-receipt.ts';
import type { GenerationReceipt } from '../generation/generation-receipt.ts';
import type { SuiteReceipt } from '../suite/suite-receipt.ts';
import {
  overlapped,
  type Capabilities,
  type DeviceReceipt,
  type ModelFile,
  type RuntimeFile,
} from '../receipt/receipt.ts';
import {
  canonicalJson,
  deviceIdentity,
  generationTargetIdentity,
  identityKey,
  targetIdentity,
  type DeviceIdentity,
} from '../evidence/target-identity.ts';
import { suiteDevice, suiteTargetIdentity } from '../evidence/suite-accumulator.ts';
import { sha256Hex } from '../bytes/sha256.ts';
import { countClass } from '../receipt/cold-start.ts';

/** The dataset's version: the column names, types and meanings of every table. */
export const DATASET_VERSION = 'drb.dataset.v1';

/** A column's type, as every format stores it (Parquet physical/logical type in docs/dataset.md). */
export type ColumnType = 'string' | 'int64' | 'double' | 'boolean' | 'timestamp';

/** One column: its name, type and what it holds. */
export interface ColumnSpec {
  name: string;
  type: ColumnType;
  doc: string;
}

/** One cell: null where a receipt kind has no such value or nothing was measured. */
export type Cell = string | number | boolean | null;

/** One row of a table, keyed by column name. */
export type Row = Record<string, Cell>;

/** The tables of the dataset, in the order they are written. */
export const TABLE_NAMES = ['receipts', 'samples', 'generation_samples', 'comparison_rounds'] as const;
export type TableName = (typeof TABLE_NAMES)[number];

/** The receipt kinds the dataset holds, as the `receipt_kind` column names them. */
export type ReceiptKind = 'device' | 'generation' | 'suite' | 'comparison';

/** A receipt that passed validation, with its kind. */
export type ValidReceipt =
  | { kind: 'device'; receipt: DeviceReceipt }
  | { kind: 'generation'; receipt: GenerationReceipt }
  | { kind: 'suite'; receipt: SuiteReceipt }
  | { kind: 'comparison'; receipt: ComparisonReceipt };

/** Where a receipt came from: the file as shown and the SHA-256 of the receipt's bytes. */
export interface RowSource {
  file: string;
  sha256: string;
}

const c = (name: string, type: ColumnType, doc: string): ColumnSpec => ({ name, type, doc });

/** Columns of `receipts`: one row per receipt of any kind (null where the kind has no such field). */
export const RECEIPT_COLUMNS: readonly ColumnSpec[] = [
  // identity
  c('receipt_id', 'string', "The receipt's own random id (a receipt counts once)."),
  c('receipt_kind', 'string', '`device` (one cold or warm run), `generation`, `suite` or `comparison`.'),
  c('receipt_schema', 'string', 'The receipt schema id, e.g. drb.device-receipt.v2.'),
  c('run_kind', 'string', 'Device receipts: `cold` or `warm`; null for the other kinds.'),
  c('created_at', 'timestamp', 'When the page made the receipt (UTC, milliseconds).'),
  c(
    'target_key',
    'string',
    'The target key `drb receipts summarize` gives it (t- device, g- generation, s- suite); null for comparisons.',
  ),
  c(
    'device_key',
    'string',
    'd- + 12 hex digits of the SHA-256 of the device identity as recorded (the leaderboard device fingerprint); null when no probe was recorded.',
  ),
  c(
    'source_file',
    'string',
    'The input file as shown (relative to the working folder when inside it); `<bundle>#receipts[n]` for a bundled receipt.',
  ),
  c(
    'source_sha256',
    'string',
    "SHA-256 of the receipt's bytes (for a bundled receipt: of the bytes its own download would have).",
  ),
  // build
  c('app_version', 'string', 'device-receipts-bench version of the page that ran.'),
  c('app_commit', 'string', 'Git commit of the page build, when known.'),
  c('app_page_url', 'string', "The page's origin and path (never a query or fragment)."),
  c('engine_name', 'string', '`ort`, `transformers` or `webllm`.'),
  c('engine_version', 'string', 'The engine version as the runtime reported it.'),
  c(
    'runtime_build',
    'string',
    'onnxruntime-web build that ran: plain, asyncify, jspi, jsep; null when none or not recorded.',
  ),
  // model
  c('model_id', 'string', 'Catalog model id (or the user-model id).'),
  c('model_kind', 'string', '`fixture` (random weights: pipeline checks, not quality), `real` or `user`.'),
  c('model_task', 'string', 'rerank, score-candidates, generate or raw.'),
  c('model_dtype', 'string', 'The weights dtype, when the model names one.'),
  c('model_source', 'string', 'page-origin, huggingface, other or user-supplied.'),
  c('model_revision', 'string', 'Pinned revision, when known.'),
  c('model_integrity', 'string', 'verified, unpinned, mismatch or not-loaded.'),
  c('model_files', 'int64', 'Number of model files loaded.'),
  c('model_bytes', 'int64', "Sum of the loaded model files' bytes."),
  c('model_files_sha256', 'string', "The loaded files' SHA-256, sorted, space-separated."),
  // route
  c('requested_ep', 'string', "Execution provider asked for: wasm or webgpu (comparisons: the baseline route's)."),
  c('completed_ep', 'string', 'Execution provider that really ran; null when none completed.'),
  c('allow_fallback', 'boolean', 'Whether the run was allowed to fall back to wasm.'),
  c('fell_back', 'boolean', 'The completed EP differs from the requested one.'),
  c('fallback_reason', 'string', 'Why it fell back (bounded text from the receipt).'),
  c('threads_requested', 'int64', 'WASM threads asked for.'),
  c('threads_effective', 'int64', 'WASM threads that ran (1 without cross-origin isolation).'),
  // input
  c('input_id', 'string', 'Device and comparison receipts: the fixed input id.'),
  c('input_sha256', 'string', 'Device and comparison receipts: SHA-256 of the input.'),
  c('suite_id', 'string', 'Suite receipts: the shipped suite id (null for picked files).'),
  c('suite_task', 'string', 'Suite receipts: rerank or score-candidates.'),
  c('suite_items_sha256', 'string', 'Suite receipts: SHA-256 of the items file.'),
  c('suite_candidates_sha256', 'string', 'Suite receipts: SHA-256 of the candidates file.'),
  c(
    'suite_predictions_sha256',
    'string',
    'Suite receipts: SHA-256 of the predictions the run offered (join with drb score reports).',
  ),
  c('prompt_set_id', 'string', 'Generation receipts: the prompt set id.'),
  c('prompt_set_version', 'int64', 'Generation receipts: the prompt set version.'),
  c('prompt_set_sha256', 'string', 'Generation receipts: SHA-256 of the prompt set file.'),
  c('repetitions', 'int64', 'Generation receipts: repetitions planned.'),
  c('max_new_tokens', 'int64', 'Generation receipts: token limit per answer.'),
  c('temperature', 'double', 'Generation receipts: sampling temperature.'),
  c('seed_control', 'string', 'Generation receipts: seeded or no-seed-control.'),
  // device
  c(
    'user_agent',
    'string',
    'The user agent as recorded (reduced to major versions unless the tester chose full details).',
  ),
  c('device_details', 'string', 'reduced or full: how much of the device the tester chose to record.'),
  c('platform', 'string', 'UA-client-hints platform, else navigator.platform.'),
  c('platform_version', 'string', 'UA-client-hints platform version (full details only).'),
  c('device_model', 'string', 'UA-client-hints device model (full details only).'),
  c('mobile', 'boolean', 'UA-client-hints mobile flag (null where the browser has no client hints).'),
  c('hardware_concurrency', 'int64', 'navigator.hardwareConcurrency.'),
  c('device_memory_gb', 'double', 'navigator.deviceMemory, where the browser has it.'),
  c('cross_origin_isolated', 'boolean', 'The page was cross-origin isolated (WASM threads possible).'),
  c('webgpu_adapter_vendor', 'string', 'WebGPU adapter vendor, when an adapter was granted.'),
  c('webgpu_adapter_architecture', 'string', 'WebGPU adapter architecture.'),
  c('webgpu_adapter_device', 'string', 'WebGPU adapter device.'),
  c(
    'webgpu_fallback_adapter',
    'boolean',
    "The adapter is a software (fallback) one such as SwiftShader: WebGPU timings are not a GPU's.",
  ),
  c(
    'js_heap_used_bytes',
    'int64',
    'performance.memory used JS heap at the end (Chromium only; null elsewhere, never estimated).',
  ),
  // outcome
  c('outcome', 'string', 'ok or failed.'),
  c('outcome_reason', 'string', 'Why a run failed (bounded text from the receipt).'),
  c('failed_stage', 'string', 'Device and suite receipts: the stage a failed run died in.'),
  c('errors', 'int64', 'Number of errors the receipt lists.'),
  // stage timings (device)
  c('model_fetch_ms', 'double', 'Device receipts: model download.'),
  c('runtime_fetch_ms', 'double', "Device receipts: the runtime's own download."),
  c('session_create_ms', 'double', 'Device receipts: session creation.'),
  c('first_inference_ms', 'double', 'Device receipts: first inference.'),
  c('warmup_ms', 'double', 'Device receipts: the untimed warm-up.'),
  c('total_ms', 'double', 'Device and suite receipts: total run time.'),
  c('warm_samples', 'int64', 'Device receipts: timed warm samples (rows in `samples`).'),
  c('warm_median_ms', 'double', "Device receipts: the receipt's own warm median."),
  c('warm_p95_ms', 'double', "Device receipts: the receipt's own warm p95 (nearest rank)."),
  c('warm_min_ms', 'double', 'Device receipts: fastest warm sample.'),
  c('warm_max_ms', 'double', 'Device receipts: slowest warm sample.'),
  // generation
  c('load_ms', 'double', 'Generation receipts: engine + model load (cold). Suite receipts: model load.'),
  c('cold_ttft_ms', 'double', 'Generation receipts: TTFT of the warm-up, the first answer after the load.'),
  c('ttft_median_ms', 'double', 'Generation receipts: median TTFT of the ok samples.'),
  c('ttft_p95_ms', 'double', 'Generation receipts: p95 TTFT (nearest rank).'),
  c('decode_tokens_per_s_median', 'double', 'Generation receipts: median decode speed.'),
  c('e2e_median_ms', 'double', 'Generation receipts: median end-to-end time per answer.'),
  c(
    'sustained_speed_ratio',
    'double',
    'Generation receipts: median decode speed of the last five samples over the first five.',
  ),
  c('samples_planned', 'int64', 'Generation receipts: measured samples planned (repetitions x prompts).'),
  c('samples_ok', 'int64', 'Generation receipts: ok samples.'),
  c('samples_failed', 'int64', 'Generation receipts: failed samples.'),
  c('samples_truncated', 'int64', 'Generation receipts: answers cut at the token limit.'),
  // suite
  c('rows_total', 'int64', 'Suite receipts: item rows.'),
  c('rows_done', 'int64', 'Suite receipts: rows finished.'),
  c('row_latency_median_ms', 'double', 'Suite receipts: median per-row latency.'),
  c('row_latency_p95_ms', 'double', 'Suite receipts: p95 per-row latency.'),
  // comparison
  c(
    'comparison_rounds',
    'int64',
    'Comparison receipts: interleaved rounds (rows in `comparison_rounds`: rounds x routes).',
  ),
  c('comparison_routes', 'int64', 'Comparison receipts: routes compared.'),
  c(
    'comparison_valid_routes',
    'int64',
    'Comparison receipts: routes that ran, agreed with the baseline and were ranked.',
  ),
  c('baseline_route_id', 'string', 'Comparison receipts: the baseline route.'),
  // cache-state summary
  c(
    'cold_from_cache',
    'boolean',
    'Cold device receipts: true when some model or runtime byte came from a cache, false when every byte crossed the network, null when unknown.',
  ),
  c('files_network', 'int64', 'Model and runtime files whose bytes crossed the network.'),
  c('files_http_cache', 'int64', 'Model and runtime files served from the HTTP cache.'),
  c('files_cache_storage', 'int64', "Model and runtime files read from the engine's own storage."),
  c('files_cache_unknown', 'int64', 'Model and runtime files whose source could not be told.'),
  // overlap
  c('overlap_this_page', 'boolean', 'Another run of the same page ran during this one (null: not recorded).'),
  c('overlap_other_tabs', 'boolean', 'Another tab of the site ran one (null: not recorded or not knowable).'),
  c('overlapped', 'boolean', 'Either of the two: the timings measure both runs.'),
  // evidence flags
  c(
    'evidence_state',
    'string',
    'Always DEVICE_RECEIPT: one receipt is never a pass (DEVICE_PASS is a reviewed target, see summaries).',
  ),
  c(
    'hidden_during_run',
    'boolean',
    'The page was hidden during the run (throttled); null for suite receipts (no lifecycle recorded).',
  ),
  c('frozen_during_run', 'boolean', 'The page was frozen during the run; null for suite receipts.'),
  c('noisy', 'boolean', 'Hidden or frozen: kept out of the statistics; null for suite receipts.'),
  c('wake_lock', 'string', 'Device receipts: held, released, refused or unsupported.'),
  c('previous_run_interrupted', 'boolean', 'The receipt records that the run before it died (tab killed or reloaded).'),
  c('interrupted_stage', 'string', 'The stage the earlier run died in.'),
  c('interrupted_model_id', 'string', "The earlier run's model."),
  c('interrupted_requested_ep', 'string', "The earlier run's requested route."),
  c(
    'clean',
    'boolean',
    'The receipt enters `drb receipts summarize` statistics: device: ok, visible, not overlapped and (cold) truly cold; generation: visible, not overlapped (its ok samples count); suite: ok, not overlapped; comparison: not overlapped.',
  ),
  c(
    'protocol_cold',
    'boolean',
    'Device receipts: a full protocol cold (clean, network-cold from a fresh start, browser restart and site data clear attested): the cold runs the cold minimum and the cold statistics count; false for warm ones; null for other kinds.',
  ),
];

/** Columns of `samples`: one row per timed warm sample of a device receipt, in run order. */
export const SAMPLE_COLUMNS: readonly ColumnSpec[] = [
  c('receipt_id', 'string', 'The device receipt (join with receipts.receipt_id).'),
  c('target_key', 'string', 'Its target key (t-...).'),
  c('sample_index', 'int64', 'Position in run order, from 0.'),
  c('duration_ms', 'double', 'The timed inference.'),
  c('clean', 'boolean', "The receipt's `clean` flag: the samples `drb receipts summarize` pools."),
];

/** Columns of `generation_samples`: one row per measured sample of a generation receipt, in plan order. */
export const GENERATION_SAMPLE_COLUMNS: readonly ColumnSpec[] = [
  c('receipt_id', 'string', 'The generation receipt (join with receipts.receipt_id).'),
  c('target_key', 'string', 'Its generation target key (g-...).'),
  c('sample_index', 'int64', 'Position in plan order, from 0.'),
  c('repetition', 'int64', 'Repetition, from 1.'),
  c('prompt_id', 'string', 'The prompt id (never its text).'),
  c('prompt_index', 'int64', 'The prompt position in the set, from 0.'),
  c('seed', 'int64', "The repetition's declared seed (null without seed control)."),
  c('outcome', 'string', 'ok or failed.'),
  c('prompt_tokens', 'int64', 'Prompt tokens.'),
  c('output_tokens', 'int64', 'Generated tokens.'),
  c('truncated', 'boolean', 'Cut at the token limit.'),
  c('ttft_ms', 'double', 'Time to first token (page clock).'),
  c('e2e_ms', 'double', 'End-to-end time of the answer (page clock).'),
  c('prefill_tokens_per_s', 'double', 'Prefill speed.'),
  c('decode_tokens_per_s', 'double', 'Decode speed.'),
  c('engine_ttft_ms', 'double', "The engine's own TTFT report (WebLLM), null when it gives none."),
  c('engine_decode_tokens_per_s', 'double', "The engine's own decode-speed report."),
  c('error_name', 'string', 'A failed sample: the error code.'),
  c('clean', 'boolean', "The receipt's `clean` flag and the sample ok: the samples `drb receipts summarize` pools."),
];

/** Columns of `comparison_rounds`: one row per round of a comparison and route, in the order they ran. */
export const COMPARISON_ROUND_COLUMNS: readonly ColumnSpec[] = [
  c('receipt_id', 'string', 'The comparison receipt (join with receipts.receipt_id).'),
  c('round', 'int64', 'Round, from 1.'),
  c('position', 'int64', 'Position of this route within the round (the shuffled order), from 0.'),
  c('route_id', 'string', 'Route id, e.g. wasm-1, wasm-2, webgpu.'),
  c('is_baseline', 'boolean', 'This route is the baseline.'),
  c('requested_ep', 'string', 'Route: EP asked for.'),
  c('completed_ep', 'string', 'Route: EP that ran (null when it failed).'),
  c('threads_effective', 'int64', 'Route: WASM threads that ran.'),
  c('duration_ms', 'double', "This round's timed run of the route (null when the route has no sample for the round)."),
  c('route_valid', 'boolean', 'The route ran, did not fall back and agreed with the baseline.'),
  c('route_rank', 'int64', 'Rank by median among valid routes (1 = fastest); null when invalid.'),
  c('ratio_to_baseline', 'double', "The route's median time over the baseline's."),
  c('ratio_low', 'double', 'Lower end of the bootstrap 95% interval of the ratio.'),
  c('ratio_high', 'double', 'Upper end of that interval.'),
  c('verdict', 'string', 'faster, slower or no-clear-difference (a tie); null for the baseline and invalid routes.'),
  c('overlapped', 'boolean', "The receipt's overlap flag: another run shared the device."),
];

/** Every table's columns, by table name. */
export const TABLE_COLUMNS: Readonly<Record<TableName, readonly ColumnSpec[]>> = {
  receipts: RECEIPT_COLUMNS,
  samples: SAMPLE_COLUMNS,
  generation_samples: GENERATION_SAMPLE_COLUMNS,
  comparison_rounds: COMPARISON_ROUND_COLUMNS,
};

/** What each table holds, in a sentence (the dataset card repeats it). */
export const TABLE_DOCS: Readonly<Record<TableName, string>> = {
  receipts:
    'One row per valid receipt of any kind: identity, build, model, route, input, device, outcome, stage timings, cache-state summary, overlap and evidence flags.',
  samples: 'One row per timed warm sample of a device receipt, in run order.',
  generation_samples:
    'One row per measured sample of a generation receipt, in plan order (never a prompt or an answer).',
  comparison_rounds:
    "One row per round and route of a comparison receipt, with the route's verdict against the baseline.",
};

function isoUtc(time: string): string {
  return new Date(time).toISOString();
}

function deviceColumns(caps: Capabilities | null, device: DeviceIdentity | null): Row {
  const adapter = caps?.webgpu.adapter_info ?? null;
  return {
    user_agent: device?.user_agent ?? null,
    device_details: caps?.device_details ?? null,
    platform: device?.platform ?? null,
    platform_version: device?.platform_version ?? null,
    device_model: device?.model ?? null,
    mobile: device?.mobile ?? null,
    hardware_concurrency: device?.hardware_concurrency ?? null,
    device_memory_gb: device?.device_memory_gb ?? null,
    cross_origin_isolated: caps?.cross_origin_isolated ?? null,
    webgpu_adapter_vendor: adapter?.vendor ?? null,
    webgpu_adapter_architecture: adapter?.architecture ?? null,
    webgpu_adapter_device: adapter?.device ?? null,
    webgpu_fallback_adapter: caps?.webgpu.is_fallback_adapter ?? null,
    js_heap_used_bytes: caps?.js_heap?.used_js_heap_size ?? null,
  };
}

function cacheColumns(files: ReadonlyArray<ModelFile | RuntimeFile>): Row {
  const count = (state: string) => files.filter((f) => f.cache_state === state).length;
  return {
    files_network: count('network'),
    files_http_cache: count('http-cache'),
    files_cache_storage: count('cache-storage'),
    files_cache_unknown: count('unknown'),
  };
}

type RecordedModel = DeviceReceipt['model'];
type RecordedRoute = DeviceReceipt['route'];

function modelColumns(model: RecordedModel): Row {
  let bytes = 0;
  for (const file of model.files) bytes += file.bytes;
  return {
    model_id: model.id,
    model_kind: model.kind,
    model_task: model.task,
    model_dtype: model.dtype,
    model_source: model.source,
    model_revision: model.revision,
    model_integrity: model.integrity,
    model_files: model.files.length,
    model_bytes: bytes,
    model_files_sha256: [...new Set(model.files.map((f) => f.sha256))].sort().join(' '),
  };
}

function routeColumns(route: RecordedRoute): Row {
  return {
    requested_ep: route.requested_ep,
    completed_ep: route.completed_ep,
    allow_fallback: route.allow_fallback,
    fell_back: route.completed_ep !== null && route.completed_ep !== route.requested_ep,
    fallback_reason: route.fallback_reason,
    threads_requested: route.threads_requested,
    threads_effective: route.threads_effective,
  };
}

function overlapColumns(overlap: DeviceReceipt['run']['overlap']): Row {
  return {
    overlap_this_page: overlap?.this_page ?? null,
    overlap_other_tabs: overlap?.other_tabs ?? null,
    overlapped: overlapped(overlap),
  };
}

function interruptedColumns(run: DeviceReceipt['run']['previous_run_interrupted']): Row {
  return {
    previous_run_interrupted: run !== null,
    interrupted_stage: run?.stage ?? null,
    interrupted_model_id: run?.model_id ?? null,
    interrupted_requested_ep: run?.requested_ep ?? null,
  };
}

/** Every column of `receipts` set to null: each kind fills in its own. */
const EMPTY_RECEIPT_ROW: Readonly<Row> = Object.freeze(
  Object.fromEntries(RECEIPT_COLUMNS.map((column) => [column.name, null])),
);

function emptyReceiptRow(): Row {
  return { ...EMPTY_RECEIPT_ROW };
}

/**
 * Whether a receipt enters `drb receipts summarize`'s statistics (the `clean` column), by the summarizer's rules:
 * device: ok, not overlapped, page visible and unfrozen, and a cold run truly cold (`cold_from_cache` false);
 * generation: not overlapped and visible (ok or failed: its ok samples count); suite: ok and not overlapped;
 * comparison: not overlapped.
 * @param valid the receipt and its kind
 */
export function statisticsClean(valid: ValidReceipt): boolean {
  const { kind, receipt } = valid;
  if (kind === 'device') {
    const r = receipt;
    if (r.outcome.status !== 'ok' || overlapped(r.run.overlap)) return false;
    if (r.lifecycle.hidden_during_run || r.lifecycle.frozen_during_run) return false;
    return r.run.kind === 'warm' || r.run.cold_from_cache === false;
  }
  if (kind === 'generation')
    return !overlapped(receipt.overlap) && !receipt.lifecycle.hidden_during_run && !receipt.lifecycle.frozen_during_run;
  if (kind === 'suite') return receipt.outcome.status === 'ok' && !overlapped(receipt.overlap);
  return !overlapped(receipt.overlap);
}

/** The device identity a receipt recorded (null for a suite receipt refused before the probe ran). */
function recordedDevice(valid: ValidReceipt): DeviceIdentity | null {
  if (valid.kind === 'suite') return valid.receipt.capabilities === null ? null : suiteDevice(valid.receipt);
  return deviceIdentity(valid.receipt);
}

/**
 * The device fingerprint: `d-` + 12 hex digits of the SHA-256 of the device identity as recorded (canonical JSON),
 * the same for every receipt of one device and browser as it was recorded. The leaderboard groups rows by it.
 * @param device the device identity
 */
export async function deviceKey(device: DeviceIdentity): Promise<string> {
  const canonical = canonicalJson(device);
  const bytes = new Uint8Array(canonical.length);
  for (let i = 0; i < canonical.length; i++) bytes[i] = canonical.charCodeAt(i) & 0x7f;
  return `d-${(await sha256Hex(bytes)).slice(0, 12)}`;
}

/** The keys a receipt's rows carry, computed once per distinct identity (targets repeat across receipts). */
export class RowKeys {
  private readonly cache = new Map<string, string>();

  private async cached(canonical: string, make: () => Promise<string>): Promise<string> {
    let key = this.cache.get(canonical);
    if (key === undefined) {
      key = await make();
      // Bounded: the cache holds one entry per target and device, never per receipt; past 100,000 it starts over.
      if (this.cache.size >= 100_000) this.cache.clear();
      this.cache.set(canonical, key);
    }
    return key;
  }

  /**
   * The target key `drb receipts summarize` gives the receipt (null for a comparison receipt) and its device key.
   * @param valid the receipt and its kind
   */
  async of(valid: ValidReceipt): Promise<{ target: string | null; device: string | null }> {
    // The identity functions build their objects in one fixed key order, so JSON.stringify is a faithful cache key
    // (and far cheaper than the canonical form, which is computed only for an identity not seen before).
    const device = recordedDevice(valid);
    const deviceKeyValue =
      device === null ? null : await this.cached(`d\u0000${JSON.stringify(device)}`, () => deviceKey(device));
    if (valid.kind === 'comparison') return { target: null, device: deviceKeyValue };
    const [identity, prefix] =
      valid.kind === 'device'
        ? [targetIdentity(valid.receipt), 't' as const]
        : valid.kind === 'generation'
          ? [generationTargetIdentity(valid.receipt), 'g' as const]
          : [suiteTargetIdentity(valid.receipt), 's' as const];
    const target = await this.cached(`${prefix}\u0000${JSON.stringify(identity)}`, () =>
      identityKey(canonicalJson(identity), prefix),
    );
    return { target, device: deviceKeyValue };
  }
}

/**
 * The `receipts` row of one valid receipt.
 * @param valid the receipt and its kind
 * @param source where it came from
 * @param keys its target and device keys (RowKeys.of)
 */
export function receiptRow(
  valid: ValidReceipt,
  source: RowSource,
  keys: { target: string | null; device: string | null },
): Row {
  const row = emptyReceiptRow();
  const { receipt } = valid;
  Object.assign(row, {
    receipt_id: receipt.receipt_id,
    receipt_kind: valid.kind,
    receipt_schema: receipt.schema,
    created_at: isoUtc(receipt.created_at),
    target_key: keys.target,
    device_key: keys.device,
    source_file: source.file,
    source_sha256: source.sha256,
    app_version: receipt.app.version,
    app_commit: receipt.app.commit,
    app_page_url: receipt.app.page_url,
    engine_name: receipt.engine.name,
    engine_version: receipt.engine.version,
    evidence_state: receipt.evidence_state,
    outcome: receipt.outcome.status,
    outcome_reason: receipt.outcome.reason,
    clean: statisticsClean(valid),
    protocol_cold: valid.kind === 'device' ? countClass(valid.receipt) === 'cold-full' : null,
    ...modelColumns(receipt.model),
  });
  // Suite receipts record no page lifecycle (their columns stay null).
  if (valid.kind !== 'suite') {
    const { hidden_during_run: hidden, frozen_during_run: frozen } = valid.receipt.lifecycle;
    Object.assign(row, { hidden_during_run: hidden, frozen_during_run: frozen, noisy: hidden || frozen });
  }
  if (valid.kind === 'device') {
    const r = valid.receipt;
    const t = r.timings;
    Object.assign(
      row,
      routeColumns(r.route),
      deviceColumns(r.capabilities, deviceIdentity(r)),
      overlapColumns(r.run.overlap),
      interruptedColumns(r.run.previous_run_interrupted),
      cacheColumns([...r.model.files, ...r.runtime.files]),
      {
        run_kind: r.run.kind,
        runtime_build: r.runtime.build ?? null,
        input_id: r.input.id,
        input_sha256: r.input.sha256,
        failed_stage: r.outcome.failed_stage,
        errors: r.errors.length,
        model_fetch_ms: t.model_fetch_ms,
        runtime_fetch_ms: t.runtime_fetch_ms ?? null,
        session_create_ms: t.session_create_ms,
        first_inference_ms: t.first_inference_ms,
        warmup_ms: t.warmup_ms,
        total_ms: t.total_ms,
        warm_samples: t.warm_samples_ms.length,
        warm_median_ms: t.warm_stats?.median ?? null,
        warm_p95_ms: t.warm_stats?.p95 ?? null,
        warm_min_ms: t.warm_stats?.min ?? null,
        warm_max_ms: t.warm_stats?.max ?? null,
        cold_from_cache: r.run.kind === 'cold' ? r.run.cold_from_cache : null,
        wake_lock: r.run.wake_lock,
      },
    );
  } else if (valid.kind === 'generation') {
    const r = valid.receipt;
    const s = r.summary;
    Object.assign(
      row,
      routeColumns(r.route),
      deviceColumns(r.capabilities, deviceIdentity(r)),
      overlapColumns(r.overlap),
      interruptedColumns(r.previous_run_interrupted),
      cacheColumns([...r.model.files, ...(r.runtime?.files ?? [])]),
      {
        runtime_build: r.runtime?.build ?? null,
        prompt_set_id: r.prompt_set.id,
        prompt_set_version: r.prompt_set.version,
        prompt_set_sha256: r.prompt_set.sha256,
        repetitions: r.plan.repetitions,
        max_new_tokens: r.plan.max_new_tokens,
        temperature: r.plan.temperature,
        seed_control: r.plan.seed_control,
        errors: r.errors.length,
        load_ms: r.cold.load_ms,
        cold_ttft_ms: r.cold.warmup_ttft_ms,
        ttft_median_ms: s.ttft_ms_median,
        ttft_p95_ms: s.ttft_ms_p95,
        decode_tokens_per_s_median: s.decode_tokens_per_s_median,
        e2e_median_ms: s.e2e_ms_median,
        sustained_speed_ratio: s.sustained_speed_ratio,
        samples_planned: s.measured_planned,
        samples_ok: s.ok_samples,
        samples_failed: s.failures,
        samples_truncated: s.truncations,
      },
    );
  } else if (valid.kind === 'suite') {
    const r = valid.receipt;
    Object.assign(
      row,
      routeColumns(r.route),
      deviceColumns(r.capabilities, r.capabilities === null ? null : suiteDevice(r)),
      overlapColumns(r.overlap),
      interruptedColumns(r.previous_run_interrupted),
      cacheColumns([...r.model.files, ...(r.runtime?.files ?? [])]),
      {
        runtime_build: r.runtime?.build ?? null,
        suite_id: r.suite.id,
        suite_task: r.task,
        suite_items_sha256: r.suite.items.sha256,
        suite_candidates_sha256: r.suite.candidates.sha256,
        suite_predictions_sha256: r.predictions?.sha256 ?? null,
        failed_stage: r.outcome.failed_stage,
        errors: r.errors.length,
        total_ms: r.timings.total_ms,
        load_ms: r.timings.model_load_ms,
        rows_total: r.rows.total,
        rows_done: r.rows.done,
        row_latency_median_ms: r.timings.row_latency_stats?.median ?? null,
        row_latency_p95_ms: r.timings.row_latency_stats?.p95 ?? null,
      },
    );
  } else {
    const r = valid.receipt;
    const baseline = r.routes.find((route) => route.id === r.baseline_route_id) ?? null;
    Object.assign(
      row,
      deviceColumns(r.capabilities, deviceIdentity(r)),
      overlapColumns(r.overlap),
      interruptedColumns(r.previous_run_interrupted),
      cacheColumns(r.model.files),
      {
        requested_ep: baseline?.requested_ep ?? null,
        completed_ep: baseline?.completed_ep ?? null,
        threads_requested: baseline?.threads_requested ?? null,
        threads_effective: baseline?.threads_effective ?? null,
        input_id: r.input.id,
        input_sha256: r.input.sha256,
        comparison_rounds: r.schedule.rounds,
        comparison_routes: r.routes.length,
        comparison_valid_routes: r.routes.filter((route) => route.valid).length,
        baseline_route_id: r.baseline_route_id,
      },
    );
  }
  return row;
}

/**
 * The `samples` rows of a device receipt (none for other kinds).
 * @param valid the receipt and its kind
 * @param targetKey its target key
 */
export function sampleRows(valid: ValidReceipt, targetKey: string | null): Row[] {
  if (valid.kind !== 'device') return [];
  const clean = statisticsClean(valid);
  return valid.receipt.timings.warm_samples_ms.map((duration, index) => ({
    receipt_id: valid.receipt.receipt_id,
    target_key: targetKey,
    sample_index: index,
    duration_ms: duration,
    clean,
  }));
}

/**
 * The `generation_samples` rows of a generation receipt (none for other kinds).
 * @param valid the receipt and its kind
 * @param targetKey its generation target key
 */
export function generationSampleRows(valid: ValidReceipt, targetKey: string | null): Row[] {
  if (valid.kind !== 'generation') return [];
  const clean = statisticsClean(valid);
  return valid.receipt.samples.map((s, index) => ({
    receipt_id: valid.receipt.receipt_id,
    target_key: targetKey,
    sample_index: index,
    repetition: s.repetition,
    prompt_id: s.prompt_id,
    prompt_index: s.prompt_index,
    seed: s.seed,
    outcome: s.outcome,
    prompt_tokens: s.prompt_tokens,
    output_tokens: s.output_tokens,
    truncated: s.truncated,
    ttft_ms: s.ttft_ms,
    e2e_ms: s.e2e_ms,
    prefill_tokens_per_s: s.prefill_tokens_per_s,
    decode_tokens_per_s: s.decode_tokens_per_s,
    engine_ttft_ms: s.engine_reported?.ttft_ms ?? null,
    engine_decode_tokens_per_s: s.engine_reported?.decode_tokens_per_s ?? null,
    error_name: s.error?.name ?? null,
    clean: clean && s.outcome === 'ok',
  }));
}

/**
 * The `comparison_rounds` rows of a comparison receipt (none for other kinds): the schedule's order gives each
 * route's position in each round; a route's samples are in the order its runs happened (round 1 first).
 * @param valid the receipt and its kind
 */
export function comparisonRoundRows(valid: ValidReceipt): Row[] {
  if (valid.kind !== 'comparison') return [];
  const r = valid.receipt;
  const perRound = r.routes.length;
  const headline = new Map((r.headline?.routes ?? []).map((h) => [h.route_id, h]));
  const seen = new Map<string, number>();
  const rows: Row[] = [];
  r.schedule.order.forEach((routeId, at) => {
    const route = r.routes.find((x) => x.id === routeId);
    if (route === undefined) return;
    const n = seen.get(routeId) ?? 0;
    seen.set(routeId, n + 1);
    const h = headline.get(routeId);
    rows.push({
      receipt_id: r.receipt_id,
      round: Math.floor(at / perRound) + 1,
      position: at % perRound,
      route_id: routeId,
      is_baseline: routeId === r.baseline_route_id,
      requested_ep: route.requested_ep,
      completed_ep: route.completed_ep,
      threads_effective: route.threads_effective,
      duration_ms: route.samples_ms[n] ?? null,
      route_valid: route.valid,
      route_rank: route.rank,
      ratio_to_baseline: route.ratio_to_baseline,
      ratio_low: h?.interval?.low ?? null,
      ratio_high: h?.interval?.high ?? null,
      verdict: h?.verdict ?? null,
      overlapped: overlapped(r.overlap),
    });
  });
  return rows;
}
