/**
 * The layering rules of docs/architecture.md, checked on the import graph of src/ and workers/ (static imports,
 * re-exports, type-only imports and dynamic `import()` alike, read by TypeScript's own pre-processor):
 * no import cycle; src/ui/ never imports workers/; src/core/ imports nothing outside src/core/; every module of
 * src/core/ lives in a domain folder, and a domain imports only from itself and the domains below it
 * (CORE_DOMAINS, lowest first, as docs/architecture.md lists them); and exactly one module constructs the bench worker.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every .ts/.tsx source under `dir` (relative to the project root, `/`-separated). */
function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(join(root, at), { withFileTypes: true })) {
      const path = `${at}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

const files = [...sources('src'), ...sources('workers')];

/** src/core/'s domains, lowest floor first: a domain may import only from itself and the domains before it. */
const CORE_DOMAINS = [
  'text',
  'bytes',
  'stats',
  'device',
  'engines',
  'catalog',
  'receipt',
  'field',
  'artifacts',
  'scoring',
  'suite',
  'generation',
  'answers',
  'comparison',
  'user-model',
  'automation',
  'evidence',
  'gate',
  'dataset',
  'leaderboard',
  'validation',
  'report',
] as const;

/** The domain folder of a src/core/ file, or null for a file at core's root. */
function coreDomain(file: string): string | null {
  const match = /^src\/core\/([^/]+)\//.exec(file);
  return match ? match[1] : null;
}

/** Every import inside src/core/ that runs from a domain to one above it (or to a folder not in CORE_DOMAINS). */
function upwardCoreImports(): string[] {
  const rank = (domain: string | null) => (domain === null ? -1 : (CORE_DOMAINS as readonly string[]).indexOf(domain));
  return [...graph]
    .filter(([file]) => file.startsWith('src/core/'))
    .flatMap(([file, imports]) =>
      imports
        .filter((target) => target.startsWith('src/core/'))
        .filter((target) => {
          const from = rank(coreDomain(file));
          const to = rank(coreDomain(target));
          return from < 0 || to < 0 || to > from;
        })
        .map((target) => `${file} -> ${target}`),
    );
}

/** The project files `file` imports (packages and assets such as `?url` imports left out). */
function projectImports(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith('.'))
    .filter((name) => !name.includes('?'))
    .map((name) =>
      relative(root, resolve(dirname(join(root, file)), name))
        .split('\\')
        .join('/'),
    );
}

const graph = new Map(files.map((file) => [file, projectImports(file)]));

/** Every import cycle, each as the list of files around it (Tarjan's strongly connected components). */
function cycles(): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const lowlinks = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string) => {
    indices.set(file, index);
    lowlinks.set(file, index);
    index++;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!indices.has(next)) {
        connect(next);
        lowlinks.set(file, Math.min(lowlinks.get(file)!, lowlinks.get(next)!));
      } else if (onStack.has(next)) lowlinks.set(file, Math.min(lowlinks.get(file)!, indices.get(next)!));
    }
    if (lowlinks.get(file) === indices.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
    }
  };
  for (const file of files) if (!indices.has(file)) connect(file);
  return found;
}

describe('import graph of src/ and workers/', () => {
  it('reads every module and resolves every relative import to a file of the project', () => {
    expect(files.length).toBeGreaterThan(50);
    const unresolved = [...graph].flatMap(([file, imports]) =>
      imports.filter((target) => /\.tsx?$/.test(target) && !graph.has(target)).map((target) => `${file} -> ${target}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cycles()).toEqual([]);
  });

  it('keeps src/ui/ away from workers/ (the UI talks to the worker through src/page/ only)', () => {
    const bad = [...graph]
      .filter(([file]) => file.startsWith('src/ui/'))
      .flatMap(([file, imports]) => imports.filter((t) => t.startsWith('workers/')).map((t) => `${file} -> ${t}`));
    expect(bad).toEqual([]);
  });

  it('keeps src/core/ pure: it imports nothing outside src/core/', () => {
    const bad = [...graph]
      .filter(([file]) => file.startsWith('src/core/'))
      .flatMap(([file, imports]) => imports.filter((t) => !t.startsWith('src/core/')).map((t) => `${file} -> ${t}`));
    expect(bad).toEqual([]);
  });

  it('keeps every module of src/core/ in a domain folder named in CORE_DOMAINS', () => {
    const loose = files.filter(
      (file) => file.startsWith('src/core/') && !(CORE_DOMAINS as readonly string[]).includes(coreDomain(file) ?? ''),
    );
    expect(loose).toEqual([]);
  });

  it('keeps imports inside src/core/ running down its domains, never up', () => {
    expect(upwardCoreImports()).toEqual([]);
  });

  it('finds a planted upward import inside src/core/ (the domain check itself works)', () => {
    graph.set('src/core/text/planted.ts', ['src/core/report/report-html.ts']);
    try {
      expect(upwardCoreImports()).toEqual(['src/core/text/planted.ts -> src/core/report/report-html.ts']);
    } finally {
      graph.delete('src/core/text/planted.ts');
    }
  });

  it('constructs the bench worker in exactly one place, the worker session in src/page/', () => {
    const constructing = files.filter((file) => /new\s+Worker\s*\(/.test(readFileSync(join(root, file), 'utf8')));
    expect(constructing).toEqual(['src/page/worker-bridge.ts']);
    expect(readFileSync(join(root, 'src/page/worker-bridge.ts'), 'utf8').match(/new\s+Worker\s*\(/g)).toHaveLength(1);
  });

  it('finds a planted cycle (the checker itself works)', () => {
    graph.set('planted/a.ts', ['planted/b.ts']);
    graph.set('planted/b.ts', ['planted/a.ts']);
    files.push('planted/a.ts', 'planted/b.ts');
    try {
      expect(cycles()).toEqual([['planted/a.ts', 'planted/b.ts']]);
    } finally {
      graph.delete('planted/a.ts');
      graph.delete('planted/b.ts');
      files.splice(files.indexOf('planted/a.ts'), 2);
    }
  });
});
