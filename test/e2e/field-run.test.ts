/**
 * `drb field-run` in Chromium and WebKitGTK at 390 x 844 with the shipped fixture protocol, the page served by the
 * command itself (--dir, no --url): five cold receipts, each in a new browser process with a new profile attested by
 * the driver (driver_fresh), twenty warm receipts in one page, ONE bundle `drb receipts validate` accepts, a summary
 * counting five full protocol colds, and a review template whose device fields the driver cannot read stay empty;
 * a person fills them and `drb receipts review` reaches DEVICE_PASS.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { ReceiptBundle } from '../../src/core/field/receipt-bundle.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { DeviceReview } from '../../src/core/evidence/device-review.ts';
import { CHROMIUM_BASE_ARGS, CHROMIUM_EXECUTABLE } from '../../src/node/chromium.ts';
import { runCli } from '../unit/cli-harness.ts';
import { receiptProblems } from './page-harness.ts';
import { testTempDir } from '../temp-dir.ts';

const PROTOCOL = 'ort-tiny-xenc-wasm';

async function fieldRun(browser: 'chromium' | 'webkit'): Promise<void> {
  const out = join(testTempDir(`drb-field-run-${browser}-`), 'run');
  const run = await runCli([
    'field-run',
    '--protocol',
    PROTOCOL,
    '--browser',
    browser,
    '--dir',
    inject('distDir'),
    '--window',
    '390x844',
    '--out',
    out,
  ]);
  expect(run.code, run.stderr).toBe(0);
  // Progress on stderr, as the steps happen.
  expect(run.stderr).toContain('cold 3 of 5');
  expect(run.stderr).toContain('warm 12 of 20');
  expect(run.stdout).toMatch(/^FIELD_RUN ort-tiny-xenc-wasm /);
  const bundles = readdirSync(out).filter((f) => f.includes('-bundle-'));
  expect(bundles).toHaveLength(1);
  const bundleFile = join(out, bundles[0]);
  const bundle = ReceiptBundle.parse(JSON.parse(readFileSync(bundleFile, 'utf8')));
  expect(bundle.protocol?.id).toBe(PROTOCOL);
  expect(readdirSync(join(out, 'receipts'))).toHaveLength(25);
  const receipts = bundle.receipts as Array<{
    run: { kind: string; cold_from_cache?: boolean; attestations?: Array<{ claim: string; source: string }> };
    outcome: { status: string };
  }>;
  expect(receipts.map((r) => r.run.kind).sort()).toEqual([...Array(5).fill('cold'), ...Array(20).fill('warm')]);
  for (const r of receipts) {
    expect(receiptProblems(r)).toEqual([]);
    expect(r.outcome.status).toBe('ok');
  }
  for (const cold of receipts.filter((r) => r.run.kind === 'cold')) {
    expect(cold.run.cold_from_cache).toBe(false);
    // The driver's statement, never a tester's tap.
    expect(cold.run.attestations!.map((a) => [a.claim, a.source])).toEqual([
      ['browser-restarted', 'driver'],
      ['site-data-cleared', 'driver'],
    ]);
  }
  // What the driver reads goes into the sheet; what it cannot read stays empty.
  expect(bundle.sheet.browser).toBe(browser === 'chromium' ? 'Chromium' : 'MiniBrowser (WebKitGTK)');
  expect(bundle.sheet.browser_version).not.toBe('');
  expect(bundle.sheet).toMatchObject({ device_model: '', ram_gb: null, os_build: '', network: '', notes: '' });
  expect((await runCli(['receipts', 'validate', bundleFile])).code).toBe(0);

  const summaryFile = join(out, 'summary', 'summary.json');
  const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(summaryFile, 'utf8')));
  expect(summary.targets).toHaveLength(1);
  const [target] = summary.targets;
  expect(target.counts).toMatchObject({
    full_cold: 5,
    measured_network_cold: 5,
    measured_fresh_start: 5,
    attested_cold: 5,
    clean_warm: 20,
    cold_minimum_met: true,
    warm_minimum_met: true,
  });

  // The template: the device fields nobody could read are empty and named for a person.
  const template = JSON.parse(readFileSync(join(out, 'review-template.json'), 'utf8'));
  expect(template.device).toMatchObject({ hardware_model: '', ram_gb: null, os_build: '' });
  expect(run.stderr).toContain('to fill: device.hardware_model:');
  expect(run.stderr).toContain('to fill: device.ram_gb:');
  // Without a person's answers, review from the evidence alone is refused.
  const refused = await runCli(['receipts', 'review', '--summary', summaryFile, '--reviewer', 'qa-field']);
  expect(refused.code).not.toBe(0);
  // A person holding the device fills what only they know.
  template.device.hardware_model = 'Test host (x86_64)';
  template.device.ram_gb = 16;
  template.device.os_build = 'Debian 13';
  template.conditions.network = 'loopback';
  template.memory_pressure = { observed: false, behaviour: 'none seen: no reload, no slowdown' };
  template.thresholds.profile = 'entry';
  const answers = join(out, 'answers.json');
  writeFileSync(answers, JSON.stringify(template));
  const review = await runCli([
    'receipts',
    'review',
    '--summary',
    summaryFile,
    '--answers',
    answers,
    '--reviewer',
    'qa-field',
  ]);
  expect(review.stdout.split('\n')[0], review.stdout + review.stderr).toBe(`${target.key}: DEVICE_PASS`);
  const stored = DeviceReview.parse(
    JSON.parse(readFileSync(join(out, 'summary', 'reviews', `${target.key}.json`), 'utf8')),
  );
  expect(stored.device.hardware_model).toBe('Test host (x86_64)');
  expect(stored.reviewer).toBe('qa-field');
}

describe('drb field-run at 390 x 844 with the fixture protocol, serving the built page itself', () => {
  it('Chromium: five driver-attested fresh colds and twenty warms in one bundle reach DEVICE_PASS', async () => {
    await fieldRun('chromium');
  }, 900_000);

  it('WebKitGTK: five driver-attested fresh colds and twenty warms in one bundle reach DEVICE_PASS', async () => {
    await fieldRun('webkit');
  }, 900_000);
});

describe('drb field-run --cdp when the browser dies mid-run', () => {
  it('keeps the receipts made so far, says what is missing, and exits 1 without a bundle', async () => {
    const profile = testTempDir('drb-field-run-cdp-profile-');
    const chromium = spawn(
      CHROMIUM_EXECUTABLE,
      [...CHROMIUM_BASE_ARGS, `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank'],
      { stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => chromium.once('exit', resolve));
    try {
      const portFile = join(profile, 'DevToolsActivePort');
      const until = Date.now() + 30_000;
      while (!existsSync(portFile) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
      const port = readFileSync(portFile, 'utf8').split('\n')[0];
      const out = join(testTempDir('drb-field-run-dies-'), 'run');
      const running = runCli([
        'field-run',
        '--protocol',
        PROTOCOL,
        '--cdp',
        `http://127.0.0.1:${port}`,
        '--dir',
        inject('distDir'),
        '--out',
        out,
        '--timeout-ms',
        '120000',
      ]);
      // The browser dies once three receipts are in --out (the cold and two warms).
      const receiptsDir = join(out, 'receipts');
      const deadline = Date.now() + 240_000;
      while (Date.now() < deadline && (!existsSync(receiptsDir) || readdirSync(receiptsDir).length < 3))
        await new Promise((resolve) => setTimeout(resolve, 100));
      chromium.kill('SIGKILL');
      const run = await running;
      expect(run.code, run.stderr).toBe(1);
      const kept = readdirSync(receiptsDir);
      expect(kept.length).toBeGreaterThanOrEqual(3);
      for (const file of kept)
        expect(receiptProblems(JSON.parse(readFileSync(join(receiptsDir, file), 'utf8')))).toEqual([]);
      expect(run.stderr).toMatch(/^error: cdp: /m);
      expect(run.stderr).toContain('error: missing 4 of 5 cold receipts');
      expect(run.stderr).toMatch(new RegExp(`error: missing ${20 - (kept.length - 1)} of 20 warm receipts`));
      expect(run.stderr).toContain(`kept ${kept.length} receipt(s) in`);
      // No bundle and no template: the procedure is not complete.
      expect(readdirSync(out).sort()).toEqual(['receipts']);
      expect(run.stdout).toBe('');
    } finally {
      if (chromium.exitCode === null && chromium.signalCode === null) chromium.kill('SIGKILL');
      await exited;
    }
  }, 400_000);
});
