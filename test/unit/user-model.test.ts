/**
 * A user's own model: recognising what was picked (one graph, or a transformers.js folder), and building a bare
 * graph's inputs from its input metadata, checked against real graphs in onnxruntime-web (wasm): every fixture's
 * inputs are built and the graph runs; an input whose meaning or size cannot be told is refused with one line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import {
  buildInputValues,
  MAX_INPUT_VALUES,
  planInputs,
  type GraphInputMetadata,
} from '../../src/core/user-model/synthesized-inputs.ts';
import { recogniseUserModel, userModelTasks } from '../../src/core/user-model/user-model-files.ts';
import { DT, OnnxGraph } from '../../src/fixtures/onnx-graph.ts';
import { createHash } from 'node:crypto';
import { modelFileUrl, parseCatalog } from '../../src/core/catalog/catalog.ts';
import {
  builtInInputBytes,
  runnableFiles,
  synthesizedInput,
  synthesizedInputRecipeBytes,
  USER_FILE_URL,
  USER_MODEL_ID,
  USER_RERANK_PROBE,
  userCatalogModel,
} from '../../src/core/user-model/user-run.ts';
import { ScoringInput } from '../../src/core/suite/engine-inputs.ts';
import { filesForDtype } from '../../src/core/catalog/transformers-dtype.ts';
import type { FetchProgress } from '../../src/worker-api/worker-messages.ts';
import { readUserFiles } from '../../workers/model-fetch.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
ort.env.wasm.numThreads = 1;

describe('recogniseUserModel', () => {
  it('one .onnx file (with its external data) is a graph for the ORT engine', () => {
    expect(recogniseUserModel([{ path: 'my-model.onnx', bytes: 10 }])).toEqual({
      kind: 'onnx',
      files: [{ index: 0, path: 'my-model.onnx', role: 'onnx-graph' }],
    });
    const withData = recogniseUserModel([
      { path: 'export/model.onnx', bytes: 10 },
      { path: 'export/model.onnx_data', bytes: 99 },
    ]);
    expect(withData).toMatchObject({
      kind: 'onnx',
      files: [
        { path: 'model.onnx', role: 'onnx-graph' },
        { path: 'model.onnx_data', role: 'onnx-external-data' },
      ],
    });
  });

  it("a folder with config, tokenizer files and onnx/model*.onnx is a transformers.js model; the picked folder's own name is dropped", () => {
    const model = recogniseUserModel([
      { path: 'My Secret Project/config.json', bytes: 1 },
      { path: 'My Secret Project/tokenizer.json', bytes: 1 },
      { path: 'My Secret Project/tokenizer_config.json', bytes: 1 },
      { path: 'My Secret Project/onnx/model_q4.onnx', bytes: 1 },
      { path: 'My Secret Project/onnx/model_q4.onnx_data', bytes: 1 },
      { path: 'My Secret Project/onnx/model.onnx', bytes: 1 },
      { path: 'My Secret Project/README.md', bytes: 1 },
    ]);
    expect(model).toMatchObject({ kind: 'transformers', dtypes: ['fp32', 'q4'] });
    expect(JSON.stringify(model)).not.toContain('Secret');
    expect((model as { files: Array<{ role: string }> }).files.map((f) => f.role)).toEqual([
      'config',
      'tokenizer',
      'tokenizer-config',
      'onnx-graph',
      'onnx-external-data',
      'onnx-graph',
      'other',
    ]);
  });

  it.each([
    [[], 'no file was picked'],
    [
      [
        { path: 'a.onnx', bytes: 1 },
        { path: 'b.onnx', bytes: 1 },
      ],
      '2 .onnx files were picked',
    ],
    [[{ path: 'notes.txt', bytes: 1 }], 'no .onnx file was picked'],
    [
      [
        { path: 'm/model.onnx', bytes: 1 },
        { path: 'm/vocab.txt', bytes: 1 },
      ],
      'besides the .onnx graph and its external data, 1 other file(s) were picked',
    ],
    [
      [
        { path: 'm/config.json', bytes: 1 },
        { path: 'm/onnx/model.onnx', bytes: 1 },
      ],
      'no tokenizer.json',
    ],
    [
      [
        { path: 'config.json', bytes: 1 },
        { path: 'tokenizer.json', bytes: 1 },
        { path: 'tokenizer_config.json', bytes: 1 },
        { path: 'onnx/decoder_model_merged.onnx', bytes: 1 },
      ],
      'outside onnx/model{_dtype}.onnx',
    ],
    [
      [
        { path: 'config.json', bytes: 1 },
        { path: 'tokenizer.json', bytes: 1 },
        { path: 'tokenizer_config.json', bytes: 1 },
      ],
      'no onnx/model*.onnx graph',
    ],
    [[{ path: '../escape.onnx', bytes: 1 }], 'not inside the picked folder'],
  ])('%j is refused: %s', (picked, problem) => {
    const result = recogniseUserModel(picked);
    expect('problem' in result && result.problem).toContain(problem);
  });

  it("tells the task from config.json's architectures, refusing anything else", () => {
    expect(userModelTasks({ architectures: ['XLMRobertaForSequenceClassification'] })).toEqual({ tasks: ['rerank'] });
    expect(userModelTasks({ architectures: ['Qwen3ForCausalLM'] })).toEqual({
      tasks: ['generate', 'score-candidates'],
    });
    expect(userModelTasks({})).toEqual({ problem: 'config.json names no architectures, so the task cannot be told' });
    expect(userModelTasks({ architectures: ['WhisperForConditionalGeneration\u001b[2J'] })).toMatchObject({
      problem: expect.stringContaining('"WhisperForConditionalGeneration\\u001b[2J"'),
    });
  });
});

async function metadataOf(
  bytes: Uint8Array,
  externalData?: Array<{ path: string; data: Uint8Array }>,
): Promise<{ session: ort.InferenceSession; metadata: GraphInputMetadata[] }> {
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], externalData });
  return {
    session,
    metadata: session.inputMetadata.map((m) =>
      m.isTensor ? { name: m.name, isTensor: true, type: m.type, shape: m.shape } : { name: m.name, isTensor: false },
    ),
  };
}

describe("inputs built from a graph's input metadata, run in onnxruntime-web", () => {
  it.each([
    ['ort-tiny-xenc', 'models/ort-tiny-xenc/model.onnx'],
    ['Qwen3-shaped q4 (position ids and an empty KV cache)', 'models/tfjs-tiny-qwen3/onnx/model_q4.onnx'],
    ['XLM-RoBERTa-shaped fp16', 'models/tfjs-tiny-xlmr-reranker/onnx/model_fp16.onnx'],
  ])('%s: every input is built and the graph runs', async (_name, file) => {
    const { session, metadata } = await metadataOf(new Uint8Array(readFileSync(join(root, 'public', file))));
    const plan = planInputs(metadata, { batch: 2, sequence: 16 });
    expect(plan.ok ? [] : plan.problems).toEqual([]);
    if (!plan.ok) return;
    const values = buildInputValues(plan.inputs, 7);
    const feeds = Object.fromEntries(
      plan.inputs.map((input) => [input.name, new ort.Tensor(input.type, values.get(input.name)!, input.dims)]),
    );
    const out = await session.run(feeds);
    expect(Object.keys(out).length).toBeGreaterThan(0);
    await session.release();
  });

  it('the LFM2-shaped graph: a convolution cache has fixed sizes (zeros), the attention cache starts empty', async () => {
    const dir = join(root, 'public/models/tfjs-tiny-lfm2/onnx');
    const { session, metadata } = await metadataOf(new Uint8Array(readFileSync(join(dir, 'model.onnx'))), [
      { path: 'model.onnx_data', data: new Uint8Array(readFileSync(join(dir, 'model.onnx_data'))) },
    ]);
    const plan = planInputs(metadata, { batch: 1, sequence: 8 });
    expect(plan.ok && plan.inputs.map((i) => [i.name, i.dims, i.fill])).toEqual([
      ['input_ids', [1, 8], 'token-ids'],
      ['attention_mask', [1, 8], 'ones'],
      ['position_ids', [1, 8], 'positions'],
      ['past_conv.0', [1, 32, 3], 'zeros'],
      ['past_key_values.1.key', [1, 2, 0, 8], 'zeros'],
      ['past_key_values.1.value', [1, 2, 0, 8], 'zeros'],
      ['past_conv.2', [1, 32, 3], 'zeros'],
    ]);
    await session.release();
  });

  it('the same plan and seed give the same values; ids stay in 1..99, positions count along the last axis', () => {
    const plan = planInputs(
      [
        { name: 'input_ids', isTensor: true, type: 'int64', shape: ['batch', 'seq'] },
        { name: 'position_ids', isTensor: true, type: 'int32', shape: ['batch', 'seq'] },
        { name: 'features', isTensor: true, type: 'float16', shape: [2, 3] },
      ],
      { batch: 2, sequence: 3 },
    );
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    const a = buildInputValues(plan.inputs, 1);
    const b = buildInputValues(plan.inputs, 1);
    const ids = a.get('input_ids') as BigInt64Array;
    expect([...ids].every((v) => v >= 1n && v <= 99n)).toBe(true);
    expect(Array.from(a.get('position_ids') as Int32Array)).toEqual([0, 1, 2, 0, 1, 2]);
    expect(Array.from(a.get('features') as Uint16Array)).toEqual(Array.from(b.get('features') as Uint16Array));
  });

  it('refuses, one line per input, what it cannot build: unknown meaning, unsizable dimension, no shape, a non-tensor, too large', async () => {
    const g = new OnnxGraph('odd', 'fp32');
    g.input('pixel_values', DT.FLOAT, ['batch', 3, 'height', 'width']);
    g.input('speaker_id', DT.INT64, ['batch']);
    g.op('ReduceSum', ['pixel_values'], 'out', { keepdims: 0 });
    g.op('Identity', ['speaker_id'], 'speaker');
    g.output('out', DT.FLOAT, []);
    g.output('speaker', DT.INT64, ['batch']);
    const { session, metadata } = await metadataOf(g.encode('odd inputs').model);
    await session.release();
    const plan = planInputs(
      [
        ...metadata,
        { name: 'hidden', isTensor: true, type: 'float32', shape: [] },
        { name: 'seq_of_maps', isTensor: false },
        { name: 'huge', isTensor: true, type: 'float32', shape: [4096, 4096, 2] },
        { name: 'flags', isTensor: true, type: 'bool', shape: ['batch'] },
      ],
      { batch: 1, sequence: 8 },
    );
    expect(plan).toEqual({
      ok: false,
      problems: [
        'input "pixel_values" has a dimension "height" this page cannot choose a size for',
        'input "speaker_id" (int64) is not one this page knows how to fill (input_ids, attention_mask, token_type_ids, position_ids, past_*)',
        'input "hidden" declares no shape, so this page cannot size it',
        'input "seq_of_maps" is not a tensor (a sequence or a map): this page builds tensor inputs only',
        `input "huge" would hold ${4096 * 4096 * 2} values; this page builds inputs of at most ${MAX_INPUT_VALUES}`,
        'input "flags" has type bool, which this page cannot build (it builds integer ids and masks, and float tensors)',
      ],
    });
  });
});

describe('a user model as the page runs it', () => {
  it("is catalog-shaped with roles for paths, no pins, and no name of the user's anywhere", () => {
    const picked = recogniseUserModel([
      { path: 'acme-secret/weights.onnx', bytes: 10 },
      { path: 'acme-secret/weights.onnx_data', bytes: 20 },
      { path: 'acme-secret/weights.onnx_data_1', bytes: 30 },
    ]);
    if ('problem' in picked) throw new Error(picked.problem);
    const model = userCatalogModel(picked);
    expect(model).toMatchObject({
      id: USER_MODEL_ID,
      kind: 'user',
      source: { type: 'user-supplied' },
      engine: 'ort',
      task: 'raw',
      dtype: null,
      default_input: null,
    });
    expect(model.files).toEqual([
      { path: 'onnx-graph', bytes: null, sha256: null },
      { path: 'onnx-external-data', bytes: null, sha256: null },
      { path: 'onnx-external-data-2', bytes: null, sha256: null },
    ]);
    expect(JSON.stringify(model)).not.toMatch(/acme|weights/);
    // Never fetched from a URL, and never allowed into a catalog file.
    expect(() => modelFileUrl(model, model.files[0], 'https://example.test/')).toThrow(/user-supplied/);
    const catalog = JSON.parse(readFileSync(new URL('../../src/catalog/catalog.json', import.meta.url), 'utf8'));
    catalog.models.push({ ...model, id: 'sneaked-in' });
    expect(() => parseCatalog(catalog, 'catalog.json')).toThrow(/never "user-supplied"/);
  });

  it('a transformers.js folder keeps its layout paths, leaves files of no role out, and runs its task and dtype', () => {
    const picked = recogniseUserModel([
      { path: 'acme/config.json', bytes: 1 },
      { path: 'acme/tokenizer.json', bytes: 1 },
      { path: 'acme/tokenizer_config.json', bytes: 1 },
      { path: 'acme/onnx/model_q4.onnx', bytes: 1 },
      { path: 'acme/acme-notes.md', bytes: 1 },
    ]);
    if ('problem' in picked) throw new Error(picked.problem);
    expect(runnableFiles(picked).map((f) => f.index)).toEqual([0, 1, 2, 3]);
    const model = userCatalogModel(picked, { task: 'generate', dtype: 'q4' });
    expect(model).toMatchObject({
      engine: 'transformers',
      task: 'generate',
      dtype: 'q4',
      kind: 'user',
      source: { type: 'user-supplied' },
    });
    expect(model.files.map((f) => f.path)).toEqual([
      'config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model_q4.onnx',
    ]);
    expect(JSON.stringify(model)).not.toMatch(/acme/);
  });

  it("a folder with several dtypes: the chosen dtype's graph and its external data are the only graph files a run reads", () => {
    const picked = recogniseUserModel(
      [
        'config.json',
        'generation_config.json',
        'tokenizer.json',
        'tokenizer_config.json',
        'onnx/model.onnx',
        'onnx/model.onnx_data',
        'onnx/model_fp16.onnx',
        'onnx/model_quantized.onnx',
        'onnx/model_q4.onnx',
        'onnx/model_q4.onnx_data',
      ].map((f) => ({ path: `acme-lm/${f}`, bytes: 1 })),
    );
    if ('problem' in picked || picked.kind !== 'transformers') throw new Error('not a folder');
    // Offered in the suffix table's order: fp32 first, the default.
    expect(picked.dtypes).toEqual(['fp32', 'fp16', 'q8', 'q4']);
    const chosen = (dtype: string) =>
      filesForDtype(userCatalogModel(picked, { task: 'generate', dtype }), dtype).map((f) => f.path);
    const common = ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json'];
    expect(chosen('q4')).toEqual([...common, 'onnx/model_q4.onnx', 'onnx/model_q4.onnx_data']);
    expect(chosen('fp32')).toEqual([...common, 'onnx/model.onnx', 'onnx/model.onnx_data']);
    expect(chosen('q8')).toEqual([...common, 'onnx/model_quantized.onnx']);
    expect(userCatalogModel(picked, { task: 'generate', dtype: 'q8' }).dtype).toBe('q8');
  });

  it('the built-in rerank probe: an engine input the transformers engine accepts, named by a versioned id, hashed as its JSON', () => {
    expect(USER_RERANK_PROBE.id).toBe('drb-rerank-probe-v1');
    expect(ScoringInput.safeParse(USER_RERANK_PROBE.data).success).toBe(true);
    expect(USER_RERANK_PROBE.data.candidates.length).toBeGreaterThan(1);
    const bytes = builtInInputBytes(USER_RERANK_PROBE);
    expect(JSON.parse(new TextDecoder().decode(bytes))).toEqual(USER_RERANK_PROBE.data);
    // The hash a receipt records: pinned here, so a changed probe must come with a new id.
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(
      '9b01f8dba108c3bfa310a582407feb86219d791006faf35b78999df8a68e777e',
    );
  });

  it('the synthesized input is named by its sizes, and hashed by its recipe', async () => {
    const input = synthesizedInput({ batch: 2, sequence: 8 }, 7);
    expect(input).toEqual({ kind: 'synthesized', id: 'synthesized-b2-s8', sizes: { batch: 2, sequence: 8 }, seed: 7 });
    expect(new TextDecoder().decode(synthesizedInputRecipeBytes(input))).toBe(
      '{"schema":"drb.synthesized-input.v1","batch":2,"sequence":8,"seed":7}',
    );
  });

  it('its files are read, hashed and recorded under the marker URL, unpinned, with the cache state explained', async () => {
    const picked = recogniseUserModel([{ path: 'secret.onnx', bytes: 3 }]);
    if ('problem' in picked) throw new Error(picked.problem);
    const bytes = new Uint8Array([1, 2, 3]);
    const progress: FetchProgress[] = [];
    const read = await readUserFiles(userCatalogModel(picked), [{ path: 'secret.onnx', blob: new Blob([bytes]) }], {
      onProgress: (p) => progress.push(p),
    });
    expect(read.integrity).toBe('unpinned');
    expect(read.buffers).toEqual([bytes]);
    expect(read.files).toEqual([
      {
        url: USER_FILE_URL,
        bytes: 3,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        expected_bytes: null,
        expected_sha256: null,
        cache_state: 'unknown',
        cache_note: expect.stringContaining('picked on this device'),
      },
    ]);
    expect(progress).toEqual([
      { kind: 'model', path: 'onnx-graph', fileIndex: 0, fileCount: 1, bytesDone: 3, bytesTotal: 3 },
    ]);
    expect(JSON.stringify(read.files)).not.toContain('secret');
    await expect(readUserFiles(userCatalogModel(picked), [], {})).rejects.toThrow(/lists 1 files, 0 were handed over/);
  });
});
