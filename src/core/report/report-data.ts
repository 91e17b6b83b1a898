/**
 * What `drb receipts report` draws, gathered from the inputs by ReportCollector: the receipts summary (the very
 * object `drb receipts summarize` writes as summary.json, so every number the page shows beside a chart is a number
 * of summary.json), plus the per-receipt details a summary pools away (each cold run's stages, each warm run's
 * samples in order, each comparison route's agreement) and the score reports matched to suite runs. Numbers and
 * identifiers only, like the summary: no text from any run.
 */
import type { RatioVerdict } from '../stats/intervals.ts';
import type { ReceiptsSummary } from '../evidence/receipts-summary.ts';

/** One input file: what it was taken as, its SHA-256 and size, and why it was not used (null when it was). */
export interface ReportInput {
  file: string;
  sha256: string;
  bytes: number;
  kind:
    | 'device-receipt'
    | 'generation-receipt'
    | 'suite-receipt'
    | 'comparison-receipt'
    | 'sweep-receipt'
    | 'score-report'
    | 'answer-score'
    | 'duplicate'
    | 'invalid'
    | 'not-used';
  /** The first problem of an invalid file, the copy note of a duplicate, the schema of an unused file; else null. */
  note: string | null;
}

/** One cold device receipt (ok or failed) of a target. */
export interface ColdRun {
  target_key: string;
  receipt_id: string;
  created_at: string;
  outcome: 'ok' | 'failed';
  /** The stage the receipt names as failed (`outcome.failed_stage`), else the stage its time-out reason names. */
  failed_stage: string | null;
  /** The failure's reason as the receipt recorded it (`outcome.reason`); null for an ok run. */
  failure_reason: string | null;
  fetch_ms: number | null;
  session_ms: number | null;
  first_inference_ms: number | null;
  total_ms: number;
  /** Hidden or frozen during the run: kept out of the summary's statistics. */
  noisy: boolean;
  /** Whether the model and runtime bytes came from the network or a cache (`run.cold_from_cache`, in words). */
  cache_state: string;
  /** `run.cold_from_cache` as recorded: false from the network, true from a cache, null not known. */
  from_cache: boolean | null;
  /** A full protocol cold (network-cold, fresh start, restart and clear attested: src/core/receipt/cold-start.ts). */
  protocol_cold: boolean;
}

/** One warm device receipt of a target: its samples in run order and what their order says. */
export interface WarmRun {
  target_key: string;
  receipt_id: string;
  created_at: string;
  outcome: 'ok' | 'failed';
  samples_ms: number[];
  noisy: boolean;
  /** Median of the last fifth over the first fifth (null with fewer than 5 samples). */
  thermal_slope: number | null;
  first_fifth_median_ms: number | null;
  last_fifth_median_ms: number | null;
  /** Theil-Sen slope in ms per run (null with fewer than 2 samples). */
  drift_ms_per_run: number | null;
}

/** One generation receipt of a generation target: its ok samples' TTFT and decode speed in plan order. */
export interface GenerationRun {
  target_key: string;
  receipt_id: string;
  created_at: string;
  outcome: 'ok' | 'failed';
  noisy: boolean;
  ttft_ms: number[];
  decode_tokens_per_s: number[];
  /** Decode tokens/s of the last fifth over the first fifth (null with fewer than 5 ok samples). */
  sustained_ratio: number | null;
}

/** One route of a comparison receipt, as the report draws it. */
export interface ComparisonRouteDetail {
  route_id: string;
  requested_ep: string;
  completed_ep: string | null;
  threads_effective: number | null;
  valid: boolean;
  invalid_reason: string | null;
  rank: number | null;
  median_ms: number | null;
  p95_ms: number | null;
  samples_ms: number[];
  max_abs_diff: number | null;
  same_order: boolean | null;
  ratio_to_baseline: number | null;
  interval_low: number | null;
  interval_high: number | null;
  verdict: RatioVerdict | null;
}

/** One comparison receipt, with every route (valid and invalid) in the order the user listed them. */
export interface ComparisonDetail {
  receipt_id: string;
  created_at: string;
  baseline_route_id: string;
  rounds: number;
  seed: number;
  /** The WebGPU adapter was a software (fallback) adapter: WebGPU timings are not representative. */
  software_adapter: boolean;
  routes: ComparisonRouteDetail[];
}

/** A score report (`drb.score-report.v2`) and the suite targets whose runs made exactly its predictions. */
export interface QualityEntry {
  file: string;
  sha256: string;
  dataset: string;
  items_sha256: string;
  predictions_sha256: string;
  rows: number;
  candidate_limit: number;
  effective_acc_at_1: number;
  candidate_recall_at_k: number;
  mean_effective_min_cer: number;
  abstention_rate: number;
  /** Suite targets (`s-` keys) with a receipt naming these predictions and these items by SHA-256. */
  suite_target_keys: string[];
}

/** Everything the report page is rendered from (`renderReportHtml`). */
export interface ReportData {
  summary: ReceiptsSummary;
  inputs: ReportInput[];
  cold: ColdRun[];
  warm: WarmRun[];
  generation: GenerationRun[];
  comparisons: ComparisonDetail[];
  quality: QualityEntry[];
}
