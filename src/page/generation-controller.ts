/**
 * Runs a generation run through a fresh bench worker and turns it into a validated generation receipt plus the
 * separate answers artifact.
 *
 * Steps: 1. probe; 2. fresh worker; 3. load the model (cold load, timed apart); 4. one untimed warm-up;
 * 5. every measured prompt in the versioned order, once per repetition, with the repetition's seed (a failed prompt
 * is recorded and the run goes on; a crashed or hung worker ends it); 6. assemble and validate.
 * Every worker call runs under a stage time limit (worker-bridge.ts), so a dead worker never freezes the page.
 */
import type { CatalogModel } from '../core/catalog/catalog.ts';
import type { GenerateInput } from '../core/generation/generate-input.ts';
import {
  GENERATION_ANSWERS_SCHEMA,
  GenerationAnswers,
  type GenerationAnswer,
} from '../core/generation/generation-answers.ts';
import { ENGINE_CAPABILITIES } from '../core/engines/engine-capabilities.ts';
import { buildGenerationPlan, type GenerationStep } from '../core/generation/generation-plan.ts';
import {
  checkGenerationReceipt,
  GENERATION_RECEIPT_SCHEMA,
  GenerationReceipt,
  summarizeGeneration,
  type GenerationError,
  type GenerationSample,
} from '../core/generation/generation-receipt.ts';
import { parsePromptSet, type PromptSet } from '../core/generation/prompt-set.ts';
import {
  appSection,
  modelSection,
  receiptProblems,
  redactedErrors,
  routeSection,
  unloadedEngine,
} from '../core/receipt/receipt-envelope.ts';
import { boundCode } from '../core/text/bounded-text.ts';
import { receiptText } from '../core/text/redact.ts';
import type { RouteAttempt, Stage } from '../core/receipt/receipt.ts';
import { sha256Hex } from '../core/bytes/sha256.ts';
import { issueLines } from '../core/text/zod-issues.ts';
import type {
  FetchedFacts,
  FetchProgress,
  LoadResult,
  RunResult,
  UserSuppliedFile,
} from '../worker-api/worker-messages.ts';
import { LifecycleRecorder } from './lifecycle.ts';
import type { PageFacts } from './page-facts.ts';
import { openRunJournal, type RunJournalWriter } from './run-journal.ts';
import { watchOverlap, type OverlapWatch } from './run-gate.ts';
import {
  EngineError,
  fetchedBeforeFailure,
  IntegrityFailure,
  loadRequest,
  WorkerFailure,
  WorkerBridge,
} from './worker-bridge.ts';

/** A prompt set as the page loaded it: parsed, plus the SHA-256 of the exact bytes. */
export interface LoadedPromptSet {
  set: PromptSet;
  sha256: string;
}

/**
 * Fetches `prompts/<id>.json` from the page's origin, hashes the bytes and parses them.
 * @param pageBaseUrl the page's base URL (ends in "/")
 * @param id the prompt set id (the file name without .json)
 * @throws Error with a one-line `<file>: <place>: <problem>` message
 */
export async function loadPromptSet(pageBaseUrl: string, id: string): Promise<LoadedPromptSet> {
  const fileName = `prompts/${id}.json`;
  const response = await fetch(new URL(fileName, pageBaseUrl), { cache: 'no-store', credentials: 'same-origin' });
  if (!response.ok) throw new Error(`${fileName}: (root): answered HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`${fileName}: (root): is not valid UTF-8`);
  }
  const set = parsePromptSet(text, fileName);
  if (set.id !== id) throw new Error(`${fileName}: id: is "${set.id}", expected "${id}"`);
  return { set, sha256: await sha256Hex(bytes) };
}

/** What to run. */
export interface GenerationRequest {
  model: CatalogModel;
  ep: 'wasm' | 'webgpu';
  threads: number | null;
  allowFallback: boolean;
  prompts: LoadedPromptSet;
  /** 1 to 3 (one declared seed each). */
  repetitions: number;
  /** Token limit replacing the prompt set's; null = the set's own (recorded in the plan either way). */
  maxNewTokens: number | null;
  /** Sampling temperature replacing the prompt set's (0 = greedy, as a user's own model runs); absent or null = the
   *  set's own (the plan records the one that ran). */
  temperature?: number | null;
  /** A user-supplied model (`model.source.type` `user-supplied`): its picked files in `model.files` order, read and
   *  hashed in the worker (nothing is fetched). */
  userFiles?: UserSuppliedFile[];
}

/** How the UI follows a generation run. */
export interface GenerationUiHooks {
  onPhase?(phase: 'probe' | 'load' | 'warmup' | 'measured' | 'done' | 'failed'): void;
  onProgress?(progress: FetchProgress): void;
  /** After each measured step: steps done / total and the sample (numbers only). */
  onSample?(done: number, total: number, sample: GenerationSample): void;
  /** Tokens generated so far in the current step (for a live counter). */
  onToken?(tokenIndex: number): void;
}

/** A finished generation run: the receipt (validated), the answers (only offered on request) and any problems. */
export interface GenerationRunResult {
  receipt: GenerationReceipt;
  answers: GenerationAnswers;
  /** Schema or invariant problems (`path: message`); empty for a receipt fit to download. */
  problems: string[];
}

function stageOf(stage: Stage | null): GenerationError['stage'] {
  return stage === 'probe' ? 'gate' : 'load';
}

/** Runs generation runs; one at a time, each in its own fresh worker. */
export class GenerationController {
  private bridge: WorkerBridge | null = null;
  private running = false;

  /** @param env page facts (base URL, probe, stage limits, build, journal) */
  constructor(private readonly env: PageFacts) {}

  /** The current worker bridge, for test hooks. */
  get worker(): WorkerBridge | null {
    return this.bridge;
  }

  /**
   * Runs `request`; never throws for an engine or worker failure (the receipt says `failed` with the reason).
   * @param request model, route, prompt set and repetitions
   * @param ui progress hooks
   * @param signal cancels the run (it ends `failed`, reason `cancelled`)
   */
  async run(
    request: GenerationRequest,
    ui: GenerationUiHooks = {},
    signal?: AbortSignal,
  ): Promise<GenerationRunResult> {
    if (this.running) throw new Error('a generation run is already in progress');
    this.running = true;
    const runId = crypto.randomUUID();
    const overlap = watchOverlap(runId);
    const journal = await openRunJournal(this.env.journal, {
      runId,
      mode: 'generation',
      kind: null,
      modelId: request.model.id,
      requestedEp: request.ep,
    });
    try {
      return await this.runInner(request, ui, journal, overlap, signal);
    } finally {
      // Ended (ok, failed or thrown): only a page that is gone leaves the run open in the journal.
      journal.end();
      void overlap.finish();
      this.running = false;
      this.bridge?.close('generation run finished');
      this.bridge = null;
    }
  }

  private async runInner(
    request: GenerationRequest,
    ui: GenerationUiHooks,
    journal: RunJournalWriter,
    overlap: OverlapWatch,
    signal: AbortSignal | undefined,
  ): Promise<GenerationRunResult> {
    const { env } = this;
    const { set } = request.prompts;
    const lifecycle = new LifecycleRecorder();
    lifecycle.start();
    const engineName = request.model.engine;
    const plan = buildGenerationPlan(
      set,
      request.repetitions,
      ENGINE_CAPABILITIES[engineName].seedControl,
      undefined,
      request.maxNewTokens,
      request.temperature ?? null,
    );
    const measuredTotal = plan.steps.length - 1;
    const samples: GenerationSample[] = [];
    const answers: GenerationAnswer[] = [];
    const errors: GenerationError[] = [];
    let load: LoadResult | null = null;
    let attempts: RouteAttempt[] = [];
    let integrity: GenerationReceipt['model']['integrity'] = 'not-loaded';
    // What a load that failed after its fetch had fetched (model files, the runtime build), for the receipt.
    let fetched = null as FetchedFacts | null;
    let warmupMs: number | null = null;
    let warmupTtftMs: number | null = null;
    let fatal: string | null = null;

    // 1. Probe.
    ui.onPhase?.('probe');
    journal.stage('probe');
    const capabilities = await env.probe();
    try {
      // 2. A fresh worker: a generation run's cold load is always a real load (a cancelled run stops here).
      this.bridge = await WorkerBridge.open(env.limits, signal);
      const bridge = this.bridge;
      bridge.follow(
        {
          onProgress: (p) => ui.onProgress?.(p),
          onStage: (stage, phase) => phase === 'start' && journal.stage(stage),
          onToken: (i) => ui.onToken?.(i),
        },
        signal,
      );

      // 3. Load (cold; kept out of every warm statistic).
      ui.onPhase?.('load');
      try {
        const settings = { pageBaseUrl: env.pageBaseUrl, userFiles: request.userFiles };
        load = await bridge.load(loadRequest(request.model, request, settings));
      } catch (error) {
        // Also when the worker died (crash, time limit, cancel): what it said it had fetched is still this run's.
        fetched = fetchedBeforeFailure(error, bridge);
        if (fetched) integrity = fetched.model.integrity;
        if (!(error instanceof EngineError)) throw error;
        attempts = error.attempts;
        if (error instanceof IntegrityFailure) integrity = 'mismatch';
        errors.push({
          stage: stageOf(error.stage),
          prompt_id: null,
          repetition: null,
          name: error.name,
          message: error.message,
        });
        throw new StepFailed(error.message);
      }
      attempts = load.route.attempts;
      integrity = load.model.integrity;
      for (const problem of load.loadErrors ?? [])
        errors.push({ stage: 'load', prompt_id: null, repetition: null, ...problem });

      // One step: its input, then the run, both under the step's limit (a worker that died in between would
      // otherwise never answer). Engine failures come back as the step's failure, not as a throw.
      const runStep = async (step: GenerationStep): Promise<RunResult | EngineError> => {
        const prompt = step.kind === 'warmup' ? set.warmup : set.prompts[step.prompt_index!];
        const data: GenerateInput = {
          task: 'generate',
          prompt_id: prompt.id,
          text: prompt.text,
          max_new_tokens: plan.max_new_tokens,
          temperature: plan.temperature,
          seed: step.seed,
        };
        const stage: Stage = step.kind === 'warmup' ? 'warmup' : 'warm_inference';
        journal.stage(stage);
        await bridge.setInput({ id: prompt.id, data }, stage, env.limits.first_inference);
        try {
          return await bridge.runOnce(stage, env.limits.first_inference);
        } catch (error) {
          if (error instanceof EngineError) return error;
          throw error;
        }
      };

      // 4. One untimed warm-up (its duration is kept for the record only).
      ui.onPhase?.('warmup');
      const warm = await runStep(plan.steps[0]);
      if (warm instanceof EngineError) {
        errors.push({
          stage: 'warmup',
          prompt_id: plan.warmup_prompt_id,
          repetition: null,
          name: warm.name,
          message: warm.message,
        });
        throw new StepFailed(`warm-up failed: ${warm.message}`);
      }
      warmupMs = warm.durationMs;
      warmupTtftMs = warm.generation?.sample.ttft_ms ?? null;

      // 5. Measured prompts in plan order.
      ui.onPhase?.('measured');
      for (const step of plan.steps.slice(1)) {
        const base = {
          repetition: step.repetition!,
          prompt_id: step.prompt_id,
          prompt_index: step.prompt_index!,
          seed: step.seed,
        };
        let outcome: RunResult | EngineError;
        try {
          outcome = await runStep(step);
        } catch (error) {
          // The worker crashed, hung or was cancelled: this sample failed and no later step can run.
          const message = error instanceof Error ? error.message : String(error);
          samples.push(failedSample(base, error instanceof Error ? error.name : 'Error', message));
          errors.push({
            stage: 'measured',
            prompt_id: step.prompt_id,
            repetition: step.repetition,
            name: error instanceof Error ? error.name : 'Error',
            message,
          });
          throw new StepFailed(message);
        }
        let sample: GenerationSample;
        if (outcome instanceof EngineError || !outcome.generation) {
          const name = outcome instanceof EngineError ? outcome.name : 'Error';
          const message = outcome instanceof EngineError ? outcome.message : 'the engine returned no generation result';
          sample = failedSample(base, name, message);
          errors.push({ stage: 'measured', prompt_id: step.prompt_id, repetition: step.repetition, name, message });
        } else {
          const g = outcome.generation;
          sample = { ...base, outcome: 'ok', ...g.sample, error: null };
          answers.push({
            prompt_id: step.prompt_id,
            repetition: step.repetition!,
            seed: step.seed,
            text: g.text,
            output_tokens: g.sample.output_tokens,
            truncated: g.sample.truncated,
          });
        }
        samples.push(sample);
        ui.onSample?.(samples.length, measuredTotal, sample);
      }
      const failures = samples.filter((s) => s.outcome === 'failed').length;
      if (failures > 0) fatal = `${failures} of ${measuredTotal} measured prompts failed`;
    } catch (error) {
      fatal =
        error instanceof StepFailed || error instanceof WorkerFailure
          ? error.message
          : `${(error as Error)?.name ?? 'Error'}: ${(error as Error)?.message ?? String(error)}`;
      if (!(error instanceof StepFailed)) {
        const stage: GenerationError['stage'] =
          samples.length > 0 ? 'measured' : warmupMs !== null ? 'measured' : load !== null ? 'warmup' : 'load';
        if (!errors.some((e) => e.message === fatal))
          errors.push({
            stage,
            prompt_id: null,
            repetition: null,
            name: (error as Error)?.name ?? 'Error',
            message: fatal,
          });
      }
    }
    this.bridge?.unfollow();
    ui.onPhase?.(fatal === null ? 'done' : 'failed');

    // 6. Assemble, redact, validate.
    const receiptId = crypto.randomUUID();
    const createdAt = new Date().toISOString();
    const engine = load?.engine ?? unloadedEngine(engineName);
    const receipt: GenerationReceipt = {
      schema: GENERATION_RECEIPT_SCHEMA,
      receipt_id: receiptId,
      created_at: createdAt,
      evidence_state: 'DEVICE_RECEIPT',
      app: appSection(env.build, env.pageUrl()),
      engine,
      route: routeSection(request, load?.route ?? null, attempts),
      model: modelSection(request.model, null, { files: load?.model.files ?? fetched?.model.files ?? [], integrity }),
      // A load that failed after the runtime fetch still says which build it fetched, as a successful one does.
      runtime: load?.runtime ?? fetched?.runtime?.info ?? { build: null, files: [] },
      prompt_set: {
        id: set.id,
        version: set.version,
        sha256: request.prompts.sha256,
        measured_prompts: set.prompts.length,
      },
      plan: {
        repetitions: plan.repetitions,
        seed_control: plan.seed_control,
        seeds: plan.seeds,
        max_new_tokens: plan.max_new_tokens,
        max_new_tokens_overridden: plan.max_new_tokens_overridden,
        temperature: plan.temperature,
        warmup_prompt_id: plan.warmup_prompt_id,
      },
      timing_source: 'page-clock',
      cold: {
        load_ms: load
          ? load.timings.model_fetch_ms + (load.timings.runtime_fetch_ms ?? 0) + load.timings.session_create_ms
          : null,
        warmup_e2e_ms: warmupMs,
        warmup_ttft_ms: warmupTtftMs,
      },
      samples,
      summary: summarizeGeneration(samples, measuredTotal),
      capabilities,
      previous_run_interrupted: journal.previous,
      overlap: await overlap.finish(),
      lifecycle: lifecycle.stop(),
      errors: redactedErrors(errors),
      outcome: { status: fatal === null ? 'ok' : 'failed', reason: fatal === null ? null : receiptText(fatal) },
    };
    const problems = receiptProblems(GenerationReceipt, receipt, checkGenerationReceipt);
    const answersArtifact: GenerationAnswers = {
      schema: GENERATION_ANSWERS_SCHEMA,
      receipt_id: receiptId,
      created_at: createdAt,
      engine,
      model_id: request.model.id,
      prompt_set: { id: set.id, version: set.version, sha256: request.prompts.sha256 },
      answers,
    };
    const answersParsed = GenerationAnswers.safeParse(answersArtifact);
    if (!answersParsed.success) problems.push(...issueLines(answersParsed.error).map((line) => `answers: ${line}`));
    return { receipt, answers: answersArtifact, problems };
  }
}

/** A failure that already has its error recorded; only the message travels up. */
class StepFailed extends Error {
  override name = 'StepFailed';
}

function failedSample(
  base: Pick<GenerationSample, 'repetition' | 'prompt_id' | 'prompt_index' | 'seed'>,
  name: string,
  message: string,
): GenerationSample {
  return {
    ...base,
    outcome: 'failed',
    prompt_tokens: null,
    output_tokens: null,
    truncated: null,
    ttft_ms: null,
    e2e_ms: null,
    prefill_tokens_per_s: null,
    decode_tokens_per_s: null,
    engine_reported: null,
    clock_minus_engine: null,
    error: { name: boundCode(name), message: receiptText(message) },
  };
}
