import { describe, expect, it } from 'vitest';
import { itemRowsOf, itemTableOf, readItemTable } from '../../src/core/artifacts/item-table.ts';
import { parseItems, type ItemFormat, type ItemRow } from '../../src/core/artifacts/items.ts';
import { JsonScanner, numberValues } from '../../src/core/artifacts/json-scanner.ts';
import { PROVENANCES } from '../../src/core/artifacts/artifact-enums.ts';
import {
  predictionTableOf,
  readPredictionTable,
  type PredictionTable,
} from '../../src/core/artifacts/prediction-table.ts';
import { parsePredictions, type PredictionRow } from '../../src/core/artifacts/predictions.ts';
import { ByteSink, textOf } from '../../src/core/artifacts/text-bytes.ts';
import { scoreRows } from '../../src/core/scoring/score-rows.ts';

const encoder = new TextEncoder();
const utf8 = (text: string) => encoder.encode(text);

/** A table's rows as the zod path gives them (null and absent candidates both read as absent). */
function predictionRowsOf(table: PredictionTable): PredictionRow[] {
  const rows: PredictionRow[] = [];
  for (let p = 0; p < table.rows; p++) {
    const row: PredictionRow = { id: textOf(table.text, table.ids[2 * p], table.ids[2 * p + 1]) };
    if (table.candidateCounts[p] >= 0) {
      const candidates: string[] = [];
      for (let k = table.candidateIndex[p]; k < table.candidateIndex[p + 1]; k++) {
        candidates.push(textOf(table.text, table.candidates[2 * k], table.candidates[2 * k + 1]));
      }
      row.candidates = candidates;
    }
    if (table.provenance[p] !== 0) row.provenance = PROVENANCES[table.provenance[p] - 1];
    if (table.reasonOf[p] >= 0) row.reason = table.reasons[table.reasonOf[p]];
    if (!Number.isNaN(table.margins[p])) row.margin = table.margins[p];
    rows.push(row);
  }
  return rows;
}

function normalised(rows: readonly PredictionRow[]): PredictionRow[] {
  return rows.map((row) => {
    const copy = { ...row };
    if (copy.candidates === null) delete copy.candidates;
    return copy;
  });
}

/** What the zod path makes of the bytes: its rows, or its one-line error. */
function slowItems(bytes: Uint8Array, format: ItemFormat): ItemRow[] | string {
  try {
    return parseItems(bytes, 'i.json', format);
  } catch (error) {
    return (error as Error).message;
  }
}

function slowPredictions(bytes: Uint8Array): PredictionRow[] | string {
  try {
    return parsePredictions(bytes, 'p.json');
  } catch (error) {
    return (error as Error).message;
  }
}

// A seeded generator of hostile-ish JSON: random values, key orders, repeated keys, escapes, whitespace, numbers in
// every spelling, and byte-level damage, so the byte readers meet what JSON.parse and zod meet.
let seed = 20261201;
const next = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
// Long strings and control characters too, so that a bound or pattern added to a zod schema (and not to the byte
// reader) makes this test fail.
const strings = [
  '',
  'a',
  'x',
  'row-1',
  'clean',
  'typo',
  'unspecified',
  'deberta',
  'lfm',
  'rule',
  'provider',
  'かな',
  '漢字',
  '𠮷野家',
  'a"b',
  'a\\b',
  'tab\tnew\nline',
  '\u2028',
  '\u0000',
  '\ud800',
  '\udc00x',
  '😀',
  'é',
  'x'.repeat(300),
  '漢'.repeat(3000),
  '\u001b[31m',
  '\u202e',
];
const numbers = [
  '0',
  '-0',
  '1',
  '-1.5',
  '2.5e3',
  '1E+2',
  '1e-7',
  '0.30000000000000004',
  '1e999',
  '-1e999',
  '123456789012345678901234567890',
];

function stringToken(value: string, escapeRate = 1): string {
  // Escape some characters JSON.stringify would leave alone, to exercise the escape path.
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    const roll = next() / escapeRate;
    if (char === '"' || char === '\\' || code < 0x20 || (code >= 0xd800 && code <= 0xdfff))
      out += JSON.stringify(char).slice(1, -1);
    else if (roll < 0.15 && code <= 0xffff) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else if (roll < 0.2 && code > 0xffff)
      out += `\\u${char.charCodeAt(0).toString(16)}\\u${char.charCodeAt(1).toString(16)}`; // an escaped pair
    else if (roll < 0.22 && char === '/') out += '\\/';
    else out += char;
  }
  return `${out}"`;
}

function space(): string {
  return next() < 0.8 ? '' : pick([' ', '\n', '\t', '\r\n  ']);
}

function valueToken(depth = 0): string {
  const roll = next();
  if (roll < 0.35) return stringToken(pick(strings));
  if (roll < 0.45) return pick(numbers);
  if (roll < 0.5) return pick(['true', 'false', 'null']);
  if (roll < 0.75 || depth > 2) {
    const length = Math.floor(next() * 4);
    const parts: string[] = [];
    for (let i = 0; i < length; i++) parts.push(next() < 0.8 ? stringToken(pick(strings)) : valueToken(depth + 1));
    return `[${space()}${parts.join(`${space()},${space()}`)}${space()}]`;
  }
  return `{${space()}"k"${space()}:${space()}${valueToken(depth + 1)}${space()}}`;
}

function objectToken(keys: string[], valid: Record<string, string>): string {
  const members: string[] = [];
  const keyToken = (key: string) => stringToken(key, 0.05); // keys escaped now and then
  for (const key of keys) {
    const roll = next();
    if (key in valid ? roll < 0.75 : roll < 0.85) {
      if (key in valid) members.push(`${keyToken(key)}${space()}:${space()}${valid[key]}`);
    } else if (roll < 0.9) members.push(`${keyToken(key)}${space()}:${space()}${valueToken()}`);
    if (next() < 0.03) members.push(`${keyToken(key)}:${valueToken()}`); // the same key again
  }
  if (next() < 0.5) members.reverse();
  return `{${space()}${members.join(`${space()},${space()}`)}${space()}}`;
}

function damage(bytes: Uint8Array): Uint8Array {
  const roll = next();
  if (roll < 0.85 || bytes.length === 0) return bytes;
  const at = Math.floor(next() * bytes.length);
  const copy = Array.from(bytes);
  if (roll < 0.9)
    copy.splice(at); // truncated
  else if (roll < 0.94) copy.splice(at, 0, pick([0xff, 0xc0, 0x80, 0xed, 0xe3, 0x00, 0x0a, 0x22, 0x5c, 0x2c]));
  else if (roll < 0.97) copy.splice(at, 1);
  else copy.unshift(0xef, 0xbb, 0xbf); // a (second) byte order mark
  return new Uint8Array(copy);
}

function randomFile(keys: string[], valid: Record<string, string>): Uint8Array {
  const rows: string[] = [];
  const count = Math.floor(next() * 4);
  for (let i = 0; i < count; i++)
    rows.push(
      objectToken(keys, { ...valid, [keys[0]]: stringToken(`${pick(['r', 'a', 'ｒ'])}${Math.floor(next() * 6)}`) }),
    );
  const bom = next() < 0.05 ? '\ufeff' : '';
  return damage(utf8(`${bom}${space()}[${space()}${rows.join(`${space()},${space()}`)}${space()}]${space()}`));
}

describe('byte readers (item and prediction tables)', () => {
  it.each([
    [
      'generic',
      ['id', 'input', 'references', 'label', 'extra'],
      { input: '"x"', references: '["x", "y"]', label: '"clean"' },
    ],
    [
      'ajimee',
      ['index', 'input', 'expected_output', 'context_text'],
      { input: '"カ"', expected_output: '["か"]', context_text: '{"a": [1, {"b": null}]}' },
    ],
  ] as const)('items (%s): never accept what parseItems refuses, and read what it reads', (format, keys, valid) => {
    let accepted = 0;
    for (let trial = 0; trial < 3000; trial++) {
      const bytes = randomFile([...keys], valid);
      const table = readItemTable(bytes, format);
      const slow = slowItems(bytes, format);
      if (table === undefined) continue;
      accepted++;
      expect(slow, new TextDecoder().decode(bytes)).not.toBeTypeOf('string');
      expect(itemRowsOf(table)).toEqual(slow);
    }
    expect(accepted).toBeGreaterThan(100); // the byte reader is really taken
  });

  it('predictions: never accept what parsePredictions refuses, and read what it reads', () => {
    const valid = { candidates: '["x", ""]', provenance: '"lfm"', reason: '"r"', margin: '0.5' };
    let accepted = 0;
    for (let trial = 0; trial < 4000; trial++) {
      const bytes = randomFile(['id', 'candidates', 'provenance', 'reason', 'margin', 'candidate'], valid);
      const table = readPredictionTable(bytes);
      const slow = slowPredictions(bytes);
      if (table === undefined) {
        expect(readPredictionTable(bytes, 1 + (trial % 13))).toBeUndefined();
        continue;
      }
      accepted++;
      expect(slow, new TextDecoder().decode(bytes)).not.toBeTypeOf('string');
      expect(predictionRowsOf(table)).toEqual(normalised(slow as PredictionRow[]));
      // Read through a window of a few bytes, as a file is read: rows cut anywhere, the same table.
      expect(readPredictionTable(bytes, 1 + (trial % 13))).toEqual(table);
    }
    expect(accepted).toBeGreaterThan(100);
  });

  it('reads the plain shapes JSON.stringify writes, BOM and all', () => {
    const items: ItemRow[] = [
      { id: 'a', input: 'かな', references: ['漢字', '𠮷'], label: 'typo' },
      { id: 'b', input: 'x', references: ['x'], label: 'clean' },
    ];
    const table = readItemTable(utf8(`\ufeff${JSON.stringify(items)}`), 'generic');
    expect(table).toBeDefined();
    expect(itemRowsOf(table!)).toEqual(items);
    const predictions: PredictionRow[] = [
      { id: 'a', candidates: ['漢字', ''], provenance: 'deberta', reason: 'accepted', margin: 0.25 },
      { id: 'b', candidates: null, reason: 'low_margin' },
      { id: 'c', candidates: [], margin: -0 },
    ];
    const read = readPredictionTable(utf8(JSON.stringify(predictions).replace('"margin":0}', '"margin":-0}')));
    expect(read).toBeDefined();
    expect(predictionRowsOf(read!)).toEqual(normalised(predictions));
    expect(Object.is(read!.margins[2], -0)).toBe(true);
    expect(read!.reasons).toEqual(['accepted', 'low_margin']);
  });

  it.each([
    ['a key twice (JSON.parse keeps the last one)', '[{"id":"a","input":"x","references":["x"],"id":"b"}]'],
    ['an escaped key', '[{"\\u0069d":"a","input":"x","references":["x"]}]'],
    ['an unknown key', '[{"id":"a","input":"x","references":["x"],"lable":"clean"}]'],
    ['zero rows', '[]'],
    ['a clean row whose input is no reference', '[{"id":"a","input":"x","references":["y"],"label":"clean"}]'],
    ['a duplicate id', '[{"id":"a","input":"x","references":["x"]},{"id":"a","input":"x","references":["x"]}]'],
    ['a second BOM', '\ufeff\ufeff[{"id":"a","input":"x","references":["x"]}]'],
    ['trailing text', '[{"id":"a","input":"x","references":["x"]}] x'],
    ['a raw control character in a string', '[{"id":"a","input":"x\ty","references":["x"]}]'],
  ])('declines (for parseItems to judge) %s', (_name, text) => {
    expect(readItemTable(utf8(text), 'generic')).toBeUndefined();
  });

  it('declines deep nesting in an ignored AJIMEE field, which parseItems still reads', () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const bytes = utf8(`[{"index":"1","input":"x","expected_output":["x"],"context_text":${deep}}]`);
    expect(readItemTable(bytes, 'ajimee')).toBeUndefined();
    expect(parseItems(bytes, 'a.json', 'ajimee')).toEqual([
      { id: '1', input: 'x', references: ['x'], label: 'unspecified' },
    ]);
  });

  it('declines a margin that parses to Infinity (zod names it)', () => {
    expect(readPredictionTable(utf8('[{"id":"a","margin":1e999}]'))).toBeUndefined();
    expect(slowPredictions(utf8('[{"id":"a","margin":1e999}]'))).toMatch(
      /margin: must be a finite number, got Infinity/,
    );
  });

  it('reads the margins of many rows (converted in batches) as JSON.parse does; declines an Infinity late on', () => {
    // Margins on two rows of three, with tokens JSON.parse rounds (17+ digits, exponents, -0), over 20,000 rows.
    const margin = (p: number) => (p % 5 === 0 ? '-0' : `${p}.123456789012345678e-${p % 7}`);
    const row = (p: number) => (p % 3 === 2 ? `{"id":"r${p}"}` : `{"id":"r${p}","margin":${margin(p)}}`);
    const rows = Array.from({ length: 20_000 }, (_, p) => row(p));
    const text = `[${rows.join(',')}]`;
    const read = readPredictionTable(utf8(text), 65_536);
    expect(read).toBeDefined();
    expect(read!.margins.length).toBe(20_000);
    const expected = (JSON.parse(text) as { margin?: number }[]).map((row) => row.margin ?? NaN);
    expect([...read!.margins]).toEqual(expected);
    expect(Object.is(read!.margins[0], -0)).toBe(true);
    rows[19_000] = '{"id":"r19000","margin":1e999}';
    expect(readPredictionTable(utf8(`[${rows.join(',')}]`), 65_536)).toBeUndefined();
  });

  it('compares escaped and raw spellings of one string as equal, and keeps lone surrogates apart', () => {
    const items = readItemTable(
      utf8(
        '[{"id":"a","input":"\\u3042","references":["あ"],"label":"clean"},{"id":"b","input":"x","references":["\\ud800"]}]',
      ),
      'generic',
    );
    expect(items).toBeDefined(); // the clean row's escaped input equals its raw reference
    expect(itemRowsOf(items!)[1].references).toEqual(['\ud800']);
    const outcomes = scoreRows(
      [
        { id: 'a', input: 'あ', references: ['あ'], label: 'clean' },
        { id: 'b', input: '\ud800', references: ['\ud800x'], label: 'typo' },
        { id: 'c', input: '\ud83d\ude00', references: ['\ud83d'], label: 'typo' },
      ],
      [{ id: 'a', candidates: ['あ'] }, { id: 'b', candidates: ['\ud801x', '\ud800x'] }, undefined],
      8,
    );
    expect(outcomes.map((o) => [o.correct, o.rank, o.inputMinCer, o.effectiveMinCer, o.overcorrected])).toEqual([
      [true, 1, 0, 0, false],
      [false, 2, 0.5, 0.5, false],
      [false, null, 1, 1, false], // one astral character against one lone surrogate: one substitution
    ]);
  });
});

describe('JsonScanner', () => {
  const texts = [
    '0',
    '-0',
    '1.5',
    '-1.5e10',
    '1E+2',
    '1e-2',
    '"x"',
    '"\\u00e9\\n\\/"',
    'true',
    'false',
    'null',
    '[]',
    '{}',
    ' [ 1 , "a" , { "b" : [ null ] } ] ',
    '01',
    '1.',
    '.5',
    '-',
    '+1',
    '1e',
    '1e+',
    '0x1',
    'NaN',
    'Infinity',
    'tru',
    'nul',
    '"\\x"',
    '"\\u12"',
    '"\\u12G4"',
    '"a',
    '[1,]',
    '[,1]',
    '{"a"}',
    '{"a":}',
    '{a:1}',
    '{"a":1,}',
    "'x'",
    '[1 2]',
    '"\u0001"',
    '"\u007f"',
    '\u00a0[]',
    '[]\u0000',
    '"\ud800"',
  ];
  it.each(texts)('accepts %j exactly when JSON.parse does', (text) => {
    let parses = true;
    try {
      JSON.parse(text);
    } catch {
      parses = false;
    }
    let scans = true;
    try {
      const scanner = new JsonScanner(utf8(text));
      scanner.skipValue();
      scanner.finish();
    } catch {
      scans = false;
    }
    expect(scans).toBe(parses);
  });

  it('refuses malformed UTF-8 inside strings (overlong, surrogate, truncated, stray continuation)', () => {
    for (const bad of [
      [0xc0, 0x80],
      [0xe0, 0x80, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe3, 0x81],
      [0x80],
      [0xff],
    ]) {
      const bytes = new Uint8Array([0x22, ...bad, 0x22]);
      expect(() => new JsonScanner(bytes).skipValue(), JSON.stringify(bad)).toThrow();
    }
    expect(() => new JsonScanner(utf8('"𠮷あé"')).skipValue()).not.toThrow();
  });

  it('converts number tokens exactly as JSON.parse does', () => {
    const tokens = [
      '0',
      '-0',
      '0.1',
      '2.1846395577490330',
      '1e-7',
      '123456789012345678901234567890',
      '1e999',
      '5e-324',
      '1.7976931348623157e308',
    ];
    const bytes = utf8(tokens.join(' '));
    const ranges: number[] = [];
    let at = 0;
    for (const token of tokens) {
      ranges.push(at, at + token.length);
      at += token.length + 1;
    }
    expect(Array.from(numberValues(bytes, Uint32Array.from(ranges)))).toEqual(
      tokens.map((t) => JSON.parse(t) as number),
    );
  });
});

describe('tables from parsed rows', () => {
  it('round-trips rows through WTF-8 bytes, lone surrogates included', () => {
    const items: ItemRow[] = [
      { id: '\ud800', input: '\udc00\ud800', references: ['😀', '\ud83d'], label: 'unspecified' },
    ];
    expect(itemRowsOf(itemTableOf(items))).toEqual(items);
    const predictions: PredictionRow[] = [
      { id: 'a', candidates: ['\udfff', ''], provenance: 'rule', reason: '\ud800', margin: 1 },
    ];
    expect(predictionRowsOf(predictionTableOf(predictions))).toEqual(predictions);
    const sink = new ByteSink(1);
    sink.writeText('a\ud83d\ude00\ud800');
    expect(Array.from(sink.view())).toEqual([0x61, 0xf0, 0x9f, 0x98, 0x80, 0xed, 0xa0, 0x80]);
  });
});
