/**
 * The memory a model really takes, as the receipt's `memory` records it (docs/receipt.md "Memory"): only what the
 * browser measured, each figure null with the reason where the browser does not give it, never an estimate.
 *
 * - `wasm`: the runtime's own WebAssembly memory (`memory.buffer.byteLength` of the `WebAssembly.Memory` the runtime
 *   instantiated with: onnxruntime-web's heap, where a wasm route keeps the weights and every activation). Readable in
 *   every browser, Safari included; WebAssembly memory only grows, so a later figure is never below an earlier one.
 * - `ua_specific`: `performance.measureUserAgentSpecificMemory()` in the page and in the worker (cross-origin-isolated
 *   Chromium only; it includes WebAssembly memory and the JS heap of the context and what it reaches). The browser
 *   measures at its next garbage collection, not when asked: each point says when it was asked and when it resolved.
 * - `gpu_buffers`: the bytes of every GPUBuffer the runtime created on a GPUDevice the page handed it, whose
 *   `createBuffer` and `destroy` the worker observed (allocated in total, live at a point, the peak of live).
 */
import { z } from 'zod';
import { Detail } from '../text/bounded-text.ts';

const Bytes = z.number().int().nonnegative();
const Ms = z.number().finite().nonnegative();

/** The runtime's WebAssembly memory at the points of a run (bytes), or why it could not be read. */
export const WasmMemory = z.strictObject({
  /** When the runtime was instantiated, before any model byte entered it (null when this run loaded nothing: a warm
   *  run on a live session). */
  before_load_bytes: Bytes.nullable(),
  /** Right after the session was created (the model's weights are in it on a wasm route). */
  after_session_bytes: Bytes.nullable(),
  /** After the run's last inference. */
  after_last_run_bytes: Bytes.nullable(),
  /** Warm runs: growth from before the first timed run to after the last (0 when the heap held); null for cold. */
  warm_growth_bytes: Bytes.nullable(),
  /** Why the figures are null (`not available: ...`); null when they were read. */
  not_available: Detail.nullable(),
});
export type WasmMemory = z.infer<typeof WasmMemory>;

/** One `measureUserAgentSpecificMemory()` result: total bytes, the WebAssembly part of the breakdown, and when it was
 *  asked for and resolved (page clock, ms). */
export const UaMemoryPoint = z.strictObject({
  bytes: Bytes,
  /** The breakdown entries whose types include `WebAssembly` (null when the browser gave no such entry). */
  wasm_bytes: Bytes.nullable(),
  requested_at_ms: Ms,
  resolved_at_ms: Ms,
});
export type UaMemoryPoint = z.infer<typeof UaMemoryPoint>;

/** The three points of one context (page or worker); a null point was not reached or did not resolve in time. */
export const UaMemoryPoints = z.strictObject({
  before_load: UaMemoryPoint.nullable(),
  after_session: UaMemoryPoint.nullable(),
  after_last_run: UaMemoryPoint.nullable(),
  not_available: Detail.nullable(),
});
export type UaMemoryPoints = z.infer<typeof UaMemoryPoints>;

/** GPU buffers at one point: bytes allocated so far, bytes and buffers still live (created and not destroyed). */
export const GpuBufferPoint = z.strictObject({
  allocated_bytes: Bytes,
  live_bytes: Bytes,
  live_buffers: z.number().int().nonnegative(),
});
export type GpuBufferPoint = z.infer<typeof GpuBufferPoint>;

/** The GPU buffers the runtime created on the observed device. */
export const GpuBuffers = z.strictObject({
  after_session: GpuBufferPoint.nullable(),
  after_last_run: GpuBufferPoint.nullable(),
  /** The most bytes live at once so far. */
  peak_live_bytes: Bytes.nullable(),
  /** Warm runs: live bytes after the last timed run minus before the first (negative when buffers were freed). */
  warm_growth_bytes: z.number().int().nullable(),
  not_available: Detail.nullable(),
});
export type GpuBuffers = z.infer<typeof GpuBuffers>;

/** The receipt's `memory` section. */
export const MemoryFigures = z.strictObject({
  wasm: WasmMemory,
  ua_specific: z.strictObject({ page: UaMemoryPoints, worker: UaMemoryPoints }),
  gpu_buffers: GpuBuffers,
});
export type MemoryFigures = z.infer<typeof MemoryFigures>;

/** The words every unavailable figure starts with. */
export const NOT_AVAILABLE = 'not available';

/**
 * A `not_available` reason: "not available: <why>".
 * @param why what the browser or engine lacks
 */
export function notAvailable(why: string): string {
  return `${NOT_AVAILABLE}: ${why}`;
}

/** Empty figures of one context, unavailable for `why`. */
export function uaPointsUnavailable(why: string): UaMemoryPoints {
  return { before_load: null, after_session: null, after_last_run: null, not_available: notAvailable(why) };
}

/** Memory figures where nothing was measured (a run that ended before its worker answered), for `why`. */
export function memoryUnavailable(why: string): MemoryFigures {
  return {
    wasm: {
      before_load_bytes: null,
      after_session_bytes: null,
      after_last_run_bytes: null,
      warm_growth_bytes: null,
      not_available: notAvailable(why),
    },
    ua_specific: { page: uaPointsUnavailable(why), worker: uaPointsUnavailable(why) },
    gpu_buffers: {
      after_session: null,
      after_last_run: null,
      peak_live_bytes: null,
      warm_growth_bytes: null,
      not_available: notAvailable(why),
    },
  };
}

/**
 * The most WebAssembly memory a receipt saw (the figure the memory budget judges: WebAssembly memory never shrinks,
 * so the last figure read is the largest), or null when none was read.
 * @param memory the receipt's memory section (absent in receipts written before it existed)
 */
export function peakWasmBytes(memory: MemoryFigures | undefined): number | null {
  if (memory === undefined) return null;
  const figures = [
    memory.wasm.before_load_bytes,
    memory.wasm.after_session_bytes,
    memory.wasm.after_last_run_bytes,
  ].filter((v): v is number => v !== null);
  return figures.length === 0 ? null : Math.max(...figures);
}

/**
 * The most memory the model took that the browser measured: WebAssembly memory plus the peak of live GPU buffers,
 * or null when neither was measured.
 * @param memory the receipt's memory section
 */
export function measuredModelBytes(memory: MemoryFigures | undefined): number | null {
  const wasm = peakWasmBytes(memory);
  const gpu = memory?.gpu_buffers.peak_live_bytes ?? null;
  if (wasm === null && gpu === null) return null;
  return (wasm ?? 0) + (gpu ?? 0);
}
