/**
 * The Pareto front of quality against warm latency: the rows no other row beats on both at once (at least as good
 * on both, better on one). A row on the front is a fair choice for some trade-off; a row off it has a better
 * alternative in the same track. Pure arithmetic on the numbers given.
 */

/** One row's position: higher quality is better, lower latency is better. */
export interface ParetoPoint {
  key: string;
  quality: number;
  latencyMs: number;
}

/**
 * Whether `a` dominates `b`: at least as good on both axes and strictly better on one.
 * @param a a point
 * @param b another point
 */
export function dominates(a: ParetoPoint, b: ParetoPoint): boolean {
  return a.quality >= b.quality && a.latencyMs <= b.latencyMs && (a.quality > b.quality || a.latencyMs < b.latencyMs);
}

/**
 * The keys of the points on the front, in order of latency (fastest first; equal points both stay on it).
 * @param points the rows with both a quality and a latency
 */
export function paretoFront(points: readonly ParetoPoint[]): string[] {
  return points
    .filter((p) => !points.some((q) => q !== p && dominates(q, p)))
    .sort((a, b) => a.latencyMs - b.latencyMs || b.quality - a.quality || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((p) => p.key);
}
