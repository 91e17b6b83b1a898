/**
 * What the page does with the URL's `autorun`: which panel starts which run, and the line that refuses a run whose
 * parameters cannot go together. Pure, so the whole table is unit-tested (test/unit/autorun-plan.test.ts); the page's
 * panels only carry out what it decides.
 */
import type { EngineName } from '../receipt/receipt.ts';
import { DEFAULT_ENGINE, type PageMode, type ParsedAutomation } from './automation.ts';
import { ENGINE_CAPABILITIES, enginesFor, type RunKindName } from '../engines/engine-capabilities.ts';

/**
 * Why the URL's `engine` cannot run what a panel's autorun would run, as the one line the page shows; null when it
 * fits. Cold and warm runs take `DEFAULT_ENGINE` when the URL names none, and the model must run on it; a suite needs
 * an engine with suite runs; a comparison or a generation run needs the model's own engine.
 * @param kind the panel's run kind
 * @param engine the URL's `engine` (null: none given)
 * @param model the model the autorun would run (undefined when there is none: the panel says so itself)
 */
export function engineParamProblem(
  kind: RunKindName,
  engine: EngineName | null,
  model: { id: string; engine: EngineName } | undefined,
): string | null {
  if (kind === 'cold-warm') {
    const asked = engine ?? DEFAULT_ENGINE;
    if (!ENGINE_CAPABILITIES[asked].coldWarm) return `engine=${asked} has no cold/warm runs on this page yet`;
    if (model && model.engine !== asked)
      return `Invalid model param: '${model.id}' runs on engine ${model.engine}, not ${asked}`;
    return null;
  }
  if (engine === null) return null;
  if (kind === 'suite') {
    if (ENGINE_CAPABILITIES[engine].suite) return null;
    return `Invalid engine param: '${engine}', suite runs use the ${enginesFor('suite').join(' or ')} engine`;
  }
  if (model && model.engine !== engine)
    return `Invalid engine param: '${engine}', model ${model.id} runs on engine ${model.engine}`;
  return null;
}

/** A cold or a warm run (the Run panel's kinds). */
export type ColdOrWarm = 'cold' | 'warm';

/** Which panel the URL's `autorun` belongs to, decided once for the view the page opened in. */
export interface AutorunPlan {
  /** The Run panel's runs in order (none: it checks the URL's engine, then the page is ready to be driven); null:
   *  the page's load is not the Run panel's (another panel's autorun, a bad parameter, another view). */
  runPanel: readonly ColdOrWarm[] | null;
  generate: boolean;
  compare: boolean;
  suite: boolean;
}

/**
 * What the page starts on load.
 * @param view the view the page opened in
 * @param automation the parsed URL
 */
export function autorunPlan(view: PageMode, automation: ParsedAutomation): AutorunPlan {
  const { autorun } = automation.settings;
  // A bad parameter runs nothing; protocol mode runs step by step from its own button.
  if (automation.errors.length > 0 || view === 'protocol')
    return { runPanel: null, generate: false, compare: false, suite: false };
  const generate = autorun.includes('generate');
  const compare = autorun.includes('compare');
  // autorun=suite belongs to the suite panel, which starts it and sets the done/failed state itself.
  const suite = autorun.includes('suite');
  const runPanel = generate || compare || suite ? null : (autorun as readonly ColdOrWarm[]);
  return { runPanel, generate, compare, suite };
}
