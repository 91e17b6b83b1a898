/**
 * The one builder of the worker's load request (src/page/worker-bridge.ts `loadRequest`): every run kind's controller
 * loads through it, so a field of `LoadRequest` is spelled out in one place.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CatalogModel } from '../../src/core/catalog/catalog.ts';
import { loadRequest } from '../../src/page/worker-bridge.ts';

const model = { id: 'ort-tiny-xenc' } as CatalogModel;
const root = join(import.meta.dirname, '..', '..');

describe('loadRequest', () => {
  it('carries the model, the route and the settings, and leaves the defaults out', () => {
    const route = { ep: 'wasm', threads: 2, allowFallback: false } as const;
    const request = loadRequest(model, route, { pageBaseUrl: 'https://x.test/' });
    expect(request).toEqual({ model, pageBaseUrl: 'https://x.test/', ...route, dtype: null });
  });

  it('passes a dtype, a cold start and picked files when the run has them', () => {
    const userFiles = [{ path: 'model.onnx', blob: new Blob([]) }];
    const route = { ep: 'webgpu', threads: null, allowFallback: true, id: 'webgpu' } as const;
    const request = loadRequest(model, route, { pageBaseUrl: '/', dtype: 'q8', coldStart: true, userFiles });
    const { id: _, ...asked } = route;
    expect(request).toEqual({ model, pageBaseUrl: '/', ...asked, dtype: 'q8', coldStart: true, userFiles });
    // A warm run's load is not a cold start: the field is absent, which the worker reads as false.
    expect(loadRequest(model, route, { pageBaseUrl: '/', coldStart: false })).not.toHaveProperty('coldStart');
  });

  it('is the only way the page asks a worker to load (no controller spells a LoadRequest out)', () => {
    const page = join(root, 'src', 'page');
    const source = (name: string) => readFileSync(join(page, name), 'utf8');
    const spelled = readdirSync(page)
      .filter((name) => name.endsWith('.ts') && name !== 'worker-bridge.ts')
      .filter((name) => /\.load\(\s*\{/.test(source(name)));
    expect(spelled).toEqual([]);
    const callers = readdirSync(page).filter((name) => /\.load\(loadRequest\(/.test(source(name)));
    expect(callers.sort()).toEqual([
      'comparison-controller.ts',
      'generation-controller.ts',
      'run-controller.ts',
      'suite-controller.ts',
    ]);
  });
});
