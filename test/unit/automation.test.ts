import { describe, expect, it } from 'vitest';
import {
  AUTORUN_VALUES,
  DEFAULT_SETTINGS,
  PARAMS,
  parseAutomation,
  toSearchParams,
  type AutomationSettings,
} from '../../src/core/automation/automation.ts';
import { parseRouteSpec } from '../../src/core/comparison/route-spec.ts';

const context = { modelIds: ['ort-tiny-xenc', 'ort-heavy-xenc'] };

describe('parseAutomation', () => {
  it('gives frozen defaults for an empty query', () => {
    const { settings, errors } = parseAutomation('', context);
    expect(errors).toEqual([]);
    expect(settings).toEqual(DEFAULT_SETTINGS);
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('parses the full contract', () => {
    const { settings, errors } = parseAutomation(
      '?autorun=cold,warm&engine=ort&ep=wasm&threads=2&model=ort-heavy-xenc&warm_runs=20&allow_fallback=0&stage_timeout_ms=5000&test_hooks=1',
      context,
    );
    expect(errors).toEqual([]);
    // toMatchObject: later run kinds add their own fields to the settings.
    expect(settings).toMatchObject({
      autorun: ['cold', 'warm'],
      engine: 'ort',
      ep: 'wasm',
      threads: 2,
      model: 'ort-heavy-xenc',
      warmRuns: 20,
      allowFallback: false,
      stageTimeoutMs: 5000,
      testHooks: true,
    });
    expect(Object.isFrozen(settings.autorun)).toBe(true);
  });

  it.each([
    ['threads=x', "Invalid threads param: 'x', expected an integer from 1 to 64"],
    ['threads=0', "Invalid threads param: '0', expected an integer from 1 to 64"],
    ['threads=2.5', "Invalid threads param: '2.5', expected an integer from 1 to 64"],
    ['ep=gpu', "Invalid ep param: 'gpu', expected one of wasm, webgpu"],
    ['engine=tfjs', "Invalid engine param: 'tfjs', expected one of ort, transformers, webllm"],
    [
      'autorun=cold,cold',
      `Invalid autorun param: 'cold,cold', expected a comma-separated list of ${AUTORUN_VALUES.join(', ')} (each at most once)`,
    ],
    [
      'autorun=hot',
      `Invalid autorun param: 'hot', expected a comma-separated list of ${AUTORUN_VALUES.join(', ')} (each at most once)`,
    ],
    ['warm_runs=1001', "Invalid warm_runs param: '1001', expected an integer from 1 to 1000"],
    ['allow_fallback=yes', "Invalid allow_fallback param: 'yes', expected 0, 1, true or false"],
    ['model=nope', "Invalid model param: 'nope', expected a catalog model id (ort-tiny-xenc, ort-heavy-xenc)"],
    ['threads=1&threads=2', 'Invalid threads param: given 2 times, expected once'],
  ])('%s -> one clear error and the default kept', (query, message) => {
    const { settings, errors } = parseAutomation(query, context);
    expect(errors).toEqual([message]);
    const field =
      query.split('=')[0] === 'warm_runs'
        ? 'warmRuns'
        : query.split('=')[0] === 'allow_fallback'
          ? 'allowFallback'
          : query.split('=')[0];
    expect((settings as unknown as Record<string, unknown>)[field]).toEqual(
      (DEFAULT_SETTINGS as unknown as Record<string, unknown>)[field],
    );
  });

  it('ignores unknown parameters and never echoes them; cuts long bad values short', () => {
    const { errors } = parseAutomation(`?token=SECRET&threads=${'9'.repeat(60)}`, context);
    expect(errors).toEqual([`Invalid threads param: '${'9'.repeat(40)}...', expected an integer from 1 to 64`]);
    expect(errors.join()).not.toContain('SECRET');
  });
});

describe('toSearchParams', () => {
  // One non-default value per field; every parameter of PARAMS must appear here (checked below).
  const everyField: AutomationSettings = {
    autorun: ['warm', 'cold'],
    engine: 'transformers',
    ep: 'webgpu',
    threads: 3,
    model: 'ort-heavy-xenc',
    warmRuns: 7,
    allowFallback: true,
    stageTimeoutMs: 1234,
    testHooks: true,
    prompts: 'my-prompts-2',
    reps: 2,
    maxNewTokens: 16,
    compareRoutes: parseRouteSpec('wasm-4,webgpu,wasm-1')!,
    baseline: 'webgpu',
    rounds: 3,
    seed: 99,
    tolerance: 2.5e-7,
    compareRows: 5,
    stop: 'until-clear',
    minRounds: 4,
    maxRounds: 40,
    maxTimeMs: 90_000,
    tieZone: 0.1,
    maxWidth: 0.2,
    sweepSizes: [8, 64, 512],
    suite: 'my.suite_1',
    minMargin: 1e-7,
    dtype: 'q4f16',
    deviceDetails: 'full',
    mode: 'protocol',
    protocol: 'qwen3-0.6b-q4-wasm',
    ortLog: 'verbose',
    driverFresh: 'webkit',
  };

  it('writes every parameter, and parsing what it writes gives the same settings back', () => {
    const params = toSearchParams(everyField);
    expect([...params.keys()]).toEqual(Object.keys(PARAMS));
    const { settings, errors } = parseAutomation(`?${params}`, context);
    expect(errors).toEqual([]);
    expect(settings).toEqual(everyField);
  });

  it.each(Object.entries(PARAMS))(
    'round-trips %s on its own, and leaves every other field at its default',
    (name, { field }) => {
      const one = { [field]: everyField[field] } as Partial<AutomationSettings>;
      const params = toSearchParams(one);
      expect([...params.keys()]).toEqual([name]);
      const { settings, errors } = parseAutomation(`?${params}`, context);
      expect(errors).toEqual([]);
      expect(settings).toEqual({ ...DEFAULT_SETTINGS, ...one });
    },
  );

  it('writes an explicit default (allow_fallback=0), leaves out null fields and an empty autorun, and round-trips the defaults', () => {
    expect(toSearchParams({ allowFallback: false, threads: null, model: null, autorun: [] }).toString()).toBe(
      'allow_fallback=0',
    );
    const { settings, errors } = parseAutomation(`?${toSearchParams(DEFAULT_SETTINGS)}`, context);
    expect(errors).toEqual([]);
    expect(settings).toEqual(DEFAULT_SETTINGS);
  });

  it('writes a tiny margin as a plain decimal, the only form min_margin accepts', () => {
    expect(toSearchParams({ minMargin: 1e-7 }).get('min_margin')).toBe('0.0000001');
    expect(toSearchParams({ minMargin: 0.25 }).get('min_margin')).toBe('0.25');
  });
});
