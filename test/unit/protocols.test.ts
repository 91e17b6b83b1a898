// The shipped protocol files (public/protocols/): each valid against drb.protocol.v1 and against the catalog, all
// listed, and a bad file refused with one line naming the file and the field (the page and the CLI print it).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/core/catalog/catalog.ts';
import {
  parseProtocol,
  protocolCatalogProblems,
  protocolPath,
  SHIPPED_PROTOCOL_IDS,
} from '../../src/core/field/field-protocol.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';

const DIR = join(import.meta.dirname, '..', '..', 'public', 'protocols');
const catalog = parseCatalog(
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'src', 'catalog', 'catalog.json'), 'utf8')),
  'catalog.json',
);
const read = (id: string) => JSON.parse(readFileSync(join(DIR, `${id}.json`), 'utf8')) as Record<string, unknown>;

describe('shipped protocols', () => {
  it('lists exactly the files in public/protocols/', () => {
    expect(readdirSync(DIR).sort()).toEqual([...SHIPPED_PROTOCOL_IDS].map((id) => `${id}.json`).sort());
  });

  it.each(SHIPPED_PROTOCOL_IDS)('%s is valid, named after its file, and runnable from the catalog', (id) => {
    const parsed = parseProtocol(read(id), protocolPath(id), id);
    if (!parsed.ok) throw new Error(parsed.line);
    expect(parsed.protocol.id).toBe(id);
    expect(protocolCatalogProblems(parsed.protocol, catalog, protocolPath(id))).toEqual([]);
    expect(parsed.protocol.min_cold).toBeGreaterThanOrEqual(5);
    expect(parsed.protocol.min_warm).toBeGreaterThanOrEqual(20);
    // The dtype it states is the catalog's (the run loads the catalog's).
    expect(parsed.protocol.dtype).toBe(catalog.models.find((m) => m.id === parsed.protocol.model)!.dtype);
    expect(validateReceipt(read(id))).toMatchObject({ kind: 'artifact', problems: [] });
  });
});

describe('a bad protocol file', () => {
  const good = read('ort-tiny-xenc-wasm');
  it.each([
    [
      'a minimum below the procedure',
      { min_cold: 2 },
      "protocols/x.json: min_cold: must be at least 5, the device procedure's minimum",
    ],
    ['an unknown engine', { engine: 'tvm' }, 'protocols/x.json: engine: '],
    ['an unknown field', { extra: 1 }, 'protocols/x.json: (root): '],
    [
      'a title with a terminal escape',
      { title: 'a\u001b[2Jb' },
      'protocols/x.json: title: holds a control or bidirectional-override character',
    ],
    ['a 6,000-character note', { memory_note: 'x'.repeat(6000) }, 'protocols/x.json: memory_note: '],
  ])('%s: one line naming the file and the field', (_name, change, line) => {
    const parsed = parseProtocol({ ...good, ...change }, 'protocols/x.json');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.line.startsWith(line)).toBe(true);
      expect(parsed.line).not.toContain('\n');
    }
  });

  it('whose id is not its file name: one line (the page loads protocols/<id>.json for ?protocol=<id>)', () => {
    const other = SHIPPED_PROTOCOL_IDS[1];
    const parsed = parseProtocol(read(SHIPPED_PROTOCOL_IDS[0]), protocolPath(other), other);
    expect(parsed).toEqual({
      ok: false,
      line: `${protocolPath(other)}: id: is "${SHIPPED_PROTOCOL_IDS[0]}", but the file is named for protocol "${other}" (a protocol's id is its file name)`,
    });
  });

  it('against the catalog: a model of another engine, a missing input', () => {
    const parsed = parseProtocol({ ...good, engine: 'transformers', input: 'nope' }, 'x.json');
    if (!parsed.ok) throw new Error(parsed.line);
    expect(protocolCatalogProblems(parsed.protocol, catalog, 'x.json')).toEqual([
      'x.json: engine: is transformers, but ort-tiny-xenc runs on ort',
      'x.json: input: no catalog input "nope"',
    ]);
  });
});
