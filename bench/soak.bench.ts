/**
 * `npm run bench -- soak`: memory over a long session, in headless Chromium and in the WebKitGTK lane. One page per
 * browser, one cold run of the heavy fixture (wasm, 1 thread), then N consecutive warm runs through the page's own
 * Warm run button (each: the probe, the untimed warm-up and W timed samples on the live session, a receipt validated,
 * stored and listed), with memory sampled every S runs, with what each browser really offers:
 * - Chromium, from inside: `performance.measureUserAgentSpecificMemory()` after a forced GC (the page and its
 *   workers, with its per-context breakdown: the window against the bench worker, where the ORT session, its
 *   WebAssembly memory and tensors live) and `performance.memory.usedJSHeapSize` (the page's heap); from outside:
 *   the proportional set size (PSS, /proc/<pid>/smaps_rollup) of the browser's whole process tree, and of each
 *   kind of process in it (browser process, renderers, GPU process, network and storage services, zygotes), so a
 *   growth of the whole can be placed.
 * - WebKitGTK (MiniBrowser under WebKitWebDriver, src/node/webkit-driver.ts): no memory API in the page (no
 *   `performance.memory`, no `measureUserAgentSpecificMemory`) and no way to force a GC, so only from outside: the
 *   RSS and PSS of the WebKitWebProcess (the page and its workers, which are threads of it) and of the
 *   WebKitNetworkProcess, found by the driver's process group.
 * Both: how many receipts the page made and keeps in memory (`window.drbReceiptCount`, `window.drbReceipts`), and
 * the DOM's element count. Growth is measured from the sample at run 100 to the last one. Target: at most 5%.
 * Environment: DRB_BENCH_SOAK_LANES (default `chromium,webkit`), DRB_BENCH_SOAK_RUNS (default 1000),
 * DRB_BENCH_SOAK_WARM (timed samples per warm run, default 5), DRB_BENCH_SOAK_EVERY (default 50),
 * DRB_BENCH_SOAK_WEBKIT_RAM_GIB (the RAM WebKit's JavaScriptCore sizes its heap for, default 4; `machine` for this
 * machine's own). Besides the end points, each figure's floors are printed: its lowest sample in the runs after run
 * 100 against its lowest in the last 200 runs (where no GC can be forced, the memory the collections come back to);
 * and the bytes of the session the page stored on the device (IndexedDB, which WebKit under WebDriver keeps in its
 * network process's memory).
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toSearchParams } from '../src/core/automation/automation.ts';
import { launchChromium } from '../src/node/chromium.ts';
import { startStaticServer } from '../src/node/static-server.ts';
import { WebKitDriver } from '../src/node/webkit-driver.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const LANES = (process.env.DRB_BENCH_SOAK_LANES ?? 'chromium,webkit').split(',').map((s) => s.trim());
const RUNS = Number(process.env.DRB_BENCH_SOAK_RUNS ?? 1000);
const WARM = Number(process.env.DRB_BENCH_SOAK_WARM ?? 5);
const EVERY = Number(process.env.DRB_BENCH_SOAK_EVERY ?? 50);
const BASE_RUN = Math.min(100, RUNS);
/**
 * The RAM JavaScriptCore sizes its heap for in the WebKit lane (JSC's `forceRAMSize`), in GiB; `machine` leaves JSC to
 * read this machine's. JSC lets garbage grow in proportion to RAM before a full collection; on this 24 GiB machine
 * that is hundreds of MiB, where an iPhone (4 to 8 GiB) collects far sooner. Default 4, a phone's.
 */
const WEBKIT_RAM_SETTING = process.env.DRB_BENCH_SOAK_WEBKIT_RAM_GIB ?? '4';
const WEBKIT_RAM = WEBKIT_RAM_SETTING === 'machine' ? null : Number(WEBKIT_RAM_SETTING) * 2 ** 30;
if (WEBKIT_RAM !== null && !(Number.isFinite(WEBKIT_RAM) && WEBKIT_RAM >= 2 ** 28)) {
  console.error(
    `error: DRB_BENCH_SOAK_WEBKIT_RAM_GIB: '${WEBKIT_RAM_SETTING}' is neither 'machine' nor a size in GiB of at least 0.25`,
  );
  process.exit(2);
}
/** Runs at each end of the soak whose samples give the floor (the lowest sample: memory after the collections). */
const FLOOR_WINDOW = 200;
const MiB = 2 ** 20;
const WAIT_MS = 600_000;
for (const lane of LANES) {
  if (lane !== 'chromium' && lane !== 'webkit') {
    console.error(`error: DRB_BENCH_SOAK_LANES: unknown lane '${lane}' (chromium, webkit)`);
    process.exit(2);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One process's memory, from /proc. */
interface ProcMemory {
  pid: number;
  comm: string;
  pgrp: number;
  ppid: number;
  rss: number;
  pss: number;
}

/** Every readable process with its parent, group, command name, RSS and PSS (bytes). */
function processes(): ProcMemory[] {
  const out: ProcMemory[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      let rss = 0;
      let pss = 0;
      try {
        const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
        rss = Number(/^Rss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
        pss = Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
      } catch {
        // Not readable (a kernel thread, another user's process).
      }
      out.push({ pid, comm, ppid: Number(fields[1]), pgrp: Number(fields[2]), rss, pss });
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** The kinds of Chromium process `chromiumKind` tells apart. */
const CHROMIUM_KINDS = [
  'browser process',
  'renderers',
  'GPU process',
  'network service',
  'storage service',
  'other utilities',
  'zygotes',
  'other',
] as const;

/** Which of Chromium's processes a command line is, by its `--type` (and a utility's sub-type). */
function chromiumKind(cmdline: string): (typeof CHROMIUM_KINDS)[number] {
  const type = /--type=([\w-]+)/.exec(cmdline)?.[1];
  if (type === undefined) return 'browser process';
  if (type === 'renderer') return 'renderers';
  if (type === 'gpu-process') return 'GPU process';
  if (type === 'utility') {
    const sub = /--utility-sub-type=([\w.]+)/.exec(cmdline)?.[1] ?? '';
    if (sub.startsWith('network.')) return 'network service';
    if (sub.startsWith('storage.')) return 'storage service';
    return 'other utilities';
  }
  return type === 'zygote' ? 'zygotes' : 'other';
}

/**
 * The PSS of the process whose command line holds `marker` and every descendant of it: in all (`browser PSS`) and by
 * kind of process (`PSS <kind>`), so a growth of the whole can be placed.
 */
function treePss(marker: string): Record<string, number> {
  const all = processes();
  const parent = new Map(all.map((p) => [p.pid, p.ppid]));
  const cmdline = (pid: number): string => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      return '';
    }
  };
  const root = all.find((p) => cmdline(p.pid).includes(marker))?.pid;
  if (root === undefined) throw new Error('the browser process is gone');
  // Every kind from the first sample on, so a process that starts later (a utility) shows as growth from zero.
  const out: Record<string, number> = { 'browser PSS': 0 };
  for (const kind of CHROMIUM_KINDS) out[`PSS ${kind}`] = 0;
  for (const p of all) {
    let q: number | undefined = p.pid;
    while (q !== undefined && q !== root && q > 1) q = parent.get(q);
    if (q !== root) continue;
    out['browser PSS'] += p.pss;
    const kind = `PSS ${chromiumKind(cmdline(p.pid))}`;
    out[kind] += p.pss;
  }
  return out;
}

/** What the page says about itself (both lanes). */
interface Inside {
  /** measureUserAgentSpecificMemory: total, and by context (null where the browser has no such API). */
  ua: { total: number; window: number; worker: number; shared: number } | null;
  jsHeap: number | null;
  receiptsMade: number;
  receiptsKept: number;
  receiptsJson: number;
  listed: number;
  elements: number;
  state: string;
  lastStatus: string | null;
  /** Bytes of the session's records in IndexedDB as stored (compressed JSON, or JSON of a plain value). */
  storedBytes: number;
}

interface Sample extends Inside {
  run: number;
  /** Named outside figures in bytes (per lane: browser PSS; web process RSS/PSS, network process RSS/PSS). */
  outside: Record<string, number>;
}

// A function body, run by both lanes as `(async () => { body })()`: strings, not functions, as tsx names inner
// functions with a helper the page does not have.
const INSIDE = `
  globalThis.gc?.();
  let ua = null;
  try {
    if (crossOriginIsolated && performance.measureUserAgentSpecificMemory) {
      const m = await Promise.race([performance.measureUserAgentSpecificMemory(), new Promise((r) => setTimeout(() => r(null), 30000))]);
      if (m) {
        ua = { total: m.bytes, window: 0, worker: 0, shared: 0 };
        for (const b of m.breakdown) {
          const scopes = new Set(b.attribution.map((a) => a.scope));
          if (scopes.size !== 1) ua.shared += b.bytes;
          else if (scopes.has('Window')) ua.window += b.bytes;
          else if (scopes.has('DedicatedWorkerGlobalScope')) ua.worker += b.bytes;
          else ua.shared += b.bytes;
        }
      }
    }
  } catch { ua = null; }
  return {
    ua,
    jsHeap: performance.memory ? performance.memory.usedJSHeapSize : null,
    receiptsMade: window.drbReceiptCount,
    receiptsKept: window.drbReceipts.length,
    receiptsJson: JSON.stringify(window.drbReceipts).length,
    listed: document.querySelectorAll('[data-testid="receipt"]').length,
    elements: document.getElementsByTagName('*').length,
    state: document.documentElement.dataset.drbState ?? '',
    lastStatus: window.drbReceipts.at(-1)?.outcome.status ?? null,
    storedBytes: await new Promise((resolve) => {
      const open = indexedDB.open('drb-session');
      open.onerror = () => resolve(-1);
      open.onsuccess = () => {
        // A cursor, one record at a time: a getAll() of the whole session makes the browser hold it all at once, and
        // where IndexedDB lives in memory (WebKit under WebDriver) that raises its network process's RSS for good.
        let total = 0;
        const cursor = open.result.transaction('items').objectStore('items').openCursor();
        cursor.onerror = () => resolve(-1);
        cursor.onsuccess = () => {
          const at = cursor.result;
          if (at === null) {
            open.result.close();
            resolve(total);
            return;
          }
          const r = at.value;
          total += r.gzip instanceof Uint8Array ? r.gzip.byteLength : JSON.stringify(r.data ?? null).length;
          at.continue();
        };
      };
    }),
  };`;

/** One browser driven through the soak. */
interface SoakBrowser {
  name: string;
  version: string;
  inside(): Promise<Inside>;
  /** Waits until the page made `n` receipts and is not running. */
  waitForReceipts(n: number): Promise<void>;
  clickWarm(): Promise<void>;
  outside(): Record<string, number>;
  close(): Promise<void>;
}

async function openChromium(url: string): Promise<SoakBrowser> {
  const marker = `--drb-soak=${randomUUID()}`;
  const browser = await launchChromium({
    extraArgs: [marker, '--enable-precise-memory-info', '--js-flags=--expose-gc'],
  });
  const page = await browser.context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
    timeout: WAIT_MS,
  });
  const version = String(await page.evaluate('navigator.userAgent.match(/Chrome\\/([\\d.]+)/)?.[1] ?? "unknown"'));
  return {
    name: 'Chromium',
    version,
    inside: async () => (await page.evaluate(`(async () => { ${INSIDE} })()`)) as Inside,
    waitForReceipts: async (n) => {
      await page.waitForFunction(
        (k) => window.drbReceiptCount >= k && document.documentElement.dataset.drbState !== 'running',
        n,
        { timeout: WAIT_MS },
      );
    },
    clickWarm: () => page.click('[data-testid="run-warm"]'),
    outside: () => treePss(marker),
    close: () => browser.close(),
  };
}

async function openWebKit(url: string): Promise<SoakBrowser> {
  const driver = await WebKitDriver.start({
    jscOptions: WEBKIT_RAM === null ? {} : { forceRAMSize: String(WEBKIT_RAM) },
  });
  try {
    const session = await driver.newSession({ scriptMs: WAIT_MS, pageLoadMs: 120_000 });
    const evaluate = <T>(body: string) => session.execute<T>(`return (async () => { ${body}\n})();`);
    const poll = async (body: string, what: string) => {
      const deadline = Date.now() + WAIT_MS;
      while (Date.now() < deadline) {
        if (await evaluate<boolean>(body)) return;
        await sleep(200);
      }
      throw new Error(`webkit: ${what} did not happen within ${WAIT_MS} ms`);
    };
    await session.navigate(url);
    await poll(`return ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? '');`, 'the cold run');
    const group = driver.processGroup;
    if (group === undefined) throw new Error('webkit: the driver has no process');
    const byName = (prefix: string) => processes().filter((p) => p.pgrp === group && p.comm.startsWith(prefix));
    return {
      name: 'WebKitGTK (MiniBrowser)',
      version: session.browserVersion ?? 'unknown',
      inside: () => evaluate<Inside>(INSIDE),
      waitForReceipts: (n) =>
        poll(
          `return window.drbReceiptCount >= ${n} && document.documentElement.dataset.drbState !== 'running';`,
          `receipt ${n}`,
        ),
      clickWarm: async () => session.click(await session.findElement('[data-testid="run-warm"]')),
      outside: () => {
        // comm is cut to 15 characters: WebKitWebProces, WebKitNetworkPr.
        const web = byName('WebKitWebProces');
        const network = byName('WebKitNetworkPr');
        if (web.length === 0) throw new Error('webkit: the web process is gone');
        const sum = (list: ProcMemory[], key: 'rss' | 'pss') => list.reduce((t, p) => t + p[key], 0);
        return {
          'web process RSS': sum(web, 'rss'),
          'web process PSS': sum(web, 'pss'),
          'network process RSS': sum(network, 'rss'),
          'network process PSS': sum(network, 'pss'),
        };
      },
      close: async () => {
        await session.delete().catch(() => undefined);
        await driver.close();
      },
    };
  } catch (error) {
    await driver.close();
    throw error;
  }
}

const mib = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : `${(v / MiB).toFixed(1)} MiB`);
const growth = (a: number | null | undefined, b: number | null | undefined) => {
  if (a === null || a === undefined || b === null || b === undefined) return 'n/a';
  // A figure that was zero (a process not started yet): its growth is all of it, not a percentage.
  if (a === 0) return b === 0 ? '0.0%' : `+${mib(b)} from none`;
  return `${(((b - a) / a) * 100).toFixed(1)}%`;
};
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const dir = mkdtempSync(join(tmpdir(), 'drb-soak-bench-'));
const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
const build = spawnSync(process.execPath, [vite, 'build', '--outDir', dir, '--emptyOutDir', '--logLevel', 'warn'], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(1);
const server = await startStaticServer({ dir });
const url = `${server.url}?${toSearchParams({ autorun: ['cold'], model: 'ort-heavy-xenc', ep: 'wasm', threads: 1, warmRuns: WARM, mode: 'panels' })}`;
const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown CPU';
console.log(
  `machine: ${cpus().length} cores (${cpu}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB; load average at the start ${load()}`,
);
let failed = false;
try {
  for (const lane of LANES) {
    const started = Date.now();
    console.log(
      `\n--- ${lane}: ort-heavy-xenc, wasm, 1 thread, ${RUNS} warm runs of ${WARM} timed samples each, sampled every ${EVERY} (${new Date().toISOString()}) ---`,
    );
    const browser = lane === 'chromium' ? await openChromium(url) : await openWebKit(url);
    const samples: Sample[] = [];
    try {
      console.log(
        `${browser.name} ${browser.version}${lane === 'webkit' ? `; JavaScriptCore heap sized for ${WEBKIT_RAM === null ? "this machine's RAM" : `${WEBKIT_RAM_SETTING} GiB of RAM (JSC_forceRAMSize)`}` : ''}`,
      );
      const measure = async (run: number): Promise<Sample> => {
        const inside = await browser.inside();
        return { run, ...inside, outside: browser.outside() };
      };
      const first = await measure(0);
      if (first.lastStatus !== 'ok')
        throw new Error(`the cold run ended ${first.state} (${first.lastStatus ?? 'no receipt'})`);
      samples.push(first);
      for (let run = 1; run <= RUNS; run++) {
        await browser.clickWarm();
        await browser.waitForReceipts(run + 1);
        if (run % EVERY === 0 || run === BASE_RUN) {
          const sample = await measure(run);
          if (sample.lastStatus !== 'ok') throw new Error(`warm run ${run} ended ${sample.lastStatus}`);
          samples.push(sample);
          const ua = sample.ua
            ? `page+workers ${mib(sample.ua.total)} (window ${mib(sample.ua.window)}, worker ${mib(sample.ua.worker)}, shared ${mib(sample.ua.shared)}), `
            : '';
          const heap = sample.jsHeap === null ? '' : `page JS heap ${mib(sample.jsHeap)}, `;
          const outside = Object.entries(sample.outside)
            .map(([k, v]) => `${k} ${mib(v)}`)
            .join(', ');
          console.log(
            `run ${run}: ${ua}${heap}${outside}; receipts made ${sample.receiptsMade}, kept ${sample.receiptsKept} (${mib(sample.receiptsJson)} JSON), stored ${mib(sample.storedBytes)}, listed ${sample.listed}, ` +
              `${sample.elements} elements (${((Date.now() - started) / 1000).toFixed(0)} s, load ${load()})`,
          );
        }
      }
      const base = samples.find((s) => s.run === BASE_RUN)!;
      const end = samples.at(-1)!;
      const parts = [
        ...(base.ua && end.ua
          ? [
              `page+workers ${growth(base.ua.total, end.ua.total)} (window ${growth(base.ua.window, end.ua.window)}, worker ${growth(base.ua.worker, end.ua.worker)})`,
            ]
          : []),
        ...(base.jsHeap !== null ? [`page JS heap ${growth(base.jsHeap, end.jsHeap)}`] : []),
        ...Object.keys(end.outside).map((k) => `${k} ${growth(base.outside[k], end.outside[k])}`),
      ];
      console.log(
        `${lane}: ${RUNS} warm runs in ${((Date.now() - started) / 1000).toFixed(0)} s; load average at the end ${load()}`,
      );
      console.log(`${lane}: growth from run ${BASE_RUN} to run ${end.run}: ${parts.join(', ')} (target <= 5%)`);
      // Where no GC can be forced (WebKit), one sample lands anywhere between two collections: the floor of each end
      // (its lowest sample) is the memory the collections come back to, the retained part.
      const early = samples.filter((x) => x.run >= BASE_RUN && x.run <= BASE_RUN + FLOOR_WINDOW);
      const late = samples.filter((x) => x.run > end.run - FLOOR_WINDOW);
      const floor = (list: Sample[], pick: (x: Sample) => number) => Math.min(...list.map(pick));
      const floors = Object.keys(end.outside).map((k) => {
        const a = floor(early, (x) => x.outside[k]);
        const b = floor(late, (x) => x.outside[k]);
        return `${k} ${mib(a)} -> ${mib(b)} (${growth(a, b)})`;
      });
      console.log(
        `${lane}: floors (lowest sample of runs ${BASE_RUN} to ${BASE_RUN + FLOOR_WINDOW} against the last ${FLOOR_WINDOW} runs): ${floors.join(', ')}`,
      );
      console.log(
        `${lane}: the session stored on the device grew ${mib(end.storedBytes - base.storedBytes)} from run ${BASE_RUN} (${((end.storedBytes - base.storedBytes) / Math.max(1, end.run - BASE_RUN) / 1024).toFixed(2)} KiB per run)`,
      );
    } catch (error) {
      failed = true;
      console.error(`${lane}: ${(error as Error).message}`);
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
