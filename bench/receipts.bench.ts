/**
 * `npm run bench -- receipts`: summarise 10,000 receipts. The receipts are generated from the captured page
 * receipts in test/fixtures/receipts/ (real receipts made by the page) with varied timings, devices, commits and
 * thread counts (deterministic PRNG), written one file each into a temp folder. Then the real CLI
 * (`node bin/drb.mjs receipts summarize`) runs in a child process: its wall time (Node and CLI start-up included)
 * and peak RSS are printed, then the same summarise runs in this process for the time without start-up; then
 * `drb receipts validate` on the same folder; then the same receipts handed over the way testers hand them back, as
 * receipt bundles of 25 (drb.receipt-bundle.v1: every bundled receipt gets the loose file's checks, on the bundle's
 * bytes as parsed), summarised by the CLI, whose counts must equal the loose run's; then `drb receipts report` draws
 * the loose receipts as one page (wall, CPU, peak RSS, page size). `DRB_BENCH_RECEIPTS` sets the count.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateReceipt } from '../src/core/validation/validate-receipt.ts';
import { summarizeReceipts } from '../src/cli/summarize-receipts.ts';
import { pageReceipts } from '../test/unit/receipts-fixtures.ts';
import { mulberry32 } from '../src/core/stats/mulberry32.ts';
import { vary } from './receipt-generator.ts';
import { EMPTY_TESTER_SHEET, RECEIPT_BUNDLE_SCHEMA, type ReceiptBundle } from '../src/core/field/receipt-bundle.ts';
import type { DeviceReceipt } from '../src/core/receipt/receipt.ts';
import type { ReceiptsSummary } from '../src/core/evidence/receipts-summary.ts';

const COUNT = Number(process.env.DRB_BENCH_RECEIPTS ?? 10_000);
/** Receipts per bundle: one field session's 5 cold and 20 warm. */
const BUNDLE_SIZE = 25;

// Throws with the command to run when no captured receipts are present.
const templates = pageReceipts();
const random = mulberry32(20261129);
const dir = mkdtempSync(join(tmpdir(), 'drb-bench-receipts-'));
try {
  const inDir = join(dir, 'in');
  const outDir = join(dir, 'out');
  const bundleDir = join(dir, 'bundles');
  mkdirSync(inDir, { recursive: true });
  mkdirSync(bundleDir, { recursive: true });
  let batch: DeviceReceipt[] = [];
  let bundles = 0;
  const writeBundle = () => {
    if (batch.length === 0) return;
    // Exported after the last receipt it holds (a bundle never holds a receipt made after it).
    const latest = new Date(Math.max(...batch.map((r) => Date.parse(r.created_at)))).toISOString();
    const bundle: ReceiptBundle = {
      schema: RECEIPT_BUNDLE_SCHEMA,
      created_at: latest,
      app: batch[0].app,
      protocol: null,
      sheet: { ...EMPTY_TESTER_SHEET, device_model: 'bench device', os_build: 'iOS 17.4.1 (21E236)' },
      receipts: batch as unknown as ReceiptBundle['receipts'],
    };
    writeFileSync(join(bundleDir, `b${String(bundles++).padStart(5, '0')}.json`), JSON.stringify(bundle));
    batch = [];
  };
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
    batch.push(receipt);
    if (batch.length === BUNDLE_SIZE) writeBundle();
  }
  writeBundle();
  console.log(
    `generated ${COUNT} receipts from ${templates.length} templates into ${inDir}, and the same in bundles of ${BUNDLE_SIZE}`,
  );

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

  // The same receipts checked by `drb receipts validate` (no summary written).
  const timed = (args: string[]) => {
    const t0 = performance.now();
    const run = spawnSync(process.execPath, ['--import', reportRss, 'bin/drb.mjs', ...args], { encoding: 'utf8' });
    const ms = performance.now() - t0;
    const use = /drb-bench-maxrss-kb (\d+) cpu-us (\d+)/.exec(run.stderr);
    return {
      run,
      line: `wall ${(ms / 1000).toFixed(2)} s, CPU ${(Number(use?.[2] ?? NaN) / 1e6).toFixed(2)} s, peak RSS ${(Number(use?.[1] ?? NaN) / 1024).toFixed(0)} MiB`,
    };
  };
  const validated = timed(['receipts', 'validate', inDir]);
  if (validated.run.status !== 0) throw new Error(`validate failed (${validated.run.status}): ${validated.run.stdout}`);
  console.log(`receipts validate, ${COUNT} receipts: ${validated.line}`);

  // The same receipts in bundles of 25: the same checks, so the same counts, at what cost.
  const bundled = timed(['receipts', 'summarize', bundleDir, '--out', join(dir, 'out-bundles')]);
  if (bundled.run.status !== 0)
    throw new Error(`bundled summarize failed (${bundled.run.status}): ${bundled.run.stderr}`);
  const fromBundles = JSON.parse(readFileSync(join(dir, 'out-bundles', 'summary.json'), 'utf8')) as ReceiptsSummary;
  const counts = (s: ReceiptsSummary) =>
    JSON.stringify(s.targets.map((t) => [t.counts.receipts, t.counts.clean_cold, t.counts.clean_warm]).sort());
  if (fromBundles.inputs.receipts_valid !== summary.inputs.receipts_valid || counts(fromBundles) !== counts(summary))
    throw new Error(
      `bundled receipts counted differently: ${fromBundles.inputs.receipts_valid} valid vs ${summary.inputs.receipts_valid} loose`,
    );
  console.log(
    `receipts summarize, the same ${COUNT} receipts in ${Math.ceil(COUNT / BUNDLE_SIZE)} bundles of ${BUNDLE_SIZE} (same counts as loose): ${bundled.line}`,
  );

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
