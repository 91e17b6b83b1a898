import { describe, expect, it } from 'vitest';
import { parseAutomation, stoppingRuleOf } from '../../src/core/automation/automation.ts';
import { parseRouteSpec } from '../../src/core/comparison/route-spec.ts';

const context = { modelIds: ['ort-heavy-xenc', 'tf-tiny-causal-lm'] };

describe('route spec', () => {
  it('parses wasm-<threads> and webgpu, and refuses anything else', () => {
    expect(parseRouteSpec('wasm-1,wasm-2,webgpu')).toEqual([
      { id: 'wasm-1', ep: 'wasm', threads: 1 },
      { id: 'wasm-2', ep: 'wasm', threads: 2 },
      { id: 'webgpu', ep: 'webgpu', threads: null },
    ]);
    for (const bad of [
      'wasm-1',
      'wasm-1,wasm-1',
      'wasm-0,webgpu',
      'wasm-65,webgpu',
      'wasm,webgpu',
      'wasm-1,webgl',
      'wasm-1,,webgpu',
    ]) {
      expect(parseRouteSpec(bad), bad).toBeNull();
    }
  });

  it('drops spaces around each route, as a person types them (wasm-1, wasm-2)', () => {
    expect(parseRouteSpec('wasm-1, wasm-2 ,  webgpu ')).toEqual(parseRouteSpec('wasm-1,wasm-2,webgpu'));
    // The same route twice is still refused once the spaces are gone, and a space inside a route is not a route.
    expect(parseRouteSpec('wasm-1, wasm-1')).toBeNull();
    expect(parseRouteSpec('wasm- 1,webgpu')).toBeNull();
  });
});

describe('automation params for compare and generate runs', () => {
  it('accepts autorun=compare and autorun=generate with their parameters', () => {
    const { settings, errors } = parseAutomation(
      '?autorun=generate&engine=transformers&model=tf-tiny-causal-lm&prompts=drb-gen-ja-en-v1&reps=2',
      context,
    );
    expect(errors).toEqual([]);
    expect(settings).toMatchObject({ autorun: ['generate'], prompts: 'drb-gen-ja-en-v1', reps: 2, maxNewTokens: null });
    expect(parseAutomation('?max_tokens=8', context).settings.maxNewTokens).toBe(8);
    expect(parseAutomation('?max_tokens=0', context).errors).toEqual([
      "Invalid max_tokens param: '0', expected an integer from 1 to 4096",
    ]);
    const compare = parseAutomation(
      '?autorun=compare&model=ort-heavy-xenc&routes=wasm-1,wasm-2&baseline=wasm-2&rounds=5&seed=7&tolerance=1e-5',
      context,
    );
    expect(compare.errors).toEqual([]);
    expect(compare.settings).toMatchObject({
      autorun: ['compare'],
      baseline: 'wasm-2',
      rounds: 5,
      seed: 7,
      tolerance: 1e-5,
    });
    expect(compare.settings.compareRoutes.map((r) => r.id)).toEqual(['wasm-1', 'wasm-2']);
    // A reranker compares on candidate rows of a suite: `suite` and `rows` (first rows with candidates).
    const rows = parseAutomation(
      '?autorun=compare&engine=transformers&model=tf-tiny-causal-lm&suite=ajimee-demo-24&rows=3',
      context,
    );
    expect(rows.errors).toEqual([]);
    expect(rows.settings).toMatchObject({ engine: 'transformers', suite: 'ajimee-demo-24', compareRows: 3 });
  });

  it('has defaults: 3 repetitions, the shipped prompt set, wasm-1 / wasm-2 / webgpu with the first as baseline', () => {
    const { settings } = parseAutomation('', context);
    expect(settings).toMatchObject({
      prompts: 'drb-gen-ja-en-v1',
      reps: 3,
      baseline: null,
      rounds: 10,
      seed: 42,
      tolerance: null,
      compareRows: 4,
    });
    expect(settings.compareRoutes.map((r) => r.id)).toEqual(['wasm-1', 'wasm-2', 'webgpu']);
  });

  it('gives one clear message per bad value', () => {
    const { errors } = parseAutomation('?reps=4&routes=wasm-1&rounds=0&tolerance=abc&prompts=../x&rows=65', context);
    expect(errors).toEqual([
      "Invalid prompts param: '../x', expected a prompt set id (lowercase letters, digits and dashes)",
      "Invalid reps param: '4', expected an integer from 1 to 3",
      "Invalid routes param: 'wasm-1', expected a comma-separated list of 2 to 6 distinct routes, each wasm-<threads 1..64> or webgpu",
      "Invalid rounds param: '0', expected an integer from 1 to 200",
      "Invalid rows param: '65', expected an integer from 1 to 64",
      "Invalid tolerance param: 'abc', expected a number from 0 to 1, e.g. 1e-4",
    ]);
    expect(parseAutomation('?autorun=cold,generate', context)).toMatchObject({
      errors: ["Invalid autorun param: 'cold,generate', expected generate or compare alone"],
      settings: { autorun: [] },
    });
    expect(parseAutomation('?routes=wasm-1,webgpu&baseline=wasm-2', context).errors).toEqual([
      "Invalid baseline param: 'wasm-2', expected one of the routes (wasm-1, webgpu)",
    ]);
  });
});

describe('stopping rule and sweep parameters', () => {
  it('takes the same route twice with a one-letter suffix (an A/A comparison)', () => {
    expect(parseRouteSpec('wasm-1,wasm-1-b')).toEqual([
      { id: 'wasm-1', ep: 'wasm', threads: 1 },
      { id: 'wasm-1-b', ep: 'wasm', threads: 1 },
    ]);
    expect(parseRouteSpec('webgpu,webgpu-b')![1]).toEqual({ id: 'webgpu-b', ep: 'webgpu', threads: null });
    expect(parseRouteSpec('wasm-1,wasm-1-bb')).toBeNull();
    expect(parseAutomation('?autorun=compare&routes=wasm-1,wasm-1-b&baseline=wasm-1-b', context).errors).toEqual([]);
  });

  it('declares the until-clear rule from the URL, and a fixed rule of `rounds` otherwise', () => {
    const { settings, errors } = parseAutomation(
      '?autorun=compare&stop=until-clear&min_rounds=5&max_rounds=30&max_time_ms=60000&tie_zone=0.1&max_width=0.08',
      context,
    );
    expect(errors).toEqual([]);
    expect(stoppingRuleOf(settings)).toEqual({
      kind: 'until-clear',
      min_rounds: 5,
      max_rounds: 30,
      max_time_ms: 60000,
      tie_zone: 0.1,
      max_width: 0.08,
      look_growth: 1.5,
    });
    expect(stoppingRuleOf(parseAutomation('?autorun=compare&rounds=7', context).settings)).toMatchObject({
      kind: 'fixed',
      min_rounds: 7,
      max_rounds: 7,
      max_time_ms: null,
    });
  });

  it('refuses bad rule and sweep values with one line each', () => {
    expect(parseAutomation('?stop=auto', context).errors).toEqual([
      "Invalid stop param: 'auto', expected one of fixed, until-clear",
    ]);
    expect(parseAutomation('?tie_zone=5', context).errors).toEqual([
      "Invalid tie_zone param: '5', expected a number above 0 and below 1, e.g. 0.05",
    ]);
    expect(parseAutomation('?min_rounds=1', context).errors).toEqual([
      "Invalid min_rounds param: '1', expected an integer from 2 to 200",
    ]);
    expect(parseAutomation('?min_rounds=50&max_rounds=20', context).errors).toEqual([
      "Invalid min_rounds param: '50', expected at most max_rounds (20)",
    ]);
    expect(parseAutomation('?sizes=64,16', context).errors).toEqual([
      "Invalid sizes param: '64,16', expected 2 to 32 growing sizes, comma-separated, e.g. 16,64,256",
    ]);
    expect(parseAutomation('?autorun=sweep&routes=wasm-1,wasm-2,webgpu', context).errors).toEqual([
      "Invalid routes param: 'wasm-1,wasm-2,webgpu', expected exactly 2 routes for a sweep",
    ]);
    expect(parseAutomation('?autorun=sweep,cold', context).errors).toEqual([
      "Invalid autorun param: 'sweep,cold', expected sweep alone",
    ]);
    const sweep = parseAutomation('?autorun=sweep&model=ort-heavy-xenc&routes=wasm-1,wasm-2&sizes=8,64,512', context);
    expect(sweep.errors).toEqual([]);
    expect(sweep.settings).toMatchObject({ autorun: ['sweep'], sweepSizes: [8, 64, 512] });
  });
});
