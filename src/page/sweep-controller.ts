/**
 * The crossover sweep: two routes of one model over the catalog's ladder of work sizes, producing a validated sweep
 * receipt (src/core/comparison/sweep-receipt.ts). Each route loads once, in its own worker (ORT's wasm backend fixes
 * its thread count per worker); then for each size, smallest first: both workers take that size's input, one
 * untimed warm-up each, and the timed runs in rounds shuffled from `seed + index`, round by round until the declared
 * stopping rule stops them, with the drift probe timed before the first round and after each (on this thread, while
 * both workers are idle) and the CPU pressure followed throughout. A route that fails ends the sweep at that size
 * (the receipt keeps the sizes before it). Journaled as a comparison (the journal's run modes).
 */
import type { CatalogInput, CatalogModel } from '../core/catalog/catalog.ts';
import { comparisonTolerance } from '../core/comparison/dtype-tolerance.ts';
import { interleavedSchedule } from '../core/comparison/interleaved-schedule.ts';
import { lookLevel, StoppingTracker, type StoppingRound, type StoppingRule } from '../core/comparison/stopping-rule.ts';
import { SweepReceipt, type SweepRoute } from '../core/comparison/sweep-receipt.ts';
import { checkSweepReceipt } from '../core/comparison/sweep-invariants.ts';
import {
  buildSweepReceipt,
  type SweepPointMeasurement,
  type SweepRouteMeasurement,
} from '../core/comparison/sweep-statistics.ts';
import { driftProbeRecord } from '../core/device/drift-probe.ts';
import { appSection, modelSection, receiptProblems, unloadedEngine } from '../core/receipt/receipt-envelope.ts';
import { boundCode } from '../core/text/bounded-text.ts';
import { sha256Hex } from '../core/bytes/sha256.ts';
import { receiptText } from '../core/text/redact.ts';
import type { ComparisonRouteRequest } from './comparison-controller.ts';
import { timeDriftProbe } from './drift-probe.ts';
import { LifecycleRecorder } from './lifecycle.ts';
import type { PageFacts } from './page-facts.ts';
import { pressureMonitor } from './pressure-monitor.ts';
import { comparisonRun } from './comparison-run.ts';
import { IntegrityFailure, loadRequest, WorkerBridge } from './worker-bridge.ts';

/** What to sweep. */
export interface SweepRequest {
  model: CatalogModel;
  /** The ladder (smallest first): each size with its catalog input. */
  steps: Array<{ size: number; input: CatalogInput }>;
  /** The baseline and the other route. */
  routes: [ComparisonRouteRequest, ComparisonRouteRequest];
  baselineId: string;
  rule: StoppingRule;
  /** Point i's schedule uses seed + i. */
  seed: number;
  /** null: the default for the model's score kind and dtype. */
  toleranceAbs: number | null;
}

/** How the UI follows a sweep. */
export interface SweepUiHooks {
  onPhase?(phase: 'probe' | 'load' | 'size' | 'done' | 'failed', detail?: string): void;
  /** After each round of a size: the size and the round's interval and decision. */
  onRound?(size: number, round: StoppingRound): void;
}

interface RouteState {
  request: ComparisonRouteRequest;
  bridge: WorkerBridge | null;
  route: SweepRoute;
}

/** Runs sweeps; one at a time. */
export class SweepController {
  private states: RouteState[] = [];
  private running = false;

  /** @param env page facts (base URL, probe, stage limits, build, journal) */
  constructor(private readonly env: PageFacts) {}

  /**
   * Runs `request`; never throws for an engine or worker failure (the receipt says what failed).
   * @param request model, ladder, routes, baseline, rule, seed, tolerance
   * @param ui progress hooks
   * @param signal cancels the sweep (the receipt ends `failed`, reason `cancelled`)
   */
  async run(
    request: SweepRequest,
    ui: SweepUiHooks = {},
    signal?: AbortSignal,
  ): Promise<{ receipt: SweepReceipt; problems: string[] }> {
    if (this.running) throw new Error('a sweep is already in progress');
    if (request.steps.length === 0) throw new RangeError('a sweep needs at least one size');
    this.running = true;
    const baselineEp = request.routes.find((r) => r.id === request.baselineId)?.ep ?? 'wasm';
    return comparisonRun(
      this.env,
      { modelId: request.model.id, baselineEp },
      async ({ journal, overlap }) => {
        const { env } = this;
        const lifecycle = new LifecycleRecorder();
        lifecycle.start();
        const monitor = await pressureMonitor();
        ui.onPhase?.('probe');
        journal.stage('probe');
        const capabilities = await env.probe();
        let engine = unloadedEngine(request.model.engine);
        let files: SweepReceipt['model']['files'] = [];
        let integrity: SweepReceipt['model']['integrity'] = 'not-loaded';
        this.states = request.routes.map((r) => ({
          request: r,
          bridge: null,
          route: {
            id: r.id,
            requested_ep: r.ep,
            completed_ep: null,
            threads_requested: r.threads,
            threads_effective: null,
            session_create_ms: null,
            runtime: null,
            software_adapter: null,
            error: null,
          },
        }));
        const errorOf = (error: unknown) => {
          const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
          return { name: boundCode(name), message: receiptText(message) };
        };

        // 1. Load each route once, in its own worker, one after the other (no fallback: a sweep compares what was asked).
        for (const state of this.states) {
          ui.onPhase?.('load', state.request.id);
          try {
            state.bridge = await WorkerBridge.open(env.limits, signal);
            state.bridge.follow({ onStage: (stage, phase) => phase === 'start' && journal.stage(stage) }, signal);
            await state.bridge.loadInput(request.steps[0].input, env.pageBaseUrl);
            const load = await state.bridge.load(
              loadRequest(
                request.model,
                { ep: state.request.ep, threads: state.request.threads, allowFallback: false },
                { pageBaseUrl: env.pageBaseUrl },
              ),
            );
            engine = load.engine;
            files = load.model.files;
            if (integrity !== 'mismatch') integrity = load.model.integrity;
            state.route.completed_ep = load.route.completed_ep;
            state.route.threads_effective = load.route.threads_effective;
            state.route.session_create_ms = load.timings.session_create_ms;
            state.route.runtime = load.runtime;
            state.route.software_adapter =
              load.route.completed_ep === 'webgpu' ? capabilities.webgpu.is_fallback_adapter : null;
            if (state.route.completed_ep !== state.request.ep)
              throw new Error(`ran on ${state.route.completed_ep}, not the requested ${state.request.ep}`);
          } catch (error) {
            if (error instanceof IntegrityFailure) integrity = 'mismatch';
            state.route.error = errorOf(error);
            state.route.completed_ep = null;
            state.bridge?.close(state.route.error.message);
            state.bridge = null;
          }
        }

        // 2. Each size, smallest first, until the rule stops its rounds.
        const model = modelSection(request.model, null, { files, integrity });
        const tolerance = comparisonTolerance(model.task, model.dtype, request.toleranceAbs);
        const ids = request.routes.map((r) => r.id);
        const points: SweepPointMeasurement[] = [];
        const probes: number[] = [];
        const pressure = await monitor.begin(signal);
        const loaded = this.states.every((s) => s.bridge !== null);
        for (const [index, step] of request.steps.entries()) {
          if (!loaded || signal?.aborted) break;
          ui.onPhase?.('size', String(step.size));
          journal.stage('warm_inference');
          const seed = request.seed + index;
          const measured: SweepRouteMeasurement[] = this.states.map((s) => ({
            route_id: s.request.id,
            samples_ms: [],
            scores: null,
            scores_sha256: null,
            error: null,
          }));
          let inputSha256 = step.input.sha256;
          let failed = false;
          const fail = (i: number, error: unknown) => {
            measured[i].error ??= errorOf(error);
            failed = true;
          };
          // The size's input, then one untimed warm-up, on both routes.
          for (const [i, state] of this.states.entries()) {
            try {
              const input = await state.bridge!.loadInput(step.input, this.env.pageBaseUrl);
              inputSha256 = input.sha256;
              await state.bridge!.runOnce('warmup');
            } catch (error) {
              fail(i, error);
            }
          }
          const schedule = interleavedSchedule(ids, request.rule.max_rounds, seed);
          const tracker = new StoppingTracker(request.rule, request.baselineId);
          probes.push(timeDriftProbe());
          const started = performance.now();
          let rounds = 0;
          for (let round = 0; round < request.rule.max_rounds && !failed && !signal?.aborted; round++) {
            rounds++;
            for (const slot of schedule.slice(round * 2, round * 2 + 2)) {
              const i = ids.indexOf(slot.route_id);
              try {
                const out = await this.states[i].bridge!.runOnce('warm_inference');
                measured[i].samples_ms.push(out.durationMs);
                measured[i].scores = out.values ?? out.output?.head ?? [];
                measured[i].scores_sha256 = out.output?.sha256 ?? null;
              } catch (error) {
                fail(i, error);
                break;
              }
            }
            if (failed || signal?.aborted) break;
            probes.push(timeDriftProbe());
            const stop = tracker.afterRound(
              measured.map((m) => ({ id: m.route_id, samples_ms: m.samples_ms })),
              performance.now() - started,
            );
            if (tracker.lastRound !== null) ui.onRound?.(step.size, tracker.lastRound);
            if (stop !== null) break;
          }
          for (const m of measured) {
            // A fixed input's digest is the output tensor's; should the engine give none, the scores' (float64).
            if (m.scores !== null && m.scores_sha256 === null)
              m.scores_sha256 = await sha256Hex(new Float64Array(m.scores));
          }
          points.push({
            size: step.size,
            input: { id: step.input.id, sha256: inputSha256 },
            schedule: { seed, rounds, order: schedule.slice(0, rounds * 2).map((s) => s.route_id) },
            stopping: tracker.result(failed ? 'route-failed' : signal?.aborted === true ? 'cancelled' : null),
            routes: measured as [SweepRouteMeasurement, SweepRouteMeasurement],
          });
          // A route that failed at this size is gone (its worker was closed, or its input refused): the sweep ends here.
          if (failed) break;
        }
        if (points.length === 0) {
          // Nothing ran (a route failed to load, or the sweep was cancelled before its first size): one empty point
          // keeps the receipt's shape, with the routes' own errors saying why.
          const step = request.steps[0];
          const notRun = { name: 'NotRun', message: 'the sweep ended before this size ran' };
          points.push({
            size: step.size,
            input: { id: step.input.id, sha256: step.input.sha256 },
            schedule: { seed: request.seed, rounds: 0, order: [] },
            stopping: {
              rule: request.rule,
              look_level: lookLevel(request.rule),
              rounds: [],
              reason: signal?.aborted ? 'cancelled' : 'route-failed',
              budget: null,
            },
            routes: this.states.map(
              (s): SweepRouteMeasurement => ({
                route_id: s.request.id,
                samples_ms: [],
                scores: null,
                scores_sha256: null,
                error: s.route.error ?? notRun,
              }),
            ) as [SweepRouteMeasurement, SweepRouteMeasurement],
          });
        }
        const receipt = buildSweepReceipt({
          receipt_id: crypto.randomUUID(),
          created_at: new Date().toISOString(),
          app: appSection(env.build, env.pageUrl()),
          engine,
          model,
          dimension: request.model.sweep?.dimension ?? 'sequence-length',
          routes: this.states.map((s) => s.route) as [SweepRoute, SweepRoute],
          baseline_route_id: request.baselineId,
          tolerance,
          seed: request.seed,
          rule: request.rule,
          points,
          previous_run_interrupted: journal.previous,
          overlap: await overlap.finish(),
          capabilities,
          lifecycle: lifecycle.stop(),
          device_state: {
            pressure: pressure.record(),
            drift_probe: driftProbeRecord(probes, { context: 'page', placement: 'between-rounds' }),
            cooldown: null,
          },
          cancelled: signal?.aborted === true,
        });
        ui.onPhase?.(receipt.outcome.status === 'ok' ? 'done' : 'failed');
        return { receipt, problems: receiptProblems(SweepReceipt, receipt, checkSweepReceipt) };
      },
      () => {
        for (const state of this.states) state.bridge?.close('sweep finished');
        this.states = [];
        this.running = false;
      },
    );
  }
}
