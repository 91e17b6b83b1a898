/**
 * The model a run panel starts with (initialPanelModel, src/core/catalog/catalog.ts), on the shipped catalog: the comparison
 * panel's and the generation panel's rules, which were written twice before.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { initialPanelModel, parseCatalog, type CatalogModel } from '../../src/core/catalog/catalog.ts';
import { canRun } from '../../src/core/engines/engine-capabilities.ts';

const catalog = parseCatalog(
  JSON.parse(readFileSync(new URL('../../src/catalog/catalog.json', import.meta.url), 'utf8')),
  'catalog.json',
);
const compare = catalog.models.filter((m) => canRun(m, 'compare'));
const generate = catalog.models.filter((m) => canRun(m, 'generate'));
const heavy = (m: CatalogModel) => m.id === 'ort-heavy-xenc';
const fixture = (m: CatalogModel) => m.kind === 'fixture';

describe('initialPanelModel', () => {
  it("starts with the panel's own default when the URL names no model", () => {
    expect(initialPanelModel(compare, null, false, heavy)).toBe('ort-heavy-xenc');
    expect(initialPanelModel(compare, null, true, heavy)).toBe('ort-heavy-xenc');
    expect(initialPanelModel(generate, null, false, fixture)).toBe(generate.find(fixture)!.id);
  });

  it('takes a URL model the panel offers', () => {
    const other = compare.find((m) => m.id !== 'ort-heavy-xenc')!.id;
    expect(initialPanelModel(compare, other, false, heavy)).toBe(other);
  });

  it('keeps its default for a URL model meant for another panel, unless it runs on load: then the model is used as given, to fail clearly', () => {
    const notGenerate = catalog.models.find((m) => !canRun(m, 'generate'))!.id;
    expect(initialPanelModel(generate, notGenerate, false, fixture)).toBe(generate.find(fixture)!.id);
    expect(initialPanelModel(generate, notGenerate, true, fixture)).toBe(notGenerate);
    expect(initialPanelModel(compare, 'no-such-model', true, heavy)).toBe('no-such-model');
  });

  it('falls back to the first model, and to nothing when the panel offers none', () => {
    expect(initialPanelModel(compare, null, false, () => false)).toBe(compare[0].id);
    expect(initialPanelModel([], null, false, heavy)).toBe('');
  });
});
