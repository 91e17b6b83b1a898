/**
 * The transformers.js fixtures and catalog entries: regeneration is byte-identical, the catalog pins the committed
 * bytes, the real-model entries are honest about what is unknown, and the fixtures load and run in the real
 * transformers.js runtime (Node build, on onnxruntime-web: see transformers-node.ts) the same way the page loads them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCatalog, isFullyPinned } from '../../src/core/catalog/catalog.ts';
import { pinFixtures } from '../../src/fixtures/catalog-pins.ts';
import { buildTransformersFixtures, fixtureVocabulary, halfBits } from '../../src/fixtures/transformers-fixtures.ts';
import { availableDtypes, dtypeOfFile, filesForDtype } from '../../src/core/catalog/transformers-dtype.ts';
import { logSoftmaxAt } from '../../src/core/suite/engine-inputs.ts';
import { BUILTIN_LLM_CONFIGS, findLlmConfig } from '../../src/core/evidence/memory-fit.ts';
import { loadTransformers } from './transformers-node.ts';

const root = new URL('../../', import.meta.url);
const catalog = parseCatalog(
  JSON.parse(readFileSync(new URL('src/catalog/catalog.json', root), 'utf8')),
  'catalog.json',
);

describe('transformers.js fixtures', () => {
  it('regenerate byte-identical to the committed files', () => {
    const first = buildTransformersFixtures();
    const second = buildTransformersFixtures();
    expect(first.length).toBe(11);
    for (const [i, file] of first.entries()) {
      const committed = readFileSync(new URL(`public/${file.publicPath}`, root));
      expect(Buffer.from(file.bytes).equals(committed), file.publicPath).toBe(true);
      expect(Buffer.from(second[i].bytes).equals(Buffer.from(file.bytes))).toBe(true);
    }
  });

  it('are pinned in the catalog (every file, bytes and SHA-256) as fixtures', async () => {
    const { changed } = await pinFixtures(catalog, buildTransformersFixtures());
    expect(changed).toEqual([]);
    for (const id of ['tfjs-tiny-reranker', 'tfjs-tiny-causal-lm']) {
      const model = catalog.models.find((m) => m.id === id)!;
      expect(model.engine).toBe('transformers');
      expect(model.kind).toBe('fixture');
      expect(isFullyPinned(model)).toBe(true);
    }
  });

  it('vocabulary has unique tokens and covers kana, kanji and ASCII', () => {
    const vocab = fixtureVocabulary();
    expect(new Set(vocab).size).toBe(vocab.length);
    for (const token of ['[UNK]', 'か', '##か', 'カ', '##ー', '漢', 'a', '##1', '、']) expect(vocab).toContain(token);
  });
});

describe('half precision (fp16 fixture weights)', () => {
  it.each([
    [0, 0x0000],
    [-0, 0x8000],
    [1, 0x3c00],
    [-2, 0xc000],
    [0.1, 0x2e66], // 0.0999755859375: nearest half
    [65504, 0x7bff], // largest finite half
    [65520, 0x7c00], // rounds up to infinity
    [2 ** -24, 0x0001], // smallest subnormal
    [2 ** -26, 0x0000], // below half the smallest subnormal: zero
    [1 + 2 ** -11, 0x3c00], // exactly halfway between 1 and the next half: ties to even (down)
    [1 + 3 * 2 ** -11, 0x3c02], // halfway, odd below: ties to even (up)
    [Number.POSITIVE_INFINITY, 0x7c00],
  ])('%d -> 0x%s', (value, bits) => {
    expect(halfBits(value)).toBe(bits);
  });
  it('NaN stays NaN', () => {
    expect(halfBits(Number.NaN) & 0x7c00).toBe(0x7c00);
    expect(halfBits(Number.NaN) & 0x3ff).not.toBe(0);
  });
});

describe('dtype -> files', () => {
  const reranker = catalog.models.find((m) => m.id === 'tfjs-tiny-reranker')!;

  it('names the dtype of transformers.js ONNX files', () => {
    expect(
      [
        'onnx/model.onnx',
        'onnx/model_fp16.onnx',
        'onnx/model_quantized.onnx',
        'onnx/model_q4f16.onnx',
        'onnx/model_q4.onnx_data',
        'onnx/decoder_model_merged_q4.onnx',
        'config.json',
      ].map(dtypeOfFile),
    ).toEqual(['fp32', 'fp16', 'q8', 'q4f16', 'q4', 'q4', null]);
  });

  it('fetches the shared files plus only the chosen dtype', () => {
    expect(availableDtypes(reranker)).toEqual(['fp32', 'fp16']);
    expect(filesForDtype(reranker, 'fp16').map((f) => f.path)).toEqual([
      'config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model_fp16.onnx',
    ]);
    expect(filesForDtype(reranker, 'fp32').map((f) => f.path)).toEqual([
      'config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model.onnx',
    ]);
    expect(() => filesForDtype(reranker, 'q4')).toThrow(
      'model tfjs-tiny-reranker has no q4 files in the catalog (it lists: fp32, fp16)',
    );
  });
});

describe('real transformers.js catalog entries', () => {
  const real = catalog.models.filter((m) => m.engine === 'transformers' && m.kind === 'real');

  it('list a multilingual reranker, an LFM2-family and a Qwen-family scorer and generator, each with a licence', () => {
    expect(real.map((m) => [m.id, m.task, m.source.type === 'huggingface' ? m.source.repo : null])).toEqual([
      ['bge-reranker-v2-m3-q8', 'rerank', 'onnx-community/bge-reranker-v2-m3-ONNX'],
      ['lfm2.5-350m-q4', 'score-candidates', 'LiquidAI/LFM2.5-350M-ONNX'],
      ['qwen3-0.6b-q4', 'score-candidates', 'onnx-community/Qwen3-0.6B-ONNX'],
      ['lfm2.5-350m-q4-gen', 'generate', 'LiquidAI/LFM2.5-350M-ONNX'],
      ['qwen3-0.6b-q4-gen', 'generate', 'onnx-community/Qwen3-0.6B-ONNX'],
    ]);
    for (const model of real) expect(model.licence.length).toBeGreaterThan(5);
  });

  it("offer each real LLM for generation with exactly its scoring entry's repo, revision, files, dtype and licence", () => {
    for (const [scorer, generator] of [
      ['lfm2.5-350m-q4', 'lfm2.5-350m-q4-gen'],
      ['qwen3-0.6b-q4', 'qwen3-0.6b-q4-gen'],
    ]) {
      const a = real.find((m) => m.id === scorer)!;
      const b = real.find((m) => m.id === generator)!;
      expect(b).toMatchObject({ engine: 'transformers', task: 'generate', kind: 'real', default_input: null });
      expect([b.source, b.files, b.dtype, b.licence]).toEqual([a.source, a.files, a.dtype, a.licence]);
      // The receipts summary's memory-fit estimate is keyed by model id: a generation receipt finds the same config.
      expect(findLlmConfig(BUILTIN_LLM_CONFIGS, generator)).toBe(findLlmConfig(BUILTIN_LLM_CONFIGS, scorer));
    }
  });

  it('never claim a size or hash nobody measured (unpinned until downloaded and checked)', () => {
    for (const model of real) {
      for (const file of model.files) expect([file.path, file.bytes, file.sha256]).toEqual([file.path, null, null]);
    }
  });
});

describe('fixtures in the real transformers.js runtime (Node build)', () => {
  it('rerank: tokenizes pairs, runs the cross-encoder, gives distinct finite scores', async () => {
    const { env, AutoTokenizer, AutoModelForSequenceClassification } = await loadTransformers();
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = fileURLToPath(new URL('public/models/', root));
    const tokenizer = await AutoTokenizer.from_pretrained('tfjs-tiny-reranker');
    const model = await AutoModelForSequenceClassification.from_pretrained('tfjs-tiny-reranker', { dtype: 'fp32' });
    // Every character is a known token: no [UNK] (id 1) in a Japanese pair.
    const encoded = tokenizer(['男性 セイネンシ', '男性 セイネンシ'], {
      text_pair: ['青年誌で描く', 'せいねんし'],
      padding: true,
    });
    const ids = (encoded.input_ids.tolist() as bigint[][]).flat().map(Number);
    expect(ids).not.toContain(1);
    expect((encoded.token_type_ids!.tolist() as bigint[][])[0].map(Number)).toContain(1);
    const { logits } = await model(encoded);
    expect(logits.dims).toEqual([2, 1]);
    const [a, b] = Array.from(logits.data as Float32Array);
    expect(Number.isFinite(a) && Number.isFinite(b) && a !== b).toBe(true);
    // The fp16 file is the same model with weights rounded to half precision: close, not equal.
    const half = await AutoModelForSequenceClassification.from_pretrained('tfjs-tiny-reranker', { dtype: 'fp16' });
    const [ha, hb] = Array.from((await half(encoded)).logits.data as Float32Array);
    expect(Math.abs(ha - a)).toBeLessThan(1e-2);
    expect(Math.abs(hb - b)).toBeLessThan(1e-2);
    expect(ha === a && hb === b).toBe(false);
    await half.dispose();
    await model.dispose();
  });

  it('causal LM: the KV cache path gives the same next-token logits as a full forward pass', async () => {
    const { env, AutoTokenizer, AutoModelForCausalLM, Tensor } = await loadTransformers();
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = fileURLToPath(new URL('public/models/', root));
    const tokenizer = await AutoTokenizer.from_pretrained('tfjs-tiny-causal-lm');
    const model = await AutoModelForCausalLM.from_pretrained('tfjs-tiny-causal-lm', { dtype: 'fp32' });
    const prompt = tokenizer('文脈: \n読み: カク\n変換: ');
    const generated = (await model.generate({ ...prompt, max_new_tokens: 4, do_sample: false })) as InstanceType<
      typeof Tensor
    >;
    const sequence = (generated.tolist() as bigint[][])[0];
    expect(sequence.length).toBe(prompt.input_ids.dims[1] + 4);
    // Greedy generation used the cache; a cache-free pass over the whole sequence must pick the same tokens.
    const full = new Tensor('int64', BigInt64Array.from(sequence), [1, sequence.length]);
    const mask = new Tensor('int64', new BigInt64Array(sequence.length).fill(1n), [1, sequence.length]);
    const { logits } = await model({ input_ids: full, attention_mask: mask });
    const vocab = logits.dims[2];
    const data = logits.data as Float32Array;
    for (let t = prompt.input_ids.dims[1]; t < sequence.length; t++) {
      let best = 0;
      for (let v = 1; v < vocab; v++) if (data[(t - 1) * vocab + v] > data[(t - 1) * vocab + best]) best = v;
      expect(BigInt(best)).toBe(sequence[t]);
    }
    // Log-probabilities of one position sum to 1 in probability space.
    let total = 0;
    for (let v = 0; v < vocab; v++) total += Math.exp(logSoftmaxAt(data, 0, vocab, v));
    expect(total).toBeCloseTo(1, 6);
    await model.dispose();
  });
});

describe('docs/models.md', () => {
  it('lists every catalog model id (the catalog table stays true)', () => {
    const doc = readFileSync(new URL('docs/models.md', root), 'utf8');
    for (const model of catalog.models) expect(doc, model.id).toContain(`| \`${model.id}\` |`);
  });
});
