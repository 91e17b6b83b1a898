/**
 * Side-by-side comparison of execution routes (wasm with 1 thread, wasm with N threads, webgpu ...) on one model and
 * one input, producing a validated comparison receipt. The input is the catalog's fixed token input (ORT fixtures,
 * plain forward passes), or candidate rows of a suite for rerankers and candidate scorers: then one timed run scores
 * every row (one engine call per row, their model times summed) and agreement is checked row by row.
 *
 * Each route gets its own worker: ORT's wasm backend fixes its thread count once per worker, so two thread counts
 * cannot share one. Steps: 1. probe; 2. per route, a fresh worker loads the input and the model (no fallback: a
 * comparison compares what was asked); 3. one untimed warm-up per route; 4. the timed runs in the interleaved
 * shuffled schedule from the declared seed; 5. statistics, agreement against the baseline, validity, ranks.
 */
import type { CatalogInput, CatalogModel } from '../core/catalog.ts';
import { comparisonRowsBytes, type ComparisonRows } from '../core/comparison/candidate-rows.ts';
import {
  checkComparisonReceipt,
  compareRoutes,
  comparisonHeadline,
  COMPARISON_RECEIPT_SCHEMA,
  ComparisonReceipt,
  type RouteMeasurement,
} from '../core/comparison/comparison-receipt.ts';
import { interleavedSchedule } from '../core/comparison/interleaved-schedule.ts';
import { boundCode } from '../core/bounded-text.ts';
import { receiptText, redactUrl } from '../core/redact.ts';
import type { Stage } from '../core/receipt.ts';
import { sha256Hex } from '../core/sha256.ts';
import { issueLines } from '../core/zod-issues.ts';
import type { InputOutcome, LoadOutcome, RunOutcome } from '../../workers/bench-worker-api.ts';
import { LifecycleRecorder } from './lifecycle.ts';
import type { PageFacts } from './page-facts.ts';
import { openRunJournal, type ControllerJournal, type RunJournalWriter } from './run-journal.ts';
import { WorkerHandle } from './worker-client.ts';

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
  /** Timed runs per route (one per round). */
  rounds: number;
  /** Seed of the shuffled schedule (recorded). */
  seed: number;
  /** Largest absolute score difference still counted as agreement. */
  toleranceAbs: number;
  /** transformers.js dtype override (picks the ONNX file, the same on every route); null = the catalog's. */
  dtype: string | null;
}

/** How the UI follows a comparison. */
export interface ComparisonUiHooks {
  onPhase?(phase: 'probe' | 'load' | 'warmup' | 'timed' | 'done' | 'failed', routeId?: string): void;
  /** After each timed slot: slots done / total. */
  onSlot?(done: number, total: number, routeId: string, durationMs: number): void;
}

/** Page facts the controller needs. */
export interface ComparisonEnvironment extends PageFacts {
  /** The page's run journal: the comparison's stages are journaled (requested route: the baseline's EP) and its
   *  receipt records a pending interruption. */
  journal?: ControllerJournal;
}

interface RouteState {
  request: ComparisonRouteRequest;
  handle: WorkerHandle | null;
  measurement: RouteMeasurement;
}

/** Runs comparisons; one at a time. */
export class ComparisonController {
  private states: RouteState[] = [];
  private running = false;

  /** @param env page facts (base URL, probe, stage limits, app version) */
  constructor(private readonly env: ComparisonEnvironment) {}

  /**
   * Runs `request`; never throws for an engine or worker failure (the route is invalid, or the receipt failed).
   * @param request model, input, routes, baseline, rounds, seed, tolerance
   * @param ui progress hooks
   */
  async run(request: ComparisonRequest, ui: ComparisonUiHooks = {}): Promise<{ receipt: ComparisonReceipt; problems: string[] }> {
    if (this.running) throw new Error('a comparison is already in progress');
    this.running = true;
    const baselineEp = request.routes.find((r) => r.id === request.baselineId)?.ep ?? request.routes[0]?.ep ?? 'wasm';
    const journal = await openRunJournal(this.env.journal, { runId: crypto.randomUUID(), mode: 'comparison', kind: null, modelId: request.model.id, requestedEp: baselineEp });
    try {
      return await this.runInner(request, ui, journal);
    } finally {
      // Ended (ok, failed or thrown): only a page that is gone leaves the run open in the journal.
      journal.end();
      for (const state of this.states) state.handle?.terminate('comparison finished');
      this.states = [];
      this.running = false;
    }
  }

  private async runInner(request: ComparisonRequest, ui: ComparisonUiHooks, journal: RunJournalWriter): Promise<{ receipt: ComparisonReceipt; problems: string[] }> {
    const { env } = this;
    const lifecycle = new LifecycleRecorder();
    lifecycle.start();
    // The schedule is built first, so bad route ids or round counts fail before any worker starts.
    const schedule = interleavedSchedule(request.routes.map((r) => r.id), request.rounds, request.seed);
    ui.onPhase?.('probe');
    journal.stage('probe');
    const capabilities = await env.probe();
    let engine = { name: request.model.engine, version: 'unknown' };
    let inputSha256: string | null = null;
    let files: ComparisonReceipt['model']['files'] = [];
    let integrity: ComparisonReceipt['model']['integrity'] = 'not-loaded';
    this.states = request.routes.map((r) => ({
      request: r,
      handle: null,
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
    const failRoute = (state: RouteState, name: string, message: string) => {
      state.measurement.error ??= { name: boundCode(name), message: receiptText(message) };
      state.handle?.terminate(message);
      state.handle = null;
    };
    const call = <T,>(state: RouteState, stage: Stage, body: (h: WorkerHandle) => Promise<T>): Promise<T> => {
      const handle = state.handle!;
      return handle.call<T>(stage, env.limits[stage], () => body(handle), (s) => env.limits[s]);
    };

    // 2. Load every route in its own worker (one after the other: loading in parallel would race for the cores).
    for (const state of this.states) {
      ui.onPhase?.('load', state.request.id);
      try {
        state.handle = new WorkerHandle();
        await state.handle.syncClock(env.limits.probe);
        const hooks = state.handle.proxy({
          onStage: (stage: Stage, phase: 'start' | 'end') => {
            if (phase !== 'start') return;
            journal.stage(stage);
            state.handle?.enterStage(stage);
          },
        });
        journal.stage('fetch');
        if (request.input.kind === 'fixed') {
          const fixed = request.input.input;
          const input = await call<InputOutcome>(state, 'fetch', (h) => h.api.loadInput(fixed, env.pageBaseUrl));
          if (!input.ok) throw Object.assign(new Error(input.message), { name: input.name });
          inputSha256 ??= input.sha256;
        }
        const load = await call<LoadOutcome>(state, 'fetch', (h) =>
          h.api.load({ model: request.model, pageBaseUrl: env.pageBaseUrl, ep: state.request.ep, threads: state.request.threads, allowFallback: false, dtype: request.dtype }, hooks),
        );
        if (!load.ok) {
          if (load.integrityMismatch) integrity = 'mismatch';
          throw Object.assign(new Error(load.message), { name: load.name });
        }
        engine = load.engine;
        files = load.files;
        if (integrity !== 'mismatch') integrity = load.integrity;
        state.measurement.completed_ep = load.completedEp;
        state.measurement.threads_effective = load.threadsEffective;
        state.measurement.session_create_ms = load.sessionMs;
      } catch (error) {
        failRoute(state, (error as Error).name ?? 'Error', (error as Error).message ?? String(error));
      }
    }

    // One timed run on a route: the fixed input once, or every candidate row once (one engine call per row; the
    // sample is the sum of the rows' model-call times, each timed in the worker).
    const rowsInput = request.input.kind === 'rows' ? request.input.rows : null;
    const runInput = async (state: RouteState, stage: Stage): Promise<{ ok: true; durationMs: number; scores: number[]; sha256: string | null } | { ok: false; name: string; message: string }> => {
      if (rowsInput === null) {
        const out = await call<RunOutcome>(state, stage, (h) => h.api.runOnce({}));
        return out.ok ? { ok: true, durationMs: out.durationMs, scores: out.values ?? out.output.head, sha256: out.output.sha256 } : out;
      }
      let durationMs = 0;
      const scores: number[] = [];
      for (const row of rowsInput.rows) {
        await call(state, stage, (h) => h.api.setInput({ id: row.id, data: row.data }));
        const out = await call<RunOutcome>(state, stage, (h) => h.api.runOnce({}));
        if (!out.ok) return { ok: false, name: out.name, message: `row ${JSON.stringify(row.id)}: ${out.message}` };
        const values = out.values ?? [];
        if (values.length !== row.data.candidates.length) {
          return { ok: false, name: 'Error', message: `row ${JSON.stringify(row.id)}: the engine gave ${values.length} scores for ${row.data.candidates.length} candidates` };
        }
        durationMs += out.durationMs;
        scores.push(...values);
      }
      // Digested below over all rows' scores (float64, row order).
      return { ok: true, durationMs, scores, sha256: null };
    };

    // 3. One untimed warm-up per live route (first-run costs: shader compilation, allocator growth, JIT).
    for (const state of this.states.filter((s) => s.handle !== null)) {
      ui.onPhase?.('warmup', state.request.id);
      journal.stage('warmup');
      try {
        const out = await runInput(state, 'warmup');
        if (!out.ok) failRoute(state, out.name, out.message);
      } catch (error) {
        failRoute(state, (error as Error).name, (error as Error).message);
      }
    }

    // 4. Timed runs in the interleaved order; the last round's output is what the agreement check compares.
    ui.onPhase?.('timed');
    journal.stage('warm_inference');
    const byId = new Map(this.states.map((s) => [s.request.id, s]));
    let done = 0;
    for (const slot of schedule) {
      const state = byId.get(slot.route_id)!;
      done++;
      if (state.handle === null) continue;
      try {
        const out = await runInput(state, 'warm_inference');
        if (!out.ok) {
          failRoute(state, out.name, out.message);
          continue;
        }
        state.measurement.samples_ms.push(out.durationMs);
        if (slot.round === request.rounds) {
          state.measurement.scores = out.scores;
          state.measurement.scores_sha256 = out.sha256 ?? (await sha256Hex(new Float64Array(out.scores)));
        }
        ui.onSlot?.(done, schedule.length, slot.route_id, out.durationMs);
      } catch (error) {
        failRoute(state, (error as Error).name, (error as Error).message);
      }
    }

    // 5. Compare and assemble.
    const routes = compareRoutes(
      this.states.map((s) => s.measurement),
      request.baselineId,
      request.toleranceAbs,
      rowsInput?.groups ?? null,
    );
    const baseline = routes.find((r) => r.id === request.baselineId)!;
    const outcome: ComparisonReceipt['outcome'] = baseline.valid
      ? { status: 'ok', reason: null }
      : { status: 'failed', reason: `the baseline route ${baseline.id} is not valid: ${baseline.invalid_reason}` };
    ui.onPhase?.(outcome.status === 'ok' ? 'done' : 'failed');
    const receipt: ComparisonReceipt = {
      schema: COMPARISON_RECEIPT_SCHEMA,
      receipt_id: crypto.randomUUID(),
      created_at: new Date().toISOString(),
      evidence_state: 'DEVICE_RECEIPT',
      app: { name: 'device-receipts-bench', version: env.app.version, commit: env.app.commit, page_url: redactUrl(env.pageUrl()) },
      engine,
      model: {
        id: request.model.id,
        kind: request.model.kind,
        task: request.model.task,
        dtype: request.dtype ?? request.model.dtype,
        source: request.model.source.type,
        revision: request.model.source.type === 'huggingface' ? request.model.source.revision : null,
        integrity,
        files,
      },
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
      schedule: { seed: request.seed, rounds: request.rounds, order: schedule.map((s) => s.route_id) },
      baseline_route_id: request.baselineId,
      tolerance: { max_abs_diff: request.toleranceAbs },
      routes,
      headline: comparisonHeadline(routes, request.baselineId),
      capabilities,
      previous_run_interrupted: journal.previous,
      lifecycle: lifecycle.stop(),
      outcome: { status: outcome.status, reason: outcome.reason === null ? null : receiptText(outcome.reason) },
    };
    const problems: string[] = [];
    const parsed = ComparisonReceipt.safeParse(receipt);
    if (!parsed.success) problems.push(...issueLines(parsed.error));
    else for (const p of checkComparisonReceipt(parsed.data)) problems.push(`${p.path}: ${p.message}`);
    return { receipt, problems };
  }
}

/** A readable file name: drb-<engine>-compare-<timestamp>.json. */
export function comparisonFileName(receipt: ComparisonReceipt): string {
  return `drb-${receipt.engine.name}-compare-${receipt.created_at.replace(/[:.]/g, '-')}.json`;
}
