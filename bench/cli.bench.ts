/**
 * `npm run bench -- cli`: how long `drb` takes to start, timed as whole processes (`node bin/drb.mjs ...` under
 * /usr/bin/time, the way a user or a script runs it): `drb --version` (the bundle check, the entry chunk and
 * commander, no command module), `drb --help` (the same, plus the help made from main.ts's table of commands),
 * `drb score` on a one-row file (start-up, plus the score command's modules, reading, scoring and writing almost
 * nothing), and `node -e 0` (Node's own start-up, which no change to drb can remove). One untimed run of each first
 * (it builds the CLI bundle when a source changed), then RUNS rounds with the four alternating, so a change in the
 * machine's load hits them alike; medians of wall and CPU time are printed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, timed, type TimedRun } from './process-timing.ts';

const RUNS = Number(process.env.DRB_BENCH_CLI_RUNS ?? 15);
const bin = fileURLToPath(new URL('../bin/drb.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'drb-cli-bench-'));
try {
  const [loadAtStart] = loadavg();
  const items = [{ id: 'a', input: 'かんじ', references: ['漢字'], label: 'typo' }];
  writeFileSync(join(dir, 'items.json'), JSON.stringify(items));
  writeFileSync(join(dir, 'predictions.json'), JSON.stringify([{ id: 'a', candidates: ['漢字', '感じ'] }]));
  const score = ['score', '--items', join(dir, 'items.json'), '--predictions', join(dir, 'predictions.json')];
  score.push('--output-dir', join(dir, 'out'));
  const cases: { label: string; command: string; args: string[] }[] = [
    { label: '`node -e 0` (Node alone)', command: process.execPath, args: ['-e', '0'] },
    { label: '`drb --version`', command: process.execPath, args: [bin, '--version'] },
    { label: '`drb --help`', command: process.execPath, args: [bin, '--help'] },
    { label: '`drb score` on a one-row file', command: process.execPath, args: [bin, ...score] },
  ];
  for (const c of cases) timed(c.command, c.args); // untimed: builds the bundle if needed, warms the page cache
  const runs: TimedRun[][] = cases.map(() => []);
  for (let i = 0; i < RUNS; i++) cases.forEach((c, k) => runs[k].push(timed(c.command, c.args)));

  const ms = (seconds: number) => `${(seconds * 1000).toFixed(0)} ms`;
  const node = median(runs[0].map((r) => r.seconds));
  console.log(`| Process | Median wall (${RUNS} runs) | Beyond Node's own start-up | Median CPU time | Peak RSS |`);
  console.log('| --- | ---: | ---: | ---: | ---: |');
  cases.forEach((c, k) => {
    const wall = median(runs[k].map((r) => r.seconds));
    const cpu = median(runs[k].map((r) => r.cpuSeconds));
    const rss = Math.max(...runs[k].map((r) => r.peakRssKiB));
    const beyond = k === 0 ? '' : ms(wall - node);
    console.log(`| ${c.label} | ${ms(wall)} | ${beyond} | ${ms(cpu)} | ${(rss / 1024).toFixed(0)} MiB |`);
  });
  const [load1] = loadavg();
  console.log(
    `\nmachine: ${cpus().length} logical CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, ` +
      `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, load average ${loadAtStart.toFixed(1)} at the ` +
      `start and ${load1.toFixed(1)} at the end`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
