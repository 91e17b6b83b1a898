/**
 * The receipts summary (`drb.receipts-summary.v3`): every target found in a set of receipts with its counts
 * against the protocol minimums, cold stage and warm statistics, fallbacks, integrity, noisy, failed and
 * interrupted runs, budget-profile gates, memory fit, the stored review and the evidence state with the reasons
 * it is not higher. It holds no timestamps and no absolute paths, so re-summarising the same files gives the same
 * bytes (it is meant to be committed under `receipts/`).
 */
import { z } from 'zod';
import { TesterSheet } from '../field/receipt-bundle.ts';
import { detailText, Token } from '../text/bounded-text.ts';
import { OpCount } from '../receipt/ep-placement.ts';
import { ConfidenceInterval, RatioVerdict } from '../stats/intervals.ts';
import { PressureState } from '../device/device-state.ts';
import { StopReason } from '../comparison/stopping-rule.ts';
import { Crossover } from '../comparison/sweep-receipt.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';
import { FitStatus, MemoryFit } from './memory-fit.ts';
import { ProfileVerdict } from './profiles.ts';
import { DuplicateReceipt } from './receipt-ids.ts';
import { ProfileRanking, RowClass, RowQuality } from './generation-eligibility.ts';

// Summary strings are copies of receipt fields, file names and reasons: bounded (review reads summaries back).
const Text = detailText(4096);

/**
 * v2: receipt ids count once (`duplicates`, `inputs.duplicates_*`, a target's `duplicate_receipt_ids`).
 * v3: `sources` (the inputs, so `drb receipts review` counts from the receipts again instead of trusting the
 * summary's numbers), copies matched by content and by run id (`duplicates[].copies[].matched_by`); cold runs split
 * into what the page measured and what a tester or driver attested (`counts.full_cold` and its measured and attested
 * counts, `cold_set_aside.not_fresh_start` / `not_attested`), output digests, the tester's session answers.
 */
export const RECEIPTS_SUMMARY_SCHEMA = 'drb.receipts-summary.v3';

// The device procedure's minimums live with the protocol files that carry them (one definition).
export { PROTOCOL_MIN_COLD, PROTOCOL_MIN_WARM } from '../field/field-protocol.ts';

const Stats = z.strictObject({
  count: z.number().int().positive(),
  median: z.number(),
  p95: z.number(),
  min: z.number(),
  max: z.number(),
  mean: z.number(),
});

const Count = z.number().int().nonnegative();

export const DeviceIdentitySchema = z.strictObject({
  user_agent: Text,
  platform: Text.nullable(),
  platform_version: Text.nullable(),
  model: Text.nullable(),
  mobile: z.boolean().nullable(),
  hardware_concurrency: z.number().nullable(),
  device_memory_gb: z.number().nullable(),
  webgpu_adapter: z.strictObject({ vendor: Text, architecture: Text, device: Text }).nullable(),
});

export const TargetIdentitySchema = z.strictObject({
  device: DeviceIdentitySchema,
  app: z.strictObject({ version: Text, commit: Text.nullable() }),
  engine: z.strictObject({ name: Text, version: Text }),
  model: z.strictObject({ id: Text, kind: Text, dtype: Text.nullable(), file_sha256: z.array(Text) }),
  input: z.strictObject({ id: Text, sha256: Text }),
  route: z.strictObject({
    requested_ep: Text,
    completed_ep: Text.nullable(),
    allow_fallback: z.boolean(),
    threads_requested: z.number().nullable(),
    threads_effective: z.number().nullable(),
  }),
});

/** The failed receipts of a target: how many failed at each stage for each reason, and their ids. */
export const TargetFailures = z.strictObject({
  by_reason: z.array(z.strictObject({ stage: Text.nullable(), reason: Text, count: Count })),
  receipt_ids: z.array(Text),
});

/**
 * The interrupted runs attributed to a target: every interruption recorded on the target's device (as the recording
 * receipt saw it) whose dead run asked for the target's model and requested route. The receipt that records an
 * interruption belongs to the NEXT run, which may be another model or route, so it never decides the attribution.
 * Targets that differ only in what the journal does not record (threads, dtype, input, build) share these runs.
 */
export const TargetInterruptions = z.strictObject({
  /** The interruption group (see ReceiptsSummary.interruptions) these runs come from; null when there are none. */
  group_key: z
    .string()
    .regex(/^i-[0-9a-f]{12}$/)
    .nullable(),
  by_stage: z.array(z.strictObject({ stage: Text, count: Count })),
  /** The receipts that recorded them (each records one interruption: its `previous_run_interrupted`). */
  receipt_ids: z.array(Text),
});

/**
 * One interruption group: the runs that died on one device (as the recording receipts saw it) for one model and
 * requested route. A group with no target is a model and route that never produced a receipt of its own on that
 * device (every run of it died): it is listed all the same, with zero receipts.
 */
export const InterruptionGroup = z.strictObject({
  key: z.string().regex(/^i-[0-9a-f]{12}$/),
  label: Text,
  device: DeviceIdentitySchema,
  model_id: Text,
  requested_ep: Text,
  interrupted: Count,
  by_stage: z.array(z.strictObject({ stage: Text, count: Count })),
  /** `single` (a plain cold/warm run), `suite`, `generation` or `comparison`. */
  by_run_mode: z.array(z.strictObject({ run_mode: Text, count: Count })),
  receipt_ids: z.array(Text),
  /** Device (`t-`) and generation (`g-`) targets of this device, model and requested route. */
  target_keys: z.array(Text),
  /** Valid receipts of those targets (0: the model and route never finished a run on this device). */
  receipts: Count,
});
export type InterruptionGroup = z.infer<typeof InterruptionGroup>;

/**
 * One receipt's device state as a summary shows it (src/core/device/device-state.ts): whether CPU pressure was
 * observable, the state when it started and the highest state reached, and the drift probe's sustained-speed ratio,
 * trend and flag against its declared bound.
 */
export const DeviceStateSummary = z.strictObject({
  pressure: z.enum(['observed', 'not-available']),
  started_under: PressureState.nullable(),
  peak: PressureState.nullable(),
  drift_sustained_speed_ratio: z.number().nullable(),
  drift_trend: z.enum(['slowing', 'speeding', 'none']).nullable(),
  drift_p_value: z.number().nullable(),
  drift_beyond_bound: z.boolean(),
  /** `serious` or `critical` at the start, or the drift probe beyond its bound: the timings may not be the device's
   *  usual speed. */
  flagged: z.boolean(),
  line: Text,
});
export type DeviceStateSummary = z.infer<typeof DeviceStateSummary>;

/** A target's receipts whose device state is flagged (the flags are shown, the runs are not set aside). */
export const DeviceStateFlags = z.strictObject({
  /** Receipts that recorded a device state, and how many of them could observe pressure. */
  recorded: Count,
  pressure_observed: Count,
  /** Receipts that started under `serious` or `critical` CPU pressure. */
  started_under_pressure: z.array(Text),
  /** Receipts whose drift probe slowed beyond its declared bound. */
  drift_beyond_bound: z.array(Text),
});
export type DeviceStateFlags = z.infer<typeof DeviceStateFlags>;

export const EvidenceState = z.enum(['DEVICE_RECEIPT', 'DEVICE_PASS']);
export type EvidenceState = z.infer<typeof EvidenceState>;

export const TargetSummary = z.strictObject({
  key: z.string().regex(/^t-[0-9a-f]{12}$/),
  request_key: z.string().regex(/^r-[0-9a-f]{12}$/),
  label: Text,
  identity: TargetIdentitySchema,
  counts: z.strictObject({
    receipts: Count,
    cold: Count,
    warm: Count,
    ok_cold: Count,
    ok_warm: Count,
    /** ok runs whose page stayed visible and unfrozen and that no other run overlapped; for cold runs also every
     *  model and runtime byte over the network (network-cold, measured). Warm ones count toward the warm minimum. */
    clean_cold: Count,
    clean_warm: Count,
    /** Of the clean ok cold runs, side by side: measured network-cold (= clean_cold), measured network-cold from a
     *  fresh start (first page of its tab, navigated to, no earlier run, not from the back/forward cache), attested
     *  (browser restart and site data clear stated by a tester or a driver), and both: the full protocol colds that
     *  count toward the cold minimum and the cold statistics. */
    measured_network_cold: Count,
    measured_fresh_start: Count,
    attested_cold: Count,
    full_cold: Count,
    failed: Count,
    noisy: Count,
    /** ok, visible cold runs set aside because they were not truly cold (see `cold_set_aside`). */
    cold_set_aside: Count,
    /** ok runs set aside because another run overlapped them (see `overlap_set_aside`). */
    overlap_set_aside: Count,
    interrupted: Count,
    warm_samples: Count,
    min_cold: Count,
    min_warm: Count,
    /** At least `min_cold` full protocol colds. */
    cold_minimum_met: z.boolean(),
    warm_minimum_met: z.boolean(),
  }),
  /** Statistics of the full protocol colds. */
  cold: z.strictObject({
    fetch_ms: Stats.nullable(),
    session_ms: Stats.nullable(),
    first_inference_ms: Stats.nullable(),
    total_ms: Stats.nullable(),
    /** Navigation start to the first result (`run.cold_start.navigation_to_result_ms`): what a page can time of
     *  launch-to-result; the browser's own launch is not in it. */
    navigation_to_result_ms: Stats.nullable(),
  }),
  warm: z.strictObject({
    /** Every clean warm sample pooled. */
    pooled_ms: Stats.nullable(),
    /**
     * Bootstrap 95% interval of the pooled median (src/core/stats/intervals.ts): whole receipts resampled when there are
     * two or more (`resampled: "receipts"`), else the one receipt's samples (`"samples"`: noise within one run only).
     */
    median_interval: ConfidenceInterval.nullable(),
    /** The spread between receipts: statistics of each clean warm receipt's own median. */
    receipt_medians_ms: Stats.nullable(),
    /** Largest per-receipt median over the smallest (1 = no spread); null with fewer than two receipts. */
    receipt_median_ratio: z.number().nullable(),
    /** Per clean warm receipt with 5 or more samples: median of its last fifth / median of its first fifth (above 1 =
     *  it slowed down as it ran: heat, throttling); statistics over those receipts. */
    thermal_slope: Stats.nullable(),
    /** Per clean warm receipt with 2 or more samples: the Theil-Sen slope of its samples in run order, ms per run. */
    drift_ms_per_run: Stats.nullable(),
  }),
  fallbacks: z.strictObject({
    count: Count,
    reasons: z.array(z.strictObject({ reason: Text, count: Count })),
  }),
  integrity: z.strictObject({ verified: Count, unpinned: Count, mismatch: Count, 'not-loaded': Count }),
  noisy: z.strictObject({ hidden: Count, frozen: Count, receipt_ids: z.array(Text) }),
  /** Cold runs that are not counted as cold: some model or runtime byte came from a cache (`served_from_cache`), or
   *  a file's source could not be told (`cache_state_unknown`). Kept out of the cold minimum and statistics. */
  cold_set_aside: z.strictObject({
    served_from_cache: z.array(Text),
    cache_state_unknown: z.array(Text),
    /** Network-cold runs not counted as protocol colds because the measured start was not fresh (a reload, an
     *  earlier run on the same page, not the first page of its tab, the back/forward cache, or not recorded). */
    not_fresh_start: z.array(Text),
    /** Network-cold runs not counted because the browser restart or the site data clear was not attested. */
    not_attested: z.array(Text),
  }),
  /** ok runs whose receipt says another run overlapped them (`run.overlap`: another run of the page or of another tab
   *  of the site shared the device): their timings measure both runs, so they are kept out of the minimums and the
   *  statistics. Receipt ids, sorted. */
  overlap_set_aside: z.array(Text),
  failures: TargetFailures,
  /** The output digests (`output.sha256`) of every ok receipt, each with how many receipts gave it, most first (at
   *  most 64); the expected digests the protocols of the target's bundles declare; how many ok receipts match them
   *  (null when no protocol declares one). One digest, matching where one is expected: the output stayed correct. */
  outputs: z.strictObject({
    digests: z.array(z.strictObject({ sha256: z.string().regex(SHA256_PATTERN), receipts: Count })).max(64),
    expected_sha256: z.array(z.string().regex(SHA256_PATTERN)).max(8),
    matching_expected: Count.nullable(),
  }),
  /** What the tester stated about the session in protocol mode (a bundle's `attestations`, each counted once):
   *  memory pressure seen, or none seen. */
  tester_attested: z.strictObject({ memory_pressure_seen: Count, no_memory_pressure_seen: Count }),
  /** Ids of this target's receipts that further files repeat: the copies were not counted, and the target cannot
   *  reach DEVICE_PASS until they are removed and the receipts summarised again. */
  duplicate_receipt_ids: z.array(Text),
  /** The session sheets of the bundles this target's receipts came from (distinct sheets, first bundle named):
   *  `drb receipts review-template` fills the device fields from them. Empty for loose receipt files. */
  session_sheets: z.array(z.strictObject({ bundle: Text, sheet: TesterSheet })).max(64),
  interrupted: TargetInterruptions,
  /** Failed runs of other targets with the same request (same device, build, model, input, requested route).
   *  Interruptions need no such list: they are attributed by device, model and requested route already. */
  related: z.strictObject({
    target_keys: z.array(Text),
    failed_receipt_ids: z.array(Text),
  }),
  model_bytes: z.number().int().nonnegative().nullable(),
  js_heap_max_used_bytes: z.number().nonnegative().nullable(),
  /** The memory the model took, as the ok receipts measured it (receipt `memory`): the largest WebAssembly memory plus
   *  live GPU buffers one receipt saw (`measured_bytes`, what the memory gate judges), its parts, how many receipts
   *  measured it, and why the others did not. Absent in summaries written before receipts recorded memory. */
  memory: z
    .strictObject({
      measured_bytes: z.number().int().nonnegative().nullable(),
      wasm_peak_bytes: z.number().int().nonnegative().nullable(),
      gpu_peak_live_bytes: z.number().int().nonnegative().nullable(),
      receipts_measured: Count,
      not_available: z.array(z.strictObject({ reason: Text, count: Count })),
    })
    .optional(),
  /** Where the work ran (receipt `placement`): the node counts of the receipt that counted most, and how many of the
   *  target's ok receipts ran any node on the CPU on a webgpu route. Null when no receipt said; absent in older summaries. */
  placement: z
    .strictObject({
      source: z.enum(['ort-profiler', 'webgpu-by-construction']),
      receipts: Count,
      partial_fallback_receipts: Count,
      total_nodes: Count,
      cpu_nodes: Count,
      cpu_ops: z.array(OpCount),
      kernel_time_share: z.array(z.strictObject({ provider: Token, share: z.number().min(0).max(1) })),
    })
    .nullable()
    .optional(),
  profiles: z.array(ProfileVerdict),
  memory_fit: z.strictObject({ config_source: Text, estimate: MemoryFit, status: FitStatus }).nullable(),
  review: z
    .strictObject({
      file: Text,
      sha256: z.string().regex(SHA256_PATTERN),
      reviewer: Text,
      reviewed_at: Text,
    })
    .nullable(),
  /** The device state its receipts recorded, and the ones flagged; absent in summaries written before it. */
  device_state: DeviceStateFlags.optional(),
  evidence: z.strictObject({
    state: EvidenceState,
    /** Why the state is not higher; empty for DEVICE_PASS (HUMAN_GO is a separate human decision, never set here). */
    not_higher_because: z.array(Text),
  }),
});
export type TargetSummary = z.infer<typeof TargetSummary>;

/**
 * A generation target (`drb.generation-receipt.v2` runs: LLM generation with TTFT and decode speed). Same identity
 * fields as a device target, with the prompt set as its input. Memory fit for LLMs is shown here beside the
 * measured result. DEVICE_PASS is defined for the cold/warm procedure of device receipts only, so a generation
 * target stays DEVICE_RECEIPT and says so.
 */
export const GenerationTargetSummary = z.strictObject({
  key: z.string().regex(/^g-[0-9a-f]{12}$/),
  label: Text,
  identity: TargetIdentitySchema,
  counts: z.strictObject({
    receipts: Count,
    ok: Count,
    failed: Count,
    noisy: Count,
    /** Receipts another run overlapped (see `overlap_set_aside`): out of the statistics. */
    overlap_set_aside: Count,
    /** Receipts that count toward the statistics: page stayed visible and unfrozen, no other run overlapped (ok or
     *  failed). */
    clean: Count,
    ok_samples: Count,
    failed_samples: Count,
    truncations: Count,
    interrupted: Count,
  }),
  /** Engine + model load of each clean receipt (kept out of every warm statistic). */
  load_ms: Stats.nullable(),
  /** Every ok measured sample of the clean receipts, pooled. */
  ttft_ms: Stats.nullable(),
  /** Bootstrap 95% interval of the pooled TTFT median, receipts resampled whole (one receipt: its samples). */
  ttft_median_interval: ConfidenceInterval.nullable(),
  e2e_ms: Stats.nullable(),
  decode_tokens_per_s: Stats.nullable(),
  /** Per clean receipt with 5 or more ok samples: decode tokens/s of its last fifth over its first fifth, in plan
   *  order (below 1 = decoding slowed as the run went on; the sustained-speed ratio); statistics over receipts. */
  decode_sustained_ratio: Stats.nullable(),
  failures: TargetFailures,
  noisy_receipt_ids: z.array(Text),
  /** Receipts whose `overlap` says another run (of the page or of another tab) ran during them, sorted. */
  overlap_set_aside: z.array(Text),
  interrupted: TargetInterruptions,
  model_bytes: z.number().int().nonnegative().nullable(),
  js_heap_max_used_bytes: z.number().nonnegative().nullable(),
  /** Gates with cold load = load p95 and warm latency = TTFT p95. */
  profiles: z.array(ProfileVerdict),
  memory_fit: z.strictObject({ config_source: Text, estimate: MemoryFit, status: FitStatus }).nullable(),
  evidence: z.strictObject({ state: z.literal('DEVICE_RECEIPT'), not_higher_because: z.array(Text) }),
  // Added after drb.receipts-summary.v2 was first published: optional, so earlier v2 summaries stay valid; this
  // version always writes them.
  /** Receipts whose WebGPU route ran on a software (fallback) adapter such as SwiftShader, sorted. */
  software_adapter_receipt_ids: z.array(Text).optional(),
  /** The answer quality of this row's answers (the drb score-answers report whose answers are this target's runs and
   *  whose case set is this target's prompt set), or null when none was given. */
  quality: RowQuality.nullable().optional(),
  /** Ranked or not under each budget profile, with every reason, and the fit score of a ranked row
   *  (generation-eligibility.ts). */
  ranking: z
    .strictObject({
      row_class: RowClass,
      /** How many answer-score reports matched this row (exactly one is needed). */
      quality_reports: Count,
      profiles: z.array(ProfileRanking),
    })
    .optional(),
});
export type GenerationTargetSummary = z.infer<typeof GenerationTargetSummary>;

/**
 * A suite target (`drb.suite-receipt.v2` runs): one device, build, engine, model and route scoring one suite (items
 * and candidates by SHA-256, with the abstention threshold). Per-row latency is the statistic of a suite run; the
 * model load is kept apart. Suite runs are quality + speed evidence beside the device procedure, never DEVICE_PASS.
 */
export const SuiteTargetSummary = z.strictObject({
  key: z.string().regex(/^s-[0-9a-f]{12}$/),
  label: Text,
  identity: TargetIdentitySchema,
  suite: z.strictObject({
    id: Text.nullable(),
    format: Text,
    task: Text,
    items_sha256: z.string().regex(SHA256_PATTERN),
    candidates_sha256: z.string().regex(SHA256_PATTERN),
    min_margin: z.number().nullable(),
  }),
  counts: z.strictObject({
    receipts: Count,
    ok: Count,
    failed: Count,
    /** Rows finished over all receipts (ok and failed). */
    rows_done: Count,
    /** ok receipts another run overlapped (their `overlap`): out of the statistics. */
    overlap_set_aside: Count,
    interrupted: Count,
  }),
  /** Every row-latency sample of the ok receipts no other run overlapped, pooled. */
  row_latency_ms: Stats.nullable(),
  /** The spread between receipts: statistics of each ok receipt's own median row latency. */
  receipt_medians_ms: Stats.nullable(),
  /** Model fetch + session of each ok receipt (cold; kept out of the row statistics). */
  model_load_ms: Stats.nullable(),
  failures: TargetFailures,
  interrupted: TargetInterruptions,
});
export type SuiteTargetSummary = z.infer<typeof SuiteTargetSummary>;

/**
 * One comparison receipt (`drb.comparison-receipt.v2`), listed on its own: a comparison is already a controlled
 * measurement (interleaved routes on one device), so it is reported as it ran, not pooled with other comparisons.
 */
export const ComparisonEntry = z.strictObject({
  receipt_id: Text,
  label: Text,
  device: DeviceIdentitySchema,
  app: z.strictObject({ version: Text, commit: Text.nullable() }),
  engine: z.strictObject({ name: Text, version: Text }),
  model_id: Text,
  input_id: Text,
  outcome: z.enum(['ok', 'failed']),
  reason: Text.nullable(),
  baseline_route_id: Text,
  /** Set when the routes ran different runtime builds (see `runtimeBuildNote`): their ratios include the build. */
  runtime_note: Text.nullable(),
  /** Set when the routes differ in where their work ran (see `placementNote`: a webgpu route with CPU nodes); absent
   *  in summaries written before routes recorded it. */
  placement_note: Text.nullable().optional(),
  /**
   * Valid routes in rank order (fastest median first), with the speed-up against the baseline and, from the
   * receipt's headline, the time ratio's bootstrap 95% interval and its verdict (null for the baseline itself, and
   * when no interval could be computed). A `no-clear-difference` verdict is a tie whatever the rank says.
   */
  ranked: z.array(
    z.strictObject({
      route_id: Text,
      rank: z.number().int().positive(),
      median_ms: z.number(),
      p95_ms: z.number(),
      speedup_vs_baseline: z.number().nullable(),
      ratio_to_baseline: z.number().nullable(),
      ratio_interval: ConfidenceInterval.nullable(),
      verdict: RatioVerdict.nullable(),
    }),
  ),
  /** Routes that failed or disagreed with the baseline: never ranked. */
  invalid: z.array(z.strictObject({ route_id: Text, reason: Text })),
  /** The receipt says another run (of the page or of another tab) overlapped the comparison: its timings are not
   *  representative. */
  overlapped: z.boolean(),
  /** Why the rounds stopped, from the receipt's stopping section (absent for a receipt made before it was recorded). */
  stopping: z
    .strictObject({ reason: StopReason, budget: z.enum(['rounds', 'time']).nullable(), rounds: Count, sentence: Text })
    .optional(),
  /** The device state during the comparison (absent for a receipt made before it was recorded). */
  device_state: DeviceStateSummary.optional(),
});
export type ComparisonEntry = z.infer<typeof ComparisonEntry>;

/**
 * One sweep receipt (`drb.sweep-receipt.v1`), listed on its own like a comparison: the ratio per size with its
 * interval and why each point stopped, and the crossover with its interval or "no crossover in the range".
 */
export const SweepEntry = z.strictObject({
  receipt_id: Text,
  label: Text,
  device: DeviceIdentitySchema,
  app: z.strictObject({ version: Text, commit: Text.nullable() }),
  engine: z.strictObject({ name: Text, version: Text }),
  model_id: Text,
  dimension: Text,
  baseline_route_id: Text,
  other_route_id: Text,
  outcome: z.enum(['ok', 'failed']),
  reason: Text.nullable(),
  points: z.array(
    z.strictObject({
      size: z.number().int().positive(),
      valid: z.boolean(),
      invalid_reason: Text.nullable(),
      rounds: Count,
      stop_reason: StopReason,
      baseline_median_ms: z.number().nullable(),
      other_median_ms: z.number().nullable(),
      ratio_to_baseline: z.number().nullable(),
      interval: ConfidenceInterval.nullable(),
      verdict: RatioVerdict.nullable(),
    }),
  ),
  crossover: Crossover,
  /** The crossover in words (src/core/comparison/sweep-statistics.ts `crossoverSentence`). */
  sentence: Text,
  /** A WebGPU route ran on a software adapter: its timings are not a GPU's. */
  software_adapter: z.boolean(),
  device_state: DeviceStateSummary,
  overlapped: z.boolean(),
});
export type SweepEntry = z.infer<typeof SweepEntry>;

export const ReceiptsSummary = z.strictObject({
  schema: z.literal(RECEIPTS_SUMMARY_SCHEMA),
  protocol: z.strictObject({ min_cold: Count, min_warm: Count }),
  profiles_version: Text,
  llm_configs_version: Text,
  /**
   * The files and folders the receipts were read from, each relative to the summary's own folder (absolute when
   * they are on another drive): `drb receipts review` reads them again and counts from the receipts, never from this
   * file's numbers. Empty for a summary made in memory (it cannot be reviewed).
   */
  sources: z.array(Text).max(1000),
  inputs: z.strictObject({
    files: Count,
    receipts_valid: Count,
    generation_receipts_valid: Count,
    suite_receipts_valid: Count,
    comparison_receipts_valid: Count,
    /** Present once a sweep receipt was read. */
    sweep_receipts_valid: Count.optional(),
    receipts_invalid: Count,
    not_receipts: Count,
    /** Interruptions recorded by the valid receipts (each receipt records at most one). */
    interruptions: Count,
    /** Files that repeat a receipt id already counted: byte-identical copies, and copies with other bytes. */
    duplicates_identical: Count,
    duplicates_conflicting: Count,
  }),
  /** Every receipt id found in more than one file: the file counted and each copy (never counted). */
  duplicates: z.array(DuplicateReceipt),
  /** Receipts that failed validation: excluded from every target, listed with their first problem. */
  invalid: z.array(z.strictObject({ file: Text, problems: Count, first_problem: Text })),
  not_receipts: z.array(z.strictObject({ file: Text, schema: Text.nullable() })),
  targets: z.array(TargetSummary),
  generation_targets: z.array(GenerationTargetSummary),
  suite_targets: z.array(SuiteTargetSummary),
  comparisons: z.array(ComparisonEntry),
  /** One entry per sweep receipt; present once a sweep receipt was read. */
  sweeps: z.array(SweepEntry).optional(),
  /** Interrupted runs by device, model and requested route, including groups with no receipt of their own. */
  interruptions: z.array(InterruptionGroup),
  /** Stored reviews whose target is not in these receipts (kept, not applied). */
  orphan_reviews: z.array(Text),
  /** Answer-score reports (drb score-answers) read with the receipts, and the generation targets each matched
   *  (optional: absent in summaries written before answers were scored). */
  answer_scores: z
    .array(
      z.strictObject({
        file: Text,
        sha256: z.string().regex(SHA256_PATTERN),
        model_id: Text,
        target_keys: z.array(Text),
      }),
    )
    .optional(),
});
export type ReceiptsSummary = z.infer<typeof ReceiptsSummary>;
