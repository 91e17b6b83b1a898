/**
 * Bounded answers per string for pure checks that receipts ask again and again (a URL check: every receipt of a
 * target names the same model and resource URLs). Bounded in entries and in the length of a remembered string, so a
 * hostile file of many distinct or very long strings cannot grow it without limit: past the cap it starts afresh.
 */

/**
 * `check` answered from a bounded cache: the same answer `check(text)` gives, computed once per remembered string.
 * @param check a pure function of the string (never returning undefined)
 * @param maxEntries at most this many strings are remembered (then the cache is cleared)
 * @param maxChars longer strings are checked every time, never remembered
 */
export function memoizeStringCheck<T>(
  check: (text: string) => T,
  maxEntries = 1_024,
  maxChars = 2_048,
): (text: string) => T {
  const answers = new Map<string, T>();
  return (text) => {
    if (text.length > maxChars) return check(text);
    let answer = answers.get(text);
    if (answer === undefined) {
      answer = check(text);
      if (answers.size >= maxEntries) answers.clear();
      answers.set(text, answer);
    }
    return answer;
  };
}
