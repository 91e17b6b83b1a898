/**
 * Side-by-side comparison of execution routes (wasm with 1 thread, wasm with N threads, webgpu ...) on one model and
 * one input, producing a validated comparison receipt. The input is the catalog's fixed token input (ORT fixtures,
 * plain forward passes), or candidate rows of a suite for rerankers and candidate scorers: then one timed run scores
 * every row (one engine call per row, their model times summed) and agreement is checked row by row.
 *
 * Each route gets its own worker: ORT's wasm backend fixes its thread count once per worker, so two thread counts
 * cannot share one. Steps: 1. probe; 2. per route, a fresh worker loads the input and the model (no fallback: a
 * comparison compares what was asked); 3. one untimed warm-up per route; 4. the timed runs in the interleaved
 * shuffled schedule from the declared seed, round by round until the declared stopping rule stops them, with the
 * drift probe timed before the first round and after each and the CPU pressure followed; 5. statistics, agreement
 * against the baseline, validity, ranks.
 */
import type { CatalogInput, CatalogModel } from '../core/catalog/catalog.ts';
import { comparisonRowsBytes, type ComparisonRows } from '../core/comparison/candidate-rows.ts';
import { COMPARISON_RECEIPT_SCHEMA, ComparisonReceipt } from '../core/comparison/comparison-receipt.ts';
import { checkComparisonReceipt } from '../core/comparison/comparison-invariants.ts';
import { compareRoutes, comparisonHeadline, type RouteMeasurement } from '../core/comparison/comparison-statistics.ts';
import { comparisonTolerance } from '../core/comparison/dtype-tolerance.ts';
import { interleavedSchedule } from '../core/comparison/interleaved-schedule.ts';
import { fixedRule, StoppingTracker, type StoppingRound, type StoppingRule } from '../core/comparison/stopping-rule.ts';
import { driftProbeRecord } from '../core/device/drift-probe.ts';
import { timeDriftProbe } from './drift-probe.ts';
import { pressureMonitor } from './pressure-monitor.ts';
import { appSection, modelSection, receiptProblems, unloadedEngine } from '../core/receipt/receipt-envelope.ts';
import { boundCode } from '../core/text/bounded-text.ts';
import { receiptText } from '../core/text/redact.ts';
import type { Stage } from '../core/receipt/receipt.ts';
import type { OutputCheck } from '../core/catalog/output-check.ts';
import { sha256Hex } from '../core/bytes/sha256.ts';
import { LifecycleRecorder } from './lifecycle.ts';
import type { PageFacts } from './page-facts.ts';
import type { RunJournalWriter } from './run-journal.ts';
import type { OverlapWatch } from './run-gate.ts';
import { comparisonRun } from './comparison-run.ts';
import {
  CANCELLED,
  EngineError,
  fetchedBeforeFailure,
  IntegrityFailure,
  loadRequest,
  WorkerBridge,
} from './worker-bridge.ts';

/** One route to compare. */
export interface ComparisonRouteRequest {
  /** Short id, e.g. `wasm-1`, `wasm-2`, `webgpu`. */
  id: string;
  ep: 'wasm' | 'webgpu';
  threads: number | null;
}

/** Candidate rows of a shipped suite, already validated and turned into engine inputs. */
export interface CandidateRowsInput {
  kind: 'rows';
  suiteId: string;
  /** SHA-256 of the suite's two artifacts, as served. */
  itemsSha256: string;
  candidatesSha256: string;
  rows: ComparisonRows;
}

/** The input every route runs on: the catalog's fixed input, or candidate rows. */
export type ComparisonInput = { kind: 'fixed'; input: CatalogInput } | CandidateRowsInput;

/** What to compare. */
export interface ComparisonRequest {
  model: CatalogModel;
  input: ComparisonInput;
  routes: ComparisonRouteRequest[];
  baselineId: string;
  /** Timed runs per route (one per round) under the fixed rule. */
  rounds: number;
  /** When the rounds stop (src/core/comparison/stopping-rule.ts); absent: the fixed rule of `rounds` rounds. */
  rule?: StoppingRule;
  /** Seed of the shuffled schedule (recorded). */
  seed: number;
  /** Largest absolute score difference still counted as agreement; null = the default for the model's score kind
   *  and dtype (the receipt records which, with the default's reason). */
  toleranceAbs: number | null;
  /** transformers.js dtype override (picks the ONNX file, the same on every route); null = the catalog's. */
  dtype: string | null;
}

/** How the UI follows a comparison. */
export interface ComparisonUiHooks {
  onPhase?(phase: 'probe' | 'load' | 'warmup' | 'timed' | 'done' | 'failed', routeId?: string): void;
  /**
   * After each timed slot: slots done / total (the most the rule allows), the slot's route, its time and its round
   * (1-based).
   */
  onSlot?(done: number, total: number, routeId: string, durationMs: number, round: number): void;
  /** After each round: every compared route's interval and decision so far. */
  onRound?(round: StoppingRound): void;
}

interface RouteState {
  request: ComparisonRouteRequest;
  bridge: WorkerBridge | null;
  measurement: RouteMeasurement;
}

/** Runs comparisons; one at a time. */
export class ComparisonController {
  private states: RouteState[] = [];
  private running = false;

  /** @param env page facts (base URL, probe, stage limits, build; the journal records the baseline's EP) */
  constructor(private readonly env: PageFacts) {}

  /**
   * Runs `request`; never throws for an engine or worker failure (the route is invalid, or the receipt failed).
   * @param request model, input, routes, baseline, rounds, seed, tolerance
   * @param ui progress hooks
   * @param signal cancels the comparison (the receipt ends `failed`, reason `cancelled`)
   */
  async run(
    request: ComparisonRequest,
    ui: ComparisonUiHooks = {},
    signal?: AbortSignal,
  ): Promise<{ receipt: ComparisonReceipt; problems: string[] }> {
    if (this.running) throw new Error('a comparison is already in progress');
    this.running = true;
    const baselineEp = request.routes.find((r) => r.id === request.baselineId)?.ep ?? request.routes[0]?.ep ?? 'wasm';
    return comparisonRun(
      this.env,
      { modelId: request.model.id, baselineEp },
      ({ journal, overlap }) => this.runInner(request, ui, journal, overlap, signal),
      () => {
        for (const state of this.states) state.bridge?.close('comparison finished');
        this.states = [];
        this.running = false;
      },
    );
  }

  private async runInner(
    request: ComparisonRequest,
    ui: ComparisonUiHooks,
    journal: RunJournalWriter,
    overlap: OverlapWatch,
    signal: AbortSignal | undefined,
  ): Promise<{ receipt: ComparisonReceipt; problems: string[] }> {
    const { env } = this;
    const lifecycle = new LifecycleRecorder();
    lifecycle.start();
    // The schedule is built first (for the most rounds the rule allows: fewer rounds are its prefix), so bad route
    // ids or round counts fail before any worker starts.
    const rule = request.rule ?? fixedRule(request.rounds);
    const tracker = new StoppingTracker(rule, request.baselineId);
    const schedule = interleavedSchedule(
      request.routes.map((r) => r.id),
      rule.max_rounds,
      request.seed,
    );
    // CPU pressure is followed from here, so a first report has usually come before the timed rounds begin.
    const monitor = await pressureMonitor();
    ui.onPhase?.('probe');
    journal.stage('probe');
    const capabilities = await env.probe();
    let engine = unloadedEngine(request.model.engine);
    let inputSha256: string | null = null;
    let files: ComparisonReceipt['model']['files'] = [];
    let integrity: ComparisonReceipt['model']['integrity'] = 'not-loaded';
    this.states = request.routes.map((r) => ({
      request: r,
      bridge: null,
      measurement: {
        id: r.id,
        requested_ep: r.ep,
        completed_ep: null,
        threads_requested: r.threads,
        threads_effective: null,
        session_create_ms: null,
        samples_ms: [],
        scores: null,
        scores_sha256: null,
        error: null,
      },
    }));
    const failRoute = (state: RouteState, error: unknown) => {
      const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
      state.measurement.error ??= { name: boundCode(name), message: receiptText(message) };
      state.bridge?.close(message);
      state.bridge = null;
    };

    // 2. Load every route in its own worker (one after the other: loading in parallel would race for the cores).
    for (const state of this.states) {
      ui.onPhase?.('load', state.request.id);
      // The model's integrity is about its files: an input that differs from its pin fails the route only.
      let loadingModel = false;
      try {
        state.bridge = await WorkerBridge.open(env.limits, signal);
        state.bridge.follow({ onStage: (stage, phase) => phase === 'start' && journal.stage(stage) }, signal);
        if (request.input.kind === 'fixed') {
          const input = await state.bridge.loadInput(request.input.input, env.pageBaseUrl);
          inputSha256 ??= input.sha256;
        }
        // No fallback: a comparison compares what was asked.
        loadingModel = true;
        const route = { ep: state.request.ep, threads: state.request.threads, allowFallback: false };
        const settings = { pageBaseUrl: env.pageBaseUrl, dtype: request.dtype };
        const load = await state.bridge.load(loadRequest(request.model, route, settings));
        engine = load.engine;
        files = load.model.files;
        if (integrity !== 'mismatch') integrity = load.model.integrity;
        state.measurement.completed_ep = load.route.completed_ep;
        state.measurement.threads_effective = load.route.threads_effective;
        state.measurement.session_create_ms = load.timings.session_create_ms;
        state.measurement.runtime = load.runtime;
      } catch (error) {
        if (loadingModel && error instanceof IntegrityFailure) integrity = 'mismatch';
        // A route whose load failed after its runtime fetch (or whose worker died then) still says which build it was.
        if (loadingModel) state.measurement.runtime = fetchedBeforeFailure(error, state.bridge)?.runtime?.info ?? null;
        failRoute(state, error);
      }
    }

    // One timed run on a route: the fixed input once, or every candidate row once (one engine call per row; the
    // sample is the sum of the rows' model-call times, each timed in the worker).
    const rowsInput = request.input.kind === 'rows' ? request.input.rows : null;
    const runInput = async (
      bridge: WorkerBridge,
      stage: Stage,
    ): Promise<{ durationMs: number; scores: number[]; sha256: string | null; check?: OutputCheck | null }> => {
      if (rowsInput === null) {
        const out = await bridge.runOnce(stage);
        return {
          durationMs: out.durationMs,
          scores: out.values ?? out.output?.head ?? [],
          sha256: out.output?.sha256 ?? null,
          check: out.check ?? null,
        };
      }
      let durationMs = 0;
      const scores: number[] = [];
      for (const row of rowsInput.rows) {
        await bridge.setInput({ id: row.id, data: row.data }, stage);
        const out = await bridge.runOnce(stage).catch((error: unknown) => {
          // An engine failure names the row; a dead worker (crash, time limit, cancel) is about the route as a whole.
          if (!(error instanceof EngineError)) throw error;
          throw Object.assign(new Error(`row ${JSON.stringify(row.id)}: ${error.message}`), { name: error.name });
        });
        const values = out.values ?? [];
        if (values.length !== row.data.candidates.length) {
          throw new Error(
            `row ${JSON.stringify(row.id)}: the engine gave ${values.length} scores for ${row.data.candidates.length} candidates`,
          );
        }
        durationMs += out.durationMs;
        scores.push(...values);
      }
      // Digested below over all rows' scores (float64, row order).
      return { durationMs, scores, sha256: null };
    };

    // 3. One untimed warm-up per live route (first-run costs: shader compilation, allocator growth, JIT).
    for (const state of this.states) {
      if (state.bridge === null) continue;
      ui.onPhase?.('warmup', state.request.id);
      journal.stage('warmup');
      await runInput(state.bridge, 'warmup').catch((error: unknown) => failRoute(state, error));
    }

    // 4. Timed runs in the interleaved order, round by round until the rule stops them; the last round's output is
    // what the agreement check compares. The drift probe runs before the first round and after each, while every
    // route's worker is idle.
    ui.onPhase?.('timed');
    journal.stage('warm_inference');
    const pressure = await monitor.begin(signal);
    const probes = [timeDriftProbe()];
    const timedStart = performance.now();
    const byId = new Map(this.states.map((s) => [s.request.id, s]));
    const perRound = request.routes.length;
    let done = 0;
    let roundsStarted = 0;
    for (let round = 0; round < rule.max_rounds && !signal?.aborted; round++) {
      roundsStarted++;
      for (const slot of schedule.slice(round * perRound, (round + 1) * perRound)) {
        const state = byId.get(slot.route_id)!;
        done++;
        if (state.bridge === null) continue;
        try {
          const out = await runInput(state.bridge, 'warm_inference');
          state.measurement.samples_ms.push(out.durationMs);
          state.measurement.scores = out.scores;
          state.measurement.scores_sha256 = out.sha256;
          // A trained model's correctness check of the route's last run.
          if (out.check !== undefined) state.measurement.check = out.check;
          ui.onSlot?.(done, schedule.length, slot.route_id, out.durationMs, slot.round);
        } catch (error) {
          failRoute(state, error);
        }
      }
      if (signal?.aborted) break;
      probes.push(timeDriftProbe());
      const series = this.states.map((s) => ({ id: s.request.id, samples_ms: s.measurement.samples_ms }));
      const stop = tracker.afterRound(series, performance.now() - timedStart);
      if (tracker.lastRound !== null) ui.onRound?.(tracker.lastRound);
      if (stop !== null) break;
    }
    const planned = Math.max(roundsStarted, 1);
    for (const state of this.states) {
      const m = state.measurement;
      // Candidate rows are digested over all rows' scores (float64, row order), once, from the last round's.
      if (m.scores !== null && m.scores_sha256 === null) m.scores_sha256 = await sha256Hex(new Float64Array(m.scores));
      // Where the route's work ran (read once the rounds are over: ORT's profile of the session's first run).
      if (state.bridge !== null && m.samples_ms.length > 0)
        m.placement = (await state.bridge.diagnostics('warm'))?.placement ?? null;
    }

    // 5. Compare and assemble.
    const model = modelSection(request.model, request.dtype, { files, integrity });
    const tolerance = comparisonTolerance(model.task, model.dtype, request.toleranceAbs);
    const routes = compareRoutes(
      this.states.map((s) => s.measurement),
      request.baselineId,
      tolerance.max_abs_diff,
      rowsInput?.groups ?? null,
    );
    const baseline = routes.find((r) => r.id === request.baselineId)!;
    // A cancelled comparison says so, rather than blaming the baseline route that the cancel stopped.
    const outcome: ComparisonReceipt['outcome'] = signal?.aborted
      ? { status: 'failed', reason: CANCELLED }
      : baseline.valid
        ? { status: 'ok', reason: null }
        : { status: 'failed', reason: `the baseline route ${baseline.id} is not valid: ${baseline.invalid_reason}` };
    ui.onPhase?.(outcome.status === 'ok' ? 'done' : 'failed');
    const receipt: ComparisonReceipt = {
      schema: COMPARISON_RECEIPT_SCHEMA,
      receipt_id: crypto.randomUUID(),
      created_at: new Date().toISOString(),
      evidence_state: 'DEVICE_RECEIPT',
      app: appSection(env.build, env.pageUrl()),
      engine,
      model,
      input:
        request.input.kind === 'fixed'
          ? { id: request.input.input.id, sha256: inputSha256 ?? request.input.input.sha256 }
          : { id: request.input.rows.inputId, sha256: await sha256Hex(comparisonRowsBytes(request.input.rows.rows)) },
      candidate_rows:
        request.input.kind === 'rows'
          ? {
              suite_id: request.input.suiteId,
              task: request.model.task as 'rerank' | 'score-candidates',
              text_template: request.input.rows.textTemplate,
              items_sha256: request.input.itemsSha256,
              candidates_sha256: request.input.candidatesSha256,
              rows: request.input.rows.groups.map((g) => ({ id: g.id, candidates: g.count })),
            }
          : null,
      // The plan of the rounds begun (a comparison cancelled before its first round keeps that round's plan).
      schedule: {
        seed: request.seed,
        rounds: planned,
        order: schedule.slice(0, planned * perRound).map((s) => s.route_id),
      },
      baseline_route_id: request.baselineId,
      tolerance,
      // A WebGPU route on a software (fallback) adapter says so: its timings are not the device's GPU.
      routes: routes.map((r) => ({
        ...r,
        software_adapter: r.completed_ep === 'webgpu' ? capabilities.webgpu.is_fallback_adapter : null,
      })),
      headline: comparisonHeadline(routes, request.baselineId),
      stopping: tracker.result(signal?.aborted === true ? 'cancelled' : null),
      device_state: {
        pressure: pressure.record(),
        drift_probe: driftProbeRecord(probes, { context: 'page', placement: 'between-rounds' }),
        cooldown: null,
      },
      capabilities,
      previous_run_interrupted: journal.previous,
      overlap: await overlap.finish(),
      lifecycle: lifecycle.stop(),
      outcome: { status: outcome.status, reason: outcome.reason === null ? null : receiptText(outcome.reason) },
    };
    return { receipt, problems: receiptProblems(ComparisonReceipt, receipt, checkComparisonReceipt) };
  }
}
