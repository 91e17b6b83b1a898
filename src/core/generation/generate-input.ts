/**
 * What the page hands a generating engine for one step of a generation run (`EngineInput.data` for the `generate`
 * task), and what the engine hands back beside the usual RunResult. Validated with `GenerateInput.safeParse` in the
 * worker: it crosses a thread boundary.
 */
import { z } from 'zod';
import { firstIssueLine } from '../text/zod-issues.ts';
import type { TimedSample } from './generation-timing.ts';

export const GenerateInput = z.strictObject({
  /** Lets an engine that serves several tasks (transformers.js) route the input to its generate path. */
  task: z.literal('generate'),
  prompt_id: z.string().min(1),
  /** The user turn; the engine applies the model's chat template. */
  text: z.string().min(1),
  max_new_tokens: z.number().int().positive(),
  temperature: z.number().nonnegative(),
  /** The repetition's declared seed, or null when the plan has no seed control. */
  seed: z.number().int().nullable(),
});
export type GenerateInput = z.infer<typeof GenerateInput>;

/** One generation's result: the timed sample (numbers only) and the text, which only the answers artifact keeps. */
export interface GeneratedOutput {
  sample: TimedSample;
  text: string;
  finish_reason: 'stop' | 'length' | 'abort' | 'other' | null;
}

/**
 * Parses a generate step's input or throws an Error naming the field.
 * @param data `EngineInput.data` as received by the worker
 */
export function parseGenerateInput(data: unknown): GenerateInput {
  const parsed = GenerateInput.safeParse(data);
  if (!parsed.success) {
    throw new Error(`generate input: ${firstIssueLine(parsed.error)}`);
  }
  return parsed.data;
}
