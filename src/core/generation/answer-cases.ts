/**
 * The answer-case set (`drb.answer-cases.v1`): questions with fixed evidence that a generation run answers and
 * `drb score-answers` scores. Each case holds the question, the evidence passages the model receives (each with a
 * source id `S1`, `S2`, ... and its provenance), the claim groups a good answer makes (id, weight, allowed phrasings,
 * critical or not), the prohibited claims a safe answer never makes, and whether the right answer is to say the
 * evidence does not tell (`should_abstain`).
 *
 * The same file is the prompt source of a generation run: `prompts=<id>` loads it like a prompt set, and every
 * case becomes one measured prompt built by `casePromptText` from the file's own instruction and the case's
 * evidence and question, so every engine receives the same text (a chat template wraps it where the model
 * publisher requires one). The file is frozen data: changing any text means a new `version`, and the answers
 * artifact records the SHA-256 of the exact bytes that ran.
 */
import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';
import { jsonSyntaxProblem } from '../text/json-syntax.ts';
import { firstIssueLine } from '../text/zod-issues.ts';

export const ANSWER_CASES_SCHEMA = 'drb.answer-cases.v1';

/** The fewest cases a set may hold (as a prompt set it needs 10 measured prompts; the protocol asks for 12). */
export const MIN_ANSWER_CASES = 12;

/**
 * How a case becomes a prompt. A change to `casePromptText` is a new format name, so a file names the exact
 * layout its prompts were built with.
 */
export const CASE_PROMPT_FORMAT = 'drb-case-prompt-v1';

const CaseId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'expected a lowercase id of letters, digits and dashes')
  .max(256);
const ClaimId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'expected a lowercase id of letters, digits and dashes')
  .max(128);
/** A source id as the model cites it: `S1` ... `S999`. */
export const SOURCE_ID_PATTERN = /^S[1-9][0-9]{0,2}$/;
const SourceId = z.string().regex(SOURCE_ID_PATTERN, 'expected a source id S1 ... S999');
const Text = detailText(20000);
const Phrasing = detailText(1000).refine((value) => value.trim().length > 0, {
  message: 'must not be empty or only spaces',
});

/** One evidence passage the model receives, with where it comes from. */
export const Evidence = z.strictObject({
  id: SourceId,
  /** Provenance: who wrote the passage (the shipped set's passages are written for this project). */
  source: detailText(1000).min(1),
  text: Text.min(1),
});
export type Evidence = z.infer<typeof Evidence>;

/** A claim group: found when the normalised answer contains one of its allowed phrasings. */
export const ClaimGroup = z.strictObject({
  id: ClaimId,
  weight: z.number().positive().max(1000),
  /** A fact whose omission or reversal can cause immediate harm. */
  critical: z.boolean(),
  phrasings: z.array(Phrasing).min(1).max(64),
});
export type ClaimGroup = z.infer<typeof ClaimGroup>;

/** A claim a safe answer never makes: matched like a claim group; `critical` marks one that can cause harm at once. */
export const ProhibitedClaim = z.strictObject({
  id: ClaimId,
  critical: z.boolean(),
  phrasings: z.array(Phrasing).min(1).max(64),
});
export type ProhibitedClaim = z.infer<typeof ProhibitedClaim>;

export const AnswerCase = z.strictObject({
  id: CaseId,
  lang: z.enum(['ja', 'en']),
  /** Task or category label (reported, never scored). */
  category: detailText(200).min(1),
  question: Text.min(1),
  evidence: z.array(Evidence).min(1).max(32),
  claims: z.array(ClaimGroup).min(1).max(64),
  prohibited: z.array(ProhibitedClaim).max(64),
  /** The evidence does not answer the question: a good answer says so (its claim groups are those phrasings). */
  should_abstain: z.boolean(),
  /** A hand-written answer that passes the case (checked by the unit tests; never shown to a model). */
  reference_answer: Text.min(1),
});
export type AnswerCase = z.infer<typeof AnswerCase>;

const WarmupPrompt = z.strictObject({ id: CaseId, lang: z.enum(['ja', 'en']), text: Text.min(1) });

export const AnswerCases = z.strictObject({
  schema: z.literal(ANSWER_CASES_SCHEMA),
  id: CaseId,
  version: z.number().int().positive(),
  description: Text,
  /** Who wrote the text and under which licence it may be reused. */
  licence: Text.min(1),
  prompt_format: z.literal(CASE_PROMPT_FORMAT),
  /** The instruction placed before the evidence, per language (the same text on every engine). */
  instructions: z.strictObject({ ja: Text.min(1), en: Text.min(1) }),
  controls: z.strictObject({
    max_new_tokens: z.number().int().positive().max(4096),
    temperature: z.number().nonnegative().max(2),
  }),
  /** Run once, untimed and unscored, before the measured prompts. */
  warmup: WarmupPrompt,
  cases: z.array(AnswerCase).min(MIN_ANSWER_CASES).max(1000),
});
export type AnswerCases = z.infer<typeof AnswerCases>;

/** A case-set file that cannot be used; the message is already `<file>: <case id or field path>: <problem>`. */
export class AnswerCasesError extends Error {
  override name = 'AnswerCasesError';
}

/**
 * Checks a parsed JSON value as a case set: the schema, then what a schema cannot say (unique case ids, unique
 * source ids and claim ids within a case, the warm-up id apart from every case id).
 * @param json the file's parsed JSON
 * @param fileName the name shown first in every error message
 * @throws AnswerCasesError with one line naming the file, the case or field, and the problem
 */
export function answerCasesFromJson(json: unknown, fileName: string): AnswerCases {
  const parsed = AnswerCases.safeParse(json);
  if (!parsed.success) throw new AnswerCasesError(`${fileName}: ${firstIssueLine(parsed.error)}`);
  const set = parsed.data;
  const ids = new Set<string>([set.warmup.id]);
  for (const item of set.cases) {
    if (ids.has(item.id)) throw new AnswerCasesError(`${fileName}: ${item.id}: duplicate case id`);
    ids.add(item.id);
    const sources = new Set<string>();
    for (const evidence of item.evidence) {
      if (sources.has(evidence.id))
        throw new AnswerCasesError(`${fileName}: ${item.id}: evidence ${evidence.id}: duplicate source id`);
      sources.add(evidence.id);
    }
    const claims = new Set<string>();
    for (const claim of [...item.claims, ...item.prohibited]) {
      if (claims.has(claim.id))
        throw new AnswerCasesError(
          `${fileName}: ${item.id}: claim ${claim.id}: duplicate claim id (claims and prohibited claims share one namespace)`,
        );
      claims.add(claim.id);
    }
  }
  return set;
}

/**
 * Parses and validates a case-set file.
 * @param text the file's text, already decoded (callers hash the raw bytes themselves)
 * @param fileName the name shown first in every error message
 */
export function parseAnswerCases(text: string, fileName: string): AnswerCases {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new AnswerCasesError(`${fileName}: (root): is not valid JSON (${jsonSyntaxProblem(error, text)})`);
  }
  return answerCasesFromJson(json, fileName);
}

/**
 * The prompt of one case (format `drb-case-prompt-v1`): the set's instruction for the case's language, a blank
 * line, every evidence passage as `[S#] text` on its own line in file order, a blank line, then the question after
 * a label (`質問:` / `Question:`). Nothing model-specific: a chat template, where the model has one, wraps it.
 * @param set the case set (its instructions)
 * @param item the case
 */
export function casePromptText(
  set: Pick<AnswerCases, 'instructions'>,
  item: Pick<AnswerCase, 'lang' | 'evidence' | 'question'>,
): string {
  const label = item.lang === 'ja' ? '質問:' : 'Question:';
  const evidence = item.evidence.map((passage) => `[${passage.id}] ${passage.text}`).join('\n');
  return `${set.instructions[item.lang]}\n\n${evidence}\n\n${label} ${item.question}`;
}
