/**
 * Causal-LM candidate scoring against the real transformers.js runtime (Node build) on the tiny causal-LM fixture:
 * batched, right-padded and chunked scores equal each candidate scored alone, and the sum is of the right positions.
 * The prompt-once scoring (its cache repeated per candidate) gives the same scores on the GPT-2-, Qwen3- and
 * LFM2-shaped fixtures (attention caches; LFM2's convolution states), chunked or not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { planScoringChunks, sumContinuationLogProbs } from '../../src/core/suite/candidate-scoring.ts';
import {
  cacheInputName,
  planContinuationChunks,
  scoreWithPromptOnce,
  takesCache,
  type PrefixScoringRuntime,
} from '../../src/core/suite/prefix-scoring.ts';
import { logSoftmaxAt } from '../../src/core/suite/engine-inputs.ts';
import { scorePrompt } from '../../src/core/suite/scoring-text.ts';
import { loadTransformers } from './transformers-node.ts';

type Runtime = typeof import('@huggingface/transformers');
let rt: Runtime;
let tokenizer: Awaited<ReturnType<Runtime['AutoTokenizer']['from_pretrained']>>;
let model: Awaited<ReturnType<Runtime['AutoModelForCausalLM']['from_pretrained']>>;

beforeAll(async () => {
  rt = await loadTransformers();
  rt.env.allowRemoteModels = false;
  rt.env.allowLocalModels = true;
  rt.env.localModelPath = fileURLToPath(new URL('../../public/models/', import.meta.url));
  tokenizer = await rt.AutoTokenizer.from_pretrained('tfjs-tiny-causal-lm');
  model = await rt.AutoModelForCausalLM.from_pretrained('tfjs-tiny-causal-lm', { dtype: 'fp32' });
}, 60_000);

async function runChunks(
  prompt: number[],
  continuations: number[][],
  budgetBytes: number,
): Promise<{ scores: number[]; calls: number }> {
  const vocab = (model.config as unknown as { vocab_size: number }).vocab_size;
  const chunks = planScoringChunks(prompt, continuations, tokenizer.pad_token_id ?? 0, vocab, budgetBytes);
  const scores: number[] = [];
  for (const chunk of chunks) {
    const dims = [chunk.rows.length, chunk.length];
    const out = (await model({
      input_ids: new rt.Tensor('int64', chunk.inputIds, dims),
      attention_mask: new rt.Tensor('int64', chunk.attentionMask, dims),
    })) as {
      logits: InstanceType<Runtime['Tensor']>;
    };
    scores.push(
      ...sumContinuationLogProbs(
        out.logits.data as Float32Array,
        chunk,
        prompt.length,
        continuations,
        out.logits.dims[2],
      ),
    );
  }
  return { scores, calls: chunks.length };
}

describe('causal-LM candidate scoring', () => {
  it('batched + padded + chunked scores equal each candidate scored alone, position by position', async () => {
    const prompt = tokenizer.encode(scorePrompt('男性', 'セイネンシ'), { add_special_tokens: true });
    const eos = tokenizer.eos_token_id;
    const candidates = ['青年誌', 'せいねんし', '', 'セイネンシデカク', '成年詞'];
    const continuations = candidates.map((c) => [...tokenizer.encode(c, { add_special_tokens: false }), eos]);
    expect(continuations[2]).toEqual([eos]); // the empty candidate still scores its end of sequence

    const oneCall = await runChunks(prompt, continuations, 1 << 30);
    const perRow = await runChunks(prompt, continuations, 1);
    expect(oneCall.calls).toBe(1);
    expect(perRow.calls).toBe(candidates.length);

    // Reference: each candidate alone, unpadded, summed directly from its own logits.
    for (const [i, cont] of continuations.entries()) {
      const sequence = [...prompt, ...cont];
      const ids = new rt.Tensor('int64', BigInt64Array.from(sequence.map(BigInt)), [1, sequence.length]);
      const mask = new rt.Tensor('int64', new BigInt64Array(sequence.length).fill(1n), [1, sequence.length]);
      const { logits } = (await model({ input_ids: ids, attention_mask: mask })) as {
        logits: InstanceType<Runtime['Tensor']>;
      };
      const vocab = logits.dims[2];
      let expected = 0;
      for (let p = prompt.length; p < sequence.length; p++)
        expected += logSoftmaxAt(logits.data as Float32Array, (p - 1) * vocab, vocab, sequence[p]);
      expect(oneCall.scores[i]).toBeCloseTo(expected, 4);
      expect(perRow.scores[i]).toBeCloseTo(expected, 4);
      expect(expected).toBeLessThan(0);
    }
    // Distinct candidates get distinct scores (random weights still discriminate).
    expect(new Set(oneCall.scores.map((s) => s.toFixed(6))).size).toBe(candidates.length);
  });

  it('plans chunks under the budget, at least one row each, each padded to its own longest row', () => {
    const chunks = planScoringChunks([2, 7], [[5], [6, 6, 6], [9, 9]], 0, 10, 2 * 5 * 10 * 4);
    expect(chunks.map((c) => [c.rows, c.length])).toEqual([
      [[0, 1], 5],
      [[2], 4],
    ]);
    expect(Array.from(chunks[0].inputIds, Number)).toEqual([2, 7, 5, 0, 0, 2, 7, 6, 6, 6]);
    expect(Array.from(chunks[0].attentionMask, Number)).toEqual([1, 1, 1, 0, 0, 1, 1, 1, 1, 1]);
    expect(planScoringChunks([1], [[2]], 0, 1_000_000, 1).map((c) => c.rows)).toEqual([[0]]);
    expect(() => sumContinuationLogProbs([], chunks[0], 0, [[5]], 10)).toThrow(RangeError);
  });
});

describe('causal-LM candidate scoring with the prompt computed once', () => {
  type Tensor = InstanceType<Runtime['Tensor']>;
  /** The Node runtime as the worker's adapter gives it (host tensors only here). */
  const runtimeOf = (lm: typeof model): PrefixScoringRuntime<Tensor> => ({
    run: async (feeds) => (await lm(feeds as Record<string, Tensor>)) as unknown as Record<string, Tensor>,
    tensor: (type, data, dims) => new rt.Tensor(type as 'int64', data as BigInt64Array, dims),
    logits: async (tensor) => tensor.data as Float32Array,
    data: async (tensor) => tensor.data as Float32Array,
    release: () => {},
    now: () => performance.now(),
  });

  /** Each candidate's score from a full pass over the prompt and it alone (no cache given), summed from its own logits. */
  async function reference(
    forward: (ids: number[]) => Promise<Float32Array>,
    prompt: number[],
    cont: number[],
    vocab: number,
  ): Promise<number> {
    const sequence = [...prompt, ...cont];
    const logits = await forward(sequence);
    let expected = 0;
    for (let p = prompt.length; p < sequence.length; p++)
      expected += logSoftmaxAt(logits, (p - 1) * vocab, vocab, sequence[p]);
    return expected;
  }

  /** Scores the five candidates both ways (one chunk, one row per chunk) and holds them to the reference. */
  async function expectSameAsAlone(
    runtime: PrefixScoringRuntime<any>,
    forward: (ids: number[]) => Promise<Float32Array>,
    tok: typeof tokenizer,
    vocab: number,
  ): Promise<void> {
    const prompt = tok.encode(scorePrompt('男性', 'セイネンシ'), { add_special_tokens: true });
    const eos = tok.eos_token_id;
    const candidates = ['青年誌', 'せいねんし', '', 'セイネンシデカク', '成年詞'];
    const continuations = candidates.map((c) => [
      ...tok.encode(c, { add_special_tokens: false }),
      ...(eos === null || eos === undefined ? [] : [eos]),
    ]);
    const pad = tok.pad_token_id ?? 0;
    const oneCall = await scoreWithPromptOnce(runtime, prompt, continuations, pad, vocab, 1 << 30);
    const perRow = await scoreWithPromptOnce(runtime, prompt, continuations, pad, vocab, 1);
    const longest = Math.max(...continuations.map((c) => c.length));
    expect(oneCall.tokens).toBe(prompt.length + continuations.filter((c) => c.length > 0).length * longest);
    for (const [i, cont] of continuations.entries()) {
      const expected = await reference(forward, prompt, cont, vocab);
      expect(oneCall.scores[i]).toBeCloseTo(expected, 4);
      expect(perRow.scores[i]).toBeCloseTo(expected, 4);
    }
    expect(new Set(oneCall.scores.map((s) => s.toFixed(6))).size).toBe(candidates.length);
  }

  it.each([
    ['tfjs-tiny-causal-lm', 'fp32'],
    ['tfjs-tiny-qwen3', 'q4'],
  ] as const)(
    '%s (%s) through transformers.js: every candidate scores as it does alone after the whole prompt, in one chunk or one row per chunk',
    async (id, dtype) => {
      const tok = id === 'tfjs-tiny-causal-lm' ? tokenizer : await rt.AutoTokenizer.from_pretrained(id);
      const lm = id === 'tfjs-tiny-causal-lm' ? model : await rt.AutoModelForCausalLM.from_pretrained(id, { dtype });
      expect(
        takesCache((lm as unknown as { sessions: { model: { inputNames: string[] } } }).sessions.model.inputNames),
      ).toBe(true);
      const vocab = (lm.config as unknown as { vocab_size: number }).vocab_size;
      const forward = async (ids: number[]) => {
        const input = new rt.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]);
        const mask = new rt.Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]);
        return ((await lm({ input_ids: input, attention_mask: mask })) as { logits: Tensor }).logits
          .data as Float32Array;
      };
      await expectSameAsAlone(runtimeOf(lm), forward, tok, vocab);
    },
  );

  it('tfjs-tiny-lfm2 (fp32, external data, convolution states beside attention caches) in onnxruntime-web, fed as transformers.js feeds it: the same', async () => {
    const dir = fileURLToPath(new URL('../../public/models/tfjs-tiny-lfm2/', import.meta.url));
    const session = await ort.InferenceSession.create(new Uint8Array(readFileSync(join(dir, 'onnx/model.onnx'))), {
      executionProviders: ['wasm'],
      externalData: [
        { path: 'model.onnx_data', data: new Uint8Array(readFileSync(join(dir, 'onnx/model.onnx_data'))) },
      ],
    });
    const tok = await rt.AutoTokenizer.from_pretrained('tfjs-tiny-lfm2');
    const vocab = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).vocab_size as number;
    // transformers.js's decoder_forward: position ids from the mask (cumsum - 1, the new positions only), and an empty
    // cache (attention caches of length 0, zeroed convolution windows) when none is given.
    const run = async (
      feeds: Record<string, ort.Tensor | Record<string, ort.Tensor>>,
    ): Promise<Record<string, ort.Tensor>> => {
      const ids = feeds.input_ids as ort.Tensor;
      const mask = feeds.attention_mask as ort.Tensor;
      const [rows, length] = ids.dims;
      const total = mask.dims[1];
      const positions = new BigInt64Array(rows * length);
      for (let r = 0; r < rows; r++) {
        let seen = -1;
        for (let j = 0; j < total; j++) {
          seen += Number(mask.data[r * total + j]);
          if (j >= total - length) positions[r * length + j - (total - length)] = BigInt(Math.max(seen, 0));
        }
      }
      const past = (feeds.past_key_values as Record<string, ort.Tensor> | undefined) ?? {};
      const cache: Record<string, ort.Tensor> = {};
      for (const meta of session.inputMetadata) {
        if (!meta.name.startsWith('past') || !meta.isTensor) continue;
        const shape = meta.shape.map((d) => (typeof d === 'number' ? d : d === 'batch_size' ? rows : 0));
        cache[meta.name] =
          past[meta.name] ?? new ort.Tensor('float32', new Float32Array(shape.reduce((a, b) => a * b, 1)), shape);
      }
      return session.run({
        input_ids: ids,
        attention_mask: mask,
        position_ids: new ort.Tensor('int64', positions, [rows, length]),
        ...cache,
      });
    };
    const runtime: PrefixScoringRuntime<ort.Tensor> = {
      run,
      tensor: (type, data, dims) => new ort.Tensor(type as 'int64', data as BigInt64Array, dims),
      logits: async (tensor) => tensor.data as Float32Array,
      data: async (tensor) => tensor.data as Float32Array,
      release: () => {},
      now: () => performance.now(),
    };
    const forward = async (ids: number[]) => {
      const out = await run({
        input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]),
        attention_mask: new ort.Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
      });
      return out.logits.data as Float32Array;
    };
    await expectSameAsAlone(runtime, forward, tok, vocab);
    await session.release();
  });

  it('names cache inputs as transformers.js does, knows a model without them, and chunks only candidates with tokens', () => {
    expect(cacheInputName('present.3.key')).toBe('past_key_values.3.key');
    expect(cacheInputName('present_conv.0')).toBe('past_conv.0');
    expect(cacheInputName('present_ssm.2')).toBe('past_ssm.2');
    expect(cacheInputName('logits')).toBeNull();
    expect(takesCache(['input_ids', 'attention_mask'])).toBe(false);
    expect(takesCache(['input_ids', 'past_conv.0'])).toBe(true);
    expect(planContinuationChunks([[5], [], [6, 6, 6], [9, 9]], 10, 2 * 3 * 10 * 4)).toEqual([
      { rows: [0, 2], length: 3 },
      { rows: [3], length: 2 },
    ]);
    expect(planContinuationChunks([[], []], 10, 1)).toEqual([]);
  });
});
