/**
 * `drb fixtures --root DIR` reads what it finds under DIR through the bounded reader (src/node/bounded-read.ts): an
 * 8 GiB sparse file where a fixture belongs is called different without being read whole, a FIFO or a device there
 * (or as the catalog) is refused with one line instead of hanging or reading forever, and nothing is written then; a
 * catalog that is not JSON is refused without quoting its bytes.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';
import { testTempDir } from '../temp-dir.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CATALOG = 'src/catalog/catalog.json';
const FIXTURE = 'public/models/ort-tiny-xenc/model.onnx';

/** A root holding the committed catalog and nothing under public/ yet. */
function root(): string {
  const dir = testTempDir('drb-fixtures-root-');
  mkdirSync(join(dir, 'src', 'catalog'), { recursive: true });
  copyFileSync(join(ROOT, CATALOG), join(dir, CATALOG));
  mkdirSync(join(dir, dirname(FIXTURE)), { recursive: true });
  return dir;
}

describe('drb fixtures --root: bounded reads', () => {
  it('calls an 8 GiB sparse file where a fixture belongs different, without reading it whole', async () => {
    const dir = root();
    writeFileSync(join(dir, FIXTURE), '');
    truncateSync(join(dir, FIXTURE), 8 * 2 ** 30);
    const started = performance.now();
    const run = await runCli(['fixtures', '--check', '--root', dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error: ${FIXTURE}: differs from the generator\n`);
    // A bounded read stops after the generated size (+1 byte); what hung before is the FIFO and device cases below.
    expect(performance.now() - started).toBeLessThan(60_000);
    rmSync(join(dir, FIXTURE));
  });

  it('refuses a FIFO where a fixture belongs with one line, and writes nothing', async () => {
    const dir = root();
    execFileSync('mkfifo', [join(dir, FIXTURE)]);
    const catalogBefore = readFileSync(join(dir, CATALOG));
    for (const args of [['--check'], []]) {
      const run = await runCli(['fixtures', ...args, '--root', dir]);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(`error: ${FIXTURE}: (root): is a FIFO (named pipe), not a regular file; not read\n`);
      expect(run.stdout).toBe('');
    }
    expect(statSync(join(dir, FIXTURE)).isFIFO()).toBe(true);
    expect(readFileSync(join(dir, CATALOG)).equals(catalogBefore)).toBe(true);
    // No other fixture was written either: the refusal came before any write.
    expect(() => statSync(join(dir, 'public', 'inputs'))).toThrow();
  });

  it('refuses a link to a character device where a fixture belongs', async () => {
    const dir = root();
    symlinkSync('/dev/zero', join(dir, FIXTURE));
    const run = await runCli(['fixtures', '--check', '--root', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`error: ${FIXTURE}: (root): is a character device, not a regular file; not read\n`);
  });

  it('refuses a FIFO or a hostile non-JSON file as the catalog with one line that quotes none of it', async () => {
    const fifo = root();
    rmSync(join(fifo, CATALOG));
    execFileSync('mkfifo', [join(fifo, CATALOG)]);
    const a = await runCli(['fixtures', '--check', '--root', fifo]);
    expect(a.code).toBe(2);
    expect(a.stderr).toBe(
      `error: ${CATALOG}: (root): cannot read catalog: is a FIFO (named pipe), not a regular file; not read\n`,
    );
    const hostile = root();
    writeFileSync(join(hostile, CATALOG), '{"models": \u001b]0;owned\u0007\n## forged');
    const b = await runCli(['fixtures', '--check', '--root', hostile]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(
      new RegExp(`^error: ${CATALOG}: \\(root\\): cannot read catalog: not valid JSON \\(.*\\)\\n$`),
    );
    expect(b.stderr).not.toContain('\u001b');
    expect(b.stderr).not.toContain('forged');
  });
});
