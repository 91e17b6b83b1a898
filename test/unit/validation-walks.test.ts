/**
 * The validation walks that build a field path only for a problem (json-shape, text fields, the URL walks) and the
 * bounded per-string answers of the URL checks: the same problems, paths and order as building every path, and
 * answers that never depend on what was asked before.
 */
import { describe, expect, it } from 'vitest';
import { findTextFields } from '../../src/core/evidence/text-fields.ts';
import { isOriginPathUrl } from '../../src/core/text/bounded-text.ts';
import { jsonShapeProblems, MAX_JSON_DEPTH } from '../../src/core/text/json-shape.ts';
import { containsUnredactedUrl } from '../../src/core/text/redact.ts';
import { memoizeStringCheck } from '../../src/core/text/string-memo.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import { pageReceipts } from './receipts-fixtures.ts';

describe('memoizeStringCheck', () => {
  it('answers as the check does, asks it once per remembered string, and starts afresh past its cap', () => {
    const asked: string[] = [];
    const check = memoizeStringCheck(
      (text) => {
        asked.push(text);
        return text.startsWith('y');
      },
      2,
      5,
    );
    expect([check('yes'), check('no'), check('yes'), check('no')]).toEqual([true, false, true, false]);
    expect(asked).toEqual(['yes', 'no']);
    // A third string clears the two remembered ones (bounded), so they are asked again.
    expect([check('y3'), check('yes'), check('no')]).toEqual([true, true, false]);
    expect(asked).toEqual(['yes', 'no', 'y3', 'yes', 'no']);
    // Longer than maxChars: checked every time, never remembered.
    expect([check('yes-long'), check('yes-long')]).toEqual([true, true]);
    expect(asked.slice(-2)).toEqual(['yes-long', 'yes-long']);
  });

  it('the URL checks give the same answer however often and in whatever order they are asked', () => {
    const urls = [
      'https://h.test/m.onnx',
      'https://h.test/m.onnx?sig=1',
      'https://user:pw@h.test/m.onnx',
      'HTTPS://h.test/m.onnx',
      'https:/h.test/m.onnx',
      'see https://h.test/a#frag and more',
    ];
    const once = urls.map((u) => [isOriginPathUrl(u), containsUnredactedUrl(u)]);
    expect(once).toEqual([
      [true, false],
      [false, true],
      [false, true],
      // An upper-case scheme is rewritten by a WHATWG parse: not origin + path as stored, and not as redacted.
      [false, true],
      [false, false],
      [false, true],
    ]);
    for (let round = 0; round < 3; round++) {
      expect([...urls].reverse().map((u) => [isOriginPathUrl(u), containsUnredactedUrl(u)])).toEqual(
        [...once].reverse(),
      );
    }
    // Past the cache's cap of distinct strings the answers stay the same.
    for (let i = 0; i < 3_000; i++) containsUnredactedUrl(`https://h.test/${i}?q=${i}`);
    expect(urls.map((u) => [isOriginPathUrl(u), containsUnredactedUrl(u)])).toEqual(once);
  });
});

describe('walks that build a path only for a problem', () => {
  it('jsonShapeProblems names special keys and deep nesting with their full paths, in document order', () => {
    const value = JSON.parse(
      '{"a":[{"b":1},{"__proto__":{"x":1}}],"odd key":{"__proto__":2},"c":{"d":[[{"__proto__":null}]]}}',
    );
    expect(jsonShapeProblems(value).map((p) => p.path)).toEqual([
      'a[1].__proto__',
      '["odd key"].__proto__',
      'c.d[0][0].__proto__',
    ]);
    let deep: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH + 1; i++) deep = i % 2 === 0 ? [deep] : { k: deep };
    const [problem] = jsonShapeProblems({ top: deep });
    expect(problem.path).toMatch(/^top(\.k|\[0\])+$/);
    expect(problem.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    // `skip` is asked with each child's path, and skipped subtrees are not looked at.
    const seen: string[] = [];
    const skipped = jsonShapeProblems(value, (path) => {
      seen.push(path);
      return path === 'a[1]';
    });
    expect(skipped.map((p) => p.path)).toEqual(['["odd key"].__proto__', 'c.d[0][0].__proto__']);
    expect(seen).toContain('c.d[0][0]');
    expect(seen).not.toContain('a[1].__proto__');
  });

  it('findTextFields gives each hit its full path from the given start, and fact paths stay exempt', () => {
    const value = { run: { prompt: 'x', items: [{ inputText: 'y' }, { ok: 1 }] }, 'odd key': { text: 'z' } };
    expect(findTextFields(value)).toEqual([
      { path: 'run.prompt', key: 'prompt' },
      { path: 'run.items[0].inputText', key: 'inputText' },
      { path: '["odd key"].text', key: 'text' },
    ]);
    expect(findTextFields(value, 'root', new Set(['root.run.prompt'])).map((h) => h.path)).toEqual([
      'root.run.items[0].inputText',
      'root["odd key"].text',
    ]);
  });

  it('a device receipt is refused with the field path of a URL, a text key and a special key deep inside', () => {
    const receipt = structuredClone(pageReceipts()[1]) as unknown as Record<string, any>;
    receipt.capabilities.user_agent = 'Mozilla/5.0 https://h.test/ua?q=1';
    receipt.route.attempts[0].extra_prompt = 'hi';
    const problems = validateReceipt(receipt).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: 'route.attempts[0].extra_prompt', message: expect.stringContaining('looks like a text field') },
      ]),
    );
    delete receipt.route.attempts[0].extra_prompt;
    expect(validateReceipt(receipt).problems).toEqual([
      { path: 'capabilities.user_agent', message: 'holds a URL with a query, fragment or credentials' },
    ]);
    const text = JSON.stringify(pageReceipts()[1]).replace('"route":{', '"route":{"__proto__":1,');
    expect(validateReceipt(JSON.parse(text)).problems.map((p) => p.path)).toEqual(['route.__proto__']);
  });
});
