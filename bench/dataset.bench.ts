/**
 * `npm run bench -- dataset`: `drb receipts export` (Parquet, then CSV) and `drb leaderboard` on 10,000 generated
 * receipts (bench/receipt-generator.ts), each as the real CLI in a child process: wall time (Node and CLI start-up
 * included), CPU time and peak RSS, and the size of what it wrote. Targets: the Parquet export of 10,000 receipts under
 * 3 s and under 200 MB RSS. `DRB_BENCH_EXPORT_LARGE=100000` also exports that many receipts with V8's old space capped
 * (`DRB_BENCH_EXPORT_HEAP_MB`, default 96): it completes only if the live memory stays bounded as the input grows (the
 * rows stream through per-table buffers; only the card's list of inputs and the receipt-id ledger grow).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeGeneratedReceipts } from './receipt-generator.ts';

const COUNT = Number(process.env.DRB_BENCH_RECEIPTS ?? 10_000);
const LARGE = Number(process.env.DRB_BENCH_EXPORT_LARGE ?? 0);
const TARGET_WALL_MS = 3_000;
const TARGET_RSS_MB = 200;
/** V8 old-space cap for the large run (`DRB_BENCH_EXPORT_HEAP_MB`). */
const HEAP_CAP_MB = Number(process.env.DRB_BENCH_EXPORT_HEAP_MB ?? 96);

// Reports the child's peak RSS and CPU time on exit (CPU time stays comparable when other work shares the cores).
const reportRss =
  'data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("drb-bench-maxrss-kb "+u.maxRSS+" cpu-us "+(u.userCPUTime+u.systemCPUTime)+"\\n")})';

/** Runs `drb <args>` in a child process (Node flags `nodeFlags` first) and returns its wall and CPU time, peak RSS, output. */
function timed(
  args: string[],
  nodeFlags: string[] = [],
): { wallS: number; cpuS: number; rssMb: number; stdout: string } {
  const started = performance.now();
  const child = spawnSync(process.execPath, [...nodeFlags, '--import', reportRss, 'bin/drb.mjs', ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const wallS = (performance.now() - started) / 1000;
  if (child.status !== 0)
    throw new Error(`drb ${args.join(' ')} failed (${child.status}): ${child.stderr.slice(0, 2000)}`);
  const usage = /drb-bench-maxrss-kb (\d+) cpu-us (\d+)/.exec(child.stderr);
  return {
    wallS,
    cpuS: Number(usage?.[2] ?? NaN) / 1e6,
    rssMb: Number(usage?.[1] ?? NaN) / 1024,
    stdout: child.stdout.trim(),
  };
}

function folderMb(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0) / 1e6;
}

const dir = mkdtempSync(join(tmpdir(), 'drb-bench-dataset-'));
try {
  const inDir = join(dir, 'in');
  writeGeneratedReceipts(inDir, COUNT);
  console.log(`generated ${COUNT} receipts into ${inDir}`);
  console.log(
    `machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, load average ${loadavg()[0].toFixed(1)}`,
  );
  // Warm the CLI bundle first so its one-off build is not counted in the first measurement.
  timed(['schemas', '--check']);

  const parquet = timed(['receipts', 'export', inDir, '--out', join(dir, 'parquet'), '--license', 'CC-BY-4.0']);
  console.log(`receipts export --format parquet, ${COUNT} receipts: ${parquet.stdout}`);
  console.log(
    `  wall ${parquet.wallS.toFixed(2)} s (Node and CLI start-up included), CPU ${parquet.cpuS.toFixed(2)} s, peak RSS ${parquet.rssMb.toFixed(0)} MiB, ` +
      `${folderMb(join(dir, 'parquet')).toFixed(1)} MB written`,
  );
  console.log(
    `  target: under ${TARGET_WALL_MS / 1000} s and ${TARGET_RSS_MB} MB RSS -> ${parquet.wallS * 1000 < TARGET_WALL_MS && parquet.rssMb < TARGET_RSS_MB ? 'met' : 'NOT met'}`,
  );
  const csv = timed([
    'receipts',
    'export',
    inDir,
    '--out',
    join(dir, 'csv'),
    '--license',
    'CC-BY-4.0',
    '--format',
    'csv',
  ]);
  console.log(
    `receipts export --format csv: wall ${csv.wallS.toFixed(2)} s, CPU ${csv.cpuS.toFixed(2)} s, peak RSS ${csv.rssMb.toFixed(0)} MiB, ${folderMb(join(dir, 'csv')).toFixed(1)} MB written`,
  );

  const board = timed(['leaderboard', inDir, '--out', join(dir, 'leaderboard')]);
  console.log(`leaderboard, ${COUNT} receipts: ${board.stdout.replace(dir, '<tmp>')}`);
  console.log(
    `  wall ${board.wallS.toFixed(2)} s, CPU ${board.cpuS.toFixed(2)} s, peak RSS ${board.rssMb.toFixed(0)} MiB, page ${folderMb(join(dir, 'leaderboard')).toFixed(2)} MB`,
  );

  if (LARGE > 0) {
    const largeDir = join(dir, 'large');
    writeGeneratedReceipts(largeDir, LARGE, 7);
    const args = ['receipts', 'export', largeDir, '--out', join(dir, 'large-parquet'), '--license', 'CC-BY-4.0'];
    const large = timed(args);
    console.log(
      `receipts export --format parquet, ${LARGE} receipts: wall ${large.wallS.toFixed(2)} s, CPU ${large.cpuS.toFixed(2)} s, peak RSS ${large.rssMb.toFixed(0)} MiB`,
    );
    // Again with V8's old space capped: it completes only if what export keeps alive stays under the cap (peak RSS
    // above mostly shows how lazily V8 collects garbage when nothing presses it to).
    const capped = timed(args, [`--max-old-space-size=${HEAP_CAP_MB}`]);
    console.log(
      `  with node --max-old-space-size=${HEAP_CAP_MB}: wall ${capped.wallS.toFixed(2)} s, CPU ${capped.cpuS.toFixed(2)} s, peak RSS ${capped.rssMb.toFixed(0)} MiB`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
