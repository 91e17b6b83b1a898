/**
 * Bring your own model, in a real headless Chromium: files set on the panel's chooser (Playwright's setInputFiles),
 * run cold and warm from those files on wasm, in one page:
 *
 * - one bare graph under a name of the user's (the tiny ORT fixture's bytes, renamed);
 * - a folder pick (webkitdirectory) of a graph with its external data file (the Qwen3-shaped LM in fp32), under a
 *   folder name of the user's: the runtime finds the data file by its name, and the inputs (ids, mask, positions, an
 *   empty KV cache) are built from the graph's own input metadata.
 *
 * Each receipt is valid (schema + invariants), says `source: user-supplied`, `kind: user`, `integrity: unpinned`,
 * and lists every file with exactly the bytes and SHA-256 computed here in Node; its input is the synthesized input
 * whose recipe hash is rebuilt here. No file or folder name appears in a receipt, the page's stored artifacts or a
 * downloaded receipt's name or bytes.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceReceipt } from '../../src/core/receipt.ts';
import { synthesizedInput, synthesizedInputRecipeBytes } from '../../src/core/user-model/user-run.ts';
import { receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
// Names only the user knows: none may reach a receipt.
const GRAPH_NAME = 'acme-confidential-ranker.onnx';
const FOLDER_NAME = 'acme-private-lm-folder';
const TFJS_FOLDER = 'acme-private-reranker';
const TFJS_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'];

let env: PageEnv;
let page: Page;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'drb-user-model-'));
  copyFileSync(join(ROOT, 'public/models/ort-tiny-xenc/model.onnx'), join(dir, GRAPH_NAME));
  mkdirSync(join(dir, FOLDER_NAME));
  for (const f of ['model.onnx', 'model.onnx_data']) copyFileSync(join(ROOT, 'public/models/tfjs-tiny-qwen3/onnx', f), join(dir, FOLDER_NAME, f));
  mkdirSync(join(dir, TFJS_FOLDER, 'onnx'), { recursive: true });
  for (const f of TFJS_FILES) copyFileSync(join(ROOT, 'public/models/tfjs-tiny-xlmr-reranker', f), join(dir, TFJS_FOLDER, f));
  // A file of no known role: neither read, hashed nor handed to the runtime.
  writeFileSync(join(dir, TFJS_FOLDER, 'acme-notes.md'), 'private notes\n');
  env = await startPageEnv();
  page = await env.browser.context.newPage();
  await page.goto(`${env.server.url}?mode=panels`);
  await page.waitForFunction(() => document.documentElement.dataset.drbState === 'idle', null, { timeout: 60_000 });
});
afterAll(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Clicks the panel's run button and returns the page's device receipts once the warm run (or a failure) is shown. */
async function runPicked(before: number): Promise<DeviceReceipt[]> {
  await page.getByTestId('user-model-warm-runs').fill('3');
  await page.getByTestId('user-model-run').click();
  await page.waitForFunction((n) => window.drbReceipts.length >= n + 2 || document.querySelector('[data-testid^="user-model-receipt-"][data-outcome="failed"]') !== null, before, {
    timeout: 170_000,
  });
  return ((await page.evaluate(() => window.drbReceipts)) as DeviceReceipt[]).slice(before);
}

/** Everything the page keeps or offers, as text: receipts, artifacts, and the session's stored records. */
async function everythingStored(): Promise<string> {
  const offered = await page.evaluate(() => JSON.stringify([window.drbReceipts, window.drbArtifacts]));
  const stored = await page.evaluate(async () => {
    const names = (await indexedDB.databases()).map((d) => d.name!).filter(Boolean);
    const out: unknown[] = [];
    for (const name of names) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const req = indexedDB.open(name);
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      for (const store of Array.from(db.objectStoreNames)) {
        out.push(
          await new Promise((resolve, reject) => {
            const req = db.transaction(store).objectStore(store).getAll();
            req.onsuccess = () => resolve(req.result);
            req.onerror = () => reject(req.error);
          }),
        );
      }
      db.close();
    }
    return JSON.stringify(out);
  });
  return offered + stored;
}

function checkUserReceipts(receipts: DeviceReceipt[], files: Uint8Array[], engine: 'ort' | 'transformers' = 'ort'): void {
  expect(receipts.map((r) => r.run.kind)).toEqual(['cold', 'warm']);
  const input = synthesizedInput({ batch: 1, sequence: 16 }, 42);
  for (const r of receipts) {
    expect(receiptProblems(r)).toEqual([]);
    expect(r.outcome.status, r.outcome.reason ?? '').toBe('ok');
    expect(r.engine.name).toBe(engine);
    expect(r.route).toMatchObject({ requested_ep: 'wasm', completed_ep: 'wasm', fallback_reason: null });
    expect(r.model).toMatchObject({ id: 'user-model', kind: 'user', source: 'user-supplied', revision: null, integrity: 'unpinned', dtype: engine === 'ort' ? null : 'fp32' });
    expect(r.model.files).toEqual(
      files.map((bytes) => expect.objectContaining({ url: 'user-supplied:[redacted]', bytes: bytes.byteLength, sha256: sha256(bytes), expected_bytes: null, expected_sha256: null })),
    );
    expect(r.input).toEqual({ id: 'synthesized-b1-s16', sha256: sha256(synthesizedInputRecipeBytes(input)) });
    expect(r.output?.sha256).toMatch(/^[0-9a-f]{64}$/);
  }
  const [cold, warm] = receipts;
  expect(cold.timings.first_inference_ms).toBeGreaterThan(0);
  // Picked files are read from the device, not fetched (cache state unknown), so a user model's cold run is never
  // counted as truly cold: null, or true once the runtime itself came from the HTTP cache (a second run here).
  expect(cold.run.cold_from_cache).not.toBe(false);
  expect(cold.model.files.every((f) => f.cache_state === 'unknown')).toBe(true);
  expect(warm.timings.warm_samples_ms).toHaveLength(3);
  // The same graph on the same built inputs: the same output, cold and warm.
  expect(warm.output?.sha256).toBe(cold.output?.sha256);
}

describe('bring your own model', () => {
  it('one bare graph picked under its own name: cold and warm from those bytes, hashed, the name nowhere', async () => {
    await page.getByTestId('user-model-files').setInputFiles(join(dir, GRAPH_NAME));
    await expect.poll(() => page.getByTestId('user-model-recognised').textContent()).toMatch(/^An ONNX graph, \d+ bytes\.$/);
    const receipts = await runPicked(0);
    checkUserReceipts(receipts, [readFileSync(join(dir, GRAPH_NAME))]);
    expect(receipts[0].output).toMatchObject({ name: 'logits', dims: [1, 1] });
    expect(await page.getByTestId('user-model-panel').textContent()).not.toContain('acme');

    // The downloaded receipt: a name built from the model id, and the receipt's own bytes.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('user-model-download-warm').click()]);
    expect(download.suggestedFilename()).toMatch(/^drb-user-model-wasm-\d+-warm-\d{8}T\d{6}Z\.json$/);
    const text = readFileSync((await download.path())!, 'utf8');
    expect(JSON.parse(text)).toEqual(receipts[1]);
    expect(text).not.toMatch(/acme|confidential|\.onnx/);
    expect(await everythingStored()).not.toMatch(/acme|confidential|ranker/);
  });

  it('a folder with a graph and its external data file: the data found by its name, inputs with an empty KV cache built from the graph, no folder name anywhere', async () => {
    await page.getByTestId('user-model-folder').setInputFiles(join(dir, FOLDER_NAME));
    await expect.poll(() => page.getByTestId('user-model-recognised').textContent()).toMatch(/^An ONNX graph with 1 external data file\(s\), \d+ bytes\.$/);
    const receipts = await runPicked(2);
    // In the order the browser lists a folder's files; each hash is one of the two files'.
    const expected = ['model.onnx', 'model.onnx_data'].map((f) => readFileSync(join(dir, FOLDER_NAME, f)));
    const order = receipts[0].model.files.map((f) => expected.findIndex((b) => sha256(b) === f.sha256));
    expect([...order].sort()).toEqual([0, 1]);
    checkUserReceipts(receipts, order.map((i) => expected[i]));
    // The LM's logits over the built sequence of 16 tokens: [batch 1, 16, vocabulary].
    expect(receipts[0].output).toMatchObject({ name: 'logits', dims: [1, 16, expect.any(Number)] });
    expect(await everythingStored()).not.toMatch(/acme|private-lm|onnx_data/);
  });

  it('a transformers.js folder: config, tokenizer and its fp32 graph through transformers.js on synthesized token ids; a stray file neither read nor named', async () => {
    await page.getByTestId('user-model-folder').setInputFiles(join(dir, TFJS_FOLDER));
    await expect.poll(() => page.getByTestId('user-model-recognised').textContent()).toMatch(/^A transformers\.js model folder \(fp32\): its fp32 graph runs/);
    const receipts = await runPicked(4);
    const byHash = new Map(TFJS_FILES.map((f) => [sha256(readFileSync(join(dir, TFJS_FOLDER, f))), readFileSync(join(dir, TFJS_FOLDER, f))]));
    // Exactly the four files of known roles, each once (the notes file is not among them).
    expect(receipts[0].model.files).toHaveLength(4);
    expect(new Set(receipts[0].model.files.map((f) => f.sha256))).toEqual(new Set(byHash.keys()));
    checkUserReceipts(receipts, receipts[0].model.files.map((f) => byHash.get(f.sha256)!), 'transformers');
    expect(receipts[0].model.task).toBe('rerank');
    // The cross-encoder's one logit per synthesized row.
    expect(receipts[0].output).toMatchObject({ name: 'logits', dims: [1, 1] });
    expect(await everythingStored()).not.toMatch(/acme|private-reranker|notes/);
  });
});
