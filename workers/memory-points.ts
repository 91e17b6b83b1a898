/**
 * The worker's side of a receipt's `memory` (src/core/receipt/memory-figures.ts): the runtime's WebAssembly memory and
 * the observed device's GPU buffers, read at the points of a run (after the session was created, before the first
 * timed run, after the last run), as runtime-observer.ts reads them. Nothing is estimated: a figure this worker could
 * not read is null, and the section says why.
 */
import {
  notAvailable,
  type GpuBufferPoint,
  type GpuBuffers,
  type WasmMemory,
} from '../src/core/receipt/memory-figures.ts';
import {
  gpuBufferCounters,
  wasmBytesAtInstantiation,
  wasmMemoryBytes,
  type GpuBufferCounters,
} from './runtime-observer.ts';

/** A point of a run at which the worker reads memory. */
export type MemoryPoint = 'after_session' | 'before_timed_runs' | 'after_last_run';

function gpuPoint(counters: GpuBufferCounters | null): GpuBufferPoint | null {
  return counters === null
    ? null
    : { allocated_bytes: counters.allocatedBytes, live_bytes: counters.liveBytes, live_buffers: counters.liveBuffers };
}

/** Memory read at the points of the worker's current session. */
export class WorkerMemory {
  private wasm = new Map<MemoryPoint, number | null>();
  private gpu = new Map<MemoryPoint, GpuBufferPoint | null>();
  /** Why this engine's memory cannot be read here (its runtime is not ORT's WebAssembly build, it takes no device). */
  private wasmUnavailable: string | null = null;
  private gpuUnavailable: string | null = null;
  /** Whether this receipt's run loaded the session (a warm run on a live session did not). */
  private loadedThisRun = false;

  /**
   * A new session was created: the load's figures are read now.
   * @param reasons why the WebAssembly or GPU figures cannot be read for this engine and route (null: they can)
   */
  sessionCreated(reasons: { wasm: string | null; gpu: string | null }): void {
    this.wasm.clear();
    this.gpu.clear();
    this.wasmUnavailable = reasons.wasm;
    this.gpuUnavailable = reasons.gpu;
    this.loadedThisRun = true;
    this.mark('after_session');
  }

  /** A receipt's run starts on the live session (a warm run that reuses it): its load figures belong to another receipt. */
  runStarts(): void {
    this.loadedThisRun = false;
    this.wasm.delete('before_timed_runs');
    this.wasm.delete('after_last_run');
    this.gpu.delete('before_timed_runs');
    this.gpu.delete('after_last_run');
  }

  /**
   * Reads the figures at `point`.
   * @param point where the run is
   */
  mark(point: MemoryPoint): void {
    this.wasm.set(point, this.wasmUnavailable === null ? wasmMemoryBytes() : null);
    this.gpu.set(point, this.gpuUnavailable === null ? gpuPoint(gpuBufferCounters()) : null);
  }

  /**
   * The receipt's `memory.wasm` and `memory.gpu_buffers` for a run of `kind`.
   * @param kind cold (one inference) or warm (timed runs after a warm-up)
   */
  sections(kind: 'cold' | 'warm'): { wasm: WasmMemory; gpu_buffers: GpuBuffers } {
    const read = (p: MemoryPoint) => this.wasm.get(p) ?? null;
    const loaded = this.loadedThisRun;
    const before = loaded ? wasmBytesAtInstantiation() : null;
    const afterSession = loaded ? read('after_session') : null;
    const last = read('after_last_run');
    const timedStart = read('before_timed_runs');
    const wasmFigures = {
      before_load_bytes: this.wasmUnavailable === null ? before : null,
      after_session_bytes: afterSession,
      after_last_run_bytes: last,
      warm_growth_bytes: kind === 'warm' && last !== null && timedStart !== null ? last - timedStart : null,
    };
    const wasmNone = Object.values(wasmFigures).every((v) => v === null);
    const gpuAt = (p: MemoryPoint) => this.gpu.get(p) ?? null;
    const counters = this.gpuUnavailable === null ? gpuBufferCounters() : null;
    const gpuLast = gpuAt('after_last_run');
    const gpuStart = gpuAt('before_timed_runs');
    const gpuFigures = {
      after_session: loaded ? gpuAt('after_session') : null,
      after_last_run: gpuLast,
      peak_live_bytes: counters?.peakLiveBytes ?? null,
      warm_growth_bytes:
        kind === 'warm' && gpuLast !== null && gpuStart !== null ? gpuLast.live_bytes - gpuStart.live_bytes : null,
    };
    const gpuNone = Object.values(gpuFigures).every((v) => v === null);
    return {
      wasm: {
        ...wasmFigures,
        not_available: wasmNone ? notAvailable(this.wasmUnavailable ?? 'no runtime memory was read in this run') : null,
      },
      gpu_buffers: {
        ...gpuFigures,
        not_available: gpuNone ? notAvailable(this.gpuUnavailable ?? 'no GPU buffer was counted in this run') : null,
      },
    };
  }
}
