/**
 * Inputs for the leaderboard tests: receipts of several phones made from the page's own receipts (receipts-builder.ts)
 * with chosen devices, timings and outcomes, suite receipts whose predictions are scored by the real `drb score`, a
 * summary with stored reviews (a maintainer's and a community tester's), the hostile receipts, and a governance file.
 *
 * - Pixel 8 (Chrome, Android): ort-tiny-xenc and ort-heavy-xenc (marked as real catalog models) on wasm, 5 cold and
 *   20 warm each, scored suite runs (Effective Acc@1 75% and 100%: the slower model is the better one, so both are on
 *   the Pareto front), reviewed by maintainer qa-1: verified and ranked; and
 *   ort-tiny-xenc on webgpu (ok, no quality: not ranked).
 * - iPhone (Safari): ort-tiny-xenc on wasm, 5 cold and 20 warm, a scored suite run, reviewed by community-tester (not
 *   a maintainer): DEVICE_PASS but a community row; ranked (community rows can be).
 * - Galaxy A54 (Chrome, Android): ort-tiny-xenc on webgpu refused twice (the same target that runs on the Pixel), and on
 *   wasm 3 cold and 6 warm with one run killed (crash or out of memory).
 * - a generation run on the Pixel, the two captured HeadlessChrome receipts (functional_only), two hostile receipts.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { Capabilities, DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import type { SuiteReceipt } from '../../src/core/suite/suite-receipt.ts';
import { LEADERBOARD_META_SCHEMA, type LeaderboardMeta } from '../../src/core/leaderboard/leaderboard-meta.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import { writeHostileCases } from '../fixtures/hostile/hostile-fixtures.ts';
import { runCli } from './cli-harness.ts';
import { makeGenerationReceipt } from './generation-fixtures.ts';
import { buildReceipt } from './receipts-builder.ts';
import { FIXTURE_DIR, pageSuiteReceipt } from './receipts-fixtures.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The three phones, as their receipts record them. */
export const DEVICES = {
  pixel: {
    ua: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    hints: { platform: 'Android', model: 'Pixel 8', mobile: true, brand: 'Chromium', version: '131' },
    heap: 4e7,
    adapter: { vendor: 'arm', architecture: 'valhall', device: 'Mali-G715', description: '' },
  },
  iphone: {
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    hints: null,
    heap: null,
    adapter: null,
  },
  galaxy: {
    ua: 'Mozilla/5.0 (Linux; Android 13; SM-A546B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36',
    hints: { platform: 'Android', model: 'SM-A546B', mobile: true, brand: 'Chromium', version: '130' },
    heap: 6e7,
    adapter: null,
  },
} as const;
export type DeviceName = keyof typeof DEVICES;

/** The capabilities a receipt of `name` records (the same for every receipt of that device). */
function capabilitiesOf(base: Capabilities, name: DeviceName): Capabilities {
  const d = DEVICES[name];
  const caps = structuredClone(base);
  caps.user_agent = d.ua;
  caps.device_details = d.hints ? 'full' : 'reduced';
  caps.ua_client_hints = d.hints
    ? {
        brands: [{ brand: d.hints.brand, version: d.hints.version }],
        mobile: d.hints.mobile,
        platform: d.hints.platform,
        platform_version: '14.0.0',
        architecture: null,
        model: d.hints.model,
        full_version_list: null,
      }
    : null;
  caps.platform = d.hints ? 'Linux armv81' : 'iPhone';
  caps.hardware_concurrency = 8;
  caps.device_memory_gb = d.hints ? 8 : null;
  caps.js_heap =
    d.heap === null ? null : { js_heap_size_limit: 4e9, total_js_heap_size: d.heap * 1.5, used_js_heap_size: d.heap };
  caps.webgpu = {
    ...caps.webgpu,
    navigator_gpu: d.adapter !== null,
    adapter_granted: d.adapter !== null,
    adapter_error: null,
    adapter_info: d.adapter === null ? null : { ...d.adapter },
    is_fallback_adapter: d.adapter === null ? null : false,
    features: [],
    limits: null,
  };
  return caps;
}

/** One receipt of `device` from the builder, as a real catalog model, with that device's capabilities. */
function receiptOn(device: DeviceName, options: Parameters<typeof buildReceipt>[0]): DeviceReceipt {
  const r = buildReceipt({ ...options, jsHeapUsed: DEVICES[device].heap });
  r.model.kind = 'real';
  r.capabilities = capabilitiesOf(r.capabilities, device);
  r.app.commit = 'c'.repeat(40);
  return r;
}

/** 5 cold and 20 warm ok receipts of one target (warm samples around `warmMs`). */
function procedure(
  device: DeviceName,
  modelId: string,
  ep: 'wasm' | 'webgpu',
  warmMs: number,
  cold = 5,
  warm = 20,
): DeviceReceipt[] {
  const out: DeviceReceipt[] = [];
  for (let i = 0; i < cold; i++)
    out.push(
      receiptOn(device, {
        kind: 'cold',
        ep,
        modelId,
        coldMs: { fetch: 900 + i * 10, session: 300 + i, first: 20 + i },
      }),
    );
  for (let i = 0; i < warm; i++) {
    out.push(
      receiptOn(device, {
        kind: 'warm',
        ep,
        modelId,
        warmSamples: Array.from({ length: 20 }, (_, k) => warmMs * (1 + ((k * 7 + i) % 10) / 50)),
      }),
    );
  }
  return out;
}

/** A suite run of `modelId` on `device` (route wasm, one thread) that made the predictions with `predictionsSha256`. */
function suiteOn(device: DeviceName, like: DeviceReceipt, predictionsSha256: string, id: string): SuiteReceipt {
  const r = pageSuiteReceipt();
  r.receipt_id = id;
  r.app = structuredClone(like.app);
  r.engine = structuredClone(like.engine);
  r.model = structuredClone(like.model);
  r.route = structuredClone(like.route);
  r.runtime = structuredClone(like.runtime);
  r.capabilities = structuredClone(like.capabilities);
  r.predictions = { ...r.predictions!, sha256: predictionsSha256 };
  void device;
  return r;
}

/** What writeLeaderboardInputs made. */
export interface LeaderboardInputs {
  /** Every receipt and score report, for `drb leaderboard` given receipts directly. */
  receipts: string;
  scores: string;
  /** summary.json with reviews/ beside it, of the same receipts. */
  summaryDir: string;
  meta: string;
  metaValue: LeaderboardMeta;
  /** Target keys: pixel-tiny-wasm, pixel-heavy-wasm, pixel-tiny-webgpu, iphone-tiny-wasm, galaxy-tiny-webgpu, galaxy-tiny-wasm. */
  keys: Record<string, string>;
}

function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Writes the leaderboard test inputs into `dir` (see the module comment).
 * @param dir an empty folder
 */
export async function writeLeaderboardInputs(dir: string): Promise<LeaderboardInputs> {
  const receipts = join(dir, 'receipts');
  const scores = join(dir, 'scores');
  mkdirSync(receipts);
  mkdirSync(scores);
  // Predictions: the captured suite run's, and the same with the reference moved first (a better model's), each scored.
  const items = JSON.parse(readFileSync(join(ROOT, 'public/suites/ajimee-demo-24/items.json'), 'utf8')) as Array<{
    index: string;
    expected_output: string[];
  }>;
  const captured = JSON.parse(
    readFileSync(join(ROOT, 'test/fixtures/suite-run/ajimee-demo-24-tfjs-tiny-reranker-wasm-predictions.json'), 'utf8'),
  ) as Array<{ id: string; candidates: string[] }>;
  const good = captured.map((row) => {
    const reference = items.find((i) => i.index === row.id)?.expected_output[0];
    return reference !== undefined && row.candidates.includes(reference)
      ? { ...row, candidates: [reference, ...row.candidates.filter((c) => c !== reference)] }
      : row;
  });
  // A model that always ranks the reference first: Effective Acc@1 100%.
  const best = captured.map((row) => ({
    ...row,
    candidates: [items.find((i) => i.index === row.id)?.expected_output[0] ?? row.id],
    reason: 'accepted',
  }));
  const predictions: Record<string, string> = {};
  for (const [name, rows] of [
    ['good', good],
    ['best', best],
    ['captured', captured],
  ] as const) {
    const text = `${JSON.stringify(rows, null, 2)}\n`;
    writeFileSync(join(dir, `${name}-predictions.json`), text);
    predictions[name] = sha256(text);
    const score = await runCli([
      'score',
      '--items',
      join(ROOT, 'public/suites/ajimee-demo-24/items.json'),
      '--format',
      'ajimee',
      '--predictions',
      join(dir, `${name}-predictions.json`),
      '--output-dir',
      scores,
      '--stem',
      `${name}-score`,
    ]);
    expect(score.code, score.stderr).toBe(0);
  }
  const all: DeviceReceipt[] = [
    ...procedure('pixel', 'ort-tiny-xenc', 'wasm', 10),
    ...procedure('pixel', 'ort-heavy-xenc', 'wasm', 40),
    ...procedure('pixel', 'ort-tiny-xenc', 'webgpu', 4, 5, 20),
    ...procedure('iphone', 'ort-tiny-xenc', 'wasm', 14),
    ...procedure('galaxy', 'ort-tiny-xenc', 'wasm', 25, 3, 6),
  ];
  for (let i = 0; i < 2; i++) {
    all.push(
      receiptOn('galaxy', {
        kind: 'cold',
        ep: 'webgpu',
        completedEp: null,
        failed: {
          stage: 'session',
          reason: 'WebGPU is not available: navigator.gpu exists but no adapter was granted',
        },
      }),
    );
  }
  // The Galaxy's wasm warm run died (the tab was killed): the next run's receipt records it.
  const killed = receiptOn('galaxy', {
    kind: 'cold',
    ep: 'wasm',
    modelId: 'ort-tiny-xenc',
    coldMs: { fetch: 950, session: 320, first: 22 },
  });
  killed.run.previous_run_interrupted = {
    run_id: 'run-killed-0001',
    run_mode: 'single',
    run_kind: 'warm',
    stage: 'warm_inference',
    stage_started_at: '2026-12-01T08:00:00.000Z',
    model_id: 'ort-tiny-xenc',
    requested_ep: 'wasm',
  };
  all.push(killed);
  const suites = [
    suiteOn(
      'pixel',
      all.find(
        (r) =>
          r.model.id === 'ort-tiny-xenc' &&
          r.capabilities.user_agent === DEVICES.pixel.ua &&
          r.route.requested_ep === 'wasm',
      )!,
      predictions.good,
      'suite-pixel-tiny-0001',
    ),
    suiteOn('pixel', all.find((r) => r.model.id === 'ort-heavy-xenc')!, predictions.best, 'suite-pixel-heavy-0001'),
    suiteOn(
      'iphone',
      all.find((r) => r.capabilities.user_agent === DEVICES.iphone.ua)!,
      predictions.good,
      'suite-iphone-tiny-0001',
    ),
    suiteOn(
      'galaxy',
      all.find((r) => r.capabilities.user_agent === DEVICES.galaxy.ua && r.outcome.status === 'ok')!,
      predictions.captured,
      'suite-galaxy-tiny-0001',
    ),
  ];
  const generation = [0, 1].map((i) => {
    const g = makeGenerationReceipt();
    g.receipt_id = `gen-pixel-000${i}`;
    g.capabilities = capabilitiesOf(g.capabilities, 'pixel');
    return g;
  });
  for (const r of [...all, ...suites, ...generation]) {
    expect(validateReceipt(r).problems, r.receipt_id).toEqual([]);
    writeFileSync(join(receipts, `${r.receipt_id}.json`), `${JSON.stringify(r, null, 2)}\n`);
  }
  for (const name of ['01-ort-wasm-t1-cold-ok.json', '02-ort-wasm-t1-warm-ok.json'])
    copyFileSync(join(FIXTURE_DIR, name), join(receipts, name));
  mkdirSync(join(receipts, 'hostile'));
  writeHostileCases(join(receipts, 'hostile'), (c) => c.name === 'every-string-markup' || c.name === 'failure-markup');

  // The summary, then the reviews: a maintainer's for the Pixel's wasm targets, a community tester's for the iPhone's.
  const summaryDir = join(dir, 'summary');
  const summarized = await runCli(['receipts', 'summarize', receipts, '--out', summaryDir]);
  expect(summarized.code, summarized.stderr).toBe(0);
  const summary = JSON.parse(readFileSync(join(summaryDir, 'summary.json'), 'utf8')) as {
    targets: Array<{
      key: string;
      identity: {
        device: { user_agent: string };
        model: { id: string };
        route: { requested_ep: string; completed_ep: string | null };
      };
    }>;
  };
  const key = (ua: string, model: string, ep: string) =>
    summary.targets.find(
      (t) =>
        t.identity.device.user_agent === ua &&
        t.identity.model.id === model &&
        t.identity.route.requested_ep === ep &&
        (t.identity.route.completed_ep !== null || ep === 'webgpu'),
    )!.key;
  const keys = {
    'pixel-tiny-wasm': key(DEVICES.pixel.ua, 'ort-tiny-xenc', 'wasm'),
    'pixel-heavy-wasm': key(DEVICES.pixel.ua, 'ort-heavy-xenc', 'wasm'),
    'pixel-tiny-webgpu': key(DEVICES.pixel.ua, 'ort-tiny-xenc', 'webgpu'),
    'iphone-tiny-wasm': key(DEVICES.iphone.ua, 'ort-tiny-xenc', 'wasm'),
    'galaxy-tiny-webgpu': key(DEVICES.galaxy.ua, 'ort-tiny-xenc', 'webgpu'),
    'galaxy-tiny-wasm': key(DEVICES.galaxy.ua, 'ort-tiny-xenc', 'wasm'),
  };
  for (const [target, reviewer] of [
    [keys['pixel-tiny-wasm'], 'qa-1'],
    [keys['pixel-heavy-wasm'], 'qa-1'],
    [keys['iphone-tiny-wasm'], 'community-tester'],
  ] as const) {
    const template = await runCli([
      'receipts',
      'review-template',
      '--summary',
      join(summaryDir, 'summary.json'),
      '--target',
      target,
    ]);
    const review = JSON.parse(template.stdout) as Record<string, unknown>;
    Object.assign(review, {
      reviewer,
      reviewed_at: '2026-12-01T12:00:00Z',
      output_stayed_correct: true,
      launch_to_result_ms: 3000,
      public_revision: 'c'.repeat(40),
      device: { hardware_model: 'phone', ram_gb: 8, os_build: 'build 1', browser: 'browser', browser_version: '1' },
      conditions: { network: 'Wi-Fi', battery_percent: 80, charging: false, thermal_state: 'nominal' },
      memory_pressure: { observed: false, behaviour: 'none observed' },
      tab: { reloaded_or_evicted: false, details: null },
    });
    writeFileSync(join(dir, `review-${target}.json`), JSON.stringify(review, null, 2));
    const stored = await runCli([
      'receipts',
      'review',
      '--summary',
      join(summaryDir, 'summary.json'),
      '--target',
      target,
      '--answers',
      join(dir, `review-${target}.json`),
    ]);
    expect(stored.code, stored.stdout + stored.stderr).toBe(0);
    expect(stored.stdout, stored.stdout).toContain(`${target}: DEVICE_PASS`);
  }
  const metaValue: LeaderboardMeta = {
    schema: LEADERBOARD_META_SCHEMA,
    title: 'Phones leaderboard <b>test</b>',
    benchmark_version: 'drb 0.1.0, profiles 2026-11-29.1, rules drb.leaderboard-rules.v1',
    maintainers: [{ reviewer: 'qa-1', name: 'QA One' }],
    funding: [{ funder: 'Example Foundation', what: 'CI machines and two phones' }],
    donated_devices: [{ device: 'Pixel 8', donor: 'A. Donor <script>alert(1)</script>' }],
    engineering_support: [],
    pre_release_access: [{ model: 'ort-heavy-xenc', provider: 'Example Lab', note: 'two weeks before release' }],
    rerun_reasons: [
      { target: keys['pixel-tiny-wasm'], reason: 'CDN outage during the first session', date: '2026-11-30' },
    ],
    notes: 'Notes with markup: <img src=x onerror=alert(2)> & **bold**',
  };
  const meta = join(dir, 'leaderboard-meta.json');
  writeFileSync(meta, `${JSON.stringify(metaValue, null, 2)}\n`);
  return { receipts, scores, summaryDir, meta, metaValue, keys };
}
