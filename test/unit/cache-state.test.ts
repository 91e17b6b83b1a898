// Where a file's bytes came from (src/core/receipt/cache-state.ts), against hand-checked resource timing entries, and what a
// cold receipt's cold_from_cache must be.
import { describe, expect, it } from 'vitest';
import {
  coldFromCache,
  coldSetAsideReason,
  decideCacheState,
  type CacheEvidence,
} from '../../src/core/receipt/cache-state.ts';

const base: CacheEvidence = { entry: null, crossOrigin: false, storedBefore: false, bypassedHttpCache: null };
const entry = (transferSize: number, encodedBodySize: number, decodedBodySize: number, extra: object = {}) => ({
  transferSize,
  encodedBodySize,
  decodedBodySize,
  ...extra,
});

describe('decideCacheState', () => {
  it.each([
    ['a full transfer', { entry: entry(26_782_214, 26_781_914, 26_781_914) }, 'network'],
    ['nothing transferred for a body with bytes', { entry: entry(0, 26_781_914, 26_781_914) }, 'http-cache'],
    ["Chromium's deliveryType cache", { entry: entry(300, 53_057, 53_057, { deliveryType: 'cache' }) }, 'http-cache'],
    ['a revalidation: headers only, body from the cache', { entry: entry(310, 53_057, 53_057) }, 'http-cache'],
    ['a 304 status', { entry: entry(310, 100, 100, { responseStatus: 304 }) }, 'http-cache'],
    [
      "the engine's own storage held it before the run",
      { entry: entry(26_000, 25_000, 25_000), storedBefore: true },
      'cache-storage',
    ],
    [
      'cross-origin with hidden sizes, fetched with no-store',
      { entry: entry(0, 0, 0), crossOrigin: true, bypassedHttpCache: 'cache: no-store' },
      'network',
    ],
    ['no entry, fetched with no-store', { bypassedHttpCache: 'cache: no-store' }, 'network'],
    ['cross-origin with hidden sizes', { entry: entry(0, 0, 0), crossOrigin: true }, 'unknown'],
    ['no entry at all', {}, 'unknown'],
    ['same-origin zeros (a worker in WebKit)', { entry: entry(0, 0, 0) }, 'unknown'],
  ] as const)('%s: %s', (_name, evidence, expected) => {
    const facts = decideCacheState({ ...base, ...evidence });
    expect(facts.cache_state).toBe(expected);
    // An unknown state always says why; so does a decision that the sizes alone did not make.
    if (expected === 'unknown') expect(facts.cache_note).toMatch(/\S/);
  });

  it('says how a bypass was made and why the sizes did not decide', () => {
    expect(
      decideCacheState({ ...base, entry: entry(0, 0, 0), bypassedHttpCache: 'a URL unique to this cold run' })
        .cache_note,
    ).toBe(
      'fetched with a URL unique to this cold run, so not from the HTTP cache (resource timing gives no sizes here)',
    );
    expect(decideCacheState({ ...base, entry: entry(0, 0, 0), crossOrigin: true }).cache_note).toBe(
      'cross-origin without Timing-Allow-Origin: the browser hides the sizes',
    );
  });
});

describe('coldFromCache', () => {
  it.each([
    [[], null],
    [['network', 'network'], false],
    [['network', 'http-cache'], true],
    [['cache-storage'], true],
    [['network', 'unknown'], null],
    [['unknown', 'http-cache'], true],
  ] as const)('%j -> %s', (states, expected) => {
    expect(coldFromCache(states.map((cache_state) => ({ cache_state })))).toBe(expected);
  });

  it('sets aside every cold run that is not proven cold, with its reason', () => {
    expect(coldSetAsideReason(false)).toBeNull();
    expect(coldSetAsideReason(true)).toBe('served-from-cache');
    expect(coldSetAsideReason(null)).toBe('cache-state-unknown');
  });
});
