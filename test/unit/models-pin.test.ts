/**
 * `drb models pin` and `drb models verify` on folders made from the committed fixture files, laid out as the real
 * repositories are: pins written to an overlay and applied by the same loader the page build uses, a changed byte
 * and a missing file reported with exit 1, bad ids, folders, options and overlays refused with one line and exit 2,
 * and a folder's hostile contents (links out of it, FIFOs, odd names) refused or quoted, never followed or printed raw.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CatalogError, findModel } from '../../src/core/catalog/catalog.ts';
import { applyCatalogPins, parseCatalogPins } from '../../src/core/catalog/catalog-overlay.ts';
import { loadCatalog } from '../../src/node/catalog-file.ts';
import { catalogModulePlugin } from '../../src/node/catalog-vite-plugin.ts';
import { hashModelFile, resolveModelDir } from '../../src/node/model-dir.ts';
import { HOSTILE_CASES, writeHostileCases } from '../fixtures/hostile/hostile-fixtures.ts';
import { runCli } from './cli-harness.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const qwenFiles = join(root, 'public/models/tfjs-tiny-qwen3');
const temps: string[] = [];
const REVISION = '0123456789abcdef0123456789abcdef01234567';

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'drb-models-'));
  temps.push(dir);
  return dir;
}

/** A folder in the layout of onnx-community/Qwen3-0.6B-ONNX's q4 files, filled with the Qwen3-shaped fixture's bytes. */
function qwenFolder(): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'onnx'));
  for (const file of [
    'config.json',
    'generation_config.json',
    'tokenizer.json',
    'tokenizer_config.json',
    'onnx/model_q4.onnx',
  ]) {
    copyFileSync(join(qwenFiles, file), join(dir, file));
  }
  return dir;
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const stderrLines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('drb models pin, then verify', () => {
  it('pins every file with its bytes, SHA-256 and the revision; the page loader and verify then see them', async () => {
    const dir = qwenFolder();
    const pins = join(tempDir(), 'pins.json');
    const pinned = await runCli([
      'models',
      'pin',
      '--dir',
      dir,
      '--id',
      'qwen3-0.6b-q4',
      '--revision',
      REVISION,
      '--pins',
      pins,
    ]);
    expect(pinned.stderr).toBe('');
    expect(pinned.code).toBe(0);
    expect(pinned.stdout).toContain(
      `pinned onnx/model_q4.onnx: ${readFileSync(join(dir, 'onnx/model_q4.onnx')).byteLength} bytes, sha256 ${sha(join(dir, 'onnx/model_q4.onnx'))}`,
    );
    const overlay = parseCatalogPins(JSON.parse(readFileSync(pins, 'utf8')), 'pins.json');
    expect(overlay.models['qwen3-0.6b-q4'].revision).toBe(REVISION);
    expect(overlay.models['qwen3-0.6b-q4'].files.map((f) => f.path)).toEqual([
      'config.json',
      'generation_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model_q4.onnx',
    ]);
    // The loader both the page build and the CLI use applies them: revision and every pin.
    const { catalog } = loadCatalog(root, pins);
    const model = findModel(catalog, 'qwen3-0.6b-q4')!;
    expect(model.source).toEqual({ type: 'huggingface', repo: 'onnx-community/Qwen3-0.6B-ONNX', revision: REVISION });
    for (const file of model.files) expect([file.path, file.sha256]).toEqual([file.path, sha(join(dir, file.path))]);
    expect(findModel(loadCatalog(root).catalog, 'qwen3-0.6b-q4')!.files[0].sha256).toBeNull(); // the shared overlay is untouched

    const verified = await runCli(['models', 'verify', '--dir', dir, '--id', 'qwen3-0.6b-q4', '--pins', pins]);
    expect([verified.code, verified.stderr]).toEqual([0, '']);
    expect(verified.stdout).toContain('verified: all 5 file(s) of qwen3-0.6b-q4 are pinned and match');
  });

  it('verify: a changed byte is a mismatch (exit 1), a missing file is missing (exit 1), an unpinned model is not verified (exit 1)', async () => {
    const dir = qwenFolder();
    const pins = join(tempDir(), 'pins.json');
    expect(
      (await runCli(['models', 'pin', '--dir', dir, '--id', 'qwen3-0.6b-q4', '--revision', REVISION, '--pins', pins]))
        .code,
    ).toBe(0);
    const graph = join(dir, 'onnx/model_q4.onnx');
    const bytes = readFileSync(graph);
    bytes[bytes.length >> 1] ^= 0x01;
    writeFileSync(graph, bytes);
    const changed = await runCli(['models', 'verify', '--dir', dir, '--id', 'qwen3-0.6b-q4', '--pins', pins]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(
      /^mismatch onnx\/model_q4\.onnx: \d+ bytes, sha256 [0-9a-f]{64}; pinned \d+ bytes, sha256 [0-9a-f]{64}$/m,
    );
    expect(changed.stdout).toContain('ok config.json');
    expect(stderrLines(changed.stderr)).toEqual([
      `error: --dir ${dir}: 1 problem(s) against the pins of qwen3-0.6b-q4`,
    ]);

    rmSync(join(dir, 'config.json'));
    const missing = await runCli(['models', 'verify', '--dir', dir, '--id', 'qwen3-0.6b-q4', '--pins', pins]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/^missing config\.json$/m);

    const unpinned = await runCli([
      'models',
      'verify',
      '--dir',
      qwenFolder(),
      '--id',
      'qwen3-0.6b-q4',
      '--pins',
      join(tempDir(), 'none.json'),
    ]);
    expect(unpinned.code).toBe(1);
    expect(unpinned.stdout).toMatch(/^unpinned onnx\/model_q4\.onnx: /m);
  });

  it('a fixture the catalog already pins verifies straight from its committed folder, and refuses a changed copy', async () => {
    const ok = await runCli(['models', 'verify', '--dir', qwenFiles, '--id', 'tfjs-tiny-qwen3']);
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    expect(ok.stdout).toContain('verified: all 9 file(s) of tfjs-tiny-qwen3 are pinned and match');
    // pin will not write a pin contradicting catalog.json's own.
    const dir = tempDir();
    for (const file of ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json'])
      copyFileSync(join(qwenFiles, file), join(dir, file));
    mkdirSync(join(dir, 'onnx'));
    copyFileSync(join(qwenFiles, 'onnx/model_quantized.onnx'), join(dir, 'onnx/model_q4.onnx'));
    const pins = join(tempDir(), 'pins.json');
    const refused = await runCli([
      'models',
      'pin',
      '--dir',
      dir,
      '--id',
      'tfjs-tiny-qwen3',
      '--dtype',
      'q4',
      '--pins',
      pins,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^mismatch onnx\/model_q4\.onnx: .*; the catalog pins \d+ bytes/m);
    expect(existsSync(pins)).toBe(false);
  });

  it('--dtype pins the shared files and that dtype only, and later dtypes at the same revision add to the pins', async () => {
    const dir = tempDir();
    const pins = join(tempDir(), 'pins.json');
    mkdirSync(join(dir, 'onnx'));
    for (const file of ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json'])
      copyFileSync(join(qwenFiles, file), join(dir, file));
    copyFileSync(join(qwenFiles, 'onnx/model_q4.onnx'), join(dir, 'onnx/model_q4.onnx'));
    copyFileSync(join(qwenFiles, 'onnx/model_q4.onnx'), join(dir, 'onnx/model_q4.onnx_data'));
    // The catalog loads LFM2.5 at a known revision: with no --revision and no download metadata, pin takes that one and says so.
    const first = await runCli([
      'models',
      'pin',
      '--dir',
      dir,
      '--id',
      'lfm2.5-350m-q4',
      '--dtype',
      'q4',
      '--pins',
      pins,
    ]);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(
      /^note: no --revision and no download metadata: the files are taken to be the catalog's revision 0948ce9/m,
    );
    const model = findModel(loadCatalog(root, pins).catalog, 'lfm2.5-350m-q4')!;
    expect(model.files.filter((f) => f.sha256 !== null).map((f) => f.path)).toEqual([
      'config.json',
      'generation_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model_q4.onnx',
      'onnx/model_q4.onnx_data',
    ]);
    const q4 = await runCli([
      'models',
      'verify',
      '--dir',
      dir,
      '--id',
      'lfm2.5-350m-q4',
      '--dtype',
      'q4',
      '--pins',
      pins,
    ]);
    expect(q4.code).toBe(0);
    // Another revision than the catalog's is refused.
    const other = await runCli([
      'models',
      'pin',
      '--dir',
      dir,
      '--id',
      'lfm2.5-350m-q4',
      '--dtype',
      'q4',
      '--revision',
      REVISION,
      '--pins',
      pins,
    ]);
    expect(other.code).toBe(1);
    expect(stderrLines(other.stderr)).toEqual([
      `error: --dir: the folder holds revision ${REVISION}, the catalog loads lfm2.5-350m-q4 at 0948ce919969186c79ff8582b111e170125c0699; download that revision`,
    ]);
  });

  it('reads the revision from the Hugging Face download metadata, and refuses a --revision that contradicts it', async () => {
    const dir = qwenFolder();
    const metadata = join(dir, '.cache/huggingface/download');
    for (const file of ['config.json', 'onnx/model_q4.onnx']) {
      mkdirSync(dirname(join(metadata, file)), { recursive: true });
      writeFileSync(join(metadata, `${file}.metadata`), `${REVISION}\n"etag"\n1764547200.0\n`);
    }
    const pins = join(tempDir(), 'pins.json');
    const pinned = await runCli(['models', 'pin', '--dir', dir, '--id', 'qwen3-0.6b-q4', '--pins', pins]);
    expect(pinned.code).toBe(0);
    expect(pinned.stdout).toContain(`at revision ${REVISION}`);
    const contradicted = await runCli([
      'models',
      'pin',
      '--dir',
      dir,
      '--id',
      'qwen3-0.6b-q4',
      '--revision',
      'f'.repeat(40),
      '--pins',
      pins,
    ]);
    expect(contradicted.code).toBe(1);
    expect(stderrLines(contradicted.stderr)).toEqual([
      `error: --revision ${'f'.repeat(40)}: the folder's download metadata says its files come from ${REVISION}`,
    ]);
  });
});

describe('drb models: usage errors are one line and exit 2', () => {
  it.each([
    [
      ['models', 'verify', '--dir', '/nonexistent/drb-models', '--id', 'qwen3-0.6b-q4'],
      /^error: --dir \/nonexistent\/drb-models: cannot read the folder \(ENOENT\)$/,
    ],
    [
      ['models', 'verify', '--dir', join(root, 'package.json'), '--id', 'qwen3-0.6b-q4'],
      /^error: --dir .*package\.json: is not a folder$/,
    ],
    [
      ['models', 'verify', '--dir', qwenFiles, '--id', 'no-such-model'],
      /^error: --id: no catalog model "no-such-model"/,
    ],
    [
      ['models', 'verify', '--dir', qwenFiles, '--id', 'tfjs-tiny-qwen3', '--dtype', 'q2'],
      /^error: --dtype: model tfjs-tiny-qwen3 has no q2 files in the catalog \(it lists: fp32, fp16, q8, q4\)$/,
    ],
    [
      ['models', 'pin', '--dir', qwenFiles, '--id', 'qwen3-0.6b-q4'],
      /^error: --revision: qwen3-0\.6b-q4 names no revision in the catalog and the folder has no Hugging Face download metadata/,
    ],
    [
      ['models', 'pin', '--dir', qwenFiles, '--id', 'qwen3-0.6b-q4', '--revision', 'main'],
      /^error: --revision: "main": expected a 40-hex-digit commit id/,
    ],
    [
      ['models', 'pin', '--dir', qwenFiles, '--id', 'tfjs-tiny-qwen3', '--revision', REVISION],
      /^error: --revision: tfjs-tiny-qwen3 is served from the page's own origin and has no revision$/,
    ],
  ])('%j', async (argv, line) => {
    const run = await runCli(argv);
    expect(run.code).toBe(2);
    expect(stderrLines(run.stderr)).toHaveLength(1);
    expect(run.stderr.trim()).toMatch(line);
  });

  it("a missing --dir or --id is commander's usage error (exit 2)", async () => {
    const run = await runCli(['models', 'verify', '--id', 'qwen3-0.6b-q4']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("required option '--dir <dir>' not specified");
  });

  it('a pins file that cannot be written: one line, exit 1, nothing left behind', async () => {
    const dir = qwenFolder();
    const missingParent = join(tempDir(), 'no-such-folder', 'pins.json');
    const run = await runCli([
      'models',
      'pin',
      '--dir',
      dir,
      '--id',
      'qwen3-0.6b-q4',
      '--revision',
      REVISION,
      '--pins',
      missingParent,
    ]);
    expect(run.code).toBe(1);
    expect(stderrLines(run.stderr)).toEqual([
      `error: --pins: cannot write ${missingParent}: no such folder (or it cannot hold files) (ENOENT)`,
    ]);
    expect(existsSync(dirname(missingParent))).toBe(false);
    // Something already at the temporary name is neither written through nor removed, and the pins stay as they were.
    const parent = tempDir();
    const target = join(parent, 'pins.json');
    expect(
      (await runCli(['models', 'pin', '--dir', dir, '--id', 'qwen3-0.6b-q4', '--revision', REVISION, '--pins', target]))
        .code,
    ).toBe(0);
    const before = readFileSync(target, 'utf8');
    mkdirSync(join(parent, `.drb-${process.pid}-0.tmp`));
    const blocked = await runCli([
      'models',
      'pin',
      '--dir',
      dir,
      '--id',
      'qwen3-0.6b-q4-gen',
      '--revision',
      REVISION,
      '--pins',
      target,
    ]);
    expect(blocked.code).toBe(1);
    expect(stderrLines(blocked.stderr)).toEqual([`error: --pins: cannot write ${target}: is a folder (EISDIR)`]);
    expect(readdirSync(parent).sort()).toEqual([`.drb-${process.pid}-0.tmp`, 'pins.json']);
    expect(readFileSync(target, 'utf8')).toBe(before);
  });
});

describe('hostile folder contents', () => {
  it('a symbolic link leading out of the folder is refused, never read; a link inside the folder is fine', async () => {
    const dir = qwenFolder();
    const outside = join(tempDir(), 'secret.json');
    writeFileSync(outside, '{"secret": true}');
    rmSync(join(dir, 'config.json'));
    symlinkSync(outside, join(dir, 'config.json'));
    const pins = join(tempDir(), 'pins.json');
    const run = await runCli([
      'models',
      'pin',
      '--dir',
      dir,
      '--id',
      'qwen3-0.6b-q4',
      '--revision',
      REVISION,
      '--pins',
      pins,
    ]);
    expect(run.code).toBe(2);
    expect(stderrLines(run.stderr)).toEqual([
      'error: --dir: config.json is a symbolic link leading out of the folder; refusing to read it',
    ]);
    expect(run.stdout).not.toContain(sha(outside));
    expect(existsSync(pins)).toBe(false);

    rmSync(join(dir, 'config.json'));
    copyFileSync(join(qwenFiles, 'config.json'), join(dir, 'real-config.json'));
    symlinkSync('real-config.json', join(dir, 'config.json'));
    expect(
      (await runCli(['models', 'pin', '--dir', dir, '--id', 'qwen3-0.6b-q4', '--revision', REVISION, '--pins', pins]))
        .code,
    ).toBe(0);
  });

  it('a FIFO or a folder where a file should be is refused at once (nothing blocks on it)', async () => {
    const dir = qwenFolder();
    rmSync(join(dir, 'tokenizer.json'));
    execFileSync('mkfifo', [join(dir, 'tokenizer.json')]);
    const fifo = await runCli(['models', 'verify', '--dir', dir, '--id', 'qwen3-0.6b-q4']);
    expect(fifo.code).toBe(2);
    expect(stderrLines(fifo.stderr)).toEqual([
      'error: --dir: tokenizer.json is not a regular file; refusing to read it',
    ]);
    rmSync(join(dir, 'tokenizer.json'));
    mkdirSync(join(dir, 'tokenizer.json'));
    const folder = await runCli(['models', 'verify', '--dir', dir, '--id', 'qwen3-0.6b-q4']);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain('tokenizer.json is not a regular file');
  });

  it('names of files the catalog does not list are quoted, never printed raw', async () => {
    const dir = qwenFolder();
    writeFileSync(join(dir, 'evil\u001b[2J\n# forged.txt'), 'x');
    const run = await runCli([
      'models',
      'pin',
      '--dir',
      dir,
      '--id',
      'qwen3-0.6b-q4',
      '--revision',
      REVISION,
      '--pins',
      join(tempDir(), 'pins.json'),
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('"evil\\u001b[2J\\n# forged.txt"');
    expect(run.stderr + run.stdout).not.toContain('\u001b');
  });

  it('refuses to pin a file that changes while it is hashed, even in place at the same size', async () => {
    const dir = tempDir();
    const size = 9 * 1024 * 1024;
    writeFileSync(join(dir, 'w.onnx_data'), Buffer.alloc(size, 1));
    // After the first chunk, the rest of the file is rewritten in place (same size): a hash of bytes that never
    // existed together would be pinned if only the size were compared.
    let rewritten = false;
    const rewrite = () => {
      if (rewritten) return;
      rewritten = true;
      writeFileSync(join(dir, 'w.onnx_data'), Buffer.alloc(size, 2));
    };
    await expect(hashModelFile(await resolveModelDir(dir), 'w.onnx_data', rewrite)).rejects.toThrow(
      /^w\.onnx_data changed while it was read \(/,
    );
    // And one that grows.
    writeFileSync(join(dir, 'g.onnx_data'), Buffer.alloc(size, 1));
    let grown = false;
    const grow = () => {
      if (grown) return;
      grown = true;
      appendFileSync(join(dir, 'g.onnx_data'), Buffer.alloc(10, 3));
    };
    await expect(hashModelFile(await resolveModelDir(dir), 'g.onnx_data', grow)).rejects.toThrow(
      /^g\.onnx_data changed while it was read \(/,
    );
    // Left alone, the same file hashes.
    expect((await hashModelFile(await resolveModelDir(dir), 'w.onnx_data')).bytes).toBe(size);
  });

  it('hashes a file larger than one read chunk exactly as one pass over its bytes', async () => {
    const dir = tempDir();
    const data = Buffer.alloc(9 * 1024 * 1024 + 123);
    for (let i = 0; i < data.length; i += 4096) data[i] = (i / 4096) & 0xff;
    writeFileSync(join(dir, 'big.onnx_data'), data);
    const seen: number[] = [];
    const hashed = await hashModelFile(await resolveModelDir(dir), 'big.onnx_data', (done) => seen.push(done));
    expect(hashed).toEqual({ bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') });
    expect(seen.length).toBeGreaterThan(2); // read in chunks, with progress after each
  });
});

describe('the pins overlay is untrusted input', () => {
  const cases = HOSTILE_CASES.filter((c) => c.reader === 'models-pins');

  it.each(cases.map((c) => [c.name, c]))(
    'hostile overlay %s: refused with one line naming the file, no raw control characters',
    async (_name, hostile) => {
      const [path] = writeHostileCases(tempDir(), (c) => c.name === hostile.name);
      const run = await runCli(['models', 'verify', '--dir', qwenFiles, '--id', 'tfjs-tiny-qwen3', '--pins', path]);
      expect(run.code).toBe(2);
      expect(stderrLines(run.stderr)).toHaveLength(1);
      expect(run.stderr).toMatch(new RegExp(`^error: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
      expect(run.stderr.slice(0, -1)).not.toMatch(/[\u0000-\u001f\u007f]/);
    },
  );

  it('applyCatalogPins refuses what the catalog contradicts or does not know, naming the field', () => {
    const { base } = loadCatalog(root);
    const pin = (id: string, revision: string | null, path: string, sha256 = 'a'.repeat(64)) => ({
      schema: 'drb.catalog-pins.v1' as const,
      models: { [id]: { revision, files: [{ path, bytes: 1, sha256 }] } },
    });
    expect(() => applyCatalogPins(base, pin('qwen3-0.6b-q4', null, 'config.json'), 'p.json')).toThrow(
      new CatalogError(
        "p.json: models.qwen3-0.6b-q4.revision: a Hugging Face model's pins need the commit they were taken at",
      ),
    );
    expect(() => applyCatalogPins(base, pin('tfjs-tiny-qwen3', null, 'config.json'), 'p.json')).toThrow(
      /^p\.json: models\.tfjs-tiny-qwen3\.files\[0\]: differs from the catalog's own pin of "config\.json"$/,
    );
    expect(() => applyCatalogPins(base, pin('tfjs-tiny-qwen3', REVISION, 'config.json'), 'p.json')).toThrow(
      'p.json: models.tfjs-tiny-qwen3.revision: a page-origin model has no revision',
    );
    expect(() => applyCatalogPins(base, pin('nope', null, 'config.json'), 'p.json')).toThrow(
      'p.json: models.nope: names no catalog model',
    );
  });

  it('the page bundles the catalog through the same loader (virtual:drb-catalog), overlay applied', async () => {
    const project = tempDir();
    mkdirSync(join(project, 'src/catalog'), { recursive: true });
    copyFileSync(join(root, 'src/catalog/catalog.json'), join(project, 'src/catalog/catalog.json'));
    const plugin = catalogModulePlugin(project);
    const resolveId = plugin.resolveId as (source: string) => string | null;
    const load = plugin.load as (this: { addWatchFile(path: string): void }, id: string) => string | null;
    const watched: string[] = [];
    const context = { addWatchFile: (path: string) => watched.push(path) };
    const id = resolveId('virtual:drb-catalog')!;
    const moduleCatalog = (code: string) => JSON.parse(code.replace(/^export default /, '').replace(/;\n$/, ''));
    expect(moduleCatalog(load.call(context, id)!)).toEqual(loadCatalog(project).base);
    writeFileSync(
      join(project, 'src/catalog/pins.json'),
      JSON.stringify({
        schema: 'drb.catalog-pins.v1',
        models: {
          'qwen3-0.6b-q4-gen': {
            revision: REVISION,
            files: [{ path: 'config.json', bytes: 3, sha256: 'b'.repeat(64) }],
          },
        },
      }),
    );
    const withPins = moduleCatalog(load.call(context, id)!);
    expect(withPins).toEqual(loadCatalog(project).catalog);
    expect(findModel(withPins, 'qwen3-0.6b-q4-gen')!.source).toMatchObject({ revision: REVISION });
    expect(watched).toContain(join(project, 'src/catalog/pins.json'));
  });
});
