/**
 * Everything a suite run checks before it starts, in one pure step: both artifacts parsed (items with the scorer's own
 * parser, so the page and `drb score` read an items file alike; candidates with ours), cross-checked, hashed, and joined into the rows the engine will score. A bad file
 * throws an ArtifactError naming the file and the row, so the page refuses it before any model is loaded.
 */
import { z } from 'zod';
import { parseItems, type ItemFormat, type ItemRow } from '../artifacts/items.ts';
import { decodeJsonBytes } from '../artifacts/artifact-error.ts';
import { sha256Hex } from '../bytes/sha256.ts';
import { checkCandidatesAgainstItems, parseCandidates } from './candidates.ts';
import { boundLine } from '../text/bounded-text.ts';

/** One row to score: the item's input, its left context (AJIMEE `context_text`, else ''), and its candidates. */
export interface SuiteRow {
  id: string;
  input: string;
  context: string;
  candidates: string[];
  /** False when the candidates artifact had no row for this item (it then abstains as `no_candidates`). */
  hasCandidatesRow: boolean;
}

/** What the receipt records about one input artifact (no text). */
export interface ArtifactFacts {
  file_name: string;
  bytes: number;
  sha256: string;
  rows: number;
}

/** A validated suite, ready to run. */
export interface SuitePlan {
  format: ItemFormat;
  items: ArtifactFacts;
  candidates: ArtifactFacts;
  rows: SuiteRow[];
}

/** A named input file: raw bytes plus the name to show in messages. */
export interface NamedBytes {
  bytes: Uint8Array;
  fileName: string;
}

// Only the AJIMEE context is read here, after parseItems has validated the file: this is not a second items parser,
// it picks one optional field the shared ItemRow does not carry (the scorer never needs it; a reranker does).
const AjimeeContext = z.looseObject({ index: z.string(), context_text: z.string().optional() });

/**
 * Left contexts by item id. Generic items have no context field, so the map is empty for them.
 * @param bytes the items file's raw bytes (already accepted by parseItems)
 * @param fileName display name for messages
 * @param format the items format
 */
export function readItemContexts(bytes: Uint8Array, fileName: string, format: ItemFormat): Map<string, string> {
  const contexts = new Map<string, string>();
  if (format !== 'ajimee') return contexts;
  const value = decodeJsonBytes(bytes, fileName) as unknown[];
  for (const raw of value) {
    const parsed = AjimeeContext.safeParse(raw);
    if (parsed.success && parsed.data.context_text) contexts.set(parsed.data.index, parsed.data.context_text);
  }
  return contexts;
}

/**
 * Validates and joins a suite's two artifacts.
 * @param items the items artifact (generic or AJIMEE layout, per `format`)
 * @param candidates the candidates artifact `[{id, candidates}]`
 * @param format how to read the items file
 * @returns rows in items-file order with the SHA-256 of both files' raw bytes
 * @throws ArtifactError for any malformed input (bad JSON, wrong schema, duplicate ids, a row naming no item)
 */
export async function planSuite(items: NamedBytes, candidates: NamedBytes, format: ItemFormat): Promise<SuitePlan> {
  const itemRows: ItemRow[] = parseItems(items.bytes, items.fileName, format);
  const candidateRows = parseCandidates(candidates.bytes, candidates.fileName);
  checkCandidatesAgainstItems(candidateRows, itemRows, candidates.fileName);
  const contexts = readItemContexts(items.bytes, items.fileName, format);
  const byId = new Map(candidateRows.map((row) => [row.id, row.candidates]));
  const rows = itemRows.map((item) => ({
    id: item.id,
    input: item.input,
    context: contexts.get(item.id) ?? '',
    candidates: byId.get(item.id) ?? [],
    hasCandidatesRow: byId.has(item.id),
  }));
  return {
    format,
    // A picked file's name is the user's: bounded as the receipt schema requires.
    items: {
      file_name: boundLine(items.fileName, 255),
      bytes: items.bytes.byteLength,
      sha256: await sha256Hex(items.bytes),
      rows: itemRows.length,
    },
    candidates: {
      file_name: boundLine(candidates.fileName, 255),
      bytes: candidates.bytes.byteLength,
      sha256: await sha256Hex(candidates.bytes),
      rows: candidateRows.length,
    },
    rows,
  };
}
