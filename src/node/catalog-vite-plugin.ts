/**
 * The Vite plugin behind `virtual:drb-catalog`: the page bundles the catalog exactly as `loadCatalog` reads it
 * (catalog.json with the local pins overlay), so the page and the CLI apply the same pins.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'vite';
import { CATALOG_FILE, loadCatalog } from './catalog-file.ts';

/** The module id the page imports. */
export const CATALOG_MODULE_ID = 'virtual:drb-catalog';

/**
 * @param root the project root whose catalog and overlay are bundled
 * @returns a plugin answering `virtual:drb-catalog` with the loaded catalog as the module's default export, watching
 *   both files so the dev server reloads when either changes
 */
export function catalogModulePlugin(root: string): Plugin {
  const resolvedId = `\0${CATALOG_MODULE_ID}`;
  return {
    name: 'drb-catalog',
    resolveId: (source) => (source === CATALOG_MODULE_ID ? resolvedId : null),
    load(id) {
      if (id !== resolvedId) return null;
      const loaded = loadCatalog(root);
      this.addWatchFile(join(root, CATALOG_FILE));
      if (existsSync(loaded.pinsPath)) this.addWatchFile(loaded.pinsPath);
      return `export default ${JSON.stringify(loaded.catalog)};\n`;
    },
  };
}
