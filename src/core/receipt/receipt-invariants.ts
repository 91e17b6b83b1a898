/**
 * Invariants a receipt must hold beyond its schema: every fact it states about itself checked against its other
 * facts. The page checks a device receipt's before it offers a download; `drb receipts validate` checks them again
 * on every file. Route rules follow the "route evidence gates" idea: a receipt may only claim a route that really
 * completed, and every divergence from the request is explained.
 *
 * This is the one cross-field layer of every receipt kind: the section checks below (`checkRouteAgainstPage`,
 * `checkIntegrity`, `checkRuntimeFiles`, `checkLifecycle`, `checkCreatedAfterStart`) take the sections all kinds
 * share (route, model, runtime, capabilities, lifecycle), so generation, suite and comparison receipts run the very
 * same rules on theirs (src/core/validation/artifact-invariants.ts applies them per kind, with each kind's own
 * rules, and the rules of bundles, summaries and score reports). docs/receipts.md lists them all.
 */
import type { Capabilities, DeviceReceipt, ModelInfo, Route, RuntimeBuild, RuntimeInfo } from './receipt.ts';
import { coldFromCache } from './cache-state.ts';
import { unredactedUrlProblems } from '../text/url-scan.ts';
import { summarize } from '../stats/stats.ts';
import { checkDeviceState } from '../device/device-state.ts';
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

/** Route honesty: the completed EP has a succeeded attempt, fallback_reason is set exactly when routes diverge, and a
 *  WebGPU layout is named only by a run that completed on WebGPU. */
export function checkRoute(receipt: DeviceReceipt): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  const { route } = receipt;
  if (route.completed_ep !== null) {
    if (!route.attempts.some((a) => a.ep === route.completed_ep && a.outcome === 'succeeded')) {
      problems.push({
        path: 'route.completed_ep',
        message: `claims "${route.completed_ep}" without a succeeded attempt on it`,
      });
    }
    if (route.completed_ep !== route.requested_ep) {
      if (route.fallback_reason === null) {
        problems.push({
          path: 'route.fallback_reason',
          message: 'requested and completed EP differ but no fallback reason is given',
        });
      }
      if (!route.allow_fallback) {
        problems.push({
          path: 'route.completed_ep',
          message: 'fell back to another EP although fallback was not allowed',
        });
      }
    } else if (route.fallback_reason !== null) {
      problems.push({ path: 'route.fallback_reason', message: 'is set although the requested EP completed' });
    }
  }
  if (
    !route.attempts.some((a) => a.ep === route.requested_ep) &&
    receipt.model.integrity !== 'mismatch' &&
    receipt.route.attempts.length > 0
  ) {
    problems.push({ path: 'route.attempts', message: `the requested EP "${route.requested_ep}" was never attempted` });
  }
  if (route.webgpu_layout != null && route.completed_ep !== 'webgpu') {
    problems.push({
      path: 'route.webgpu_layout',
      message: 'names a WebGPU layout although the run did not complete on WebGPU',
    });
  }
  route.attempts.forEach((a, i) => {
    if (a.ended_at_ms < a.started_at_ms)
      problems.push({ path: `route.attempts[${i}].ended_at_ms`, message: 'is before started_at_ms' });
    if (a.outcome === 'failed' && a.reason === null)
      problems.push({ path: `route.attempts[${i}].reason`, message: 'a failed attempt needs a reason' });
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
    if (timings.warm_stats !== null)
      problems.push({ path: 'timings.warm_stats', message: 'statistics given without samples' });
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
    if (run.inferences_completed < 1)
      problems.push({ path: 'outcome.status', message: 'is "ok" but no inference completed' });
    if (route.completed_ep === null) problems.push({ path: 'outcome.status', message: 'is "ok" but no EP completed' });
    if (outcome.reason !== null || outcome.failed_stage !== null) {
      problems.push({ path: 'outcome.reason', message: 'an ok outcome carries no failure reason or stage' });
    }
    if (receipt.model.integrity === 'mismatch')
      problems.push({ path: 'outcome.status', message: 'is "ok" despite an integrity mismatch' });
    if (run.kind === 'cold' && timings.first_inference_ms === null) {
      problems.push({ path: 'timings.first_inference_ms', message: 'an ok cold run must time its first inference' });
    }
    if (run.kind === 'warm') {
      if (timings.warm_samples_ms.length === 0)
        problems.push({ path: 'timings.warm_samples_ms', message: 'an ok warm run has no samples' });
      if (run.warm_runs_requested !== null && timings.warm_samples_ms.length !== run.warm_runs_requested) {
        problems.push({
          path: 'timings.warm_samples_ms',
          message: `holds ${timings.warm_samples_ms.length} samples but ${run.warm_runs_requested} were requested`,
        });
      }
    }
    const last = receipt.status_transitions.at(-1);
    if (last && last.status !== 'done')
      problems.push({ path: 'status_transitions', message: `an ok run must end "done", not "${last.status}"` });
  } else {
    if (outcome.reason === null || outcome.reason.trim() === '')
      problems.push({ path: 'outcome.reason', message: 'a failed run must say why' });
    const last = receipt.status_transitions.at(-1);
    if (last && last.status !== 'failed')
      problems.push({ path: 'status_transitions', message: `a failed run must end "failed", not "${last.status}"` });
  }
  const expectedInferences = run.kind === 'cold' ? (timings.first_inference_ms === null ? 0 : 1) : null;
  if (expectedInferences !== null && outcome.status === 'ok' && run.inferences_completed !== expectedInferences) {
    problems.push({
      path: 'run.inferences_completed',
      message: `a cold run completes exactly one inference, not ${run.inferences_completed}`,
    });
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
    problems.push({
      path: 'runtime.build',
      message: 'is "plain", which has no WebGPU execution provider, but webgpu completed',
    });
  }
  const wasm = receipt.runtime.files.find((f) => /\.wasm$/.test(f.url));
  if (wasm === undefined)
    problems.push({ path: 'runtime.files', message: `names the ${build} build but lists no .wasm file` });
  else if (wasm.sha256 === null)
    problems.push({ path: 'runtime.files', message: `the ${build} build's .wasm has no SHA-256` });
  if (
    receipt.run.kind === 'cold' &&
    receipt.timings.session_create_ms !== null &&
    (receipt.timings.runtime_fetch_ms ?? null) === null
  ) {
    problems.push({
      path: 'timings.runtime_fetch_ms',
      message: 'a cold run that created a session on a fetched runtime says how long the fetch took',
    });
  }
  return problems;
}

/**
 * The cold start, measured and attested, kept honest: a warm receipt carries neither start facts nor attestations; a
 * cold receipt states each claim at most once, each before its run started (an attestation is about the start); the
 * time to the first result is set exactly when an inference completed and is no earlier than the run's start; and a
 * cold run that fetched its runtime under per-run URLs says so only with runtime files to show for it. Receipts made
 * before these fields existed (absent) are not checked.
 */
export function checkColdStartRecord(receipt: DeviceReceipt): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  const { run } = receipt;
  const attestations = run.attestations ?? [];
  if (run.kind === 'warm') {
    if (run.cold_start !== undefined && run.cold_start !== null)
      problems.push({ path: 'run.cold_start', message: 'a warm receipt records no cold start' });
    if (attestations.length > 0)
      problems.push({ path: 'run.attestations', message: 'a warm receipt carries no attestation about a cold start' });
    return problems;
  }
  const seen = new Set<string>();
  attestations.forEach((a, i) => {
    if (seen.has(a.claim))
      problems.push({ path: `run.attestations[${i}].claim`, message: `"${a.claim}" is stated more than once` });
    seen.add(a.claim);
    if (Date.parse(a.at) > Date.parse(run.started_at))
      problems.push({
        path: `run.attestations[${i}].at`,
        message: 'is after the run started: an attestation about the start is stated before it',
      });
  });
  const start = run.cold_start;
  if (start !== undefined && start !== null) {
    const completed = receipt.timings.first_inference_ms !== null;
    if (completed && start.navigation_to_result_ms === null)
      problems.push({
        path: 'run.cold_start.navigation_to_result_ms',
        message: 'is null although the first inference completed',
      });
    if (!completed && start.navigation_to_result_ms !== null)
      problems.push({
        path: 'run.cold_start.navigation_to_result_ms',
        message: 'is set although no inference completed',
      });
    const startedAtMs = receipt.status_transitions[0]?.at_ms ?? 0;
    if (start.navigation_to_result_ms !== null && start.navigation_to_result_ms < startedAtMs) {
      problems.push({
        path: 'run.cold_start.navigation_to_result_ms',
        message: `is ${start.navigation_to_result_ms}, before the run started (${startedAtMs})`,
      });
    }
  }
  if (receipt.runtime.fetch_method === 'per-run-url' && receipt.runtime.files.length === 0) {
    problems.push({ path: 'runtime.fetch_method', message: 'is "per-run-url" but no runtime file is listed' });
  }
  return problems;
}

/**
 * Every invariant of a device receipt, in a stable order (route, timings, outcome, resources, cache states, runtime
 * build, cold start, device state, then the cross-field facts: route against the page, integrity, runtime files,
 * cache signatures, timing facts, lifecycle, placement, memory and check; URLs anywhere last).
 */
export function checkReceiptInvariants(receipt: DeviceReceipt): InvariantProblem[] {
  const problems = [
    ...checkRoute(receipt),
    ...checkTimings(receipt),
    ...checkOutcome(receipt),
    ...checkResources(receipt),
    ...checkCacheStates(receipt),
    ...checkRuntimeBuild(receipt),
    ...checkColdStartRecord(receipt),
    ...(receipt.device_state === undefined ? [] : checkDeviceState(receipt.device_state, 'device_state')),
    ...checkRouteAgainstPage(receipt.route, receipt.capabilities, ''),
    ...checkIntegrity(receipt.model),
    ...checkRuntimeFiles(receipt.runtime),
    ...checkCacheSignatures(receipt),
    ...checkTimingFacts(receipt),
    ...checkLifecycle(receipt.lifecycle),
    ...checkPlacementMemoryAndCheck(receipt),
  ];
  // Its keys are the schema's own (no free-form record), so the shared walk's paths read as they always did here.
  problems.push(...unredactedUrlProblems(receipt));
  return problems;
}

/** The tolerance of comparisons between stage timings and totals measured on two clocks of one device, in ms. */
const CLOCK_TOLERANCE_MS = 2;

/** How far `created_at` may lie before the run's start (a wall clock stepped back by NTP during the run), in ms. */
const WALL_CLOCK_TOLERANCE_MS = 1000;

const prefixed = (prefix: string, path: string) => (prefix === '' ? path : `${prefix}.${path}`);

/**
 * The route against what the page said about itself: WebGPU cannot complete (nor an attempt on it succeed) on a page
 * that reports no `navigator.gpu`, or whose adapter request answered with no adapter (an adapter request that failed
 * or timed out, `adapter_error` set, says nothing either way); no more than one thread runs where the page is not
 * cross-origin isolated or has no SharedArrayBuffer, and never more than were requested; nothing is attempted after
 * a WebGPU attempt that succeeded (no fallback after success).
 * @param route the receipt's route section
 * @param capabilities the page's capability probe (null: not recorded, nothing to check against)
 * @param prefix the path of the section holding `route` ('' at the top level)
 * @param routePath the route's own field name in that section (`route`; '' when the section is the route itself, as
 *   a comparison receipt's `routes[n]` are)
 */
export function checkRouteAgainstPage(
  route: Pick<Route, 'completed_ep' | 'threads_requested' | 'threads_effective'> & { attempts?: Route['attempts'] },
  capabilities: Pick<Capabilities, 'cross_origin_isolated' | 'shared_array_buffer' | 'webgpu'> | null,
  prefix: string,
  routePath = 'route',
): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  const at = (field: string) => prefixed(prefix, routePath === '' ? field : `${routePath}.${field}`);
  const attempts = route.attempts ?? [];
  if (capabilities !== null) {
    const gpu = capabilities.webgpu;
    const noGpu = !gpu.navigator_gpu
      ? 'capabilities.webgpu.navigator_gpu is false'
      : !gpu.adapter_granted && gpu.adapter_error === null
        ? 'capabilities.webgpu.adapter_granted is false (the adapter request answered with no adapter)'
        : null;
    if (noGpu !== null) {
      if (route.completed_ep === 'webgpu')
        problems.push({ path: at('completed_ep'), message: `is "webgpu" on a page where ${noGpu}` });
      attempts.forEach((a, i) => {
        if (a.ep === 'webgpu' && a.outcome === 'succeeded')
          problems.push({
            path: at(`attempts[${i}].outcome`),
            message: `a WebGPU attempt succeeded on a page where ${noGpu}`,
          });
      });
    }
    const threads = route.threads_effective;
    if (threads !== null && threads > 1) {
      if (!capabilities.cross_origin_isolated) {
        problems.push({
          path: at('threads_effective'),
          message: `is ${threads}, but capabilities.cross_origin_isolated is false (a page that is not cross-origin isolated runs 1 thread)`,
        });
      } else if (!capabilities.shared_array_buffer) {
        problems.push({
          path: at('threads_effective'),
          message: `is ${threads}, but capabilities.shared_array_buffer is false (without it the runtime runs 1 thread)`,
        });
      }
    }
  }
  if (
    route.threads_effective !== null &&
    route.threads_requested !== null &&
    route.threads_effective > route.threads_requested
  ) {
    problems.push({
      path: at('threads_effective'),
      message: `is ${route.threads_effective}, more than threads_requested (${route.threads_requested})`,
    });
  }
  const succeeded = attempts.findIndex((a) => a.ep === 'webgpu' && a.outcome === 'succeeded');
  if (succeeded >= 0) {
    if (succeeded < attempts.length - 1) {
      problems.push({
        path: at(`attempts[${succeeded + 1}]`),
        message: `an attempt after the WebGPU attempt attempts[${succeeded}] succeeded (no fallback follows a success)`,
      });
    }
    if (route.completed_ep !== null && route.completed_ep !== 'webgpu') {
      problems.push({
        path: at('completed_ep'),
        message: `is "${route.completed_ep}" although the WebGPU attempt attempts[${succeeded}] succeeded`,
      });
    }
  }
  return problems;
}

/**
 * The model's integrity against its files: `verified` means every loaded file matched its pin, so each has an expected
 * SHA-256 (and byte count, where pinned) equal to what the page hashed; `not-loaded` lists no file.
 * @param model the receipt's model section
 * @param prefix the path of the section holding `model` ('' at the top level)
 */
export function checkIntegrity(model: Pick<ModelInfo, 'integrity' | 'files'>, prefix = ''): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  const at = (field: string) => prefixed(prefix, `model.${field}`);
  if (model.integrity === 'verified') {
    model.files.forEach((file, i) => {
      if (file.expected_sha256 === null) {
        problems.push({
          path: at(`files[${i}].expected_sha256`),
          message: 'is null, but model.integrity is "verified" (every file matched its pin)',
        });
      } else if (file.expected_sha256 !== file.sha256) {
        problems.push({
          path: at(`files[${i}].sha256`),
          message: `differs from expected_sha256, but model.integrity is "verified"`,
        });
      }
      if (file.expected_bytes !== null && file.expected_bytes !== file.bytes) {
        problems.push({
          path: at(`files[${i}].bytes`),
          message: `is ${file.bytes}, expected_bytes ${file.expected_bytes}, but model.integrity is "verified"`,
        });
      }
    });
  }
  if (model.integrity === 'not-loaded' && model.files.length > 0) {
    problems.push({
      path: at('integrity'),
      message: `is "not-loaded" but ${model.files.length} model file(s) are listed as loaded`,
    });
  }
  return problems;
}

// onnxruntime-web's runtime file names (Vite adds a content hash): `ort-wasm-simd-threaded[.<build>][-<hash>].{mjs,wasm}`.
const RUNTIME_FILE = /\/ort-wasm-simd-threaded(?:\.(jspi|asyncify|jsep))?(?:-[A-Za-z0-9_-]+)?\.(?:mjs|wasm)$/;

/**
 * The build a runtime file's name says it is, or null when the name is not an onnxruntime-web runtime file's.
 * @param url the file's redacted URL
 */
export function runtimeBuildOfFile(url: string): RuntimeBuild | null {
  const match = RUNTIME_FILE.exec(url);
  if (match === null) return null;
  return (match[1] as RuntimeBuild | undefined) ?? 'plain';
}

/**
 * The runtime build against the runtime files: every file whose name names a build names the one recorded; files
 * with no build recorded (null) are a contradiction; a receipt written before builds were recorded (`build` absent)
 * ran the asyncify build, the only one the page then loaded, so its files must be that build's.
 * @param runtime the receipt's runtime section (absent in receipts written before it)
 * @param prefix the path of the section holding `runtime` ('' at the top level)
 */
export function checkRuntimeFiles(runtime: RuntimeInfo | null | undefined, prefix = ''): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  if (runtime === null || runtime === undefined) return problems;
  const at = (field: string) => prefixed(prefix, `runtime.${field}`);
  if (runtime.build === null) {
    if (runtime.files.length > 0)
      problems.push({
        path: at('build'),
        message: `is null, but ${runtime.files.length} runtime file(s) are listed (which build ran is not said)`,
      });
    return problems;
  }
  const expected: RuntimeBuild = runtime.build ?? 'asyncify';
  runtime.files.forEach((file, i) => {
    const named = runtimeBuildOfFile(file.url);
    if (named !== null && named !== expected) {
      problems.push({
        path: at(`files[${i}].url`),
        message:
          runtime.build === undefined
            ? `names the ${named} build, but the receipt records no build (written when every run loaded the asyncify build)`
            : `names the ${named} build, but runtime.build is "${runtime.build}"`,
      });
    }
  });
  return problems;
}

/** A lifecycle section (device, generation and comparison receipts carry one). */
export interface LifecycleFacts {
  visibility_at_start: string;
  hidden_during_run: boolean;
  frozen_during_run: boolean;
  events: ReadonlyArray<{ type: string; at_ms: number }>;
}

/**
 * The lifecycle flags against the events the page recorded: a page that started hidden, or whose events say it went
 * hidden (`visibilitychange:hidden`, `pagehide`), was hidden during the run; a `freeze` event means it was frozen; the
 * events are in the order they happened.
 * @param lifecycle the receipt's lifecycle section
 * @param prefix the path of the section holding `lifecycle` ('' at the top level)
 */
export function checkLifecycle(lifecycle: LifecycleFacts, prefix = ''): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  const at = (field: string) => prefixed(prefix, `lifecycle.${field}`);
  if (!lifecycle.hidden_during_run) {
    if (lifecycle.visibility_at_start === 'hidden')
      problems.push({
        path: at('hidden_during_run'),
        message: 'is false, but lifecycle.visibility_at_start is "hidden"',
      });
    const hidden = lifecycle.events.findIndex((e) => e.type === 'visibilitychange:hidden' || e.type === 'pagehide');
    if (hidden >= 0)
      problems.push({
        path: at('hidden_during_run'),
        message: `is false, but lifecycle.events[${hidden}] is "${lifecycle.events[hidden].type}"`,
      });
  }
  if (!lifecycle.frozen_during_run) {
    const frozen = lifecycle.events.findIndex((e) => e.type === 'freeze');
    if (frozen >= 0)
      problems.push({
        path: at('frozen_during_run'),
        message: `is false, but lifecycle.events[${frozen}] is "freeze"`,
      });
  }
  lifecycle.events.forEach((e, i) => {
    if (i > 0 && e.at_ms < lifecycle.events[i - 1].at_ms)
      problems.push({ path: at(`events[${i}].at_ms`), message: 'goes back in time' });
  });
  return problems;
}

/**
 * A receipt is assembled at the end of its run: `created_at` is not before the run's start (beyond a wall clock
 * stepped back during the run) and not before any other start time it records.
 * @param createdAt the receipt's `created_at`
 * @param starts the start times it records, by field path
 */
export function checkCreatedAfterStart(
  createdAt: string,
  starts: ReadonlyArray<{ path: string; at: string }>,
): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  const created = Date.parse(createdAt);
  for (const start of starts) {
    const at = Date.parse(start.at);
    if (Number.isFinite(created) && Number.isFinite(at) && created < at - WALL_CLOCK_TOLERANCE_MS) {
      problems.push({ path: 'created_at', message: `is ${createdAt}, before ${start.path} (${start.at})` });
    }
  }
  return problems;
}

/** The stage timings of a device receipt with their names (nulls and absent stages left out). */
function stageTimes(receipt: DeviceReceipt): Array<[string, number]> {
  const t = receipt.timings;
  const stages: Array<[string, number | null | undefined]> = [
    ['model_fetch_ms', t.model_fetch_ms],
    ['runtime_fetch_ms', t.runtime_fetch_ms],
    ['session_create_ms', t.session_create_ms],
    ['first_inference_ms', t.first_inference_ms],
    ['warmup_ms', t.warmup_ms],
  ];
  const out = stages.filter((s): s is [string, number] => typeof s[1] === 'number');
  let samples = 0;
  for (const sample of t.warm_samples_ms) samples += sample;
  if (t.warm_samples_ms.length > 0) out.push(['warm_samples_ms', samples]);
  return out;
}

/**
 * Timings against each other and against the run: the total is not shorter than its stages; an ok run took time
 * (not a total of 0 ms, not a cold run whose fetch and session both took 0 ms); each kind times only its own
 * stages (a warm receipt no cold stage, a cold one no warm-up) and a warm run says how many samples it asked for;
 * no route attempt ends after the run's last status (`done` or `failed`); `created_at` is not before
 * `run.started_at`; an ok run loaded its model and knows its engine's version.
 */
export function checkTimingFacts(receipt: DeviceReceipt): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  const { timings, run, outcome } = receipt;
  const stages = stageTimes(receipt);
  let sum = 0;
  for (const [, value] of stages) sum += value;
  if (timings.total_ms + CLOCK_TOLERANCE_MS < sum) {
    const shown = Number.isFinite(sum) ? `${sum} ms` : 'more than any finite number of ms';
    problems.push({
      path: 'timings.total_ms',
      message: `is ${timings.total_ms} ms, shorter than its stages (${stages.map(([name]) => name).join(' + ')} = ${shown})`,
    });
  }
  if (outcome.status === 'ok') {
    if (timings.total_ms === 0)
      problems.push({ path: 'timings.total_ms', message: 'is 0 ms for an ok run (all-zero timings)' });
    else if (run.kind === 'cold' && timings.model_fetch_ms === 0 && timings.session_create_ms === 0) {
      problems.push({
        path: 'timings',
        message: 'an ok cold run whose model fetch and session creation both took 0 ms (all-zero timings)',
      });
    }
    if (receipt.model.integrity === 'not-loaded')
      problems.push({
        path: 'model.integrity',
        message: 'is "not-loaded" for an ok run (it ran a model it never loaded)',
      });
    if (receipt.engine.version === 'unknown')
      problems.push({
        path: 'engine.version',
        message: 'is "unknown" for an ok run (a loaded runtime reports its version)',
      });
  }
  if (run.kind === 'warm') {
    if (run.warm_runs_requested === null)
      problems.push({ path: 'run.warm_runs_requested', message: 'is null for a warm run (it asks for N timed runs)' });
    for (const name of ['model_fetch_ms', 'runtime_fetch_ms', 'session_create_ms', 'first_inference_ms'] as const) {
      if (typeof timings[name] === 'number')
        problems.push({
          path: `timings.${name}`,
          message: 'is timed in a warm receipt (a warm receipt times the warm-up and the samples only)',
        });
    }
  } else {
    if (run.warm_runs_requested !== null)
      problems.push({
        path: 'run.warm_runs_requested',
        message: `is ${run.warm_runs_requested} for a cold run (a cold run asks for no warm runs)`,
      });
    if (timings.warmup_ms !== null)
      problems.push({ path: 'timings.warmup_ms', message: 'is timed in a cold receipt (a cold run has no warm-up)' });
  }
  const endIndex = receipt.status_transitions.findIndex((t) => t.status === 'done' || t.status === 'failed');
  if (endIndex >= 0) {
    const end = receipt.status_transitions[endIndex];
    receipt.route.attempts.forEach((a, i) => {
      if (a.ended_at_ms > end.at_ms + CLOCK_TOLERANCE_MS) {
        problems.push({
          path: `route.attempts[${i}].ended_at_ms`,
          message: `is ${a.ended_at_ms}, after the run ended (status_transitions[${endIndex}] "${end.status}" at ${end.at_ms})`,
        });
      }
    });
    receipt.status_transitions.forEach((t, i) => {
      if (i > endIndex)
        problems.push({
          path: `status_transitions[${i}]`,
          message: `"${t.status}" after the run ended ("${end.status}" at status_transitions[${endIndex}])`,
        });
    });
  }
  problems.push(...checkCreatedAfterStart(receipt.created_at, [{ path: 'run.started_at', at: run.started_at }]));
  return problems;
}

/**
 * Files said to have crossed the network against their resource timing entries: when every entry of a file's URL
 * with visible sizes carries the HTTP cache's signature (nothing transferred for a body with bytes, or a transfer
 * smaller than the body: a revalidation), the file did not cross the network (src/core/receipt/cache-state.ts
 * decides the same way).
 */
export function checkCacheSignatures(receipt: DeviceReceipt): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  const cacheSignature = (r: DeviceReceipt['resources'][number]) =>
    r.transfer_size !== null &&
    ((r.transfer_size === 0 && (r.decoded_body_size ?? 0) > 0) ||
      (r.transfer_size > 0 && r.encoded_body_size !== null && r.transfer_size < r.encoded_body_size));
  const check = (files: ReadonlyArray<{ url: string; cache_state: string }>, section: string) =>
    files.forEach((file, i) => {
      if (file.cache_state !== 'network') return;
      const entries = receipt.resources
        .map((r, index) => ({ r, index }))
        .filter(({ r }) => r.url === file.url && !r.size_unknown);
      if (entries.length > 0 && entries.every(({ r }) => cacheSignature(r))) {
        problems.push({
          path: `${section}[${i}].cache_state`,
          message: `is "network", but its resource timing (resources[${entries[0].index}]) carries the HTTP cache's signature (transfer_size ${entries[0].r.transfer_size} for a body of ${entries[0].r.encoded_body_size ?? entries[0].r.decoded_body_size} bytes)`,
        });
      }
    });
  check(receipt.model.files, 'model.files');
  check(receipt.runtime.files, 'runtime.files');
  return problems;
}
