/**
 * What the page does with the URL's `autorun`: which panel starts which run, and the line that refuses a run whose
 * parameters cannot go together. Pure, so the whole table is unit-tested (test/unit/autorun-plan.test.ts); the page's
 * panels only carry out what it decides.
 */
import type { EngineName } from '../receipt/receipt.ts';
import type { Protocol } from '../field/field-protocol.ts';
import { DEFAULT_ENGINE, type AutomationSettings, type PageMode, type ParsedAutomation } from './automation.ts';
import { ENGINE_CAPABILITIES, enginesFor, type RunKindName } from '../engines/engine-capabilities.ts';

/** Below this width the page opens in protocol mode unless the URL names a mode (phones are where testers are). */
export const PROTOCOL_VIEW_BELOW_PX = 600;

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

/** A cold or a warm run (the Run panel's kinds, and protocol mode's steps). */
export type ColdOrWarm = 'cold' | 'warm';

/** The view the page opened in, and whether the URL chose it (`mode`) or the screen's width did. */
export interface OpenedView {
  mode: PageMode;
  byUrl: boolean;
}

/** What the page starts on load: which panel (or protocol mode) runs which kind, or the line that refuses it. */
export interface AutorunPlan {
  /** The Run panel's runs in order (none: it checks the URL's engine, then the page is ready to be driven); null:
   *  the page's load is not the Run panel's (another panel's autorun, a bad parameter, protocol mode). */
  runPanel: readonly ColdOrWarm[] | null;
  generate: boolean;
  compare: boolean;
  suite: boolean;
  sweep: boolean;
  /** Protocol mode's steps in order: each a cold or a warm receipt of its protocol, stored as a tapped run's. */
  protocolRuns: readonly ColdOrWarm[];
  /** The one line refusing the URL's autorun in this view (the page ends `failed` with it); null: none refused. */
  refusal: string | null;
}

const NOTHING: AutorunPlan = {
  runPanel: null,
  generate: false,
  compare: false,
  suite: false,
  sweep: false,
  protocolRuns: [],
  refusal: null,
};

/** How a refusal names protocol mode: by the parameter that asked for it, or by the width that chose it. */
function protocolModeNamed(view: OpenedView): string {
  return view.byUrl
    ? 'protocol mode (mode=protocol)'
    : `protocol mode (opened on a screen under ${PROTOCOL_VIEW_BELOW_PX} px wide)`;
}

/**
 * What the page starts on load, for every `autorun` kind in every view: the developer panels run each kind in its
 * panel; protocol mode runs `cold`, `warm` and `cold,warm` as its protocol's steps and refuses the rest with one line
 * naming the parameter and the view. Nothing runs while the URL holds a bad parameter (the page shows those lines).
 * @param view the view the page opened in
 * @param automation the parsed URL
 */
export function autorunPlan(view: OpenedView, automation: ParsedAutomation): AutorunPlan {
  const { autorun } = automation.settings;
  if (automation.errors.length > 0) return NOTHING;
  if (view.mode === 'protocol') {
    const other = autorun.filter((kind) => kind !== 'cold' && kind !== 'warm');
    if (other.length === 0) return { ...NOTHING, protocolRuns: autorun as readonly ColdOrWarm[] };
    const refusal =
      `Invalid autorun param: '${autorun.join(',')}': ${other.join(' and ')} does not run in ${protocolModeNamed(view)}, ` +
      `which makes its protocol's cold and warm receipts only; add mode=panels to run it in the developer panels`;
    return { ...NOTHING, refusal };
  }
  const generate = autorun.includes('generate');
  const compare = autorun.includes('compare');
  // autorun=suite belongs to the suite panel, which starts it and sets the done/failed state itself.
  const suite = autorun.includes('suite');
  // autorun=sweep belongs to the sweep panel likewise.
  const sweep = autorun.includes('sweep');
  const runPanel = generate || compare || suite || sweep ? null : (autorun as readonly ColdOrWarm[]);
  return { ...NOTHING, runPanel, generate, compare, suite, sweep };
}

/** The protocol fields a URL's run settings are held to in protocol mode. */
export type ProtocolTarget = Pick<Protocol, 'id' | 'model' | 'engine' | 'ep' | 'threads' | 'dtype' | 'warm_runs'>;

/**
 * Why the URL's run settings cannot go with protocol mode's autorun, as one line naming the parameter, the protocol
 * and the view; null when every setting the URL gives is the protocol's own (protocol mode runs its protocol's target
 * and nothing else, so a URL asking for another model, route or warm-run count is refused, never silently changed).
 * @param protocol the field protocol protocol mode follows
 * @param automation the parsed URL (its `given` fields are checked; defaults are not the URL's)
 */
export function protocolRunProblem(protocol: ProtocolTarget, automation: ParsedAutomation): string | null {
  const given = new Set(automation.given ?? []);
  for (const [param, field, asked, own] of heldSettings(protocol, automation)) {
    if (!given.has(field) || asked === own) continue;
    const shown = own === null ? 'the default' : String(own);
    return (
      `Invalid ${param} param: '${String(asked)}', protocol mode runs protocol ${protocol.id} with ${param} ${shown}; ` +
      `leave it out, or add mode=panels to run it in the developer panels`
    );
  }
  return null;
}

/** The URL parameters protocol mode holds to its protocol's own values: one the URL gives is read only when it is. */
export const PROTOCOL_HELD_PARAMS: readonly string[] = [
  'model',
  'engine',
  'ep',
  'threads',
  'warm_runs',
  'dtype',
  'allow_fallback',
];

// Each held parameter with its settings field, the URL's value and the protocol's own.
function heldSettings(
  protocol: ProtocolTarget,
  automation: ParsedAutomation,
): Array<[string, keyof AutomationSettings, unknown, unknown]> {
  const s = automation.settings;
  return [
    ['model', 'model', s.model, protocol.model],
    ['engine', 'engine', s.engine, protocol.engine],
    ['ep', 'ep', s.ep, protocol.ep],
    ['threads', 'threads', s.threads, protocol.threads],
    ['warm_runs', 'warmRuns', s.warmRuns, protocol.warm_runs],
    ['dtype', 'dtype', s.dtype, protocol.dtype],
    // Protocol mode never falls back: a receipt counts for its protocol's route only.
    ['allow_fallback', 'allowFallback', s.allowFallback ? 1 : 0, 0],
  ];
}

/**
 * The held parameters the URL gives with exactly the protocol's own value (protocol mode reads them; any other value
 * of a held parameter is refused with one line, src/core/automation/protocol-mode-params.ts).
 * @param protocol the field protocol protocol mode follows
 * @param automation the parsed URL
 */
export function paramsOfProtocol(protocol: ProtocolTarget, automation: ParsedAutomation): Set<string> {
  const given = new Set(automation.given ?? []);
  return new Set(
    heldSettings(protocol, automation)
      .filter(([, field, asked, own]) => given.has(field) && asked === own)
      .map(([param]) => param),
  );
}
