/**
 * The catalog's models with trained weights (PP-OCRv4 recognition, Silero VAD v5) and their fixed inputs, in
 * onnxruntime-web's WebAssembly backend in Node, through the worker's own run code (workers/engines/trained-run.ts):
 * the catalog pins the packages' bytes, every shipped text line decodes to exactly its expected string, the clip's
 * speech frames score above and its silence frames below their thresholds, and a wrong expectation fails the check.
 * The artifact readers are tested against hostile edits.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/core/catalog/catalog.ts';
import {
  base64Bytes,
  base64Text,
  ocrCheck,
  parseTrainedInput,
  vadCheck,
  type OcrLinesInput,
  type VadAudioInput,
} from '../../src/core/catalog/trained-inputs.ts';
import { packageModelFiles } from '../../src/node/package-models-plugin.ts';
import { buildVadClip } from '../../src/fixtures/vad-clip.ts';
import { trainedFeeds, trainedRun, type TrainedSession } from '../../workers/engines/trained-run.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
ort.env.wasm.numThreads = 1;

const catalog = parseCatalog(JSON.parse(readFileSync(`${root}src/catalog/catalog.json`, 'utf8')), 'catalog.json');
const model = (id: string) => catalog.models.find((m) => m.id === id)!;
const input = (id: string) =>
  JSON.parse(readFileSync(`${root}public/${catalog.inputs.find((i) => i.id === id)!.path}`, 'utf8')) as unknown;
const packageFile = (id: string, path: string) =>
  new Uint8Array(
    readFileSync(`${root}node_modules/${(model(id).source as { package: { name: string } }).package.name}/${path}`),
  );

async function session(bytes: Uint8Array): Promise<TrainedSession> {
  const s = await ort.InferenceSession.create(bytes);
  return {
    run: (feeds) =>
      s.run(feeds as Record<string, ort.Tensor>) as Promise<Record<string, { data: unknown; dims: readonly number[] }>>,
    tensor: (type, data, dims) => new ort.Tensor(type, data, dims),
    outputNames: s.outputNames,
  };
}

describe('trained models in the catalog', () => {
  it("pins the packages' own bytes, names both licences, and runs on the page's fixed inputs", () => {
    const files = packageModelFiles(root, catalog);
    expect(files.map((f) => f.urlPath)).toEqual([
      'models/ppocrv4-rec/assets/ch_PP-OCRv4_rec_infer.onnx',
      'models/ppocrv4-rec/assets/ppocr_keys_v1.txt',
      'models/silero-vad-v5/dist/silero_vad_v5.onnx',
    ]);
    expect(model('ppocrv4-rec').licence).toMatch(/Apache-2\.0.*PaddleOCR.*MIT/);
    expect(model('silero-vad-v5').licence).toMatch(/MIT.*silero-vad.*ISC/);
    for (const id of ['ppocrv4-rec', 'silero-vad-v5']) {
      expect(model(id).kind).toBe('real');
      expect(model(id).files.every((f) => f.bytes !== null && f.sha256 !== null)).toBe(true);
    }
    const edited = structuredClone(catalog);
    edited.models.find((m) => m.id === 'silero-vad-v5')!.files[0].sha256 = '0'.repeat(64);
    expect(() => packageModelFiles(root, edited)).toThrow(
      /silero-vad-v5: dist\/silero_vad_v5\.onnx has 2327524 bytes and SHA-256 2623a295.*the catalog pins/,
    );
  });

  it('PP-OCRv4 decodes every shipped line to exactly its expected string', async () => {
    const lines = parseTrainedInput(input('ocr-lines-3x48'), 'ocr') as OcrLinesInput;
    const s = await session(packageFile('ppocrv4-rec', 'assets/ch_PP-OCRv4_rec_infer.onnx'));
    const feeds = trainedFeeds(
      s,
      lines,
      new Map([['assets/ppocr_keys_v1.txt', packageFile('ppocrv4-rec', 'assets/ppocr_keys_v1.txt')]]),
    );
    const result = await trainedRun(s, feeds, true);
    expect(result.check).toMatchObject({ kind: 'ocr-exact-text', passed: true, cases: 3, cases_passed: 3 });
    expect(result.check!.values.find((v) => v.name === 'edit_distance')!.value).toBe(0);
    expect(result.check!.values.find((v) => v.name === 'min_confidence')!.value).toBeGreaterThan(0.9);
    expect(result.output).toMatchObject({ name: 'softmax_11.tmp_0', dims: [3, 23, 6625] });
    expect(result.values).toHaveLength(3 * 23);
    // Held to another string, the same kind of decoding fails, with the distance.
    const decoded = lines.expected.map((text) => ({ text, minConfidence: 0.99 }));
    expect(ocrCheck(decoded, ['Hello 2025', ...lines.expected.slice(1)])).toMatchObject({
      passed: false,
      cases_passed: 2,
      values: [{ name: 'edit_distance', value: 1 }, expect.anything()],
    });
    expect(ocrCheck(decoded.slice(1), lines.expected)).toMatchObject({ passed: false, cases_passed: 0 });
  });

  it('Silero VAD v5 scores the speech frames above and the silence frames below their thresholds', async () => {
    const clip = parseTrainedInput(input('vad-speech-silence-16k'), 'vad') as VadAudioInput;
    expect(clip).toEqual(buildVadClip());
    const s = await session(packageFile('silero-vad-v5', 'dist/silero_vad_v5.onnx'));
    const result = await trainedRun(s, trainedFeeds(s, clip, new Map()), true);
    expect(result.values).toHaveLength(46);
    expect(result.check).toMatchObject({ kind: 'vad-threshold', passed: true, cases: 28 + 9, cases_passed: 37 });
    const value = (name: string) => result.check!.values.find((v) => v.name === name)!.value;
    expect(value('min_speech_score')).toBeGreaterThan(0.5);
    expect(value('max_silence_score')).toBeLessThan(0.1);
    // Held to a silence threshold its silence does not meet, the same scores fail.
    expect(vadCheck(result.values!, { ...clip, silence_threshold: 0, silence_frames: [30, 45] }).passed).toBe(false);
  });
});

describe('trained input artifacts are read as hostile', () => {
  const ocr = input('ocr-lines-3x48') as Record<string, unknown>;
  const vad = input('vad-speech-silence-16k') as Record<string, unknown>;
  it.each([
    [
      'pixels cut short',
      { ...ocr, pixels_base64: (ocr.pixels_base64 as string).slice(0, 400) },
      /ocr: pixels_base64: holds 300 bytes, 3 x 48 x 181 = 26064 expected/,
    ],
    ['a non-base64 character', { ...ocr, pixels_base64: '@@@@' }, /ocr: pixels_base64: expected base64/],
    [
      'a line wider than the block',
      { ...ocr, widths: [181, 182, 100] },
      /ocr: widths: must give each of the 3 lines a width of at most 181/,
    ],
    ['an unknown field', { ...ocr, script: '<img onerror=alert(1)>' }, /ocr: .*script/],
    [
      'an expected string with a terminal escape',
      { ...ocr, expected: ['\u001b[2J'] },
      /ocr: expected\[0\]: holds a control/,
    ],
    [
      'frames outside the clip',
      { ...vad, silence_frames: [52, 640] },
      /vad: silence_frames: must be \[first, last\] within the clip's 46 frames/,
    ],
    [
      'thresholds the wrong way round',
      { ...vad, silence_threshold: 0.9 },
      /vad: silence_threshold: must be below speech_threshold/,
    ],
    [
      'a sample count the data does not hold',
      { ...vad, samples: 1 },
      /vad: pcm16_base64: holds 48000 bytes, 1 samples need 2/,
    ],
  ])('refuses %s with one line naming the field', (_name, value, message) => {
    expect(() =>
      parseTrainedInput(value, (value as unknown as { schema: string }).schema.includes('ocr') ? 'ocr' : 'vad'),
    ).toThrow(message);
  });

  it('round-trips base64 of every length and refuses a broken one', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 255]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37) & 255);
      expect(base64Bytes(base64Text(bytes))).toEqual(bytes);
      expect(base64Text(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    }
    expect(() => base64Bytes('abc')).toThrow(/multiple of 4/);
    expect(() => base64Bytes('ab!=')).toThrow(/outside the alphabet/);
  });
});
