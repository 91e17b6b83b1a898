/**
 * Invariants a device receipt must hold beyond its schema. The page checks them before it offers a download;
 * `drb receipts validate` checks them again on every file. Route rules follow the "route evidence gates" idea:
 * a receipt may only claim a route that really completed, and every divergence from the request is explained.
 */
import type { DeviceReceipt } from './receipt.ts';
import { coldFromCache } from './cache-state.ts';
import { containsUnredactedUrl } from '../text/redact.ts';
import { summarize } from '../stats/stats.ts';
import { checkPlacementMemoryAndCheck } from './placement-memory-invariants.ts';

/** One broken invariant: the field path (dot/bracket notation) and what is wrong. */
export interface InvariantProblem {
  path: string;
  message: string;
}

const STAT_TOLERANCE = 1e-6;

function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= STAT_TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));
}

/** Walks every string in `value` and reports URLs that still carry a query, a fragment or credentials. */
function findUnredactedUrls(value: unknown, path: string, problems: InvariantProblem[]): void {
  if (typeof value === 'string') {
    if (containsUnredactedUrl(value)) problems.push({ path, message: 'holds a URL with a query, fragment or credentials' });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => findUnredactedUrls(item, `${path}[${index}]`, problems));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) findUnredactedUrls(item, path ? `${path}.${key}` : key, problems);
  }
}

/** Route honesty: the completed EP has a succeeded attempt, and fallback_reason is set exactly when routes diverge. */
export function checkRoute(receipt: DeviceReceipt): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  const { route } = receipt;
  if (route.completed_ep !== null) {
    if (!route.attempts.some((a) => a.ep === route.completed_ep && a.outcome === 'succeeded')) {
      problems.push({ path: 'route.completed_ep', message: `claims "${route.completed_ep}" without a succeeded attempt on it` });
    }
    if (route.completed_ep !== route.requested_ep) {
      if (route.fallback_reason === null) {
        problems.push({ path: 'route.fallback_reason', message: 'requested and completed EP differ but no fallback reason is given' });
      }
      if (!route.allow_fallback) {
        problems.push({ path: 'route.completed_ep', message: 'fell back to another EP although fallback was not allowed' });
      }
    } else if (route.fallback_reason !== null) {
      problems.push({ path: 'route.fallback_reason', message: 'is set although the requested EP completed' });
    }
  }
  if (!route.attempts.some((a) => a.ep === route.requested_ep) && receipt.model.integrity !== 'mismatch' && receipt.route.attempts.length > 0) {
    problems.push({ path: 'route.attempts', message: `the requested EP "${route.requested_ep}" was never attempted` });
  }
  route.attempts.forEach((a, i) => {
    if (a.ended_at_ms < a.started_at_ms) problems.push({ path: `route.attempts[${i}].ended_at_ms`, message: 'is before started_at_ms' });
    if (a.outcome === 'failed' && a.reason === null) problems.push({ path: `route.attempts[${i}].reason`, message: 'a failed attempt needs a reason' });
  });
  return problems;
}

/** Warm statistics must be exactly what the samples give; a cold receipt holds no warm samples. */
export function checkTimings(receipt: DeviceReceipt): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  const { timings, run } = receipt;
  if (run.kind === 'cold' && timings.warm_samples_ms.length > 0) {
    problems.push({ path: 'timings.warm_samples_ms', message: 'a cold receipt must not hold warm samples' });
  }
  const recomputed = summarize(timings.warm_samples_ms);
  if (recomputed === null) {
    if (timings.warm_stats !== null) problems.push({ path: 'timings.warm_stats', message: 'statistics given without samples' });
  } else if (timings.warm_stats === null) {
    problems.push({ path: 'timings.warm_stats', message: 'samples given without statistics' });
  } else {
    for (const key of ['count', 'median', 'p95', 'min', 'max', 'mean'] as const) {
      if (!close(timings.warm_stats[key], recomputed[key])) {
        problems.push({
          path: `timings.warm_stats.${key}`,
          message: `is ${timings.warm_stats[key]} but the samples give ${recomputed[key]}`,
        });
      }
    }
  }
  return problems;
}

/** An ok receipt completed at least one inference on a completed route, with every stage it claims timed. */
export function checkOutcome(receipt: DeviceReceipt): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  const { outcome, run, timings, route } = receipt;
  if (outcome.status === 'ok') {
    if (run.inferences_completed < 1) problems.push({ path: 'outcome.status', message: 'is "ok" but no inference completed' });
    if (route.completed_ep === null) problems.push({ path: 'outcome.status', message: 'is "ok" but no EP completed' });
    if (outcome.reason !== null || outcome.failed_stage !== null) {
      problems.push({ path: 'outcome.reason', message: 'an ok outcome carries no failure reason or stage' });
    }
    if (receipt.model.integrity === 'mismatch') problems.push({ path: 'outcome.status', message: 'is "ok" despite an integrity mismatch' });
    if (run.kind === 'cold' && timings.first_inference_ms === null) {
      problems.push({ path: 'timings.first_inference_ms', message: 'an ok cold run must time its first inference' });
    }
    if (run.kind === 'warm') {
      if (timings.warm_samples_ms.length === 0) problems.push({ path: 'timings.warm_samples_ms', message: 'an ok warm run has no samples' });
      if (run.warm_runs_requested !== null && timings.warm_samples_ms.length !== run.warm_runs_requested) {
        problems.push({
          path: 'timings.warm_samples_ms',
          message: `holds ${timings.warm_samples_ms.length} samples but ${run.warm_runs_requested} were requested`,
        });
      }
    }
    const last = receipt.status_transitions.at(-1);
    if (last && last.status !== 'done') problems.push({ path: 'status_transitions', message: `an ok run must end "done", not "${last.status}"` });
  } else {
    if (outcome.reason === null || outcome.reason.trim() === '') problems.push({ path: 'outcome.reason', message: 'a failed run must say why' });
    const last = receipt.status_transitions.at(-1);
    if (last && last.status !== 'failed') problems.push({ path: 'status_transitions', message: `a failed run must end "failed", not "${last.status}"` });
  }
  const expectedInferences = run.kind === 'cold' ? (timings.first_inference_ms === null ? 0 : 1) : null;
  if (expectedInferences !== null && outcome.status === 'ok' && run.inferences_completed !== expectedInferences) {
    problems.push({ path: 'run.inferences_completed', message: `a cold run completes exactly one inference, not ${run.inferences_completed}` });
  }
  receipt.status_transitions.forEach((t, i) => {
    if (i > 0 && t.at_ms < receipt.status_transitions[i - 1].at_ms) {
      problems.push({ path: `status_transitions[${i}].at_ms`, message: 'goes back in time' });
    }
  });
  return problems;
}

/** Resource sizes: an unknown size is null, never zero. */
export function checkResources(receipt: DeviceReceipt): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  receipt.resources.forEach((r, i) => {
    if (r.size_unknown && (r.transfer_size !== null || r.encoded_body_size !== null || r.decoded_body_size !== null)) {
      problems.push({ path: `resources[${i}]`, message: 'sizes marked unknown must be null' });
    }
    if (!r.size_unknown && r.transfer_size === null) {
      problems.push({ path: `resources[${i}].transfer_size`, message: 'is null but not marked size_unknown' });
    }
  });
  return problems;
}

/**
 * Cache honesty: a cold receipt's `cold_from_cache` is exactly what its files' cache states give (a receipt cannot
 * call itself truly cold while a file came from a cache), a warm receipt's is null, and an `unknown` state says why.
 */
export function checkCacheStates(receipt: DeviceReceipt): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  const files = [...receipt.model.files, ...receipt.runtime.files];
  const expected = receipt.run.kind === 'cold' ? coldFromCache(files) : null;
  if (receipt.run.cold_from_cache !== expected) {
    problems.push({
      path: 'run.cold_from_cache',
      message: `is ${receipt.run.cold_from_cache} but the ${receipt.run.kind === 'cold' ? "files' cache states give" : 'run kind (warm) needs'} ${expected}`,
    });
  }
  const unexplained = (list: ReadonlyArray<{ cache_state: string; cache_note: string | null }>, section: string) =>
    list.forEach((f, i) => {
      if (f.cache_state === 'unknown' && (f.cache_note === null || f.cache_note.trim() === '')) {
        problems.push({ path: `${section}[${i}].cache_note`, message: 'an unknown cache state must say why' });
      }
    });
  unexplained(receipt.model.files, 'model.files');
  unexplained(receipt.runtime.files, 'runtime.files');
  return problems;
}

/**
 * The runtime build agrees with the route: the plain build has no WebGPU execution provider, so a receipt that says
 * WebGPU completed on it is wrong; a named build lists the `.wasm` it ran with its SHA-256 (the worker read it);
 * an ORT receipt that fetched the runtime says when (`runtime_fetch_ms`) on a cold run that reached the session.
 * Receipts written before the build was recorded (no `build`) are not checked.
 */
export function checkRuntimeBuild(receipt: DeviceReceipt): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  const build = receipt.runtime.build;
  if (build === undefined || build === null) return problems;
  if (build === 'plain' && receipt.route.completed_ep === 'webgpu') {
    problems.push({ path: 'runtime.build', message: 'is "plain", which has no WebGPU execution provider, but webgpu completed' });
  }
  const wasm = receipt.runtime.files.find((f) => /\.wasm$/.test(f.url));
  if (wasm === undefined) problems.push({ path: 'runtime.files', message: `names the ${build} build but lists no .wasm file` });
  else if (wasm.sha256 === null) problems.push({ path: 'runtime.files', message: `the ${build} build's .wasm has no SHA-256` });
  if (receipt.run.kind === 'cold' && receipt.timings.session_create_ms !== null && (receipt.timings.runtime_fetch_ms ?? null) === null) {
    problems.push({ path: 'timings.runtime_fetch_ms', message: 'a cold run that created a session on a fetched runtime says how long the fetch took' });
  }
  return problems;
}

/** Every invariant, in a stable order (route, timings, outcome, resources, cache states, runtime build, URLs anywhere). */
export function checkReceiptInvariants(receipt: DeviceReceipt): InvariantProblem[] {
  const problems = [
    ...checkRoute(receipt),
    ...checkTimings(receipt),
    ...checkOutcome(receipt),
    ...checkResources(receipt),
    ...checkCacheStates(receipt),
    ...checkRuntimeBuild(receipt),
    ...checkPlacementMemoryAndCheck(receipt),
  ];
  findUnredactedUrls(receipt, '', problems);
  return problems;
}
