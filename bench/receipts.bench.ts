/**
 * `npm run bench -- receipts`: summarise 10,000 receipts. The receipts are generated from the captured page
 * receipts in test/fixtures/receipts/ (real receipts made by the page) with varied timings, devices, commits and
 * thread counts (deterministic PRNG), written one file each into a temp folder. Then the real CLI
 * (`node bin/drb.mjs receipts summarize`) runs in a child process: its wall time (Node and CLI start-up included)
 * and peak RSS are printed, then the same summarise runs in this process for the time without start-up; then
 * `drb receipts report` draws the same receipts as one page (wall, CPU, peak RSS, page size).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarize } from '../src/core/stats/stats.ts';
import type { DeviceReceipt } from '../src/core/receipt/receipt.ts';
import { validateReceipt } from '../src/core/validation/validate-receipt.ts';
import { summarizeReceipts } from '../src/cli/summarize-receipts.ts';
import { pageReceipts } from '../test/unit/receipts-fixtures.ts';
import { mulberry32 } from '../src/core/stats/mulberry32.ts';

const COUNT = Number(process.env.DRB_BENCH_RECEIPTS ?? 10_000);

const DEVICES = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 Version/17.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 13; SM-A546B) AppleWebKit/537.36 Chrome/130.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/156.0.0.0 Safari/537.36',
];
const COMMITS = ['1'.repeat(40), '2'.repeat(40), '3'.repeat(40)];

function vary(template: DeviceReceipt, index: number, random: () => number): DeviceReceipt {
  const r = structuredClone(template);
  const scale = 0.5 + random() * 1.5;
  const jitter = (v: number) => Math.round(v * scale * (0.9 + random() * 0.2) * 1000) / 1000;
  r.receipt_id = `bench-${String(index).padStart(6, '0')}-${r.receipt_id.slice(0, 8)}`;
  r.run.id = `bench-run-${index}`;
  r.capabilities.user_agent = DEVICES[Math.floor(random() * DEVICES.length)];
  r.capabilities.ua_client_hints = null;
  r.app.commit = COMMITS[Math.floor(random() * COMMITS.length)];
  const t = r.timings;
  if (t.model_fetch_ms !== null) t.model_fetch_ms = jitter(t.model_fetch_ms);
  if (t.session_create_ms !== null) t.session_create_ms = jitter(t.session_create_ms);
  if (t.first_inference_ms !== null) t.first_inference_ms = jitter(t.first_inference_ms);
  t.warm_samples_ms = t.warm_samples_ms.map(jitter);
  t.warm_stats = summarize(t.warm_samples_ms);
  const stages = (t.model_fetch_ms ?? 0) + (t.session_create_ms ?? 0) + (t.first_inference_ms ?? 0) + (t.warmup_ms ?? 0) + t.warm_samples_ms.reduce((a, b) => a + b, 0);
  t.total_ms = Math.max(jitter(t.total_ms), stages);
  const end = t.total_ms;
  // Keep status transitions monotonic and ending at the new total.
  r.status_transitions = r.status_transitions.map((s, i, all) => ({ ...s, at_ms: i === all.length - 1 ? Math.max(end, s.at_ms) : s.at_ms }));
  r.lifecycle.hidden_during_run = random() < 0.02;
  return r;
}

// Throws with the command to run when no captured receipts are present.
const templates = pageReceipts();
const random = mulberry32(20261129);
const dir = mkdtempSync(join(tmpdir(), 'drb-bench-receipts-'));
try {
  const inDir = join(dir, 'in');
  const outDir = join(dir, 'out');
  spawnSync('mkdir', ['-p', inDir]);
  for (let i = 0; i < COUNT; i++) {
    const receipt = vary(templates[i % templates.length], i, random);
    if (i < templates.length) {
      const problems = validateReceipt(receipt).problems;
      if (problems.length) throw new Error(`generated receipt ${i} is invalid: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
    }
    writeFileSync(join(inDir, `r${String(i).padStart(6, '0')}.json`), JSON.stringify(receipt));
  }
  console.log(`generated ${COUNT} receipts from ${templates.length} templates into ${inDir}`);

  // Reports the child's peak RSS and CPU time on exit: CPU time stays comparable when other work shares the cores.
  const reportRss =
    'data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("drb-bench-maxrss-kb "+u.maxRSS+" cpu-us "+(u.userCPUTime+u.systemCPUTime)+"\\n")})';
  const started = performance.now();
  const child = spawnSync(process.execPath, ['--import', reportRss, 'bin/drb.mjs', 'receipts', 'summarize', inDir, '--out', outDir], { encoding: 'utf8' });
  const wallMs = performance.now() - started;
  if (child.status !== 0) throw new Error(`summarize failed (${child.status}): ${child.stderr}`);
  const usage = /drb-bench-maxrss-kb (\d+) cpu-us (\d+)/.exec(child.stderr);
  const rssKb = Number(usage?.[1] ?? NaN);
  const cpuS = Number(usage?.[2] ?? NaN) / 1e6;
  console.log(child.stdout.trim());

  const inProcessStart = performance.now();
  const { summary } = await summarizeReceipts([inDir], join(dir, 'out2'));
  const inProcessMs = performance.now() - inProcessStart;

  console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, load average ${loadavg()[0].toFixed(1)}`);
  console.log(`receipts summarize, ${COUNT} receipts, ${summary.targets.length} targets:`);
  console.log(`  CLI child process wall time: ${(wallMs / 1000).toFixed(2)} s (includes Node and CLI start-up), CPU ${cpuS.toFixed(2)} s, peak RSS ${(rssKb / 1024).toFixed(0)} MiB`);
  console.log(`  in-process summarize: ${(inProcessMs / 1000).toFixed(2)} s (${Math.round(COUNT / (inProcessMs / 1000))} receipts/s)`);
  console.log(`  target: 10,000 receipts in seconds -> ${wallMs < 10_000 ? 'met' : 'NOT met'}`);

  // The same receipts drawn as one page (drb receipts report): wall, CPU, peak RSS and the page's size.
  const reportStarted = performance.now();
  const report = spawnSync(process.execPath, ['--import', reportRss, 'bin/drb.mjs', 'receipts', 'report', inDir, '--out', join(dir, 'report')], { encoding: 'utf8' });
  const reportWallMs = performance.now() - reportStarted;
  if (report.status !== 0) throw new Error(`report failed (${report.status}): ${report.stderr}`);
  const reportUsage = /drb-bench-maxrss-kb (\d+) cpu-us (\d+)/.exec(report.stderr);
  const pageBytes = statSync(join(dir, 'report', 'index.html')).size;
  console.log(`receipts report, ${COUNT} receipts:`);
  console.log(
    `  CLI child process wall time: ${(reportWallMs / 1000).toFixed(2)} s, CPU ${(Number(reportUsage?.[2] ?? NaN) / 1e6).toFixed(2)} s, ` +
      `peak RSS ${(Number(reportUsage?.[1] ?? NaN) / 1024).toFixed(0)} MiB, page ${(pageBytes / 1e6).toFixed(1)} MB`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
