/**
 * Streaming summariser: receipts are folded one at a time into per-target accumulators (numbers only, never the
 * receipts themselves), then `finish` computes statistics, gates, memory fit and evidence states. Callers read
 * files one by one and call `addReceipt` / `addInvalid` / `addNotReceipt`; nothing here touches a file system.
 */
import type { ComparisonReceipt } from '../comparison/comparison-receipt.ts';
import type { SweepReceipt } from '../comparison/sweep-receipt.ts';
import type { GenerationReceipt } from '../generation/generation-receipt.ts';
import type { SuiteReceipt } from '../suite/suite-receipt.ts';
import type { DeviceReceipt, InterruptedRun } from '../receipt/receipt.ts';
import type { TesterSheet } from '../field/receipt-bundle.ts';
import { isProtocolReceipt } from '../field/field-progress.ts';
import type { Protocol } from '../field/field-protocol.ts';
import type { SessionAttestation } from '../receipt/attestation.ts';
import { coldStartEvidence, countClass } from '../receipt/cold-start.ts';
import { bootstrapPooledMedian } from '../stats/intervals.ts';
import { lastFifthRatio, theilSenSlope } from '../stats/sample-order.ts';
import { summarize, type SampleStats } from '../stats/stats.ts';
import type { DeviceReview } from './device-review.ts';
import { evaluateEvidence } from './evidence.ts';
import {
  buildGenerationTarget,
  foldGeneration,
  newGenerationAccumulator,
  type GenerationAccumulator,
} from './generation-accumulator.ts';
import { BUILTIN_LLM_CONFIGS, findLlmConfig, fitStatus, memoryFit, type LlmConfigs } from './memory-fit.ts';
import { BUILTIN_PROFILES, evaluateProfile, type BudgetProfiles } from './profiles.ts';
import { measuredModelBytes, peakWasmBytes } from '../receipt/memory-figures.ts';
import type { Placement } from '../receipt/ep-placement.ts';
import {
  buildSuiteTarget,
  comparisonEntry,
  sweepEntry,
  foldSuite,
  newSuiteAccumulator,
  suiteDevice,
  suiteTargetIdentity,
  type SuiteAccumulator,
} from './suite-accumulator.ts';
import {
  PROTOCOL_MIN_COLD,
  PROTOCOL_MIN_WARM,
  RECEIPTS_SUMMARY_SCHEMA,
  type ComparisonEntry,
  type SweepEntry,
  type InterruptionGroup,
  type ReceiptsSummary,
  type TargetSummary,
} from './receipts-summary.ts';
import {
  canonicalJson,
  deviceIdentity,
  generationTargetIdentity,
  identityKey,
  requestIdentity,
  targetIdentity,
  targetLabel,
  type DeviceIdentity,
  type TargetIdentity,
} from './target-identity.ts';
import { idKey, ReceiptIdLedger, type ReceiptSource } from './receipt-ids.ts';
import { DeviceStateFlagsAccumulator } from './device-state-summary.ts';
import type { FieldProblem } from '../receipt/receipt-envelope.ts';
import type { AnswerScoreReport } from '../answers/answer-score.ts';
import { rowQualityOf } from './generation-eligibility.ts';

/** A stored review with where it came from (path relative to the summary folder, and its file hash). */
export interface StoredReview {
  review: DeviceReview;
  file: string;
  sha256: string;
}

interface Accumulator {
  identity: TargetIdentity;
  requestCanonical: string;
  receipts: number;
  cold: number;
  warm: number;
  okCold: number;
  okWarm: number;
  failed: number;
  noisyIds: string[];
  /** Cold runs not counted as cold (see TargetSummary.cold_set_aside). */
  coldFromCacheIds: string[];
  coldUnknownIds: string[];
  /** ok runs that overlapped another run (see TargetSummary.overlap_set_aside). */
  overlapIds: string[];
  /** Network-cold clean runs that are not protocol colds: start not measured fresh; restart or clear not attested. */
  notFreshIds: string[];
  notAttestedIds: string[];
  /** Clean ok cold runs: network-cold, network-cold from a fresh start, attested (restart and clear). */
  networkCold: number;
  freshStart: number;
  attestedCold: number;
  coldNavToResult: number[];
  /** Output digests of ok receipts, and the expected digests the bundles' protocols declare for this target. */
  outputDigests: Map<string, number>;
  expectedDigests: Set<string>;
  hidden: number;
  frozen: number;
  coldFetch: number[];
  coldSession: number[];
  coldFirst: number[];
  coldTotal: number[];
  warmPooled: number[];
  /** Each clean warm receipt's samples (the clusters its median interval resamples). */
  warmByReceipt: number[][];
  warmMedians: number[];
  /** Each clean warm receipt's last-fifth / first-fifth ratio and Theil-Sen drift (where it has enough samples). */
  warmThermal: number[];
  warmDrift: number[];
  fallbackReasons: Map<string, number>;
  integrity: Record<'verified' | 'unpinned' | 'mismatch' | 'not-loaded', number>;
  failures: Map<string, { stage: string | null; reason: string; count: number }>;
  failedIds: string[];
  /** Ids of this target's receipts that other files repeat (copies are never counted; they block DEVICE_PASS). */
  duplicateIds: Set<string>;
  /** Bundles (as shown) this target's receipts came from, in the order first seen. */
  bundles: Set<string>;
  modelBytes: number | null;
  heapMax: number | null;
  /** Receipts flagged for their device state (pressure at the start, drift beyond the bound). */
  deviceState: DeviceStateFlagsAccumulator;
  /** The model's measured memory over the ok receipts (receipt `memory`): peaks, and why receipts had none. */
  memoryMax: number | null;
  wasmPeak: number | null;
  gpuPeak: number | null;
  memoryReceipts: number;
  memoryMissing: Map<string, number>;
  /** Where the work ran over the ok receipts that say (receipt `placement`). */
  placementReceipts: number;
  partialFallbackReceipts: number;
  placement: Placement | null;
}

function newAccumulator(identity: TargetIdentity, requestCanonical: string): Accumulator {
  return {
    identity,
    requestCanonical,
    receipts: 0,
    cold: 0,
    warm: 0,
    okCold: 0,
    okWarm: 0,
    failed: 0,
    noisyIds: [],
    coldFromCacheIds: [],
    coldUnknownIds: [],
    overlapIds: [],
    notFreshIds: [],
    notAttestedIds: [],
    networkCold: 0,
    freshStart: 0,
    attestedCold: 0,
    coldNavToResult: [],
    outputDigests: new Map(),
    expectedDigests: new Set(),
    hidden: 0,
    frozen: 0,
    coldFetch: [],
    coldSession: [],
    coldFirst: [],
    coldTotal: [],
    warmPooled: [],
    warmByReceipt: [],
    warmMedians: [],
    warmThermal: [],
    warmDrift: [],
    fallbackReasons: new Map(),
    integrity: { verified: 0, unpinned: 0, mismatch: 0, 'not-loaded': 0 },
    failures: new Map(),
    failedIds: [],
    duplicateIds: new Set(),
    bundles: new Set(),
    modelBytes: null,
    heapMax: null,
    deviceState: new DeviceStateFlagsAccumulator(),
    memoryMax: null,
    wasmPeak: null,
    gpuPeak: null,
    memoryReceipts: 0,
    memoryMissing: new Map(),
    placementReceipts: 0,
    partialFallbackReceipts: 0,
    placement: null,
  };
}

const maxOrNull = (a: number | null, b: number | null): number | null => (b === null ? a : Math.max(a ?? 0, b));

/** Folds an ok receipt's `memory` and `placement` into its target. */
function foldMemoryAndPlacement(acc: Accumulator, receipt: DeviceReceipt): void {
  const measured = measuredModelBytes(receipt.memory);
  if (measured !== null) {
    acc.memoryReceipts++;
    acc.memoryMax = maxOrNull(acc.memoryMax, measured);
    acc.wasmPeak = maxOrNull(acc.wasmPeak, peakWasmBytes(receipt.memory));
    acc.gpuPeak = maxOrNull(acc.gpuPeak, receipt.memory?.gpu_buffers.peak_live_bytes ?? null);
  } else {
    const why =
      receipt.memory?.wasm.not_available ?? 'the receipt has no memory figures (written before the page recorded them)';
    acc.memoryMissing.set(why, (acc.memoryMissing.get(why) ?? 0) + 1);
  }
  const placement = receipt.placement ?? null;
  if (placement !== null) {
    acc.placementReceipts++;
    if (placement.partial_fallback) acc.partialFallbackReceipts++;
    // The receipts of one target ran one model on one route: keep the placement that counted the most nodes.
    if (acc.placement === null || placement.total_nodes > acc.placement.total_nodes) acc.placement = placement;
  }
}

/** The source of a receipt handed over in memory (tests, the page): its canonical JSON is its fingerprint. */
function inMemorySource(receipt: { receipt_id: string }): ReceiptSource {
  return { file: `(receipt ${receipt.receipt_id})`, fingerprint: canonicalJson(receipt) };
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The interruptions of one device + model + requested route (see InterruptionGroup). */
interface InterruptionAccumulator {
  device: DeviceIdentity;
  modelId: string;
  requestedEp: string;
  byStage: Map<string, number>;
  byMode: Map<string, number>;
  recorderIds: string[];
}

/** What an interruption is attributed to: the recorder's device, the dead run's model and requested route. */
function interruptionCanonical(device: DeviceIdentity, modelId: string, requestedEp: string): string {
  return canonicalJson({ device, model_id: modelId, requested_ep: requestedEp });
}

/** Counts sorted by count (descending), then name. */
function countList<K extends string>(
  counts: ReadonlyMap<string, number>,
  name: K,
): Array<Record<K, string> & { count: number }> {
  return [...counts.entries()]
    .sort(([a, m], [b, n]) => n - m || byString(a, b))
    .map(([value, count]) => ({ [name]: value, count }) as Record<K, string> & { count: number });
}

function statsOrNull(samples: number[]): SampleStats | null {
  return summarize(samples);
}

/** Options for `finish`: which reviews, profiles and LLM configs to judge the targets with. */
export interface SummaryOptions {
  /** Stored reviews by target key. */
  reviews?: ReadonlyMap<string, StoredReview>;
  /** Budget profiles to gate with (default: the built-in profiles.v1.json). */
  profiles?: BudgetProfiles;
  /** LLM configs for memory fit (default: the built-in llm-configs.v1.json). */
  llmConfigs?: LlmConfigs;
  /** The inputs the receipts were read from, as the summary records them (`drb receipts review` reads them again). */
  sources?: readonly string[];
}

/** Folds receipts into per-target accumulators; `finish` turns them into a `drb.receipts-summary.v3`. */
export class ReceiptsSummarizer {
  private readonly groups = new Map<string, Accumulator>();
  private readonly generationGroups = new Map<string, GenerationAccumulator>();
  private readonly interruptionGroups = new Map<string, InterruptionAccumulator>();
  private interruptionCount = 0;
  private readonly suiteGroups = new Map<string, SuiteAccumulator>();
  private suiteValid = 0;
  // One small entry per comparison receipt (a comparison is reported as it ran, never pooled).
  private readonly comparisons: ComparisonEntry[] = [];
  private readonly sweeps: SweepEntry[] = [];
  private generationValid = 0;
  private readonly invalid: ReceiptsSummary['invalid'] = [];
  private readonly notReceipts: ReceiptsSummary['not_receipts'] = [];
  private files = 0;
  private valid = 0;
  // Every receipt id counts once, whatever its kind; the device target that counted each id, to flag its copies.
  private readonly ledger = new ReceiptIdLedger();
  private readonly deviceTargetOf = new Map<string, string>();
  // The session sheet of every bundle read, by the bundle file as shown.
  private readonly sheets = new Map<string, TesterSheet>();
  // The protocol and the tester's session statements of every bundle read, by the bundle file as shown.
  private readonly bundleProtocols = new Map<string, Protocol>();
  private readonly bundleAttestations = new Map<string, readonly SessionAttestation[]>();

  /** The tester's session statements of the bundles a target's receipts came from, each counted once. */
  private testerAttestedOf(acc: Accumulator): TargetSummary['tester_attested'] {
    const seen = new Set<string>();
    const out = { memory_pressure_seen: 0, no_memory_pressure_seen: 0 };
    for (const bundle of acc.bundles) {
      for (const a of this.bundleAttestations.get(bundle) ?? []) {
        const key = canonicalJson(a);
        if (seen.has(key)) continue;
        seen.add(key);
        if (a.claim === 'memory-pressure-seen') out.memory_pressure_seen++;
        else out.no_memory_pressure_seen++;
      }
    }
    return out;
  }
  // Answer-score reports (drb score-answers), matched to generation targets in finish.
  private readonly answerScores: Array<{ report: AnswerScoreReport; file: string; sha256: string }> = [];

  /**
   * Keeps an answer-score report that passed its schema, to be matched with the generation target whose runs made its
   * answers (every answers file's receipt id is one of the target's receipts, and its case set is the target's prompt
   * set). The file itself is counted by `addNotReceipt`, as every other non-receipt artifact.
   * @param report a valid `drb.answer-score.v1`
   * @param file the file as shown
   * @param sha256 the SHA-256 of its bytes
   */
  addAnswerScore(report: AnswerScoreReport, file: string, sha256: string): void {
    this.answerScores.push({ report, file, sha256 });
  }

  /** The distinct session sheets of the bundles a target's receipts came from, each with the first bundle that had it. */
  private testerSheetsOf(acc: Accumulator): TargetSummary['session_sheets'] {
    const seen = new Set<string>();
    const out: TargetSummary['session_sheets'] = [];
    for (const bundle of acc.bundles) {
      const sheet = this.sheets.get(bundle);
      if (sheet === undefined) continue;
      const canonical = canonicalJson(sheet);
      if (seen.has(canonical) || out.length >= 64) continue;
      seen.add(canonical);
      out.push({ bundle, sheet });
    }
    return out;
  }

  /**
   * Records a receipt bundle's session sheet, protocol and the tester's session statements (its receipts follow
   * through `addReceipt` with `source.bundle` set).
   * @param file the bundle file as shown
   * @param bundle its session sheet, the protocol it followed (null: none) and its attestations (absent: none)
   */
  addBundle(
    file: string,
    bundle: { sheet: TesterSheet; protocol?: Protocol | null; attestations?: readonly SessionAttestation[] },
  ): void {
    this.files++;
    this.sheets.set(file, bundle.sheet);
    if (bundle.protocol) this.bundleProtocols.set(file, bundle.protocol);
    if (bundle.attestations && bundle.attestations.length > 0) this.bundleAttestations.set(file, bundle.attestations);
  }

  /**
   * Claims `receipt`'s id for `source`: true when it is the first file with that id (count it); false for a copy,
   * which is listed in the summary's `duplicates`, never counted, and flags the device target that counted the id.
   */
  private admit(receipt: { receipt_id: string; run?: { id: string } }, source: ReceiptSource | undefined): boolean {
    const claim = this.ledger.claim(receipt.receipt_id, source ?? inMemorySource(receipt), receipt.run?.id ?? null);
    if (claim.kind === 'first') return true;
    this.files++;
    // The target of the receipt that was counted carries the copy (by receipt id or by run id): it cannot pass.
    const canonical = this.deviceTargetOf.get(idKey(claim.firstId));
    if (canonical !== undefined) this.groups.get(canonical)!.duplicateIds.add(claim.firstId);
    return false;
  }

  /** Number of valid receipts (device, generation, suite, comparison and sweep) folded in so far. */
  get validCount(): number {
    return this.valid + this.generationValid + this.suiteValid + this.comparisons.length + this.sweeps.length;
  }

  /**
   * Folds one suite receipt that passed validation into its suite target.
   * @param receipt a `drb.suite-receipt.v2` that `validateReceipt` accepted
   * @param source its file and the SHA-256 of its bytes (a copy of a receipt already added is not counted)
   * @returns true when the receipt was counted, false for a copy of one already added
   */
  addSuiteReceipt(receipt: SuiteReceipt, source?: ReceiptSource): boolean {
    if (!this.admit(receipt, source)) return false;
    this.files++;
    this.suiteValid++;
    const identity = suiteTargetIdentity(receipt);
    const canonical = canonicalJson(identity);
    let acc = this.suiteGroups.get(canonical);
    if (!acc) {
      acc = newSuiteAccumulator(identity, receipt);
      this.suiteGroups.set(canonical, acc);
    }
    foldSuite(acc, receipt);
    if (receipt.previous_run_interrupted !== null)
      this.addInterruption(suiteDevice(receipt), receipt.previous_run_interrupted, receipt.receipt_id);
    return true;
  }

  /**
   * Lists one comparison receipt that passed validation (ranked valid routes, invalid routes with why).
   * @param receipt a `drb.comparison-receipt.v2` that `validateReceipt` accepted
   * @param source its file and the SHA-256 of its bytes (a copy of a receipt already added is not counted)
   * @returns true when the receipt was counted, false for a copy of one already added
   */
  addComparisonReceipt(receipt: ComparisonReceipt, source?: ReceiptSource): boolean {
    if (!this.admit(receipt, source)) return false;
    this.files++;
    const entry = comparisonEntry(receipt);
    this.comparisons.push(entry);
    if (receipt.previous_run_interrupted !== null)
      this.addInterruption(entry.device, receipt.previous_run_interrupted, receipt.receipt_id);
    return true;
  }

  /**
   * Lists one sweep receipt that passed validation (every point's ratio and why it stopped, and the crossover).
   * @param receipt a `drb.sweep-receipt.v1` that `validateReceipt` accepted
   * @param source its file and the SHA-256 of its bytes (a copy of a receipt already added is not counted)
   * @returns true when the receipt was counted, false for a copy of one already added
   */
  addSweepReceipt(receipt: SweepReceipt, source?: ReceiptSource): boolean {
    if (!this.admit(receipt, source)) return false;
    this.files++;
    const entry = sweepEntry(receipt);
    this.sweeps.push(entry);
    if (receipt.previous_run_interrupted !== null)
      this.addInterruption(entry.device, receipt.previous_run_interrupted, receipt.receipt_id);
    return true;
  }

  /**
   * Folds one generation receipt that passed validation into its generation target.
   * @param receipt a `drb.generation-receipt.v2` that `validateReceipt` accepted
   * @param source its file and the SHA-256 of its bytes (a copy of a receipt already added is not counted)
   * @returns true when the receipt was counted, false for a copy of one already added
   */
  addGenerationReceipt(receipt: GenerationReceipt, source?: ReceiptSource): boolean {
    if (!this.admit(receipt, source)) return false;
    this.files++;
    this.generationValid++;
    const identity = generationTargetIdentity(receipt);
    const canonical = canonicalJson(identity);
    let acc = this.generationGroups.get(canonical);
    if (!acc) {
      acc = newGenerationAccumulator(identity);
      this.generationGroups.set(canonical, acc);
    }
    foldGeneration(acc, receipt);
    if (receipt.previous_run_interrupted !== null) {
      this.addInterruption(deviceIdentity(receipt), receipt.previous_run_interrupted, receipt.receipt_id);
    }
    return true;
  }

  /**
   * Counts the interruption a valid receipt records under the interrupted run's own model and requested route on
   * the recorder's device (the recorder is the NEXT run, often another model or route, so its target is not it).
   * @param device the device identity the recording receipt saw
   * @param run the recorded `previous_run_interrupted`
   * @param recorderId the recording receipt's id (a review explains the interruption by it)
   */
  addInterruption(device: DeviceIdentity, run: InterruptedRun, recorderId: string): void {
    this.interruptionCount++;
    const canonical = interruptionCanonical(device, run.model_id, run.requested_ep);
    let acc = this.interruptionGroups.get(canonical);
    if (!acc) {
      acc = {
        device,
        modelId: run.model_id,
        requestedEp: run.requested_ep,
        byStage: new Map(),
        byMode: new Map(),
        recorderIds: [],
      };
      this.interruptionGroups.set(canonical, acc);
    }
    acc.byStage.set(run.stage, (acc.byStage.get(run.stage) ?? 0) + 1);
    const mode = run.run_mode ?? 'single';
    acc.byMode.set(mode, (acc.byMode.get(mode) ?? 0) + 1);
    acc.recorderIds.push(recorderId);
  }

  /**
   * Folds one receipt that passed validation into its target.
   * @param receipt a receipt that `validateReceipt` accepted
   * @param source its file and the SHA-256 of its bytes (a copy of a receipt already added is not counted)
   * @returns true when the receipt was counted, false for a copy of one already added
   */
  addReceipt(receipt: DeviceReceipt, source?: ReceiptSource): boolean {
    if (!this.admit(receipt, source)) return false;
    this.files++;
    this.valid++;
    const identity = targetIdentity(receipt);
    const canonical = canonicalJson(identity);
    let acc = this.groups.get(canonical);
    if (!acc) {
      acc = newAccumulator(identity, canonicalJson(requestIdentity(identity)));
      this.groups.set(canonical, acc);
    }
    this.deviceTargetOf.set(idKey(receipt.receipt_id), canonical);
    if (source?.bundle !== undefined) {
      acc.bundles.add(source.bundle);
      // The output the bundle's protocol declares for this target, when it declares one.
      const protocol = this.bundleProtocols.get(source.bundle);
      if (protocol?.expected_output_sha256 !== undefined && isProtocolReceipt(receipt, protocol))
        acc.expectedDigests.add(protocol.expected_output_sha256);
    }
    fold(acc, receipt);
    if (receipt.run.previous_run_interrupted !== null) {
      this.addInterruption(identity.device, receipt.run.previous_run_interrupted, receipt.receipt_id);
    }
    return true;
  }

  /**
   * Counts a receipt that failed validation (it is excluded from every target).
   * @param file the file name as it should appear in the summary
   * @param problems what validation found (at least one)
   */
  addInvalid(file: string, problems: readonly FieldProblem[]): void {
    this.files++;
    const first = problems[0];
    this.invalid.push({
      file,
      problems: problems.length,
      first_problem: first ? `${first.path || '(document)'}: ${first.message}` : 'invalid',
    });
  }

  /**
   * Counts a JSON file that is not a device receipt (another artifact in the same folder).
   * @param file the file name as it should appear in the summary
   * @param schema its `schema` string, or null when it has none
   */
  addNotReceipt(file: string, schema: string | null): void {
    this.files++;
    // The schema string is the file's own content: kept only when it looks like a schema id, so a summary never
    // quotes a stranger's text.
    const shown = schema === null || /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/.test(schema) ? schema : '(not a schema id)';
    this.notReceipts.push({ file, schema: shown });
  }

  /**
   * Computes the summary: statistics, gates, memory fit, related failures, evidence states.
   * @param options stored reviews, and the profiles and LLM configs to use (the built-in ones by default)
   */
  async finish(options: SummaryOptions = {}): Promise<ReceiptsSummary> {
    const profiles = options.profiles ?? BUILTIN_PROFILES;
    const llmConfigs = options.llmConfigs ?? BUILTIN_LLM_CONFIGS;
    const reviews = options.reviews ?? new Map<string, StoredReview>();
    // Interruption groups first: targets point at theirs, and each group lists the targets it matched.
    const groupKeys = new Map<string, string>();
    for (const canonical of this.interruptionGroups.keys()) groupKeys.set(canonical, await identityKey(canonical, 'i'));
    const matched = new Map<string, { keys: string[]; receipts: number }>();
    const interruptionsOf = (identity: TargetIdentity, key: string, receipts: number): TargetSummary['interrupted'] => {
      const canonical = interruptionCanonical(identity.device, identity.model.id, identity.route.requested_ep);
      const group = this.interruptionGroups.get(canonical);
      if (!group) return { group_key: null, by_stage: [], receipt_ids: [] };
      const seen = matched.get(canonical) ?? { keys: [], receipts: 0 };
      seen.keys.push(key);
      seen.receipts += receipts;
      matched.set(canonical, seen);
      return {
        group_key: groupKeys.get(canonical)!,
        by_stage: countList(group.byStage, 'stage'),
        receipt_ids: [...group.recorderIds].sort(byString),
      };
    };
    const keyed: Array<{ key: string; requestKey: string; acc: Accumulator }> = [];
    for (const [canonical, acc] of this.groups) {
      keyed.push({
        key: await identityKey(canonical, 't'),
        requestKey: await identityKey(acc.requestCanonical, 'r'),
        acc,
      });
    }
    const byRequest = new Map<string, typeof keyed>();
    for (const entry of keyed) {
      const list = byRequest.get(entry.requestKey) ?? [];
      list.push(entry);
      byRequest.set(entry.requestKey, list);
    }
    const targets: TargetSummary[] = [];
    for (const { key, requestKey, acc } of keyed) {
      const siblings = (byRequest.get(requestKey) ?? []).filter((s) => s.key !== key);
      const base = {
        ...buildTarget(
          key,
          requestKey,
          acc,
          siblings,
          interruptionsOf(acc.identity, key, acc.receipts),
          profiles,
          llmConfigs,
        ),
        session_sheets: this.testerSheetsOf(acc),
        tester_attested: this.testerAttestedOf(acc),
      };
      const stored = reviews.get(key) ?? null;
      const review = stored
        ? {
            file: stored.file,
            sha256: stored.sha256,
            reviewer: stored.review.reviewer,
            reviewed_at: stored.review.reviewed_at,
          }
        : null;
      const withReview = { ...base, review };
      targets.push({ ...withReview, evidence: evaluateEvidence(withReview, stored?.review ?? null) });
    }
    // Deterministic order: model, engine, requested EP, threads, then the key.
    targets.sort(
      (a, b) =>
        byString(a.identity.model.id, b.identity.model.id) ||
        byString(a.identity.engine.name, b.identity.engine.name) ||
        byString(a.identity.route.requested_ep, b.identity.route.requested_ep) ||
        (a.identity.route.threads_requested ?? 0) - (b.identity.route.threads_requested ?? 0) ||
        byString(a.key, b.key),
    );
    const generationTargets = [];
    const scoresSorted = [...this.answerScores].sort(
      (a, b) => byString(a.file, b.file) || byString(a.sha256, b.sha256),
    );
    const scoreTargets = new Map<(typeof scoresSorted)[number], string[]>(scoresSorted.map((s) => [s, []]));
    for (const [canonical, acc] of this.generationGroups) {
      const key = await identityKey(canonical, 'g');
      const own = new Set(acc.receiptIds);
      const matching = scoresSorted.filter(
        (s) =>
          s.report.inputs.cases.sha256 === acc.identity.input.sha256 &&
          s.report.inputs.answers.length > 0 &&
          s.report.inputs.answers.every((a) => own.has(a.receipt_id)),
      );
      for (const s of matching) scoreTargets.get(s)!.push(key);
      const quality = {
        quality: matching.length === 1 ? rowQualityOf(matching[0].report, matching[0].file, matching[0].sha256) : null,
        reports: matching.length,
      };
      generationTargets.push(
        buildGenerationTarget(
          key,
          acc,
          interruptionsOf(acc.identity, key, acc.receipts),
          profiles,
          llmConfigs,
          quality,
        ),
      );
    }
    const suiteTargets = [];
    for (const [canonical, acc] of this.suiteGroups) {
      const key = await identityKey(canonical, 's');
      suiteTargets.push(buildSuiteTarget(key, acc, interruptionsOf(acc.identity, key, acc.receipts)));
    }
    suiteTargets.sort((a, b) => byString(a.identity.model.id, b.identity.model.id) || byString(a.key, b.key));
    const interruptions: InterruptionGroup[] = [];
    for (const [canonical, group] of this.interruptionGroups) {
      const seen = matched.get(canonical) ?? { keys: [], receipts: 0 };
      const device = [group.device.model, group.device.platform].filter(Boolean).join(' ') || 'unknown device';
      interruptions.push({
        key: groupKeys.get(canonical)!,
        label: `${group.modelId} ${group.requestedEp} on ${device}`,
        device: group.device,
        model_id: group.modelId,
        requested_ep: group.requestedEp,
        interrupted: group.recorderIds.length,
        by_stage: countList(group.byStage, 'stage'),
        by_run_mode: countList(group.byMode, 'run_mode'),
        receipt_ids: [...group.recorderIds].sort(byString),
        target_keys: [...seen.keys].sort(byString),
        receipts: seen.receipts,
      });
    }
    interruptions.sort(
      (a, b) => byString(a.model_id, b.model_id) || byString(a.requested_ep, b.requested_ep) || byString(a.key, b.key),
    );
    generationTargets.sort((a, b) => byString(a.identity.model.id, b.identity.model.id) || byString(a.key, b.key));
    const known = new Set(targets.map((t) => t.key));
    const duplicates = this.ledger.duplicates();
    const copies = duplicates.flatMap((d) => d.copies);
    return {
      schema: RECEIPTS_SUMMARY_SCHEMA,
      protocol: { min_cold: PROTOCOL_MIN_COLD, min_warm: PROTOCOL_MIN_WARM },
      profiles_version: profiles.version,
      llm_configs_version: llmConfigs.version,
      sources: [...(options.sources ?? [])],
      inputs: {
        files: this.files,
        receipts_valid: this.valid,
        generation_receipts_valid: this.generationValid,
        suite_receipts_valid: this.suiteValid,
        comparison_receipts_valid: this.comparisons.length,
        // Sweep fields appear once a sweep receipt is read, so summaries without one keep their bytes.
        ...(this.sweeps.length === 0 ? {} : { sweep_receipts_valid: this.sweeps.length }),
        receipts_invalid: this.invalid.length,
        not_receipts: this.notReceipts.length,
        interruptions: this.interruptionCount,
        duplicates_identical: copies.filter((c) => c.identical).length,
        duplicates_conflicting: copies.filter((c) => !c.identical).length,
      },
      duplicates,
      invalid: [...this.invalid].sort((a, b) => byString(a.file, b.file)),
      not_receipts: [...this.notReceipts].sort((a, b) => byString(a.file, b.file)),
      targets,
      generation_targets: generationTargets,
      suite_targets: suiteTargets,
      comparisons: [...this.comparisons].sort(
        (a, b) => byString(a.model_id, b.model_id) || byString(a.receipt_id, b.receipt_id),
      ),
      ...(this.sweeps.length === 0
        ? {}
        : {
            sweeps: [...this.sweeps].sort(
              (a, b) => byString(a.model_id, b.model_id) || byString(a.receipt_id, b.receipt_id),
            ),
          }),
      interruptions,
      orphan_reviews: [...reviews.entries()]
        .filter(([key]) => !known.has(key))
        .map(([, stored]) => stored.file)
        .sort(byString),
      answer_scores: scoresSorted.map((s) => ({
        file: s.file,
        sha256: s.sha256,
        model_id: s.report.model_id,
        target_keys: [...scoreTargets.get(s)!].sort(byString),
      })),
    };
  }
}

function fold(acc: Accumulator, receipt: DeviceReceipt): void {
  const { run, timings, outcome, route, lifecycle } = receipt;
  acc.receipts++;
  acc.deviceState.add(receipt.receipt_id, receipt.device_state);
  if (run.kind === 'cold') acc.cold++;
  else acc.warm++;
  acc.integrity[receipt.model.integrity]++;
  if (route.completed_ep !== null && route.completed_ep !== route.requested_ep) {
    const reason = route.fallback_reason ?? '(no reason)';
    acc.fallbackReasons.set(reason, (acc.fallbackReasons.get(reason) ?? 0) + 1);
  }
  if (receipt.capabilities.js_heap !== null) {
    acc.heapMax = Math.max(acc.heapMax ?? 0, receipt.capabilities.js_heap.used_js_heap_size);
  }
  if (outcome.status === 'failed') {
    acc.failed++;
    acc.failedIds.push(receipt.receipt_id);
    const reason = outcome.reason ?? '(no reason)';
    const mapKey = `${outcome.failed_stage ?? ''}\u0000${reason}`;
    const entry = acc.failures.get(mapKey) ?? { stage: outcome.failed_stage, reason, count: 0 };
    entry.count++;
    acc.failures.set(mapKey, entry);
    return;
  }
  if (run.kind === 'cold') acc.okCold++;
  else acc.okWarm++;
  let bytes = 0;
  for (const file of receipt.model.files) bytes += file.bytes;
  acc.modelBytes = Math.max(acc.modelBytes ?? 0, bytes);
  if (receipt.output !== null)
    acc.outputDigests.set(receipt.output.sha256, (acc.outputDigests.get(receipt.output.sha256) ?? 0) + 1);
  foldMemoryAndPlacement(acc, receipt);
  // The one counting rule protocol mode applies too (src/core/receipt/cold-start.ts), so page and summary agree.
  const kind = countClass(receipt);
  if (kind === 'overlapped') {
    // Another run (of the page, or of another tab) shared the device during this one: its timings measure both.
    acc.overlapIds.push(receipt.receipt_id);
    return;
  }
  if (kind === 'noisy') {
    // A page hidden or frozen while measuring was throttled: the run is listed as noisy and kept out of the
    // statistics and the protocol minimums.
    acc.noisyIds.push(receipt.receipt_id);
    if (lifecycle.hidden_during_run) acc.hidden++;
    if (lifecycle.frozen_during_run) acc.frozen++;
    return;
  }
  if (run.kind === 'cold') {
    // Measured and attested, side by side; only both together make a protocol cold.
    const evidence = coldStartEvidence(receipt);
    if (evidence.networkCold) acc.networkCold++;
    if (evidence.networkCold && evidence.freshStart) acc.freshStart++;
    if (evidence.attestedRestart && evidence.attestedClear) acc.attestedCold++;
    // A cold run counts as cold only when every model and runtime byte crossed the network (a run served from a
    // cache, or one whose files' source is unknown, is set aside) and its start was both measured fresh and attested.
    if (kind === 'cold-cache' || kind === 'cold-unknown') {
      (kind === 'cold-cache' ? acc.coldFromCacheIds : acc.coldUnknownIds).push(receipt.receipt_id);
      return;
    }
    if (kind === 'cold-network') {
      if (!evidence.freshStart) acc.notFreshIds.push(receipt.receipt_id);
      if (!evidence.attestedRestart || !evidence.attestedClear) acc.notAttestedIds.push(receipt.receipt_id);
      return;
    }
    const toResult = run.cold_start?.navigation_to_result_ms ?? null;
    if (toResult !== null) acc.coldNavToResult.push(toResult);
  }
  if (run.kind === 'cold') {
    if (timings.model_fetch_ms !== null) acc.coldFetch.push(timings.model_fetch_ms);
    if (timings.session_create_ms !== null) acc.coldSession.push(timings.session_create_ms);
    if (timings.first_inference_ms !== null) acc.coldFirst.push(timings.first_inference_ms);
    acc.coldTotal.push(timings.total_ms);
  } else {
    for (const sample of timings.warm_samples_ms) acc.warmPooled.push(sample);
    if (timings.warm_samples_ms.length > 0) acc.warmByReceipt.push([...timings.warm_samples_ms]);
    if (timings.warm_stats !== null) acc.warmMedians.push(timings.warm_stats.median);
    const thermal = lastFifthRatio(timings.warm_samples_ms);
    if (thermal !== null) acc.warmThermal.push(thermal);
    const drift = theilSenSlope(timings.warm_samples_ms);
    if (drift !== null) acc.warmDrift.push(drift);
  }
}

/** A target's output digests, most receipts first, against the expected ones its bundles' protocols declare. */
function outputsOf(acc: Accumulator): TargetSummary['outputs'] {
  const digests = [...acc.outputDigests.entries()]
    .sort(([a, m], [b, n]) => n - m || byString(a, b))
    .slice(0, 64)
    .map(([sha256, receipts]) => ({ sha256, receipts }));
  const expected = [...acc.expectedDigests].sort(byString).slice(0, 8);
  const matching =
    expected.length === 0
      ? null
      : [...acc.outputDigests.entries()].filter(([d]) => expected.includes(d)).reduce((sum, [, n]) => sum + n, 0);
  return { digests, expected_sha256: expected, matching_expected: matching };
}

function buildTarget(
  key: string,
  requestKey: string,
  acc: Accumulator,
  siblings: ReadonlyArray<{ key: string; acc: Accumulator }>,
  interrupted: TargetSummary['interrupted'],
  profiles: BudgetProfiles,
  llmConfigs: LlmConfigs,
): Omit<TargetSummary, 'review' | 'evidence' | 'session_sheets' | 'tester_attested'> {
  const fullCold = acc.coldTotal.length;
  const cleanWarm = acc.warmMedians.length;
  const deviceState = acc.deviceState.finish();
  const cold = {
    fetch_ms: statsOrNull(acc.coldFetch),
    session_ms: statsOrNull(acc.coldSession),
    first_inference_ms: statsOrNull(acc.coldFirst),
    total_ms: statsOrNull(acc.coldTotal),
    navigation_to_result_ms: statsOrNull(acc.coldNavToResult),
  };
  const medians = statsOrNull(acc.warmMedians);
  const warm = {
    pooled_ms: statsOrNull(acc.warmPooled),
    median_interval: bootstrapPooledMedian(acc.warmByReceipt)?.interval ?? null,
    receipt_medians_ms: medians,
    receipt_median_ratio:
      medians !== null && medians.count >= 2 && medians.min > 0 && Number.isFinite(medians.max / medians.min)
        ? medians.max / medians.min
        : null,
    thermal_slope: statsOrNull(acc.warmThermal),
    drift_ms_per_run: statsOrNull(acc.warmDrift),
  };
  const measurements = {
    cold_load_p95_ms: cold.total_ms?.p95 ?? null,
    warm_p95_ms: warm.pooled_ms?.p95 ?? null,
    model_bytes: acc.modelBytes,
    js_heap_bytes: acc.heapMax,
    memory_bytes: acc.memoryMax,
  };
  const relatedFailed = siblings.flatMap((s) => s.acc.failedIds).sort(byString);
  const config = findLlmConfig(llmConfigs, acc.identity.model.id);
  let memory: TargetSummary['memory_fit'] = null;
  if (config !== null) {
    const estimate = memoryFit(config);
    const troubles = acc.failedIds.length + interrupted.receipt_ids.length + relatedFailed.length;
    memory = { config_source: config.source, estimate, status: fitStatus(estimate, troubles) };
  }
  return {
    key,
    request_key: requestKey,
    label: targetLabel(acc.identity),
    identity: acc.identity,
    counts: {
      receipts: acc.receipts,
      cold: acc.cold,
      warm: acc.warm,
      ok_cold: acc.okCold,
      ok_warm: acc.okWarm,
      clean_cold: acc.networkCold,
      clean_warm: cleanWarm,
      measured_network_cold: acc.networkCold,
      measured_fresh_start: acc.freshStart,
      attested_cold: acc.attestedCold,
      full_cold: fullCold,
      failed: acc.failed,
      noisy: acc.noisyIds.length,
      cold_set_aside: acc.coldFromCacheIds.length + acc.coldUnknownIds.length,
      overlap_set_aside: acc.overlapIds.length,
      interrupted: interrupted.receipt_ids.length,
      warm_samples: acc.warmPooled.length,
      min_cold: PROTOCOL_MIN_COLD,
      min_warm: PROTOCOL_MIN_WARM,
      cold_minimum_met: fullCold >= PROTOCOL_MIN_COLD,
      warm_minimum_met: cleanWarm >= PROTOCOL_MIN_WARM,
    },
    cold,
    warm,
    fallbacks: {
      count: [...acc.fallbackReasons.values()].reduce((a, b) => a + b, 0),
      reasons: [...acc.fallbackReasons.entries()]
        .map(([reason, count]) => ({ reason, count }))
        .sort((a, b) => b.count - a.count || byString(a.reason, b.reason)),
    },
    integrity: { ...acc.integrity },
    noisy: { hidden: acc.hidden, frozen: acc.frozen, receipt_ids: [...acc.noisyIds].sort(byString) },
    cold_set_aside: {
      served_from_cache: [...acc.coldFromCacheIds].sort(byString),
      cache_state_unknown: [...acc.coldUnknownIds].sort(byString),
      not_fresh_start: [...acc.notFreshIds].sort(byString),
      not_attested: [...acc.notAttestedIds].sort(byString),
    },
    overlap_set_aside: [...acc.overlapIds].sort(byString),
    failures: {
      by_reason: [...acc.failures.values()]
        .map((f) => ({ stage: f.stage, reason: f.reason, count: f.count }))
        .sort((a, b) => b.count - a.count || byString(a.reason, b.reason) || byString(a.stage ?? '', b.stage ?? '')),
      receipt_ids: [...acc.failedIds].sort(byString),
    },
    outputs: outputsOf(acc),
    duplicate_receipt_ids: [...acc.duplicateIds].sort(byString),
    interrupted,
    related: {
      target_keys: siblings.map((s) => s.key).sort(byString),
      failed_receipt_ids: relatedFailed,
    },
    model_bytes: acc.modelBytes,
    js_heap_max_used_bytes: acc.heapMax,
    memory: {
      measured_bytes: acc.memoryMax,
      wasm_peak_bytes: acc.wasmPeak,
      gpu_peak_live_bytes: acc.gpuPeak,
      receipts_measured: acc.memoryReceipts,
      not_available: [...acc.memoryMissing.entries()]
        .map(([reason, count]) => ({ reason, count }))
        .sort((a, b) => b.count - a.count || byString(a.reason, b.reason)),
    },
    placement:
      acc.placement === null
        ? null
        : {
            source: acc.placement.source,
            receipts: acc.placementReceipts,
            partial_fallback_receipts: acc.partialFallbackReceipts,
            total_nodes: acc.placement.total_nodes,
            cpu_nodes: acc.placement.cpu_nodes,
            cpu_ops: acc.placement.cpu_ops,
            kernel_time_share: acc.placement.kernel_time_share,
          },
    profiles: profiles.profiles.map((profile) => evaluateProfile(measurements, profile)),
    memory_fit: memory,
    ...(deviceState === undefined ? {} : { device_state: deviceState }),
  };
}
