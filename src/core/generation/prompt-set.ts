/**
 * The versioned prompt set a generation run measures (`drb.prompt-set.v1`), served from `public/prompts/<id>.json`.
 *
 * A prompt set is frozen data: the measured prompts run in the order of the file, every prompt has a stable id,
 * and the separate warm-up prompt is never measured. Changing any text means a new `version` (and the receipt
 * records the SHA-256 of the exact bytes that ran).
 */
import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';
import { jsonSyntaxProblem } from '../text/json-syntax.ts';
import { firstIssueLine } from '../text/zod-issues.ts';
import {
  ANSWER_CASES_SCHEMA,
  answerCasesFromJson,
  AnswerCasesError,
  casePromptText,
  type AnswerCases,
} from './answer-cases.ts';

export const PROMPT_SET_SCHEMA = 'drb.prompt-set.v1';

/** The fewest measured prompts a set may hold: the sustained-speed ratio compares the first five with the last five. */
export const MIN_MEASURED_PROMPTS = 10;

const PromptId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'expected a lowercase id of letters, digits and dashes')
  .max(256);

export const Prompt = z.strictObject({
  id: PromptId,
  /** BCP 47 primary language tag of the prompt text (`ja`, `en`). */
  lang: z.enum(['ja', 'en']),
  text: detailText(20000).min(1),
});
export type Prompt = z.infer<typeof Prompt>;

export const PromptSet = z.strictObject({
  schema: z.literal(PROMPT_SET_SCHEMA),
  id: PromptId,
  version: z.number().int().positive(),
  description: detailText(20000),
  /** Who wrote the text and under which licence it may be reused. */
  licence: detailText(20000).min(1),
  /** Generation controls every engine receives for this set (greedy-ish decoding, bounded output). */
  controls: z.strictObject({
    max_new_tokens: z.number().int().positive().max(4096),
    temperature: z.number().nonnegative().max(2),
  }),
  /** Run once, untimed, before the measured prompts (it pays for shader compilation, caches, JIT). */
  warmup: Prompt,
  prompts: z.array(Prompt).min(MIN_MEASURED_PROMPTS),
});
export type PromptSet = z.infer<typeof PromptSet>;

/** A prompt-set file that cannot be used; the message is already `<file>: <id or field path>: <problem>`. */
export class PromptSetError extends Error {
  override name = 'PromptSetError';
}

/**
 * The prompt set a case set (`drb.answer-cases.v1`) runs as: its id, version, licence, controls and warm-up, and
 * one measured prompt per case in file order, built by `casePromptText` from the set's instruction and the case's
 * evidence and question (the same text on every engine).
 * @param cases a validated case set
 */
export function promptSetFromCases(cases: AnswerCases): PromptSet {
  return {
    schema: PROMPT_SET_SCHEMA,
    id: cases.id,
    version: cases.version,
    description: cases.description,
    licence: cases.licence,
    controls: { ...cases.controls },
    warmup: { ...cases.warmup },
    prompts: cases.cases.map((item) => ({ id: item.id, lang: item.lang, text: casePromptText(cases, item) })),
  };
}

/**
 * Parses and validates a prompt-set file. A case set (`drb.answer-cases.v1`) is accepted too and becomes the
 * prompt set `promptSetFromCases` builds from it, so `prompts=<case set id>` runs its cases.
 * @param text the file's text, already decoded (the page and the CLI hash the raw bytes themselves)
 * @param fileName the name shown first in every error message
 */
export function parsePromptSet(text: string, fileName: string): PromptSet {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new PromptSetError(`${fileName}: (root): is not valid JSON (${jsonSyntaxProblem(error, text)})`);
  }
  if ((json as { schema?: unknown } | null)?.schema === ANSWER_CASES_SCHEMA) {
    try {
      return promptSetFromCases(answerCasesFromJson(json, fileName));
    } catch (error) {
      if (error instanceof AnswerCasesError) throw new PromptSetError(error.message);
      throw error;
    }
  }
  const parsed = PromptSet.safeParse(json);
  if (!parsed.success) {
    throw new PromptSetError(`${fileName}: ${firstIssueLine(parsed.error)}`);
  }
  const seen = new Set<string>([parsed.data.warmup.id]);
  for (const prompt of parsed.data.prompts) {
    if (seen.has(prompt.id)) throw new PromptSetError(`${fileName}: ${prompt.id}: duplicate prompt id`);
    seen.add(prompt.id);
  }
  return parsed.data;
}
