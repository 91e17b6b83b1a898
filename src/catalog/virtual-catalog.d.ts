/**
 * `virtual:drb-catalog`: the model catalog as the page bundles it, made by vite.config.ts with the same loader the CLI
 * uses (src/node/catalog-file.ts: src/catalog/catalog.json plus the local pins overlay src/catalog/pins.json when it
 * exists). Unvalidated JSON here: the page parses it with parseCatalog like any other input.
 */
declare module 'virtual:drb-catalog' {
  const catalog: unknown;
  export default catalog;
}
