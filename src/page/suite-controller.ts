/**
 * Runs a suite (items + candidates artifacts) through a reranker or candidate scorer in a fresh bench worker, and
 * turns it into a predictions artifact (exactly what `drb score` reads) plus a validated suite receipt.
 *
 * Steps: 1. validate both artifacts (before anything loads: a bad file is refused with its name and row);
 * 2. probe; 3. fresh worker, load the model (cold load, kept apart from row latencies); 4. every row in items order:
 * score its candidates, rank, apply the abstention policy; 5. encode + re-parse the predictions, assemble and
 * validate the receipt. Every worker call runs under a stage time limit, so a dead worker never freezes the page.
 * The user's files are only read (bytes in memory); nothing is ever written back to them.
 */
import type { CatalogModel } from '../core/catalog/catalog.ts';
import type { ItemFormat } from '../core/artifacts/items.ts';
import type { PredictionRow } from '../core/artifacts/predictions.ts';
import { canRun, enginesFor } from '../core/engines/engine-capabilities.ts';
import {
  appSection,
  modelSection,
  receiptFileName,
  receiptProblems,
  redactedErrors,
  routeSection,
  unloadedEngine,
} from '../core/receipt/receipt-envelope.ts';
import { receiptText } from '../core/text/redact.ts';
import type { Capabilities, RouteAttempt } from '../core/receipt/receipt.ts';
import { sha256Hex } from '../core/bytes/sha256.ts';
import { summarize } from '../core/stats/stats.ts';
import type { AbstentionPolicy, SuiteReason } from '../core/suite/abstention-policy.ts';
import type { RerankInput, ScoreCandidatesInput } from '../core/suite/engine-inputs.ts';
import { encodePredictions } from '../core/suite/predictions-artifact.ts';
import { rankCandidates } from '../core/suite/rank-candidates.ts';
import {
  RERANK_PAIR_TEMPLATE_ID,
  rerankQuery,
  SCORE_PROMPT_TEMPLATE_ID,
  scorePrompt,
} from '../core/suite/scoring-text.ts';
import { planSuite, type NamedBytes, type SuitePlan } from '../core/suite/suite-plan.ts';
import { SuiteManifest } from '../core/suite/suite-manifest.ts';
import { checkSuiteReceipt, SUITE_RECEIPT_SCHEMA, SuiteReceipt, type SuiteStage } from '../core/suite/suite-receipt.ts';
import { firstIssueLine } from '../core/text/zod-issues.ts';
import type { FetchedFacts, FetchProgress, LoadResult } from '../worker-api/worker-messages.ts';
import type { PageFacts } from './page-facts.ts';
import { openRunJournal } from './run-journal.ts';
import { watchOverlap } from './run-gate.ts';
import {
  cancellable,
  EngineError,
  fetchedBeforeFailure,
  IntegrityFailure,
  loadRequest,
  WorkerBridge,
} from './worker-bridge.ts';

/** What to run. */
export interface SuiteRequest {
  model: CatalogModel;
  ep: 'wasm' | 'webgpu';
  threads: number | null;
  allowFallback: boolean;
  /** dtype override; null = the catalog's. */
  dtype: string | null;
  policy: AbstentionPolicy;
  /** The shipped suite's id, or null for files the user picked. */
  suiteId: string | null;
  format: ItemFormat;
  items: NamedBytes;
  candidates: NamedBytes;
}

/** Progress of the row loop (page clock). */
export interface SuiteProgress {
  rowsDone: number;
  rowsTotal: number;
  elapsedMs: number;
  /** Estimated time left from the mean row time so far; null before the first row. */
  etaMs: number | null;
}

/** How the UI follows a suite run. */
export interface SuiteUiHooks {
  onPhase?(phase: 'validate' | 'load' | 'rows' | 'done' | 'failed'): void;
  onProgress?(progress: FetchProgress): void;
  onRows?(progress: SuiteProgress): void;
}

/** The result: refused before the run (`refused`), or a receipt (ok or failed) with predictions when ok. */
export type SuiteOutcome =
  | { refused: string }
  | {
      refused: null;
      receipt: SuiteReceipt;
      problems: string[];
      predictions: Uint8Array | null;
      predictionsFileName: string;
    };

/** The provenance a task declares in every prediction row. */
function provenanceFor(model: CatalogModel): 'deberta' | 'lfm' {
  return model.task === 'rerank' ? 'deberta' : 'lfm';
}

/**
 * Loads a shipped suite (`suites/<id>/suite.json` + its two files) from the page's origin, checking each file's
 * pinned SHA-256 so a shipped suite cannot silently change.
 * @param pageBaseUrl the page's base URL (ends in "/")
 * @param id the suite id
 * @throws Error with a `<file>: <place>: <problem>` message
 */
export async function loadShippedSuite(
  pageBaseUrl: string,
  id: string,
): Promise<{ format: ItemFormat; items: NamedBytes; candidates: NamedBytes }> {
  const get = async (path: string) => {
    const response = await fetch(new URL(`suites/${id}/${path}`, pageBaseUrl), {
      cache: 'no-store',
      credentials: 'same-origin',
    });
    if (!response.ok) throw new Error(`suites/${id}/${path}: $: answered HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  };
  const manifestBytes = await get('suite.json');
  let manifestJson: unknown;
  try {
    manifestJson = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(manifestBytes));
  } catch {
    throw new Error(`suites/${id}/suite.json: $: not valid UTF-8 JSON`);
  }
  const parsed = SuiteManifest.safeParse(manifestJson);
  if (!parsed.success) throw new Error(`suites/${id}/suite.json: ${firstIssueLine(parsed.error)}`);
  const manifest = parsed.data;
  const files: NamedBytes[] = [];
  for (const pinned of [manifest.items, manifest.candidates]) {
    const bytes = await get(pinned.path);
    const sha256 = await sha256Hex(bytes);
    if (sha256 !== pinned.sha256)
      throw new Error(
        `suites/${id}/${pinned.path}: $: SHA-256 ${sha256} differs from the manifest pin ${pinned.sha256}`,
      );
    files.push({ bytes, fileName: `suites/${id}/${pinned.path}` });
  }
  return { format: manifest.format, items: files[0], candidates: files[1] };
}

/**
 * Runs one suite. Never throws for bad input, engine or worker failures: bad input gives `refused`, the rest a
 * failed receipt (a cancelled run too, reason `cancelled`).
 * @param env page facts
 * @param request model, route, policy and the two artifacts
 * @param ui progress hooks
 * @param signal cancels the run
 */
export async function runSuite(
  env: PageFacts,
  request: SuiteRequest,
  ui: SuiteUiHooks = {},
  signal?: AbortSignal,
): Promise<SuiteOutcome> {
  // 1. Validate both artifacts before anything loads.
  ui.onPhase?.('validate');
  if (!canRun(request.model, 'suite')) {
    return {
      refused: `model ${request.model.id} is not a reranker or candidate scorer on the ${enginesFor('suite').join(' or ')} engine (engine ${request.model.engine}, task ${request.model.task})`,
    };
  }
  let plan: SuitePlan;
  try {
    plan = await planSuite(request.items, request.candidates, request.format);
  } catch (error) {
    return { refused: error instanceof Error ? error.message : String(error) };
  }

  const provenance = provenanceFor(request.model);
  // The journal from here on (a refused run never started): stages before they begin, the end once a receipt exists.
  const runId = crypto.randomUUID();
  const overlap = watchOverlap(runId);
  const journal = await openRunJournal(env.journal, {
    runId,
    mode: 'suite',
    kind: null,
    modelId: request.model.id,
    requestedEp: request.ep,
  });
  const startedAtMs = performance.now();
  const errors: SuiteReceipt['errors'] = [];
  let failure: { reason: string; stage: SuiteStage } | null = null;
  let load: LoadResult | null = null;
  let attempts: RouteAttempt[] = [];
  let integrity: SuiteReceipt['model']['integrity'] = 'not-loaded';
  // What a load that failed after its fetch had fetched (model files, the runtime build), for the receipt.
  let fetched: FetchedFacts | null = null;
  let capabilities: Capabilities | null = null;
  const samples: number[] = [];
  const predictionRows: PredictionRow[] = [];
  const counts: Record<SuiteReason, number> = { accepted: 0, low_margin: 0, single_candidate: 0, no_candidates: 0 };
  let bridge: WorkerBridge | null = null;

  try {
    // 2. Probe.
    journal.stage('probe');
    capabilities = await cancellable(env.probe(), signal, 'probe');

    // 3. A fresh worker (the runtime's thread count is fixed per worker), then the cold load.
    ui.onPhase?.('load');
    bridge = await WorkerBridge.open(env.limits, signal);
    bridge.follow(
      { onProgress: (p) => ui.onProgress?.(p), onStage: (stage, phase) => phase === 'start' && journal.stage(stage) },
      signal,
    );
    try {
      const settings = { pageBaseUrl: env.pageBaseUrl, dtype: request.dtype };
      load = await bridge.load(loadRequest(request.model, request, settings));
      attempts = load.route.attempts;
      integrity = load.model.integrity;
    } catch (error) {
      // Also when the worker died (crash, time limit, cancel): what it said it had fetched is still this run's.
      fetched = fetchedBeforeFailure(error, bridge);
      if (fetched) integrity = fetched.model.integrity;
      if (!(error instanceof EngineError)) throw error;
      attempts = error.attempts;
      if (error instanceof IntegrityFailure) integrity = 'mismatch';
      failure = { reason: error.message, stage: 'load' };
      errors.push({ stage: 'load', name: error.name, message: error.message });
    }

    // 4. Rows, in items order.
    if (failure === null) {
      journal.stage('rows');
      ui.onPhase?.('rows');
      const rowsStarted = performance.now();
      const total = plan.rows.length;
      ui.onRows?.({ rowsDone: 0, rowsTotal: total, elapsedMs: 0, etaMs: null });
      for (const [index, row] of plan.rows.entries()) {
        let scores: number[] = [];
        if (row.candidates.length > 0) {
          const data: RerankInput | ScoreCandidatesInput =
            request.model.task === 'rerank'
              ? { task: 'rerank', query: rerankQuery(row.context, row.input), candidates: row.candidates }
              : { task: 'score-candidates', prompt: scorePrompt(row.context, row.input), candidates: row.candidates };
          await bridge.setInput({ id: row.id, data }, 'first_inference');
          let result;
          try {
            result = await bridge.runOnce('first_inference');
          } catch (error) {
            if (!(error instanceof EngineError)) throw error;
            failure = { reason: `row ${JSON.stringify(row.id)}: ${error.message}`, stage: 'inference' };
            errors.push({ stage: 'inference', name: error.name, message: failure.reason });
            break;
          }
          scores = result.values ?? [];
          samples.push(result.metrics?.row_ms ?? result.durationMs);
        }
        const ranked = rankCandidates(row.id, row.candidates, scores, request.policy, provenance);
        predictionRows.push(ranked.prediction);
        counts[ranked.reason]++;
        const done = index + 1;
        const elapsedMs = performance.now() - rowsStarted;
        ui.onRows?.({ rowsDone: done, rowsTotal: total, elapsedMs, etaMs: (elapsedMs / done) * (total - done) });
      }
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const stage: SuiteStage = load === null ? 'load' : 'inference';
    failure = { reason, stage };
    errors.push({ stage, name: error instanceof Error ? error.name : 'Error', message: reason });
  } finally {
    // The suite's worker is not reused: free its memory now.
    bridge?.close('suite run finished');
  }

  // 5. Predictions (only for a complete run) and the receipt.
  const createdAt = new Date().toISOString();
  const route = routeSection(request, load?.route ?? null, attempts);
  let predictions: Uint8Array | null = null;
  const named = { model: { id: request.model.id }, route, created_at: createdAt };
  const predictionsFileName = receiptFileName(named, 'predictions');
  if (failure === null) {
    try {
      predictions = encodePredictions(predictionRows, predictionsFileName);
    } catch (error) {
      failure = { reason: `predictions failed the scorer's schema: ${(error as Error).message}`, stage: 'inference' };
      errors.push({ stage: 'inference', name: 'ArtifactError', message: failure.reason });
    }
  }
  const done = counts.accepted + counts.low_margin + counts.single_candidate + counts.no_candidates;
  const receipt: SuiteReceipt = {
    schema: SUITE_RECEIPT_SCHEMA,
    receipt_id: crypto.randomUUID(),
    created_at: createdAt,
    evidence_state: 'DEVICE_RECEIPT',
    app: appSection(env.build, env.pageUrl()),
    suite: {
      id: request.suiteId,
      format: plan.format,
      items: plan.items,
      candidates: plan.candidates,
      text_template: request.model.task === 'rerank' ? RERANK_PAIR_TEMPLATE_ID : SCORE_PROMPT_TEMPLATE_ID,
    },
    engine: load?.engine ?? unloadedEngine(request.model.engine),
    task: request.model.task as 'rerank' | 'score-candidates',
    provenance,
    policy: request.policy,
    route,
    model: modelSection(request.model, request.dtype, {
      files: load?.model.files ?? fetched?.model.files ?? [],
      integrity,
    }),
    // A load that failed after the runtime fetch still says which build it fetched, as a successful one does.
    runtime: load?.runtime ?? fetched?.runtime?.info ?? { build: null, files: [] },
    rows: { total: plan.rows.length, done, ...counts },
    timings: {
      model_load_ms: load
        ? load.timings.model_fetch_ms + (load.timings.runtime_fetch_ms ?? 0) + load.timings.session_create_ms
        : null,
      row_latency_samples_ms: samples,
      row_latency_stats: summarize(samples),
      total_ms: performance.now() - startedAtMs,
    },
    predictions: predictions
      ? { sha256: await sha256Hex(predictions), bytes: predictions.byteLength, rows: predictionRows.length }
      : null,
    capabilities,
    previous_run_interrupted: journal.previous,
    overlap: await overlap.finish(),
    errors: redactedErrors(errors),
    outcome: failure
      ? { status: 'failed', reason: receiptText(failure.reason), failed_stage: failure.stage }
      : { status: 'ok', reason: null, failed_stage: null },
  };
  journal.end();
  ui.onPhase?.(failure ? 'failed' : 'done');
  return {
    refused: null,
    receipt,
    problems: receiptProblems(SuiteReceipt, receipt, checkSuiteReceipt),
    predictions,
    predictionsFileName,
  };
}
