/**
 * Bring your own model, in a real headless Chromium: files set on the panel's chooser (Playwright's setInputFiles),
 * run from those files on wasm, in one page:
 *
 * - one bare graph under a name of the user's (the tiny ORT fixture's bytes, renamed), cold and warm;
 * - a folder pick (webkitdirectory) of a graph with its external data file (the Qwen3-shaped LM in fp32), under a
 *   folder name of the user's, cold and warm: the runtime finds the data file by its name, and the inputs (ids, mask,
 *   positions, an empty KV cache) are built from the graph's own input metadata;
 * - a transformers.js folder: the XLM-RoBERTa-shaped cross-encoder fixture with its four dtypes (and a stray notes
 *   file), which reranks the built-in probe pairs through its own tokenizer, cold and warm, in its default fp32;
 * - a transformers.js folder: the Qwen3-shaped KV-cache LM fixture with its five dtypes, q4 chosen in the panel, which
 *   generates the built-in prompt set greedily through the generation controller (the generation receipt v2).
 *
 * Each receipt is valid (schema + invariants), says `source: user-supplied`, `kind: user`, `integrity: unpinned`,
 * and lists every file read with exactly the bytes and SHA-256 computed here in Node (and no other file: not the
 * stray one, not another dtype's); its input is the one whose hash is rebuilt here. Nothing of a picked model is
 * fetched over the network. No file or folder name appears in a receipt, the page's stored artifacts or a
 * downloaded receipt's name or bytes.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import onnxProto from 'onnx-proto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGenerationReceipt, GenerationReceipt } from '../../src/core/generation/generation-receipt.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import {
  builtInInputBytes,
  synthesizedInput,
  synthesizedInputRecipeBytes,
  USER_RERANK_PROBE,
} from '../../src/core/user-model/user-run.ts';
import { chartScale } from '../../src/core/stats/chart-scale.ts';
import { threeSignificant } from '../../src/core/text/format-number.ts';
import { buildOrtFixtureModel } from '../../src/fixtures/ort-fixtures.ts';
import { receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';
import { waitForPage } from '../../src/node/chromium.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
// Names only the user knows: none may reach a receipt.
const GRAPH_NAME = 'acme-confidential-ranker.onnx';
const FOLDER_NAME = 'acme-private-lm-folder';
const RERANKER_FOLDER = 'acme-private-reranker';
const RERANKER_FIXTURE = 'public/models/tfjs-tiny-xlmr-reranker';
const RERANKER_FILES = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'onnx/model.onnx',
  'onnx/model_fp16.onnx',
  'onnx/model_quantized.onnx',
  'onnx/model_q4.onnx',
];
const LM_FOLDER = 'acme-private-chat-lm';
const LM_FIXTURE = 'public/models/tfjs-tiny-qwen3';
const LM_FILES = [
  'config.json',
  'generation_config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'onnx/model.onnx',
  'onnx/model.onnx_data',
  'onnx/model_fp16.onnx',
  'onnx/model_quantized.onnx',
  'onnx/model_q4.onnx',
];

let env: PageEnv;
let page: Page;
let dir: string;
/** Every URL the page asked for: none may be a picked model's file. */
const requested: string[] = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'drb-user-model-'));
  copyFileSync(join(ROOT, 'public/models/ort-tiny-xenc/model.onnx'), join(dir, GRAPH_NAME));
  mkdirSync(join(dir, FOLDER_NAME));
  for (const f of ['model.onnx', 'model.onnx_data'])
    copyFileSync(join(ROOT, 'public/models/tfjs-tiny-qwen3/onnx', f), join(dir, FOLDER_NAME, f));
  for (const [folder, fixture, files] of [
    [RERANKER_FOLDER, RERANKER_FIXTURE, RERANKER_FILES],
    [LM_FOLDER, LM_FIXTURE, LM_FILES],
  ] as const) {
    mkdirSync(join(dir, folder, 'onnx'), { recursive: true });
    for (const f of files) copyFileSync(join(ROOT, fixture, f), join(dir, folder, f));
  }
  // A file of no known role: neither read, hashed nor handed to the runtime.
  writeFileSync(join(dir, RERANKER_FOLDER, 'acme-notes.md'), 'private notes\n');
  env = await startPageEnv();
  page = await env.browser.context.newPage();
  page.on('request', (request) => requested.push(request.url()));
  await page.goto(`${env.server.url}?mode=panels`);
  await waitForPage(page, () => document.documentElement.dataset.drbState === 'idle', null, { timeout: 60_000 });
  // One WASM thread for every run here, asked for and recorded in the route: the same runs on every machine (the
  // engine's default follows the core count).
  await page.getByTestId('user-model-threads').selectOption('1');
});
afterAll(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Clicks the panel's run button and returns the page's device receipts once the warm run (or a failure) is shown. */
async function runPicked(): Promise<DeviceReceipt[]> {
  const before = (await page.evaluate(() => window.drbReceipts.length)) as number;
  await page.getByTestId('user-model-warm-runs').fill('3');
  await page.getByTestId('user-model-run').click();
  await waitForPage(
    page,
    (n) =>
      window.drbReceipts.length >= n + 2 ||
      document.querySelector('[data-testid^="user-model-receipt-"][data-outcome="failed"]') !== null,
    before,
    {
      timeout: 170_000,
    },
  );
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

/** The SHA-256 of each file of a folder, by hash: a receipt lists files in the order the run read them. */
function folderFiles(folder: string, files: readonly string[]): Map<string, Uint8Array> {
  return new Map(files.map((f) => readFileSync(join(dir, folder, f))).map((bytes) => [sha256(bytes), bytes]));
}

/** The synthesized input's id and recipe hash (a bare graph's), rebuilt here. */
function synthesizedInputSection(): DeviceReceipt['input'] {
  const input = synthesizedInput({ batch: 1, sequence: 16 }, 42);
  return { id: input.id, sha256: sha256(synthesizedInputRecipeBytes(input)) };
}

function checkUserReceipts(
  receipts: DeviceReceipt[],
  files: Uint8Array[],
  engine: 'ort' | 'transformers' = 'ort',
  input = synthesizedInputSection(),
): void {
  expect(receipts.map((r) => r.run.kind)).toEqual(['cold', 'warm']);
  for (const r of receipts) {
    expect(receiptProblems(r)).toEqual([]);
    expect(r.outcome.status, r.outcome.reason ?? '').toBe('ok');
    expect(r.engine.name).toBe(engine);
    expect(r.route).toMatchObject({
      requested_ep: 'wasm',
      completed_ep: 'wasm',
      fallback_reason: null,
      threads_requested: 1,
      threads_effective: 1,
    });
    expect(r.model).toMatchObject({
      id: 'user-model',
      kind: 'user',
      source: 'user-supplied',
      revision: null,
      integrity: 'unpinned',
      dtype: engine === 'ort' ? null : 'fp32',
    });
    expect(r.model.files).toEqual(
      files.map((bytes) =>
        expect.objectContaining({
          url: 'user-supplied:[redacted]',
          bytes: bytes.byteLength,
          sha256: sha256(bytes),
          expected_bytes: null,
          expected_sha256: null,
        }),
      ),
    );
    expect(r.input).toEqual(input);
    expect(r.output?.sha256).toMatch(/^[0-9a-f]{64}$/);
  }
  const [cold, warm] = receipts;
  expect(cold.timings.first_inference_ms).toBeGreaterThan(0);
  // Picked files are read from the device, not fetched (cache state unknown), so a user model's cold run is never
  // counted as network-cold (null: the runtime itself comes over the network under a URL unique to the run).
  expect(cold.run.cold_from_cache).not.toBe(false);
  expect(cold.model.files.every((f) => f.cache_state === 'unknown')).toBe(true);
  expect(warm.timings.warm_samples_ms).toHaveLength(3);
  // The same graph on the same built inputs: the same output, cold and warm.
  expect(warm.output?.sha256).toBe(cold.output?.sha256);
}

describe('bring your own model', () => {
  it('a file dropped on the panel is recognised as a picked one is (the drop handler, in the browser)', async () => {
    // A drop made in the page: Chromium gives its items no file system entry (webkitGetAsEntry() is null), so this
    // takes the handler's file-list path; a dropped folder's walk is tested over a fake tree (folder-walk.test.ts).
    const bytes = readFileSync(join(dir, GRAPH_NAME));
    await page.getByTestId('user-model-drop').evaluate(
      (zone, [name, base64]) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      },
      [GRAPH_NAME, bytes.toString('base64')] as const,
    );
    await expect
      .poll(() => page.getByTestId('user-model-recognised').textContent())
      .toBe(`An ONNX graph, ${bytes.byteLength} bytes.`);
    expect(await page.getByTestId('user-model-panel').textContent()).not.toContain('acme');
  });

  it('one bare graph picked under its own name: cold and warm from those bytes, hashed, the name nowhere', async () => {
    await page.getByTestId('user-model-files').setInputFiles(join(dir, GRAPH_NAME));
    await expect
      .poll(() => page.getByTestId('user-model-recognised').textContent())
      .toMatch(/^An ONNX graph, \d+ bytes\.$/);
    const receipts = await runPicked();
    checkUserReceipts(receipts, [readFileSync(join(dir, GRAPH_NAME))]);
    expect(receipts[0].output).toMatchObject({ name: 'logits', dims: [1, 1] });
    // The same cold stages and warm statistics a catalog model's receipts show, from these receipts' numbers.
    const [cold, warm] = receipts;
    const stages = (await page.getByTestId('user-model-receipt-cold').getByTestId('cold-stages').textContent()) ?? '';
    for (const ms of [cold.timings.model_fetch_ms, cold.timings.session_create_ms, cold.timings.first_inference_ms])
      expect(stages).toContain(`${threeSignificant(ms!)} ms`);
    const stats = (await page.getByTestId('user-model-receipt-warm').getByTestId('warm-stats').textContent()) ?? '';
    const w = warm.timings.warm_stats!;
    expect(stats).toContain(`3 samples: median ${threeSignificant(w.median)} ms, p95 ${threeSignificant(w.p95)} ms`);
    // Its warm chart has a labelled value axis in ms, with ticks: logarithmic exactly when these samples span more
    // than a decade (sub-millisecond warm runs beside a slower first one do), with one tick per power of ten then.
    const scale = chartScale(warm.timings.warm_samples_ms);
    const axis = page.getByTestId('user-model-receipt-warm').locator('svg text[data-axis]');
    expect(await axis.allTextContents()).toEqual(
      expect.arrayContaining([scale.kind === 'log' ? 'ms (log scale)' : 'ms', 'warm run, in run order']),
    );
    expect(await page.getByTestId('user-model-receipt-warm').locator('svg text[data-axis=value-tick]').count()).toBe(
      scale.ticks.length,
    );
    // And its next step, with the command and these receipts' file names.
    expect(await page.getByTestId('user-model-next').textContent()).toMatch(
      /npx drb receipts summarize drb-user-model-wasm-\S+-cold-\S+\.json drb-user-model-wasm-\S+-warm-\S+\.json/,
    );
    expect(await page.getByTestId('user-model-panel').textContent()).not.toContain('acme');

    // The downloaded receipt: a name built from the model id, and the receipt's own bytes.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('user-model-download-warm').click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^drb-user-model-wasm-\d+-warm-\d{8}T\d{6}Z\.json$/);
    const text = readFileSync((await download.path())!, 'utf8');
    expect(JSON.parse(text)).toEqual(receipts[1]);
    expect(text).not.toMatch(/acme|confidential|\.onnx/);
    expect(await everythingStored()).not.toMatch(/acme|confidential|ranker/);
  });

  it('a JSON file renamed .onnx is refused before the runtime sees it, in one line saying what was expected', async () => {
    writeFileSync(join(dir, 'acme-renamed.onnx'), '{"model": "not an ONNX graph"}\n');
    const before = requested.length;
    await page.getByTestId('user-model-files').setInputFiles(join(dir, 'acme-renamed.onnx'));
    await expect
      .poll(() => page.getByTestId('user-model-problem').textContent())
      .toBe(
        'These files cannot be run: the .onnx file: expected an ONNX graph (a protobuf ModelProto that starts with its ir_version), but it starts like JSON.',
      );
    expect(await page.getByTestId('user-model-run').isDisabled()).toBe(true);
    expect(await page.getByTestId('user-model-recognised').count()).toBe(0);
    // Nothing was fetched for it: no runtime, no worker.
    expect(requested.slice(before)).toEqual([]);
  });

  it("a graph larger than the runtime's first WebAssembly memory: its cold receipt shows that memory grown by at least the weights", async () => {
    // The catalog's fixtures fit into the 16 MiB ONNX Runtime's WebAssembly build starts with; this cross-encoder of
    // the same shape, made here, holds about 17 MB of weights (an 8,192 x 512 embedding), so loading it must grow it.
    const bytes = buildOrtFixtureModel({ id: 'big-xenc', vocabSize: 8192, hidden: 512, layers: 1, seed: 9 });
    const weights = (onnxProto.onnx.ModelProto.decode(bytes).graph!.initializer ?? []).reduce(
      (sum, t) => sum + (t.rawData?.length ?? 0),
      0,
    );
    expect(weights).toBeGreaterThan(16 * 1024 * 1024);
    writeFileSync(join(dir, 'big-xenc.onnx'), bytes);
    await page.getByTestId('user-model-files').setInputFiles(join(dir, 'big-xenc.onnx'));
    const [cold] = await runPicked();
    expect(cold.outcome.status).toBe('ok');
    expect(receiptProblems(cold)).toEqual([]);
    const wasm = cold.memory!.wasm;
    expect(wasm.before_load_bytes).toBe(16 * 1024 * 1024);
    expect(wasm.after_session_bytes! - wasm.before_load_bytes!).toBeGreaterThanOrEqual(weights);
    expect(wasm.after_last_run_bytes).toBeGreaterThanOrEqual(wasm.after_session_bytes!);
  });

  it('a folder with a graph and its external data file: the data found by its name, inputs with an empty KV cache built from the graph, no folder name anywhere', async () => {
    await page.getByTestId('user-model-folder').setInputFiles(join(dir, FOLDER_NAME));
    await expect
      .poll(() => page.getByTestId('user-model-recognised').textContent())
      .toMatch(/^An ONNX graph with 1 external data file\(s\), \d+ bytes\.$/);
    // The file input no longer shows the file picked through it before the folder.
    expect(
      await page
        .getByTestId('user-model-files')
        .evaluate((input: HTMLInputElement) => [input.value, input.files?.length]),
    ).toEqual(['', 0]);
    const receipts = await runPicked();
    // In the order the browser lists a folder's files; each hash is one of the two files'.
    const expected = ['model.onnx', 'model.onnx_data'].map((f) => readFileSync(join(dir, FOLDER_NAME, f)));
    const order = receipts[0].model.files.map((f) => expected.findIndex((b) => sha256(b) === f.sha256));
    expect([...order].sort()).toEqual([0, 1]);
    checkUserReceipts(
      receipts,
      order.map((i) => expected[i]),
    );
    // The LM's logits over the built sequence of 16 tokens: [batch 1, 16, vocabulary].
    expect(receipts[0].output).toMatchObject({ name: 'logits', dims: [1, 16, expect.any(Number)] });
    expect(await everythingStored()).not.toMatch(/acme|private-lm|onnx_data/);
  });

  it('a transformers.js cross-encoder folder with four dtypes: its fp32 graph reranks the built-in probe pairs through its own tokenizer, cold and warm; a stray file and the other dtypes neither read nor named', async () => {
    await page.getByTestId('user-model-folder').setInputFiles(join(dir, RERANKER_FOLDER));
    await expect
      .poll(() => page.getByTestId('user-model-recognised').textContent())
      .toMatch(/^A transformers\.js model folder \(fp32, fp16, q8, q4\): a sequence classifier; it reranks/);
    // The dtypes found, fp32 first and chosen by default.
    expect(await page.getByTestId('user-model-dtype').locator('option').allTextContents()).toEqual([
      'fp32',
      'fp16',
      'q8',
      'q4',
    ]);
    expect(await page.getByTestId('user-model-dtype').inputValue()).toBe('fp32');
    const receipts = await runPicked();
    // Exactly the four files fp32 needs, each once: not the notes file, not another dtype's graph.
    const byHash = folderFiles(RERANKER_FOLDER, RERANKER_FILES.slice(0, 4));
    expect(receipts[0].model.files).toHaveLength(4);
    expect(new Set(receipts[0].model.files.map((f) => f.sha256))).toEqual(new Set(byHash.keys()));
    checkUserReceipts(
      receipts,
      receipts[0].model.files.map((f) => byHash.get(f.sha256)!),
      'transformers',
      { id: USER_RERANK_PROBE.id, sha256: sha256(builtInInputBytes(USER_RERANK_PROBE)) },
    );
    expect(receipts[0].model.task).toBe('rerank');
    // One score per probe pair, from the tokenizer's own pairs (the ids never came from this page).
    expect(receipts[0].output).toMatchObject({ name: 'scores', dims: [USER_RERANK_PROBE.data.candidates.length] });
    expect(receipts[0].output!.head.every((v) => Number.isFinite(v))).toBe(true);
    const text = JSON.stringify(receipts);
    for (const words of [USER_RERANK_PROBE.data.query, ...USER_RERANK_PROBE.data.candidates])
      expect(text).not.toContain(words.slice(0, 12));
    expect(await everythingStored()).not.toMatch(/acme|private-reranker|notes|phone battery/);
  });

  it('a transformers.js causal-LM folder with five dtypes, q4 chosen: a greedy generation run through the generation controller, its receipt v2 with prefill and decode timings and only the q4 files', async () => {
    await page.getByTestId('user-model-folder').setInputFiles(join(dir, LM_FOLDER));
    await expect
      .poll(() => page.getByTestId('user-model-recognised').textContent())
      .toMatch(/^A transformers\.js model folder \(fp32, fp16, q8, q4\): a causal LM; it generates/);
    await page.getByTestId('user-model-dtype').selectOption('q4');
    await page.getByTestId('user-model-max-new-tokens').fill('4');
    const before = (await page.evaluate(() => window.drbArtifacts.length)) as number;
    await page.getByTestId('user-model-run').click();
    await page.getByTestId('user-model-generation').waitFor({ timeout: 170_000 });
    const artifacts = (
      (await page.evaluate(() => window.drbArtifacts)) as Array<{ kind: string; data: unknown }>
    ).slice(before);
    // The receipt only: the answers (the generated text) are not kept.
    expect(artifacts.map((a) => a.kind)).toEqual(['generation-receipt']);
    const receipt = GenerationReceipt.parse(artifacts[0].data);
    expect(checkGenerationReceipt(receipt)).toEqual([]);
    expect(receipt.outcome).toEqual({ status: 'ok', reason: null });
    expect(receipt.engine.name).toBe('transformers');
    expect(receipt.route).toMatchObject({
      requested_ep: 'wasm',
      completed_ep: 'wasm',
      fallback_reason: null,
      threads_requested: 1,
      threads_effective: 1,
    });
    expect(receipt.model).toMatchObject({
      id: 'user-model',
      kind: 'user',
      task: 'generate',
      source: 'user-supplied',
      revision: null,
      integrity: 'unpinned',
      dtype: 'q4',
    });
    // Exactly the q4 graph and the folder's four JSON files: fp32's graph and its external data are not read.
    const q4 = folderFiles(LM_FOLDER, [
      'config.json',
      'generation_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model_q4.onnx',
    ]);
    expect(receipt.model.files).toHaveLength(5);
    expect(receipt.model.files).toEqual(
      [...q4.keys()].map(() =>
        expect.objectContaining({ url: 'user-supplied:[redacted]', expected_sha256: null, cache_state: 'unknown' }),
      ),
    );
    expect(new Set(receipt.model.files.map((f) => f.sha256))).toEqual(new Set(q4.keys()));
    for (const f of receipt.model.files) expect(f.bytes).toBe(q4.get(f.sha256)!.byteLength);
    // Greedy, with the token limit given, recorded as an override.
    expect(receipt.plan).toMatchObject({
      temperature: 0,
      max_new_tokens: 4,
      max_new_tokens_overridden: true,
      repetitions: 1,
    });
    expect(receipt.prompt_set.id).toBe('drb-gen-ja-en-v1');
    expect(receipt.cold.load_ms).toBeGreaterThan(0);
    expect(receipt.samples).toHaveLength(receipt.prompt_set.measured_prompts);
    for (const sample of receipt.samples) {
      expect(sample.outcome).toBe('ok');
      // The folder's chat template wraps each prompt, so more tokens than the prompt's words alone.
      expect(sample.prompt_tokens).toBeGreaterThan(8);
      expect(sample.ttft_ms).toBeGreaterThan(0);
      expect(sample.prefill_tokens_per_s).toBeGreaterThan(0);
      expect(sample.output_tokens).toBeGreaterThan(0);
      if ((sample.output_tokens ?? 0) >= 2) expect(sample.decode_tokens_per_s).toBeGreaterThan(0);
    }
    expect(receipt.samples.some((s) => (s.output_tokens ?? 0) >= 2)).toBe(true);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('user-model-download-generation').click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^drb-user-model-wasm-\d+-generation-\d{8}T\d{6}Z\.json$/);
    const text = readFileSync((await download.path())!, 'utf8');
    expect(JSON.parse(text)).toEqual(artifacts[0].data);
    expect(text).not.toMatch(/acme|private|\.onnx/);
    expect(await page.getByTestId('user-model-panel').textContent()).not.toContain('acme');
    expect(await everythingStored()).not.toMatch(/acme|private-chat/);
    // Every picked byte came from the chooser: no request of the page was for a model file.
    expect(requested.filter((url) => /drb-user-supplied|\/models\/|\.onnx|tokenizer|config\.json/.test(url))).toEqual(
      [],
    );
  });
});
