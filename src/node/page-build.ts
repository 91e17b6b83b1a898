/**
 * How `drb serve --build` recognises a folder it may empty: only a previous build of the page. Every build of the
 * page (the Vite plugin below runs on `vite build`, `npm run build` and `drb serve --build` alike) writes a marker
 * file into its output folder listing the files that build wrote. A folder may be emptied and rebuilt when it is
 * missing, empty, or holds that marker and nothing that the marker does not list; anything else (a user's notes, a
 * checkout, a build from before the marker existed) is refused, and the project root and its ancestors always are.
 */
import { lstatSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { readBounded } from './bounded-read.ts';

/** The marker's file name (a dotfile: `drb serve` never serves dotfiles). */
export const PAGE_BUILD_MARKER = '.drb-page-build.json';
/** The marker's `schema`. */
export const PAGE_BUILD_SCHEMA = 'drb.page-build.v1';

/** The marker's content: the files the build wrote, relative to the output folder, `/`-separated and sorted. */
export interface PageBuildMarker {
  schema: typeof PAGE_BUILD_SCHEMA;
  files: string[];
}

/** Every file and symlink under `dir` (relative, `/`-separated), and every folder, without following links. */
function walk(dir: string): { files: string[]; folders: string[] } {
  const files: string[] = [];
  const folders: string[] = [];
  const visit = (at: string, prefix: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        folders.push(rel);
        visit(join(at, entry.name), rel);
      } else files.push(rel);
    }
  };
  visit(dir, '');
  return { files, folders };
}

/** The files a folder holds, as the marker lists them (used by the build plugin and by tests). */
export function listBuildFiles(dir: string): string[] {
  return walk(dir)
    .files.filter((file) => file !== PAGE_BUILD_MARKER)
    .sort();
}

/**
 * Writes the marker into `outDir` listing `files`.
 * @param outDir the build's output folder
 * @param files what the build wrote there (relative paths)
 */
export function writePageBuildMarker(outDir: string, files: readonly string[]): void {
  const marker: PageBuildMarker = {
    schema: PAGE_BUILD_SCHEMA,
    files: [...new Set(files)].filter((f) => f !== PAGE_BUILD_MARKER).sort(),
  };
  writeFileSync(join(outDir, PAGE_BUILD_MARKER), `${JSON.stringify(marker, null, 2)}\n`);
}

/** The largest marker read (a build's list of files is a few kB). */
const MAX_MARKER_BYTES = 4 * 2 ** 20;

function readMarker(dir: string): PageBuildMarker | null {
  try {
    // Bounded and never blocking: the folder is the user's, so the marker's name may hold a FIFO or a device, which
    // is no marker (the folder is then refused as not a build of the page).
    const bytes = readBounded(join(dir, PAGE_BUILD_MARKER), { limitBytes: MAX_MARKER_BYTES }).bytes;
    const value = JSON.parse(bytes.toString('utf8')) as Partial<PageBuildMarker>;
    if (
      value.schema !== PAGE_BUILD_SCHEMA ||
      !Array.isArray(value.files) ||
      !value.files.every((f) => typeof f === 'string')
    )
      return null;
    return value as PageBuildMarker;
  } catch {
    return null;
  }
}

/** The real path of `path`, or of its nearest existing ancestor with the rest appended (for folders not made yet). */
function realOrNearest(path: string): string {
  const rest: string[] = [];
  let at = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch {
      const parent = dirname(at);
      if (parent === at) return resolve(path);
      rest.push(at.slice(parent.length).replace(/^[\\/]/, ''));
      at = parent;
    }
  }
}

/**
 * Why `dir` must not be emptied for a new build, or null when it may: it is missing, empty, or a previous build of
 * the page holding only the files its marker lists.
 * @param dir the output folder asked for
 * @param projectRoot the project's root folder (it and its ancestors are never build folders)
 */
export function refuseBuildDir(dir: string, projectRoot: string): string | null {
  const target = realOrNearest(dir);
  const root = realOrNearest(projectRoot);
  if (target === root || root.startsWith(target.endsWith(sep) ? target : target + sep)) {
    return 'is the project folder or one of its parents; the build empties its output folder';
  }
  let info;
  try {
    info = lstatSync(dir);
  } catch {
    return null; // missing: the build creates it
  }
  if (!info.isDirectory()) return 'exists and is not a folder';
  const { files, folders } = walk(dir);
  if (files.length === 0 && folders.length === 0) return null;
  const marker = readMarker(dir);
  if (marker === null) {
    return `is not empty and is not a build of the page (no ${PAGE_BUILD_MARKER}); the build would delete what it holds: empty it yourself or choose another --dir`;
  }
  const ours = new Set(marker.files);
  const parents = new Set(
    marker.files.flatMap((file) =>
      file
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
    ),
  );
  const foreign = [
    ...files.filter((file) => file !== PAGE_BUILD_MARKER && !ours.has(file)),
    ...folders.filter((folder) => !parents.has(folder)).map((folder) => `${folder}/`),
  ].sort();
  if (foreign.length > 0) {
    const shown = foreign
      .slice(0, 3)
      .map((f) => JSON.stringify(f))
      .join(', ');
    return `holds ${foreign.length} file(s) the previous build did not write (${shown}${foreign.length > 3 ? ', ...' : ''}); move them out or choose another --dir`;
  }
  // A listed path that is now a symlink or a folder was not written by the build either.
  for (const file of files) {
    if (file !== PAGE_BUILD_MARKER && !lstatSync(join(dir, ...file.split('/'))).isFile()) {
      return `holds ${JSON.stringify(file)}, which is not a regular file; move it out or choose another --dir`;
    }
  }
  return null;
}

/**
 * The Vite plugin that writes the marker after every page build: the bundle's files plus the public folder's files
 * (what Vite copied), never whatever else sat in the folder.
 */
export function pageBuildMarkerPlugin() {
  let outDir = '';
  let publicDir: string | false = false;
  const written = new Set<string>();
  return {
    name: 'drb-page-build-marker',
    apply: 'build' as const,
    configResolved(config: { root: string; publicDir: string; build: { outDir: string; copyPublicDir: boolean } }) {
      outDir = resolve(config.root, config.build.outDir);
      publicDir = config.build.copyPublicDir && config.publicDir ? config.publicDir : false;
    },
    writeBundle(_options: unknown, bundle: Record<string, unknown>) {
      for (const name of Object.keys(bundle)) written.add(name.split(sep).join('/'));
    },
    closeBundle() {
      if (outDir === '') return;
      const files = [...written];
      if (publicDir !== false) {
        try {
          files.push(
            ...listBuildFiles(publicDir).map((file) => relative(outDir, join(outDir, file)).split(sep).join('/')),
          );
        } catch {
          // no public folder: nothing was copied
        }
      }
      writePageBuildMarker(outDir, files);
    },
  };
}
