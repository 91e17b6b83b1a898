/**
 * `npm run bench -- cold`: cold start on the `wasm` route with onnxruntime-web's plain SIMD-threaded build (what a
 * wasm route loads) against its WebGPU-capable asyncify build (what every route loaded before), and the WebGPU-capable
 * JSPI build (what a webgpu route loads where the browser has JSPI) against asyncify (what it loaded before, and still
 * loads without JSPI), side by side in one run, plus the bytes a wasm-only cold run of the page transfers.
 *
 * Every run is a fresh Chromium with a fresh profile (nothing in the HTTP cache, no compiled-code cache), and each
 * round runs the three kinds in a shuffled order from a fixed seed (mulberry32), so drift and load hit all alike:
 * - `page`: the real page, `autorun=cold` on wasm with 1 thread (the plain build): the receipt's `model_fetch_ms`,
 *   `runtime_fetch_ms`, `session_create_ms` and `first_inference_ms`, and every byte the static server sent for the
 *   run (the bodies of its 200 responses as transferred, compressed as `drb serve` compresses them, beside the
 *   files' own sizes: page, code, runtime, model, input). The server makes each file's compressed bytes once: every
 *   file is requested once before the first round, so no run waits for that;
 * - `plain`, `asyncify` and `jspi`: a bench-only module worker with no harness (written next to a fresh build) that does the
 *   same stages with one build each, on the same ORT JavaScript the page uses (`ort.webgpu.min.mjs`): model fetch,
 *   runtime fetch (`.mjs` import + `.wasm` read, handed over as `env.wasm.wasmBinary`), `InferenceSession.create` on
 *   the wasm EP, first `session.run`.
 *
 * Targets: median session creation plain / asyncify at most 0.55 (also given as the median of the per-round ratios),
 * and a wasm-only cold run of the page under 16 MB transferred in total.
 * Environment: DRB_BENCH_COLD_RUNS (default 5), DRB_BENCH_COLD_MODEL (default ort-heavy-xenc).
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toSearchParams } from '../src/core/automation/automation.ts';
import { mulberry32 } from '../src/core/stats/mulberry32.ts';
import type { DeviceReceipt } from '../src/core/receipt/receipt.ts';
import { median } from '../src/core/stats/stats.ts';
import { launchChromium } from '../src/node/chromium.ts';
import { startStaticServer } from '../src/node/static-server.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNS = Number(process.env.DRB_BENCH_COLD_RUNS ?? 5);
const MODEL = process.env.DRB_BENCH_COLD_MODEL ?? 'ort-heavy-xenc';
const SEED = 11;
const MB = 1e6;

const dir = mkdtempSync(join(tmpdir(), 'drb-cold-bench-'));
const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
const build = spawnSync(process.execPath, [vite, 'build', '--outDir', dir, '--emptyOutDir', '--logLevel', 'warn'], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(1);

// The bare worker: ORT's JavaScript and the three builds copied from node_modules. Files, not inline scripts: the CSP
// forbids those.
mkdirSync(join(dir, 'coldbare'));
const ortDist = join(ROOT, 'node_modules', 'onnxruntime-web', 'dist');
const BUILD_STEM = {
  plain: 'ort-wasm-simd-threaded',
  asyncify: 'ort-wasm-simd-threaded.asyncify',
  jspi: 'ort-wasm-simd-threaded.jspi',
} as const;
for (const f of ['ort.webgpu.min.mjs', ...Object.values(BUILD_STEM).flatMap((s) => [`${s}.mjs`, `${s}.wasm`])])
  copyFileSync(join(ortDist, f), join(dir, 'coldbare', f));
const catalog = JSON.parse(readFileSync(join(ROOT, 'src', 'catalog', 'catalog.json'), 'utf8')) as {
  models: Array<{ id: string; default_input: string }>;
};
const inputId = catalog.models.find((m) => m.id === MODEL)?.default_input;
if (!inputId) throw new Error(`no catalog model ${MODEL}`);
writeFileSync(
  join(dir, 'coldbare', 'cold-worker.js'),
  `import * as ort from './ort.webgpu.min.mjs';
self.onmessage = async ({ data }) => {
  const t0 = performance.now();
  const model = new Uint8Array(await (await fetch('../models/${MODEL}/model.onnx', { cache: 'no-store' })).arrayBuffer());
  const input = await (await fetch('../inputs/${inputId}.json', { cache: 'no-store' })).json();
  const t1 = performance.now();
  const mjs = new URL('./' + data.stem + '.mjs', import.meta.url).href;
  const wasmUrl = new URL('./' + data.stem + '.wasm', import.meta.url).href;
  await import(mjs);
  const wasm = new Uint8Array(await (await fetch(wasmUrl)).arrayBuffer());
  const t2 = performance.now();
  ort.env.wasm.wasmPaths = { mjs, wasm: wasmUrl };
  ort.env.wasm.wasmBinary = wasm;
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  const session = await ort.InferenceSession.create(model, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const t3 = performance.now();
  const dims = [input.input_ids.length, input.input_ids[0].length];
  const t = (rows) => new ort.Tensor('int64', BigInt64Array.from(rows.flat(), (v) => BigInt(v)), dims);
  const feeds = { input_ids: t(input.input_ids), attention_mask: t(input.attention_mask), token_type_ids: t(input.token_type_ids) };
  const t4 = performance.now();
  await session.run(feeds);
  const t5 = performance.now();
  self.postMessage({ model_fetch_ms: t1 - t0, runtime_fetch_ms: t2 - t1, session_create_ms: t3 - t2, first_inference_ms: t5 - t4, wasm_bytes: wasm.byteLength });
};
`,
);
writeFileSync(
  join(dir, 'coldbare', 'cold.js'),
  `window.coldRun = (stem) => new Promise((resolve, reject) => {
  const worker = new Worker(new URL('./cold-worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => { worker.terminate(); resolve(data); };
  worker.onerror = (e) => reject(new Error(e.message));
  worker.postMessage({ stem });
});
document.documentElement.dataset.ready = '1';
`,
);
writeFileSync(
  join(dir, 'coldbare', 'index.html'),
  '<!doctype html><title>cold</title><script type="module" src="./cold.js"></script>\n',
);

type Kind = 'page' | 'plain' | 'asyncify' | 'jspi';
interface Stages {
  model_fetch_ms: number;
  runtime_fetch_ms: number;
  session_create_ms: number;
  first_inference_ms: number;
}

/**
 * Bytes the server sent per 200 response of the current run (the body as transferred: brotli or gzip where the
 * browser accepted it, as `drb serve` sends it), with the file's own size beside it.
 */
let sent: Array<{ path: string; bytes: number; fileBytes: number; coding: string | null }> = [];
const server = await startStaticServer({
  dir,
  onRequest: (method, path, status, body) => {
    if (method !== 'GET' || status !== 200 || body === undefined) return;
    const file = join(dir, path.endsWith('/') ? `${path}index.html` : path);
    let fileBytes = body.bytes;
    try {
      fileBytes = statSync(file).size;
    } catch {
      // A path the server answered from elsewhere: not a file of the build.
    }
    sent.push({ path, bytes: body.bytes, fileBytes, coding: body.coding });
  },
});

// The server compresses each file once, on its first request: do that before any timed run.
for (const file of readdirSync(dir, { recursive: true, withFileTypes: true })) {
  if (!file.isFile()) continue;
  const path = relative(dir, join(file.parentPath, file.name)).split(sep).join('/');
  if (path.split('/').some((segment) => segment.startsWith('.'))) continue;
  for (const coding of ['br', 'gzip']) {
    const response = await fetch(`${server.url}${path}`, { headers: { 'accept-encoding': coding } });
    await response.arrayBuffer();
  }
}

async function runOnce(kind: Kind): Promise<{ stages: Stages; bytes: typeof sent }> {
  sent = [];
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    if (kind === 'page') {
      await page.goto(`${server.url}?${toSearchParams({ autorun: ['cold'], model: MODEL, ep: 'wasm', threads: 1 })}`);
      await page.waitForFunction(
        () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''),
        null,
        { timeout: 600_000 },
      );
      const receipt = (await page.evaluate(() => window.drbReceipts[0])) as DeviceReceipt;
      if (receipt.outcome.status !== 'ok') throw new Error(`page cold run failed: ${receipt.outcome.reason}`);
      if (receipt.runtime.build !== 'plain') throw new Error(`page loaded the ${receipt.runtime.build} build on wasm`);
      if (receipt.run.cold_from_cache !== false)
        throw new Error(`page cold run not proven cold (cold_from_cache ${receipt.run.cold_from_cache})`);
      const t = receipt.timings;
      return {
        stages: {
          model_fetch_ms: t.model_fetch_ms!,
          runtime_fetch_ms: t.runtime_fetch_ms!,
          session_create_ms: t.session_create_ms!,
          first_inference_ms: t.first_inference_ms!,
        },
        bytes: sent,
      };
    }
    await page.goto(`${server.url}coldbare/`);
    await page.waitForFunction(() => document.documentElement.dataset.ready === '1');
    const stages = await page.evaluate(
      (stem) => (window as unknown as { coldRun(s: string): Promise<Stages> }).coldRun(stem),
      BUILD_STEM[kind],
    );
    return { stages, bytes: sent };
  } finally {
    await browser.close();
  }
}

const random = mulberry32(SEED);
const results: Record<Kind, Stages[]> = { page: [], plain: [], asyncify: [], jspi: [] };
const pageBytes: Array<typeof sent> = [];
const loads: number[] = [];
try {
  for (let round = 0; round < RUNS; round++) {
    const order: Kind[] = ['page', 'plain', 'asyncify', 'jspi'];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const kind of order) {
      const { stages, bytes } = await runOnce(kind);
      results[kind].push(stages);
      if (kind === 'page') pageBytes.push(bytes);
      loads.push(Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]));
      console.log(
        `round ${round + 1} ${kind.padEnd(8)} fetch ${stages.model_fetch_ms.toFixed(0)} ms, runtime fetch ${stages.runtime_fetch_ms.toFixed(0)} ms, session ${stages.session_create_ms.toFixed(0)} ms, first inference ${stages.first_inference_ms.toFixed(0)} ms`,
      );
    }
  }

  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown CPU';
  const probe = await launchChromium();
  const version = probe.context.browser()?.version() ?? 'chromium';
  await probe.close();
  console.log(
    `\nmachine: ${cpus().length} cores (${cpu}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Chromium ${version}`,
  );
  console.log(`${MODEL}, wasm route, 1 thread, ${RUNS} fresh-profile runs of each kind, interleaved (seed ${SEED})`);
  console.log(
    `load average (1 min) after each run: min ${Math.min(...loads).toFixed(2)}, median ${median(loads)!.toFixed(2)}, max ${Math.max(...loads).toFixed(2)}`,
  );
  const med = (kind: Kind, key: keyof Stages) => median(results[kind].map((s) => s[key]))!;
  console.log('\nmedians (ms)        model fetch  runtime fetch  session create  first inference');
  for (const kind of ['page', 'plain', 'asyncify', 'jspi'] as const) {
    console.log(
      `${kind.padEnd(19)} ${med(kind, 'model_fetch_ms').toFixed(0).padStart(11)}  ${med(kind, 'runtime_fetch_ms').toFixed(0).padStart(13)}  ${med(kind, 'session_create_ms').toFixed(0).padStart(14)}  ${med(kind, 'first_inference_ms').toFixed(0).padStart(15)}`,
    );
  }
  const ratio = med('plain', 'session_create_ms') / med('asyncify', 'session_create_ms');
  const paired = median(results.plain.map((s, i) => s.session_create_ms / results.asyncify[i].session_create_ms))!;
  const pageRatio = med('page', 'session_create_ms') / med('asyncify', 'session_create_ms');
  console.log(
    `\nsession creation plain / asyncify: ratio of medians ${ratio.toFixed(3)}, median per-round ratio ${paired.toFixed(3)} (target <= 0.55: ${paired <= 0.55 && ratio <= 0.55 ? 'met' : 'NOT met'}); the page's (plain) / bare asyncify: ${pageRatio.toFixed(3)}`,
  );
  const jspiRatio = med('jspi', 'session_create_ms') / med('asyncify', 'session_create_ms');
  const jspiPaired = median(results.jspi.map((s, i) => s.session_create_ms / results.asyncify[i].session_create_ms))!;
  console.log(
    `session creation jspi / asyncify (a webgpu route's build with and without JSPI, both on the wasm EP here): ratio of medians ${jspiRatio.toFixed(3)}, median per-round ratio ${jspiPaired.toFixed(3)}`,
  );

  const totals = pageBytes.map((b) => b.reduce((sum, e) => sum + e.bytes, 0));
  const fileTotals = pageBytes.map((b) => b.reduce((sum, e) => sum + e.fileBytes, 0));
  const last = pageBytes.at(-1)!;
  const part = (test: (path: string) => boolean, key: 'bytes' | 'fileBytes' = 'bytes') =>
    last.filter((e) => test(e.path)).reduce((sum, e) => sum + e[key], 0);
  const isRuntime = (p: string) => /\/ort-wasm-simd-threaded[^/]*\.(wasm|mjs)$/.test(p);
  const isModel = (p: string) => p.startsWith('/models/');
  const isInput = (p: string) => p.startsWith('/inputs/');
  const runtime = part(isRuntime);
  const model = part(isModel);
  const inputs = part(isInput);
  const code = totals.at(-1)! - runtime - model - inputs;
  const codings = [...new Set(last.map((e) => e.coding ?? 'none'))].join(', ');
  console.log(
    `bytes a wasm-only cold run of the page transferred (response bodies as sent, content codings: ${codings}): median ${(median(totals)! / MB).toFixed(2)} MB ` +
      `(runtime ${(runtime / MB).toFixed(2)} MB, model ${(model / MB).toFixed(2)} MB, input ${(inputs / MB).toFixed(3)} MB, page and code ${(code / MB).toFixed(2)} MB; ` +
      `target < 16 MB: ${median(totals)! < 16 * MB ? 'met' : 'NOT met'}); the same files' own sizes: ${(median(fileTotals)! / MB).toFixed(2)} MB ` +
      `(runtime ${(part(isRuntime, 'fileBytes') / MB).toFixed(2)} MB, model ${(part(isModel, 'fileBytes') / MB).toFixed(2)} MB)`,
  );
  console.log(
    `files the page's cold run fetched: ${last.map((e) => `${e.path.split('/').pop()}${e.coding ? ` (${e.coding})` : ''}`).join(', ')}`,
  );
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
