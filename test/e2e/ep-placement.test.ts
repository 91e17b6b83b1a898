/**
 * Where the work ran and what memory it took, through the page in Chromium with the SwiftShader WebGPU adapter:
 * a webgpu receipt of the fixture with an operator the WebGPU EP lacks reports its CPU nodes by operator type, and its
 * counts equal ONNX Runtime's own verbose "Node placements" log of the same session (`ort_log=verbose` prints it to the
 * console); the fixture that runs whole on WebGPU reports none; the heavy fixture's receipts carry the runtime's
 * WebAssembly memory, the page's and worker's measureUserAgentSpecificMemory points, and on WebGPU the GPU buffer bytes,
 * at least its weights.
 */
import { readFileSync } from 'node:fs';
import onnxProto from 'onnx-proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CPU_PROVIDER, WEBGPU_PROVIDER } from '../../src/core/receipt/ep-placement.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { pageQuery, pageReceipts, receiptProblems, startPageEnv, type PageEnv } from './page-harness.ts';

let env: PageEnv;
beforeAll(async () => {
  env = await startPageEnv({ webgpu: true });
});
afterAll(async () => {
  await env?.close();
});

/** The bytes of a generated fixture's initializers (its weights), read from the committed graph. */
function weightBytes(model: string): number {
  const graph = onnxProto.onnx.ModelProto.decode(
    readFileSync(new URL(`../../public/models/${model}/model.onnx`, import.meta.url)),
  ).graph!;
  return (graph.initializer ?? []).reduce((sum, t) => sum + (t.rawData?.length ?? 0), 0);
}

/** One cold run; returns the receipt (valid and ok) and the console lines the page printed. */
async function coldReceipt(
  settings: Parameters<typeof pageQuery>[0],
): Promise<{ receipt: DeviceReceipt; console: string[] }> {
  const page = await env.browser.context.newPage();
  const lines: string[] = [];
  page.on('console', (message) => lines.push(message.text()));
  await page.goto(`${env.server.url}${pageQuery({ autorun: ['cold'], ...settings })}`);
  const { state } = await openAndWaitOn(page);
  const [receipt] = await pageReceipts(page);
  await page.close();
  expect(state).toBe('done');
  expect(receiptProblems(receipt)).toEqual([]);
  expect(receipt.outcome.status).toBe('ok');
  return { receipt, console: lines };
}

async function openAndWaitOn(page: Awaited<ReturnType<PageEnv['browser']['context']['newPage']>>) {
  await page.waitForFunction(() => ['done', 'failed'].includes(document.documentElement.dataset.drbState ?? ''), null, {
    timeout: 150_000,
    polling: 100,
  });
  return { state: await page.evaluate(() => document.documentElement.dataset.drbState ?? '') };
}

describe('where the work ran (placement)', () => {
  it("a webgpu receipt of an operator the WebGPU EP lacks reports its CPU nodes by type, as ORT's own log counts them", async () => {
    const { receipt, console: lines } = await coldReceipt({
      model: 'ort-cpu-op-xenc',
      ep: 'webgpu',
      ortLog: 'verbose',
    });
    expect(receipt.route.completed_ep).toBe('webgpu');
    const placement = receipt.placement!;
    expect(placement).toMatchObject({
      source: 'ort-profiler',
      partial_fallback: true,
      cpu_nodes: 2,
      cpu_ops: [{ op: 'LogSoftmax', count: 2 }],
    });
    // ORT's verbose log of the same session, printed by the worker for ort_log=verbose (its Node placements lines).
    const summary = lines.find((l) => l.startsWith('[drb ort log] summary '));
    expect(summary, lines.filter((l) => l.includes('drb ort log')).join('\n')).toBeDefined();
    const logged = JSON.parse(summary!.slice('[drb ort log] summary '.length)) as Array<{
      provider: string;
      nodes: number;
      ops: Record<string, number>;
    }>;
    const counted = Object.fromEntries(placement.sessions[0].providers.map((p) => [p.provider, p.nodes]));
    expect(Object.fromEntries(logged.map((p) => [p.provider, p.nodes]))).toEqual(counted);
    expect(logged.find((p) => p.provider === CPU_PROVIDER)?.ops).toEqual({ LogSoftmax: 2 });
    expect(counted[WEBGPU_PROVIDER]).toBeGreaterThan(10);
    expect(lines.some((l) => /Node\(s\) placed on \[CPUExecutionProvider\]\. Number of nodes: 2/.test(l))).toBe(true);
    // The profile itself never reaches the console; the receipt says the verbose log was on.
    expect(lines.some((l) => l.includes('"cat" : "Node"'))).toBe(false);
    expect(receipt.errors.map((e) => e.name)).toContain('OrtVerboseLog');
  });

  it('a fixture that runs whole on WebGPU reports no CPU node', async () => {
    const { receipt } = await coldReceipt({ model: 'ort-webgpu-xenc', ep: 'webgpu' });
    expect(receipt.placement).toMatchObject({ partial_fallback: false, cpu_nodes: 0, cpu_ops: [], total_nodes: 17 });
    expect(receipt.placement!.sessions[0].providers).toEqual([
      { provider: WEBGPU_PROVIDER, nodes: 17, kernel_ms: expect.any(Number) },
    ]);
    expect(receipt.errors.map((e) => e.name)).not.toContain('OrtVerboseLog');
  });
});

describe('the memory the model really took', () => {
  it("records the runtime's WebAssembly memory and the page's and worker's memory points on wasm, and GPU buffers at least the weights on WebGPU", async () => {
    const weights = weightBytes('ort-heavy-xenc');
    expect(weights).toBeGreaterThan(2_500_000);
    const { receipt: wasm } = await coldReceipt({ model: 'ort-heavy-xenc', ep: 'wasm' });
    const m = wasm.memory!;
    // ORT's WebAssembly build starts with a 16 MiB memory, which this 2.6 MB model fits into: it need not grow.
    expect(m.wasm.before_load_bytes).toBe(16 * 1024 * 1024);
    expect(m.wasm.after_session_bytes).toBeGreaterThanOrEqual(m.wasm.before_load_bytes!);
    expect(m.wasm.after_last_run_bytes).toBeGreaterThanOrEqual(m.wasm.after_session_bytes!);
    expect(m.gpu_buffers).toMatchObject({
      after_session: null,
      not_available: expect.stringMatching(/^not available: the route ran on the CPU/),
    });
    // Chromium measures page and worker (the worker's part of the page's measurement); the model's heap is the worker's.
    expect(m.ua_specific.page.before_load?.bytes).toBeGreaterThan(0);
    expect(m.ua_specific.worker.after_last_run?.bytes).toBeGreaterThan(m.wasm.after_session_bytes!);
    const { receipt: gpu } = await coldReceipt({ model: 'ort-heavy-xenc', ep: 'webgpu' });
    expect(gpu.placement).toMatchObject({ partial_fallback: true, cpu_ops: [{ op: 'Cast', count: 1 }] });
    const buffers = gpu.memory!.gpu_buffers;
    expect(buffers.not_available).toBeNull();
    expect(buffers.after_session!.live_bytes).toBeGreaterThanOrEqual(weights);
    expect(buffers.peak_live_bytes).toBeGreaterThanOrEqual(buffers.after_last_run!.live_bytes);
    expect(buffers.after_last_run!.allocated_bytes).toBeGreaterThanOrEqual(buffers.after_last_run!.live_bytes);
  });
});
