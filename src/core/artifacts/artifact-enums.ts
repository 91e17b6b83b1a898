/**
 * The closed sets of words the scorer's artifacts use, as plain lists: the zod enums (ItemFormat and ItemLabel in
 * items.ts, Provenance in predictions.ts) are built from them, and the byte readers, which must not load zod (its
 * start-up counts in drb score's time), match against the very same lists.
 */

/** Items file layouts: our generic one, or AJIMEE-Bench's `evaluation_items.json`. */
export const ITEM_FORMATS = ['generic', 'ajimee'] as const;

/** Item row labels (`clean` rows are controls whose input is already correct). */
export const ITEM_LABELS = ['clean', 'typo', 'unspecified'] as const;

/** Who produced a prediction row's candidates, as the artifact declares it. */
export const PROVENANCES = ['provider', 'deberta', 'lfm', 'rule', 'unspecified'] as const;

/** True when `text` names an items format (for checking a flag without zod). */
export function isItemFormat(text: string): text is (typeof ITEM_FORMATS)[number] {
  return (ITEM_FORMATS as readonly string[]).includes(text);
}
