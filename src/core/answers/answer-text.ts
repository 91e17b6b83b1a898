/**
 * How answer text is compared with claim phrasings (normalisation `drb-answer-norm-v1`, docs/answers.md), and how
 * `[S#]` citation markers are read. Deterministic and inspectable on purpose: a claim group is found when the
 * normalised answer contains one of its normalised phrasings.
 *
 * Normalisation, in order: Unicode NFKC (full-width letters and digits become ASCII, half-width katakana full-width,
 * the ideographic space a space); lower case with the two full case foldings JavaScript's lower-casing lacks (ß → ss,
 * final sigma → σ), then NFKC again; every run of white space becomes one space; a space next to a Japanese or
 * Chinese character (Han, hiragana, katakana, the prolonged sound mark, CJK punctuation) is dropped, because those
 * scripts have no word spaces (`救急 車` reads as `救急車`); a space before closing punctuation is dropped; the ends
 * are trimmed.
 *
 * Matching: a phrasing is found where it occurs as a substring, except that an end of the phrasing that is a letter
 * or digit of a script written with spaces (Latin, digits, Greek, Cyrillic ...) must not touch another such letter
 * or digit in the answer: `eat` is not found in `great`, `10 ml` not in `110 ml`. Japanese has no word boundaries, so
 * an end that is a Japanese character matches anywhere (`119` is found in `119番`).
 */

/** The name of the normalisation rule above; reports record it. */
export const ANSWER_NORMALISATION = 'drb-answer-norm-v1';

// Characters of scripts written without spaces between words (after NFKC).
const NO_SPACE_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\u30fb\u30fc]/u;
const SPACE_NEXT_TO_NO_SPACE_SCRIPT =
  /(?<=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\u30fb\u30fc]) | (?=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\u30fb\u30fc])/gu;
const SPACE_BEFORE_CLOSING = / (?=[.,;:!?)\]}»、。」』）])/g;
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

/**
 * A citation marker as written: `[S1]`, or several ids in one bracket, `[S1, S3]` (comma, ideographic comma or
 * semicolon between them; spaces allowed; `S` in either case). Read on NFKC text, so `［Ｓ１］` is a marker too.
 */
const CITATION = /\[\s*[Ss]\d{1,4}(?:\s*[,;、]\s*[Ss]\d{1,4})*\s*\]/;
// A marker with the spaces (not line breaks) before it: removed together so `now [S1].` reads `now.`.
const CITATION_WITH_SPACES = new RegExp(`[^\\S\\n]*${CITATION.source}`, 'g');

/**
 * `text` normalised for matching (see the module comment).
 * @param text an answer (citation markers already removed) or a phrasing
 */
export function normaliseForMatching(text: string): string {
  let out = text.normalize('NFKC').toLowerCase().replace(/ß/g, 'ss').replace(/ς/g, 'σ').normalize('NFKC');
  out = out.replace(/\s+/gu, ' ');
  out = out.replace(SPACE_NEXT_TO_NO_SPACE_SCRIPT, '');
  out = out.replace(SPACE_BEFORE_CLOSING, '');
  return out.trim();
}

/** True for a letter, digit or mark of a script written with spaces (an end that needs a word boundary). */
function isSpacedWordChar(ch: string): boolean {
  return WORD_CHAR.test(ch) && !NO_SPACE_SCRIPT.test(ch);
}

/** The code point just before UTF-16 index `index` of `text`, as a string ('' at the start). */
function charBefore(text: string, index: number): string {
  if (index <= 0) return '';
  const low = text.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(index - 2, index);
  }
  return text[index - 1];
}

/** The code point starting at UTF-16 index `index` of `text`, as a string ('' at the end). */
function charAt(text: string, index: number): string {
  if (index >= text.length) return '';
  return String.fromCodePoint(text.codePointAt(index)!);
}

/**
 * Whether the normalised `needle` occurs in the normalised `haystack` under the boundary rule (module comment).
 * @param haystack a normalised answer
 * @param needle a normalised, non-empty phrasing
 */
export function containsPhrase(haystack: string, needle: string): boolean {
  if (needle === '') return false;
  const startNeedsBoundary = isSpacedWordChar(charAt(needle, 0));
  const endNeedsBoundary = isSpacedWordChar(charBefore(needle, needle.length));
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    if (startNeedsBoundary && isSpacedWordChar(charBefore(haystack, at))) continue;
    if (endNeedsBoundary && isSpacedWordChar(charAt(haystack, at + needle.length))) continue;
    return true;
  }
  return false;
}

/** The citation markers of an answer and its text with them removed. */
export interface CitedText {
  /** Every cited source id in order of appearance, as written after NFKC with an upper-case S (`S1`, `S01`). */
  cited: string[];
  /** The answer with every marker (and the spaces before it) replaced by one space, ready for normaliseForMatching. */
  text: string;
}

/**
 * Reads the `[S#]` markers of an answer (after NFKC) and removes them from the text that claims are matched in,
 * so a marker between two words never splits a phrasing.
 * @param answer the answer as the model wrote it
 */
export function readCitations(answer: string): CitedText {
  const cited: string[] = [];
  const text = answer.normalize('NFKC').replace(CITATION_WITH_SPACES, (marker: string) => {
    for (const id of marker.matchAll(/[Ss](\d{1,4})/g)) cited.push(`S${id[1]}`);
    return ' ';
  });
  return { cited, text };
}
