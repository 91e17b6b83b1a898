import { describe, expect, it } from 'vitest';
import { ArtifactError, firstInvalidUtf8Offset } from '../../src/core/artifacts/artifact-error.ts';
import {
  AjimeeItemRow,
  GenericItemRow,
  isPlainAjimeeRow,
  isPlainGenericRow,
  parseItems,
} from '../../src/core/artifacts/items.ts';
import { isPlainPredictionRow, parsePredictions, PredictionRow } from '../../src/core/artifacts/predictions.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);
const json = (value: unknown) => utf8(JSON.stringify(value));

/** The one-line message a parse throws (fails the test when nothing is thrown or the error is of another kind). */
function messageOf(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(ArtifactError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected the parse to throw');
}

describe('parseItems (generic)', () => {
  it('reads rows in order, defaults a missing label to unspecified, keeps strings as they are', () => {
    const rows = parseItems(
      json([
        { id: 'a', input: 'ＡＢＣ ', references: ['ABC', 'ＡＢＣ '], label: 'clean' },
        { id: 'b', input: '𠮷', references: ['吉'] },
        { id: 'c', input: '', references: ['x'], label: 'typo' },
      ]),
      'items.json',
      'generic',
    );
    expect(rows).toEqual([
      { id: 'a', input: 'ＡＢＣ ', references: ['ABC', 'ＡＢＣ '], label: 'clean' },
      { id: 'b', input: '𠮷', references: ['吉'], label: 'unspecified' },
      { id: 'c', input: '', references: ['x'], label: 'typo' },
    ]);
  });

  it('accepts a UTF-8 byte order mark', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...json([{ id: 'a', input: 'x', references: ['x'] }])]);
    expect(parseItems(bytes, 'bom.json', 'generic')).toHaveLength(1);
  });

  it.each([
    ['not JSON', utf8('[{"id": "a",'), /^items\.json: \$: not valid JSON \(.+\)$/],
    ['not an array', json({ id: 'a' }), /^items\.json: \$: expected a JSON array of item rows, got object$/],
    ['zero rows', json([]), /^items\.json: \$: the items file has no rows$/],
    [
      'a numeric id',
      json([{ id: 7, input: 'x', references: ['x'] }]),
      /^items\.json: \[0\]\.id: id must be a string, got number$/,
    ],
    [
      'an empty id',
      json([{ id: '', input: 'x', references: ['x'] }]),
      /^items\.json: \[0\]\.id: id must not be empty$/,
    ],
    [
      'a row that is not an object',
      json([{ id: 'a', input: 'x', references: ['x'] }, 'b']),
      /^items\.json: \[1\]: .*expected object/,
    ],
    [
      'a non-string input',
      json([{ id: 'a', input: 1, references: ['x'] }]),
      /^items\.json: id "a" input: .*expected string, received number$/,
    ],
    [
      'references not a list',
      json([{ id: 'a', input: 'x', references: 'x' }]),
      /^items\.json: id "a" references: .*expected array/,
    ],
    [
      'an empty references list',
      json([{ id: 'a', input: 'x', references: [] }]),
      /^items\.json: id "a" references: must list at least one reference$/,
    ],
    [
      'an empty-string reference',
      json([{ id: 'a', input: 'x', references: ['x', ''] }]),
      /^items\.json: id "a" references\[1\]: must not be an empty string/,
    ],
    [
      'a non-string reference',
      json([{ id: 'a', input: 'x', references: [null] }]),
      /^items\.json: id "a" references\[0\]: .*expected string, received null$/,
    ],
    [
      'an unknown label',
      json([{ id: 'a', input: 'x', references: ['x'], label: 'dirty' }]),
      /^items\.json: id "a" label: .*"clean"\|"typo"\|"unspecified"$/,
    ],
    [
      'an unknown key',
      json([{ id: 'a', input: 'x', references: ['x'], lable: 'clean' }]),
      /^items\.json: id "a": Unrecognized key: "lable"$/,
    ],
    [
      'a clean row whose input is no reference',
      json([{ id: 'a', input: 'x', references: ['y'], label: 'clean' }]),
      /^items\.json: id "a" input: label is clean but the input is not one of its references$/,
    ],
    [
      'a duplicate id',
      json([
        { id: 'a', input: 'x', references: ['x'] },
        { id: 'b', input: 'x', references: ['x'] },
        { id: 'a', input: 'y', references: ['y'] },
      ]),
      /^items\.json: id "a": duplicate id \(rows \[0\] and \[2\]\)$/,
    ],
  ])('refuses %s', (_name, bytes, expected) => {
    expect(messageOf(() => parseItems(bytes, 'items.json', 'generic'))).toMatch(expected);
  });

  it('names the first malformed UTF-8 byte', () => {
    // "[" then the first two bytes of a three-byte sequence, then a quote.
    const bytes = new Uint8Array([0x5b, 0x22, 0xe3, 0x81, 0x22, 0x5d]);
    expect(messageOf(() => parseItems(bytes, 'items.json', 'generic'))).toBe('items.json: byte 2: not valid UTF-8');
  });

  it('refuses an unknown format', () => {
    expect(messageOf(() => parseItems(json([]), 'items.json', 'csv' as never))).toBe(
      'items.json: $: unknown items format "csv" (expected generic or ajimee)',
    );
  });

  it('quotes ids so odd characters stay visible on one line', () => {
    const message = messageOf(() =>
      parseItems(json([{ id: 'a "b"\nc', input: 'x', references: [] }]), 'i.json', 'generic'),
    );
    expect(message).toBe('i.json: id "a \\"b\\"\\nc" references: must list at least one reference');
  });
});

describe('parseItems (ajimee)', () => {
  it('reads index, input and expected_output, ignores other fields, and labels every row unspecified', () => {
    const rows = parseItems(
      json([
        {
          index: '7',
          context_text: '前',
          input: 'カナ',
          expected_output: ['仮名', 'かな'],
          original_text: '…',
          label: 'clean',
        },
      ]),
      'ajimee.json',
      'ajimee',
    );
    expect(rows).toEqual([{ id: '7', input: 'カナ', references: ['仮名', 'かな'], label: 'unspecified' }]);
  });

  it.each([
    [
      'a numeric index',
      json([{ index: 7, input: 'x', expected_output: ['x'] }]),
      /^a\.json: \[0\]\.index: id must be a string, got number$/,
    ],
    [
      'a missing expected_output',
      json([{ index: '7', input: 'x' }]),
      /^a\.json: id "7" expected_output: .*expected array, received undefined$/,
    ],
    [
      'an empty expected_output',
      json([{ index: '7', input: 'x', expected_output: [] }]),
      /^a\.json: id "7" expected_output: must list at least one reference$/,
    ],
    [
      'a duplicate index',
      json([
        { index: '7', input: 'x', expected_output: ['x'] },
        { index: '7', input: 'x', expected_output: ['x'] },
      ]),
      /^a\.json: id "7": duplicate index \(rows \[0\] and \[1\]\)$/,
    ],
  ])('refuses %s', (_name, bytes, expected) => {
    expect(messageOf(() => parseItems(bytes, 'a.json', 'ajimee'))).toMatch(expected);
  });
});

describe('parsePredictions', () => {
  it('reads every abstention form and the declared values as they are', () => {
    const rows = parsePredictions(
      json([
        { id: 'a', candidates: ['x', ''], provenance: 'deberta', reason: 'accepted', margin: -0.5 },
        { id: 'b', candidates: [] },
        { id: 'c', candidates: null },
        { id: 'd' },
      ]),
      'p.json',
    );
    expect(rows).toEqual([
      { id: 'a', candidates: ['x', ''], provenance: 'deberta', reason: 'accepted', margin: -0.5 },
      { id: 'b', candidates: [] },
      { id: 'c', candidates: null },
      { id: 'd' },
    ]);
  });

  it('allows zero rows (every item row then abstains)', () => {
    expect(parsePredictions(json([]), 'p.json')).toEqual([]);
  });

  it.each([
    ['not an array', json({}), /^p\.json: \$: expected a JSON array of prediction rows, got object$/],
    ['a numeric id', json([{ id: 1, candidates: [] }]), /^p\.json: \[0\]\.id: id must be a string, got number$/],
    [
      'candidates as a string',
      json([{ id: 'a', candidates: 'x' }]),
      /^p\.json: id "a" candidates: .*expected array, received string$/,
    ],
    [
      'a non-string candidate',
      json([{ id: 'a', candidates: ['x', 2] }]),
      /^p\.json: id "a" candidates\[1\]: .*expected string, received number$/,
    ],
    [
      'an unknown provenance',
      json([{ id: 'a', provenance: 'gpt' }]),
      /^p\.json: id "a" provenance: .*"provider"\|"deberta"\|"lfm"\|"rule"\|"unspecified"$/,
    ],
    [
      'a string margin',
      json([{ id: 'a', margin: '1.5' }]),
      /^p\.json: id "a" margin: must be a finite number, got string$/,
    ],
    [
      'a margin that overflows to Infinity',
      utf8('[{"id":"a","margin":1e999}]'),
      /^p\.json: id "a" margin: must be a finite number, got Infinity$/,
    ],
    ['a null margin', json([{ id: 'a', margin: null }]), /^p\.json: id "a" margin: must be a finite number, got null$/],
    [
      'a non-string reason',
      json([{ id: 'a', reason: 3 }]),
      /^p\.json: id "a" reason: .*expected string, received number$/,
    ],
    ['an unknown key', json([{ id: 'a', candidate: ['x'] }]), /^p\.json: id "a": Unrecognized key: "candidate"$/],
    [
      'a duplicate id',
      json([
        { id: 'a', candidates: ['x'] },
        { id: 'a', candidates: ['y'] },
      ]),
      /^p\.json: id "a": duplicate id \(rows \[0\] and \[1\]\)$/,
    ],
    ['non-UTF-8 bytes', new Uint8Array([0x5b, 0xff, 0x5d]), /^p\.json: byte 1: not valid UTF-8$/],
  ])('refuses %s', (_name, bytes, expected) => {
    expect(messageOf(() => parsePredictions(bytes, 'p.json'))).toMatch(expected);
  });
});

describe('firstInvalidUtf8Offset', () => {
  it.each([
    [[0x41, 0xc0, 0x80], 1], // overlong two-byte form
    [[0xe0, 0x80, 0x80], 0], // overlong three-byte form
    [[0xed, 0xa0, 0x80], 0], // an encoded UTF-16 surrogate
    [[0xf4, 0x90, 0x80, 0x80], 0], // above U+10FFFF
    [[0xf0, 0xa0, 0xae, 0xb7, 0xe3, 0x81], 4], // 𠮷 then a truncated sequence
    [[0xe3, 0x81, 0x82], 3], // valid throughout: the length
  ])('finds the first bad byte of %j at %i', (bytes, offset) => {
    expect(firstInvalidUtf8Offset(new Uint8Array(bytes))).toBe(offset);
  });
});

describe('hand-written fast paths', () => {
  // Values of every JSON type, including the edge cases each schema cares about.
  const values: unknown[] = [
    undefined,
    null,
    true,
    0,
    -1.5,
    1e308,
    '',
    'x',
    '𠮷',
    'clean',
    'typo',
    'unspecified',
    'deberta',
    'rule',
    'lfm',
    'provider',
    [],
    [''],
    ['x'],
    ['x', ''],
    ['x', 1],
    [null],
    {},
    { id: 'x' },
  ];
  const keysFor = {
    generic: ['id', 'input', 'references', 'label', 'extra'],
    ajimee: ['index', 'input', 'expected_output', 'context_text'],
    predictions: ['id', 'candidates', 'provenance', 'reason', 'margin', 'candidate'],
  };
  let seed = 99;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  function randomRow(keys: string[], valid: Record<string, unknown>): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    for (const key of keys) {
      const roll = next();
      if (roll < 0.55 && key in valid) row[key] = valid[key];
      else if (roll < 0.85) {
        const value = values[Math.floor(next() * values.length)];
        if (value !== undefined) row[key] = value;
      }
    }
    return row;
  }
  const cases = [
    [
      'generic',
      isPlainGenericRow,
      GenericItemRow,
      keysFor.generic,
      { id: 'a', input: 'x', references: ['x'], label: 'clean' },
    ],
    [
      'ajimee',
      isPlainAjimeeRow,
      AjimeeItemRow,
      keysFor.ajimee,
      { index: '7', input: 'カ', expected_output: ['か'], context_text: '' },
    ],
    [
      'predictions',
      isPlainPredictionRow,
      PredictionRow,
      keysFor.predictions,
      { id: 'a', candidates: ['x', ''], provenance: 'lfm', reason: 'r', margin: 0.5 },
    ],
  ] as const;

  it.each(cases)(
    '%s: never accepts a row its zod schema refuses, and accepts the plain valid shapes',
    (_name, fast, schema, keys, valid) => {
      let acceptedByBoth = 0;
      for (let trial = 0; trial < 5000; trial++) {
        const row = randomRow([...keys], valid);
        const zodAccepts = schema.safeParse(row).success;
        if (fast(row)) {
          expect(zodAccepts, JSON.stringify(row)).toBe(true);
          acceptedByBoth++;
        }
      }
      expect(acceptedByBoth).toBeGreaterThan(50); // the fast path is really taken
      expect(fast(valid)).toBe(true);
      for (const notARow of [null, [], 'x', 3]) expect(fast(notARow)).toBe(false);
    },
  );
});
