// What protocol mode says about each receipt (src/core/field/receipt-lines.ts): its numbers and whether it counts.
import { describe, expect, it } from 'vitest';
import { countVerdict, msText, receiptNumbers } from '../../src/core/field/receipt-lines.ts';
import { buildReceipt } from './receipts-builder.ts';

describe('receipt lines', () => {
  it('gives a cold run its total and stages, a warm receipt its median and p95', () => {
    const cold = buildReceipt({ kind: 'cold', coldMs: { fetch: 12, session: 812.4, first: 3.1 } });
    cold.timings.runtime_fetch_ms = 310;
    expect(receiptNumbers(cold)).toBe(
      'total 829 ms (fetch 12.0 ms, runtime 310 ms, session 812 ms, first inference 3.10 ms)',
    );
    const warm = buildReceipt({ kind: 'warm', warmSamples: [2, 3, 4, 5] });
    expect(receiptNumbers(warm)).toBe('median 3.50 ms, p95 5.00 ms over 4 timed runs');
    expect(msText(1234.5)).toBe('1,235 ms');
  });

  it('says whether and why a receipt counts, a cold run that does not count as a warning', () => {
    expect(countVerdict(buildReceipt({ kind: 'cold' }))).toEqual({
      counted: true,
      words: 'counts: a full protocol cold (every file over the network, a fresh start, restart and clear attested)',
    });
    expect(countVerdict(buildReceipt({ kind: 'cold', coldStart: 'second-in-page' }))).toEqual({
      counted: false,
      words: 'network-cold, but not counted as a protocol cold: 1 earlier run(s) on the same page',
    });
    expect(countVerdict(buildReceipt({ kind: 'cold', coldStart: 'not-attested' })).words).toBe(
      'network-cold, but not counted as a protocol cold: browser restart not attested; website data clear not attested',
    );
    const overlapped = buildReceipt({ kind: 'warm' });
    overlapped.run.overlap = { this_page: false, other_tabs: true };
    expect(countVerdict(overlapped).counted).toBe(false);
    expect(countVerdict(buildReceipt({ kind: 'warm' }))).toEqual({ counted: true, words: 'counts as a warm receipt' });
    expect(countVerdict(buildReceipt({ kind: 'cold', failed: { stage: 'fetch', reason: 'offline' } }))).toEqual({
      counted: false,
      words: 'failed: offline',
    });
  });
});
