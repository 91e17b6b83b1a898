/**
 * Target identity: what makes two receipts measurements of the same thing. A target is one device (as the
 * receipt recorded it), one app commit, one engine build, one model (id, dtype and the SHA-256 of every loaded
 * file), one fixed input and one route (requested and completed EP, fallback permission, threads requested and
 * effective). Receipts are grouped by it; its short key (`t-` + 12 hex digits of the SHA-256 of the canonical
 * identity JSON) is what `drb receipts review --target` names.
 *
 * A failed run that never loaded its files or never completed an EP has a different identity from the runs that
 * succeeded, so each target also carries a *request* identity (the same minus completed route, effective threads,
 * file hashes and engine version): failures that share a request identity with a target are counted against it as related
 * failures, so a failure can never hide in a group of its own.
 */
import type { GenerationReceipt } from '../generation/generation-receipt.ts';
import type { DeviceReceipt } from '../receipt/receipt.ts';
import { sha256Hex } from '../bytes/sha256.ts';

/** The device as the receipt recorded it (never looked up or estimated). */
export interface DeviceIdentity {
  user_agent: string;
  platform: string | null;
  platform_version: string | null;
  model: string | null;
  mobile: boolean | null;
  hardware_concurrency: number | null;
  device_memory_gb: number | null;
  webgpu_adapter: { vendor: string; architecture: string; device: string } | null;
}

/** Everything a target is keyed on. Field order is fixed so the canonical JSON is stable. */
export interface TargetIdentity {
  device: DeviceIdentity;
  app: { version: string; commit: string | null };
  engine: { name: string; version: string };
  model: { id: string; kind: string; dtype: string | null; file_sha256: string[] };
  input: { id: string; sha256: string };
  route: {
    requested_ep: string;
    completed_ep: string | null;
    allow_fallback: boolean;
    threads_requested: number | null;
    threads_effective: number | null;
  };
}

/** The device identity recorded in `receipt` (a device or a generation receipt: both carry the same probe). */
export function deviceIdentity(receipt: Pick<DeviceReceipt, 'capabilities'>): DeviceIdentity {
  const caps = receipt.capabilities;
  const hints = caps.ua_client_hints;
  const adapter = caps.webgpu.adapter_info;
  return {
    user_agent: caps.user_agent,
    platform: hints?.platform ?? caps.platform,
    platform_version: hints?.platform_version ?? null,
    model: hints?.model || null,
    mobile: hints ? hints.mobile : null,
    hardware_concurrency: caps.hardware_concurrency,
    device_memory_gb: caps.device_memory_gb,
    webgpu_adapter: adapter
      ? { vendor: adapter.vendor, architecture: adapter.architecture, device: adapter.device }
      : null,
  };
}

/** The full target identity of `receipt`. */
export function targetIdentity(receipt: DeviceReceipt): TargetIdentity {
  return recordedTargetIdentity(receipt, deviceIdentity(receipt), {
    id: receipt.input.id,
    sha256: receipt.input.sha256,
  });
}

/** The fields every receipt kind records alike and a target is keyed on. */
export interface RecordedRun {
  app: { version: string; commit: string | null };
  engine: { name: string; version: string };
  model: { id: string; kind: string; dtype: string | null; files: ReadonlyArray<{ sha256: string }> };
  route: TargetIdentity['route'];
}

/**
 * A target identity from the app, engine, model and route `receipt` records, with what each receipt kind names in
 * its own way.
 * @param receipt a device, generation or suite receipt
 * @param device the device the receipt recorded
 * @param input what the run measured on (for generation and suite receipts a description of the prompt set or suite)
 */
export function recordedTargetIdentity(
  receipt: RecordedRun,
  device: DeviceIdentity,
  input: TargetIdentity['input'],
): TargetIdentity {
  const fileHashes = [...new Set(receipt.model.files.map((file) => file.sha256))].sort();
  return {
    device,
    app: { version: receipt.app.version, commit: receipt.app.commit },
    engine: { name: receipt.engine.name, version: receipt.engine.version },
    model: { id: receipt.model.id, kind: receipt.model.kind, dtype: receipt.model.dtype, file_sha256: fileHashes },
    input,
    route: {
      requested_ep: receipt.route.requested_ep,
      completed_ep: receipt.route.completed_ep,
      allow_fallback: receipt.route.allow_fallback,
      threads_requested: receipt.route.threads_requested,
      threads_effective: receipt.route.threads_effective,
    },
  };
}

/**
 * The target identity of a generation receipt: the same device, app, engine, model and route fields; its "input"
 * is the prompt set (id, version and file hash) with the decoding settings that change what is measured.
 */
export function generationTargetIdentity(receipt: GenerationReceipt): TargetIdentity {
  const { prompt_set: set, plan } = receipt;
  return recordedTargetIdentity(receipt, deviceIdentity(receipt), {
    id: `${set.id}@v${set.version} x${plan.repetitions} max_new_tokens=${plan.max_new_tokens} temperature=${plan.temperature}`,
    sha256: set.sha256,
  });
}

/**
 * The request identity: the target identity without what only a successful run knows (completed EP, effective
 * threads, loaded file hashes, and the engine version: the page records "unknown" when a run failed before the
 * engine loaded).
 */
export function requestIdentity(identity: TargetIdentity): unknown {
  return {
    device: identity.device,
    app: identity.app,
    engine: { name: identity.engine.name },
    model: { id: identity.model.id, kind: identity.model.kind, dtype: identity.model.dtype },
    input: identity.input,
    route: {
      requested_ep: identity.route.requested_ep,
      allow_fallback: identity.route.allow_fallback,
      threads_requested: identity.route.threads_requested,
    },
  };
}

/**
 * Written by hand (a dozen lines) rather than with a canonical-JSON package: JSON.stringify keeps insertion order,
 * and the key must not depend on how a receipt's objects happened to be built.
 *
 * JSON with object keys sorted at every level and every non-ASCII character written as a `\uXXXX` escape, so
 * equal identities give equal strings and the string is its own byte sequence (see identityKey).
 */
export function canonicalJson(value: unknown): string {
  const unicode = canonicalJsonUnicode(value);
  return NON_ASCII_TEST.test(unicode)
    ? unicode.replace(NON_ASCII, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : unicode;
}

const NON_ASCII = /[\u0080-\uffff]/g;
const NON_ASCII_TEST = /[\u0080-\uffff]/;

// One pass with plain loops: every receipt read is fingerprinted through this, and the entries/filter/map/join
// version was the largest single cost of `drb receipts validate`. `sort()` with no comparator orders strings by
// UTF-16 code units, as `<` does.
function canonicalJsonUnicode(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? '';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJsonUnicode(value[i]);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJsonUnicode(item)}`;
    first = false;
  }
  return `${out}}`;
}

/**
 * The short, stable key of a canonical identity string: `t-` (target), `g-` (generation target), `s-` (suite
 * target), `r-` (request) or
 * `i-` (interruption group: device, model, requested route) + 12 hex digits.
 */
export async function identityKey(canonical: string, prefix: 't' | 'g' | 's' | 'r' | 'i'): Promise<string> {
  // canonicalJson is pure ASCII, so its char codes are its UTF-8 bytes: no TextEncoder (not a core global) needed.
  const bytes = new Uint8Array(canonical.length);
  for (let i = 0; i < canonical.length; i++) bytes[i] = canonical.charCodeAt(i) & 0x7f;
  const hex = await sha256Hex(bytes);
  return `${prefix}-${hex.slice(0, 12)}`;
}

/** A one-line human label for a target: model, engine, route and device. */
export function targetLabel(identity: TargetIdentity): string {
  const { route } = identity;
  const completed = route.completed_ep === null ? 'none' : route.completed_ep;
  const ep = completed === route.requested_ep ? route.requested_ep : `${route.requested_ep}->${completed}`;
  const threads = route.threads_effective ?? route.threads_requested;
  const device = [identity.device.model, identity.device.platform].filter(Boolean).join(' ') || 'unknown device';
  return `${identity.model.id} ${identity.engine.name} ${ep}${threads === null ? '' : ` x${threads}`} on ${device}`;
}
