/** The automation contract's suite parameters: autorun=suite, suite, min_margin. */
import { describe, expect, it } from 'vitest';
import { parseAutomation } from '../../src/core/automation/automation.ts';

const context = { modelIds: ['tfjs-tiny-reranker', 'tfjs-tiny-causal-lm'] };

describe('autorun=suite parameters', () => {
  it('reads suite, model, ep, threads and min_margin', () => {
    const { settings, errors } = parseAutomation(
      '?autorun=suite&engine=transformers&model=tfjs-tiny-reranker&ep=webgpu&threads=2&suite=ajimee-demo-24&min_margin=0.25',
      context,
    );
    expect(errors).toEqual([]);
    expect(settings).toMatchObject({
      autorun: ['suite'],
      engine: 'transformers',
      model: 'tfjs-tiny-reranker',
      ep: 'webgpu',
      threads: 2,
      suite: 'ajimee-demo-24',
      minMargin: 0.25,
    });
  });

  it('reads a transformers.js dtype and refuses an unknown one', () => {
    expect(parseAutomation('?autorun=suite&dtype=fp16', context).settings.dtype).toBe('fp16');
    expect(parseAutomation('?autorun=suite', context).settings.dtype).toBeNull();
    expect(parseAutomation('?autorun=suite&dtype=fp64', context).errors).toEqual([
      "Invalid dtype param: 'fp64', expected one of fp32, fp16, int8, uint8, q8, q4, q4f16, bnb4",
    ]);
  });

  it('defaults: the demo suite (null here, resolved by the panel) and no abstention', () => {
    const { settings } = parseAutomation('?autorun=suite', context);
    expect(settings.suite).toBeNull();
    expect(settings.minMargin).toBeNull();
  });

  it.each([
    ['suite=../etc', "Invalid suite param: '../etc', expected a suite id"],
    ['min_margin=-1', "Invalid min_margin param: '-1', expected a number >= 0 written as a plain decimal, e.g. 0.5"],
    ['min_margin=1e3', "Invalid min_margin param: '1e3', expected a number >= 0"],
    ['min_margin=Infinity', "Invalid min_margin param: 'Infinity', expected a number >= 0"],
  ])('refuses %s with a clear message', (query, message) => {
    const { errors } = parseAutomation(`?autorun=suite&${query}`, context);
    expect(errors).toHaveLength(1);
    expect(errors[0].startsWith(message)).toBe(true);
  });
});
