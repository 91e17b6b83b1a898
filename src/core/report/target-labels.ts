/**
 * Labels for the report's targets that tell apart exactly the targets shown together: the route (EP and threads)
 * always, and then only what distinguishes targets whose labels would otherwise be the same (model, dtype, engine,
 * fallback permission, browser, platform, device, adapter, engine version, app build, input, model files), in that
 * order. Two targets of one route on one chart never share a label ("wasm ×2" twice): each is named by the first
 * fields on which it differs from the others it would be mistaken for. Pure: from recorded identities only.
 */
import type { TargetIdentity } from '../evidence/target-identity.ts';
import { browserLabel } from './browser-label.ts';

/** A route in a few characters: `wasm ×2`, `webgpu→wasm ×1`, `wasm ×1 (did not run)` when no EP completed. */
export function routeText(route: TargetIdentity['route']): string {
  const threads = route.threads_effective ?? route.threads_requested;
  const ep =
    route.completed_ep === null
      ? route.requested_ep
      : route.completed_ep === route.requested_ep
        ? route.requested_ep
        : `${route.requested_ep}→${route.completed_ep}`;
  return `${ep}${threads === null ? '' : ` ×${threads}`}${route.completed_ep === null ? ' (did not run)' : ''}`;
}

/** A field that can tell two targets apart, and how it reads in a label (plain text, not escaped). */
interface Dimension {
  name: string;
  value: (identity: TargetIdentity) => string;
}

const short = (hex: string) => hex.slice(0, 8);

/** The fields a label may add after the route, in the order they are tried. */
const DIMENSIONS: readonly Dimension[] = [
  { name: 'model', value: (i) => i.model.id },
  { name: 'dtype', value: (i) => i.model.dtype ?? 'default dtype' },
  { name: 'engine', value: (i) => i.engine.name },
  { name: 'fallback', value: (i) => (i.route.allow_fallback ? 'fallback allowed' : 'no fallback') },
  {
    name: 'threads requested',
    value: (i) => (i.route.threads_requested === null ? 'threads not set' : `${i.route.threads_requested} requested`),
  },
  { name: 'browser', value: (i) => browserLabel(i.device.user_agent) },
  {
    name: 'platform',
    value: (i) => [i.device.platform ?? 'unknown platform', i.device.platform_version].filter(Boolean).join(' '),
  },
  { name: 'device', value: (i) => i.device.model ?? 'unnamed device' },
  {
    name: 'adapter',
    value: (i) =>
      i.device.webgpu_adapter === null
        ? 'no adapter'
        : [i.device.webgpu_adapter.vendor, i.device.webgpu_adapter.architecture, i.device.webgpu_adapter.device]
            .filter(Boolean)
            .join(' ') || 'unnamed adapter',
  },
  { name: 'engine version', value: (i) => `${i.engine.name} ${i.engine.version}` },
  { name: 'app', value: (i) => `app ${i.app.version}${i.app.commit === null ? '' : ` @${i.app.commit.slice(0, 7)}`}` },
  { name: 'input', value: (i) => `input ${i.input.id}` },
  {
    name: 'files',
    value: (i) =>
      i.model.file_sha256.length === 0 ? 'no files loaded' : `files ${i.model.file_sha256.map(short).join('+')}`,
  },
  {
    name: 'device details',
    value: (i) =>
      `${i.device.hardware_concurrency ?? '?'} cores, ${i.device.device_memory_gb ?? '?'} GB` +
      `${i.device.mobile === null ? '' : i.device.mobile ? ', mobile' : ', desktop'}`,
  },
  { name: 'user agent', value: (i) => `UA ${i.device.user_agent}` },
];

/** One target's label and the fields it names beyond the route. */
export interface TargetLabel {
  label: string;
  /** The dimensions added to the route, in label order (empty when the route alone is unique). */
  added: string[];
}

/**
 * Minimal distinguishing labels for targets shown together: the route, then, for each group of targets that would
 * still share a label, the first field (in DIMENSIONS order) whose values differ within the group, repeated until
 * every label is unique. A field is added only to the targets of the group it splits. Targets whose identities
 * agree on every field but their key (which cannot happen for keys made from identities) end with their key.
 * @param targets the targets, each with its key and recorded identity
 * @returns a label per key (plain text: escape it where it reaches HTML)
 */
export function distinguishingLabels(
  targets: ReadonlyArray<{ key: string; identity: TargetIdentity }>,
): Map<string, TargetLabel> {
  const parts = new Map<string, string[]>(targets.map((t) => [t.key, [routeText(t.identity.route)]]));
  const added = new Map<string, string[]>(targets.map((t) => [t.key, []]));
  const textOf = (key: string) => parts.get(key)!.join(' · ');
  const collisions = () => {
    const groups = new Map<string, Array<{ key: string; identity: TargetIdentity }>>();
    for (const t of targets) {
      const text = textOf(t.key);
      const group = groups.get(text);
      if (group) group.push(t);
      else groups.set(text, [t]);
    }
    return [...groups.values()].filter((g) => g.length > 1);
  };
  for (const group of collisions()) {
    // Split this group, then each of its parts that still collide, using only fields not yet used for it.
    const pending: Array<{ members: typeof group; from: number }> = [{ members: group, from: 0 }];
    while (pending.length > 0) {
      const { members, from } = pending.pop()!;
      const at = DIMENSIONS.findIndex((d, i) => i >= from && new Set(members.map((m) => d.value(m.identity))).size > 1);
      if (at < 0) {
        for (const m of members) {
          parts.get(m.key)!.push(m.key);
          added.get(m.key)!.push('key');
        }
        continue;
      }
      const dimension = DIMENSIONS[at];
      const bySub = new Map<string, typeof members>();
      for (const m of members) {
        const value = dimension.value(m.identity);
        parts.get(m.key)!.push(value);
        added.get(m.key)!.push(dimension.name);
        const sub = bySub.get(value);
        if (sub) sub.push(m);
        else bySub.set(value, [m]);
      }
      for (const sub of bySub.values()) if (sub.length > 1) pending.push({ members: sub, from: at + 1 });
    }
  }
  // Splitting one group can never make it collide with another (each label starts with its group's text, which
  // differed), but say so in code rather than trust it: any collision left ends in the keys.
  for (const group of collisions()) for (const m of group) parts.get(m.key)!.push(m.key);
  return new Map(targets.map((t) => [t.key, { label: textOf(t.key), added: added.get(t.key)! }]));
}
