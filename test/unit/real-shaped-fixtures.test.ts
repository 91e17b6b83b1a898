/**
 * The real-export-shaped fixtures (Qwen3-shaped causal LM and XLM-RoBERTa-shaped cross-encoder, each in fp32 / fp16 /
 * q8 / q4; LFM2-shaped hybrid LM in fp32 / fp16 / q4, all with external data): byte-identical regeneration and catalog pins, the graphs checked by the reference `onnx` package
 * (Debian's python3-onnx) for validity and for the names and operators the real exports use, and the graphs run in
 * onnxruntime-web's WebAssembly backend (the page's runtime, here in Node): greedy decoding with the KV cache gives
 * the same tokens as recomputing the whole sequence, padding is masked, and every dtype stays near fp32.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { isFullyPinned, parseCatalog } from '../../src/core/catalog/catalog.ts';
import { pinFixtures } from '../../src/fixtures/catalog-pins.ts';
import { PRECISION_FILE, PRECISIONS, type Precision } from '../../src/fixtures/onnx-graph.ts';
import { SUPPRESSED_BYTES } from '../../src/fixtures/byte-level-bpe.ts';
import { buildLfm2Fixture, LFM2_FIXTURE_ID, LFM2_PRECISIONS } from '../../src/fixtures/lfm2-fixture.ts';
import { buildQwen3Fixture, QWEN3_FIXTURE_ID, QWEN3_SHAPE } from '../../src/fixtures/qwen3-fixture.ts';
import { buildXlmrFixture, XLMR_FIXTURE_ID } from '../../src/fixtures/xlm-roberta-fixture.ts';
import { loadTransformers } from './transformers-node.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const catalog = parseCatalog(JSON.parse(readFileSync(join(root, 'src/catalog/catalog.json'), 'utf8')), 'catalog.json');
const qwenDir = join(root, 'public/models', QWEN3_FIXTURE_ID);
const xlmrDir = join(root, 'public/models', XLMR_FIXTURE_ID);
const lfmDir = join(root, 'public/models', LFM2_FIXTURE_ID);

ort.env.wasm.numThreads = 1;

describe('real-shaped fixtures: files and pins', () => {
  it.each([
    ['qwen3', buildQwen3Fixture],
    ['xlm-roberta', buildXlmrFixture],
    ['lfm2', buildLfm2Fixture],
  ] as const)(
    '%s regenerates byte-identical to the committed files and the catalog pins them',
    async (_name, build) => {
      const first = build();
      const second = build();
      for (const [i, file] of first.entries()) {
        const committed = readFileSync(join(root, 'public', file.publicPath));
        expect(Buffer.from(file.bytes).equals(committed), file.publicPath).toBe(true);
        expect(Buffer.from(second[i].bytes).equals(Buffer.from(file.bytes)), file.publicPath).toBe(true);
      }
      expect((await pinFixtures(catalog, first)).changed).toEqual([]);
    },
  );

  it("catalog entries are fully pinned fixtures with every dtype, the real entries' default dtypes, and their own inputs", () => {
    const byId = (id: string) => catalog.models.find((m) => m.id === id)!;
    for (const [id, task, dtype, precisions] of [
      ['tfjs-tiny-qwen3', 'score-candidates', 'q4', PRECISIONS],
      ['tfjs-tiny-qwen3-gen', 'generate', 'q4', PRECISIONS],
      ['tfjs-tiny-xlmr-reranker', 'rerank', 'q8', PRECISIONS],
      ['tfjs-tiny-lfm2', 'score-candidates', 'q4', LFM2_PRECISIONS],
      ['tfjs-tiny-lfm2-gen', 'generate', 'q4', LFM2_PRECISIONS],
    ] as const) {
      const model = byId(id);
      expect(model).toMatchObject({ engine: 'transformers', task, kind: 'fixture', dtype });
      expect(isFullyPinned(model)).toBe(true);
      for (const precision of precisions)
        expect(model.files.map((f) => f.path)).toContain(`onnx/${PRECISION_FILE[precision]}`);
    }
    for (const precision of LFM2_PRECISIONS)
      expect(byId('tfjs-tiny-lfm2').files.map((f) => f.path)).toContain(`onnx/${PRECISION_FILE[precision]}_data`);
    expect(byId('tfjs-tiny-lfm2-gen').files).toEqual(byId('tfjs-tiny-lfm2').files);
    expect(byId('tfjs-tiny-qwen3').files.map((f) => f.path)).toContain('onnx/model.onnx_data');
    expect(byId('tfjs-tiny-qwen3-gen').files).toEqual(byId('tfjs-tiny-qwen3').files);
    expect(byId('tfjs-tiny-qwen3').default_input).toBe('tfjs-qwen3-tokens-2x24');
    expect(byId('tfjs-tiny-xlmr-reranker').default_input).toBe('tfjs-xlmr-tokens-2x24');
  });

  it('configs carry the fields transformers.js reads, with grouped-query heads', () => {
    const qwen = JSON.parse(readFileSync(join(qwenDir, 'config.json'), 'utf8'));
    expect(qwen).toMatchObject({
      model_type: 'qwen3',
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      head_dim: 16,
      hidden_size: 32,
      use_cache: true,
    });
    expect(qwen.num_key_value_heads).toBeLessThan(qwen.num_attention_heads);
    expect(qwen['transformers.js_config'].use_external_data_format).toEqual({ 'model.onnx': true });
    const tokenizerConfig = JSON.parse(readFileSync(join(qwenDir, 'tokenizer_config.json'), 'utf8'));
    expect(tokenizerConfig.chat_template).toContain('<|im_start|>');
    expect(tokenizerConfig.eos_token).toBe('<|im_end|>');
    const xlmr = JSON.parse(readFileSync(join(xlmrDir, 'config.json'), 'utf8'));
    expect(xlmr).toMatchObject({
      model_type: 'xlm-roberta',
      architectures: ['XLMRobertaForSequenceClassification'],
      type_vocab_size: 1,
    });
    const tokenizer = JSON.parse(readFileSync(join(xlmrDir, 'tokenizer.json'), 'utf8'));
    expect(tokenizer.model.type).toBe('Unigram');
    expect(tokenizer.pre_tokenizer.type).toBe('Metaspace');
    const lfm = JSON.parse(readFileSync(join(lfmDir, 'config.json'), 'utf8'));
    expect(lfm).toMatchObject({
      model_type: 'lfm2',
      layer_types: ['conv', 'full_attention', 'conv'],
      conv_L_cache: 3,
      num_attention_heads: 4,
      num_key_value_heads: 2,
    });
    // No external-data declaration: the page's loader tells transformers.js from the catalog's file list.
    expect(lfm['transformers.js_config']).toBeUndefined();
  });
});

/** Runs scripts/onnx-inspect.py with Debian's python3-onnx; fails with a clear line when it is not installed. */
function inspectWithPythonOnnx(paths: string[]): Record<string, PythonView> {
  const python = '/usr/bin/python3';
  const missing =
    'python3-onnx is not installed: `apt-get install python3-onnx` (.ci/run installs it); it checks the generated ONNX graphs';
  if (!existsSync(python)) throw new Error(missing);
  try {
    execFileSync(python, ['-c', 'import onnx'], { stdio: 'pipe' });
  } catch {
    throw new Error(missing);
  }
  const out = execFileSync(python, [join(root, 'scripts/onnx-inspect.py'), ...paths], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return JSON.parse(out);
}

interface PythonView {
  opsets: Record<string, number>;
  inputs: Array<{ name: string; type: string; dims: Array<string | number> }>;
  outputs: Array<{ name: string; type: string; dims: Array<string | number> }>;
  ops: string[];
  external_data: string[];
  contrib_nodes: Array<{ op: string; attributes: Record<string, number> }>;
}

describe('real-shaped fixtures: checked by the reference onnx package (python3-onnx)', () => {
  let views: Record<string, PythonView>;
  const path = (dir: string, precision: Precision) => join(dir, 'onnx', PRECISION_FILE[precision]);
  beforeAll(() => {
    const files = [
      ...PRECISIONS.flatMap((p) => [path(qwenDir, p), path(xlmrDir, p)]),
      ...LFM2_PRECISIONS.map((p) => path(lfmDir, p)),
      join(root, 'public/models/tfjs-tiny-xlmr-perturbed/onnx/model.onnx'),
    ];
    const before = files.map((file) => readFileSync(file));
    views = inspectWithPythonOnnx(files);
    // The check reads only: every committed graph is byte for byte what it was.
    files.forEach((file, i) => expect(readFileSync(file).equals(before[i]), file).toBe(true));
  }, 120_000);

  it.each(PRECISIONS)(
    'Qwen3-shaped %s: onnx.checker passes; KV cache names, position_ids and GQA shapes as the real exports',
    (precision) => {
      const view = views[path(qwenDir, precision)];
      const float = precision === 'fp16' ? 'FLOAT16' : 'FLOAT';
      const cache = (prefix: string, length: string) =>
        [0, 1].flatMap((l) =>
          ['key', 'value'].map((kind) => ({
            name: `${prefix}.${l}.${kind}`,
            type: float,
            dims: ['batch_size', 2, length, 16],
          })),
        );
      expect(view.inputs).toEqual([
        { name: 'input_ids', type: 'INT64', dims: ['batch_size', 'sequence_length'] },
        { name: 'attention_mask', type: 'INT64', dims: ['batch_size', 'total_sequence_length'] },
        { name: 'position_ids', type: 'INT64', dims: ['batch_size', 'sequence_length'] },
        ...cache('past_key_values', 'past_sequence_length'),
      ]);
      expect(view.outputs[0]).toMatchObject({
        name: 'logits',
        type: float,
        dims: ['batch_size', 'sequence_length', expect.any(Number)],
      });
      expect(view.outputs.slice(1)).toEqual(cache('present', 'total_sequence_length'));
      expect(view.external_data).toEqual(precision === 'fp32' ? ['model.onnx_data'] : []);
      checkQuantization(view, precision);
    },
  );

  it.each(LFM2_PRECISIONS)(
    "LFM2-shaped %s: onnx.checker passes; convolution and attention caches named as transformers.js names LFM2's, external data",
    (precision) => {
      const view = views[path(lfmDir, precision)];
      const float = precision === 'fp16' ? 'FLOAT16' : 'FLOAT';
      const conv = (prefix: string, l: number) => ({
        name: `${prefix}.${l}`,
        type: float,
        dims: ['batch_size', 32, 3],
      });
      const kv = (prefix: string, length: string) =>
        ['key', 'value'].map((kind) => ({
          name: `${prefix}.1.${kind}`,
          type: float,
          dims: ['batch_size', 2, length, 8],
        }));
      expect(view.inputs.slice(3)).toEqual([
        conv('past_conv', 0),
        ...kv('past_key_values', 'past_sequence_length'),
        conv('past_conv', 2),
      ]);
      expect(view.outputs.slice(1)).toEqual([
        conv('present_conv', 0),
        ...kv('present', 'total_sequence_length'),
        conv('present_conv', 2),
      ]);
      expect(view.ops).toContain('ai.onnx:Conv');
      expect(view.external_data).toEqual([`${PRECISION_FILE[precision]}_data`]);
      if (precision === 'q4') {
        expect(view.contrib_nodes.filter((n) => n.op === 'GatherBlockQuantized')).toEqual([
          { op: 'GatherBlockQuantized', attributes: { bits: 4, block_size: 32, gather_axis: 0, quantize_axis: 1 } },
        ]);
        expect(view.contrib_nodes.filter((n) => n.op === 'MatMulNBits').length).toBeGreaterThan(3);
      } else {
        expect(view.contrib_nodes).toEqual([]);
      }
    },
  );

  it.each(PRECISIONS)(
    'XLM-RoBERTa-shaped %s: onnx.checker passes; input_ids and attention_mask only (no token_type_ids), one logit',
    (precision) => {
      const view = views[path(xlmrDir, precision)];
      expect(view.inputs.map((i) => i.name)).toEqual(['input_ids', 'attention_mask']);
      expect(view.outputs).toEqual([
        { name: 'logits', type: precision === 'fp16' ? 'FLOAT16' : 'FLOAT', dims: ['batch_size', 1] },
      ]);
      expect(view.ops).toContain('ai.onnx:CumSum'); // RoBERTa's position ids are computed in the graph
      checkQuantization(view, precision);
    },
  );

  it('the perturbed cross-encoder: the same inputs and output, a sine over a hugely scaled head', () => {
    const view = views[join(root, 'public/models/tfjs-tiny-xlmr-perturbed/onnx/model.onnx')];
    expect(view.inputs).toEqual(views[path(xlmrDir, 'fp32')].inputs);
    expect(view.outputs).toEqual(views[path(xlmrDir, 'fp32')].outputs);
    expect(view.ops).toContain('ai.onnx:Sin');
  });

  function checkQuantization(view: PythonView, precision: Precision) {
    if (precision === 'q8') {
      expect(view.ops).toEqual(
        expect.arrayContaining(['ai.onnx:DynamicQuantizeLinear', 'ai.onnx:MatMulInteger', 'ai.onnx:DequantizeLinear']),
      );
    } else {
      expect(view.ops).not.toContain('ai.onnx:MatMulInteger');
    }
    if (precision === 'q4') {
      expect(view.opsets).toEqual({ 'ai.onnx': 17, 'com.microsoft': 1 });
      expect(view.contrib_nodes.length).toBeGreaterThan(3);
      for (const node of view.contrib_nodes) {
        expect(node.op).toBe('MatMulNBits');
        expect(node.attributes).toMatchObject({ bits: 4, block_size: 32 });
      }
    } else {
      expect(view.contrib_nodes).toEqual([]);
      expect(view.opsets).toEqual({ 'ai.onnx': 17 });
    }
  }
});

/** One ORT-web (WebAssembly) session per file, created the way transformers.js creates it (external data by name). */
async function wasmSession(dir: string, precision: Precision): Promise<ort.InferenceSession> {
  const file = PRECISION_FILE[precision];
  const externalPath = join(dir, 'onnx', `${file}_data`);
  const externalData = existsSync(externalPath)
    ? [{ path: `${file}_data`, data: new Uint8Array(readFileSync(externalPath)) }]
    : undefined;
  return ort.InferenceSession.create(new Uint8Array(readFileSync(join(dir, 'onnx', file))), {
    executionProviders: ['wasm'],
    externalData,
  });
}

/** float16 bits -> number (for reading fp16 logits without Float16Array, which Node 20 lacks). */
function fromHalf(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exp === 0) return sign * mantissa * 2 ** -24;
  if (exp === 31) return mantissa ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + mantissa / 1024) * 2 ** (exp - 15);
}

function floats(tensor: ort.Tensor): Float32Array {
  if (tensor.type === 'float32') return tensor.data as Float32Array;
  return Float32Array.from(tensor.data as Uint16Array, fromHalf);
}

const i64 = (values: number[], dims: number[]) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), dims);

/**
 * The empty first-step cache, built as transformers.js builds it (modeling_utils.js `addPastKeyValues`): one tensor
 * per `past_*` input, shaped from the session's input metadata with `batch_size` resolved and every other symbolic
 * dim 0 (an attention cache starts empty; a convolution window starts as zeros of its fixed size).
 */
function emptyCache(session: ort.InferenceSession, batch: number): Record<string, ort.Tensor> {
  const feeds: Record<string, ort.Tensor> = {};
  for (const meta of session.inputMetadata) {
    if (!meta.name.startsWith('past') || !meta.isTensor) continue;
    const shape = meta.shape.map((d) => (typeof d === 'number' ? d : d === 'batch_size' ? batch : 0));
    const size = shape.reduce((a, b) => a * b, 1);
    feeds[meta.name] =
      meta.type === 'float16'
        ? new ort.Tensor('float16', new Uint16Array(size), shape)
        : new ort.Tensor('float32', new Float32Array(size), shape);
  }
  return feeds;
}

/** Runs an LM on one row with its cache, the way transformers.js feeds it (`present*` becomes the next `past*`). */
class CachedDecoder {
  private past: Record<string, ort.Tensor>;
  private readonly mask: number[] = [];
  constructor(
    private readonly session: ort.InferenceSession,
    private readonly precision: Precision,
  ) {
    this.past = emptyCache(session, 1);
  }

  /** Feeds `ids` (new tokens only) and returns the last position's logits. */
  async step(ids: number[]): Promise<Float32Array> {
    const start = this.mask.length;
    this.mask.push(...ids.map(() => 1));
    const out = await this.session.run({
      input_ids: i64(ids, [1, ids.length]),
      attention_mask: i64(this.mask, [1, this.mask.length]),
      position_ids: i64(
        ids.map((_, i) => start + i),
        [1, ids.length],
      ),
      ...this.past,
    });
    const next: Record<string, ort.Tensor> = {};
    for (const [name, tensor] of Object.entries(out)) {
      if (name.startsWith('present_conv')) next[name.replace('present_conv', 'past_conv')] = tensor;
      else if (name.startsWith('present')) next[name.replace('present', 'past_key_values')] = tensor;
    }
    expect(Object.keys(next).sort()).toEqual(Object.keys(this.past).sort());
    this.past = next;
    expect(out.logits.type).toBe(this.precision === 'fp16' ? 'float16' : 'float32');
    const logits = floats(out.logits);
    return logits.slice(logits.length - out.logits.dims[2]);
  }
}

/** Last-position logits of a full, cache-free pass over `ids` (with `leftPad` masked tokens in front when asked). */
async function fullPass(session: ort.InferenceSession, ids: number[], leftPad = 0): Promise<Float32Array> {
  const all = [...new Array<number>(leftPad).fill(0), ...ids];
  const mask = all.map((_, i) => (i < leftPad ? 0 : 1));
  // transformers.js's position ids: cumsum(mask) - 1, and 1 on padding.
  let seen = 0;
  const positions = mask.map((m) => (m ? seen++ : 1));
  const out = await session.run({
    ...emptyCache(session, 1),
    input_ids: i64(all, [1, all.length]),
    attention_mask: i64(mask, [1, all.length]),
    position_ids: i64(positions, [1, all.length]),
  });
  const logits = floats(out.logits);
  return logits.slice(logits.length - out.logits.dims[2]);
}

const argmax = (values: Float32Array) => values.reduce((best, v, i) => (v > values[best] ? i : best), 0);
const maxAbsDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

/** Largest logit difference between a cached decode step and a cache-free recompute, per dtype (see the test). */
const CACHE_TOLERANCE: Record<Precision, number> = { fp32: 1e-4, fp16: 1e-2, q8: 1, q4: 1e-4 };

describe.each([
  ['Qwen3-shaped', qwenDir, PRECISIONS],
  ['LFM2-shaped', lfmDir, LFM2_PRECISIONS],
] as const)('%s LM in onnxruntime-web (wasm)', (_name, dir, precisions) => {
  // "文脈: かな\n" in the two fixtures' byte-level vocabulary (the same regular ids; only their special tokens differ).
  const prompt = [230, 150, 135, 232, 132, 136, 58, 32, 269, 300, 10];

  it.each(precisions)(
    '%s: greedy decoding with the cache gives the same tokens as recomputing the whole sequence',
    async (precision) => {
      const session = await wasmSession(dir, precision);
      try {
        const decoder = new CachedDecoder(session, precision);
        let logits = await decoder.step(prompt);
        const cached: number[] = [];
        const sequence = [...prompt];
        for (let t = 0; t < 10; t++) {
          const next = argmax(logits);
          cached.push(next);
          sequence.push(next);
          const reference = await fullPass(session, sequence.slice(0, -1));
          // Same distribution at this step with and without the cache (the cache holds exactly what recomputing gives),
          // except in q8: dynamic quantization scales each call's activations by that call's own range, so one token
          // quantized alone differs from the same token quantized among the whole sequence (as in real q8 exports).
          expect(maxAbsDiff(logits, reference), `step ${t}`).toBeLessThan(CACHE_TOLERANCE[precision]);
          logits = await decoder.step([next]);
        }
        expect(new Set(cached).size).toBeGreaterThan(3); // not one repeated token, which would hide a broken cache
        const recomputed: number[] = [];
        for (let t = 0; t < cached.length; t++)
          recomputed.push(argmax(await fullPass(session, [...prompt, ...cached.slice(0, t)])));
        expect(recomputed).toEqual(cached);
      } finally {
        await session.release();
      }
    },
  );

  it("left padding is masked: a padded row gives the unpadded row's logits (fp32)", async () => {
    const session = await wasmSession(dir, 'fp32');
    try {
      expect(maxAbsDiff(await fullPass(session, prompt, 5), await fullPass(session, prompt))).toBeLessThan(1e-5);
    } finally {
      await session.release();
    }
  });

  it('the head keeps byte tokens that could decode to control or bidi characters out of reach (fp32)', async () => {
    // Generated answers refuse such characters (bounded-text.ts): a random head must not emit them.
    const session = await wasmSession(dir, 'fp32');
    try {
      const logits = await fullPass(session, prompt);
      const best = Math.max(...logits);
      for (const id of SUPPRESSED_BYTES) expect(best - logits[id], `byte ${id}`).toBeGreaterThan(20);
      expect(SUPPRESSED_BYTES).toEqual(expect.arrayContaining([0x00, 0x1b, 0x7f, 0xc2, 0xe2]));
      expect(SUPPRESSED_BYTES).not.toContain(0x0a);
    } finally {
      await session.release();
    }
  });

  it('every dtype stays near fp32 (q4 furthest)', async () => {
    const reference = await wasmSession(dir, 'fp32');
    const base = await fullPass(reference, prompt);
    await reference.release();
    // LFM2's q4 also quantizes the embedding table (GatherBlockQuantized), so it moves further than Qwen3's.
    const bounds: Record<Precision, number> = { fp32: 0, fp16: 0.05, q8: 0.5, q4: 4 };
    for (const precision of precisions.slice(1)) {
      const session = await wasmSession(dir, precision);
      const logits = await fullPass(session, prompt);
      await session.release();
      const diff = maxAbsDiff(logits, base);
      expect(diff, precision).toBeGreaterThan(0);
      expect(diff, precision).toBeLessThan(bounds[precision]);
    }
  });
});

describe('XLM-RoBERTa-shaped fixture in onnxruntime-web (wasm)', () => {
  const ids = [0, 4, 13505, 8113, 546, 251, 292, 2, 2, 4, 22236, 7678, 18966, 2];

  async function logits(session: ort.InferenceSession, rows: number[][]): Promise<number[]> {
    const length = Math.max(...rows.map((r) => r.length));
    // Right padding with <pad> (id 1) and mask 0, as the tokenizer pads a batch.
    const padded = rows.flatMap((r) => [...r, ...new Array<number>(length - r.length).fill(1)]);
    const mask = rows.flatMap((r) => [...r.map(() => 1), ...new Array<number>(length - r.length).fill(0)]);
    const out = await session.run({
      input_ids: i64(padded, [rows.length, length]),
      attention_mask: i64(mask, [rows.length, length]),
    });
    expect(out.logits.dims).toEqual([rows.length, 1]);
    return Array.from(floats(out.logits));
  }

  it.each(PRECISIONS)('%s: a padded row scores as it does alone, and the score is near fp32', async (precision) => {
    const fp32 = await wasmSession(xlmrDir, 'fp32');
    const [reference] = await logits(fp32, [ids]);
    await fp32.release();
    const session = await wasmSession(xlmrDir, precision);
    try {
      const [alone] = await logits(session, [ids]);
      const [, padded] = await logits(session, [[...ids, 5, 6, 7, 8], ids]);
      // q8 quantizes a whole batch's activations with one scale, so a row's score moves a little with its batch
      // (padding included); every other dtype masks padding exactly.
      expect(Math.abs(padded - alone)).toBeLessThan({ fp32: 1e-5, fp16: 1e-2, q8: 0.1, q4: 1e-5 }[precision]);
      expect(Math.abs(alone - reference)).toBeLessThan({ fp32: 0, fp16: 0.02, q8: 0.1, q4: 0.5 }[precision] + 1e-9);
    } finally {
      await session.release();
    }
  });
});

describe('Qwen3-shaped fixture through transformers.js: generate and score-candidates take the cached path', () => {
  type Runtime = typeof import('@huggingface/transformers');
  interface Call {
    ids: number[];
    past: number[];
    positions: number[];
  }

  /** Loads the fixture (q4, the catalog default) and records what every session run was fed. */
  async function load(): Promise<{
    rt: Runtime;
    tokenizer: Awaited<ReturnType<Runtime['AutoTokenizer']['from_pretrained']>>;
    model: Awaited<ReturnType<Runtime['AutoModelForCausalLM']['from_pretrained']>>;
    calls: Call[];
  }> {
    const rt = await loadTransformers();
    rt.env.allowRemoteModels = false;
    rt.env.allowLocalModels = true;
    rt.env.localModelPath = join(root, 'public/models/');
    const tokenizer = await rt.AutoTokenizer.from_pretrained(QWEN3_FIXTURE_ID);
    const model = await rt.AutoModelForCausalLM.from_pretrained(QWEN3_FIXTURE_ID, { dtype: 'q4' });
    const session = (
      model as unknown as { sessions: { model: { run(feeds: Record<string, ort.Tensor>): Promise<unknown> } } }
    ).sessions.model;
    const run = session.run.bind(session);
    const calls: Call[] = [];
    session.run = (feeds) => {
      calls.push({
        ids: feeds.input_ids.dims.map(Number),
        past: feeds['past_key_values.0.key'].dims.map(Number),
        positions: Array.from(feeds.position_ids.data as BigInt64Array, Number),
      });
      return run(feeds);
    };
    return { rt, tokenizer, model, calls };
  }

  it('generate: one prefill run over the chat-templated prompt on the empty cache, then one run per token with one new id on the grown cache', async () => {
    const { rt, tokenizer, model, calls } = await load();
    const encoded = tokenizer.apply_chat_template([{ role: 'user', content: '東京へ行く' }], {
      add_generation_prompt: true,
      return_dict: true,
    }) as unknown as {
      input_ids: InstanceType<Runtime['Tensor']>;
      attention_mask: InstanceType<Runtime['Tensor']>;
    };
    const prompt = Number(encoded.input_ids.dims[1]);
    const runsAtToken: number[] = [];
    // The generation run times TTFT and decode speed from these callbacks (workers/engines/transformers-generate.ts).
    const streamer = new rt.TextStreamer(tokenizer, {
      skip_prompt: true,
      callback_function: () => {},
      token_callback_function: () => runsAtToken.push(calls.length),
    });
    const output = (await model.generate({
      ...encoded,
      max_new_tokens: 6,
      do_sample: false,
      streamer,
    } as never)) as InstanceType<Runtime['Tensor']>;
    const generated = Number(output.dims[1]) - prompt;
    expect(generated).toBeGreaterThan(1);
    // Token k arrives right after session run k: the first after the prefill, every later one after one decode step.
    expect(runsAtToken).toEqual(Array.from({ length: generated }, (_, k) => k + 1));
    expect(calls[0]).toEqual({
      ids: [1, prompt],
      past: [1, QWEN3_SHAPE.kvHeads, 0, QWEN3_SHAPE.headDim],
      positions: Array.from({ length: prompt }, (_, i) => i),
    });
    for (let k = 1; k < calls.length; k++) {
      expect(calls[k]).toEqual({
        ids: [1, 1],
        past: [1, QWEN3_SHAPE.kvHeads, prompt + k - 1, QWEN3_SHAPE.headDim],
        positions: [prompt + k - 1],
      });
    }
    await model.dispose();
  });

  it("score-candidates: a plain forward call gets position_ids and the empty cache built from the graph's input shapes", async () => {
    const { rt, model, calls } = await load();
    const dims = [2, 5];
    const ids = new rt.Tensor('int64', BigInt64Array.from([5n, 6n, 7n, 8n, 9n, 5n, 6n, 7n, 0n, 0n]), dims);
    const mask = new rt.Tensor('int64', BigInt64Array.from([1n, 1n, 1n, 1n, 1n, 1n, 1n, 1n, 0n, 0n]), dims);
    const { logits } = (await model({ input_ids: ids, attention_mask: mask })) as {
      logits: InstanceType<Runtime['Tensor']>;
    };
    expect(logits.dims.slice(0, 2)).toEqual(dims);
    // Right padding keeps each row's positions 0, 1, 2, ...; padded positions get 1 (transformers.js's rule).
    expect(calls).toEqual([
      { ids: dims, past: [2, QWEN3_SHAPE.kvHeads, 0, QWEN3_SHAPE.headDim], positions: [0, 1, 2, 3, 4, 0, 1, 2, 1, 1] },
    ]);
    await model.dispose();
  });
});
