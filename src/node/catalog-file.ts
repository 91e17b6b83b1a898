/**
 * Reads the model catalog as every Node-side reader sees it (the page build through vite.config.ts, `drb serve`,
 * `drb models`): `src/catalog/catalog.json` with the local pins overlay `src/catalog/pins.json` applied when that file
 * exists. One function, so the page and the CLI can never disagree about which pins hold.
 */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CatalogError, parseCatalog, type ModelCatalog } from '../core/catalog/catalog.ts';
import { applyCatalogPins, parseCatalogPins, type CatalogPins } from '../core/catalog/catalog-overlay.ts';
import { jsonSyntaxProblem } from '../core/text/json-syntax.ts';
import { terminalText } from '../core/text/terminal-text.ts';
import { BoundedReadError, readBounded } from './bounded-read.ts';

/** Where the catalog lives, relative to the project root. */
export const CATALOG_FILE = 'src/catalog/catalog.json';
/** Where the local pins overlay lives, relative to the project root (optional). */
export const PINS_FILE = 'src/catalog/pins.json';

/** The catalog as read, the overlay (null when there is none) and the catalog with the overlay applied. */
export interface LoadedCatalog {
  /** catalog.json alone. */
  base: ModelCatalog;
  /** The overlay, or null when the file does not exist. */
  pins: CatalogPins | null;
  /** What the page and the CLI use: the base with the overlay's pins. */
  catalog: ModelCatalog;
  /** The overlay's path as read (absolute). */
  pinsPath: string;
}

/** The largest catalog or pins file read (the catalog is tens of kB). */
const MAX_CATALOG_BYTES = 16 * 2 ** 20;

function readJson(path: string, shownName: string): unknown {
  let text: string;
  try {
    // Bounded and never blocking: `--pins` may name a FIFO or a device.
    text = readBounded(path, { limitBytes: MAX_CATALOG_BYTES }).bytes.toString('utf8');
  } catch (error) {
    if (!(error instanceof BoundedReadError)) throw error;
    throw new CatalogError(
      `${shownName}: (root): ${error.failure === 'cannot-open' || error.failure === 'read-error' ? `cannot read the file (${error.code ?? error.message})` : error.message}`,
    );
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (error) {
    // Never V8's message: it quotes the file's bytes (terminal escapes, OSC sequences) into the terminal.
    throw new CatalogError(`${shownName}: (root): not valid JSON (${jsonSyntaxProblem(error, text)})`);
  }
}

/**
 * Loads catalog.json and applies the pins overlay.
 * @param root the project root
 * @param pinsPath the overlay to apply (default `<root>/src/catalog/pins.json`); a missing file means no overlay
 * @throws CatalogError naming the file and field for an unreadable or invalid catalog or overlay
 */
export function loadCatalog(root: string, pinsPath: string = join(root, PINS_FILE)): LoadedCatalog {
  const base = parseCatalog(readJson(join(root, CATALOG_FILE), CATALOG_FILE), CATALOG_FILE);
  const shownPins = terminalText(relative(root, pinsPath).startsWith('..') ? pinsPath : relative(root, pinsPath));
  if (!existsSync(pinsPath)) return { base, pins: null, catalog: base, pinsPath };
  const pins = parseCatalogPins(readJson(pinsPath, shownPins), shownPins);
  return { base, pins, catalog: applyCatalogPins(base, pins, shownPins), pinsPath };
}
