import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// bin/drb.mjs runs a bundle of the CLI from node_modules/.cache/drb-cli and must never run a stale one. This test
// works on a copy of the sources (sharing node_modules through a symlink), so editing a source cannot disturb
// anyone else's runs.
const project = fileURLToPath(new URL('../../', import.meta.url));
const cacheDir = join(project, 'node_modules', '.cache', 'drb-cli');
const root = mkdtempSync(join(tmpdir(), 'drb-bundle-'));
for (const name of ['bin', 'src', 'package.json', 'tsconfig.json'])
  cpSync(join(project, name), join(root, name), { recursive: true });
symlinkSync(join(project, 'node_modules'), join(root, 'node_modules'));

function drb(args: string[], env: Record<string, string> = {}) {
  const child = spawnSync(process.execPath, [join(root, 'bin', 'drb.mjs'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, DRB_DEBUG_BUNDLE: '1', ...env },
  });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

/** Manifests (and their build directories) written for the copy, found by the root recorded inside. */
function ownBuilds(): { manifest: string; entryDir: string }[] {
  const found: { manifest: string; entryDir: string }[] = [];
  for (const name of readdirSync(cacheDir)) {
    if (!name.startsWith('manifest-')) continue;
    try {
      const manifest = JSON.parse(readFileSync(join(cacheDir, name), 'utf8'));
      if (manifest.root === `${root}/`)
        found.push({ manifest: join(cacheDir, name), entryDir: join(cacheDir, manifest.entry.split('/')[0]) });
    } catch {
      // another process is replacing its manifest right now; it is not ours
    }
  }
  return found;
}

const builtDirs = new Set<string>();
afterAll(() => {
  for (const build of ownBuilds()) {
    builtDirs.add(build.entryDir);
    rmSync(build.manifest, { force: true });
  }
  for (const dir of builtDirs) rmSync(dir, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

describe('bin/drb.mjs CLI bundle', () => {
  it('builds the bundle on first use, reuses it, rebuilds it after a source edit, and matches the tsx path', () => {
    const first = drb(['--help']);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/^drb: built and running the bundle /m);
    expect(first.stdout).toContain('Device Receipts Bench');
    const [build] = ownBuilds();
    builtDirs.add(build.entryDir);
    expect(Object.keys(JSON.parse(readFileSync(build.manifest, 'utf8')).inputs)).toContain('src/cli/main.ts');

    const second = drb(['--help']);
    expect(second.stderr).toMatch(/^drb: running the bundle /m);
    expect(second.stdout).toBe(first.stdout);

    // A bundle built by another esbuild than the one installed is rebuilt (the manifest records which one built it).
    const manifest = JSON.parse(readFileSync(build.manifest, 'utf8'));
    expect(manifest.esbuild.version).toBe(JSON.parse(readFileSync(manifest.esbuild.packageJson, 'utf8')).version);
    const otherEsbuild = { ...manifest.esbuild, version: '0.0.0-other' };
    writeFileSync(build.manifest, JSON.stringify({ ...manifest, esbuild: otherEsbuild }));
    expect(drb(['--help']).stderr).toMatch(/^drb: built and running the bundle /m);
    expect(drb(['--help']).stderr).toMatch(/^drb: running the bundle /m);

    // The same run through tsx (no bundle) prints the same thing.
    const viaTsx = drb(['--help'], { DRB_NO_BUNDLE: '1' });
    expect(viaTsx.stderr).toBe('');
    expect(viaTsx.stdout).toBe(first.stdout);

    const mainPath = join(root, 'src', 'cli', 'main.ts');
    writeFileSync(
      mainPath,
      readFileSync(mainPath, 'utf8').replace('Device Receipts Bench:', 'EDITED-FOR-THE-BUNDLE-TEST:'),
    );
    const edited = drb(['--help']);
    expect(edited.stderr).toMatch(/^drb: built and running the bundle /m);
    expect(edited.stdout).toContain('EDITED-FOR-THE-BUNDLE-TEST:');
    for (const own of ownBuilds()) builtDirs.add(own.entryDir);
  });

  it('keeps import.meta.url pointing at the source file (the version comes from the copy package.json)', () => {
    const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ ...packageJson, version: '9.8.7-bundle-test' }));
    const run = drb(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('9.8.7-bundle-test');
    expect(run.stderr).toMatch(/bundle /);
    for (const own of ownBuilds()) builtDirs.add(own.entryDir);
  });
});
