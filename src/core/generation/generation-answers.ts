/**
 * The answers artifact (`drb.generation-answers.v1`): the text each measured prompt produced, for scoring on the
 * user's own machine. It is never part of a receipt and is only produced by an explicit download, so a receipt can
 * be shared without sharing what the model said. It links to its receipt by `receipt_id` and to the prompts by
 * the prompt set's id, version and SHA-256.
 */
import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';
import { EngineName } from '../receipt/receipt.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';

export const GENERATION_ANSWERS_SCHEMA = 'drb.generation-answers.v1';

export const GenerationAnswer = z.strictObject({
  prompt_id: detailText(100000).min(1),
  repetition: z.number().int().positive(),
  seed: z.number().int().nullable(),
  text: detailText(100000),
  output_tokens: z.number().int().nonnegative(),
  truncated: z.boolean(),
});
export type GenerationAnswer = z.infer<typeof GenerationAnswer>;

export const GenerationAnswers = z.strictObject({
  schema: z.literal(GENERATION_ANSWERS_SCHEMA),
  /** The generation receipt these answers belong to. */
  receipt_id: detailText(100000).min(8),
  created_at: z.string().datetime({ offset: true }),
  engine: z.strictObject({ name: EngineName, version: detailText(100000) }),
  model_id: detailText(100000).min(1),
  prompt_set: z.strictObject({
    id: detailText(100000).min(1),
    version: z.number().int().positive(),
    sha256: z.string().regex(SHA256_PATTERN),
  }),
  /** Ok samples only, in execution order; a failed prompt has no answer. */
  answers: z.array(GenerationAnswer),
});
export type GenerationAnswers = z.infer<typeof GenerationAnswers>;
