// Plain JavaScript on purpose: this runs before any TypeScript loader exists.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const MANIFEST_SCHEMA = 'drb.cli-bundle.v2';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'drb-cli');
// One manifest per checkout: a node_modules shared by two checkouts (a symlink) must not make them rebuild in turn.
const MANIFEST_PATH = join(CACHE_DIR, `manifest-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.json`);
// Files that change how sources compile or resolve without being imported themselves.
const CONFIG_FILES = ['tsconfig.json', 'package.json'];
// Old builds are removed only when this stale, because a process started from one may still import its lazy chunks.
const PRUNE_AFTER_MS = 60 * 60 * 1000;

/** The CLI bundle a packed tarball carries (built by scripts/pack-cli.mjs when `npm pack` runs), beside bin/. */
export const PACKED_ENTRY = join(ROOT, 'dist-cli', 'main.js');

/**
 * Whether this package folder is a checkout (its TypeScript sources are here) rather than an installed copy of a
 * packed tarball, which carries only bin/ and the prebuilt bundle. src/cli/checkout.ts asks the same question.
 */
export function isCheckout() {
  return statSync(join(ROOT, 'src', 'cli', 'main.ts'), { throwIfNoEntry: false })?.isFile() === true;
}

/**
 * Loads the CLI's `main` from a JavaScript bundle of src/cli/main.ts kept in node_modules/.cache/drb-cli, building
 * it with esbuild (which tsx already depends on) when it is missing or any bundled source file changed. Running
 * the TypeScript sources through tsx costs about 0.4 s of CPU per start (its loader thread transpiles or re-reads
 * every module, one message round trip each); `drb score` counts start-up in its throughput, and the bundle starts
 * in about 0.1 s. Freshness is decided by SHA-256 of every bundled source file's content (plus the configs above),
 * never by timestamps, so an edited source is never run stale.
 * Returns null when no bundle can be used (no esbuild, read-only node_modules, a build error): the caller then runs
 * the sources through tsx, exactly as without this file. `DRB_NO_BUNDLE=1` forces that path.
 * @returns the CLI's `main` function, or null to fall back to tsx
 */
export async function loadCliBundle() {
  if (process.env.DRB_NO_BUNDLE === '1') return null;
  try {
    const fresh = freshEntry();
    if (fresh !== null) {
      debug(`running the bundle ${fresh}`);
      return (await import(pathToFileURL(fresh).href)).main;
    }
    const built = await buildBundle();
    if (built === null) {
      debug('bundle not used: esbuild not found');
      return null;
    }
    debug(`built and running the bundle ${built}`);
    return (await import(pathToFileURL(built).href)).main;
  } catch (error) {
    debug(`bundle not used: ${error?.stack ?? error}`);
    return null;
  }
}

/** `DRB_DEBUG_BUNDLE=1` reports on stderr which way the CLI was loaded. */
function debug(message) {
  if (process.env.DRB_DEBUG_BUNDLE === '1') process.stderr.write(`drb: ${message}\n`);
}

/** The bundle's entry file when the manifest matches the current sources, else null. */
function freshEntry() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(MANIFEST_PATH, 'utf8'));
  } catch {
    return null;
  }
  if (manifest?.schema !== MANIFEST_SCHEMA || manifest.root !== ROOT) return null;
  // The esbuild that built it is still the one installed: its package.json, where the manifest says it was, names the
  // same version (read directly: resolving it through tsx on every start cost about as much as hashing the sources).
  const built = manifest.esbuild;
  if (typeof built?.packageJson !== 'string' || versionIn(built.packageJson) !== built.version) return null;
  for (const [path, sha256] of Object.entries(manifest.inputs)) {
    if (hashFile(join(ROOT, path)) !== sha256) return null;
  }
  const entry = join(CACHE_DIR, manifest.entry);
  return statSync(entry, { throwIfNoEntry: false })?.isFile() ? entry : null;
}

/** Bundles src/cli/main.ts into a fresh directory, publishes it through the manifest and returns its entry file. */
async function buildBundle() {
  const esbuild = loadEsbuild();
  if (esbuild === null) return null;
  mkdirSync(CACHE_DIR, { recursive: true });
  const staging = join(CACHE_DIR, `.staging-${process.pid}-${Date.now()}`);
  // Hashes of exactly the bytes esbuild compiled (read in onLoad below), so an edit made during the build shows up
  // as a mismatch on the next start instead of being recorded as bundled.
  const inputs = {};
  for (const name of CONFIG_FILES) {
    const hash = hashFile(join(ROOT, name));
    if (hash !== null) inputs[name] = hash;
  }
  try {
    await bundleCli(esbuild, {
      outdir: staging,
      inputs,
      locate: absoluteLocation,
      target: `node${process.versions.node.split('.')[0]}`,
    });
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  } finally {
    await esbuild.stop?.();
  }
  // The directory is named after the checkout and the content (the bundle holds absolute source paths), so
  // concurrent builders of the same sources agree on one name.
  const id = sha256(Buffer.from(JSON.stringify([ROOT, Object.entries(inputs).sort()]))).slice(0, 16);
  const final = join(CACHE_DIR, id);
  try {
    renameSync(staging, final);
  } catch {
    // Another process published the same build first; its files are identical.
    rmSync(staging, { recursive: true, force: true });
  }
  const packageJson = esbuildPackageJson();
  const esbuildIdentity = { version: packageJson === null ? null : versionIn(packageJson), packageJson };
  const manifest = { schema: MANIFEST_SCHEMA, root: ROOT, esbuild: esbuildIdentity, entry: `${id}/main.js`, inputs };
  const temporary = `${MANIFEST_PATH}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(temporary, MANIFEST_PATH); // atomic: a reader sees the old manifest or the new one, never half of one
  pruneOldBuilds(id);
  return join(final, 'main.js');
}

/**
 * Bundles src/cli/main.ts with `esbuild` into `outdir`: ESM for Node, packages left as imports resolved at run time,
 * and split so that each command is a chunk of its own (`drb score` never parses the code of `drb serve`, and
 * `drb --help` loads no command at all). Records in `inputs` the SHA-256 of every source file it compiled.
 * @param esbuild the esbuild module
 * @param options.outdir the folder to write main.js and its chunks into
 * @param options.inputs filled with `{ <path relative to the checkout>: <sha256> }` of exactly the bytes compiled
 * @param options.locate gives, for a source file's absolute path, the JavaScript expressions that replace its
 *   `import.meta.url`, `import.meta.filename` and `import.meta.dirname`
 * @param options.target esbuild's target, such as `node20`
 */
export async function bundleCli(esbuild, { outdir, inputs, locate, target }) {
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { main: 'src/cli/main.ts' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target,
    // Packages stay imports resolved at run time from node_modules: only this project's sources are bundled.
    packages: 'external',
    outdir,
    entryNames: '[name]',
    logLevel: 'silent',
    plugins: [
      {
        name: 'drb-source-files',
        setup(build) {
          build.onLoad({ filter: /\.(?:[cm]?[jt]sx?|json)$/ }, (args) => {
            if (!args.path.startsWith(ROOT) || args.path.includes(`${sep}node_modules${sep}`)) return undefined;
            const bytes = readFileSync(args.path);
            inputs[relative(ROOT, args.path).split(sep).join('/')] = sha256(bytes);
            // A bundled module no longer sits where its source did: give every `import.meta.url` (and its path
            // forms) the source file's own location, so `new URL('../../', import.meta.url)` means what it meant.
            const at = locate(args.path);
            const contents = bytes
              .toString('utf8')
              .replaceAll('import.meta.url', at.url)
              .replaceAll('import.meta.filename', at.filename)
              .replaceAll('import.meta.dirname', at.dirname);
            return { contents, loader: loaderFor(args.path), resolveDir: dirname(args.path) };
          });
        },
      },
    ],
  });
  if (result.errors.length > 0) throw new Error(result.errors.map((e) => e.text).join('; '));
}

/** The cache bundle runs only in the checkout it was built from: a source file's location is its absolute path. */
function absoluteLocation(path) {
  return {
    url: JSON.stringify(pathToFileURL(path).href),
    filename: JSON.stringify(path),
    dirname: JSON.stringify(dirname(path)),
  };
}

/** Removes build directories no manifest names any more (another checkout may share this node_modules). */
function pruneOldBuilds(keep) {
  const now = Date.now();
  const names = readdirSync(CACHE_DIR);
  const named = new Set([keep]);
  for (const name of names) {
    if (!name.startsWith('manifest-')) continue;
    try {
      named.add(JSON.parse(readFileSync(join(CACHE_DIR, name), 'utf8')).entry.split('/')[0]);
    } catch {
      // an unreadable manifest names no build
    }
  }
  for (const name of names) {
    if (named.has(name) || name.startsWith('manifest-')) continue;
    const path = join(CACHE_DIR, name);
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats !== undefined && now - stats.mtimeMs > PRUNE_AFTER_MS) rmSync(path, { recursive: true, force: true });
  }
}

function loaderFor(path) {
  if (path.endsWith('.json')) return 'json';
  if (path.endsWith('x')) return path.endsWith('.jsx') ? 'jsx' : 'tsx';
  return /\.[cm]?ts$/.test(path) ? 'ts' : 'js';
}

// esbuild comes with tsx (a development dependency: a checkout has it, an installed copy runs the packed bundle and
// needs neither), so it is resolved from tsx's own location rather than declared again.
let esbuildModule;
/** The esbuild module tsx depends on, or null when it cannot be loaded. */
export function loadEsbuild() {
  if (esbuildModule === undefined) {
    try {
      const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
      esbuildModule = fromTsx('esbuild');
    } catch {
      esbuildModule = null;
    }
  }
  return esbuildModule;
}

/** The path of the package.json of the esbuild that tsx resolves, or null. */
function esbuildPackageJson() {
  try {
    const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
    return fromTsx.resolve('esbuild/package.json');
  } catch {
    return null;
  }
}

/** The version a package.json names, or null when it cannot be read. */
function versionIn(packageJson) {
  try {
    return JSON.parse(readFileSync(packageJson, 'utf8')).version ?? null;
  } catch {
    return null;
  }
}

function hashFile(path) {
  try {
    return sha256(readFileSync(path));
  } catch {
    return null;
  }
}

function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}
