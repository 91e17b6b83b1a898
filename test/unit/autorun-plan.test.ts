/**
 * The autorun table (src/core/automation/autorun-plan.ts): which panel a URL's `autorun` belongs to in each view, and
 * the line that refuses an engine that cannot run what the panel would run.
 */
import { describe, expect, it } from 'vitest';
import { parseAutomation, toSearchParams, type AutomationSettings } from '../../src/core/automation/automation.ts';
import { autorunPlan, engineParamProblem } from '../../src/core/automation/autorun-plan.ts';

const MODEL_IDS = ['ort-tiny-xenc', 'tfjs-tiny-reranker'];

function parsed(settings: Partial<AutomationSettings>) {
  return parseAutomation(`?${toSearchParams(settings)}`, { modelIds: MODEL_IDS });
}

describe('engineParamProblem', () => {
  it('holds cold and warm runs to the default engine, and the model to the engine asked for', () => {
    expect(engineParamProblem('cold-warm', null, { id: 'ort-tiny-xenc', engine: 'ort' })).toBeNull();
    expect(engineParamProblem('cold-warm', 'webllm', undefined)).toBe('engine=webllm has no cold/warm runs on this page yet');
    expect(engineParamProblem('cold-warm', 'transformers', { id: 'ort-tiny-xenc', engine: 'ort' })).toBe(
      "Invalid model param: 'ort-tiny-xenc' runs on engine ort, not transformers",
    );
  });

  it('holds a suite to an engine with suite runs, and a comparison or generation to the model own engine', () => {
    expect(engineParamProblem('suite', null, undefined)).toBeNull();
    expect(engineParamProblem('suite', 'ort', undefined)).toBe(
      "Invalid engine param: 'ort', suite runs use the transformers engine",
    );
    expect(engineParamProblem('compare', 'transformers', { id: 'ort-tiny-xenc', engine: 'ort' })).toBe(
      "Invalid engine param: 'transformers', model ort-tiny-xenc runs on engine ort",
    );
    expect(engineParamProblem('generate', 'ort', { id: 'ort-tiny-xenc', engine: 'ort' })).toBeNull();
    // No model: the panel says so itself.
    expect(engineParamProblem('generate', 'ort', undefined)).toBeNull();
  });
});

describe('autorunPlan in the panels view', () => {
  it('gives cold and warm runs to the Run panel, in order', () => {
    expect(autorunPlan('panels', parsed({ autorun: ['cold', 'warm'] }))).toEqual({
      runPanel: ['cold', 'warm'],
      generate: false,
      compare: false,
      suite: false,
    });
    expect(autorunPlan('panels', parsed({})).runPanel).toEqual([]);
  });

  it('gives suite, compare and generate runs to their panels', () => {
    expect(autorunPlan('panels', parsed({ autorun: ['suite'] }))).toMatchObject({ runPanel: null, suite: true });
    expect(autorunPlan('panels', parsed({ autorun: ['compare'] }))).toMatchObject({ runPanel: null, compare: true });
    expect(autorunPlan('panels', parsed({ autorun: ['generate'] }))).toMatchObject({ runPanel: null, generate: true });
  });

  it('runs nothing while the URL has a bad parameter', () => {
    const bad = parseAutomation('?autorun=cold&threads=x', { modelIds: MODEL_IDS });
    expect(bad.errors).toHaveLength(1);
    expect(autorunPlan('panels', bad)).toEqual({ runPanel: null, generate: false, compare: false, suite: false });
  });
});
