/**
 * The "no text" rule for receipts, checked on the raw JSON before the schema: a receipt never holds input text,
 * output text or anything a user typed. The strict schema already refuses unknown keys; this scan names the
 * problem plainly when a key looks like it carries text (`output_text`, `prompt`, ...) and its value could hold
 * text (a string, or an array or object), wherever it is nested. A number under such a name (`measured_prompts`:
 * a count) is not text.
 */
import { memoizeStringCheck } from '../text/string-memo.ts';
import { childPath } from '../text/zod-issues.ts';

/** Key names (compared lower-cased, with `-` read as `_`) that carry text and never belong in a receipt. */
export const TEXT_FIELD_KEYS: readonly string[] = [
  'text',
  'texts',
  'input_text',
  'output_text',
  'prompt',
  'prompts',
  'answer',
  'answers',
  'completion',
  'completions',
  'response',
  'response_text',
  'generated_text',
  'candidates',
  'candidate_text',
  'query',
  'query_text',
  'user_text',
  'message_text',
  'content',
  'transcript',
];

const TEXT_KEYS = new Set(TEXT_FIELD_KEYS);

// Keys that contain one of these words are treated as text too (`inputText`, `decoded_text`), normalised first.
const TEXT_SUFFIX = /(^|_)(text|texts|prompt|prompts|completion|completions)$/;

/** A key that looks like a text field, with where it was found. */
export interface TextFieldHit {
  path: string;
  key: string;
}

function normaliseKey(key: string): string {
  // camelCase -> snake_case, kebab-case -> snake_case, then lower case.
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();
}

// Answers per key: every receipt repeats the same keys, and normalising each one each time was a twentieth of
// `drb receipts validate`'s CPU. Bounded, as a hostile file can hold any number of distinct keys.
const textFieldKeyMemo = memoizeStringCheck((key) => {
  const normal = normaliseKey(key);
  return TEXT_KEYS.has(normal) || TEXT_SUFFIX.test(normal);
}, 4_096);

/** True when `key` names a field that would carry input or output text. */
export function isTextFieldKey(key: string): boolean {
  return textFieldKeyMemo(key);
}

function couldHoldText(value: unknown): boolean {
  return typeof value === 'string' || (value !== null && typeof value === 'object');
}

/**
 * Every key in `value` (objects and arrays, any depth) that looks like a text field.
 * @param value parsed JSON
 * @param path the path of `value` itself ('' for the root), used to build each hit's field path
 * @param factPaths exact field paths whose schema holds facts under a text-like name (a suite receipt's
 *   `suite.candidates` is the candidates FILE's name, size, hash and row count); their children are still scanned
 */
export function findTextFields(value: unknown, path = '', factPaths: ReadonlySet<string> = new Set()): TextFieldHit[] {
  const hits: TextFieldHit[] = [];
  // The keys from `value` down to the node being walked: a path is built only for a hit (building one for every key
  // of every receipt was most of this scan's cost in `drb receipts export`).
  const steps: Array<string | number> = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        steps.push(index);
        walk(node[index]);
        steps.pop();
      }
    } else if (node !== null && typeof node === 'object') {
      for (const key of Object.keys(node)) {
        const item = (node as Record<string, unknown>)[key];
        steps.push(key);
        if (isTextFieldKey(key) && couldHoldText(item)) {
          const child = steps.reduce<string>(childPath, path);
          if (!factPaths.has(child)) hits.push({ path: child, key });
        }
        walk(item);
        steps.pop();
      }
    }
  };
  walk(value);
  return hits;
}
