/**
 * Inputs for a model the user brings (a bare `.onnx` file run by the ORT engine), built from the graph's own input
 * metadata (onnxruntime's `session.inputMetadata`: name, element type, shape with numbers or symbolic names), because
 * such a model comes with no fixed input of its own. Only inputs whose meaning is clear from their name and type are
 * built; anything else is refused with a line naming the input and why, never guessed:
 *
 * - `input_ids` (int64/int32): token ids 1..99, the same for every run (the vocabulary is unknown, and most exceed 100);
 * - `attention_mask`: ones; `token_type_ids`: zeros; `position_ids`: 0, 1, 2, ... along the sequence;
 * - `past_*` (a decoder's cache): zeros, with every past-length dimension 0 (the first step), as transformers.js does;
 * - a float32/float16 tensor whose every dimension is known: seeded uniform values in [-1, 1);
 * - symbolic dimensions: a batch dimension (its name says batch) takes `batch`, a sequence dimension (sequence, length,
 *   tokens, total) takes `sequence`, a past dimension takes 0; any other name cannot be sized and is refused.
 *
 * Pure: plain typed arrays out; the worker turns them into runtime tensors.
 */
import { halfBits } from '../bytes/half-precision.ts';
import { mulberry32 } from '../stats/mulberry32.ts';

/** What the runtime says about one graph input (a subset of onnxruntime-common's `InferenceSession.ValueMetadata`). */
export interface GraphInputMetadata {
  name: string;
  isTensor: boolean;
  /** Element type as onnxruntime names it (`int64`, `float32`, ...); absent for non-tensors. */
  type?: string;
  /** Numbers and symbolic names; an empty list when the graph declares no shape. */
  shape?: ReadonlyArray<number | string>;
}

/** How a built input is filled. */
export type InputFill = 'token-ids' | 'ones' | 'zeros' | 'positions' | 'uniform';

/** One input the page will build. */
export interface PlannedInput {
  name: string;
  type: 'int64' | 'int32' | 'float32' | 'float16';
  dims: number[];
  fill: InputFill;
}

/** The sizes chosen for symbolic dimensions. */
export interface InputSizes {
  batch: number;
  sequence: number;
}

/** The largest input the page builds (values), so a graph with huge fixed dimensions cannot exhaust memory. */
export const MAX_INPUT_VALUES = 1 << 24;

/** Either every input can be built, or the problems, one line each. */
export type InputPlan = { ok: true; inputs: PlannedInput[] } | { ok: false; problems: string[] };

const quoted = (text: string) => JSON.stringify(text);

function dimension(name: string, dim: number | string, sizes: InputSizes): number | string {
  if (typeof dim === 'number') return dim;
  const lower = dim.toLowerCase();
  if (lower.includes('past')) return 0;
  if (lower.includes('batch') || lower === 'n' || lower === 'b') return sizes.batch;
  if (/seq|length|tokens|total/.test(lower)) return sizes.sequence;
  return `input ${quoted(name)} has a dimension ${quoted(dim)} this page cannot choose a size for`;
}

function fillFor(name: string, type: string): InputFill | string {
  const isInt = type === 'int64' || type === 'int32';
  const isFloat = type === 'float32' || type === 'float16';
  if (name.startsWith('past'))
    return isFloat || isInt
      ? 'zeros'
      : `input ${quoted(name)} is a cache of type ${type}, which this page cannot build`;
  if (isInt) {
    if (/(^|_)input_ids$/.test(name)) return 'token-ids';
    if (/attention_mask$/.test(name)) return 'ones';
    if (/token_type_ids$/.test(name)) return 'zeros';
    if (/position_ids$/.test(name)) return 'positions';
    return `input ${quoted(name)} (${type}) is not one this page knows how to fill (input_ids, attention_mask, token_type_ids, position_ids, past_*)`;
  }
  if (isFloat) return 'uniform';
  return `input ${quoted(name)} has type ${type}, which this page cannot build (it builds integer ids and masks, and float tensors)`;
}

/**
 * Plans every input of a graph.
 * @param metadata the session's input metadata, in input order
 * @param sizes what symbolic batch and sequence dimensions become
 */
export function planInputs(metadata: readonly GraphInputMetadata[], sizes: InputSizes): InputPlan {
  const inputs: PlannedInput[] = [];
  const problems: string[] = [];
  for (const meta of metadata) {
    if (!meta.isTensor || meta.type === undefined) {
      problems.push(
        `input ${quoted(meta.name)} is not a tensor (a sequence or a map): this page builds tensor inputs only`,
      );
      continue;
    }
    const fill = fillFor(meta.name, meta.type);
    if (fill !== 'token-ids' && fill !== 'ones' && fill !== 'zeros' && fill !== 'positions' && fill !== 'uniform') {
      problems.push(fill);
      continue;
    }
    const shape = meta.shape ?? [];
    if (shape.length === 0) {
      problems.push(`input ${quoted(meta.name)} declares no shape, so this page cannot size it`);
      continue;
    }
    const dims = shape.map((d) => dimension(meta.name, d, sizes));
    const unsized = dims.find((d): d is string => typeof d === 'string');
    if (unsized !== undefined) {
      problems.push(unsized);
      continue;
    }
    const numeric = dims as number[];
    const values = numeric.reduce((a, b) => a * b, 1);
    if (!Number.isSafeInteger(values) || values > MAX_INPUT_VALUES) {
      problems.push(
        `input ${quoted(meta.name)} would hold ${values} values; this page builds inputs of at most ${MAX_INPUT_VALUES}`,
      );
      continue;
    }
    inputs.push({ name: meta.name, type: meta.type as PlannedInput['type'], dims: numeric, fill });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, inputs };
}

/** One built input's values: BigInt64Array for int64, Int32Array for int32, Float32Array, or Uint16Array (fp16 bits). */
export type InputValues = BigInt64Array | Int32Array | Float32Array | Uint16Array;

/**
 * The values of every planned input, the same for the same plan and seed on every machine.
 * @param inputs a plan's inputs
 * @param seed seed of the uniform float values
 */
export function buildInputValues(inputs: readonly PlannedInput[], seed: number): Map<string, InputValues> {
  const random = mulberry32(seed);
  const out = new Map<string, InputValues>();
  for (const input of inputs) {
    const count = input.dims.reduce((a, b) => a * b, 1);
    const last = input.dims.at(-1) ?? 1;
    const at = (i: number): number => {
      switch (input.fill) {
        case 'token-ids':
          return 1 + ((i * 37 + 11) % 99);
        case 'ones':
          return 1;
        case 'zeros':
          return 0;
        case 'positions':
          return last === 0 ? 0 : i % last;
        case 'uniform':
          return random() * 2 - 1;
      }
    };
    if (input.type === 'int64')
      out.set(
        input.name,
        BigInt64Array.from({ length: count }, (_, i) => BigInt(at(i))),
      );
    else if (input.type === 'int32')
      out.set(
        input.name,
        Int32Array.from({ length: count }, (_, i) => at(i)),
      );
    else if (input.type === 'float32')
      out.set(
        input.name,
        Float32Array.from({ length: count }, (_, i) => at(i)),
      );
    else
      out.set(
        input.name,
        Uint16Array.from({ length: count }, (_, i) => halfBits(at(i))),
      );
  }
  return out;
}
