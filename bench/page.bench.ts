/**
 * `npm run bench -- page`: harness overhead of the benchmark page, in one headless Chromium run.
 *
 * 1. Warm median of the heavier fixture (ort-heavy-xenc, 4 x 128 tokens, wasm, 2 threads) measured by the page
 *    (autorun=warm, the same worker + comlink + receipt path a tester uses) against a bare loop of `session.run` on
 *    the same model, same input, same threads, in a plain module worker of the same browser with no harness at all
 *    (bench-only files written next to a fresh build). Rounds alternate page / bare so drift hits both; the ratio is
 *    median(page medians) / median(bare medians), and the median of the per-round paired ratios (less sensitive to
 *    load from other processes, which moves both halves of a round together). Target: under 1.05.
 * 2. Worker round trip: the median time of an empty comlink call (`ping`) from the page to the bench worker.
 *    Target: under 0.5 ms.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toSearchParams } from '../src/core/automation/automation.ts';
import { launchChromium } from '../src/node/chromium.ts';
import { startStaticServer } from '../src/node/static-server.ts';
import { median } from '../src/core/stats/stats.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const ROUNDS = Number(process.env.DRB_BENCH_PAGE_ROUNDS ?? 7);
const RUNS = 40;
const THREADS = Number(process.env.DRB_BENCH_PAGE_THREADS ?? 2);
const PINGS = 500;

const dir = mkdtempSync(join(tmpdir(), 'drb-page-bench-'));
const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
const build = spawnSync(process.execPath, [vite, 'build', '--outDir', dir, '--emptyOutDir', '--logLevel', 'warn'], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(1);

// The bare loop: ORT's own ESM build + runtime files copied from node_modules, a worker that does nothing but
// create the session and time session.run, and a page that starts it. Files, not inline scripts: the CSP forbids those.
mkdirSync(join(dir, 'bare'));
const ortDist = join(ROOT, 'node_modules', 'onnxruntime-web', 'dist');
// The same JavaScript and build the page's wasm route loads (the plain SIMD-threaded build, see workers/ort-runtime.ts).
for (const f of ['ort.webgpu.min.mjs', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm'])
  copyFileSync(join(ortDist, f), join(dir, 'bare', f));
writeFileSync(
  join(dir, 'bare', 'bare-worker.js'),
  `import * as ort from './ort.webgpu.min.mjs';
self.onmessage = async ({ data }) => {
  ort.env.wasm.wasmPaths = { mjs: new URL('./ort-wasm-simd-threaded.mjs', import.meta.url).href, wasm: new URL('./ort-wasm-simd-threaded.wasm', import.meta.url).href };
  ort.env.wasm.numThreads = data.threads;
  ort.env.logLevel = 'error';
  const model = new Uint8Array(await (await fetch('../models/ort-heavy-xenc/model.onnx')).arrayBuffer());
  const input = await (await fetch('../inputs/tokens-4x128.json')).json();
  const session = await ort.InferenceSession.create(model, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const dims = [input.input_ids.length, input.input_ids[0].length];
  const t = (rows) => new ort.Tensor('int64', BigInt64Array.from(rows.flat(), (v) => BigInt(v)), dims);
  const feeds = { input_ids: t(input.input_ids), attention_mask: t(input.attention_mask), token_type_ids: t(input.token_type_ids) };
  const rounds = [];
  for (let r = 0; r < data.rounds; r++) {
    await session.run(feeds);
    const samples = [];
    for (let i = 0; i < data.runs; i++) {
      const t0 = performance.now();
      const out = await session.run(feeds);
      samples.push(performance.now() - t0);
      for (const v of Object.values(out)) v.dispose();
    }
    rounds.push(samples);
  }
  self.postMessage(rounds);
};
`,
);
writeFileSync(
  join(dir, 'bare', 'bare.js'),
  `window.bareRun = (threads, rounds, runs) => new Promise((resolve, reject) => {
  const worker = new Worker(new URL('./bare-worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => { worker.terminate(); resolve(data); };
  worker.onerror = (e) => reject(new Error(e.message));
  worker.postMessage({ threads, rounds, runs });
});
document.documentElement.dataset.ready = '1';
`,
);
writeFileSync(
  join(dir, 'bare', 'index.html'),
  '<!doctype html><title>bare</title><script type="module" src="./bare.js"></script>\n',
);

const server = await startStaticServer({ dir });
const browser = await launchChromium();
try {
  const pageMedians: number[] = [];
  const bareMedians: number[] = [];
  let pingMedianMs = NaN;
  const page = await browser.context.newPage();
  const bare = await browser.context.newPage();
  await bare.goto(`${server.url}bare/`);
  await bare.waitForFunction(() => document.documentElement.dataset.ready === '1');
  for (let round = 0; round < ROUNDS; round++) {
    await page.goto(
      `${server.url}?${toSearchParams({ autorun: ['warm'], model: 'ort-heavy-xenc', ep: 'wasm', threads: THREADS, warmRuns: RUNS, testHooks: true })}`,
    );
    await page.waitForFunction(
      () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''),
      null,
      { timeout: 300_000 },
    );
    const receipt = await page.evaluate(() => window.drbReceipts[0]);
    if (receipt.outcome.status !== 'ok') throw new Error(`page run failed: ${receipt.outcome.reason}`);
    if (receipt.route.threads_effective !== THREADS)
      throw new Error(`page ran ${receipt.route.threads_effective} threads`);
    pageMedians.push(receipt.timings.warm_stats!.median);
    if (round === 0) {
      const pings = await page.evaluate(async (n) => {
        const samples: number[] = [];
        for (let i = 0; i < 20; i++) await window.drbTest!.pingWorker();
        for (let i = 0; i < n; i++) {
          const t0 = performance.now();
          await window.drbTest!.pingWorker();
          samples.push(performance.now() - t0);
        }
        return samples;
      }, PINGS);
      pingMedianMs = median(pings)!;
    }
    const [samples] = await bare.evaluate(
      ([threads, runs]) =>
        (window as unknown as { bareRun(t: number, r: number, n: number): Promise<number[][]> }).bareRun(
          threads,
          1,
          runs,
        ),
      [THREADS, RUNS],
    );
    bareMedians.push(median(samples)!);
  }
  const pageMedian = median(pageMedians)!;
  const bareMedian = median(bareMedians)!;
  const ratio = pageMedian / bareMedian;
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown CPU';
  console.log(
    `machine: ${cpus().length} cores (${cpu}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${(await browser.context.browser()?.version()) ?? 'chromium'}`,
  );
  console.log(`heavy fixture, wasm, ${THREADS} threads, ${ROUNDS} rounds x ${RUNS} runs`);
  console.log(`page warm medians (ms): ${pageMedians.map((m) => m.toFixed(3)).join(', ')}`);
  console.log(`bare session.run medians (ms): ${bareMedians.map((m) => m.toFixed(3)).join(', ')}`);
  const paired = median(pageMedians.map((m, i) => m / bareMedians[i]))!;
  console.log(
    `page / bare: ratio of medians ${ratio.toFixed(3)}, median paired ratio ${paired.toFixed(3)} (target < 1.05: ${paired < 1.05 ? 'met' : 'NOT met'})`,
  );
  console.log(`load average during the run: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  console.log(
    `worker round trip (empty comlink call), median of ${PINGS}: ${pingMedianMs.toFixed(3)} ms (target < 0.5 ms: ${pingMedianMs < 0.5 ? 'met' : 'NOT met'})`,
  );
} finally {
  await browser.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
