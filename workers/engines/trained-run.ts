/**
 * One inference of a catalog model with trained weights on its fixed input, with the correctness check the input
 * declares (src/core/catalog/trained-inputs.ts):
 *
 * - PP-OCRv4 recognition: every text line in one batch (`[lines, 3, 48, width]`), one session run; the softmax output
 *   `[lines, steps, 6625]` is CTC-decoded against the model's dictionary (a file of the catalog entry) and each line
 *   compared with its expected string. The values a comparison judges are the decoded class of every step (two
 *   routes agree when every step picks the same character).
 * - Silero VAD v5: one session run per 512-sample frame (with the 64 samples before it), the recurrent state carried
 *   from run to run as silero-vad's own wrapper does, sample rate 16 kHz; the per-frame speech probabilities are the
 *   output, checked against the declared speech and silence frames. `durationMs` covers every frame's run.
 *
 * The timed window holds the session runs alone; decoding, the check and the digest come after it.
 */
import {
  ctcDecode,
  ocrCheck,
  ocrClasses,
  ocrTensorData,
  vadCheck,
  vadFrames,
  type TrainedInput,
} from '../../src/core/catalog/trained-inputs.ts';
import { sha256Hex } from '../../src/core/bytes/sha256.ts';
import type { RunResult } from '../../src/worker-api/worker-messages.ts';

const OUTPUT_HEAD_LENGTH = 16;

/** A runtime tensor as this module reads it. */
interface TensorLike {
  data: unknown;
  dims: readonly number[];
}

/** The session calls this module needs (onnxruntime-web's, wrapped by the engine). */
export interface TrainedSession {
  run(feeds: Record<string, unknown>): Promise<Record<string, TensorLike>>;
  tensor(type: 'float32' | 'int64', data: Float32Array | BigInt64Array, dims: number[]): unknown;
  outputNames: readonly string[];
}

/** The prepared input of one trained model: built once per input, so warm samples time the runs alone. */
export type TrainedFeeds =
  | { kind: 'ocr'; input: Extract<TrainedInput, { schema: 'drb.ocr-lines-input.v1' }>; x: unknown; classes: string[] }
  | {
      kind: 'vad';
      input: Extract<TrainedInput, { schema: 'drb.vad-audio-input.v1' }>;
      frames: unknown[];
      state: Float32Array;
      sr: unknown;
    };

/**
 * Builds the tensors for `input` (and reads the OCR dictionary from the model's files).
 * @param session the session
 * @param input the parsed artifact
 * @param files the model's files other than its graph, by catalog path
 */
export function trainedFeeds(
  session: TrainedSession,
  input: TrainedInput,
  files: ReadonlyMap<string, Uint8Array>,
): TrainedFeeds {
  if (input.schema === 'drb.ocr-lines-input.v1') {
    const dictionary = [...files].find(([path]) => path.endsWith('.txt'));
    if (!dictionary) throw new Error('the OCR model lists no dictionary (.txt) file');
    const { data, dims } = ocrTensorData(input);
    return {
      kind: 'ocr',
      input,
      x: session.tensor('float32', data, [...dims]),
      classes: ocrClasses(new TextDecoder('utf-8', { fatal: true }).decode(dictionary[1])),
    };
  }
  const frames = vadFrames(input).map((frame) => session.tensor('float32', frame, [1, frame.length]));
  return {
    kind: 'vad',
    input,
    frames,
    state: new Float32Array(2 * 128),
    sr: session.tensor('int64', BigInt64Array.from([BigInt(input.sample_rate)]), []),
  };
}

/**
 * One timed inference and its check.
 * @param session the session
 * @param feeds `trainedFeeds`' result
 * @param digest whether to digest the output
 */
export async function trainedRun(session: TrainedSession, feeds: TrainedFeeds, digest: boolean): Promise<RunResult> {
  if (feeds.kind === 'ocr') {
    const started = performance.now();
    const results = await session.run({ [firstInputName(feeds)]: feeds.x });
    const durationMs = performance.now() - started;
    const name = session.outputNames[0];
    const output = results[name];
    const probs = output.data as Float32Array;
    const decoded = ctcDecode(probs, output.dims, feeds.classes);
    const check = ocrCheck(decoded, feeds.input.expected);
    const [lines, steps, width] = output.dims;
    // Each step's best class: the values two routes must agree on.
    const classes: number[] = [];
    for (let i = 0; i < lines * steps; i++) {
      let best = 0;
      for (let k = 1; k < width; k++) if (probs[i * width + k] > probs[i * width + best]) best = k;
      classes.push(best);
    }
    return {
      durationMs,
      output: digest
        ? {
            name,
            dims: [...output.dims],
            head: Array.from(probs.subarray(0, OUTPUT_HEAD_LENGTH)),
            sha256: await sha256Hex(new Uint8Array(probs.buffer, probs.byteOffset, probs.byteLength)),
          }
        : null,
      values: classes,
      check,
    };
  }
  const scores = new Float32Array(feeds.frames.length);
  let state: unknown = session.tensor('float32', feeds.state, [2, 1, 128]);
  const started = performance.now();
  for (let f = 0; f < feeds.frames.length; f++) {
    const out = await session.run({ input: feeds.frames[f], state, sr: feeds.sr });
    state = out.stateN;
    scores[f] = (out.output.data as Float32Array)[0];
  }
  const durationMs = performance.now() - started;
  const values = Array.from(scores);
  return {
    durationMs,
    output: digest
      ? {
          name: 'speech_probability',
          dims: [scores.length],
          head: values.slice(0, OUTPUT_HEAD_LENGTH),
          sha256: await sha256Hex(new Uint8Array(scores.buffer)),
        }
      : null,
    values,
    check: vadCheck(values, feeds.input),
  };
}

/** PP-OCRv4 recognition's one input is named `x`. */
function firstInputName(_feeds: TrainedFeeds): string {
  return 'x';
}
