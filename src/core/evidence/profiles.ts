/**
 * Budget profiles (`drb.budget-profiles.v1`): versioned budget gates (`entry`, `mainstream`, `performance`) on
 * cold load, warm latency, model bytes, the memory the model really took (the runtime's WebAssembly memory plus the
 * GPU buffers it kept live, as the receipts measured them: `memory_bytes`) and, where the browser exposes it, the
 * page's JS heap. A gate without a measurement is `not-measured`, never estimated. The profile values live in profiles.v1.json; a new set of values is a new
 * `version` string, and every summary records which version judged it.
 */
import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';
import profilesJson from './profiles.v1.json' with { type: 'json' };

export const BUDGET_PROFILES_SCHEMA = 'drb.budget-profiles.v1';

export const ProfileName = z.enum(['entry', 'mainstream', 'performance']);
export type ProfileName = z.infer<typeof ProfileName>;

export const BudgetProfile = z.strictObject({
  name: ProfileName,
  description: detailText(4096),
  /** Cold run total (fetch + session + first inference, as the page timed it), nearest-rank p95. */
  cold_load_p95_ms: z.number().positive(),
  /** Warm inference latency, p95 over every clean warm sample. */
  warm_p95_ms: z.number().positive(),
  /** Largest total of model file bytes a receipt of the target loaded. */
  model_bytes: z.number().int().positive(),
  /** Largest used JS heap a receipt recorded (performance.memory); not measured where the browser has no such API.
   *  The page's heap, not the model's: the model lives in WebAssembly memory and GPU buffers (`memory_bytes`). */
  js_heap_bytes: z.number().int().positive(),
  /** The memory budget: the most a receipt measured the model taking (its runtime's WebAssembly memory at its peak
   *  plus the peak of live GPU buffers, receipt `memory`); not measured for receipts without it. Absent in profile
   *  versions before 2026-12-03.2. */
  memory_bytes: z.number().int().positive().optional(),
  /** Generation targets only: the median decode rate (tokens/s) a ranked row must reach; absent in profiles written
   *  before it (such a profile ranks no generation row). */
  decode_tokens_per_s: z.number().positive().optional(),
});
export type BudgetProfile = z.infer<typeof BudgetProfile>;

export const BudgetProfiles = z.strictObject({
  schema: z.literal(BUDGET_PROFILES_SCHEMA),
  version: detailText(4096).min(1),
  note: detailText(4096),
  profiles: z.array(BudgetProfile).length(3),
});
export type BudgetProfiles = z.infer<typeof BudgetProfiles>;

/** The profiles shipped with this version of the tool (validated when first loaded). */
export const BUILTIN_PROFILES: BudgetProfiles = BudgetProfiles.parse(profilesJson);

/** What a target measured, as the gates need it (null where nothing was measured). */
export interface GateMeasurements {
  cold_load_p95_ms: number | null;
  warm_p95_ms: number | null;
  model_bytes: number | null;
  js_heap_bytes: number | null;
  /** The model's measured memory (WebAssembly + GPU buffers); absent = not measured. */
  memory_bytes?: number | null;
}

export const GateName = z.enum(['cold_load_p95_ms', 'warm_p95_ms', 'model_bytes', 'js_heap_bytes', 'memory_bytes']);
export type GateName = z.infer<typeof GateName>;

export const GateResult = z.strictObject({
  gate: GateName,
  limit: z.number(),
  measured: z.number().nullable(),
  status: z.enum(['pass', 'fail', 'not-measured']),
});
export type GateResult = z.infer<typeof GateResult>;

/**
 * `pass`: every required gate measured and within budget (memory counts only where measured);
 * `fail`: some measured gate is over budget; `incomplete`: nothing failed but a required gate is not measured.
 */
export const ProfileVerdict = z.strictObject({
  profile: ProfileName,
  verdict: z.enum(['pass', 'fail', 'incomplete']),
  gates: z.array(GateResult),
});
export type ProfileVerdict = z.infer<typeof ProfileVerdict>;

const GATES: readonly GateName[] = ['cold_load_p95_ms', 'warm_p95_ms', 'model_bytes', 'js_heap_bytes', 'memory_bytes'];
// The JS heap is gated only where the browser exposes it (Safari and WebKit never do); the model's memory only where
// the receipts measured it (receipts from before it was recorded did not); the rest must be measured.
export const OPTIONAL_GATES: ReadonlySet<GateName> = new Set<GateName>(['js_heap_bytes', 'memory_bytes']);

/**
 * Judges one target's measurements against one profile.
 * @param measured the target's measurements (null = not measured)
 * @param profile the budget to hold them to
 */
export function evaluateProfile(measured: GateMeasurements, profile: BudgetProfile): ProfileVerdict {
  const gates: GateResult[] = GATES.flatMap((gate) => {
    const value = measured[gate] ?? null;
    const limit = profile[gate];
    if (limit === undefined) return [];
    return [
      {
        gate,
        limit,
        measured: value,
        status: value === null ? ('not-measured' as const) : value <= limit ? ('pass' as const) : ('fail' as const),
      },
    ];
  });
  const failed = gates.some((g) => g.status === 'fail');
  const missing = gates.some((g) => g.status === 'not-measured' && !OPTIONAL_GATES.has(g.gate));
  return { profile: profile.name, verdict: failed ? 'fail' : missing ? 'incomplete' : 'pass', gates };
}

/** The profile named `name` in `profiles`. */
export function findProfile(profiles: BudgetProfiles, name: ProfileName): BudgetProfile {
  const profile = profiles.profiles.find((p) => p.name === name);
  if (!profile) throw new Error(`budget profiles ${profiles.version} have no profile "${name}"`);
  return profile;
}
