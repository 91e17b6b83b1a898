/**
 * The correctness check a receipt of a model with trained weights carries (the receipt's `check`): whether the run's
 * output was right on the fixed input, by the rule the input artifact declares, as numbers only (a receipt never
 * holds text): for text recognition, whether every line decoded to exactly its expected string and the total edit
 * distance; for voice activity detection, whether every speech frame scored at or above the declared threshold and
 * every silence frame at or below its threshold, with the lowest speech and highest silence scores.
 */
import { z } from 'zod';
import { Token } from '../text/bounded-text.ts';

/** The kinds of check: `ocr-exact-text` (CTC-decoded lines equal the expected strings) and `vad-threshold`. */
export const OutputCheckKind = z.enum(['ocr-exact-text', 'vad-threshold']);
export type OutputCheckKind = z.infer<typeof OutputCheckKind>;

/** One receipt's correctness check. */
export const OutputCheck = z.strictObject({
  kind: OutputCheckKind,
  /** True when every case passed. */
  passed: z.boolean(),
  /** Text lines (OCR) or scored frames (VAD) the rule covers, and how many of them passed. */
  cases: z.number().int().positive(),
  cases_passed: z.number().int().nonnegative(),
  /** The numbers behind the verdict (no text): OCR `edit_distance` (summed over the lines) and `min_confidence`;
   *  VAD `speech_threshold`, `silence_threshold`, `min_speech_score`, `max_silence_score`. */
  values: z.array(z.strictObject({ name: Token, value: z.number().finite() })).max(16),
});
export type OutputCheck = z.infer<typeof OutputCheck>;

/**
 * A check's own consistency: `passed` exactly when every case passed, no more cases passed than there are.
 * @param check the receipt's check
 */
export function outputCheckProblems(check: OutputCheck): Array<{ path: string; message: string }> {
  const problems: Array<{ path: string; message: string }> = [];
  if (check.cases_passed > check.cases)
    problems.push({
      path: 'check.cases_passed',
      message: `is ${check.cases_passed}, more than the ${check.cases} cases`,
    });
  if (check.passed !== (check.cases_passed === check.cases)) {
    problems.push({
      path: 'check.passed',
      message: `is ${check.passed} but ${check.cases_passed} of ${check.cases} cases passed`,
    });
  }
  return problems;
}
