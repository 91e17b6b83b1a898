/**
 * The receipts report read by a person (issue #33): every target named by what sets it apart (never "wasm ×2"
 * twice), captions from the receipts' own fields (cache source), failures with the stage and reason recorded, axes
 * chosen for the data (log scale past a decade, said on the axis), and no empty statistic rows. The pure model
 * (labels, failure and cache words, chart scales) is tested directly; the page on the captured receipts plus
 * colliding targets through writeReport. The page in Chromium at 375 and 1366 px: test/e2e/receipts-report.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReport } from '../../src/cli/receipts-report.ts';
import { targetIdentity, type TargetIdentity } from '../../src/core/evidence/target-identity.ts';
import { recordedFailedStage } from '../../src/core/report/report-collector.ts';
import { cacheSentence, failureText } from '../../src/core/report/report-html.ts';
import {
  distributionRowsSvg,
  runOrderSvg,
  stackedBarsSvg,
  wrapText,
  type StackedRow,
} from '../../src/core/report/svg-charts.ts';
import { distinguishingLabels, routeText } from '../../src/core/report/target-labels.ts';
import { testTempDir } from '../temp-dir.ts';
import { buildReceipt } from './receipts-builder.ts';
import { FIXTURE_DIR, pageReceipt } from './receipts-fixtures.ts';

/** An identity of the captured wasm ×2 warm run, edited by `edit`. */
function identity(edit: (i: TargetIdentity) => void = () => {}): TargetIdentity {
  const base = structuredClone(
    targetIdentity(pageReceipt((r) => r.run.kind === 'warm' && r.route.threads_effective === 2, 'a wasm ×2 warm run')),
  );
  edit(base);
  return base;
}

const labelsOf = (targets: Array<{ key: string; identity: TargetIdentity }>) =>
  Object.fromEntries([...distinguishingLabels(targets)].map(([k, v]) => [k, v.label]));

describe('distinguishingLabels', () => {
  it('names a target by its route alone when the route tells it apart', () => {
    const labels = distinguishingLabels([
      { key: 'a', identity: identity() },
      { key: 'b', identity: identity((i) => Object.assign(i.route, { threads_requested: 1, threads_effective: 1 })) },
    ]);
    expect(labels.get('a')).toEqual({ label: 'wasm ×2', added: [] });
    expect(labels.get('b')).toEqual({ label: 'wasm ×1', added: [] });
  });

  it('tells two targets on one route apart by the first field that differs, and only those two', () => {
    const labels = labelsOf([
      { key: 'a', identity: identity((i) => (i.app.commit = 'a'.repeat(40))) },
      { key: 'b', identity: identity((i) => (i.app.commit = 'b'.repeat(40))) },
      { key: 'c', identity: identity((i) => Object.assign(i.route, { threads_requested: 1, threads_effective: 1 })) },
    ]);
    expect(labels).toEqual({
      a: `wasm ×2 · app ${identity().app.version} @aaaaaaa`,
      b: `wasm ×2 · app ${identity().app.version} @bbbbbbb`,
      c: 'wasm ×1',
    });
  });

  it('splits a group step by step: dtype first, then what still collides (browser), never more', () => {
    const safari =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Version/18.1 Mobile/15E148 Safari/604.1';
    const targets = [
      { key: 'fp32-chrome', identity: identity() },
      { key: 'fp32-safari', identity: identity((i) => (i.device.user_agent = safari)) },
      { key: 'fp16', identity: identity((i) => (i.model.dtype = 'fp16')) },
      { key: 'heavy', identity: identity((i) => (i.model.id = 'ort-heavy-xenc')) },
    ];
    const labels = distinguishingLabels(targets);
    const text = [...labels.values()].map((l) => l.label);
    expect(new Set(text).size).toBe(targets.length);
    expect(labels.get('heavy')!.label).toBe('wasm ×2 · ort-heavy-xenc');
    expect(labels.get('fp16')!.label).toBe(`wasm ×2 · ${identity().model.id} · fp16`);
    expect(labels.get('fp32-safari')!.label).toBe(`wasm ×2 · ${identity().model.id} · fp32 · Safari/WebKit 18.1`);
    expect(labels.get('fp32-chrome')!.added).toEqual(['model', 'dtype', 'browser']);
  });

  it('still gives unique labels when targets differ only in a field no label names first (model files)', () => {
    const labels = labelsOf([
      { key: 'a', identity: identity((i) => (i.model.file_sha256 = ['1'.repeat(64)])) },
      { key: 'b', identity: identity((i) => (i.model.file_sha256 = ['2'.repeat(64)])) },
    ]);
    expect(labels).toEqual({ a: 'wasm ×2 · files 11111111', b: 'wasm ×2 · files 22222222' });
  });

  it('says a route that never ran did not run (never "wasm→none")', () => {
    const route = { ...identity().route, completed_ep: null, threads_effective: null, threads_requested: 1 };
    expect(routeText(route)).toBe('wasm ×1 (did not run)');
    expect(routeText({ ...route, requested_ep: 'webgpu', completed_ep: 'wasm', threads_effective: 1 })).toBe(
      'webgpu→wasm ×1',
    );
  });
});

describe('failure and cache words from the receipts', () => {
  it('shows a stage time-out with its stage and recorded reason', () => {
    const timedOut = pageReceipt(
      (r) => r.outcome.status === 'failed' && /time limit/.test(r.outcome.reason ?? ''),
      'a stage time-out',
    );
    expect(timedOut.outcome.failed_stage).toBeNull();
    expect(recordedFailedStage(timedOut.outcome)).toBe('setup');
    expect(failureText({ failed_stage: 'setup', failure_reason: timedOut.outcome.reason })).toBe(
      `failed at setup: ${timedOut.outcome.reason}`,
    );
    expect(failureText({ failed_stage: null, failure_reason: null })).toBe('failed (no reason recorded)');
  });

  it('counts the cache source each receipt records, and says "not recorded" only when none does', () => {
    expect(
      cacheSentence([
        { from_cache: false, protocol_cold: true },
        { from_cache: false, protocol_cold: false },
        { from_cache: true, protocol_cold: false },
        { from_cache: null, protocol_cold: false },
      ]),
    ).toBe(
      ' Where the bytes came from, as each receipt records it (run.cold_from_cache): 2 from the network (1 of them full protocol colds, counted; the others left out), 1 served from a cache (left out), 1 not recorded (left out).',
    );
    expect(cacheSentence([{ from_cache: null, protocol_cold: false }])).toMatch(/None of these receipts records/);
  });
});

describe('axes chosen for the data', () => {
  const bar = (label: string, total: number): StackedRow => ({
    label,
    segments: [
      { value: total * 0.1, color: '#000', name: 'fetch' },
      { value: total * 0.9, color: '#111', name: 'session' },
    ],
    note: '',
  });

  it('draws cold bars on a log axis, said on the axis, when they span more than a decade', () => {
    const wide = stackedBarsSvg('w', [bar('a', 726), bar('b', 40_000)], 't', 'd', 'milliseconds');
    expect(wide.log).toBe(true);
    expect(wide.svg).toContain('>milliseconds (log scale)</text>');
    for (const tick of ['100', '1000', '10000']) expect(wide.svg).toContain(`>${tick}</text>`);
    // The 726 ms bar is not a sliver: at least a fifth of the 40 s bar's length.
    const widths = [...wide.svg.matchAll(/<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)" height="13"/g)].map(
      (m) => Number(m[1]) + Number(m[2]),
    );
    expect(Math.max(widths[0], widths[1]) / Math.max(widths[2], widths[3])).toBeGreaterThan(0.2);
    const near = stackedBarsSvg('n', [bar('a', 20_000), bar('b', 40_000)], 't', 'd', 'milliseconds');
    expect(near.log).toBe(false);
    expect(near.svg).not.toContain('log scale');
    expect(near.svg).toContain('>0</text>');
  });

  it('uses a log axis for warm samples and run order past a decade, and says so', () => {
    const marks = (v: number) => ({ median: v, p95: v, p25: v, p75: v, min: v, max: v, interval: null });
    expect(
      distributionRowsSvg(
        'd',
        [
          { label: 'a', samples: [1], marks: marks(1) },
          { label: 'b', samples: [11], marks: marks(11) },
        ],
        't',
        'd',
        'ms',
      ).log,
    ).toBe(true);
    expect(
      distributionRowsSvg(
        'd',
        [
          { label: 'a', samples: [1], marks: marks(1) },
          { label: 'b', samples: [9], marks: marks(9) },
        ],
        't',
        'd',
        'ms',
      ).log,
    ).toBe(false);
    const order = (samples: number[]) =>
      runOrderSvg('o', [{ label: '1', samples, firstFifth: null, lastFifth: null }], 't', 'd', 'ms');
    expect(order([0.2, 0.3, 40])).toContain('>ms (log scale)</text>');
    expect(order([2, 3, 4])).not.toContain('log scale');
  });

  it('puts legend entries that would not fit the chart on a line of their own', () => {
    const segments = [
      { value: 10, color: '#000', name: 'WebAssembly memory' },
      { value: 5, color: '#111', name: 'GPU buffers (peak live)' },
    ];
    const { svg } = stackedBarsSvg('m', [{ label: 'a', segments, note: '' }], 't', 'd', 'MiB');
    const legendY = [
      ...svg.matchAll(/<text x="[\d.]+" y="(\d+)">(WebAssembly memory|GPU buffers \(peak live\))</g),
    ].map((m) => m[1]);
    expect(legendY).toEqual(['16', '32']);
  });

  it('wraps chart notes at clause ends, never inside an entity', () => {
    const lines = wrapText('total 40185 ms; cache: served from a cache (left out)');
    expect(lines).toEqual(['total 40185 ms;', 'cache: served from a cache (left out)']);
    const markup = wrapText(`${'&lt;img&gt; '.repeat(20)}end`);
    for (const line of markup) expect(line).not.toMatch(/&[a-z]*$|^[a-z]*;/);
  });
});

describe('the report on the captured receipts plus colliding targets', () => {
  it('labels every target of a chart uniquely, states failures and cache as recorded, and shows no n = 0 card', async () => {
    const dir = testTempDir('drb-readable-');
    // Two targets on the captured wasm ×2 route of the tiny model that differ only by their app build.
    for (const commit of ['c'.repeat(40), 'd'.repeat(40)]) {
      const receipt = buildReceipt({ kind: 'warm', threads: 2, commit });
      writeFileSync(join(dir, `${receipt.receipt_id}.json`), JSON.stringify(receipt));
    }
    const { file } = await writeReport([FIXTURE_DIR, dir], join(dir, 'out'));
    const html = readFileSync(file, 'utf8');
    const svgs = html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
    expect(svgs.length).toBeGreaterThan(5);
    for (const svg of svgs) {
      // A row label is bold text: one text element, or the first lines of a wrapped one (joined here).
      const labels = [...svg.matchAll(/<text x="10" y="[\d.]+" font-weight="600">([^<]*)<\/text>/g)].map((m) => m[1]);
      expect(new Set(labels).size, labels.join(' | ')).toBe(labels.length);
    }
    const routeCells = [...html.matchAll(/data-label="route and what sets it apart"><span class="v">([^<]*)</g)].map(
      (m) => m[1],
    );
    expect(routeCells.length).toBeGreaterThan(8);
    expect(new Set(routeCells).size).toBe(routeCells.length);
    // The captured wasm ×2 target and the two built ones: told apart by their app builds.
    expect(routeCells.filter((c) => c.startsWith('wasm ×2 · ort-tiny-xenc · app'))).toHaveLength(3);
    expect(html).not.toContain('not recorded by receipts of this version');
    expect(html).toMatch(/\(run\.cold_from_cache\): [1-9]\d* from the network \(\d+ of them full protocol colds/);
    expect(html).not.toContain('unknown stage');
    expect(html).not.toContain('→none');
    expect(html).toContain('failed at setup: stage setup did not finish within its time limit of 500 ms');
    expect(html).toContain('failed at session: WebGPU is not available');
    expect(html).not.toMatch(/n = 0\b/);
    expect(html).toContain('no clean ok cold run, so no median or p95.');
  });
});
