/**
 * Protocol files (`drb.protocol.v1`, `public/protocols/<id>.json`): the target a tester measures in protocol mode
 * (model, engine, execution provider, threads, dtype, input, warm runs per warm receipt), the minimum counts of
 * cold and warm receipts the device procedure asks for (at least 5 cold and 20 warm receipts per physical target),
 * and the cooldown before each run and the drift probe's bound.
 * The page reads the file named by `?protocol=<id>`; `drb receipts validate` checks one like any drb artifact; a bad
 * file gives one line naming the file and the field.
 */
import { z } from 'zod';
import { Identifier, textLine, Token } from '../text/bounded-text.ts';
import type { CatalogModel, ModelCatalog } from '../catalog/catalog.ts';
import { canRun, EngineName, ExecutionProvider } from '../engines/engine-capabilities.ts';
import { firstIssueLine } from '../text/zod-issues.ts';
import { CooldownRule } from '../device/device-state-schema.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';

export const PROTOCOL_SCHEMA = 'drb.protocol.v1';

/** The device procedure's minimum receipts per physical target (evaluation protocol v10): 5 cold, 20 warm. The
 *  evidence rules count against these whatever a protocol file asks. */
export const PROTOCOL_MIN_COLD = 5;
export const PROTOCOL_MIN_WARM = 20;

/** A protocol id: the file name under public/protocols/ without `.json`. */
export const ProtocolId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9.-]{0,63}$/, 'expected a protocol id (lowercase letters, digits, . and -; at most 64)');

export const Protocol = z.strictObject({
  schema: z.literal(PROTOCOL_SCHEMA),
  id: ProtocolId,
  /** What the tester sees as the target's name. */
  title: textLine(120).min(1),
  /** The catalog model, its engine and the route every run of the protocol uses. */
  model: Identifier,
  engine: EngineName,
  ep: ExecutionProvider,
  /** WASM threads (null: the engine's default). */
  threads: z.number().int().min(1).max(64).nullable(),
  /** The dtype the catalog loads (recorded for the reader; the run uses the catalog's). */
  dtype: Token.nullable(),
  /** The catalog input every run uses. */
  input: Identifier,
  /** Timed runs in each warm receipt. */
  warm_runs: z.number().int().min(1).max(1000),
  /** Minimum receipts for the target: never below the evidence rules' own (5 cold, 20 warm). */
  min_cold: z
    .number()
    .int()
    .min(PROTOCOL_MIN_COLD, `must be at least ${PROTOCOL_MIN_COLD}, the device procedure's minimum`)
    .max(1000),
  min_warm: z
    .number()
    .int()
    .min(PROTOCOL_MIN_WARM, `must be at least ${PROTOCOL_MIN_WARM}, the device procedure's minimum`)
    .max(1000),
  /** Why a phone can hold this model (the catalog's size and memory facts), in a sentence. */
  memory_note: textLine(600).min(1),
  /** The SHA-256 of the output every run of this target must give (the receipts' `output.sha256`), where the target
   *  is deterministic and the value is known; the review checks every receipt against it. Absent: only agreement
   *  between the receipts is checked. */
  expected_output_sha256: z.string().regex(SHA256_PATTERN, 'expected a lowercase hex SHA-256').optional(),
  /** The cooldown before every run: a minimum pause after the previous run, then, where CPU pressure is observable,
   *  a wait for `nominal` up to a limit (recorded in each receipt's device_state.cooldown). Absent: none. */
  cooldown: CooldownRule.optional(),
  /** The drift probe's bound for this protocol's receipts: a sustained-speed ratio below 1 - this is flagged.
   *  Absent: the default 0.1 (src/core/device/drift-probe.ts). */
  drift_max_slowdown: z.number().gt(0).lt(1).optional(),
});
export type Protocol = z.infer<typeof Protocol>;

/** The protocols shipped in public/protocols/, the first the default (the embedded fixture: runs offline). */
export const SHIPPED_PROTOCOL_IDS = [
  'ort-tiny-xenc-wasm',
  'lfm2.5-350m-q4-wasm',
  'qwen3-0.6b-q4-wasm',
  'bge-reranker-v2-m3-q8-wasm',
] as const;
export const DEFAULT_PROTOCOL_ID: string = SHIPPED_PROTOCOL_IDS[0];

/** The page path of a protocol file (relative to the page's base URL). */
export function protocolPath(id: string): string {
  return `protocols/${id}.json`;
}

/**
 * Reads a protocol file's parsed JSON: the protocol, or one line naming the file and the field. A protocol is named
 * by its file (`protocols/<id>.json`), so a file whose `id` is another protocol's is refused: its receipts would
 * otherwise be taken for that protocol's.
 * @param value the parsed JSON
 * @param file the file as shown (`public/protocols/x.json`)
 * @param expectedId the id the file's name gives (`protocolPath(id)`); omitted when the file has no such name
 */
export function parseProtocol(
  value: unknown,
  file: string,
  expectedId?: string,
): { ok: true; protocol: Protocol } | { ok: false; line: string } {
  const parsed = Protocol.safeParse(value);
  if (!parsed.success) return { ok: false, line: `${file}: ${firstIssueLine(parsed.error)}` };
  if (expectedId !== undefined && parsed.data.id !== expectedId) {
    return {
      ok: false,
      line: `${file}: id: is "${parsed.data.id}", but the file is named for protocol "${expectedId}" (a protocol's id is its file name)`,
    };
  }
  return { ok: true, protocol: parsed.data };
}

/**
 * What the catalog says against a protocol: the model exists with that engine, runs cold/warm on the page, offers the
 * route, and the input exists. One line per problem, naming the file and the field.
 * @param protocol a schema-valid protocol
 * @param catalog the page's catalog
 * @param file the file as shown
 */
export function protocolCatalogProblems(
  protocol: Protocol,
  catalog: Pick<ModelCatalog, 'models' | 'inputs'>,
  file: string,
): string[] {
  const problems: string[] = [];
  const model: CatalogModel | undefined = catalog.models.find((m) => m.id === protocol.model);
  if (!model) problems.push(`${file}: model: no catalog model "${protocol.model}"`);
  else {
    if (model.engine !== protocol.engine)
      problems.push(`${file}: engine: is ${protocol.engine}, but ${model.id} runs on ${model.engine}`);
    // A protocol names its own input, so the model needs no default input; the engine must offer cold/warm runs.
    if (!canRun({ ...model, default_input: protocol.input }, 'cold-warm'))
      problems.push(`${file}: model: ${model.id} has no cold/warm runs on this page`);
  }
  if (!catalog.inputs.some((i) => i.id === protocol.input))
    problems.push(`${file}: input: no catalog input "${protocol.input}"`);
  return problems;
}
