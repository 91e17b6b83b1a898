/**
 * The textual form of a comparison's routes, as the `routes` URL parameter and the UI write it:
 * `wasm-<threads>` (ORT/transformers on WebAssembly with that many threads) or `webgpu`, comma-separated,
 * e.g. `wasm-1,wasm-2,webgpu`. The text of each route is also its id in the receipt. A route may be listed again
 * with a one-letter suffix (`wasm-1,wasm-1-b`): the same route twice, an A/A comparison that measures the noise.
 */

/** One parsed route. */
export interface RouteSpec {
  id: string;
  ep: 'wasm' | 'webgpu';
  threads: number | null;
}

/** The routes a comparison runs when none are given: WASM with 1 thread (the baseline), with 2 threads, and WebGPU.
 *  One definition, used by the automation defaults and by the compare panel alike. */
export const DEFAULT_COMPARISON_ROUTES: readonly RouteSpec[] = Object.freeze([
  Object.freeze({ id: 'wasm-1', ep: 'wasm', threads: 1 }),
  Object.freeze({ id: 'wasm-2', ep: 'wasm', threads: 2 }),
  Object.freeze({ id: 'webgpu', ep: 'webgpu', threads: null }),
] as RouteSpec[]);

/** What a route list must look like, for error messages. */
export const ROUTE_SPEC_EXPECTED =
  'a comma-separated list of 2 to 6 distinct routes, each wasm-<threads 1..64> or webgpu';

/**
 * Parses a route list; null when it is not valid (the caller reports ROUTE_SPEC_EXPECTED). Spaces around each route
 * are dropped (`wasm-1, wasm-2` is `wasm-1,wasm-2`).
 * @param raw e.g. `wasm-1,wasm-2,webgpu`
 */
export function parseRouteSpec(raw: string): RouteSpec[] | null {
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length < 2 || parts.length > 6 || new Set(parts).size !== parts.length) return null;
  const routes: RouteSpec[] = [];
  for (const part of parts) {
    if (/^webgpu(-[a-z])?$/.test(part)) {
      routes.push({ id: part, ep: 'webgpu', threads: null });
      continue;
    }
    const match = /^wasm-([1-9]\d?)(-[a-z])?$/.exec(part);
    if (!match || Number(match[1]) > 64) return null;
    routes.push({ id: part, ep: 'wasm', threads: Number(match[1]) });
  }
  return routes;
}
