import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCatalog, parseFixedInput, ModelCatalog } from '../../src/core/catalog/catalog.ts';
import { sha256Hex } from '../../src/core/bytes/sha256.ts';
import { pinFixtures } from '../../src/fixtures/catalog-pins.ts';
import { generateOrtFixtures } from '../../src/fixtures/ort-fixtures.ts';
import { main } from '../../src/cli/main.ts';

const root = new URL('../../', import.meta.url);
const catalogJson = JSON.parse(readFileSync(new URL('src/catalog/catalog.json', root), 'utf8'));

describe('ORT fixtures', () => {
  it('regenerate byte-identical to the committed files', () => {
    const first = generateOrtFixtures();
    const second = generateOrtFixtures();
    expect(first.map((f) => f.publicPath)).toEqual([
      'models/ort-tiny-xenc/model.onnx',
      'models/ort-heavy-xenc/model.onnx',
      'models/ort-webgpu-xenc/model.onnx',
      'models/ort-cpu-op-xenc/model.onnx',
      'inputs/tokens-2x16.json',
      'inputs/tokens-4x128.json',
    ]);
    for (const [i, file] of first.entries()) {
      const committed = new Uint8Array(readFileSync(new URL(`public/${file.publicPath}`, root)));
      expect(Buffer.from(file.bytes).equals(Buffer.from(committed)), file.publicPath).toBe(true);
      expect(Buffer.from(second[i].bytes).equals(Buffer.from(file.bytes))).toBe(true);
    }
  });

  it('are pinned in the catalog with their real bytes and SHA-256', async () => {
    const catalog = parseCatalog(catalogJson, 'catalog.json');
    const { changed } = await pinFixtures(catalog, generateOrtFixtures());
    expect(changed).toEqual([]);
    const tiny = catalog.models.find((m) => m.id === 'ort-tiny-xenc')!;
    const bytes = readFileSync(new URL('public/models/ort-tiny-xenc/model.onnx', root));
    expect(tiny.files[0]).toEqual({ path: 'model.onnx', bytes: bytes.byteLength, sha256: await sha256Hex(bytes) });
    expect(tiny.kind).toBe('fixture');
  });

  it('inputs hold token ids only, with a padded row', () => {
    const input = parseFixedInput(
      JSON.parse(readFileSync(new URL('public/inputs/tokens-2x16.json', root), 'utf8')),
      'tokens-2x16.json',
    );
    expect(input.input_ids.length).toBe(2);
    expect(input.attention_mask[1].slice(12)).toEqual([0, 0, 0, 0]);
    expect(input.attention_mask[0].every((v) => v === 1)).toBe(true);
  });

  it('`drb fixtures --check` passes on the committed tree', async () => {
    expect(await main(['fixtures', '--check'])).toBe(0);
  });
});

describe('catalog schema', () => {
  it('refuses a duplicate model id and a dangling default_input with a field path', () => {
    const dup = structuredClone(catalogJson);
    dup.models.push(structuredClone(dup.models[0]));
    expect(() => parseCatalog(dup, 'c.json')).toThrow(
      /^c\.json: models\[\d+\]\.id: duplicate model id "ort-tiny-xenc"$/,
    );
    const dangling = structuredClone(catalogJson);
    dangling.models[0].default_input = 'nope';
    expect(() => parseCatalog(dangling, 'c.json')).toThrow('c.json: models[0].default_input: names no input "nope"');
  });

  it('refuses a path escaping the model folder and unknown keys', () => {
    const escaping = structuredClone(catalogJson);
    escaping.models[0].files[0].path = '../secret.onnx';
    expect(() => parseCatalog(escaping, 'c.json')).toThrow(
      /c\.json: models\[0\]\.files\[0\]\.path: expected a relative path/,
    );
    const extra = structuredClone(catalogJson);
    extra.models[0].text = 'hello';
    expect(ModelCatalog.safeParse(extra).success).toBe(false);
  });
});
