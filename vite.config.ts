/**
 * Vite build of the page. Notes (see /docs/deploy.md and the platform notes):
 * - `appType: 'mpa'`: a missing model file must be a 404, not index.html with 200 (an SPA fallback makes ORT fail
 *   with a confusing protobuf error).
 * - The `onnxruntime-web-use-extern-wasm` condition selects ORT's entry that loads its runtime (.mjs + .wasm) from
 *   `env.wasm.wasmPaths`; workers/ort-runtime.ts imports exactly three variants with `?url` (plain for wasm routes;
 *   JSPI, or asyncify where the browser has no JSPI, for webgpu routes), so only those are emitted into dist.
 * - The git commit and app version are injected with `define` for the receipts.
 * - Model files an npm package ships (the catalog's `source.package`) are served and copied into the build from the
 *   installed package (src/node/package-models-plugin.ts), checked against their pins.
 * - The page's catalog is the module `virtual:drb-catalog`: catalog.json with the local pins overlay applied, by the
 *   same loader `drb models` and `drb serve` use (src/node/catalog-file.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig, type Plugin } from 'vite';
import { contentSecurityPolicy, crossOriginHeaders, modelHosts } from './src/core/catalog/csp.ts';
import { loadCatalog } from './src/node/catalog-file.ts';
import { catalogModulePlugin } from './src/node/catalog-vite-plugin.ts';
import { pageBuildMarkerPlugin } from './src/node/page-build.ts';
import { packageModelsPlugin } from './src/node/package-models-plugin.ts';

function gitCommit(): string | null {
  try {
    return (
      execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() ||
      null
    );
  } catch {
    return null;
  }
}

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };
const ROOT = fileURLToPath(new URL('./', import.meta.url));
const catalog = loadCatalog(ROOT).catalog;
const hosts = modelHosts(catalog);

/** Puts the CSP into index.html as a meta tag, for static hosts that cannot set headers. */
function cspMeta(): Plugin {
  return {
    name: 'drb-csp-meta',
    // Build only: the dev server injects inline styles for CSS hot reload, which this strict policy refuses.
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: contentSecurityPolicy(hosts, true) },
        injectTo: 'head-prepend',
      },
    ],
  };
}

export default defineConfig({
  base: './',
  appType: 'mpa',
  // The marker lists what each build wrote, so `drb serve --build` empties only a folder that holds a build of the page.
  plugins: [catalogModulePlugin(ROOT), packageModelsPlugin(ROOT, catalog), cspMeta(), pageBuildMarkerPlugin()],
  define: {
    __DRB_COMMIT__: JSON.stringify(gitCommit()),
    __DRB_VERSION__: JSON.stringify(pkg.version),
  },
  resolve: { conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions] },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  worker: {
    format: 'es',
    // WebKit (WebKitGTK 2.50, so likely Safari too) does not put a module worker's entry script into the worker's
    // module map: a chunk that imports the entry file evaluates it a SECOND time, and the second copy's
    // `expose(new BenchWorkerApi())` answers calls with an empty API ("no model is loaded in the worker").
    // Moving everything the entry statically needs into its own chunk leaves the entry a 2-line file no chunk imports.
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'bench-worker-main', tags: ['$initial'], test: (id: string) => !/bench\.worker\.ts$/.test(id) },
          ],
        },
      },
    },
  },
  optimizeDeps: { exclude: ['onnxruntime-web', '@huggingface/transformers', '@mlc-ai/web-llm'] },
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 2048,
    // The page's first script is one file: everything main.tsx statically needs. Without this group, code it shares
    // with a chunk fetched later (the run controller, the panels) can be split into chunks of their own, each one
    // more request before the first paint (see docs/performance.md, "First paint without ML code").
    rolldownOptions: { output: { codeSplitting: { groups: [{ name: 'index', tags: ['$initial'] }] } } },
  },
  // Dev server: isolation headers without the CSP (see the meta plugin above); preview and `drb serve` send all.
  server: {
    headers: Object.fromEntries(
      Object.entries(crossOriginHeaders(hosts)).filter(([k]) => k !== 'Content-Security-Policy'),
    ),
  },
  preview: { headers: crossOriginHeaders(hosts) },
});
