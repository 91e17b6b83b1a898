/**
 * Causal-LM candidate scoring against the real transformers.js runtime (Node build) on the tiny causal-LM fixture:
 * batched, right-padded and chunked scores equal each candidate scored alone, and the sum is of the right positions.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { planScoringChunks, sumContinuationLogProbs } from '../../src/core/suite/candidate-scoring.ts';
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

async function runChunks(prompt: number[], continuations: number[][], budgetBytes: number): Promise<{ scores: number[]; calls: number }> {
  const vocab = (model.config as unknown as { vocab_size: number }).vocab_size;
  const chunks = planScoringChunks(prompt, continuations, tokenizer.pad_token_id ?? 0, vocab, budgetBytes);
  const scores: number[] = [];
  for (const chunk of chunks) {
    const dims = [chunk.rows.length, chunk.length];
    const out = (await model({ input_ids: new rt.Tensor('int64', chunk.inputIds, dims), attention_mask: new rt.Tensor('int64', chunk.attentionMask, dims) })) as {
      logits: InstanceType<Runtime['Tensor']>;
    };
    scores.push(...sumContinuationLogProbs(out.logits.data as Float32Array, chunk, prompt.length, continuations, out.logits.dims[2]));
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
      const { logits } = (await model({ input_ids: ids, attention_mask: mask })) as { logits: InstanceType<Runtime['Tensor']> };
      const vocab = logits.dims[2];
      let expected = 0;
      for (let p = prompt.length; p < sequence.length; p++) expected += logSoftmaxAt(logits.data as Float32Array, (p - 1) * vocab, vocab, sequence[p]);
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
