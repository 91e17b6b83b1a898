/**
 * The abstention policy of a suite run, recorded in the suite receipt and applied row by row. The predictions
 * artifact shows it on every row through `reason` (and `margin` where one exists), so both artifacts say what
 * happened without either one needing the other.
 */
import { z } from 'zod';

/**
 * `margin-threshold`: a row whose margin (top-1 score minus top-2 score, in the engine's score units) is below
 * `min_margin` abstains: its candidates become `[]` (so `drb score` keeps the input) and its reason is
 * `low_margin`. `min_margin: null` means the policy never abstains on margin.
 */
export const AbstentionPolicy = z.strictObject({
  name: z.literal('margin-threshold'),
  min_margin: z.number().finite().nonnegative().nullable(),
});
export type AbstentionPolicy = z.infer<typeof AbstentionPolicy>;

/**
 * Why a prediction row looks the way it does (the machine-readable `reason` of the predictions artifact):
 * - `accepted`: candidates reordered by score; margin at or above the threshold (or no threshold);
 * - `low_margin`: margin below the threshold, so the row abstains (candidates `[]`, margin still given);
 * - `single_candidate`: one candidate, so there is no second score and no margin; the row keeps its candidate
 *   (the policy cannot judge a margin that does not exist, and dropping every lone candidate would hide them);
 * - `no_candidates`: the candidates artifact gave this item no candidates (no row, or an empty list): abstains.
 */
export const SuiteReason = z.enum(['accepted', 'low_margin', 'single_candidate', 'no_candidates']);
export type SuiteReason = z.infer<typeof SuiteReason>;

/**
 * Builds a policy from a user-entered threshold.
 * @param minMargin the smallest margin that keeps a row's ranking; null or undefined disables abstention
 * @throws RangeError when the threshold is negative or not finite
 */
export function marginPolicy(minMargin: number | null | undefined): AbstentionPolicy {
  if (minMargin === null || minMargin === undefined) return { name: 'margin-threshold', min_margin: null };
  if (!Number.isFinite(minMargin) || minMargin < 0) {
    throw new RangeError(`margin threshold must be a finite number >= 0, got ${minMargin}`);
  }
  return { name: 'margin-threshold', min_margin: minMargin };
}
