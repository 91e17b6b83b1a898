/**
 * What the bench worker observes of the runtime it hosts, without changing what the runtime computes:
 *
 * - **Its console output.** onnxruntime-web's WebAssembly module binds `console.log` / `console.error` when the
 *   runtime is instantiated (its first session) and prints through them: its log, and the profile `endProfiling()`
 *   writes. `installConsoleCapture()` (called first thing by the worker entry, before any runtime exists) puts a
 *   forwarding function in their place, so `capture()` can collect what the runtime prints during one call (the
 *   profile: hundreds of lines for a real model) instead of it flooding the page's console. Outside a capture every
 *   line goes to the console as before.
 * - **Its WebAssembly memory.** `installWasmMemoryWatch()` wraps `WebAssembly.instantiate` and
 *   `instantiateStreaming`; once `armWasmMemoryWatch()` was called (by an ORT-backed load, just before its first
 *   session), the next module instantiated is the runtime: its `WebAssembly.Memory` (exported, or imported by the
 *   threaded build) is kept and its size read at once, before any model byte is copied in. `wasmMemoryBytes()`
 *   reads `memory.buffer.byteLength` of that same object whenever asked: the runtime's own memory, not an estimate.
 * - **Its GPU buffers.** `observedGpuDevice()` requests a GPUDevice (every feature and the adapter's own limits, so
 *   the runtime can do on it whatever it would on a device of its own) whose `createBuffer` and the created buffers'
 *   `destroy` count bytes: allocated in total, live now, the peak of live. onnxruntime-web takes such a device in
 *   its WebGPU execution provider options (`{ name: 'webgpu', device }`); transformers.js passes `session_options`
 *   through to it; WebLLM requests its own device and takes none.
 */
type ConsoleMethod = 'log' | 'error' | 'warn' | 'info' | 'debug';
const METHODS: readonly ConsoleMethod[] = ['log', 'error', 'warn', 'info', 'debug'];

/** Where captured lines go while a capture runs (null: lines go to the console). */
let sink: string[] | null = null;
let consoleInstalled = false;

/**
 * Replaces the console methods with forwarders that honour `capture()`. Idempotent; call before the runtime is
 * instantiated (it binds the console methods then).
 */
export function installConsoleCapture(): void {
  if (consoleInstalled) return;
  consoleInstalled = true;
  for (const method of METHODS) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      if (sink !== null) {
        // Each argument as the console would print it; the runtime prints one string per line.
        for (const line of args
          .map((a) => (typeof a === 'string' ? a : String(a)))
          .join(' ')
          .split('\n'))
          sink.push(line);
        return;
      }
      original(...args);
    };
  }
}

/**
 * Runs `call` while collecting every console line it (and the runtime) prints, and returns them with its result.
 * Lines printed by other code meanwhile are collected too: keep `call` short (one `endProfiling()`).
 * @param call the call whose output to collect
 */
export async function capture<T>(call: () => Promise<T> | T): Promise<{ value: T; lines: string[] }> {
  const outer = sink;
  const lines: string[] = [];
  sink = lines;
  try {
    const value = await call();
    return { value, lines };
  } finally {
    sink = outer;
  }
}

/**
 * Prints lines to the console unchanged (outside any capture), for a developer who asked for the runtime's log.
 * @param lines the lines
 */
export function printLines(lines: readonly string[]): void {
  const outer = sink;
  sink = null;
  try {
    for (const line of lines) console.info(line);
  } finally {
    sink = outer;
  }
}

let wasmWatchInstalled = false;
let wasmArmed = false;
let runtimeMemory: WebAssembly.Memory | null = null;
/** The runtime memory's size when the runtime was instantiated (before any model byte entered it). */
let instantiatedBytes: number | null = null;

/** The first WebAssembly.Memory among an instance's exports or (the threaded build) its imports. */
function memoryOf(instance: WebAssembly.Instance, imports: unknown): WebAssembly.Memory | null {
  for (const value of Object.values(instance.exports)) if (value instanceof WebAssembly.Memory) return value;
  if (imports !== null && typeof imports === 'object') {
    for (const namespace of Object.values(imports as Record<string, unknown>)) {
      if (namespace === null || typeof namespace !== 'object') continue;
      for (const value of Object.values(namespace as Record<string, unknown>))
        if (value instanceof WebAssembly.Memory) return value;
    }
  }
  return null;
}

function noteInstance(instance: WebAssembly.Instance, imports: unknown): void {
  if (!wasmArmed || runtimeMemory !== null) return;
  const memory = memoryOf(instance, imports);
  if (memory === null) return;
  wasmArmed = false;
  runtimeMemory = memory;
  instantiatedBytes = memory.buffer.byteLength;
}

/** Wraps `WebAssembly.instantiate` / `instantiateStreaming` so an armed watch catches the runtime's memory. Idempotent. */
export function installWasmMemoryWatch(): void {
  if (wasmWatchInstalled || typeof WebAssembly === 'undefined') return;
  wasmWatchInstalled = true;
  const instantiate = WebAssembly.instantiate.bind(WebAssembly) as (
    source: unknown,
    imports?: unknown,
  ) => Promise<unknown>;
  (WebAssembly as { instantiate: unknown }).instantiate = async (source: unknown, imports?: unknown) => {
    const result = await instantiate(source, imports);
    const instance =
      result instanceof WebAssembly.Instance ? result : (result as { instance: WebAssembly.Instance }).instance;
    noteInstance(instance, imports);
    return result;
  };
  if (typeof WebAssembly.instantiateStreaming === 'function') {
    const streaming = WebAssembly.instantiateStreaming.bind(WebAssembly);
    (WebAssembly as { instantiateStreaming: unknown }).instantiateStreaming = async (
      source: Response | PromiseLike<Response>,
      imports?: WebAssembly.Imports,
    ) => {
      const result = await streaming(source, imports);
      noteInstance(result.instance, imports);
      return result;
    };
  }
}

/** Marks the next instantiated module as the runtime (an ORT-backed load calls it before its first session). */
export function armWasmMemoryWatch(): void {
  if (runtimeMemory === null) wasmArmed = true;
}

/** The runtime's WebAssembly memory now (bytes), or null when no runtime was instantiated in this worker. */
export function wasmMemoryBytes(): number | null {
  return runtimeMemory === null ? null : runtimeMemory.buffer.byteLength;
}

/** The runtime memory's size when it was instantiated, or null when none was seen. */
export function wasmBytesAtInstantiation(): number | null {
  return instantiatedBytes;
}

/** The GPU buffer counters of the observed device. */
export interface GpuBufferCounters {
  allocatedBytes: number;
  liveBytes: number;
  liveBuffers: number;
  peakLiveBytes: number;
}

/** The part of a GPUDevice this module touches. */
interface DeviceLike {
  createBuffer(descriptor: { size: number }): { destroy(): void; size?: number };
}

let gpuCounters: GpuBufferCounters | null = null;

/** The observed device's counters (null when no device was handed out in this worker). */
export function gpuBufferCounters(): GpuBufferCounters | null {
  return gpuCounters === null ? null : { ...gpuCounters };
}

/**
 * Instruments a device's `createBuffer` (and each buffer's `destroy`) to count bytes; returns the same device.
 * @param device the device to observe
 */
export function observeDevice<D extends DeviceLike>(device: D): D {
  const counters: GpuBufferCounters = { allocatedBytes: 0, liveBytes: 0, liveBuffers: 0, peakLiveBytes: 0 };
  gpuCounters = counters;
  const create = device.createBuffer.bind(device);
  device.createBuffer = (descriptor) => {
    const buffer = create(descriptor);
    const bytes = Number(descriptor.size) || 0;
    counters.allocatedBytes += bytes;
    counters.liveBytes += bytes;
    counters.liveBuffers += 1;
    counters.peakLiveBytes = Math.max(counters.peakLiveBytes, counters.liveBytes);
    const destroy = buffer.destroy.bind(buffer);
    let destroyed = false;
    buffer.destroy = () => {
      if (!destroyed) {
        destroyed = true;
        counters.liveBytes -= bytes;
        counters.liveBuffers -= 1;
      }
      destroy();
    };
    return buffer;
  };
  return device;
}

/** The adapter and device calls `observedGpuDevice` makes. */
interface GpuLike {
  requestAdapter(options?: { powerPreference?: string }): Promise<{
    features: Iterable<string>;
    limits: Record<string, number> & object;
    requestDevice(descriptor: {
      requiredFeatures: string[];
      requiredLimits: Record<string, number>;
    }): Promise<DeviceLike>;
  } | null>;
}

/**
 * A GPUDevice for the runtime, observed (`observeDevice`): requested from a high-performance adapter with every
 * feature the adapter has and its own limits (what onnxruntime-web asks for on a device of its own is a subset).
 * @throws Error when this context has no WebGPU adapter
 */
export async function observedGpuDevice(): Promise<unknown> {
  const gpu = (globalThis.navigator as (Navigator & { gpu?: GpuLike }) | undefined)?.gpu;
  if (!gpu) throw new Error('WebGPU is not available in this context');
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error('no WebGPU adapter was granted');
  const requiredLimits: Record<string, number> = {};
  // GPUSupportedLimits keeps its limits as prototype getters: walk the prototype for their names.
  const proto = Object.getPrototypeOf(adapter.limits) as object;
  for (const name of [...Object.keys(adapter.limits), ...Object.getOwnPropertyNames(proto)]) {
    const value = (adapter.limits as Record<string, unknown>)[name];
    if (typeof value === 'number') requiredLimits[name] = value;
  }
  const device = await adapter.requestDevice({ requiredFeatures: [...adapter.features], requiredLimits });
  return observeDevice(device);
}
