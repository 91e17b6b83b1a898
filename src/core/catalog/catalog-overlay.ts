/**
 * The local pins overlay (`drb.catalog-pins.v1`, `src/catalog/pins.json`): pins for catalog models that the catalog
 * itself leaves unpinned, written by `drb models pin` from a downloaded copy of the model and read by both the page
 * build and the CLI, so a receipt of a real model can say its bytes were the expected ones.
 *
 * An overlay only adds knowledge: it may give a Hugging Face model the revision its files were hashed at (when the
 * catalog names none, or the same one) and fill in files' `bytes` / `sha256`; it never renames, adds or removes a
 * file, and never contradicts a pin or revision the catalog already has (that is refused, not silently preferred).
 */
import { jsonShapeProblems } from '../text/json-shape.ts';
import { z } from 'zod';
import { CatalogError, CatalogFile, findModel, type ModelCatalog } from './catalog.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';
import { firstIssueLine } from '../text/zod-issues.ts';

export const CATALOG_PINS_SCHEMA = 'drb.catalog-pins.v1';

/** A Hugging Face (git) commit id: 40 lowercase hex digits. Branch names move, so they are never pins. */
export const REVISION_PATTERN = /^[0-9a-f]{40}$/;

const Id = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,79}$/, 'expected a catalog model id');

/** One pinned file: its path in the model folder, and the bytes and SHA-256 the downloaded copy had. */
export const PinnedFile = z.strictObject({
  path: CatalogFile.shape.path,
  bytes: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  sha256: z.string().regex(SHA256_PATTERN, 'expected a lowercase hex SHA-256'),
});
export type PinnedFile = z.infer<typeof PinnedFile>;

/** The pins of one model. */
export const ModelPins = z.strictObject({
  /** The Hugging Face commit the files were hashed at; null for a page-origin model. */
  revision: z.string().regex(REVISION_PATTERN, 'expected a 40-hex-digit commit id').nullable(),
  files: z.array(PinnedFile).min(1).max(10_000),
});
export type ModelPins = z.infer<typeof ModelPins>;

export const CatalogPins = z.strictObject({
  schema: z.literal(CATALOG_PINS_SCHEMA),
  /** Catalog model id -> its pins. */
  models: z.record(Id, ModelPins).refine((models) => Object.keys(models).length <= 1000, 'at most 1000 models'),
});
export type CatalogPins = z.infer<typeof CatalogPins>;

/** An overlay with no pins. */
export function emptyCatalogPins(): CatalogPins {
  return { schema: CATALOG_PINS_SCHEMA, models: {} };
}

/**
 * Parses an overlay (already JSON.parse'd), throwing a CatalogError `<fileName>: <field path>: <problem>`.
 * @param value the parsed JSON
 * @param fileName how to name the file in messages
 */
export function parseCatalogPins(value: unknown, fileName: string): CatalogPins {
  // Before zod: its record of models would drop a `__proto__` key (and the pins under it) without a word.
  const shape = jsonShapeProblems(value)[0];
  if (shape !== undefined) throw new CatalogError(`${fileName}: ${shape.path}: ${shape.message}`);
  const result = CatalogPins.safeParse(value);
  if (!result.success) throw new CatalogError(`${fileName}: ${firstIssueLine(result.error)}`);
  return result.data;
}

/**
 * The catalog with the overlay's pins applied (a new object; the inputs are not changed). Throws a CatalogError
 * naming the overlay file and the field when the overlay names an unknown model or file, gives a page-origin model a
 * revision, or contradicts a revision or pin the catalog already has.
 * @param catalog the parsed catalog
 * @param pins the parsed overlay
 * @param fileName how to name the overlay in messages
 */
export function applyCatalogPins(catalog: ModelCatalog, pins: CatalogPins, fileName: string): ModelCatalog {
  // A deep copy through JSON (the catalog is plain JSON data; src/core has no structuredClone in its types).
  const next: ModelCatalog = JSON.parse(JSON.stringify(catalog)) as ModelCatalog;
  for (const [id, modelPins] of Object.entries(pins.models)) {
    const where = `${fileName}: models.${id}`;
    const model = findModel(next, id);
    if (!model) throw new CatalogError(`${where}: names no catalog model`);
    if (model.source.type === 'huggingface') {
      if (modelPins.revision === null)
        throw new CatalogError(`${where}.revision: a Hugging Face model's pins need the commit they were taken at`);
      if (model.source.revision !== null && model.source.revision !== modelPins.revision) {
        throw new CatalogError(
          `${where}.revision: ${modelPins.revision} differs from the catalog's revision ${model.source.revision}`,
        );
      }
      model.source = { ...model.source, revision: modelPins.revision };
    } else if (modelPins.revision !== null) {
      throw new CatalogError(`${where}.revision: a page-origin model has no revision`);
    }
    const seen = new Set<string>();
    modelPins.files.forEach((pin, i) => {
      const at = `${where}.files[${i}]`;
      if (seen.has(pin.path)) throw new CatalogError(`${at}.path: ${JSON.stringify(pin.path)} is pinned twice`);
      seen.add(pin.path);
      const file = model.files.find((f) => f.path === pin.path);
      if (!file) throw new CatalogError(`${at}.path: the catalog entry lists no file ${JSON.stringify(pin.path)}`);
      if ((file.bytes !== null && file.bytes !== pin.bytes) || (file.sha256 !== null && file.sha256 !== pin.sha256)) {
        throw new CatalogError(`${at}: differs from the catalog's own pin of ${JSON.stringify(pin.path)}`);
      }
      file.bytes = pin.bytes;
      file.sha256 = pin.sha256;
    });
  }
  return next;
}
