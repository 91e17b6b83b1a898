// `npm pack`'s prepack step: builds the self-contained CLI bundle a packed tarball carries in dist-cli/, so that
// `npm install -g` of the tarball gives a `drb` that runs from any folder with only its runtime dependencies
// (commander, zod) installed: no TypeScript sources, no tsx, no esbuild. `--clean` (postpack) removes it again.
// Plain JavaScript on purpose: it runs before any TypeScript loader exists.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCli, loadEsbuild } from '../bin/cli-bundle.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = join(ROOT, 'dist-cli');

/**
 * A source file's location as seen from the bundle: relative to dist-cli/, resolved when the chunk runs, so that
 * `new URL('../../', import.meta.url)` in src/cli/ still means the package folder wherever npm installed it.
 */
function packedLocation(path) {
  const fromOut = relative(OUT_DIR, path).split(sep).join('/');
  const dirFromOut = relative(OUT_DIR, dirname(path)).split(sep).join('/');
  return {
    url: `new URL(${JSON.stringify(fromOut)}, import.meta.url).href`,
    filename: `(import.meta.dirname + ${JSON.stringify(`/${fromOut}`)})`,
    dirname: `(import.meta.dirname + ${JSON.stringify(`/${dirFromOut}`)})`,
  };
}

rmSync(OUT_DIR, { recursive: true, force: true });
if (process.argv[2] !== '--clean') {
  const esbuild = loadEsbuild();
  if (esbuild === null) {
    process.stderr.write('error: esbuild not found (it comes with tsx): run `npm ci` in the checkout, then npm pack\n');
    process.exit(2);
  }
  try {
    await bundleCli(esbuild, { outdir: OUT_DIR, inputs: {}, locate: packedLocation, target: 'node20' });
  } finally {
    await esbuild.stop?.();
  }
  // The bundle is for other machines: no chunk may name this checkout's folder.
  for (const name of readdirSync(OUT_DIR)) {
    if (readFileSync(join(OUT_DIR, name), 'utf8').includes(ROOT)) {
      rmSync(OUT_DIR, { recursive: true, force: true });
      process.stderr.write(`error: dist-cli/${name} names the checkout's folder ${ROOT}; nothing was packed\n`);
      process.exit(1);
    }
  }
  process.stdout.write(`built dist-cli/ (${readdirSync(OUT_DIR).length} files) for the packed drb\n`);
}
