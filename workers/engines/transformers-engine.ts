/**
 * The transformers.js engine adapter: `rerank` (cross-encoder: one (query, candidate) pair per candidate, one logit
 * each) and `score-candidates` (causal LM: sum of each candidate's token log-probabilities after the prompt, the prompt
 * computed once when the export takes a cache: src/core/suite/prefix-scoring.ts). The
 * `generate` task lives in transformers-generate.ts (loaded only when a generation run asks for it) and reuses the same loaded model.
 *
 * Timing: `durationMs` is the model call alone; tokenization and the log-softmax sums are reported apart in
 * `metrics` (tokenize_ms, postprocess_ms) and together in `metrics.row_ms`, the suite's per-row latency.
 */
import { Tensor } from '@huggingface/transformers';
import { FIXED_INPUT_SCHEMA, parseFixedInput } from '../../src/core/catalog/catalog.ts';
import { planScoringChunks, sumContinuationLogProbs } from '../../src/core/suite/candidate-scoring.ts';
import { scoreWithPromptOnce, takesCache, type PrefixScoringRuntime } from '../../src/core/suite/prefix-scoring.ts';
import { ScoringInput, type RerankInput, type ScoreCandidatesInput } from '../../src/core/suite/engine-inputs.ts';
import { sha256Hex } from '../../src/core/bytes/sha256.ts';
import { firstIssueLine } from '../../src/core/text/zod-issues.ts';
import type {
  EngineHooks,
  EngineInput,
  LoadRequest,
  LoadResult,
  RunOptions,
  RunResult,
} from '../../src/worker-api/worker-messages.ts';
import type { Engine } from './engine.ts';
import { loadTransformersModel, type TransformersModel } from './transformers-loader.ts';
import type { SessionPlacement } from '../../src/core/receipt/ep-placement.ts';
import { finishProfiling, type ProfiledSession } from './ort-profile.ts';

const OUTPUT_HEAD_LENGTH = 16;
/** Upper bound for one scoring call's float32 logits (see scoreCandidates). */
const LOGITS_BUDGET_BYTES = 64 * 1024 * 1024;

interface Scored {
  scores: number[];
  modelMs: number;
  tokenizeMs: number;
  postprocessMs: number;
  tokens: number;
}

/** Reads a logits tensor as float32 values, converting half precision (fp16 models on WebGPU) first. */
function float32Data(tensor: Tensor): Float32Array {
  const usable = tensor.type === 'float32' ? tensor : tensor.to('float32');
  return usable.data as Float32Array;
}

/** A tensor's elements on the host: downloaded when the runtime kept it on the GPU (WebGPU keeps the cache there). */
async function hostData(tensor: Tensor): Promise<ArrayLike<number> | ArrayLike<bigint>> {
  if (tensor.location === 'gpu-buffer')
    return await (
      tensor as unknown as { ort_tensor: { getData(): Promise<ArrayLike<number> | ArrayLike<bigint>> } }
    ).ort_tensor.getData();
  return tensor.data as ArrayLike<number> | ArrayLike<bigint>;
}

/** The prompt-once scoring's runtime: the loaded model's forward call, transformers.js tensors, the worker's clock. */
function cacheRuntime(loaded: TransformersModel): PrefixScoringRuntime<Tensor> {
  return {
    run: async (feeds) => (await loaded.model(feeds as Record<string, Tensor>)) as Record<string, Tensor>,
    tensor: (type, data, dims) => new Tensor(type as 'int64', data as BigInt64Array, dims),
    logits: async (tensor) =>
      float32Data(
        tensor.location === 'gpu-buffer'
          ? new Tensor(tensor.type as 'float32', (await hostData(tensor)) as Float32Array, tensor.dims)
          : tensor,
      ),
    data: hostData,
    release: (tensor) => {
      if (tensor.location === 'gpu-buffer') void tensor.dispose();
    },
    now: () => performance.now(),
  };
}

/** The transformers.js engine: one loaded tokenizer + model. */
export class TransformersEngine implements Engine {
  readonly name = 'transformers' as const;
  private loaded: TransformersModel | null = null;
  private profiling = false;
  private placements: SessionPlacement[] | null = null;
  private profileProblem: string | null = null;
  readonly memoryObservation = { wasm: true, gpu: true, why: '' };

  async load(request: LoadRequest, hooks: EngineHooks): Promise<LoadResult> {
    const task = request.model.task;
    if (task !== 'rerank' && task !== 'score-candidates' && task !== 'generate') {
      throw new Error(`the transformers engine runs rerank, score-candidates and generate models, not "${task}"`);
    }
    const { loaded, result } = await loadTransformersModel(
      request,
      hooks,
      task === 'rerank' ? 'sequence-classification' : 'causal-lm',
    );
    this.loaded = loaded;
    this.profiling = true;
    this.placements = null;
    this.profileProblem = null;
    return result;
  }

  async run(input: EngineInput, options: RunOptions, hooks: EngineHooks): Promise<RunResult> {
    const result = await this.runTask(input, options, hooks);
    if (this.profiling) {
      // After the first run's timed window: every session's profile is read and profiling ends.
      this.profiling = false;
      const sessions = (
        this.ready().model as unknown as { sessions: Record<string, ProfiledSession['session'] | undefined> }
      ).sessions;
      const profile = await finishProfiling(
        Object.entries(sessions).flatMap(([name, session]) => (session ? [{ name, session }] : [])),
      );
      this.placements = profile.placements;
      this.profileProblem = profile.problem;
    }
    return result;
  }

  placement(): SessionPlacement[] | null {
    return this.placements;
  }

  placementProblem(): string | null {
    return this.profileProblem;
  }

  private async runTask(input: EngineInput, options: RunOptions, hooks: EngineHooks): Promise<RunResult> {
    const loaded = this.ready();
    const task = (input.data as { task?: unknown } | null)?.task;
    if (task === 'generate') {
      // Streamed generation lives in its own module, imported on first use, on this same loaded model.
      return (await import('./transformers-generate.ts')).runTransformersGenerate(loaded, input, options, hooks);
    }
    if ((input.data as { schema?: unknown } | null)?.schema === FIXED_INPUT_SCHEMA)
      return this.runTokens(loaded, input, options);
    const parsed = ScoringInput.safeParse(input.data);
    if (!parsed.success) throw new Error(`input ${input.id}: ${firstIssueLine(parsed.error)}`);
    const data = parsed.data;
    let scored: Scored;
    if (data.task === 'rerank') {
      if (loaded.kind !== 'sequence-classification')
        throw new Error('a rerank input needs a rerank (cross-encoder) model');
      scored = await this.rerank(loaded, data);
    } else {
      if (loaded.kind !== 'causal-lm') throw new Error('a score-candidates input needs a causal LM');
      scored = await this.scoreCandidates(loaded, data);
    }
    const raw = new Float64Array(scored.scores);
    return {
      durationMs: scored.modelMs,
      output: options.digest
        ? {
            name: 'scores',
            dims: [scored.scores.length],
            head: scored.scores.slice(0, OUTPUT_HEAD_LENGTH),
            sha256: await sha256Hex(new Uint8Array(raw.buffer)),
          }
        : null,
      values: scored.scores,
      metrics: {
        tokenize_ms: scored.tokenizeMs,
        postprocess_ms: scored.postprocessMs,
        row_ms: scored.tokenizeMs + scored.modelMs + scored.postprocessMs,
        tokens: scored.tokens,
      },
    };
  }

  async dispose(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = null;
    this.placements = null;
    if (loaded) await loaded.model.dispose();
  }

  /**
   * A plain cold/warm run on a fixed token-id input (the catalog's `drb.fixed-input.v1`, no text): the model's forward
   * pass alone, digested like the ORT adapter's output (first 16 logits + SHA-256 of all of them), so receipts and
   * cross-provider agreement checks work the same for both engines.
   */
  private async runTokens(loaded: TransformersModel, input: EngineInput, options: RunOptions): Promise<RunResult> {
    const fixed = parseFixedInput(input.data, `input ${input.id}`);
    const dims = [fixed.input_ids.length, fixed.input_ids[0].length];
    const tensor = (rows: number[][]) =>
      new Tensor(
        'int64',
        BigInt64Array.from(rows.flat(), (v) => BigInt(v)),
        dims,
      );
    const feeds: Record<string, Tensor> = {
      input_ids: tensor(fixed.input_ids),
      attention_mask: tensor(fixed.attention_mask),
    };
    // A cross-encoder reads the segment ids; a causal LM has no such input.
    if (loaded.kind === 'sequence-classification') feeds.token_type_ids = tensor(fixed.token_type_ids);
    const started = performance.now();
    const output = (await loaded.model(feeds)) as Record<string, Tensor>;
    const durationMs = performance.now() - started;
    const logits = float32Data(output.logits);
    const result: RunResult = {
      durationMs,
      output: options.digest
        ? {
            name: 'logits',
            dims: output.logits.dims.map(Number),
            head: Array.from(logits.subarray(0, OUTPUT_HEAD_LENGTH)),
            sha256: await sha256Hex(new Uint8Array(logits.buffer, logits.byteOffset, logits.byteLength)),
          }
        : null,
    };
    for (const t of [...Object.values(feeds), ...Object.values(output)]) t.dispose?.();
    return result;
  }

  /** The loaded model, for the generate task module. */
  currentModel(): TransformersModel {
    return this.ready();
  }

  /**
   * One batch of (query, candidate) pairs, padded to the longest. Score = the single logit; for a two-label head,
   * logit[1] - logit[0] (the positive class's log-odds).
   */
  private async rerank(loaded: TransformersModel, data: RerankInput): Promise<Scored> {
    const t0 = performance.now();
    const encoded = loaded.tokenizer(new Array<string>(data.candidates.length).fill(data.query), {
      text_pair: data.candidates,
      padding: true,
      truncation: true,
    }) as Record<string, Tensor>;
    const t1 = performance.now();
    const output = (await loaded.model(encoded)) as { logits: Tensor };
    const t2 = performance.now();
    const logits = float32Data(output.logits);
    const labels = output.logits.dims[1] ?? 1;
    const scores = data.candidates.map((_, i) =>
      labels === 1 ? logits[i] : logits[i * labels + 1] - logits[i * labels],
    );
    const tokens = encoded.input_ids.dims.reduce((a, b) => a * b, 1);
    for (const tensor of [...Object.values(encoded), output.logits]) tensor.dispose();
    return { scores, modelMs: t2 - t1, tokenizeMs: t1 - t0, postprocessMs: performance.now() - t2, tokens };
  }

  /**
   * Each candidate scored as the sum of log p(token | everything before it) over its tokens followed by the
   * end-of-sequence token: with the prompt computed once when the export takes a cache, else as one batch of
   * prompt + candidate sequences (right-padded, so every row's prompt positions are identical). The EOS term makes
   * the model also say the candidate is complete, and gives an empty candidate a real score instead of the impossible
   * maximum 0.
   */
  private async scoreCandidates(loaded: TransformersModel, data: ScoreCandidatesInput): Promise<Scored> {
    const t0 = performance.now();
    const { tokenizer } = loaded;
    const prompt = tokenizer.encode(data.prompt, { add_special_tokens: true });
    if (prompt.length === 0) throw new Error('the scoring prompt encodes to no tokens (nothing to condition on)');
    const eos = tokenizer.eos_token_id;
    const continuations = data.candidates.map((c) => {
      const ids = tokenizer.encode(c, { add_special_tokens: false });
      return eos === undefined || eos === null ? ids : [...ids, eos];
    });
    // Full logits are [batch, length, vocab] float32: with a real LLM's ~150k vocabulary one 60-token row is ~36 MB,
    // so rows go in chunks that keep one call's logits under LOGITS_BUDGET_BYTES (the tiny fixture runs in one chunk).
    const vocabSize = (loaded.model.config as { vocab_size?: number }).vocab_size ?? 32_000;
    const padId = tokenizer.pad_token_id ?? 0;
    // A model that takes a cache computes the prompt once (src/core/suite/prefix-scoring.ts); one without (an export
    // with no past inputs) gets every row as prompt + candidate.
    const sessions = (loaded.model as unknown as { sessions: Record<string, { inputNames: string[] } | undefined> })
      .sessions;
    const decoder = sessions.model ?? sessions.decoder_model_merged;
    if (decoder && takesCache(decoder.inputNames)) {
      const t1 = performance.now();
      const scored = await scoreWithPromptOnce(
        cacheRuntime(loaded),
        prompt,
        continuations,
        padId,
        vocabSize,
        LOGITS_BUDGET_BYTES,
      );
      return {
        scores: scored.scores,
        modelMs: scored.modelMs,
        tokenizeMs: t1 - t0,
        postprocessMs: scored.postprocessMs,
        tokens: scored.tokens,
      };
    }
    const chunks = planScoringChunks(prompt, continuations, padId, vocabSize, LOGITS_BUDGET_BYTES);
    const scores: number[] = [];
    let modelMs = 0;
    let postprocessMs = 0;
    let tokens = 0;
    const t1 = performance.now();
    for (const chunk of chunks) {
      const dims = [chunk.rows.length, chunk.length];
      const inputIds = new Tensor('int64', chunk.inputIds, dims);
      const attentionMask = new Tensor('int64', chunk.attentionMask, dims);
      const called = performance.now();
      const output = (await loaded.model({ input_ids: inputIds, attention_mask: attentionMask })) as Record<
        string,
        Tensor
      >;
      const returned = performance.now();
      modelMs += returned - called;
      scores.push(
        ...sumContinuationLogProbs(
          float32Data(output.logits),
          chunk,
          prompt.length,
          continuations,
          output.logits.dims[2],
        ),
      );
      tokens += chunk.inputIds.length;
      for (const tensor of [inputIds, attentionMask, ...Object.values(output)]) tensor.dispose?.();
      postprocessMs += performance.now() - returned;
    }
    return { scores, modelMs, tokenizeMs: t1 - t0, postprocessMs, tokens };
  }

  private ready(): TransformersModel {
    if (this.loaded === null) throw new Error('no transformers.js model is loaded: load a model first');
    return this.loaded;
  }
}
