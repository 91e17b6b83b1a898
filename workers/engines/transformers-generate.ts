/**
 * The transformers.js `generate` path: streamed generation with a causal LM, timed by the worker's clock.
 *
 * Loading is TransformersEngine's, through the shared `loadTransformersModel` (fetch with SHA-256, offline local models,
 * route attempts); TransformersEngine.run hands inputs with task "generate" to `runTransformersGenerate`. Each call
 * is one step of a generation run (see src/core/generation/generation-plan.ts): the prompt goes through the
 * tokenizer's chat template when it has one, the model generates with a TextStreamer whose per-token callback
 * timestamps the first and last generated token, and the page clock's sample comes from `timeGeneration`.
 * transformers.js reports no timings of its own, so `engine_reported` is null.
 */
import { random, TextStreamer, type Tensor } from '@huggingface/transformers';
import { parseGenerateInput } from '../../src/core/generation/generate-input.ts';
import { timeGeneration, type StreamObservation } from '../../src/core/generation/generation-timing.ts';
import { sha256Hex } from '../../src/core/bytes/sha256.ts';
import type { EngineHooks, EngineInput, RunOptions, RunResult } from '../../src/worker-api/worker-messages.ts';
import type { TransformersModel } from './transformers-loader.ts';

/** The end-of-sequence ids a model's generation config names (a number or a list), as bigints. */
function eosIds(loaded: TransformersModel): Set<bigint> {
  const config = (loaded.model as unknown as { generation_config?: { eos_token_id?: number | number[] | null } })
    .generation_config;
  const eos = config?.eos_token_id ?? (loaded.tokenizer as unknown as { eos_token_id?: number }).eos_token_id ?? null;
  const list = eos === null || eos === undefined ? [] : Array.isArray(eos) ? eos : [eos];
  return new Set(list.map((id) => BigInt(id)));
}

/**
 * One generate step on a loaded causal LM (called by TransformersEngine.run for inputs with task "generate").
 * @param loaded the tokenizer + causal LM that TransformersEngine loaded (through the shared loader)
 * @param input a GenerateInput (prompt id, text, token limit, temperature, seed)
 * @param _options unused: the digest of a generation is always computed (it is cheap: a hash of the text)
 * @param hooks `onToken` per generated token
 */
export async function runTransformersGenerate(
  loaded: TransformersModel,
  input: EngineInput,
  _options: RunOptions,
  hooks: EngineHooks,
): Promise<RunResult> {
  if (loaded.kind !== 'causal-lm') throw new Error('a generate input needs a causal LM (generate) model');
  const { tokenizer, model } = loaded;
  const step = parseGenerateInput(input.data);

  // Tokenising is part of what a user waits for, so the clock starts before it (as WebLLM's request does).
  const requestAt = performance.now();
  const template = (tokenizer as unknown as { chat_template?: unknown }).chat_template;
  const encoded = template
    ? (tokenizer.apply_chat_template([{ role: 'user', content: step.text }], {
        add_generation_prompt: true,
        return_dict: true,
      }) as unknown as { input_ids: Tensor; attention_mask: Tensor })
    : (tokenizer(step.text) as unknown as { input_ids: Tensor; attention_mask: Tensor });
  const promptTokens = Number(encoded.input_ids.dims.at(-1));

  let firstAt: number | null = null;
  let lastAt: number | null = null;
  let generated = 0;
  const streamer = new TextStreamer(tokenizer, {
    skip_prompt: true,
    // Text is assembled from the final ids below; the streamer only timestamps tokens.
    callback_function: () => {},
    token_callback_function: () => {
      const now = performance.now();
      firstAt ??= now;
      lastAt = now;
      generated++;
      hooks.onToken?.(generated - 1);
    },
  });
  // transformers.js samples from its global seedable Mersenne Twister; one generation runs at a time per worker.
  if (step.seed !== null) random.seed(step.seed);
  const output = (await model.generate({
    ...encoded,
    max_new_tokens: step.max_new_tokens,
    do_sample: step.temperature > 0,
    ...(step.temperature > 0 ? { temperature: step.temperature } : {}),
    streamer,
  } as unknown as Parameters<typeof model.generate>[0])) as Tensor;
  const endAt = performance.now();

  const sequence = (output.tolist() as bigint[][])[0];
  const newIds = sequence.slice(promptTokens);
  const eos = eosIds(loaded);
  const stopped = newIds.length > 0 && eos.has(newIds[newIds.length - 1]);
  const finish: StreamObservation['finish_reason'] = stopped
    ? 'stop'
    : newIds.length >= step.max_new_tokens
      ? 'length'
      : 'other';
  const text = tokenizer.decode(newIds, { skip_special_tokens: true });
  const sample = timeGeneration(
    {
      request_at_ms: requestAt,
      first_token_at_ms: firstAt,
      last_token_at_ms: lastAt,
      end_at_ms: endAt,
      prompt_tokens: promptTokens,
      output_tokens: newIds.length,
      finish_reason: finish,
      max_new_tokens: step.max_new_tokens,
    },
    null,
  );
  return {
    durationMs: sample.e2e_ms,
    // No token ids in the digest: ids decode back to text, and text never enters a receipt.
    output: {
      name: 'generated_tokens',
      dims: [newIds.length],
      head: [],
      sha256: await sha256Hex(new TextEncoder().encode(text)),
    },
    generation: { sample, text, finish_reason: finish },
  };
}
