/**
 * Device details in real Chromium: by default a receipt records the reduced identity (major versions only, no
 * high-entropy client hints) and says so; only the tester's choice (the checkbox, or device_details=full) records the
 * full user agent and the high-entropy hints, and the receipt records that choice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reduceUserAgent } from '../../src/core/receipt/capability-bounds.ts';
import { openAndWait, pageReceipts, receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv();
});
afterAll(async () => {
  await env?.close();
});

describe('device details', () => {
  it('records a reduced identity by default and the full one only when chosen', async () => {
    const reduced = await openAndWait(env, { autorun: ['cold'] });
    const [plain] = await pageReceipts(reduced.page);
    const browserUa = await reduced.page.evaluate(() => navigator.userAgent);
    await reduced.page.close();
    expect(reduced.state).toBe('done');
    expect(receiptProblems(plain)).toEqual([]);
    expect(plain.capabilities.device_details).toBe('reduced');
    expect(plain.capabilities.user_agent).toBe(reduceUserAgent(browserUa));
    const hints = plain.capabilities.ua_client_hints;
    expect(hints).not.toBeNull();
    expect(hints).toMatchObject({ platform_version: null, architecture: null, model: null, full_version_list: null });
    for (const brand of hints!.brands) expect(brand.version).toMatch(/^\d+$/);

    const full = await openAndWait(env, { autorun: ['cold'], deviceDetails: 'full' });
    const [chosen] = await pageReceipts(full.page);
    expect(await full.page.getByTestId('device-details').isChecked()).toBe(true);
    await full.page.close();
    expect(full.state).toBe('done');
    expect(receiptProblems(chosen)).toEqual([]);
    expect(chosen.capabilities.device_details).toBe('full');
    expect(chosen.capabilities.user_agent).toBe(browserUa);
    expect(chosen.capabilities.ua_client_hints?.full_version_list).not.toBeNull();
  });
});
