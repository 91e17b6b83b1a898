/**
 * `performance.measureUserAgentSpecificMemory()` at the points of a run (the receipt's `memory.ua_specific`), for the
 * page and for the bench worker. Chromium offers it only to cross-origin-isolated windows (not to dedicated workers:
 * `typeof performance.measureUserAgentSpecificMemory` is `undefined` there), and a window's measurement covers the
 * workers it started: its breakdown attributes each entry to a scope, `Window` or `DedicatedWorkerGlobalScope`. So the
 * page asks once per point and splits the result: the worker's figure is the part Chromium attributes to dedicated
 * workers, the page's figure the rest (its own JS heap, DOM and shared memory).
 *
 * Chromium measures at its next garbage collection, not when asked (at most about 20 s later; at once with
 * `--enable-blink-features=ForceEagerMeasureMemory`, which the e2e browsers use). A result that arrives after the run
 * has moved on to its next point describes a later state, so it is dropped (null, with the reason); the last point
 * waits for its result at most `LAST_POINT_WAIT_MS`. Each kept point records when it was asked for and when it resolved.
 */
import {
  notAvailable,
  uaPointsUnavailable,
  type UaMemoryPoint,
  type UaMemoryPoints,
} from '../core/receipt/memory-figures.ts';

/** The points of a run, in order. */
export type UaPoint = 'before_load' | 'after_session' | 'after_last_run';
const POINTS: readonly UaPoint[] = ['before_load', 'after_session', 'after_last_run'];

/** How long the receipt waits for the last point's measurement after the run. */
export const LAST_POINT_WAIT_MS = 3000;

interface Breakdown {
  bytes: number;
  types: string[];
  attribution: Array<{ scope?: string }>;
}
interface MemoryResult {
  bytes: number;
  breakdown: Breakdown[];
}

/** This page's measure function, or why there is none. */
function measurer(): (() => Promise<MemoryResult>) | string {
  const measure = (performance as Performance & { measureUserAgentSpecificMemory?: () => Promise<MemoryResult> })
    .measureUserAgentSpecificMemory;
  if (typeof measure !== 'function')
    return 'this browser has no performance.measureUserAgentSpecificMemory() (Chromium only)';
  if (!self.crossOriginIsolated)
    return 'the page is not cross-origin isolated, which measureUserAgentSpecificMemory() needs';
  return () => measure.call(performance);
}

/** One point's measurement in flight. */
interface Pending {
  point: UaPoint;
  requestedAtMs: number;
  result: Promise<{ value: MemoryResult; resolvedAtMs: number } | { error: string }>;
}

/** The split of one result: page and worker parts. */
function split(
  value: MemoryResult,
  requestedAtMs: number,
  resolvedAtMs: number,
): { page: UaMemoryPoint; worker: UaMemoryPoint | null } {
  const inWorker = (b: Breakdown) => b.attribution.some((a) => a.scope === 'DedicatedWorkerGlobalScope');
  const sum = (entries: Breakdown[]) => entries.reduce((total, b) => total + b.bytes, 0);
  const wasm = (entries: Breakdown[]) => {
    const w = entries.filter((b) => b.types.includes('WebAssembly'));
    return w.length === 0 ? null : sum(w);
  };
  const worker = value.breakdown.filter(inWorker);
  const page = value.breakdown.filter((b) => !inWorker(b));
  const point = (entries: Breakdown[]) => ({
    bytes: Math.round(sum(entries)),
    wasm_bytes: wasm(entries),
    requested_at_ms: requestedAtMs,
    resolved_at_ms: resolvedAtMs,
  });
  return { page: point(page), worker: worker.length === 0 ? null : point(worker) };
}

/** A run's measurements: `mark` at each point, `finish` when the run has ended. */
export class UaMemoryProbe {
  private readonly measure = measurer();
  private readonly pending: Pending[] = [];

  /**
   * Asks for a measurement at `point` (nothing happens where the browser has none).
   * @param point the run's point
   */
  mark(point: UaPoint): void {
    if (typeof this.measure === 'string') return;
    const requestedAtMs = performance.now();
    const result = this.measure().then(
      (value) => ({ value, resolvedAtMs: performance.now() }),
      (error: unknown) => ({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
    );
    this.pending.push({ point, requestedAtMs, result });
  }

  /**
   * The receipt's `memory.ua_specific`: each point kept only when it resolved before the run reached its next point.
   * @returns page and worker points
   */
  async finish(): Promise<{ page: UaMemoryPoints; worker: UaMemoryPoints }> {
    if (typeof this.measure === 'string')
      return { page: uaPointsUnavailable(this.measure), worker: uaPointsUnavailable(this.measure) };
    const page: UaMemoryPoints = { before_load: null, after_session: null, after_last_run: null, not_available: null };
    const worker: UaMemoryPoints = {
      before_load: null,
      after_session: null,
      after_last_run: null,
      not_available: null,
    };
    const why = new Set<string>();
    // Every measurement gets until LAST_POINT_WAIT_MS after the run's end; a result later than that is not waited for.
    const deadline = new Promise<null>((resolve) => setTimeout(() => resolve(null), LAST_POINT_WAIT_MS));
    const settledAll = await Promise.all(this.pending.map((p) => Promise.race([p.result, deadline])));
    for (const [i, p] of this.pending.entries()) {
      const settled = settledAll[i];
      const next = this.pending[i + 1];
      if (settled === null) {
        why.add(
          `a measurement did not resolve within ${LAST_POINT_WAIT_MS} ms of the run's end (Chromium measures at its next garbage collection)`,
        );
        continue;
      }
      if ('error' in settled) {
        why.add(`the browser refused a measurement (${settled.error})`);
        continue;
      }
      if (next !== undefined && settled.resolvedAtMs > next.requestedAtMs) {
        why.add(
          'a measurement resolved only after the run had moved on to its next point, so it describes a later state',
        );
        continue;
      }
      const parts = split(settled.value, p.requestedAtMs, settled.resolvedAtMs);
      page[p.point] = parts.page;
      worker[p.point] = parts.worker;
      if (parts.worker === null) why.add('a measurement attributed nothing to the bench worker');
    }
    const reason = why.size > 0 ? [...why].join('; ') : 'no point of the run was measured';
    for (const points of [page, worker]) {
      const missing = POINTS.filter((k) => points[k] === null);
      if (missing.length > 0) points.not_available = notAvailable(`${missing.join(', ')}: ${reason}`);
    }
    return { page, worker };
  }
}
