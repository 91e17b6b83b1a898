/**
 * The autorun table (src/core/automation/autorun-plan.ts): for every `autorun` kind and every view the page opens,
 * either a panel (or protocol mode) runs it, or one line refuses it naming the parameter and the view; and protocol
 * mode holds a URL's run settings to its protocol's.
 */
import { describe, expect, it } from 'vitest';
import { protocolModeParamProblems } from '../../src/core/automation/protocol-mode-params.ts';
import {
  AUTORUN_VALUES,
  parseAutomation,
  toSearchParams,
  type AutomationSettings,
} from '../../src/core/automation/automation.ts';
import {
  autorunPlan,
  engineParamProblem,
  PROTOCOL_HELD_PARAMS,
  paramsOfProtocol,
  protocolRunProblem,
  type OpenedView,
  type ProtocolTarget,
} from '../../src/core/automation/autorun-plan.ts';
import { parseRouteSpec } from '../../src/core/comparison/route-spec.ts';

const MODEL_IDS = ['ort-tiny-xenc', 'ort-heavy-xenc', 'tfjs-tiny-reranker'];
const PANELS: OpenedView = { mode: 'panels', byUrl: false };
const PROTOCOL_BY_URL: OpenedView = { mode: 'protocol', byUrl: true };
const PROTOCOL_BY_WIDTH: OpenedView = { mode: 'protocol', byUrl: false };
const FIXTURE_PROTOCOL: ProtocolTarget = {
  id: 'ort-tiny-xenc-wasm',
  model: 'ort-tiny-xenc',
  engine: 'ort',
  ep: 'wasm',
  threads: 1,
  dtype: 'fp32',
  warm_runs: 20,
};

function parsed(settings: Partial<AutomationSettings>) {
  return parseAutomation(`?${toSearchParams(settings)}`, { modelIds: MODEL_IDS });
}

/** A sweep runs two routes; every other kind keeps the URL's defaults. */
function parsedRun(autorun: string[]) {
  return parsed(autorun.includes('sweep') ? { autorun, compareRoutes: parseRouteSpec('wasm-1,wasm-2')! } : { autorun });
}

/** Every autorun the parser accepts: each kind alone, and cold and warm together in either order. */
const ACCEPTED: string[][] = [...AUTORUN_VALUES.map((kind) => [kind]), ['cold', 'warm'], ['warm', 'cold']];

describe('autorunPlan: every autorun kind in every view runs or is refused', () => {
  for (const view of [PANELS, PROTOCOL_BY_URL, PROTOCOL_BY_WIDTH]) {
    for (const autorun of ACCEPTED) {
      it(`${view.mode}${view.byUrl ? ' (mode=)' : ''}: autorun=${autorun.join(',')}`, () => {
        const plan = autorunPlan(view, parsedRun(autorun));
        const runners = [
          plan.runPanel !== null && plan.runPanel.length > 0,
          plan.generate,
          plan.compare,
          plan.suite,
          plan.sweep,
          plan.protocolRuns.length > 0,
        ].filter(Boolean);
        // Exactly one of: one runner, or a refusal.
        expect(runners.length + (plan.refusal === null ? 0 : 1)).toBe(1);
      });
    }
  }

  it('runs cold and warm in the panels view in the Run panel, each other kind in its own panel', () => {
    expect(autorunPlan(PANELS, parsed({ autorun: ['cold', 'warm'] }))).toMatchObject({ runPanel: ['cold', 'warm'] });
    expect(autorunPlan(PANELS, parsed({ autorun: ['suite'] }))).toMatchObject({ runPanel: null, suite: true });
    expect(autorunPlan(PANELS, parsed({ autorun: ['compare'] }))).toMatchObject({ runPanel: null, compare: true });
    expect(autorunPlan(PANELS, parsed({ autorun: ['generate'] }))).toMatchObject({ runPanel: null, generate: true });
    expect(autorunPlan(PANELS, parsedRun(['sweep']))).toMatchObject({ runPanel: null, sweep: true, compare: false });
  });

  it("runs cold and warm in protocol mode as its protocol's steps, in the order asked", () => {
    expect(autorunPlan(PROTOCOL_BY_WIDTH, parsed({ autorun: ['cold'] })).protocolRuns).toEqual(['cold']);
    expect(autorunPlan(PROTOCOL_BY_URL, parsed({ autorun: ['warm', 'cold'] })).protocolRuns).toEqual(['warm', 'cold']);
    expect(autorunPlan(PROTOCOL_BY_URL, parsed({ autorun: ['cold'] })).runPanel).toBeNull();
  });

  it('refuses a developer-panel kind in protocol mode with one line naming the parameter and the view', () => {
    expect(autorunPlan(PROTOCOL_BY_URL, parsed({ autorun: ['suite'] })).refusal).toBe(
      "Invalid autorun param: 'suite': suite does not run in protocol mode (mode=protocol), which makes its " +
        "protocol's cold and warm receipts only; add mode=panels to run it in the developer panels",
    );
    const byWidth = autorunPlan(PROTOCOL_BY_WIDTH, parsed({ autorun: ['generate'] })).refusal;
    expect(byWidth).toContain("Invalid autorun param: 'generate'");
    expect(byWidth).toContain('protocol mode (opened on a screen under 600 px wide)');
    expect(autorunPlan(PROTOCOL_BY_URL, parsedRun(['sweep'])).refusal).toContain(
      "Invalid autorun param: 'sweep': sweep does not run in protocol mode (mode=protocol)",
    );
  });

  it('asks for nothing when the URL asks for nothing (the view then reports idle)', () => {
    for (const view of [PANELS, PROTOCOL_BY_URL]) {
      const plan = autorunPlan(view, parsed({}));
      expect(plan.refusal).toBeNull();
      expect(plan.protocolRuns).toEqual([]);
      expect([plan.generate, plan.compare, plan.suite, plan.sweep]).toEqual([false, false, false, false]);
    }
    expect(autorunPlan(PANELS, parsed({})).runPanel).toEqual([]);
  });

  it('runs nothing while the URL has a bad parameter (the page shows that line and ends failed)', () => {
    const bad = parseAutomation('?autorun=cold&threads=x', { modelIds: MODEL_IDS });
    expect(bad.errors).toHaveLength(1);
    for (const view of [PANELS, PROTOCOL_BY_URL]) {
      expect(autorunPlan(view, bad)).toMatchObject({ runPanel: null, protocolRuns: [], refusal: null });
    }
  });

  it('refuses a suite run together with cold or warm runs (a suite owns the done/failed signal, as compare does)', () => {
    expect(parseAutomation('?autorun=cold,suite', { modelIds: MODEL_IDS })).toMatchObject({
      errors: ["Invalid autorun param: 'cold,suite', expected suite alone"],
      settings: { autorun: [] },
    });
  });
});

describe('protocolRunProblem', () => {
  it('lets a URL through whose run settings are the protocol own, or left out', () => {
    expect(protocolRunProblem(FIXTURE_PROTOCOL, parsed({ autorun: ['cold'] }))).toBeNull();
    const same = parsed({ autorun: ['cold'], model: 'ort-tiny-xenc', engine: 'ort', ep: 'wasm', threads: 1 });
    expect(protocolRunProblem(FIXTURE_PROTOCOL, same)).toBeNull();
    expect(protocolRunProblem(FIXTURE_PROTOCOL, parsed({ warmRuns: 20, allowFallback: false }))).toBeNull();
    // Defaults the URL did not give are not held against a protocol on another route.
    expect(
      protocolRunProblem({ ...FIXTURE_PROTOCOL, ep: 'webgpu', warm_runs: 50 }, parsed({ autorun: ['cold'] })),
    ).toBeNull();
  });

  it('refuses another model, route, warm-run count or a fallback with one line naming the parameter', () => {
    expect(protocolRunProblem(FIXTURE_PROTOCOL, parsed({ threads: 2 }))).toBe(
      "Invalid threads param: '2', protocol mode runs protocol ort-tiny-xenc-wasm with threads 1; leave it out, or " +
        'add mode=panels to run it in the developer panels',
    );
    expect(protocolRunProblem(FIXTURE_PROTOCOL, parsed({ model: 'ort-heavy-xenc' }))).toContain(
      "Invalid model param: 'ort-heavy-xenc'",
    );
    expect(protocolRunProblem(FIXTURE_PROTOCOL, parsed({ ep: 'webgpu' }))).toContain("Invalid ep param: 'webgpu'");
    expect(protocolRunProblem(FIXTURE_PROTOCOL, parsed({ warmRuns: 3 }))).toContain("Invalid warm_runs param: '3'");
    expect(protocolRunProblem(FIXTURE_PROTOCOL, parsed({ allowFallback: true }))).toContain(
      "Invalid allow_fallback param: '1'",
    );
    expect(protocolRunProblem({ ...FIXTURE_PROTOCOL, threads: null }, parsed({ threads: 1 }))).toContain(
      'with threads the default',
    );
  });
});

describe('engineParamProblem', () => {
  it('holds cold and warm runs to the default engine, and the model to the engine asked for', () => {
    expect(engineParamProblem('cold-warm', null, { id: 'ort-tiny-xenc', engine: 'ort' })).toBeNull();
    expect(engineParamProblem('cold-warm', 'webllm', undefined)).toBe(
      'engine=webllm has no cold/warm runs on this page yet',
    );
    expect(engineParamProblem('cold-warm', 'transformers', { id: 'ort-tiny-xenc', engine: 'ort' })).toBe(
      "Invalid model param: 'ort-tiny-xenc' runs on engine ort, not transformers",
    );
  });

  it("holds a suite to an engine with suite runs, and a comparison or generation to the model's own engine", () => {
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

describe('paramsOfProtocol: run settings protocol mode reads because they are its protocol own', () => {
  it('names the held parameters the URL gives with the protocol own value, and no other', () => {
    const same = parsed({ model: 'ort-tiny-xenc', engine: 'ort', ep: 'wasm', threads: 1, warmRuns: 20 });
    expect([...paramsOfProtocol(FIXTURE_PROTOCOL, same)].sort()).toEqual([
      'engine',
      'ep',
      'model',
      'threads',
      'warm_runs',
    ]);
    expect([...paramsOfProtocol(FIXTURE_PROTOCOL, parsed({ ep: 'webgpu', threads: 2 }))]).toEqual([]);
    // A default the URL did not give is not read as given.
    expect([...paramsOfProtocol(FIXTURE_PROTOCOL, parsed({}))]).toEqual([]);
    // A value given twice never parses, so it is never the protocol own.
    const twice = parseAutomation('?threads=1&threads=1', { modelIds: MODEL_IDS });
    expect([...paramsOfProtocol(FIXTURE_PROTOCOL, twice)]).toEqual([]);
  });

  it('lets protocolModeParamProblems read those and refuse the rest, one line each', () => {
    const search = '?mode=protocol&ep=wasm&threads=2&rounds=3';
    const accepted = paramsOfProtocol(FIXTURE_PROTOCOL, parseAutomation(search, { modelIds: MODEL_IDS }));
    expect(protocolModeParamProblems(search, FIXTURE_PROTOCOL.id, accepted)).toEqual([
      "Invalid threads param in protocol mode: '2': protocol ort-tiny-xenc-wasm fixes the model, engine, route, threads and warm runs; remove it, choose another protocol (?protocol=<id>), or open the developer panels (?mode=panels)",
      "Invalid rounds param in protocol mode: '3': protocol ort-tiny-xenc-wasm fixes the model, engine, route, threads and warm runs; remove it, choose another protocol (?protocol=<id>), or open the developer panels (?mode=panels)",
    ]);
    // Every held parameter is one protocolRunProblem checks too.
    for (const name of PROTOCOL_HELD_PARAMS) expect(protocolModeParamProblems(`?${name}=x`, 'p')).toHaveLength(1);
  });
});
