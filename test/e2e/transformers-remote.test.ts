/**
 * Remote loading stays real for Hugging Face catalog entries: the page asks the Hub for exactly the catalog's files at
 * the pinned revision, hashes what arrives, and records the model as unpinned (the catalog pins no hashes for it).
 * Covered for the reranker through a suite run, and for both real LLM generate entries through generation runs
 * (LFM2.5 at its pinned revision, with an external-data file; Qwen3 at `main`, as no revision is known).
 *
 * There is no network here, so playwright answers the Hub URLs with a tiny fixture's bytes (served under the real
 * model's file names, with the CORS header the Hub sends). What is checked is the page's side: URLs, revision,
 * hashing, receipt; not the real model (which is never downloaded by this project).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { toSearchParams } from '../../src/core/automation/automation.ts';
import { parseCatalog } from '../../src/core/catalog/catalog.ts';
import { filesForDtype } from '../../src/core/catalog/transformers-dtype.ts';
import { modelHosts } from '../../src/core/catalog/csp.ts';
import { checkGenerationReceipt, GenerationReceipt } from '../../src/core/generation/generation-receipt.ts';
import { checkSuiteReceipt, SuiteReceipt } from '../../src/core/suite/suite-receipt.ts';
import type { LaunchedChromium } from '../../src/node/chromium.ts';
import { startStaticServer, type StaticServer } from '../../src/node/static-server.ts';
import { launchTestChromium } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

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
  const catalog = parseCatalog(
    JSON.parse(await readFile(new URL('../../src/catalog/catalog.json', import.meta.url), 'utf8')),
    'catalog.json',
  );
  env = {
    server: await startStaticServer({ dir: inject('distDir'), modelHosts: modelHosts(catalog) }),
    browser: await launchTestChromium(),
  };
});
afterAll(async () => {
  await env?.browser.close();
  await env?.server.close();
});

/** What the Hub answered and what left the page's origin during one page run. */
interface HubLog {
  hubRequests: string[];
  offOrigin: string[];
}

/**
 * Answers `https://huggingface.co/<repo>/resolve/<revision>/<path>` with the fixture file `served[path]` (404 for
 * anything else) and logs every request that leaves the page's origin.
 * @param page the page to route
 * @param repo the catalog entry's repo
 * @param revision the catalog entry's pinned revision
 * @param fixture the fixture folder whose files stand in for the real ones
 * @param served catalog path -> fixture path (null: a few placeholder bytes, for a file the fixture has no twin of)
 */
async function answerHub(
  page: Page,
  repo: string,
  revision: string,
  fixture: URL,
  served: Record<string, string | null>,
): Promise<HubLog> {
  const log: HubLog = { hubRequests: [], offOrigin: [] };
  const origin = new URL(env.server.url).origin;
  page.on('request', (request) => {
    if (!request.url().startsWith(`${origin}/`) && !request.url().startsWith('blob:'))
      log.offOrigin.push(request.url());
  });
  await page.route('https://huggingface.co/**', async (route) => {
    const url = new URL(route.request().url());
    log.hubRequests.push(url.href);
    const prefix = `/${repo}/resolve/${revision}/`;
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : null;
    if (path === null || !(path in served))
      return route.fulfill({ status: 404, headers: { 'access-control-allow-origin': '*' }, body: 'not found' });
    const file = served[path];
    const body = file === null ? Buffer.from('drb placeholder bytes') : await readFile(new URL(file, fixture));
    return route.fulfill({
      status: 200,
      headers: { 'access-control-allow-origin': '*', 'content-type': 'application/octet-stream' },
      body,
    });
  });
  return log;
}

/** Runs the page with `query` until it signals done or failed; returns the state and the artifact of `kind`. */
async function runPage(
  page: Page,
  query: string,
  kind: string,
): Promise<{ state: string | undefined; artifact: unknown }> {
  await page.goto(`${env.server.url}${query}`);
  await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
    timeout: 120_000,
  });
  const state = await page.evaluate(() => document.documentElement.dataset.drbState);
  const artifact = await page.evaluate((k) => window.drbArtifacts.find((a) => a.kind === k)?.data, kind);
  return { state, artifact };
}

describe('transformers.js remote (Hugging Face) loading', () => {
  it('fetches the catalog files from the Hub at the pinned revision, hashes them, and records the model as unpinned', async () => {
    const page = await env.browser.context.newPage();
    const log = await answerHub(page, REPO, REVISION, FIXTURE, SERVED);
    const { state, artifact } = await runPage(
      page,
      `?${toSearchParams({ autorun: ['suite'], engine: 'transformers', model: 'bge-reranker-v2-m3-q8', ep: 'wasm', threads: 1 })}`,
      'suite-receipt',
    );
    await page.close();

    expect(state).toBe('done');
    const parsed = SuiteReceipt.parse(artifact);
    expect(checkSuiteReceipt(parsed)).toEqual([]);
    expect(parsed.model).toMatchObject({
      id: 'bge-reranker-v2-m3-q8',
      kind: 'real',
      source: 'huggingface',
      revision: REVISION,
      integrity: 'unpinned',
      dtype: 'q8',
    });
    // Exactly the catalog's files, from the Hub, at the pinned revision; nothing else left the page's origin.
    const expected = Object.keys(SERVED).map((path) => `https://huggingface.co/${REPO}/resolve/${REVISION}/${path}`);
    expect([...log.hubRequests].sort()).toEqual([...expected].sort());
    expect([...log.offOrigin].sort()).toEqual([...expected].sort());
    // Hashed in the page even though nothing was pinned: the receipt carries what was really loaded.
    expect(parsed.model.files.map((f) => f.url).sort()).toEqual([...expected].sort());
    for (const file of parsed.model.files) {
      expect(file.expected_sha256).toBeNull();
      expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  // LFM2.5 has a pinned revision and an external-data file; Qwen3 has no known revision, so it loads `main` and the
  // receipt's revision is null.
  it.each([
    ['lfm2.5-350m-q4-gen', true],
    ['qwen3-0.6b-q4-gen', false],
  ])(
    'a real LLM generate entry (%s): the generation run loads exactly the catalog files from the Hub at its revision',
    async (id, pinnedRevision) => {
      const catalog = parseCatalog(
        JSON.parse(await readFile(new URL('../../src/catalog/catalog.json', import.meta.url), 'utf8')),
        'catalog.json',
      );
      const model = catalog.models.find((m) => m.id === id)!;
      expect(model.source.type).toBe('huggingface');
      const { repo, revision: pinned } = model.source as { repo: string; revision: string | null };
      if (pinnedRevision) expect(pinned).toMatch(/^[0-9a-f]{40}$/);
      else expect(pinned).toBeNull();
      const revision = pinned ?? 'main';
      // The Qwen3-shaped fixture's q4 graph (MatMulNBits, KV cache, chat template) stands in for the real q4 graph; it
      // needs no external data, so a catalog model_q4.onnx_data is answered with placeholder bytes (still fetched, hashed
      // and handed to the runtime).
      const fixture = new URL('../../public/models/tfjs-tiny-qwen3/', import.meta.url);
      const stand: Record<string, string | null> = {
        'config.json': 'config.json',
        'generation_config.json': 'generation_config.json',
        'tokenizer.json': 'tokenizer.json',
        'tokenizer_config.json': 'tokenizer_config.json',
        'onnx/model_q4.onnx': 'onnx/model_q4.onnx',
        'onnx/model_q4.onnx_data': null,
      };
      // A run fetches the shared files and its dtype's graph (q4) only; the other dtypes' files are never requested.
      const runFiles = filesForDtype(model, model.dtype!);
      const served = Object.fromEntries(runFiles.map((f) => [f.path, stand[f.path]]));
      // Every file the run needs has a stand-in: a file added to the entry must be added here too.
      for (const [path, file] of Object.entries(served)) expect(file, path).not.toBeUndefined();

      const page = await env.browser.context.newPage();
      const log = await answerHub(page, repo, revision, fixture, served);
      const { state, artifact } = await runPage(
        page,
        `?${toSearchParams({ autorun: ['generate'], engine: 'transformers', model: model.id, ep: 'wasm', threads: 1, reps: 1, maxNewTokens: 4 })}`,
        'generation-receipt',
      );
      const errorText = state === 'done' ? '' : await page.getByTestId('generation-panel').textContent();
      await page.close();

      expect(errorText).toBe('');
      expect(state).toBe('done');
      const parsed = GenerationReceipt.parse(artifact);
      expect(checkGenerationReceipt(parsed)).toEqual([]);
      expect(parsed.engine.name).toBe('transformers');
      expect(parsed.model).toMatchObject({
        id: model.id,
        kind: 'real',
        task: 'generate',
        source: 'huggingface',
        revision: pinned,
        integrity: 'unpinned',
        dtype: 'q4',
      });
      expect(parsed.summary).toMatchObject({ measured_planned: 10, ok_samples: 10, failures: 0 });
      for (const s of parsed.samples) expect(s.output_tokens! > 0 && s.ttft_ms! > 0).toBe(true);
      // Exactly the catalog's files, from the Hub, at the entry's revision; nothing else left the page's origin.
      const expected = runFiles.map((f) => `https://huggingface.co/${repo}/resolve/${revision}/${f.path}`);
      expect([...log.hubRequests].sort()).toEqual([...expected].sort());
      expect([...log.offOrigin].sort()).toEqual([...expected].sort());
      // Each file's hash in the receipt is the hash of the bytes the Hub answered with.
      expect(parsed.model.files.map((f) => f.url).sort()).toEqual([...expected].sort());
      for (const file of parsed.model.files) {
        const path = file.url.slice(`https://huggingface.co/${repo}/resolve/${revision}/`.length);
        const bytes =
          served[path] === null
            ? Buffer.from('drb placeholder bytes')
            : await readFile(new URL(served[path]!, fixture));
        expect([path, file.sha256, file.bytes, file.expected_sha256]).toEqual([
          path,
          createHash('sha256').update(bytes).digest('hex'),
          bytes.byteLength,
          null,
        ]);
      }
    },
  );
});
