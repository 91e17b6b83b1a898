/**
 * `npm run bench -- paint`: what the page fetches before its first paint, in fresh headless Chromium profiles.
 *
 * For each run: a fresh browser opens the built page (no autorun), waits for first-contentful-paint, and lists every
 * resource whose fetch started before that paint (the navigation's document included). The JavaScript among them is
 * weighed gzipped (each file gzipped at level 9 here, as a static host would serve it; this server sends it
 * uncompressed); any runtime, engine, worker or model file fetched before the paint is a failure (the shell must
 * paint before ML code).
 * Target: JavaScript fetched before first paint under 100 KB gzipped.
 * Environment: DRB_BENCH_PAINT_RUNS (default 5).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { median } from '../src/core/stats/stats.ts';
import { launchChromium } from '../src/node/chromium.ts';
import { startStaticServer } from '../src/node/static-server.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNS = Number(process.env.DRB_BENCH_PAINT_RUNS ?? 5);
const KB = 1000;

const dir = mkdtempSync(join(tmpdir(), 'drb-paint-bench-'));
const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
const build = spawnSync(process.execPath, [vite, 'build', '--outDir', dir, '--emptyOutDir', '--logLevel', 'warn'], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(1);

/** Files that are ML code or data: none may be fetched before the first paint. */
const ML_FILE =
  /(ort-wasm|ort-runtime|ort-engine|transformers|webllm|bench-worker|bench\.worker|\.wasm$|\/models\/|\/inputs\/)/;

const server = await startStaticServer({ dir });
const gzipped = new Map<string, number>();
const gzipSize = (path: string): number => {
  if (!gzipped.has(path)) gzipped.set(path, gzipSync(readFileSync(join(dir, path)), { level: 9 }).byteLength);
  return gzipped.get(path)!;
};
const jsTotals: number[] = [];
const paints: number[] = [];
let listing = '';
let failures = 0;
try {
  for (let run = 0; run < RUNS; run++) {
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      await page.goto(server.url);
      // A string, not a function: tsx names inner functions with a helper the page does not have.
      const found = (await page.evaluate(`new Promise((resolve) => {
        function done(paint) {
          const entries = performance.getEntriesByType('resource')
            .filter((e) => e.startTime < paint)
            .map((e) => ({ name: e.name, start: e.startTime, type: e.initiatorType }));
          resolve({ paint, entries });
        }
        const seen = performance.getEntriesByName('first-contentful-paint')[0];
        if (seen) return done(seen.startTime);
        new PerformanceObserver((list, observer) => {
          const fcp = list.getEntriesByName('first-contentful-paint')[0];
          if (fcp) {
            observer.disconnect();
            done(fcp.startTime);
          }
        }).observe({ type: 'paint', buffered: true });
      })`)) as { paint: number; entries: Array<{ name: string; start: number; type: string }> };
      const paths = found.entries.map((e) => new URL(e.name).pathname);
      const ml = paths.filter((p) => ML_FILE.test(p));
      if (ml.length > 0) {
        failures++;
        console.log(`run ${run + 1}: ML code or data fetched before the first paint: ${ml.join(', ')}`);
      }
      const js = paths.filter((p) => p.endsWith('.js') || p.endsWith('.mjs'));
      const total = js.reduce((sum, p) => sum + gzipSize(p), 0);
      jsTotals.push(total);
      paints.push(found.paint);
      listing = ['/ (document)', ...paths]
        .map((p) => (p.endsWith('.js') ? `${p} (${(gzipSize(p) / KB).toFixed(1)} KB gz)` : p))
        .join(', ');
      console.log(
        `run ${run + 1}: first contentful paint ${found.paint.toFixed(0)} ms, ${js.length} JS file(s) before it, ${(total / KB).toFixed(1)} KB gzipped`,
      );
    } finally {
      await browser.close();
    }
  }
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown CPU';
  console.log(
    `\nmachine: ${cpus().length} cores (${cpu}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
  console.log(`fetched before first paint (last run): ${listing}`);
  const js = median(jsTotals)!;
  console.log(
    `JavaScript before first paint: median ${(js / KB).toFixed(1)} KB gzipped (target < 100 KB: ${js < 100 * KB ? 'met' : 'NOT met'}); ` +
      `first contentful paint median ${median(paints)!.toFixed(0)} ms; ML code or data before the paint in ${failures} of ${RUNS} runs`,
  );
  if (failures > 0) process.exitCode = 1;
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
