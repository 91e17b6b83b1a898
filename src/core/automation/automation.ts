/**
 * The automation contract: URL parameters that make the page run by itself (for public-pass checks and tests).
 *
 * Parsed into one frozen settings object; every bad value gives one message like
 * `Invalid threads param: 'x', expected an integer from 1 to 64`, shown on the page (never put into a receipt).
 * Unknown parameters are ignored and never echoed: a URL may carry secrets the page must not repeat.
 *
 * Both ways: `parseAutomation` reads a query string, `toSearchParams` writes settings back as one (public-pass, the
 * scripts and the tests build every page URL with it), and a test checks that parsing what it writes gives back the
 * same settings for every parameter.
 *
 * Table-driven so later run kinds extend it in one place: add a value to `AUTORUN_VALUES` and, for a new parameter,
 * one entry in `PARAMS` (its parser and its writer) plus its field in `AutomationSettings` and `DEFAULT_SETTINGS`.
 */
import {
  DEFAULT_COMPARISON_ROUTES,
  parseRouteSpec,
  ROUTE_SPEC_EXPECTED,
  type RouteSpec,
} from '../comparison/route-spec.ts';
import { DeviceDetails, EngineName, ExecutionProvider } from '../receipt/receipt.ts';
import { TRANSFORMERS_DTYPE_SUFFIX } from '../catalog/transformers-dtype.ts';
import { DEFAULT_STOPPING_RULE, fixedRule, ruleProblem, type StoppingRule } from '../comparison/stopping-rule-spec.ts';

/** Values `autorun` accepts (comma-separated, each at most once, run in the given order). */
export const AUTORUN_VALUES: string[] = ['cold', 'warm', 'compare', 'generate', 'suite', 'sweep'];

/** The settings the page runs with; every field has a default, so a page with no parameters is valid. */
export interface AutomationSettings {
  /** Runs to start on load, in order; empty = wait for the user. */
  autorun: readonly string[];
  /** The engine the URL names; null when it names none (each run kind then follows its model's engine, and the
   *  plain cold/warm controls take `DEFAULT_ENGINE`). */
  engine: EngineName | null;
  ep: ExecutionProvider;
  /** WASM threads; null = engine default. */
  threads: number | null;
  /** Catalog model id; null = the catalog's default model. */
  model: string | null;
  warmRuns: number;
  allowFallback: boolean;
  /** Per-stage time limit override in ms (all stages); null = the page's generous defaults. */
  stageTimeoutMs: number | null;
  /** Exposes `window.drbTest` (crash / kill the worker) for end-to-end tests. */
  testHooks: boolean;
  /** autorun=generate: prompt set id (public/prompts/<id>.json) and repetitions (1-3, seeds 17/29/41). */
  prompts: string;
  reps: number;
  /** autorun=generate: token limit replacing the prompt set's (null = the set's; recorded in the receipt). */
  maxNewTokens: number | null;
  /** autorun=compare: the routes, the baseline route id (null = the first route), rounds, schedule seed. */
  compareRoutes: readonly RouteSpec[];
  baseline: string | null;
  rounds: number;
  seed: number;
  /** autorun=compare: the largest score difference still counted as agreeing; null = the default for the model's
   *  score kind and dtype (src/core/comparison/dtype-tolerance.ts, docs/comparison.md). */
  tolerance: number | null;
  /** autorun=compare with a reranker or candidate scorer: how many candidate rows of the suite (`suite`, default the
   *  demo suite) every route scores, the first rows in items order that have candidates. */
  compareRows: number;
  /** autorun=compare and sweep: when the rounds stop. `fixed`: exactly `rounds` rounds; `until-clear`: the declared
   *  rule of src/core/comparison/stopping-rule.ts with the fields below (docs/comparison.md, "Sample until clear"). */
  stop: 'fixed' | 'until-clear';
  /** until-clear: no early stop before `minRounds`; at most `maxRounds` rounds and `maxTimeMs` of timed rounds; the
   *  tie zone's half-width and the narrow width, on the ratio scale. */
  minRounds: number;
  maxRounds: number;
  maxTimeMs: number;
  tieZone: number;
  maxWidth: number;
  /** autorun=sweep: the sizes of the model's ladder to run (null = every size of its catalog ladder). */
  sweepSizes: readonly number[] | null;
  /** autorun=suite: the shipped suite id (public/suites/<id>/; null = the demo suite) and the abstention threshold
   *  (top-1 minus top-2 score; null = never abstain on margin). */
  suite: string | null;
  minMargin: number | null;
  /** transformers.js dtype (picks the ONNX file: fp32, fp16, q8, q4, ...); null = the catalog's. */
  dtype: string | null;
  /** How much of the device receipts record: `reduced` unless the tester chose `full` (see DeviceDetails). */
  deviceDetails: DeviceDetails;
  /** Which view the page opens: `protocol` (the tester's field kit) or `panels` (the developer panels); null = by the
   *  screen's width (protocol mode below 600 px). */
  mode: PageMode | null;
  /** Protocol mode's target: a protocol id (public/protocols/<id>.json); null = the default protocol. */
  protocol: string | null;
  /** `verbose`: ONNX Runtime's verbose session log for the runs' workers, whose "Node placements" lines are printed to
   *  the console to compare with the receipts' `placement` (a developer's aid: the log slows every run, and its
   *  receipts say so); null = off. */
  ortLog: 'verbose' | null;
  /** Set by a driver that started this browser itself with a new, empty profile (`drb public-pass --browser`):
   *  which lane. The page records it in the page load's first cold receipt as the driver's attestations (browser
   *  restarted, site data cleared; source `driver`), never as measured. Null: no driver said so. */
  driverFresh: 'chromium' | 'webkit' | null;
}

/** The page's two views. */
export const PAGE_MODES = ['protocol', 'panels'] as const;
export type PageMode = (typeof PAGE_MODES)[number];

/** The engine of the plain cold/warm controls when the URL names none. */
export const DEFAULT_ENGINE: EngineName = 'ort';

export const DEFAULT_SETTINGS: Readonly<AutomationSettings> = Object.freeze({
  autorun: Object.freeze([]) as readonly string[],
  engine: null,
  ep: 'wasm',
  threads: null,
  model: null,
  warmRuns: 20,
  allowFallback: false,
  stageTimeoutMs: null,
  testHooks: false,
  prompts: 'drb-gen-ja-en-v1',
  reps: 3,
  maxNewTokens: null,
  compareRoutes: DEFAULT_COMPARISON_ROUTES,
  baseline: null,
  rounds: 10,
  seed: 42,
  tolerance: null,
  compareRows: 4,
  stop: 'fixed',
  minRounds: DEFAULT_STOPPING_RULE.min_rounds,
  maxRounds: DEFAULT_STOPPING_RULE.max_rounds,
  maxTimeMs: DEFAULT_STOPPING_RULE.max_time_ms!,
  tieZone: DEFAULT_STOPPING_RULE.tie_zone,
  maxWidth: DEFAULT_STOPPING_RULE.max_width,
  sweepSizes: null,
  suite: null,
  minMargin: null,
  dtype: null,
  deviceDetails: 'reduced',
  mode: null,
  protocol: null,
  ortLog: null,
  driverFresh: null,
});

/** A parameter parser: returns the value or throws ParamError with the "expected ..." part. */
type ParamParser = (raw: string, context: ParseContext) => unknown;

/** A parameter writer: the text `parse` turns back into `value` (never called with null or an empty list). */
type ParamWriter = (value: never) => string;

/** One URL parameter: the settings field it sets, how to read it, and how to write it back. */
interface Param {
  field: keyof AutomationSettings;
  parse: ParamParser;
  write: ParamWriter;
}

/** Facts the parser needs from outside (the catalog's model ids), so this module stays pure. */
export interface ParseContext {
  modelIds: readonly string[];
}

class ParamError extends Error {}

function intIn(min: number, max: number): ParamParser {
  return (raw) => {
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
      throw new ParamError(`an integer from ${min} to ${max}`);
    return Number(raw);
  };
}

function oneOf(values: readonly string[]): ParamParser {
  return (raw) => {
    if (!values.includes(raw)) throw new ParamError(`one of ${values.join(', ')}`);
    return raw;
  };
}

/** A plain decimal strictly between 0 and 1. */
function fraction(expected: string): ParamParser {
  return (raw) => {
    const value = Number(raw);
    if (!/^0?\.\d+$/.test(raw) || !(value > 0 && value < 1)) throw new ParamError(expected);
    return value;
  };
}

const bool: ParamParser = (raw) => {
  if (raw === '1' || raw === 'true') return true;
  if (raw === '0' || raw === 'false') return false;
  throw new ParamError('0, 1, true or false');
};

const text: ParamWriter = (value: string) => value;
const number: ParamWriter = (value: number) => String(value);
const flag: ParamWriter = (value: boolean) => (value ? '1' : '0');

/**
 * A number >= 0 as a plain decimal (`0.0000001`, never `1e-7`), the only form `min_margin` accepts.
 * @param value a finite number >= 0
 */
function plainDecimal(value: number): string {
  const shortest = String(value);
  if (!/e/i.test(shortest)) return shortest;
  // toFixed(20) is exact enough for any margin a cross-encoder or log-probability gives; trailing zeros go.
  return value.toFixed(20).replace(/\.?0+$/, '');
}

/** URL parameter name -> settings field, parser and writer. */
export const PARAMS: Record<string, Param> = {
  autorun: {
    field: 'autorun',
    parse: (raw) => {
      const parts = raw.split(',');
      const expected = `a comma-separated list of ${AUTORUN_VALUES.join(', ')} (each at most once)`;
      if (parts.some((p) => !AUTORUN_VALUES.includes(p)) || new Set(parts).size !== parts.length)
        throw new ParamError(expected);
      return Object.freeze(parts);
    },
    write: (value: readonly string[]) => value.join(','),
  },
  engine: { field: 'engine', parse: oneOf(EngineName.options), write: text },
  ep: { field: 'ep', parse: oneOf(ExecutionProvider.options), write: text },
  threads: { field: 'threads', parse: intIn(1, 64), write: number },
  model: {
    field: 'model',
    parse: (raw, context) => {
      if (!context.modelIds.includes(raw)) throw new ParamError(`a catalog model id (${context.modelIds.join(', ')})`);
      return raw;
    },
    write: text,
  },
  warm_runs: { field: 'warmRuns', parse: intIn(1, 1000), write: number },
  allow_fallback: { field: 'allowFallback', parse: bool, write: flag },
  stage_timeout_ms: { field: 'stageTimeoutMs', parse: intIn(50, 3_600_000), write: number },
  test_hooks: { field: 'testHooks', parse: bool, write: flag },
  prompts: {
    field: 'prompts',
    parse: (raw) => {
      if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(raw))
        throw new ParamError('a prompt set id (lowercase letters, digits and dashes)');
      return raw;
    },
    write: text,
  },
  reps: { field: 'reps', parse: intIn(1, 3), write: number },
  max_tokens: { field: 'maxNewTokens', parse: intIn(1, 4096), write: number },
  routes: {
    field: 'compareRoutes',
    parse: (raw) => {
      const routes = parseRouteSpec(raw);
      if (routes === null) throw new ParamError(ROUTE_SPEC_EXPECTED);
      return Object.freeze(routes);
    },
    write: (value: readonly RouteSpec[]) => value.map((r) => r.id).join(','),
  },
  baseline: {
    field: 'baseline',
    parse: (raw) => {
      if (!/^webgpu(-[a-z])?$/.test(raw) && !/^wasm-[1-9]\d?(-[a-z])?$/.test(raw))
        throw new ParamError('a route id such as wasm-1 or webgpu');
      return raw;
    },
    write: text,
  },
  rounds: { field: 'rounds', parse: intIn(1, 200), write: number },
  rows: { field: 'compareRows', parse: intIn(1, 64), write: number },
  stop: { field: 'stop', parse: oneOf(['fixed', 'until-clear']), write: text },
  min_rounds: { field: 'minRounds', parse: intIn(2, 200), write: number },
  max_rounds: { field: 'maxRounds', parse: intIn(2, 200), write: number },
  max_time_ms: { field: 'maxTimeMs', parse: intIn(1000, 3_600_000), write: number },
  tie_zone: { field: 'tieZone', parse: fraction('a number above 0 and below 1, e.g. 0.05'), write: number },
  max_width: { field: 'maxWidth', parse: fraction('a number above 0 and below 1, e.g. 0.05'), write: number },
  sizes: {
    field: 'sweepSizes',
    parse: (raw) => {
      const parts = raw.split(',');
      const sizes = parts.map(Number);
      if (
        parts.some((p) => !/^[1-9]\d{0,6}$/.test(p)) ||
        sizes.some((v, i) => i > 0 && v <= sizes[i - 1]) ||
        sizes.length < 2 ||
        sizes.length > 32
      ) {
        throw new ParamError('2 to 32 growing sizes, comma-separated, e.g. 16,64,256');
      }
      return Object.freeze(sizes);
    },
    write: (value: readonly number[]) => value.join(','),
  },
  seed: { field: 'seed', parse: intIn(0, 2 ** 31 - 1), write: number },
  tolerance: {
    field: 'tolerance',
    parse: (raw) => {
      const value = Number(raw);
      if (!/^[0-9.eE+-]+$/.test(raw) || !Number.isFinite(value) || value < 0 || value > 1)
        throw new ParamError('a number from 0 to 1, e.g. 1e-4');
      return value;
    },
    write: number,
  },
  suite: {
    field: 'suite',
    parse: (raw) => {
      if (!/^[a-z0-9][a-z0-9._-]{0,79}$/.test(raw))
        throw new ParamError('a suite id (lowercase letters, digits, ".", "_" or "-")');
      return raw;
    },
    write: text,
  },
  dtype: { field: 'dtype', parse: oneOf(Object.keys(TRANSFORMERS_DTYPE_SUFFIX)), write: text },
  device_details: { field: 'deviceDetails', parse: oneOf(DeviceDetails.options), write: text },
  mode: { field: 'mode', parse: oneOf(PAGE_MODES), write: text },
  protocol: {
    field: 'protocol',
    parse: (raw) => {
      if (!/^[a-z0-9][a-z0-9.-]{0,63}$/.test(raw))
        throw new ParamError('a protocol id (lowercase letters, digits, "." and "-")');
      return raw;
    },
    write: text,
  },
  ort_log: { field: 'ortLog', parse: oneOf(['verbose']), write: text },
  driver_fresh: { field: 'driverFresh', parse: oneOf(['chromium', 'webkit']), write: text },
  min_margin: {
    field: 'minMargin',
    parse: (raw) => {
      // Plain decimals only: Number() would also take "1e3", "Infinity" or "0x10", which no user means here.
      if (!/^\d+(\.\d+)?$/.test(raw)) throw new ParamError('a number >= 0 written as a plain decimal, e.g. 0.5');
      return Number(raw);
    },
    write: plainDecimal,
  },
};

/** Parsed settings plus one message per bad parameter (settings keep the default for a bad one). */
export interface ParsedAutomation {
  settings: Readonly<AutomationSettings>;
  errors: string[];
  /** The settings fields the URL gave (and that parsed); the rest are defaults. Absent: none given. */
  given?: ReadonlyArray<keyof AutomationSettings>;
}

// A shown value is cut short: an error line must not become a way to print a long secret back.
function shown(raw: string): string {
  return raw.length > 40 ? `${raw.slice(0, 40)}...` : raw;
}

/**
 * Parses the page's query string.
 * @param search `location.search` (with or without the leading "?")
 * @param context the catalog's model ids, to validate `model`
 */
export function parseAutomation(search: string, context: ParseContext): ParsedAutomation {
  const params = new URLSearchParams(search);
  const settings: AutomationSettings = { ...DEFAULT_SETTINGS };
  const errors: string[] = [];
  const given: Array<keyof AutomationSettings> = [];
  for (const [name, { field, parse }] of Object.entries(PARAMS)) {
    const all = params.getAll(name);
    if (all.length === 0) continue;
    if (all.length > 1) {
      errors.push(`Invalid ${name} param: given ${all.length} times, expected once`);
      continue;
    }
    try {
      (settings as unknown as Record<string, unknown>)[field] = parse(all[0], context);
      given.push(field);
    } catch (error) {
      if (!(error instanceof ParamError)) throw error;
      errors.push(`Invalid ${name} param: '${shown(all[0])}', expected ${error.message}`);
    }
  }
  // Cross-parameter rules: generate, compare, sweep and suite run alone (each owns the page's done/failed signal,
  // and runs in a panel of its own), a comparison's baseline must be one of its routes, a rule's minimum is within
  // its budget, and a sweep has two routes.
  if (settings.autorun.length > 1 && settings.autorun.some((k) => k === 'generate' || k === 'compare')) {
    errors.push(`Invalid autorun param: '${shown(settings.autorun.join(','))}', expected generate or compare alone`);
    settings.autorun = DEFAULT_SETTINGS.autorun;
  } else if (settings.autorun.length > 1 && settings.autorun.includes('sweep')) {
    errors.push(`Invalid autorun param: '${shown(settings.autorun.join(','))}', expected sweep alone`);
    settings.autorun = DEFAULT_SETTINGS.autorun;
  }
  if (settings.minRounds > settings.maxRounds) {
    errors.push(
      `Invalid min_rounds param: '${settings.minRounds}', expected at most max_rounds (${settings.maxRounds})`,
    );
    settings.minRounds = Math.min(DEFAULT_SETTINGS.minRounds, settings.maxRounds);
  }
  if (settings.autorun.includes('sweep') && settings.compareRoutes.length !== 2) {
    errors.push(
      `Invalid routes param: '${shown(settings.compareRoutes.map((r) => r.id).join(','))}', expected exactly 2 routes for a sweep`,
    );
    settings.autorun = DEFAULT_SETTINGS.autorun;
  }
  if (settings.autorun.length > 1 && settings.autorun.includes('suite')) {
    errors.push(`Invalid autorun param: '${shown(settings.autorun.join(','))}', expected suite alone`);
    settings.autorun = DEFAULT_SETTINGS.autorun;
  }
  if (settings.baseline !== null && !settings.compareRoutes.some((r) => r.id === settings.baseline)) {
    errors.push(
      `Invalid baseline param: '${shown(settings.baseline)}', expected one of the routes (${settings.compareRoutes.map((r) => r.id).join(', ')})`,
    );
    settings.baseline = null;
  }
  return { settings: Object.freeze(settings), errors, given: Object.freeze(given) };
}

/**
 * Writes settings as the query parameters `parseAutomation` reads back into the same settings: public-pass, the
 * scripts and the tests build page URLs with it. Every field given is written (a default too, so a URL can say
 * `allow_fallback=0` explicitly), in the order of `PARAMS`; null fields and an empty `autorun` are left out, which
 * is what "not given" parses to.
 * @param settings the fields to put into the URL (the rest stay the page's defaults)
 * @returns the parameters; `?${params}` is the query of a page URL
 */
export function toSearchParams(settings: Partial<AutomationSettings>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, { field, write }] of Object.entries(PARAMS)) {
    const value = settings[field];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    params.set(name, write(value as never));
  }
  return params;
}

/**
 * The stopping rule the settings declare: a fixed rule of `rounds` rounds, or the until-clear rule with its fields.
 * @param settings the page's settings
 */
export function stoppingRuleOf(
  settings: Pick<
    AutomationSettings,
    'stop' | 'rounds' | 'minRounds' | 'maxRounds' | 'maxTimeMs' | 'tieZone' | 'maxWidth'
  >,
): StoppingRule {
  if (settings.stop === 'fixed') return fixedRule(settings.rounds);
  const rule: StoppingRule = {
    kind: 'until-clear',
    min_rounds: settings.minRounds,
    max_rounds: settings.maxRounds,
    max_time_ms: settings.maxTimeMs,
    tie_zone: settings.tieZone,
    max_width: settings.maxWidth,
    look_growth: DEFAULT_STOPPING_RULE.look_growth,
  };
  const bad = ruleProblem(rule);
  if (bad !== null) throw new RangeError(`stopping rule: ${bad}`);
  return rule;
}
