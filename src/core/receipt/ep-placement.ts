/**
 * Where the work of a session really ran: which execution provider ONNX Runtime assigned each node of the graph to,
 * read from ORT's own profiler (the receipt's `placement`, docs/receipt.md "Where the work ran").
 *
 * ORT assigns every node to an execution provider when it creates a session; nodes the WebGPU EP has no kernel for
 * (and the shape ops ORT keeps on the CPU on purpose) run on the CPU EP inside the same "webgpu" session. The
 * profiler (session option `enableProfiling`) records one event per node it ran, with the node's `op_name`, its
 * `provider` and its duration; `session.endProfiling()` prints them as one JSON array on the runtime's standard
 * output. The worker captures those lines (workers/runtime-observer.ts) and this module turns them into counts.
 * Pure: the unit tests feed it captured output.
 */
import { z } from 'zod';
import { Detail, Identifier, Token } from '../text/bounded-text.ts';

/** ORT's name for its CPU execution provider (the `wasm` route's EP, and every fallback node of a `webgpu` route). */
export const CPU_PROVIDER = 'CPUExecutionProvider';
/** ORT's name for its WebGPU execution provider (the native one in the JSPI and asyncify builds). */
export const WEBGPU_PROVIDER = 'WebGpuExecutionProvider';

const Ms = z.number().finite().nonnegative();
const Count = z.number().int().nonnegative();

/** An operator type and how many nodes of it ran on the CPU. */
export const OpCount = z.strictObject({ op: Token, count: z.number().int().positive() });
export type OpCount = z.infer<typeof OpCount>;

/** One provider's share of a session: its nodes and the profiled run's kernel time on it (null where not timed). */
export const ProviderNodes = z.strictObject({
  provider: Token,
  nodes: Count,
  kernel_ms: Ms.nullable(),
});
export type ProviderNodes = z.infer<typeof ProviderNodes>;

/** One ORT session's placement (an engine may hold several: an encoder and a decoder). */
export const SessionPlacement = z.strictObject({
  /** The session's name in its engine (`model` for the ORT engine; transformers.js's session names). */
  session: Identifier,
  /** Nodes per execution provider, the provider with most nodes first. */
  providers: z.array(ProviderNodes).max(16),
  /** The operator types of the nodes that ran on the CPU, with their counts (most first, then by name). */
  cpu_ops: z.array(OpCount).max(512),
});
export type SessionPlacement = z.infer<typeof SessionPlacement>;

/**
 * The receipt's `placement`: where every node ran, per session and in total, and whether a `webgpu` route ran any of
 * its nodes on the CPU (`partial_fallback`, with the numbers beside it).
 */
export const Placement = z.strictObject({
  /** `ort-profiler`: counted from ORT's profiler over the profiled run; `webgpu-by-construction`: an engine (WebLLM)
   *  that compiles the whole model into WebGPU shaders, so no node can run elsewhere and nothing is counted. */
  source: z.enum(['ort-profiler', 'webgpu-by-construction']),
  /** What the numbers cover, in words (which run was profiled; why nothing is counted). */
  note: Detail,
  sessions: z.array(SessionPlacement).max(32),
  /** Nodes over every session, and those of them on the CPU EP. */
  total_nodes: Count,
  cpu_nodes: Count,
  /** The CPU nodes' operator types over every session. */
  cpu_ops: z.array(OpCount).max(512),
  /** Each provider's share of the profiled run's kernel time over every session (0..1), most first; empty when the
   *  profiler timed nothing. */
  kernel_time_share: z.array(z.strictObject({ provider: Token, share: z.number().min(0).max(1) })).max(16),
  /** True exactly when the route completed on `webgpu` and any node ran on the CPU. */
  partial_fallback: z.boolean(),
});
export type Placement = z.infer<typeof Placement>;

/** One node event of ORT's profile, as much of it as placement needs. */
interface NodeEvent {
  node: string;
  op: string;
  provider: string;
  durUs: number;
}

/** The longest profile this parser reads (characters): a real LLM's first run is a few MB of events. */
export const MAX_PROFILE_CHARS = 64 * 1024 * 1024;

/**
 * The node events of one ORT profile printed by `endProfiling()` (a JSON array of Chrome-trace events, one per line).
 * Events of other categories (`Session`, the WebGPU EP's `Api` GPU timings) are skipped.
 * @param lines the lines the runtime printed while profiling ended, in order
 * @throws Error when no JSON array is found, it does not parse, or it is larger than MAX_PROFILE_CHARS
 */
export function profileNodeEvents(lines: readonly string[]): NodeEvent[] {
  const start = lines.findIndex((line) => line.trim() === '[');
  const end = lines.findLastIndex((line) => line.trim() === ']');
  if (start === -1 || end <= start) throw new Error('the runtime printed no profile (no JSON array on its output)');
  let chars = 0;
  for (let i = start; i <= end; i++) {
    chars += lines[i].length + 1;
    if (chars > MAX_PROFILE_CHARS)
      throw new Error(`the runtime's profile is larger than ${MAX_PROFILE_CHARS} characters`);
  }
  const parsed: unknown = JSON.parse(lines.slice(start, end + 1).join('\n'));
  if (!Array.isArray(parsed)) throw new Error("the runtime's profile is not a JSON array");
  const events: NodeEvent[] = [];
  for (const event of parsed) {
    if (event === null || typeof event !== 'object') continue;
    const { cat, name, dur, args } = event as { cat?: unknown; name?: unknown; dur?: unknown; args?: unknown };
    if (
      cat !== 'Node' ||
      typeof name !== 'string' ||
      !name.endsWith('_kernel_time') ||
      args === null ||
      typeof args !== 'object'
    )
      continue;
    const { op_name: op, provider } = args as { op_name?: unknown; provider?: unknown };
    if (typeof op !== 'string' || typeof provider !== 'string') continue;
    events.push({
      node: name.slice(0, -'_kernel_time'.length),
      op,
      provider,
      durUs: typeof dur === 'number' && Number.isFinite(dur) && dur >= 0 ? dur : 0,
    });
  }
  return events;
}

/** Sorted op counts: most first, then by name. */
function sortedCounts(counts: Map<string, number>): OpCount[] {
  return [...counts]
    .map(([op, count]) => ({ op, count }))
    .sort((a, b) => b.count - a.count || (a.op < b.op ? -1 : a.op > b.op ? 1 : 0));
}

/** A name fit for the receipt's `Token` fields (ORT's names already are; anything else is cut and replaced). */
function token(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.:+-]/g, '_').slice(0, 64);
  return /^[A-Za-z0-9]/.test(cleaned) ? cleaned : `x${cleaned.slice(0, 63)}`;
}

/**
 * One session's placement from its profile's node events: each node counted once (a node that ran several times in
 * the profiled run, as in a generation, is one node), its kernel time summed over its runs.
 * @param session the session's name
 * @param events the profile's node events (`profileNodeEvents`)
 */
export function sessionPlacement(session: string, events: readonly NodeEvent[]): SessionPlacement {
  const providerOf = new Map<string, { provider: string; op: string }>();
  const kernelUs = new Map<string, number>();
  for (const e of events) {
    const provider = token(e.provider);
    // Node names are unique within a graph; a subgraph may reuse one, which its provider and op then tell apart.
    providerOf.set(`${e.node}\u0000${provider}\u0000${e.op}`, { provider, op: token(e.op) });
    kernelUs.set(provider, (kernelUs.get(provider) ?? 0) + e.durUs);
  }
  const nodes = new Map<string, number>();
  const cpuOps = new Map<string, number>();
  for (const { provider, op } of providerOf.values()) {
    nodes.set(provider, (nodes.get(provider) ?? 0) + 1);
    if (provider === CPU_PROVIDER) cpuOps.set(op, (cpuOps.get(op) ?? 0) + 1);
  }
  const providers = [...nodes]
    .map(([provider, count]) => ({ provider, nodes: count, kernel_ms: (kernelUs.get(provider) ?? 0) / 1000 }))
    .sort((a, b) => b.nodes - a.nodes || (a.provider < b.provider ? -1 : 1));
  return { session: session.slice(0, 128), providers, cpu_ops: sortedCounts(cpuOps) };
}

/**
 * The receipt's placement from each session's placement.
 * @param sessions every session's placement
 * @param completedEp the route's completed EP (`partial_fallback` is only ever true for `webgpu`)
 * @param note what the numbers cover
 */
export function placementOf(
  sessions: readonly SessionPlacement[],
  completedEp: 'wasm' | 'webgpu' | null,
  note: string,
): Placement {
  let total = 0;
  let cpu = 0;
  const cpuOps = new Map<string, number>();
  const kernel = new Map<string, number>();
  for (const s of sessions) {
    for (const p of s.providers) {
      total += p.nodes;
      if (p.provider === CPU_PROVIDER) cpu += p.nodes;
      if (p.kernel_ms !== null) kernel.set(p.provider, (kernel.get(p.provider) ?? 0) + p.kernel_ms);
    }
    for (const o of s.cpu_ops) cpuOps.set(o.op, (cpuOps.get(o.op) ?? 0) + o.count);
  }
  const kernelTotal = [...kernel.values()].reduce((a, b) => a + b, 0);
  const share =
    kernelTotal > 0
      ? [...kernel]
          .map(([provider, ms]) => ({ provider, share: Math.min(1, ms / kernelTotal) }))
          .sort((a, b) => b.share - a.share)
      : [];
  return {
    source: 'ort-profiler',
    note,
    sessions: [...sessions],
    total_nodes: total,
    cpu_nodes: cpu,
    cpu_ops: sortedCounts(cpuOps),
    kernel_time_share: share,
    partial_fallback: completedEp === 'webgpu' && cpu > 0,
  };
}

/** WebLLM's placement: its model is compiled into WebGPU shaders (TVM), so every operation runs on WebGPU. */
export function webgpuByConstruction(): Placement {
  return {
    source: 'webgpu-by-construction',
    note: 'WebLLM compiles the whole model into WebGPU compute shaders ahead of time (its model library): there is no per-node provider choice and no CPU kernel to fall back to, so nothing is counted',
    sessions: [],
    total_nodes: 0,
    cpu_nodes: 0,
    cpu_ops: [],
    kernel_time_share: [],
    partial_fallback: false,
  };
}

/** One provider's block of ORT's verbose "Node placements" log. */
export interface LoggedPlacement {
  provider: string;
  nodes: number;
  /** The logged nodes' operator types with counts. */
  ops: Map<string, number>;
}

/**
 * Reads ORT's verbose session log (`env.logLevel = 'verbose'`, session `logSeverityLevel: 0`): the "Node placements"
 * blocks `VerifyEachNodeIsAssignedToAnEp` prints (one per graph and subgraph), summed per provider. Used to check the
 * profiler's counts against ORT's own log for the same session (test/e2e/ep-placement.test.ts).
 * @param lines the session's log lines, in order
 */
export function loggedPlacements(lines: readonly string[]): Map<string, LoggedPlacement> {
  const result = new Map<string, LoggedPlacement>();
  let current: LoggedPlacement | null = null;
  for (const line of lines) {
    const header = /Node\(s\) placed on \[([A-Za-z0-9]+)\]\. Number of nodes: (\d+)/.exec(line);
    if (header) {
      const provider = header[1];
      current = result.get(provider) ?? { provider, nodes: 0, ops: new Map() };
      current.nodes += Number(header[2]);
      result.set(provider, current);
      continue;
    }
    const node = current ? /VerifyEachNodeIsAssignedToAnEp\]\s{3,}([A-Za-z0-9_]+) \(/.exec(line) : null;
    if (node && current) current.ops.set(node[1], (current.ops.get(node[1]) ?? 0) + 1);
    else if (!/Node placements/.test(line)) current = null;
  }
  return result;
}
