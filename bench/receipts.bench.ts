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
import { validateReceipt } from '../src/core/validation/validate-receipt.ts';
import { summarizeReceipts } from '../src/cli/summarize-receipts.ts';
import { pageReceipts } from '../test/unit/receipts-fixtures.ts';
import { mulberry32 } from '../src/core/stats/mulberry32.ts';
import { vary } from './receipt-generator.ts';

const COUNT = Number(process.env.DRB_BENCH_RECEIPTS ?? 10_000);

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
      if (problems.length)
        throw new Error(
          `generated receipt ${i} is invalid: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
        );
    }
    writeFileSync(join(inDir, `r${String(i).padStart(6, '0')}.json`), JSON.stringify(receipt));
  }
  console.log(`generated ${COUNT} receipts from ${templates.length} templates into ${inDir}`);

  // Reports the child's peak RSS and CPU time on exit: CPU time stays comparable when other work shares the cores.
  const reportRss =
    'data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("drb-bench-maxrss-kb "+u.maxRSS+" cpu-us "+(u.userCPUTime+u.systemCPUTime)+"\\n")})';
  const started = performance.now();
  const child = spawnSync(
    process.execPath,
    ['--import', reportRss, 'bin/drb.mjs', 'receipts', 'summarize', inDir, '--out', outDir],
    { encoding: 'utf8' },
  );
  const wallMs = performance.now() - started;
  if (child.status !== 0) throw new Error(`summarize failed (${child.status}): ${child.stderr}`);
  const usage = /drb-bench-maxrss-kb (\d+) cpu-us (\d+)/.exec(child.stderr);
  const rssKb = Number(usage?.[1] ?? NaN);
  const cpuS = Number(usage?.[2] ?? NaN) / 1e6;
  console.log(child.stdout.trim());

  const inProcessStart = performance.now();
  const { summary } = await summarizeReceipts([inDir], join(dir, 'out2'));
  const inProcessMs = performance.now() - inProcessStart;

  console.log(
    `machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, load average ${loadavg()[0].toFixed(1)}`,
  );
  console.log(`receipts summarize, ${COUNT} receipts, ${summary.targets.length} targets:`);
  console.log(
    `  CLI child process wall time: ${(wallMs / 1000).toFixed(2)} s (includes Node and CLI start-up), CPU ${cpuS.toFixed(2)} s, peak RSS ${(rssKb / 1024).toFixed(0)} MiB`,
  );
  console.log(
    `  in-process summarize: ${(inProcessMs / 1000).toFixed(2)} s (${Math.round(COUNT / (inProcessMs / 1000))} receipts/s)`,
  );
  console.log(`  target: 10,000 receipts in seconds -> ${wallMs < 10_000 ? 'met' : 'NOT met'}`);

  // The same receipts drawn as one page (drb receipts report): wall, CPU, peak RSS and the page's size.
  const reportStarted = performance.now();
  const report = spawnSync(
    process.execPath,
    ['--import', reportRss, 'bin/drb.mjs', 'receipts', 'report', inDir, '--out', join(dir, 'report')],
    { encoding: 'utf8' },
  );
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
