/**
 * Captures real device receipts from the real page for the receipts unit tests and the receipts benchmark:
 * builds the page into a temp folder, serves it (src/node/static-server.ts, port 0), drives it in headless
 * Chromium through the automation contract, validates every receipt, and writes them into
 * test/fixtures/receipts/ (replacing the previous capture). Run: `node --import tsx scripts/capture-receipts.ts`.
 *
 * Scenarios: ORT wasm 1 and 2 threads (cold + warm), the heavier fixture (cold + warm), WebGPU on the SwiftShader
 * adapter (cold), WebGPU requested without an adapter with fallback allowed (a recorded fallback), WebGPU without
 * an adapter and no fallback (a failed run), a stage time limit too small to load the heavy model (a failed run),
 * a reload in the middle of a run followed by a cold run (a receipt recording `previous_run_interrupted`), and
 * cold + warm on wasm in WebKitGTK over WebDriver (no memory API, no WebGPU; skip with DRB_CAPTURE_WEBKIT=0).
 * Besides device receipts it captures one suite receipt (the demo suite reranked by the tiny transformers.js
 * reranker on wasm) and one comparison receipt (the tiny ORT fixture on wasm-1, wasm-2 and WebGPU on SwiftShader),
 * taken from `window.drbArtifacts`, and the suite run's predictions (checked against the hash its receipt names) into
 * test/fixtures/suite-run/.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { toSearchParams, type AutomationSettings } from '../src/core/automation/automation.ts';
import { parseRouteSpec } from '../src/core/comparison/route-spec.ts';
import type { DeviceReceipt } from '../src/core/receipt/receipt.ts';
import { validateReceipt } from '../src/core/validation/validate-receipt.ts';
import { openLane } from '../src/node/browser-lane.ts';
import { launchChromium, waitForPage, type LaunchedChromium } from '../src/node/chromium.ts';
import { startStaticServer } from '../src/node/static-server.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = join(ROOT, 'test', 'fixtures', 'receipts');
// The suite run's predictions, kept apart from the receipts (summaries of the receipts folder stay about receipts):
// `drb score` turns them into the score report that `drb receipts report` shows beside the suite run's speed.
const SUITE_RUN_OUT = join(ROOT, 'test', 'fixtures', 'suite-run');
const SUITE_PREDICTIONS_FILE = 'ajimee-demo-24-tfjs-tiny-reranker-wasm-predictions.json';

interface Scenario {
  name: string;
  settings: Partial<AutomationSettings>;
  webgpu: boolean;
  /** Expected end state of the page. */
  state: 'done' | 'failed';
}

const COLD_WARM = { autorun: ['cold', 'warm'], engine: 'ort' } as const satisfies Partial<AutomationSettings>;
const COLD = { autorun: ['cold'], engine: 'ort' } as const satisfies Partial<AutomationSettings>;
const SCENARIOS: Scenario[] = [
  {
    name: 'ort-wasm-t1',
    settings: { ...COLD_WARM, ep: 'wasm', threads: 1, model: 'ort-tiny-xenc', warmRuns: 20 },
    webgpu: false,
    state: 'done',
  },
  {
    name: 'ort-wasm-t2',
    settings: { ...COLD_WARM, ep: 'wasm', threads: 2, model: 'ort-tiny-xenc', warmRuns: 20 },
    webgpu: false,
    state: 'done',
  },
  {
    name: 'ort-heavy-wasm-t2',
    settings: { ...COLD_WARM, ep: 'wasm', threads: 2, model: 'ort-heavy-xenc', warmRuns: 10 },
    webgpu: false,
    state: 'done',
  },
  { name: 'ort-webgpu', settings: { ...COLD, ep: 'webgpu', model: 'ort-tiny-xenc' }, webgpu: true, state: 'done' },
  {
    name: 'ort-webgpu-fallback',
    settings: { ...COLD_WARM, ep: 'webgpu', allowFallback: true, model: 'ort-tiny-xenc', warmRuns: 5 },
    webgpu: false,
    state: 'done',
  },
  {
    name: 'ort-webgpu-no-adapter',
    settings: { ...COLD, ep: 'webgpu', allowFallback: false, model: 'ort-tiny-xenc' },
    webgpu: false,
    state: 'failed',
  },
  // 500 ms: the probe and the model fetch finish well within it even on a loaded machine (at 50 ms the probe itself
  // sometimes timed out, which gave a receipt without client hints and another device identity), while creating the
  // heavy model's session takes over a second.
  {
    name: 'ort-heavy-stage-timeout',
    settings: { ...COLD, ep: 'wasm', threads: 1, model: 'ort-heavy-xenc', stageTimeoutMs: 500 },
    webgpu: false,
    state: 'failed',
  },
];

/** The page URL that runs `settings` (written by the page's own serialiser). */
function pageUrl(server: { url: string }, settings: Partial<AutomationSettings>): string {
  return `${server.url}?${toSearchParams(settings)}`;
}

async function waitForEnd(page: Page, timeoutMs = 150_000): Promise<string> {
  await waitForPage(page, () => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
    timeout: timeoutMs,
  });
  return page.evaluate(() => document.documentElement.dataset.drbState ?? '');
}

/** One artifact the page offered (`window.drbArtifacts`). */
interface PageArtifact {
  kind: string;
  data: { schema: string; receipt_id: string; outcome: { status: string } };
}

/** Runs `query` in `page` until done/failed and returns the one artifact of `kind` it offered. */
async function artifactOf(
  page: Page,
  url: string,
  kind: string,
  expected: 'done' | 'failed',
): Promise<PageArtifact['data']> {
  await page.goto(url);
  const state = await waitForEnd(page, 170_000);
  const found = (
    await page.evaluate(() => (window as unknown as { drbArtifacts: PageArtifact[] }).drbArtifacts ?? [])
  ).filter((a) => a.kind === kind);
  if (state !== expected || found.length !== 1)
    throw new Error(`${kind}: page ended "${state}" with ${found.length} artifact(s) of that kind`);
  return found[0].data;
}

async function receiptsOf(page: Page): Promise<DeviceReceipt[]> {
  return page.evaluate(() => (window as unknown as { drbReceipts: DeviceReceipt[] }).drbReceipts ?? []);
}

async function main(): Promise<void> {
  const dist = mkdtempSync(join(tmpdir(), 'drb-capture-dist-'));
  const browsers: LaunchedChromium[] = [];
  const captured: Array<{ name: string; receipt: DeviceReceipt | PageArtifact['data'] }> = [];
  let suitePredictions: Buffer | null = null;
  try {
    const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
    const build = spawnSync(
      process.execPath,
      [vite, 'build', '--outDir', dist, '--emptyOutDir', '--logLevel', 'warn'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    if (build.status !== 0) throw new Error(`vite build failed:\n${build.stdout}\n${build.stderr}`);
    const server = await startStaticServer({ dir: dist });
    try {
      const plain = await launchChromium();
      const gpu = await launchChromium({ webgpu: true });
      browsers.push(plain, gpu);
      for (const scenario of SCENARIOS) {
        const page = await (scenario.webgpu ? gpu : plain).context.newPage();
        await page.goto(pageUrl(server, scenario.settings));
        const state = await waitForEnd(page);
        const receipts = await receiptsOf(page);
        await page.close();
        if (state !== scenario.state)
          throw new Error(`${scenario.name}: page ended "${state}", expected "${scenario.state}"`);
        if (receipts.length === 0) throw new Error(`${scenario.name}: no receipts`);
        for (const receipt of receipts) captured.push({ name: scenario.name, receipt });
        console.log(
          `${scenario.name}: ${state}, ${receipts.map((r) => `${r.run.kind}/${r.outcome.status}`).join(' ')}`,
        );
      }
      // Interrupted run: start a long warm run, reload the page in the middle, then run cold.
      const page = await plain.context.newPage();
      await page.goto(
        pageUrl(server, { ...COLD_WARM, ep: 'wasm', threads: 1, model: 'ort-heavy-xenc', warmRuns: 1000 }),
      );
      // Reload once the journal (localStorage, written before each stage) says the warm samples are running.
      await waitForPage(page, () => (localStorage.getItem('drb.run-journal') ?? '').includes('warm_inference'), null, {
        timeout: 60_000,
      }).catch(() => console.log('interrupted: the journal never reached warm_inference; reloading anyway'));
      await page.goto(pageUrl(server, { ...COLD, ep: 'wasm', threads: 1, model: 'ort-tiny-xenc' }));
      await waitForEnd(page);
      const after = await receiptsOf(page);
      await page.close();
      const interrupted = after.filter((r) => r.run.previous_run_interrupted !== null);
      if (interrupted.length > 0) {
        for (const receipt of interrupted) captured.push({ name: 'ort-after-interrupted-run', receipt });
        console.log(`interrupted: recorded at stage ${interrupted[0].run.previous_run_interrupted!.stage}`);
      } else {
        console.log(
          'interrupted: the page did not record previous_run_interrupted (run journal not wired yet); scenario skipped',
        );
      }
      // One suite receipt (the shipped demo suite, tiny reranker on wasm) and one comparison receipt (tiny ORT
      // fixture on wasm-1, wasm-2 and WebGPU on SwiftShader), after the interruption was recorded above.
      const suitePage = await plain.context.newPage();
      const suite = await artifactOf(
        suitePage,
        pageUrl(server, {
          autorun: ['suite'],
          engine: 'transformers',
          model: 'tfjs-tiny-reranker',
          ep: 'wasm',
          threads: 1,
        }),
        'suite-receipt',
        'done',
      );
      const rows = await suitePage.evaluate(
        () =>
          (window as unknown as { drbArtifacts: PageArtifact[] }).drbArtifacts.find((a) => a.kind === 'predictions')
            ?.data,
      );
      await suitePage.close();
      // The page offers exactly these bytes for download (encodePredictions); the receipt names their SHA-256.
      suitePredictions = Buffer.from(`${JSON.stringify(rows, null, 2)}\n`);
      const predictionsSha256 = createHash('sha256').update(suitePredictions).digest('hex');
      const named = (suite as unknown as { predictions: { sha256: string } | null }).predictions?.sha256;
      if (predictionsSha256 !== named)
        throw new Error(`suite: predictions hash ${predictionsSha256}, the receipt names ${named}`);
      captured.push({ name: 'suite-ajimee-demo-24-tfjs-tiny-reranker-wasm', receipt: suite });
      console.log(`suite: ${suite.outcome.status}`);
      const comparePage = await gpu.context.newPage();
      const comparison = await artifactOf(
        comparePage,
        pageUrl(server, {
          autorun: ['compare'],
          model: 'ort-tiny-xenc',
          compareRoutes: parseRouteSpec('wasm-1,wasm-2,webgpu')!,
          rounds: 4,
          seed: 7,
        }),
        'comparison-receipt',
        'done',
      );
      await comparePage.close();
      captured.push({ name: 'compare-ort-tiny-xenc-wasm-1-wasm-2-webgpu', receipt: comparison });
      console.log(`comparison: ${comparison.outcome.status}`);
      // WebKitGTK (the Safari-engine lane): no memory API, no WebGPU; cold + warm on wasm.
      if (process.env.DRB_CAPTURE_WEBKIT !== '0') {
        const lane = await openLane('webkit', { scriptTimeoutMs: 150_000 });
        try {
          const wk = await lane.newPage();
          await wk.goto(
            pageUrl(server, { ...COLD_WARM, ep: 'wasm', threads: 1, model: 'ort-tiny-xenc', warmRuns: 20 }),
          );
          const state = await wk.waitFor<string>(
            `const s = document.documentElement.dataset.drbState; return s === 'done' || s === 'failed' ? s : null;`,
            {
              timeoutMs: 150_000,
              description: 'the page to finish cold and warm in WebKit',
            },
          );
          const receipts = await wk.evaluate<DeviceReceipt[]>('return window.drbReceipts ?? [];');
          await wk.close();
          if (state !== 'done' || receipts.length === 0)
            throw new Error(`webkit: page ended "${state}" with ${receipts.length} receipt(s)`);
          for (const receipt of receipts) captured.push({ name: 'webkit-ort-wasm-t1', receipt });
          console.log(
            `webkit-ort-wasm-t1: ${state}, ${receipts.map((r) => `${r.run.kind}/${r.outcome.status}`).join(' ')}`,
          );
        } finally {
          await lane.close();
        }
      }
    } finally {
      await server.close();
    }
  } finally {
    for (const b of browsers) await b.close();
    rmSync(dist, { recursive: true, force: true });
  }
  // Validate everything before touching the fixture folder: a bad capture never replaces a good one.
  for (const { name, receipt } of captured) {
    const problems = validateReceipt(receipt).problems;
    if (problems.length)
      throw new Error(
        `${name}: receipt ${receipt.receipt_id} is invalid: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      );
  }
  mkdirSync(OUT, { recursive: true });
  for (const name of readdirSync(OUT)) if (name.endsWith('.json')) rmSync(join(OUT, name));
  captured.forEach(({ name, receipt }, index) => {
    // Device receipts carry their run kind in the name; suite and comparison receipts have none.
    const kind = 'run' in receipt ? `-${receipt.run.kind}` : '';
    const file = `${String(index + 1).padStart(2, '0')}-${name}${kind}-${receipt.outcome.status}.json`;
    writeFileSync(join(OUT, file), `${JSON.stringify(receipt, null, 2)}\n`);
  });
  console.log(`wrote ${captured.length} receipts to ${OUT}`);
  if (suitePredictions !== null) {
    mkdirSync(SUITE_RUN_OUT, { recursive: true });
    writeFileSync(join(SUITE_RUN_OUT, SUITE_PREDICTIONS_FILE), suitePredictions);
    console.log(`wrote the suite run's predictions to ${join(SUITE_RUN_OUT, SUITE_PREDICTIONS_FILE)}`);
  }
}

await main();
