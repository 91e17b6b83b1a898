/**
 * Where the work ran and the memory it took, as receipts record them: ORT's profile and verbose log read into counts
 * (src/core/receipt/ep-placement.ts), the invariants that keep a receipt's placement and memory honest, and how
 * `drb receipts summarize` shows them beside the route and gates the memory budget on the real figures.
 */
import { describe, expect, it } from 'vitest';
import {
  CPU_PROVIDER,
  loggedPlacements,
  placementOf,
  profileNodeEvents,
  sessionPlacement,
  WEBGPU_PROVIDER,
} from '../../src/core/receipt/ep-placement.ts';
import { memoryUnavailable, type MemoryFigures } from '../../src/core/receipt/memory-figures.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import { ReceiptsSummarizer } from '../../src/core/evidence/receipts-summarizer.ts';
import { renderSummaryMarkdown } from '../../src/core/evidence/summary-markdown.ts';
import { buildReceipt } from './receipts-builder.ts';
import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeReport } from '../../src/cli/receipts-report.ts';
import { summaryCells, summaryValue } from './report-checks.ts';
import { testTempDir } from '../temp-dir.ts';
import { pageComparisonReceipt } from './receipts-fixtures.ts';
import { ComparisonReceipt } from '../../src/core/comparison/comparison-receipt.ts';
import { checkComparisonReceipt } from '../../src/core/comparison/comparison-invariants.ts';
import { comparisonVerdicts } from '../../src/core/comparison/comparison-verdict.ts';

/** A profile as onnxruntime-web 1.30 prints it on endProfiling (one event per line; `Api` events are GPU timings). */
function profileLines(nodes: Array<[string, string, string, number]>): string[] {
  const events = [
    '{"cat" : "Session","pid" :42,"tid" :1,"dur" :14390,"ts" :209,"ph" : "X","name" :"model_loading_array","args" : {}}',
    ...nodes.map(
      ([node, op, provider, dur]) =>
        `{"cat" : "Node","pid" :42,"tid" :1,"dur" :${dur},"ts" :1,"ph" : "X","name" :"${node}_kernel_time","args" : {"op_name" : "${op}","provider" : "${provider}","node_index" : "1"}}`,
    ),
    '{"cat" : "Api","pid" :42,"tid" :1,"dur" :924,"ts" :2,"ph" : "X","name" :"count&ReduceSum&ReduceSum","args" : {}}',
  ];
  return ['[', ...events.map((e, i) => (i < events.length - 1 ? `${e},` : e)), ']'];
}

const CPU_OP_PROFILE = profileLines([
  ['word_emb', 'Gather', WEBGPU_PROVIDER, 100],
  ['dense_0.act', 'Tanh', WEBGPU_PROVIDER, 100],
  ['hidden_1', 'LogSoftmax', CPU_PROVIDER, 300],
  ['hidden_2', 'LogSoftmax', CPU_PROVIDER, 200],
  ['Memcpy', 'MemcpyToHost', WEBGPU_PROVIDER, 300],
]);

describe("ORT's profile and verbose log", () => {
  it("counts each node once per provider, the CPU op types, and each provider's kernel time", () => {
    const events = profileNodeEvents(['some earlier line', ...CPU_OP_PROFILE, 'a later line']);
    expect(events).toHaveLength(5);
    const session = sessionPlacement('model', [...events, ...events]);
    expect(session).toEqual({
      session: 'model',
      providers: [
        { provider: WEBGPU_PROVIDER, nodes: 3, kernel_ms: 1 },
        { provider: CPU_PROVIDER, nodes: 2, kernel_ms: 1 },
      ],
      cpu_ops: [{ op: 'LogSoftmax', count: 2 }],
    });
    const placement = placementOf([session], 'webgpu', 'note');
    expect(placement).toMatchObject({
      total_nodes: 5,
      cpu_nodes: 2,
      partial_fallback: true,
      cpu_ops: [{ op: 'LogSoftmax', count: 2 }],
    });
    expect(placement.kernel_time_share).toEqual([
      { provider: WEBGPU_PROVIDER, share: 0.5 },
      { provider: CPU_PROVIDER, share: 0.5 },
    ]);
    // The same nodes on a wasm route are no partial fallback: the CPU is the route.
    expect(placementOf([session], 'wasm', 'note').partial_fallback).toBe(false);
  });

  it('refuses output without a profile, or a profile that is not JSON, and cleans names it cannot record', () => {
    expect(() => profileNodeEvents(['no profile here'])).toThrow(/printed no profile/);
    expect(() => profileNodeEvents(['[', '{"cat": ', ']'])).toThrow(SyntaxError);
    const hostile = profileNodeEvents(
      profileLines([['n', 'Evil\u001b[2J\nOp', 'CPUExecutionProvider', 1]]).map((l) =>
        l.replace('Evil\u001b[2J\nOp', 'Evil\\u001b[2J\\nOp'),
      ),
    );
    expect(sessionPlacement('model', hostile).cpu_ops).toEqual([{ op: 'Evil__2J_Op', count: 1 }]);
  });

  it('reads the "Node placements" blocks of ORT\'s verbose session log, summed over graphs', () => {
    const log = [
      '2026-12-03 13:09:14.544139 [V:onnxruntime:, session_state.cc:1377 VerifyEachNodeIsAssignedToAnEp] Node placements',
      '2026-12-03 13:09:14.544195 [V:onnxruntime:, session_state.cc:1383 VerifyEachNodeIsAssignedToAnEp]  Node(s) placed on [CPUExecutionProvider]. Number of nodes: 1',
      '2026-12-03 13:09:14.544379 [V:onnxruntime:, session_state.cc:1385 VerifyEachNodeIsAssignedToAnEp]   Cast (mask_f)',
      '2026-12-03 13:09:14.544410 [V:onnxruntime:, session_state.cc:1383 VerifyEachNodeIsAssignedToAnEp]  Node(s) placed on [WebGpuExecutionProvider]. Number of nodes: 2',
      '2026-12-03 13:09:14.544435 [V:onnxruntime:, session_state.cc:1385 VerifyEachNodeIsAssignedToAnEp]   Gather (word_emb)',
      '2026-12-03 13:09:14.544469 [V:onnxruntime:, session_state.cc:1385 VerifyEachNodeIsAssignedToAnEp]   MemcpyFromHost (Memcpy)',
      '2026-12-03 13:09:14.574330 [V:onnxruntime:, session_state.cc:186 CreateGraphInfo] SaveMLValueNameIndexMapping',
    ];
    const logged = loggedPlacements(log);
    expect(logged.get(CPU_PROVIDER)).toEqual({ provider: CPU_PROVIDER, nodes: 1, ops: new Map([['Cast', 1]]) });
    expect(logged.get(WEBGPU_PROVIDER)?.nodes).toBe(2);
    expect([...logged.get(WEBGPU_PROVIDER)!.ops]).toEqual([
      ['Gather', 1],
      ['MemcpyFromHost', 1],
    ]);
  });
});

const PLACEMENT = placementOf(
  [sessionPlacement('model', profileNodeEvents(CPU_OP_PROFILE))],
  'webgpu',
  'counted from the profile of the first run',
);

/** Memory figures a webgpu route's cold receipt measured. */
function measured(): MemoryFigures {
  return {
    wasm: {
      before_load_bytes: 20_000_000,
      after_session_bytes: 30_000_000,
      after_last_run_bytes: 31_000_000,
      warm_growth_bytes: null,
      not_available: null,
    },
    ua_specific: memoryUnavailable('this browser has no performance.measureUserAgentSpecificMemory() (Chromium only)')
      .ua_specific,
    gpu_buffers: {
      after_session: { allocated_bytes: 3_000_000, live_bytes: 2_500_000, live_buffers: 20 },
      after_last_run: { allocated_bytes: 3_100_000, live_bytes: 2_600_000, live_buffers: 22 },
      peak_live_bytes: 2_700_000,
      warm_growth_bytes: null,
      not_available: null,
    },
  };
}

/** A valid webgpu cold receipt with placement and memory (the builder's wasm receipt, moved onto webgpu). */
function webgpuReceipt(edit: (r: DeviceReceipt) => void = () => {}): DeviceReceipt {
  const r = buildReceipt({ kind: 'cold', ep: 'webgpu' });
  // A page that was granted an adapter (SwiftShader's), as a webgpu route needs.
  r.capabilities.webgpu = {
    navigator_gpu: true,
    adapter_granted: true,
    adapter_error: null,
    adapter_info: { vendor: 'google', architecture: 'swiftshader', device: '', description: '' },
    is_fallback_adapter: true,
    features: [],
    limits: {},
  };
  r.placement = structuredClone(PLACEMENT);
  r.memory = measured();
  edit(r);
  return r;
}

function problems(r: DeviceReceipt): string[] {
  return validateReceipt(JSON.parse(JSON.stringify(r))).problems.map((p) => `${p.path}: ${p.message}`);
}

describe('placement and memory invariants', () => {
  it('accept a consistent receipt, and one whose browser gave no figure with the reason', () => {
    expect(problems(webgpuReceipt())).toEqual([]);
    expect(
      problems(
        webgpuReceipt((r) => (r.memory = memoryUnavailable('the run ended before the worker reported its memory'))),
      ),
    ).toEqual([]);
  });

  it.each<[string, (r: DeviceReceipt) => void, RegExp]>([
    [
      'a webgpu receipt hiding its CPU nodes',
      (r) => (r.placement!.partial_fallback = false),
      /placement\.partial_fallback: is false but the route completed on webgpu with 2 CPU node/,
    ],
    [
      "a total that is not the sessions' sum",
      (r) => (r.placement!.total_nodes = 4),
      /placement\.total_nodes: is 4, the sessions hold 5/,
    ],
    [
      'CPU op counts that do not add up',
      (r) => (r.placement!.cpu_ops = [{ op: 'LogSoftmax', count: 1 }]),
      /placement\.cpu_ops: count 1 nodes, cpu_nodes is 2/,
    ],
    [
      'WebLLM claiming a profiler',
      (r) => (r.engine.name = 'webllm'),
      /placement\.source: WebLLM has no ONNX Runtime profiler/,
    ],
    [
      'WebAssembly memory that shrinks',
      (r) => (r.memory!.wasm.after_last_run_bytes = 1),
      /memory\.wasm: shrinks from one point to the next/,
    ],
    [
      'a figure missing without a reason',
      (r) =>
        (r.memory!.wasm = {
          ...r.memory!.wasm,
          before_load_bytes: null,
          after_session_bytes: null,
          after_last_run_bytes: null,
        }),
      /memory\.wasm\.not_available: is set exactly when/,
    ],
    [
      'GPU buffers on a route that ran on the CPU',
      (r) => {
        r.route.completed_ep = 'wasm';
        r.route.requested_ep = 'wasm';
        r.route.attempts = r.route.attempts.map((a) => ({ ...a, ep: 'wasm' }));
        r.placement!.partial_fallback = false;
      },
      /memory\.gpu_buffers: holds figures although the route completed on wasm/,
    ],
    [
      'live bytes above the peak',
      (r) => (r.memory!.gpu_buffers.peak_live_bytes = 1),
      /memory\.gpu_buffers\.peak_live_bytes: is below the after_session live bytes/,
    ],
    [
      'warm growth on a cold receipt',
      (r) => (r.memory!.wasm.warm_growth_bytes = 0),
      /memory\.wasm\.warm_growth_bytes: a cold receipt has no warm runs/,
    ],
  ])('refuse %s', (_name, edit, message) => {
    expect(problems(webgpuReceipt(edit)).join('\n')).toMatch(message);
  });

  it('refuse a check that contradicts itself', () => {
    const r = webgpuReceipt(
      (x) => (x.check = { kind: 'vad-threshold', passed: true, cases: 3, cases_passed: 2, values: [] }),
    );
    expect(problems(r)).toEqual(['check.passed: is true but 2 of 3 cases passed']);
  });
});

describe('drb receipts summarize: placement and memory', () => {
  it('shows where the work ran beside the route, and gates the memory budget on the measured figures', async () => {
    const s = new ReceiptsSummarizer();
    const gpu = [webgpuReceipt(), webgpuReceipt()];
    const old = buildReceipt({ kind: 'cold', ep: 'wasm' });
    delete old.memory;
    delete old.placement;
    for (const r of [...gpu, old]) s.addReceipt(r);
    const summary = await s.finish();
    const t = summary.targets.find((x) => x.identity.route.requested_ep === 'webgpu')!;
    expect(t.placement).toMatchObject({
      source: 'ort-profiler',
      receipts: 2,
      partial_fallback_receipts: 2,
      total_nodes: 5,
      cpu_nodes: 2,
      cpu_ops: [{ op: 'LogSoftmax', count: 2 }],
    });
    expect(t.memory).toEqual({
      measured_bytes: 31_000_000 + 2_700_000,
      wasm_peak_bytes: 31_000_000,
      gpu_peak_live_bytes: 2_700_000,
      receipts_measured: 2,
      not_available: [],
    });
    const mainstream = t.profiles.find((p) => p.profile === 'mainstream')!;
    expect(mainstream.gates.find((g) => g.gate === 'memory_bytes')).toMatchObject({
      status: 'pass',
      measured: 33_700_000,
      limit: 1_073_741_824,
    });
    const wasm = summary.targets.find((x) => x.identity.route.requested_ep === 'wasm')!;
    expect(wasm.memory).toMatchObject({
      measured_bytes: null,
      receipts_measured: 0,
      not_available: [{ count: 1, reason: expect.stringMatching(/written before the page recorded them/) }],
    });
    const md = renderSummaryMarkdown(summary);
    expect(md).toContain('| webgpu (2/5 nodes on CPU: LogSoftmax x2) |');
    expect(md).toContain(
      '- Where the work ran (ORT profiler, first run): 5 nodes, 2 on the CPU (LogSoftmax x2); partial fallback to the CPU in 2 of 2 receipt(s)',
    );
    expect(md).toContain(
      '- Memory the model took (largest in one receipt): 33.7 MB = WebAssembly 31.0 MB + GPU buffers 2.7 MB, measured in 2 receipt(s)',
    );
    expect(md).toContain(
      `Targets with no measured memory figure (the memory budget gate is not measured for them): ${wasm.key}`,
    );
  });

  it('draws the memory beside the times in the report, every number from summary.json', async () => {
    const dir = testTempDir('drb-placement-report-');
    mkdirSync(join(dir, 'in'));
    [webgpuReceipt(), webgpuReceipt()].forEach((r, i) =>
      writeFileSync(join(dir, 'in', `r${i}.json`), JSON.stringify(r)),
    );
    const { file, data } = await writeReport([join(dir, 'in')], join(dir, 'report'));
    const html = readFileSync(file, 'utf8');
    const figure = html.slice(
      html.indexOf('data-chart="memory-time"'),
      html.indexOf('</figure>', html.indexOf('data-chart="memory-time"')),
    );
    expect(figure).toContain('<svg');
    expect(figure).toContain('32.1 MiB; cold p95');
    expect(figure).toContain('2 of 5 nodes on the CPU (partial fallback)');
    const [t] = data.summary.targets;
    const cells = summaryCells(figure);
    expect(cells.map((c) => c.path)).toEqual(
      expect.arrayContaining([
        `targets.${t.key}.memory.measured_bytes`,
        `targets.${t.key}.memory.gpu_peak_live_bytes`,
        `targets.${t.key}.placement.cpu_nodes`,
      ]),
    );
    for (const { path, value } of cells) expect(summaryValue(data.summary, path), path).toBe(Number(value));
  });
});

describe('comparisons: where each route ran', () => {
  const cpuOnly = placementOf(
    [
      sessionPlacement(
        'model',
        profileNodeEvents(
          profileLines([
            ['a', 'Gather', CPU_PROVIDER, 1],
            ['b', 'LogSoftmax', CPU_PROVIDER, 1],
          ]),
        ),
      ),
    ],
    'wasm',
    'n',
  );
  it('says in the verdict when a webgpu route ran nodes on the CPU, and refuses a route hiding it', () => {
    const receipt = pageComparisonReceipt();
    for (const route of receipt.routes)
      route.placement = route.completed_ep === 'webgpu' ? structuredClone(PLACEMENT) : structuredClone(cpuOnly);
    const parsed = ComparisonReceipt.parse(JSON.parse(JSON.stringify(receipt)));
    expect(checkComparisonReceipt(parsed)).toEqual([]);
    const lead = comparisonVerdicts(parsed).lead.join('\n');
    expect(lead).toMatch(
      /Where the work ran: the routes differ in where their work ran \(wasm-1: all 2 nodes on the CPU; .*webgpu: 2 of 5 nodes on the CPU \(LogSoftmax x2\)\)/,
    );
    const gpu = parsed.routes.find((r) => r.completed_ep === 'webgpu')!;
    gpu.placement!.partial_fallback = false;
    expect(checkComparisonReceipt(parsed)).toEqual([
      {
        path: `routes[${parsed.routes.indexOf(gpu)}].placement.partial_fallback`,
        message: 'is false but the route completed on webgpu with 2 CPU node(s)',
      },
    ]);
    // Routes that ran where their EP says (no CPU node on webgpu) get no such line.
    for (const route of parsed.routes)
      route.placement =
        route.completed_ep === 'webgpu'
          ? { ...PLACEMENT, cpu_nodes: 0, cpu_ops: [], partial_fallback: false }
          : structuredClone(cpuOnly);
    expect(comparisonVerdicts(parsed).lead.join('\n')).not.toContain('Where the work ran');
  });
});
