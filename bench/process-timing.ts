/** Whole-process timing for the CLI benchmarks (cli.bench.ts, score.bench.ts): a child process under /usr/bin/time. */
import { spawnSync } from 'node:child_process';

/** One timed child process. */
export interface TimedRun {
  /** wall time of the whole process, from spawning it to its exit (measured here, to the microsecond) */
  seconds: number;
  /** user + system CPU time (/usr/bin/time, 10 ms steps): steadier than wall time when other work shares the machine */
  cpuSeconds: number;
  peakRssKiB: number;
  stdout: string;
}

/**
 * Runs `command args` under /usr/bin/time and returns its wall time, CPU time and peak RSS.
 * @throws when it exits non-zero
 */
export function timed(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): TimedRun {
  const started = process.hrtime.bigint();
  const result = spawnSync('/usr/bin/time', ['-f', 'DRB_TIME %e %M %U %S', command, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const line = result.stderr.split('\n').find((l) => l.startsWith('DRB_TIME '));
  if (result.status !== 0 || line === undefined) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr.slice(-2000)}`);
  }
  const [, , kib, user, system] = line.split(' ');
  return { seconds, cpuSeconds: Number(user) + Number(system), peakRssKiB: Number(kib), stdout: result.stdout };
}

/** The median (the upper one of an even count). */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}
