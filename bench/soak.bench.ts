/**
 * `npm run bench -- soak`: memory over a long session in headless Chromium. One page, one cold run of the heavy
 * fixture (wasm, 1 thread), then N consecutive warm runs through the page's own Warm run button (each: the probe,
 * the untimed warm-up and W timed samples on the live session, a receipt validated and listed), with memory sampled
 * every S runs:
 * - from inside: `performance.measureUserAgentSpecificMemory()` (the page and its workers, the API Chromium has for
 *   a cross-origin-isolated page; after a forced GC), and `performance.memory.usedJSHeapSize` (the page's heap);
 * - from outside: the proportional set size (PSS, /proc/<pid>/smaps_rollup) of the browser's whole process tree.
 * Growth is measured from the sample at run 100 to the last one. Target: at most 5%.
 * The page keeps every receipt it made (the list, window.drbReceipts, the session store): that share of the growth
 * is by design and is reported as the receipts' JSON size.
 * Environment: DRB_BENCH_SOAK_RUNS (default 1000), DRB_BENCH_SOAK_WARM (timed samples per warm run, default 5),
 * DRB_BENCH_SOAK_EVERY (default 50).
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toSearchParams } from '../src/core/automation.ts';
import { launchChromium } from '../src/node/chromium.ts';
import { startStaticServer } from '../src/node/static-server.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNS = Number(process.env.DRB_BENCH_SOAK_RUNS ?? 1000);
const WARM = Number(process.env.DRB_BENCH_SOAK_WARM ?? 5);
const EVERY = Number(process.env.DRB_BENCH_SOAK_EVERY ?? 50);
const BASE_RUN = Math.min(100, RUNS);
const MiB = 2 ** 20;

const dir = mkdtempSync(join(tmpdir(), 'drb-soak-bench-'));
const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
const build = spawnSync(process.execPath, [vite, 'build', '--outDir', dir, '--emptyOutDir', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

/** The browser's process tree: the process whose command line holds `marker`, and every descendant. */
function treePss(marker: string): number {
  const parent = new Map<number, number>();
  let root: number | null = null;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      if (root === null && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) root = pid;
    } catch {
      // The process ended while we looked.
    }
  }
  if (root === null) throw new Error('the browser process is gone');
  let total = 0;
  for (const pid of parent.keys()) {
    let p: number | undefined = pid;
    while (p !== undefined && p !== root && p > 1) p = parent.get(p);
    if (p !== root) continue;
    try {
      const pss = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      if (pss) total += Number(pss[1]) * 1024;
    } catch {
      // Gone, or not readable.
    }
  }
  return total;
}

interface Sample {
  run: number;
  uaMemory: number | null;
  jsHeap: number | null;
  pss: number;
  receiptsJson: number;
}

const marker = `--drb-soak=${randomUUID()}`;
const server = await startStaticServer({ dir });
const browser = await launchChromium({ extraArgs: [marker, '--enable-precise-memory-info', '--js-flags=--expose-gc'] });
const samples: Sample[] = [];
const started = Date.now();
try {
  const page = await browser.context.newPage();
  await page.goto(`${server.url}?${toSearchParams({ autorun: ['cold'], model: 'ort-heavy-xenc', ep: 'wasm', threads: 1, warmRuns: WARM, mode: 'panels' })}`);
  await page.waitForFunction(() => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, { timeout: 600_000 });
  const warmButton = page.getByRole('button', { name: /^Warm run/ });
  // Strings, not functions: tsx names inner functions with a helper the page does not have.
  const measure = async (run: number): Promise<Sample> => {
    const inside = (await page.evaluate(`(async () => {
      globalThis.gc?.();
      let uaMemory = null;
      try {
        if (crossOriginIsolated && performance.measureUserAgentSpecificMemory) {
          uaMemory = await Promise.race([performance.measureUserAgentSpecificMemory().then((m) => m.bytes), new Promise((r) => setTimeout(() => r(null), 30000))]);
        }
      } catch { uaMemory = null; }
      return { uaMemory, jsHeap: performance.memory ? performance.memory.usedJSHeapSize : null, receiptsJson: JSON.stringify(window.drbReceipts).length };
    })()`)) as Omit<Sample, 'run' | 'pss'>;
    return { run, pss: treePss(marker), ...inside };
  };
  samples.push(await measure(0));
  for (let run = 1; run <= RUNS; run++) {
    await warmButton.click();
    await page.waitForFunction((n) => window.drbReceipts.length >= n && document.documentElement.dataset.drbState !== 'running', run + 1, { timeout: 600_000 });
    if (run % EVERY === 0 || run === BASE_RUN) {
      const last = await page.evaluate(() => window.drbReceipts.at(-1)!.outcome.status);
      if (last !== 'ok') throw new Error(`warm run ${run} ended ${last}`);
      const sample = await measure(run);
      samples.push(sample);
      const mib = (v: number | null) => (v === null ? 'n/a' : `${(v / MiB).toFixed(1)} MiB`);
      console.log(`run ${run}: page+workers ${mib(sample.uaMemory)}, page JS heap ${mib(sample.jsHeap)}, browser PSS ${mib(sample.pss)}, receipts JSON ${mib(sample.receiptsJson)} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
  }
  const base = samples.find((s) => s.run === BASE_RUN)!;
  const end = samples.at(-1)!;
  const growth = (a: number | null, b: number | null) => (a === null || b === null ? 'n/a' : `${(((b - a) / a) * 100).toFixed(1)}%`);
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown CPU';
  console.log(`\nmachine: ${cpus().length} cores (${cpu}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB; load average at the end ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  console.log(`ort-heavy-xenc, wasm, 1 thread, ${RUNS} warm runs of ${WARM} timed samples each, in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  console.log(
    `growth from run ${BASE_RUN} to run ${end.run}: page+workers ${growth(base.uaMemory, end.uaMemory)}, page JS heap ${growth(base.jsHeap, end.jsHeap)}, ` +
      `browser PSS ${growth(base.pss, end.pss)} (target <= 5%); the receipts the page keeps grew by ${((end.receiptsJson - base.receiptsJson) / MiB).toFixed(1)} MiB of JSON`,
  );
} finally {
  await browser.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
