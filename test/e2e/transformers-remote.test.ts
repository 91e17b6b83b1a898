/**
 * Remote loading stays real for Hugging Face catalog entries: the page asks the Hub for exactly the catalog's files at
 * the pinned revision, hashes what arrives, and records the model as unpinned (the catalog pins no hashes for it).
 *
 * There is no network here, so playwright answers the Hub URLs with the tiny reranker fixture's bytes (served under
 * the real model's file names, with the CORS header the Hub sends). What is checked is the page's side: URLs,
 * revision, hashing, receipt; not the real model (which is never downloaded by this project).
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseCatalog } from '../../src/core/catalog.ts';
import { modelHosts } from '../../src/core/csp.ts';
import { checkSuiteReceipt, SuiteReceipt } from '../../src/core/suite/suite-receipt.ts';
import { launchChromium, type LaunchedChromium } from '../../src/node/chromium.ts';
import { startStaticServer, type StaticServer } from '../../src/node/static-server.ts';

const REPO = 'onnx-community/bge-reranker-v2-m3-ONNX';
const REVISION = 'a3046abee880d6e78833e4e885939754355156bd';
const FIXTURE = new URL('../../public/models/tfjs-tiny-reranker/', import.meta.url);
const SERVED: Record<string, string> = {
  'config.json': 'config.json',
  'tokenizer.json': 'tokenizer.json',
  'tokenizer_config.json': 'tokenizer_config.json',
  'onnx/model_quantized.onnx': 'onnx/model.onnx',
};

let env: { server: StaticServer; browser: LaunchedChromium };
beforeAll(async () => {
  // Served like `drb serve` serves it: the CSP's connect-src names the catalog's model hosts (the shared e2e harness
  // serves with 'self' only, which is right for the offline tests but would block the Hub here).
  const catalog = parseCatalog(JSON.parse(await readFile(new URL('../../src/catalog/catalog.json', import.meta.url), 'utf8')), 'catalog.json');
  env = { server: await startStaticServer({ dir: inject('distDir'), modelHosts: modelHosts(catalog) }), browser: await launchChromium() };
});
afterAll(async () => {
  await env?.browser.close();
  await env?.server.close();
});

describe('transformers.js remote (Hugging Face) loading', () => {
  it('fetches the catalog files from the Hub at the pinned revision, hashes them, and records the model as unpinned', async () => {
    const page = await env.browser.context.newPage();
    const hubRequests: string[] = [];
    const offOrigin: string[] = [];
    const origin = new URL(env.server.url).origin;
    page.on('request', (request) => {
      if (!request.url().startsWith(`${origin}/`) && !request.url().startsWith('blob:')) offOrigin.push(request.url());
    });
    await page.route('https://huggingface.co/**', async (route) => {
      const url = new URL(route.request().url());
      hubRequests.push(url.href);
      const prefix = `/${REPO}/resolve/${REVISION}/`;
      const file = url.pathname.startsWith(prefix) ? SERVED[url.pathname.slice(prefix.length)] : undefined;
      if (!file) return route.fulfill({ status: 404, headers: { 'access-control-allow-origin': '*' }, body: 'not found' });
      const body = await readFile(new URL(file, FIXTURE));
      return route.fulfill({ status: 200, headers: { 'access-control-allow-origin': '*', 'content-type': 'application/octet-stream' }, body });
    });
    await page.goto(`${env.server.url}?autorun=suite&engine=transformers&model=bge-reranker-v2-m3-q8&ep=wasm&threads=1`);
    await page.waitForFunction(() => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, { timeout: 120_000 });
    const state = await page.evaluate(() => document.documentElement.dataset.drbState);
    const receipt = (await page.evaluate(() => window.drbArtifacts.find((a) => a.kind === 'suite-receipt')?.data)) as SuiteReceipt;
    await page.close();

    expect(state).toBe('done');
    const parsed = SuiteReceipt.parse(receipt);
    expect(checkSuiteReceipt(parsed)).toEqual([]);
    expect(parsed.model).toMatchObject({ id: 'bge-reranker-v2-m3-q8', kind: 'real', source: 'huggingface', revision: REVISION, integrity: 'unpinned', dtype: 'q8' });
    // Exactly the catalog's files, from the Hub, at the pinned revision; nothing else left the page's origin.
    const expected = Object.keys(SERVED).map((path) => `https://huggingface.co/${REPO}/resolve/${REVISION}/${path}`);
    expect([...hubRequests].sort()).toEqual([...expected].sort());
    expect([...offOrigin].sort()).toEqual([...expected].sort());
    // Hashed in the page even though nothing was pinned: the receipt carries what was really loaded.
    expect(parsed.model.files.map((f) => f.url).sort()).toEqual([...expected].sort());
    for (const file of parsed.model.files) {
      expect(file.expected_sha256).toBeNull();
      expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
  });
});
