/**
 * Privacy and the automation contract's error path: a secret planted in the page URL's query and fragment never
 * appears in any receipt; the page requests nothing outside its origin; bad parameters give a clear on-page error.
 */
import type { ConsoleMessage, Request, WebError } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAndWait, pageQuery, pageReceipts, receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv();
});
afterAll(async () => {
  await env?.close();
});

describe('privacy', () => {
  it('never puts the URL query or fragment into a receipt, and requests only its own origin', async () => {
    const requested: string[] = [];
    const onRequest = (request: Request) => requested.push(request.url());
    const problems: string[] = [];
    const onConsole = (message: ConsoleMessage) => {
      if (message.type() === 'error') problems.push(message.text());
    };
    const onWebError = (error: WebError) => problems.push(error.error().message);
    // Context-level: requests and errors of the page's workers are reported there too.
    env.browser.context.on('request', onRequest);
    env.browser.context.on('console', onConsole);
    env.browser.context.on('weberror', onWebError);
    const { page, state } = await openAndWait(
      env,
      `${pageQuery({ autorun: ['cold', 'warm'], warmRuns: 3 })}&token=SECRET-QUERY-7f3a&note=hello#SECRET-FRAGMENT-9c1d`,
    );
    const receipts = await pageReceipts(page);
    await page.close();
    env.browser.context.off('request', onRequest);
    env.browser.context.off('console', onConsole);
    env.browser.context.off('weberror', onWebError);
    // The strict CSP refuses nothing the page needs, and nothing else fails: no console errors at all.
    expect(problems).toEqual([]);
    expect(state).toBe('done');
    expect(receipts).toHaveLength(2);
    for (const receipt of receipts) {
      expect(receiptProblems(receipt)).toEqual([]);
      const text = JSON.stringify(receipt);
      expect(text).not.toContain('SECRET-QUERY');
      expect(text).not.toContain('SECRET-FRAGMENT');
      expect(text).not.toContain('hello');
      expect(receipt.app.page_url).toBe(env.server.url);
      expect(receipt.navigation?.url).toBe(env.server.url);
    }
    const origin = new URL(env.server.url).origin;
    const foreign = requested.filter(
      (url) => !url.startsWith(origin) && !url.startsWith('blob:') && !url.startsWith('data:'),
    );
    expect(foreign).toEqual([]);
  });
});

describe('automation parameters', () => {
  it('shows one clear error per bad parameter, runs nothing, and never echoes unknown parameters', async () => {
    const { page, state } = await openAndWait(env, '?autorun=cold&threads=x&ep=gpu&warm_runs=0&secret=TOPSECRET');
    expect(state).toBe('failed');
    const errors = await page.getByTestId('param-error').allTextContents();
    expect(errors).toEqual([
      "Invalid ep param: 'gpu', expected one of wasm, webgpu",
      "Invalid threads param: 'x', expected an integer from 1 to 64",
      "Invalid warm_runs param: '0', expected an integer from 1 to 1000",
    ]);
    expect(await page.evaluate(() => window.drbReceipts.length)).toBe(0);
    expect(await page.evaluate(() => document.body.innerText)).not.toContain('TOPSECRET');
    await page.close();
  });
});
