/**
 * The fixed inputs of the catalog's models with trained weights, and the rules that judge their outputs: text-line
 * images for PP-OCRv4 recognition (`drb.ocr-lines-input.v1`) and an audio clip for Silero VAD v5
 * (`drb.vad-audio-input.v1`). Each artifact carries its data as base64 bytes and declares its own check: the strings
 * the lines must decode to, the frames that are speech and silence and their thresholds. Only the verdict and its
 * numbers reach a receipt (src/core/receipt/output-check.ts), never the text.
 *
 * Pure: the worker builds tensors from these, the tests decode recorded outputs with them.
 */
import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';
import type { OutputCheck } from './output-check.ts';
import { CatalogError } from './catalog.ts';
import { firstIssueLine } from '../text/zod-issues.ts';

export const OCR_LINES_SCHEMA = 'drb.ocr-lines-input.v1';
export const VAD_AUDIO_SCHEMA = 'drb.vad-audio-input.v1';

const Id = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,79}$/, 'expected lowercase letters, digits, ".", "_" or "-"');
const Base64 = z
  .string()
  .max(8 * 1024 * 1024)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'expected base64');

/**
 * Text-line images, rendered once (scripts/render-ocr-lines.ts) and stored as 8-bit grey pixels in one
 * `[lines, height, width]` block, row-major, each line `widths[i]` pixels wide from the left. The model sees three
 * equal channels normalised the PaddleOCR way, `(value / 255 - 0.5) / 0.5`, as `[lines, 3, height, width]` float32,
 * each line padded right of its width with 0 after normalisation, as PaddleOCR's batching pads (padding with white
 * instead made the model read a trailing space after "Hello World 2024", at a confidence of 0.53).
 */
export const OcrLinesInput = z
  .strictObject({
    schema: z.literal(OCR_LINES_SCHEMA),
    id: Id,
    height: z.number().int().positive().max(256),
    width: z.number().int().positive().max(4096),
    /** Each line's own width (pixels from the left; the rest of the row is padding). */
    widths: z.array(z.number().int().positive()).min(1).max(16),
    /** The strings the lines must decode to (CTC greedy decoding against the model's dictionary), in line order. */
    expected: z
      .array(detailText(256).pipe(z.string().min(1)))
      .min(1)
      .max(16),
    /** `[lines, height, width]` grey bytes, base64. */
    pixels_base64: Base64,
    /** How the lines were rendered (font, size, browser), for whoever renders them again. */
    rendering: detailText(1024),
  })
  .superRefine((input, ctx) => {
    const expected = input.expected.length * input.height * input.width;
    const bytes = base64ByteLength(input.pixels_base64);
    if (bytes !== expected)
      ctx.addIssue({
        code: 'custom',
        path: ['pixels_base64'],
        message: `holds ${bytes} bytes, ${input.expected.length} x ${input.height} x ${input.width} = ${expected} expected`,
      });
    if (input.widths.length !== input.expected.length || input.widths.some((w) => w > input.width)) {
      ctx.addIssue({
        code: 'custom',
        path: ['widths'],
        message: `must give each of the ${input.expected.length} lines a width of at most ${input.width}`,
      });
    }
  });
export type OcrLinesInput = z.infer<typeof OcrLinesInput>;

/**
 * A mono 16-bit PCM clip at 16 kHz, cut into the model's 512-sample frames (each fed with the 64 samples before it,
 * as silero-vad's own wrapper does, and the recurrent state carried from frame to frame). The check: every frame in
 * `speech_frames` scores at least `speech_threshold`, every frame in `silence_frames` at most `silence_threshold`.
 */
export const VadAudioInput = z
  .strictObject({
    schema: z.literal(VAD_AUDIO_SCHEMA),
    id: Id,
    sample_rate: z.literal(16000),
    frame_samples: z.literal(512),
    context_samples: z.literal(64),
    /** Little-endian int16 samples, base64. */
    pcm16_base64: Base64,
    samples: z
      .number()
      .int()
      .positive()
      .max(16000 * 60),
    /** Frame index ranges `[first, last]`, inclusive. */
    speech_frames: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]),
    silence_frames: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]),
    speech_threshold: z.number().min(0).max(1),
    silence_threshold: z.number().min(0).max(1),
    /** How the clip was made (its generator and seed). */
    synthesis: detailText(1024),
  })
  .superRefine((input, ctx) => {
    const bytes = base64ByteLength(input.pcm16_base64);
    if (bytes !== input.samples * 2)
      ctx.addIssue({
        code: 'custom',
        path: ['pcm16_base64'],
        message: `holds ${bytes} bytes, ${input.samples} samples need ${input.samples * 2}`,
      });
    const frames = Math.floor(input.samples / input.frame_samples);
    for (const key of ['speech_frames', 'silence_frames'] as const) {
      const [first, last] = input[key];
      if (first > last || last >= frames)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `must be [first, last] within the clip's ${frames} frames`,
        });
    }
    if (input.silence_threshold >= input.speech_threshold)
      ctx.addIssue({ code: 'custom', path: ['silence_threshold'], message: 'must be below speech_threshold' });
  });
export type VadAudioInput = z.infer<typeof VadAudioInput>;

/** Bytes a base64 string decodes to (its padding counted). */
function base64ByteLength(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

/**
 * Decodes base64 (no whitespace) into bytes; pure (no `atob`, which core does not have).
 * @param text base64 text
 */
export function base64Bytes(text: string): Uint8Array {
  if (text.length % 4 !== 0) throw new CatalogError('base64 text length is not a multiple of 4');
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const lookup = new Int16Array(128).fill(-1);
  for (let i = 0; i < alphabet.length; i++) lookup[alphabet.charCodeAt(i)] = i;
  const out = new Uint8Array(base64ByteLength(text));
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const v = [0, 1, 2, 3].map((k) => (text[i + k] === '=' ? 0 : (lookup[text.charCodeAt(i + k)] ?? -1)));
    if (v.some((x) => x < 0)) throw new CatalogError(`base64 text holds a character outside the alphabet near ${i}`);
    const n = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    if (o < out.length) out[o++] = (n >> 16) & 255;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}

/**
 * Encodes bytes as base64 (the fixture generator and the renderer write artifacts with it).
 * @param bytes the bytes
 */
export function base64Text(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += alphabet[(n >> 18) & 63] + alphabet[(n >> 12) & 63];
    out += i + 1 < bytes.length ? alphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.length ? alphabet[n & 63] : '=';
  }
  return out;
}

/**
 * The model's input tensor data for the OCR lines: `[lines, 3, height, width]` float32, PaddleOCR's normalisation.
 * @param input the parsed artifact
 */
export function ocrTensorData(input: OcrLinesInput): { data: Float32Array; dims: [number, number, number, number] } {
  const pixels = base64Bytes(input.pixels_base64);
  const { height, width } = input;
  const lines = input.expected.length;
  const plane = height * width;
  const data = new Float32Array(lines * 3 * plane);
  for (let l = 0; l < lines; l++) {
    for (let i = 0; i < plane; i++) {
      // Right of the line's own width: 0 (mid grey after normalisation), PaddleOCR's padding.
      const v = i % width < input.widths[l] ? (pixels[l * plane + i] / 255 - 0.5) / 0.5 : 0;
      for (let c = 0; c < 3; c++) data[(l * 3 + c) * plane + i] = v;
    }
  }
  return { data, dims: [lines, 3, height, width] };
}

/**
 * The recognition dictionary as the model's classes: class 0 is the CTC blank, class k the dictionary's line k - 1,
 * and the last class a space (PaddleOCR's `use_space_char`).
 * @param text the dictionary file (one character per line)
 */
export function ocrClasses(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return ['', ...lines.map((l) => l.replace(/\r$/, '')), ' '];
}

/** One decoded line: its text and the lowest probability of a kept step. */
export interface DecodedLine {
  text: string;
  minConfidence: number;
}

/**
 * Greedy CTC decoding of the model's `[lines, steps, classes]` probabilities: the best class per step, repeats
 * merged, blanks dropped.
 * @param probs the output's data
 * @param dims its dims
 * @param classes `ocrClasses` of the dictionary
 */
export function ctcDecode(
  probs: ArrayLike<number>,
  dims: readonly number[],
  classes: readonly string[],
): DecodedLine[] {
  const [lines, steps, width] = dims;
  if (width !== classes.length)
    throw new Error(`the model has ${width} classes, the dictionary gives ${classes.length}`);
  const result: DecodedLine[] = [];
  for (let l = 0; l < lines; l++) {
    let text = '';
    let previous = -1;
    let minConfidence = 1;
    for (let t = 0; t < steps; t++) {
      const base = (l * steps + t) * width;
      let best = 0;
      let bestValue = -Infinity;
      for (let k = 0; k < width; k++) {
        const v = probs[base + k];
        if (v > bestValue) {
          bestValue = v;
          best = k;
        }
      }
      if (best !== 0 && best !== previous) {
        text += classes[best];
        minConfidence = Math.min(minConfidence, bestValue);
      }
      previous = best;
    }
    result.push({ text, minConfidence });
  }
  return result;
}

/** Levenshtein distance over code points (small strings: a line of text). */
function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    for (let j = 1; j <= y.length; j++)
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    row = next;
  }
  return row[y.length];
}

/**
 * The OCR check: each decoded line equals its expected string exactly.
 * @param decoded the decoded lines
 * @param expected the artifact's expected strings
 */
export function ocrCheck(decoded: readonly DecodedLine[], expected: readonly string[]): OutputCheck {
  const exact = expected.filter((e, i) => decoded[i]?.text === e).length;
  const distance = expected.reduce((sum, e, i) => sum + editDistance(decoded[i]?.text ?? '', e), 0);
  const minConfidence = decoded.reduce((m, d) => Math.min(m, d.minConfidence), 1);
  return {
    kind: 'ocr-exact-text',
    passed: exact === expected.length && decoded.length === expected.length,
    cases: expected.length,
    cases_passed: exact,
    values: [
      { name: 'edit_distance', value: distance },
      { name: 'min_confidence', value: minConfidence },
    ],
  };
}

/**
 * The clip's frames as the model takes them: each 512-sample frame preceded by the 64 samples before it (zeros
 * before the first), as float32 in [-1, 1).
 * @param input the parsed artifact
 */
export function vadFrames(input: VadAudioInput): Float32Array[] {
  const bytes = base64Bytes(input.pcm16_base64);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const samples = new Float32Array(input.samples);
  for (let i = 0; i < input.samples; i++) samples[i] = view.getInt16(i * 2, true) / 32768;
  const frames: Float32Array[] = [];
  const { frame_samples: size, context_samples: context } = input;
  for (let start = 0; start + size <= samples.length; start += size) {
    const frame = new Float32Array(context + size);
    frame.set(samples.subarray(Math.max(0, start - context), start), context - Math.min(context, start));
    frame.set(samples.subarray(start, start + size), context);
    frames.push(frame);
  }
  return frames;
}

/**
 * The VAD check: speech frames at or above the speech threshold, silence frames at or below the silence threshold.
 * @param scores one score per frame
 * @param input the parsed artifact
 */
export function vadCheck(scores: readonly number[], input: VadAudioInput): OutputCheck {
  const speech = scores.slice(input.speech_frames[0], input.speech_frames[1] + 1);
  const silence = scores.slice(input.silence_frames[0], input.silence_frames[1] + 1);
  const passed =
    speech.filter((s) => s >= input.speech_threshold).length +
    silence.filter((s) => s <= input.silence_threshold).length;
  const cases =
    input.speech_frames[1] - input.speech_frames[0] + 1 + input.silence_frames[1] - input.silence_frames[0] + 1;
  return {
    kind: 'vad-threshold',
    passed: passed === cases && speech.length + silence.length === cases,
    cases,
    cases_passed: passed,
    values: [
      { name: 'speech_threshold', value: input.speech_threshold },
      { name: 'silence_threshold', value: input.silence_threshold },
      { name: 'min_speech_score', value: speech.length > 0 ? Math.min(...speech) : 0 },
      { name: 'max_silence_score', value: silence.length > 0 ? Math.max(...silence) : 1 },
    ],
  };
}

/** Any catalog input artifact: token ids, OCR lines or a VAD clip. */
export type TrainedInput = OcrLinesInput | VadAudioInput;

/**
 * Parses an OCR or VAD artifact by its `schema`, throwing a CatalogError naming `fileName` and the field.
 * @param value the parsed JSON
 * @param fileName how to name the file in errors
 */
export function parseTrainedInput(value: unknown, fileName: string): TrainedInput {
  const schema = (value as { schema?: unknown } | null)?.schema;
  const parsed = schema === VAD_AUDIO_SCHEMA ? VadAudioInput.safeParse(value) : OcrLinesInput.safeParse(value);
  if (!parsed.success) throw new CatalogError(`${fileName}: ${firstIssueLine(parsed.error)}`);
  return parsed.data;
}

/** Whether a parsed JSON value names one of these schemas. */
export function isTrainedInput(value: unknown): boolean {
  const schema = (value as { schema?: unknown } | null)?.schema;
  return schema === OCR_LINES_SCHEMA || schema === VAD_AUDIO_SCHEMA;
}
