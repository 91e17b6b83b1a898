/**
 * Causal-LM candidate scoring with the prompt computed once: one call on the prompt alone gives the logits that predict
 * every candidate's first token and the model's cache (attention keys and values, and whatever else the export keeps:
 * LFM2's convolution states); that cache, repeated once per candidate, is the past of a second call on the
 * candidates' tokens only (right-padded, chunked under the logits budget).
 *
 * Per row that is (prompt + n x candidate) positions instead of n x (prompt + candidate): the prompt is usually most
 * of a row, and a real LLM's logits are [positions, ~150k] floats, so the calls are a few times smaller. A causal
 * model gives each position the same logits either way (up to float rounding): its attention never looks ahead, and
 * the padding after a short candidate is masked and never read.
 *
 * Pure: the engine adapter supplies the model call, tensors and reading a tensor's data (which may live on the GPU),
 * so this runs in Node unit tests against the real runtime as in the worker.
 */
import { rowsPerCall } from './candidate-scoring.ts';
import { logSoftmaxAt } from './engine-inputs.ts';

/** A tensor as the adapter's runtime has it: its element type, dims and (host) data. */
export interface ScoringTensor {
  type: string;
  dims: readonly number[];
}

/** What the orchestration needs from the runtime. */
export interface PrefixScoringRuntime<T extends ScoringTensor> {
  /** One forward call; returns every output by name (logits and the `present*` cache outputs). */
  run(feeds: Record<string, T | Record<string, T>>): Promise<Record<string, T>>;
  /** A host tensor. */
  tensor(type: string, data: ArrayLike<number> | ArrayLike<bigint>, dims: number[]): T;
  /** Logits on the host as float32 values (half precision converted). */
  logits(tensor: T): Promise<ArrayLike<number>>;
  /** A cache tensor's elements on the host, in its own type (downloaded first when it lives on the GPU). */
  data(tensor: T): Promise<ArrayLike<number> | ArrayLike<bigint>>;
  /** Frees a tensor the call returned (GPU buffers); a no-op for host tensors. */
  release(tensor: T): void;
  /** The clock the timings are taken with (ms; `performance.now` in the worker). */
  now(): number;
}

/** One second call: which candidates it holds and its padded continuation length. */
export interface ContinuationChunk {
  rows: number[];
  length: number;
}

/** Timings of one scoring, apart. */
export interface PrefixScoringResult {
  scores: number[];
  /** The model calls alone (prompt, then each chunk). */
  modelMs: number;
  /** Reading outputs, repeating the cache per candidate, and the log-softmax sums. */
  postprocessMs: number;
  /** Positions the calls computed (prompt once, plus rows x padded length per chunk). */
  tokens: number;
}

/** The caches hybrid architectures keep beside attention keys and values (Mamba, LFM2, Qwen3.5, DeepSeek V4). */
const HYBRID_CACHES = ['ssm', 'conv', 'recurrent', 'compressor', 'indexer'] as const;

/**
 * The cache input name for a cache output, as transformers.js names them (`present.N.key` -> `past_key_values.N.key`,
 * `present_conv.N` -> `past_conv.N`, and the other hybrid caches alike); null for an output that is not cache.
 * @param output an output name of the model
 */
export function cacheInputName(output: string): string | null {
  if (!output.startsWith('present')) return null;
  for (const kind of HYBRID_CACHES) {
    if (output.startsWith(`present_${kind}`)) return `past_${kind}${output.slice(`present_${kind}`.length)}`;
  }
  return `past_key_values${output.slice('present'.length)}`;
}

/**
 * Whether a model's inputs take a cache (so the prompt can be computed once): any `past_*` input.
 * @param inputNames the model session's input names
 */
export function takesCache(inputNames: readonly string[]): boolean {
  return inputNames.some(
    (name) => name.startsWith('past_key_values') || HYBRID_CACHES.some((kind) => name.startsWith(`past_${kind}`)),
  );
}

/**
 * Splits the candidates with at least one token into second calls whose float32 logits ([rows, length, vocab]) stay
 * under `budgetBytes` (at least one row per call), each padded to its own longest candidate.
 * @param continuations each candidate's token ids
 * @param vocabSize the logits' last dimension
 * @param budgetBytes the largest logits tensor one call may produce
 */
export function planContinuationChunks(
  continuations: readonly (readonly number[])[],
  vocabSize: number,
  budgetBytes: number,
): ContinuationChunk[] {
  const scored = continuations.flatMap((c, i) => (c.length > 0 ? [i] : []));
  if (scored.length === 0) return [];
  const perChunk = rowsPerCall(Math.max(...scored.map((i) => continuations[i].length)), vocabSize, budgetBytes);
  const chunks: ContinuationChunk[] = [];
  for (let first = 0; first < scored.length; first += perChunk) {
    const rows = scored.slice(first, first + perChunk);
    chunks.push({ rows, length: Math.max(...rows.map((r) => continuations[r].length)) });
  }
  return chunks;
}

/**
 * `data` (one batch row) repeated `times` times along the first dimension.
 * @param data the row's elements
 * @param times how many rows
 */
function repeatRows<A extends ArrayLike<number> | ArrayLike<bigint>>(data: A, times: number): A {
  const Typed = (
    data as unknown as { constructor: new (length: number) => A & { set(source: A, offset: number): void } }
  ).constructor;
  const out = new Typed(data.length * times);
  for (let i = 0; i < times; i++) out.set(data, i * data.length);
  return out;
}

/**
 * Scores each candidate as the sum over its tokens of log p(token | prompt and the candidate's tokens before it).
 * @param runtime the model calls and tensors
 * @param prompt the prompt's token ids (with the model's special tokens; at least one)
 * @param continuations each candidate's token ids (an empty one scores 0)
 * @param padId the id written into padding positions (masked out)
 * @param vocabSize the logits' last dimension, for the budget
 * @param budgetBytes the largest logits tensor one call may produce
 */
export async function scoreWithPromptOnce<T extends ScoringTensor>(
  runtime: PrefixScoringRuntime<T>,
  prompt: readonly number[],
  continuations: readonly (readonly number[])[],
  padId: number,
  vocabSize: number,
  budgetBytes: number,
): Promise<PrefixScoringResult> {
  if (prompt.length < 1) throw new RangeError('the prompt needs at least one token to condition on');
  const now = () => runtime.now();
  let modelMs = 0;
  let postprocessMs = 0;
  const p = prompt.length;

  // 1. The prompt alone: its last position's logits predict every candidate's first token; its cache is every row's past.
  let t = now();
  const first = await runtime.run({
    input_ids: runtime.tensor(
      'int64',
      BigInt64Array.from(prompt, (id) => BigInt(id)),
      [1, p],
    ),
    attention_mask: runtime.tensor('int64', new BigInt64Array(p).fill(1n), [1, p]),
  });
  modelMs += now() - t;
  t = now();
  const logits = first.logits;
  const vocab = logits.dims[2];
  const all = await runtime.logits(logits);
  const promptNext = Float32Array.from({ length: vocab }, (_, v) => all[(p - 1) * vocab + v]);
  const cache: Array<{ name: string; tensor: T; data: ArrayLike<number> | ArrayLike<bigint> }> = [];
  for (const [output, tensor] of Object.entries(first)) {
    const name = cacheInputName(output);
    if (name === null) continue;
    if (tensor.dims[0] !== 1) throw new Error(`cache output ${output} has ${tensor.dims[0]} rows for a one-row prompt`);
    cache.push({ name, tensor, data: await runtime.data(tensor) });
  }
  for (const tensor of Object.values(first)) runtime.release(tensor);
  postprocessMs += now() - t;

  const scores = continuations.map(() => 0);
  const firstToken = (r: number) => logSoftmaxAt(promptNext, 0, vocab, continuations[r][0]);
  let tokens = p;
  for (const chunk of planContinuationChunks(continuations, vocabSize, budgetBytes)) {
    const rows = chunk.rows.length;
    const length = chunk.length;
    // 2. The chunk's candidates after the prompt's cache: ids [rows, length], the mask over past and new positions.
    t = now();
    const ids = new BigInt64Array(rows * length);
    const mask = new BigInt64Array(rows * (p + length));
    chunk.rows.forEach((r, row) => {
      const c = continuations[r];
      for (let j = 0; j < length; j++) ids[row * length + j] = BigInt(j < c.length ? c[j] : padId);
      for (let j = 0; j < p + length; j++) mask[row * (p + length) + j] = j < p + c.length ? 1n : 0n;
    });
    const past: Record<string, T> = {};
    for (const entry of cache)
      past[entry.name] = runtime.tensor(entry.tensor.type, repeatRows(entry.data, rows), [
        rows,
        ...entry.tensor.dims.slice(1),
      ]);
    postprocessMs += now() - t;
    t = now();
    const out = await runtime.run({
      input_ids: runtime.tensor('int64', ids, [rows, length]),
      attention_mask: runtime.tensor('int64', mask, [rows, p + length]),
      past_key_values: past,
    });
    modelMs += now() - t;
    t = now();
    const chunkLogits = await runtime.logits(out.logits);
    for (const tensor of Object.values(out)) runtime.release(tensor);
    chunk.rows.forEach((r, row) => {
      const c = continuations[r];
      let sum = firstToken(r);
      // Token j (j >= 1) is predicted by the logits at the chunk's position j - 1.
      for (let j = 1; j < c.length; j++) sum += logSoftmaxAt(chunkLogits, (row * length + j - 1) * vocab, vocab, c[j]);
      scores[r] = sum;
    });
    tokens += rows * length;
    postprocessMs += now() - t;
  }
  return { scores, modelMs, postprocessMs, tokens };
}
