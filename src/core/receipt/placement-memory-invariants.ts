/**
 * Invariants of a device receipt's `placement`, `memory` and `check` (kept apart from receipt-invariants.ts, which
 * calls `checkPlacementMemoryAndCheck` once): the partial-fallback flag agrees with the route and the counts, every
 * total is the sum of its parts, WebAssembly memory never shrinks, a figure the browser did not give says why, and a
 * check is consistent with itself and with the output it judged.
 */
import type { DeviceReceipt } from './receipt.ts';
import { CPU_PROVIDER, WEBGPU_PROVIDER, type Placement } from './ep-placement.ts';
import type { MemoryFigures } from './memory-figures.ts';
import { outputCheckProblems } from '../catalog/output-check.ts';

/** One broken invariant: the field path and what is wrong. */
interface Problem {
  path: string;
  message: string;
}

function placementProblems(receipt: DeviceReceipt, placement: Placement): Problem[] {
  const problems: Problem[] = [];
  const at = 'placement';
  const engine = receipt.engine.name;
  if (placement.source === 'webgpu-by-construction') {
    if (engine !== 'webllm')
      problems.push({
        path: `${at}.source`,
        message: `only WebLLM runs everything on WebGPU by construction, not ${engine}`,
      });
    if (placement.total_nodes !== 0 || placement.sessions.length > 0)
      problems.push({
        path: `${at}.sessions`,
        message: 'nothing is counted for an engine that compiles the whole model to WebGPU',
      });
  } else if (engine === 'webllm') {
    problems.push({ path: `${at}.source`, message: 'WebLLM has no ONNX Runtime profiler' });
  }
  let total = 0;
  let cpu = 0;
  placement.sessions.forEach((s, i) => {
    const cpuNodes = s.providers.filter((p) => p.provider === CPU_PROVIDER).reduce((sum, p) => sum + p.nodes, 0);
    const cpuOps = s.cpu_ops.reduce((sum, o) => sum + o.count, 0);
    if (cpuOps !== cpuNodes)
      problems.push({
        path: `${at}.sessions[${i}].cpu_ops`,
        message: `count ${cpuOps} nodes, the CPU provider ran ${cpuNodes}`,
      });
    if (new Set(s.providers.map((p) => p.provider)).size !== s.providers.length)
      problems.push({ path: `${at}.sessions[${i}].providers`, message: 'names a provider twice' });
    total += s.providers.reduce((sum, p) => sum + p.nodes, 0);
    cpu += cpuNodes;
    if (
      receipt.route.completed_ep === 'wasm' &&
      s.providers.some((p) => p.provider === WEBGPU_PROVIDER && p.nodes > 0)
    ) {
      problems.push({
        path: `${at}.sessions[${i}].providers`,
        message: 'a wasm route ran nodes on the WebGPU provider',
      });
    }
  });
  if (placement.source === 'ort-profiler') {
    if (placement.total_nodes !== total)
      problems.push({ path: `${at}.total_nodes`, message: `is ${placement.total_nodes}, the sessions hold ${total}` });
    if (placement.cpu_nodes !== cpu)
      problems.push({
        path: `${at}.cpu_nodes`,
        message: `is ${placement.cpu_nodes}, the sessions ran ${cpu} on the CPU`,
      });
  }
  const ops = placement.cpu_ops.reduce((sum, o) => sum + o.count, 0);
  if (ops !== placement.cpu_nodes)
    problems.push({ path: `${at}.cpu_ops`, message: `count ${ops} nodes, cpu_nodes is ${placement.cpu_nodes}` });
  if (placement.cpu_nodes > placement.total_nodes)
    problems.push({ path: `${at}.cpu_nodes`, message: 'is more than total_nodes' });
  const expected = receipt.route.completed_ep === 'webgpu' && placement.cpu_nodes > 0;
  if (placement.partial_fallback !== expected) {
    problems.push({
      path: `${at}.partial_fallback`,
      message: `is ${placement.partial_fallback} but the route completed on ${receipt.route.completed_ep ?? 'no EP'} with ${placement.cpu_nodes} CPU node(s)`,
    });
  }
  const shares = placement.kernel_time_share.reduce((sum, s) => sum + s.share, 0);
  if (placement.kernel_time_share.length > 0 && Math.abs(shares - 1) > 1e-6)
    problems.push({ path: `${at}.kernel_time_share`, message: `shares add up to ${shares}, not 1` });
  return problems;
}

function memoryProblems(receipt: DeviceReceipt, memory: MemoryFigures): Problem[] {
  const problems: Problem[] = [];
  const { wasm, gpu_buffers: gpu } = memory;
  const wasmFigures = [
    wasm.before_load_bytes,
    wasm.after_session_bytes,
    wasm.after_last_run_bytes,
    wasm.warm_growth_bytes,
  ];
  if (wasmFigures.every((v) => v === null) !== (wasm.not_available !== null)) {
    problems.push({
      path: 'memory.wasm.not_available',
      message: 'is set exactly when no WebAssembly memory figure was read',
    });
  }
  const ordered = [wasm.before_load_bytes, wasm.after_session_bytes, wasm.after_last_run_bytes].filter(
    (v): v is number => v !== null,
  );
  if (ordered.some((v, i) => i > 0 && v < ordered[i - 1]))
    problems.push({
      path: 'memory.wasm',
      message: 'shrinks from one point to the next: WebAssembly memory only grows',
    });
  if (receipt.run.kind === 'cold' && wasm.warm_growth_bytes !== null)
    problems.push({ path: 'memory.wasm.warm_growth_bytes', message: 'a cold receipt has no warm runs' });
  if (receipt.run.kind === 'cold' && gpu.warm_growth_bytes !== null)
    problems.push({ path: 'memory.gpu_buffers.warm_growth_bytes', message: 'a cold receipt has no warm runs' });
  const gpuFigures = [gpu.after_session, gpu.after_last_run, gpu.peak_live_bytes, gpu.warm_growth_bytes];
  if (gpuFigures.every((v) => v === null) !== (gpu.not_available !== null)) {
    problems.push({
      path: 'memory.gpu_buffers.not_available',
      message: 'is set exactly when no GPU buffer figure was read',
    });
  }
  if (receipt.route.completed_ep !== 'webgpu' && gpuFigures.some((v) => v !== null)) {
    problems.push({
      path: 'memory.gpu_buffers',
      message: `holds figures although the route completed on ${receipt.route.completed_ep ?? 'no EP'}`,
    });
  }
  for (const key of ['after_session', 'after_last_run'] as const) {
    const point = gpu[key];
    if (point === null) continue;
    if (point.live_bytes > point.allocated_bytes)
      problems.push({ path: `memory.gpu_buffers.${key}.live_bytes`, message: 'is more than was ever allocated' });
    if (gpu.peak_live_bytes !== null && point.live_bytes > gpu.peak_live_bytes)
      problems.push({ path: 'memory.gpu_buffers.peak_live_bytes', message: `is below the ${key} live bytes` });
  }
  for (const context of ['page', 'worker'] as const) {
    const points = memory.ua_specific[context];
    const values = [points.before_load, points.after_session, points.after_last_run];
    if (values.every((v) => v === null) && points.not_available === null) {
      problems.push({ path: `memory.ua_specific.${context}.not_available`, message: 'no point was measured: say why' });
    }
    values.forEach((v, i) => {
      if (v !== null && v.resolved_at_ms < v.requested_at_ms)
        problems.push({
          path: `memory.ua_specific.${context}`,
          message: `point ${i + 1} resolved before it was asked for`,
        });
      if (v !== null && v.wasm_bytes !== null && v.wasm_bytes > v.bytes)
        problems.push({
          path: `memory.ua_specific.${context}`,
          message: `point ${i + 1}'s WebAssembly bytes exceed its total`,
        });
    });
  }
  return problems;
}

/**
 * The invariants of `placement`, `memory` and `check` (each checked only when present: older receipts lack them).
 * @param receipt a receipt that passed the schema
 */
export function checkPlacementMemoryAndCheck(receipt: DeviceReceipt): Problem[] {
  const problems: Problem[] = [];
  if (receipt.placement) problems.push(...placementProblems(receipt, receipt.placement));
  if (receipt.memory) problems.push(...memoryProblems(receipt, receipt.memory));
  if (receipt.check) {
    problems.push(...outputCheckProblems(receipt.check));
    if (receipt.output === null) problems.push({ path: 'check', message: 'a check needs the output it judged' });
  }
  return problems;
}
