/**
 * The crossover sweep's pure parts: the crossing of a ratio curve (hand-computed), the bootstrap interval of the
 * crossover (deterministic, ends beyond the range named), sweep receipts built from seeded synthetic measurements
 * (a route that wins from a size on: a crossover; one that never does: "no crossover in the range"; a disagreeing
 * size left out), the receipt validated by `drb receipts validate`'s own function, forged numbers refused, and the
 * sweep in the receipts summary and the report (every number the report marks is summary.json's).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { interleavedSchedule } from '../../src/core/comparison/interleaved-schedule.ts';
import { StoppingTracker, type StoppingRule } from '../../src/core/comparison/stopping-rule.ts';
import { SweepReceipt, type SweepRoute } from '../../src/core/comparison/sweep-receipt.ts';
import {
  buildSweepReceipt,
  crossoverSentence,
  type SweepPointMeasurement,
} from '../../src/core/comparison/sweep-statistics.ts';
import { checkSweepReceipt } from '../../src/core/comparison/sweep-invariants.ts';
import { comparisonTolerance } from '../../src/core/comparison/dtype-tolerance.ts';
import { driftProbeRecord } from '../../src/core/device/drift-probe.ts';
import { pressureNotAvailable } from '../../src/core/device/device-state.ts';
import { ReceiptsSummarizer } from '../../src/core/evidence/receipts-summarizer.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { bootstrapCrossover, crossingSize } from '../../src/core/stats/intervals.ts';
import { mulberry32 } from '../../src/core/stats/mulberry32.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import { pageComparisonReceipt } from './receipts-fixtures.ts';
import { runCli } from './cli-harness.ts';
import { summaryCells, summaryValue } from './report-checks.ts';
import { testTempDir } from '../temp-dir.ts';

describe('the crossing of a ratio curve', () => {
  it('interpolates in log size and log ratio after the last size where the winner is not ahead', () => {
    // Ratios 1.2, 1.1, 0.9, 0.8 at 8..64: the candidate gets ahead between 16 and 32. log(1.1) / (log 1.1 - log 0.9)
    // = 0.4748 of the way from log 16 to log 32: 16 * 2^0.4748 = 22.24.
    const t = Math.log(1.1) / (Math.log(1.1) - Math.log(0.9));
    expect(crossingSize([8, 16, 32, 64], [1.2, 1.1, 0.9, 0.8], 'candidate')).toBeCloseTo(16 * 2 ** t, 10);
    // A wobble at the small sizes does not count: the crossing is where it stays ahead.
    expect(crossingSize([8, 16, 32, 64], [0.9, 1.1, 0.9, 0.8], 'candidate')).toBeCloseTo(16 * 2 ** t, 10);
    expect(crossingSize([8, 16], [0.9, 0.8], 'candidate')).toBe(-Infinity);
    expect(crossingSize([8, 16], [1.1, 1.2], 'candidate')).toBe(Infinity);
    expect(crossingSize([8, 16, 32], [0.8, 1.2, 1.3], 'baseline')).toBeCloseTo(
      8 * 2 ** (Math.log(0.8) / (Math.log(0.8) - Math.log(1.2))),
      10,
    );
  });

  it("bootstraps the crossover over each point's rounds, deterministically, naming ends beyond the range", () => {
    const random = mulberry32(3);
    const point = (size: number, ratio: number) => {
      const baseline = Array.from({ length: 12 }, () => size * (1 + 0.1 * random()));
      return { size, baseline, candidate: baseline.map((b) => b * ratio * (1 + 0.05 * (random() - 0.5))) };
    };
    const points = [point(8, 1.5), point(16, 1.3), point(32, 0.9), point(64, 0.6)];
    const a = bootstrapCrossover(points, 'candidate');
    expect(bootstrapCrossover(points, 'candidate')).toEqual(a);
    expect(a.estimate).toBeGreaterThan(16);
    expect(a.estimate).toBeLessThan(32);
    expect(a.interval).toMatchObject({
      method: 'percentile-bootstrap',
      resampled: 'rounds',
      resamples: 2000,
      level: 0.95,
    });
    expect(a.interval.low).toBeGreaterThanOrEqual(16);
    expect(a.interval.high).toBeLessThanOrEqual(32);
    // Only just ahead at the top: many resamples never cross, so the upper end lies beyond the range.
    const edge = bootstrapCrossover([point(8, 1.3), point(16, 1.2), point(32, 0.99)], 'candidate');
    expect(edge.interval.high).toBe('beyond-range');
    expect(edge.interval.beyond_range_share).toBeGreaterThan(0.025);
  });
});

const RULE: StoppingRule = {
  kind: 'until-clear',
  min_rounds: 6,
  max_rounds: 30,
  max_time_ms: null,
  tie_zone: 0.05,
  max_width: 0.05,
  look_growth: 1.5,
};
const ROUTES = ['wasm-1', 'wasm-2'] as const;
const SCORES = [0.25, -0.5];

/**
 * A synthetic sweep: at each size, route wasm-1 takes `size / 10` ms, wasm-2 `overheadMs + size / 10 / speedup` ms,
 * with seeded noise and a shared drift per round; rounds run until the rule stops.
 */
function synthetic(
  sizes: number[],
  speedup: number,
  overheadMs: number,
  options: { disagreeAt?: number; seed?: number } = {},
): SweepReceipt {
  const random = mulberry32(options.seed ?? 11);
  const seed = 42;
  const points: SweepPointMeasurement[] = sizes.map((size, i) => {
    const tracker = new StoppingTracker(RULE, 'wasm-1');
    const series = ROUTES.map((id) => ({ id, samples_ms: [] as number[] }));
    for (let round = 1; ; round++) {
      const drift = 1 + 0.1 * Math.sin(round);
      series[0].samples_ms.push((size / 10) * drift * (1 + 0.05 * (random() - 0.5)));
      series[1].samples_ms.push((overheadMs + size / 10 / speedup) * drift * (1 + 0.05 * (random() - 0.5)));
      if (tracker.afterRound(series, round * 10) !== null) break;
    }
    const rounds = tracker.roundsDone;
    const other = options.disagreeAt === size ? [0.25, -0.1] : SCORES;
    return {
      size,
      input: { id: `grow-1x${size}`, sha256: 'a'.repeat(64) },
      schedule: {
        seed: seed + i,
        rounds,
        order: interleavedSchedule([...ROUTES], rounds, seed + i).map((s) => s.route_id),
      },
      stopping: tracker.result(),
      routes: [
        {
          route_id: 'wasm-1',
          samples_ms: series[0].samples_ms,
          scores: SCORES,
          scores_sha256: 'b'.repeat(64),
          error: null,
        },
        {
          route_id: 'wasm-2',
          samples_ms: series[1].samples_ms,
          scores: other,
          scores_sha256: 'c'.repeat(64),
          error: null,
        },
      ],
    };
  });
  const envelope = pageComparisonReceipt();
  const route = (id: string, threads: number): SweepRoute => ({
    id,
    requested_ep: 'wasm',
    completed_ep: 'wasm',
    threads_requested: threads,
    threads_effective: threads,
    session_create_ms: 12,
    runtime: null,
    software_adapter: null,
    error: null,
  });
  return buildSweepReceipt({
    receipt_id: `sweep-${String(speedup).replace('.', 'p')}-${String(overheadMs).replace('.', 'p')}-${options.disagreeAt ?? 0}-${options.seed ?? 11}`,
    created_at: envelope.created_at,
    app: envelope.app,
    engine: envelope.engine,
    model: { ...envelope.model, id: 'ort-grow-xenc' },
    dimension: 'sequence-length',
    routes: [route('wasm-1', 1), route('wasm-2', 2)],
    baseline_route_id: 'wasm-1',
    tolerance: comparisonTolerance(envelope.model.task, envelope.model.dtype, null),
    seed,
    rule: RULE,
    points,
    previous_run_interrupted: null,
    overlap: { this_page: false, other_tabs: null },
    capabilities: envelope.capabilities,
    lifecycle: envelope.lifecycle,
    device_state: {
      pressure: pressureNotAvailable('this browser has no PressureObserver (Compute Pressure API)'),
      drift_probe: driftProbeRecord([2, 2.1, 1.95, 2.05, 2, 2.02], { context: 'page', placement: 'between-rounds' }),
      cooldown: null,
    },
    cancelled: false,
  });
}

const SIZES = [8, 16, 32, 64, 128, 256, 512];

describe('sweep receipts', () => {
  it('find where the faster-at-scale route starts to win, with its interval, and validate', () => {
    // 2 threads: 1.8x the speed, after 0.8 ms of overhead: slower at 8 tokens, faster from about 20.
    const receipt = synthetic(SIZES, 1.8, 0.8);
    expect(SweepReceipt.safeParse(receipt).success).toBe(true);
    expect(checkSweepReceipt(receipt)).toEqual([]);
    expect(validateReceipt(receipt)).toMatchObject({ kind: 'sweep-receipt', problems: [] });
    expect(receipt.points[0].verdict).toBe('slower');
    expect(receipt.points.at(-1)!.verdict).toBe('faster');
    const c = receipt.crossover;
    expect(c).toMatchObject({
      status: 'crossover',
      ahead_at_start: 'wasm-1',
      winner: 'wasm-2',
      range: { smallest: 8, largest: 512 },
      invalid_sizes: [],
    });
    expect(SIZES).toContain(c.first_clear_size);
    expect(c.estimate).toBeGreaterThan(8);
    expect(c.estimate).toBeLessThanOrEqual(c.first_clear_size!);
    expect(crossoverSentence(receipt)).toMatch(
      /^wasm-2 starts to win at \d+ tokens in 8 to 512 tokens \(its interval first clear of 1 there; the median ratios cross at [\d.]+ tokens, 95% interval [\d.]+ tokens to [\d.]+ tokens\)$/,
    );
    expect(receipt.outcome).toEqual({ status: 'ok', reason: null });
    // Every point says why its rounds stopped.
    for (const p of receipt.points) expect(['clear', 'tie', 'narrow', 'budget-spent']).toContain(p.stopping.reason);
  });

  it('says honestly when no size turns the order', () => {
    const receipt = synthetic([8, 16, 32, 64], 0.8, 0.5);
    expect(checkSweepReceipt(receipt)).toEqual([]);
    expect(receipt.crossover).toMatchObject({
      status: 'none-in-range',
      ahead_at_start: 'wasm-1',
      winner: null,
      estimate: null,
      interval: null,
    });
    expect(crossoverSentence(receipt)).toBe(
      'No crossover in 8 to 64 tokens: wasm-1 is ahead at the smallest size and no size turns it',
    );
  });

  it('leaves a size whose routes disagree out of the crossover, and says so', () => {
    const receipt = synthetic(SIZES, 1.8, 0.8, { disagreeAt: 64 });
    const bad = receipt.points.find((p) => p.size === 64)!;
    expect(bad).toMatchObject({ valid: false, ratio_to_baseline: null, interval: null, verdict: null });
    expect(bad.invalid_reason).toMatch(/^scores differ from the baseline by 0\.4 \(tolerance 0\.0001\)$/);
    expect(receipt.crossover.invalid_sizes).toEqual([64]);
    expect(checkSweepReceipt(receipt)).toEqual([]);
    expect(crossoverSentence(receipt)).toMatch(/\(left out, invalid or without an interval: 64 tokens\)$/);
  });

  it('refuses forged numbers', () => {
    const receipt = synthetic(SIZES, 1.8, 0.8);
    const lines = (r: SweepReceipt) => checkSweepReceipt(r).map((p) => `${p.path}: ${p.message}`);
    const crossover = structuredClone(receipt);
    crossover.crossover.first_clear_size = 512;
    expect(lines(crossover)).toEqual(['crossover: does not match the crossover recomputed from the points']);
    const interval = structuredClone(receipt);
    interval.points[2].interval!.high = 0.5;
    expect(lines(interval)).toContain(
      'points[2].interval: does not match the ratio and bootstrap interval recomputed from the samples',
    );
    const order = structuredClone(receipt);
    order.points[1].schedule.order.reverse();
    expect(lines(order)).toContain('points[1].schedule.order: is not the interleaved order its seed gives');
    const sizes = structuredClone(receipt);
    sizes.points[1].size = 8;
    expect(lines(sizes)).toContain('points[1].size: sizes must grow along the ladder');
    const stopped = structuredClone(receipt);
    stopped.points[0].stopping.reason = 'tie';
    expect(lines(stopped).some((l) => l.startsWith('points[0].stopping.reason: is tie'))).toBe(true);
  });

  it("are listed in the receipts summary and drawn in the report with summary.json's numbers", async () => {
    const receipt = synthetic(SIZES, 1.8, 0.8);
    const summarizer = new ReceiptsSummarizer();
    expect(summarizer.addSweepReceipt(receipt)).toBe(true);
    const summary = await summarizer.finish();
    expect(summary.inputs.sweep_receipts_valid).toBe(1);
    const entry = summary.sweeps![0];
    expect(entry).toMatchObject({
      model_id: 'ort-grow-xenc',
      baseline_route_id: 'wasm-1',
      other_route_id: 'wasm-2',
      crossover: receipt.crossover,
    });
    expect(entry.points.map((p) => p.size)).toEqual(SIZES);
    expect(entry.device_state).toMatchObject({ pressure: 'not-available', flagged: false });

    const dir = testTempDir('drb-sweep-');
    mkdirSync(join(dir, 'in'));
    writeFileSync(join(dir, 'in', 'sweep.json'), `${JSON.stringify(receipt, null, 2)}\n`);
    const validated = await runCli(['receipts', 'validate', join(dir, 'in')]);
    expect(validated.stdout).toBe('ok: 1 receipt(s) valid\n');
    const summarized = await runCli(['receipts', 'summarize', join(dir, 'in'), '--out', join(dir, 'summary')]);
    expect(summarized.code, summarized.stderr).toBe(0);
    const written = ReceiptsSummary.parse(JSON.parse(readFileSync(join(dir, 'summary', 'summary.json'), 'utf8')));
    const md = readFileSync(join(dir, 'summary', 'summary.md'), 'utf8');
    expect(md).toContain('## Sweeps');
    expect(md).toContain(crossoverSentence(receipt));
    const run = await runCli(['receipts', 'report', join(dir, 'in'), '--out', join(dir, 'report')]);
    expect(run.code, run.stderr).toBe(0);
    const html = readFileSync(join(dir, 'report', 'index.html'), 'utf8');
    expect(html).toContain('data-chart="sweep-curve"');
    expect(html).toContain('<title id="sweep-');
    const cells = summaryCells(html).filter((c) => c.path.startsWith('sweeps.'));
    // Size, rounds, two medians, ratio and interval ends per size, plus the crossover's first clear size and estimate.
    expect(cells).toHaveLength(SIZES.length * 7 + 2);
    for (const { path, value } of cells) expect(summaryValue(written, path), path).toBe(Number(value));
    expect(cells.some((c) => c.path.endsWith('.crossover.first_clear_size'))).toBe(true);
  });
});
