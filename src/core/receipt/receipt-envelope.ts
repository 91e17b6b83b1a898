/**
 * The envelope every receipt kind shares (device, suite, generation, comparison and sweep receipts): the `app`, `model` and
 * `route` sections, redaction of free text, validation down to problem lines, and the one artifact file-name
 * function with its one timestamp format, used by the page's downloads and by `drb public-pass` alike.
 */
import type { z } from 'zod';
import type { CatalogModel } from '../catalog/catalog.ts';
import type { AppInfo, EngineInfo, EngineName, ExecutionProvider, ModelInfo, Route } from './receipt.ts';
import { boundCode } from '../text/bounded-text.ts';
import { receiptText, redactUrl } from '../text/redact.ts';
import { issueLines } from '../text/zod-issues.ts';

/** Which build of the page is running (injected at build time). */
export interface PageBuild {
  version: string;
  commit: string | null;
}

/**
 * The `app` section: the build, and the page URL reduced to origin + path.
 * @param build the page's version and commit
 * @param pageUrl the page's URL as the browser has it (query and fragment are dropped here)
 */
export function appSection(build: PageBuild, pageUrl: string): AppInfo {
  return { name: 'device-receipts-bench', version: build.version, commit: build.commit, page_url: redactUrl(pageUrl) };
}

/**
 * The `engine` section before a load reported the runtime's version (a run that failed before it loaded anything).
 * @param name the model's engine
 */
export function unloadedEngine(name: EngineName): EngineInfo {
  return { name, version: UNKNOWN_ENGINE_VERSION };
}

/** The version an `engine` section holds when the runtime never said (see `unloadedEngine`). */
export const UNKNOWN_ENGINE_VERSION = 'unknown';

/**
 * An `engine` section for people: "transformers 4.3.2 (onnxruntime-web 1.30.0)", or "transformers (version unknown)"
 * when the run failed before the runtime reported its version.
 * @param engine the receipt's engine section
 */
export function engineLabel(engine: { name: string; version: EngineInfo['version'] }): string {
  return engine.version === UNKNOWN_ENGINE_VERSION
    ? `${engine.name} (version unknown)`
    : `${engine.name} ${engine.version}`;
}

/**
 * The `model` section: the catalog's facts about the model, and what the run loaded.
 * @param model the catalog entry
 * @param dtype the dtype the run used (a transformers.js override), or null for the catalog's
 * @param loaded the files the run hashed and their integrity (`not-loaded` with no files before a load)
 */
export function modelSection(
  model: CatalogModel,
  dtype: string | null,
  loaded: Pick<ModelInfo, 'files' | 'integrity'>,
): ModelInfo {
  return {
    id: model.id,
    kind: model.kind,
    task: model.task,
    dtype: dtype ?? model.dtype,
    source: model.source.type,
    revision: model.source.type === 'huggingface' ? model.source.revision : null,
    integrity: loaded.integrity,
    files: loaded.files,
  };
}

/** The route a run asked for (the page's side of the `route` section). */
export interface RouteRequest {
  ep: ExecutionProvider;
  threads: number | null;
  allowFallback: boolean;
}

/**
 * The `route` section: what was asked, and what the load really did. A fallback reason is kept only when the run
 * completed on another EP than requested; it and the attempt reasons are recorded through `receiptText`.
 * @param request the route asked for
 * @param loaded what the load established (attempts on the page clock), or null when no EP completed
 * @param attempts the attempts of a load that completed nothing (they still belong in the receipt)
 */
export function routeSection(
  request: RouteRequest,
  loaded: Pick<Route, 'completed_ep' | 'fallback_reason' | 'threads_effective' | 'attempts' | 'webgpu_layout'> | null,
  attempts: Route['attempts'] = [],
): Route {
  const completed = loaded?.completed_ep ?? null;
  return {
    requested_ep: request.ep,
    completed_ep: completed,
    fallback_reason:
      completed !== null && completed !== request.ep && loaded?.fallback_reason
        ? receiptText(loaded.fallback_reason)
        : null,
    allow_fallback: request.allowFallback,
    threads_requested: request.threads,
    threads_effective: loaded?.threads_effective ?? null,
    attempts: (loaded?.attempts ?? attempts).map((a) => ({
      ...a,
      reason: a.reason === null ? null : receiptText(a.reason),
    })),
    // Only where the engine said (the ORT engine does on every load): absent means not recorded.
    ...(loaded?.webgpu_layout !== undefined ? { webgpu_layout: loaded.webgpu_layout } : {}),
  };
}

/**
 * Error entries as a receipt records them: names that are codes (anything else becomes `Error`), messages with every
 * URL redacted, control characters replaced and the length bounded (`receiptText`).
 * @param errors the entries a run collected
 */
export function redactedErrors<T extends { name: string; message: string }>(errors: readonly T[]): T[] {
  return errors.map((e) => ({ ...e, name: boundCode(e.name), message: receiptText(e.message) }));
}

/** A problem an invariant check found: the field path and what is wrong. */
export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * Validates a receipt the page built before it is offered: the schema first (one line per issue), then the kind's
 * own invariants. An empty list means it may be offered; anything else is shown instead of a download.
 * @param schema the receipt kind's zod schema
 * @param receipt the receipt as built
 * @param check the kind's invariant check (shared with `drb receipts validate`)
 */
export function receiptProblems<T>(
  schema: z.ZodType<T>,
  receipt: unknown,
  check: (parsed: T) => readonly FieldProblem[],
): string[] {
  const parsed = schema.safeParse(receipt);
  if (!parsed.success) return issueLines(parsed.error);
  return check(parsed.data).map((p) => `${p.path}: ${p.message}`);
}

/** What an artifact file is: a device receipt's run kind, or one of the other artifacts the page offers
 *  (`receipt` names a document whose kind cannot be told, such as a malformed receipt a public pass saves). */
export type ArtifactKind =
  | 'cold'
  | 'warm'
  | 'suite'
  | 'predictions'
  | 'generation'
  | 'answers'
  | 'compare'
  | 'sweep'
  | 'receipt'
  | 'bundle';

/** The parts of an artifact's file name. */
export interface ArtifactNameParts {
  /** The catalog model id. */
  model: string;
  /** The route label (`wasm-2`, `webgpu`; a comparison joins its route ids with `+`). */
  route: string;
  kind: ArtifactKind;
  /** The artifact's `created_at` (ISO 8601). */
  createdAt: string;
}

/**
 * An ISO 8601 UTC time as the compact stamp file names use: `2026-12-01T04:07:30.123Z` -> `20261201T040730Z`
 * (seconds precision, no separators any file system could refuse). Anything else gives `unknown-time`.
 * @param iso a time from `Date.prototype.toISOString` (or any ISO UTC time)
 */
export function compactUtcTime(iso: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z$/.exec(iso);
  return match ? `${match[1]}${match[2]}${match[3]}T${match[4]}${match[5]}${match[6]}Z` : 'unknown-time';
}

/**
 * A route as a short label: `wasm-<threads>`, `wasm` when the thread count is unknown, or `webgpu` (the form the
 * comparison's route ids take).
 * @param ep the EP that ran (or was requested, when none completed)
 * @param threads the threads used (or requested); ignored for webgpu
 */
export function routeLabel(ep: ExecutionProvider, threads: number | null): string {
  return ep === 'wasm' && threads !== null ? `wasm-${threads}` : ep;
}

// A name part keeps a safe alphabet only: file names must not carry separators, and a stranger's receipt (public
// pass) may hold anything.
function namePart(value: string): string {
  const safe = value
    .toLowerCase()
    .replace(/[^a-z0-9._+-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '');
  return safe === '' ? 'unknown' : safe.slice(0, 80);
}

/**
 * The one file name of every artifact the page offers and `drb public-pass` saves:
 * `drb-<model>-<route>-<kind>-<time>.json`, e.g. `drb-ort-tiny-xenc-wasm-2-warm-20261201T040730Z.json`.
 * @param parts model id, route label, kind and creation time
 */
export function artifactFileName(parts: ArtifactNameParts): string {
  return `drb-${namePart(parts.model)}-${namePart(parts.route)}-${parts.kind}-${compactUtcTime(parts.createdAt)}.json`;
}

/** The fields of any receipt kind a file name is made of (read defensively: public-pass names strangers' receipts). */
interface NamedReceipt {
  schema?: unknown;
  created_at?: unknown;
  run?: { kind?: unknown } | null;
  model?: { id?: unknown } | null;
  route?: {
    requested_ep?: unknown;
    completed_ep?: unknown;
    threads_requested?: unknown;
    threads_effective?: unknown;
  } | null;
  routes?: unknown;
}

const text = (value: unknown, fallback: string): string =>
  typeof value === 'string' && value !== '' ? value : fallback;
const count = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;

/**
 * The name parts of a receipt of any kind: its model, route, kind and time. Tolerant of a malformed receipt (its
 * missing parts become `unknown`), so a public pass can still save what a page returned.
 * @param receipt a device, suite, generation or comparison receipt
 * @param kind for a suite or generation receipt, name its companion artifact instead (`predictions`, `answers`)
 */
export function receiptNameParts(receipt: unknown, kind?: 'predictions' | 'answers'): ArtifactNameParts {
  const r = (receipt !== null && typeof receipt === 'object' ? receipt : {}) as NamedReceipt;
  const schema = text(r.schema, '');
  let route: string;
  if (Array.isArray(r.routes)) {
    route = r.routes.map((x: { id?: unknown } | null) => text(x?.id, 'unknown')).join('+');
  } else {
    const ep = text(r.route?.completed_ep, text(r.route?.requested_ep, 'unknown'));
    route =
      ep === 'wasm' || ep === 'webgpu'
        ? routeLabel(ep, count(r.route?.threads_effective) ?? count(r.route?.threads_requested))
        : ep;
  }
  const runKind = r.run?.kind === 'cold' || r.run?.kind === 'warm' ? r.run.kind : null;
  const own: ArtifactKind = schema.startsWith('drb.suite-receipt.')
    ? 'suite'
    : schema.startsWith('drb.generation-receipt.')
      ? 'generation'
      : schema.startsWith('drb.comparison-receipt.')
        ? 'compare'
        : schema.startsWith('drb.sweep-receipt.')
          ? 'sweep'
          : (runKind ?? 'receipt');
  return { model: text(r.model?.id, 'unknown'), route, kind: kind ?? own, createdAt: text(r.created_at, '') };
}

/**
 * The file name a receipt of any kind is offered under (and, with `kind`, its companion artifact's): the one name the
 * page's Download buttons give, the name they show before the click, and the name they say it was saved as.
 * @param receipt a device, suite, generation or comparison receipt (read tolerantly, as `receiptNameParts` reads it)
 * @param kind name the receipt's companion artifact instead (`predictions`, `answers`)
 */
export function receiptFileName(receipt: unknown, kind?: 'predictions' | 'answers'): string {
  return artifactFileName(receiptNameParts(receipt, kind));
}
