/**
 * A comparison receipt with its stopping trace and device state, made from the captured page comparison (its real
 * samples) the way the page's controller makes them: it validates; a forged device state or stopping reason is
 * refused; `drb receipts summarize` lists why the rounds stopped and the device's state (flagged when the run started
 * under critical pressure); the report prints both beside the comparison.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ComparisonReceipt } from '../../src/core/comparison/comparison-receipt.ts';
import { fixedRule, StoppingTracker, stoppingSentence } from '../../src/core/comparison/stopping-rule.ts';
import { deviceStateLine } from '../../src/core/device/device-state.ts';
import { driftProbeRecord } from '../../src/core/device/drift-probe.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { htmlText, mdText } from '../../src/core/text/markdown-escape.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import { testTempDir } from '../temp-dir.ts';
import { runCli } from './cli-harness.ts';
import { pageComparisonReceipt } from './receipts-fixtures.ts';

/** The captured comparison with the sections the page records today, built from its own samples. */
function withStopping(before: 'nominal' | 'critical'): ComparisonReceipt {
  const receipt = pageComparisonReceipt();
  const rounds = receipt.schedule.rounds;
  const tracker = new StoppingTracker(fixedRule(rounds), receipt.baseline_route_id);
  for (let k = 1; k <= rounds; k++) {
    if (
      tracker.afterRound(
        receipt.routes.map((r) => ({ id: r.id, samples_ms: r.samples_ms.slice(0, k) })),
        k * 40,
      ) !== null
    )
      break;
  }
  receipt.stopping = tracker.result();
  receipt.device_state = {
    pressure: {
      status: 'observed',
      source: 'cpu',
      reason: null,
      before,
      changes: [{ state: 'fair', at_ms: 1234.5 }],
      after: 'fair',
    },
    drift_probe: driftProbeRecord(
      Array.from({ length: rounds + 1 }, (_, i) => 2 + 0.01 * i),
      { context: 'page', placement: 'between-rounds' },
    ),
    cooldown: null,
  };
  return receipt;
}

describe('a comparison with its stopping trace and device state', () => {
  it('validates, and forged sections are refused', () => {
    const receipt = withStopping('nominal');
    expect(validateReceipt(receipt).problems).toEqual([]);
    expect(receipt.stopping).toMatchObject({ reason: 'fixed-rounds', budget: null });
    const late = structuredClone(receipt);
    late.stopping!.reason = 'clear';
    expect(validateReceipt(late).problems.map((p) => p.path)).toContain('stopping.reason');
    const drift = structuredClone(receipt);
    drift.device_state!.drift_probe.slowed_beyond_bound = true;
    expect(validateReceipt(drift).problems).toEqual([
      { path: 'device_state.drift_probe.trend', message: 'does not match the trend recomputed from the probe times' },
    ]);
    const pressure = structuredClone(receipt);
    pressure.device_state!.pressure.after = 'critical';
    expect(validateReceipt(pressure).problems).toEqual([
      { path: 'device_state.pressure.after', message: 'is critical, the last state reported was fair' },
    ]);
  });

  it('summarize and report say why the rounds stopped and flag a run that started under critical pressure', async () => {
    const receipt = withStopping('critical');
    const dir = testTempDir('drb-cmp-stopping-');
    mkdirSync(join(dir, 'in'));
    writeFileSync(join(dir, 'in', 'compare.json'), `${JSON.stringify(receipt, null, 2)}\n`);
    expect((await runCli(['receipts', 'summarize', join(dir, 'in'), '--out', join(dir, 'summary')])).code).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(dir, 'summary', 'summary.json'), 'utf8')));
    const entry = summary.comparisons[0];
    expect(entry.stopping).toEqual({
      reason: 'fixed-rounds',
      budget: null,
      rounds: receipt.schedule.rounds,
      sentence: stoppingSentence(receipt.stopping!),
    });
    expect(entry.device_state).toMatchObject({
      pressure: 'observed',
      started_under: 'critical',
      peak: 'critical',
      flagged: true,
    });
    const md = readFileSync(join(dir, 'summary', 'summary.md'), 'utf8');
    expect(md).toContain(`: ⚠ device state flagged: ${mdText(deviceStateLine(receipt.device_state!))}.`);
    expect(md).toContain(`ran the fixed ${receipt.schedule.rounds} rounds`);
    expect((await runCli(['receipts', 'report', join(dir, 'in'), '--out', join(dir, 'report')])).code).toBe(0);
    const html = readFileSync(join(dir, 'report', 'index.html'), 'utf8');
    expect(html).toContain(`<p>Stopping: ${htmlText(stoppingSentence(receipt.stopping!))}.</p>`);
    expect(html).toContain(`⚠ Device state flagged: ${htmlText(deviceStateLine(receipt.device_state!))}`);
  });
});
