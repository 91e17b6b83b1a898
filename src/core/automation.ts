/**
 * The automation contract: URL parameters that make the page run by itself (for public-pass checks and tests).
 *
 * Parsed into one frozen settings object; every bad value gives one message like
 * `Invalid threads param: 'x', expected an integer from 1 to 64`, shown on the page (never put into a receipt).
 * Unknown parameters are ignored and never echoed: a URL may carry secrets the page must not repeat.
 *
 * Table-driven so later run kinds extend it in one place: add a value to `AUTORUN_VALUES` and, for a new parameter,
 * one entry in `PARAMS` plus its field in `AutomationSettings` and `DEFAULT_SETTINGS`.
 */
import { EngineName, ExecutionProvider } from './receipt.ts';

/** Values `autorun` accepts (comma-separated, each at most once, run in the given order). */
export const AUTORUN_VALUES: string[] = ['cold', 'warm'];

/** The settings the page runs with; every field has a default, so a page with no parameters is valid. */
export interface AutomationSettings {
  /** Runs to start on load, in order; empty = wait for the user. */
  autorun: readonly string[];
  engine: EngineName;
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
}

export const DEFAULT_SETTINGS: Readonly<AutomationSettings> = Object.freeze({
  autorun: Object.freeze([]) as readonly string[],
  engine: 'ort',
  ep: 'wasm',
  threads: null,
  model: null,
  warmRuns: 20,
  allowFallback: false,
  stageTimeoutMs: null,
  testHooks: false,
});

/** A parameter parser: returns the value or throws ParamError with the "expected ..." part. */
type ParamParser = (raw: string, context: ParseContext) => unknown;

/** Facts the parser needs from outside (the catalog's model ids), so this module stays pure. */
export interface ParseContext {
  modelIds: readonly string[];
}

class ParamError extends Error {}

function intIn(min: number, max: number): ParamParser {
  return (raw) => {
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new ParamError(`an integer from ${min} to ${max}`);
    return Number(raw);
  };
}

function oneOf(values: readonly string[]): ParamParser {
  return (raw) => {
    if (!values.includes(raw)) throw new ParamError(`one of ${values.join(', ')}`);
    return raw;
  };
}

const bool: ParamParser = (raw) => {
  if (raw === '1' || raw === 'true') return true;
  if (raw === '0' || raw === 'false') return false;
  throw new ParamError('0, 1, true or false');
};

/** URL parameter name -> settings field and parser. */
export const PARAMS: Record<string, { field: keyof AutomationSettings; parse: ParamParser }> = {
  autorun: {
    field: 'autorun',
    parse: (raw) => {
      const parts = raw.split(',');
      const expected = `a comma-separated list of ${AUTORUN_VALUES.join(', ')} (each at most once)`;
      if (parts.some((p) => !AUTORUN_VALUES.includes(p)) || new Set(parts).size !== parts.length) throw new ParamError(expected);
      return Object.freeze(parts);
    },
  },
  engine: { field: 'engine', parse: oneOf(EngineName.options) },
  ep: { field: 'ep', parse: oneOf(ExecutionProvider.options) },
  threads: { field: 'threads', parse: intIn(1, 64) },
  model: {
    field: 'model',
    parse: (raw, context) => {
      if (!context.modelIds.includes(raw)) throw new ParamError(`a catalog model id (${context.modelIds.join(', ')})`);
      return raw;
    },
  },
  warm_runs: { field: 'warmRuns', parse: intIn(1, 1000) },
  allow_fallback: { field: 'allowFallback', parse: bool },
  stage_timeout_ms: { field: 'stageTimeoutMs', parse: intIn(50, 3_600_000) },
  test_hooks: { field: 'testHooks', parse: bool },
};

/** Parsed settings plus one message per bad parameter (settings keep the default for a bad one). */
export interface ParsedAutomation {
  settings: Readonly<AutomationSettings>;
  errors: string[];
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
  for (const [name, { field, parse }] of Object.entries(PARAMS)) {
    const all = params.getAll(name);
    if (all.length === 0) continue;
    if (all.length > 1) {
      errors.push(`Invalid ${name} param: given ${all.length} times, expected once`);
      continue;
    }
    try {
      (settings as unknown as Record<string, unknown>)[field] = parse(all[0], context);
    } catch (error) {
      if (!(error instanceof ParamError)) throw error;
      errors.push(`Invalid ${name} param: '${shown(all[0])}', expected ${error.message}`);
    }
  }
  return { settings: Object.freeze(settings), errors };
}
