import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import {
  buildPublicPassRecord,
  PublicPassRecord,
  type PassFindings,
  type PassReceiptFile,
} from '../../src/core/automation/public-pass.ts';

const SHA = 'a'.repeat(64);
const receipt = (kind: 'cold' | 'warm', over: Partial<PassReceiptFile> = {}): PassReceiptFile => ({
  file: `drb-ort-wasm-${kind}-1.json`,
  sha256: SHA,
  bytes: 1000,
  run_kind: kind,
  outcome: 'ok',
  reason: null,
  app_commit: 'abc123',
  problems: [],
  ...over,
});

const findings = (over: Partial<PassFindings> = {}): PassFindings => ({
  url: 'http://127.0.0.1:4173/',
  startedAt: '2026-11-29T11:00:00.000Z',
  finishedAt: '2026-11-29T11:00:05.000Z',
  durationMs: 5000,
  browser: { name: 'webkit', version: '2.50.6', userAgent: 'Mozilla/5.0' },
  runParams: { autorun: 'cold,warm' },
  summary: null,
  fatalReason: null,
  revision: { app_version: '0.1.0', commit: 'abc123' },
  page_state: 'done',
  receipts: [receipt('cold'), receipt('warm')],
  ...over,
});

describe('buildPublicPassRecord', () => {
  it('is PUBLIC_PASS when the page finished with valid ok cold and warm receipts of its own revision', () => {
    const record = buildPublicPassRecord(findings());
    expect(record.evidence_state).toBe('PUBLIC_PASS');
    expect(record.outcome).toEqual({ status: 'ok', reason: null });
    expect(record.device_pass_implied).toBe(false);
    expect(record.browser.fresh_profile).toBe(true);
  });

  it.each<[string, Partial<PassFindings>, string]>([
    [
      'no revision',
      { revision: { app_version: '0.1.0', commit: null } },
      'the page did not report its app version and commit',
    ],
    ['page failed', { page_state: 'failed' }, 'the page ended "failed", not "done"'],
    ['no warm receipt', { receipts: [receipt('cold')] }, 'no warm receipt'],
    ['no receipt at all', { receipts: [] }, 'no cold receipt; no warm receipt'],
    [
      'an invalid receipt',
      {
        receipts: [
          receipt('cold'),
          receipt('warm', { problems: ['timings.warm_stats.p95: is 3 but the samples give 4'] }),
        ],
      },
      'drb-ort-wasm-warm-1.json is invalid: timings.warm_stats.p95: is 3 but the samples give 4',
    ],
    [
      'a receipt of another commit',
      { receipts: [receipt('cold', { app_commit: 'old' }), receipt('warm')] },
      "drb-ort-wasm-cold-1.json was made by commit old, not the page's abc123",
    ],
  ])('fails with a reason: %s', (_name, over, reason) => {
    const record = buildPublicPassRecord(findings(over));
    expect(record.evidence_state).toBeNull();
    expect(record.outcome.status).toBe('failed');
    expect(record.outcome.reason).toBe(reason);
  });

  it("puts the failed receipt's own reason first", () => {
    const record = buildPublicPassRecord(
      findings({
        page_state: 'failed',
        receipts: [receipt('cold', { outcome: 'failed', reason: 'fetch: HTTP 404 for model.onnx' })],
      }),
    );
    expect(record.outcome.reason).toBe(
      'drb-ort-wasm-cold-1.json records a failed run: fetch: HTTP 404 for model.onnx; the page ended "failed", not "done"; no warm receipt',
    );
  });

  it('a fatal reason wins over the evidence', () => {
    expect(buildPublicPassRecord(findings({ fatalReason: 'chromium: crashed' })).outcome).toEqual({
      status: 'failed',
      reason: 'chromium: crashed',
    });
  });

  it('the schema refuses a PUBLIC_PASS that is not ok, an ok without its evidence, and a URL with a query', () => {
    const ok = buildPublicPassRecord(findings());
    const issues = (value: unknown) =>
      PublicPassRecord.safeParse(value).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ ...ok, outcome: { status: 'failed', reason: 'x' } })).toEqual([
      'evidence_state: is PUBLIC_PASS exactly when the outcome is ok',
    ]);
    expect(issues({ ...ok, page_state: 'timeout' })).toEqual(['page_state: the page ended "timeout", not "done"']);
    expect(issues({ ...ok, url: 'http://127.0.0.1:4173/?token=x' })).toEqual([
      'url: URL must be origin + path only (no query, fragment or credentials)',
    ]);
    expect(issues({ ...ok, device_pass_implied: true })?.[0]).toMatch(/^device_pass_implied: /);
    expect(() => buildPublicPassRecord(findings({ url: 'http://h/#frag' }))).toThrow(
      'public-pass record: url: URL must be origin + path only',
    );
  });
});

describe('drb public-pass (CLI, no browser needed)', () => {
  let server: Server;
  let base: string;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'drb-pp-unit-'));
    server = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const run = async (args: string[]) => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const code = await main(['public-pass', ...args]);
      return { code, stderr: err.mock.calls.map((c) => String(c[0])).join('') };
    } finally {
      err.mockRestore();
    }
  };

  it('refuses bad options with one line and exit 2', async () => {
    expect(await run(['--url', 'ftp://x/'])).toEqual({
      code: 2,
      stderr: "error: --url: expected http or https, got 'ftp:'\n",
    });
    expect(await run(['--url', `${base}/`, '--browser', 'safari'])).toEqual({
      code: 2,
      stderr: "error: --browser: expected chromium or webkit, got 'safari'\n",
    });
    expect(await run(['--url', `${base}/`, '--threads', '0'])).toEqual({
      code: 2,
      stderr: "error: --threads: expected a positive integer, got '0'\n",
    });
    expect(await run(['--url', `${base}/`, '--browser', 'webkit', '--webgpu'])).toEqual({
      code: 2,
      stderr: 'error: --webgpu: only for --browser chromium (WebKitGTK has no WebGPU here)\n',
    });
  });

  it('never writes into a folder that already holds files', async () => {
    const out = join(dir, 'used');
    await run(['--url', `${base}/`, '--out', out]);
    const before = await readdir(out);
    const second = await run(['--url', `${base}/`, '--out', out]);
    expect(second.code).toBe(2);
    expect(second.stderr).toBe(
      `error: ${out}: --out: folder is not empty (a public pass never overwrites earlier files; choose a new folder)\n`,
    );
    expect(await readdir(out)).toEqual(before);
  });

  it('a page that answers 404 writes a failed record (query dropped) and exits 1', async () => {
    const out = join(dir, 'missing');
    const { code, stderr } = await run(['--url', `${base}/app/?secret=hunter2#frag`, '--out', out]);
    expect(code).toBe(1);
    expect(stderr).toContain(`error: public pass failed: GET ${base}/app/ answered HTTP 404`);
    const text = await readFile(join(out, 'public-pass.json'), 'utf8');
    expect(text).not.toContain('hunter2');
    const record = PublicPassRecord.parse(JSON.parse(text));
    expect(record).toMatchObject({ url: `${base}/app/`, page_state: 'not-loaded', evidence_state: null, receipts: [] });
  });

  it('refuses an --out that is a file', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    expect((await run(['--url', `${base}/`, '--out', file])).stderr).toBe(
      `error: ${file}: --out: is a file, not a folder\n`,
    );
  });
});
