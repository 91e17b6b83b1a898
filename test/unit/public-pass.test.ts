import { existsSync } from 'node:fs';
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
import { DriverStatement } from '../../src/core/automation/driver-statement.ts';
import {
  capabilitySecrets,
  recordCapabilities,
  scrubSecrets,
  WebDriverCapabilities,
} from '../../src/core/automation/webdriver-capabilities.ts';
import { startedLaneFacts } from './public-pass-findings.ts';

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
  cold_from_cache: kind === 'cold' ? false : null,
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
  ...startedLaneFacts('webkit'),
  ...over,
});

describe('buildPublicPassRecord', () => {
  it('is PUBLIC_PASS when the page finished with valid ok cold and warm receipts of its own revision', () => {
    const record = buildPublicPassRecord(findings());
    expect(record.evidence_state).toBe('PUBLIC_PASS');
    expect(record.outcome).toEqual({ status: 'ok', reason: null });
    expect(record.device_pass_implied).toBe(false);
    // v1's `browser.fresh_profile: true` is now the driver's statement, kept apart from what the page measured.
    expect(record.driver_statement).toMatchObject({
      browser_process: 'started',
      process_new: true,
      profile_empty: true,
    });
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

describe('drb public-pass --webdriver against broken endpoints (tiny local servers, no browser)', () => {
  const SECRETS = ['hub-user-SECRET', 'KEY-SECRET-123'];
  let dir: string;
  let page: Server;
  let pageUrl: string;
  const servers: Server[] = [];

  /** Starts a server on a free port; resolves to its base URL. */
  async function listen(server: Server): Promise<string> {
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }
  const json = (res: import('node:http').ServerResponse, status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ value }));
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'drb-pp-wd-'));
    // The page itself answers (the pass fetches it once from Node before opening a browser).
    page = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>page</title>');
    });
    pageUrl = `${await listen(page)}/`;
    await writeFile(
      join(dir, 'caps.json'),
      JSON.stringify({
        browserName: 'safari',
        platformName: 'iOS',
        'bstack:options': { userName: SECRETS[0], accessKey: SECRETS[1] },
      }),
    );
  });
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await rm(dir, { recursive: true, force: true });
  });

  const pass = async (endpoint: string, out: string, extra: string[] = []) => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const started = Date.now();
    try {
      const code = await main([
        'public-pass',
        '--url',
        pageUrl,
        '--webdriver',
        endpoint,
        '--capabilities',
        join(dir, 'caps.json'),
        '--out',
        join(dir, out),
        '--timeout-ms',
        '20000',
        ...extra,
      ]);
      const stderr = err.mock.calls.map((c) => String(c[0])).join('');
      const text = await readFile(join(dir, out, 'public-pass.json'), 'utf8');
      for (const secret of SECRETS) {
        expect(stderr).not.toContain(secret);
        expect(text).not.toContain(secret);
      }
      return { code, stderr, record: PublicPassRecord.parse(JSON.parse(text)), elapsedMs: Date.now() - started };
    } finally {
      err.mockRestore();
    }
  };

  it('an endpoint that refuses the session: one line with its W3C error, the secrets it echoes scrubbed', async () => {
    const endpoint = await listen(
      createServer((req, res) => {
        if (req.method === 'POST' && req.url === '/wd/hub/session')
          json(res, 500, {
            error: 'session not created',
            message: `Authorization failed for ${SECRETS[0]} (key ${SECRETS[1]})`,
            stacktrace: '',
          });
        else json(res, 404, { error: 'unknown command', message: req.url, stacktrace: '' });
      }),
    );
    const { code, stderr, record } = await pass(`${endpoint}/wd/hub/`, 'refused');
    expect(code).toBe(1);
    expect(stderr).toContain(
      'error: public pass failed: webdriver: WebDriver POST /session: session not created: Authorization failed for [redacted] (key [redacted])',
    );
    expect(stderr.trim().split('\n').at(-1)).toMatch(/^error: public pass failed: /);
    expect(record).toMatchObject({
      lane: 'webdriver',
      endpoint: `${endpoint}/wd/hub`,
      page_state: 'not-loaded',
      evidence_state: null,
      receipts: [],
      capabilities: {
        requested: { browserName: 'safari', platformName: 'iOS' },
        not_recorded: ['bstack:options'],
        matched: {},
      },
      driver_statement: { browser_process: 'attached', process_new: null, profile_empty: null },
    });
  });

  it('an endpoint that dies mid-run: the pass fails at once, page_state "lost", not at the time limit', async () => {
    let scripts = 0;
    const dying = createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/session')
        json(res, 200, { sessionId: 'wd-1', capabilities: { browserName: 'safari', browserVersion: '18.1' } });
      else if (req.method === 'POST' && req.url === '/session/wd-1/url') json(res, 200, null);
      else if (req.method === 'DELETE' && req.url === '/session/wd-1/cookie') json(res, 200, null);
      else if (req.url === '/session/wd-1/execute/sync' && ++scripts === 1)
        json(res, 200, { cleared: ['local_storage'], notCleared: [] }); // the site-data clear before the run
      else {
        // The first script of the run: the endpoint goes away (the socket drops, nothing listens any more).
        req.socket.destroy();
        dying.close();
        dying.closeAllConnections();
      }
    });
    const endpoint = await listen(dying);
    const { code, record, elapsedMs } = await pass(endpoint, 'dying');
    expect(code).toBe(1);
    expect(elapsedMs).toBeLessThan(15_000);
    expect(record.page_state).toBe('lost');
    expect(record.browser).toMatchObject({ name: 'safari', version: '18.1' });
    expect(record.outcome.reason).toMatch(/^WebDriver POST \/session\/wd-1\/execute\/sync failed: fetch failed/);
    expect(record.outcome.reason).not.toContain('\n');
  });

  it('an endpoint that hangs: the pass fails after --connect-timeout-ms with one line', async () => {
    const endpoint = await listen(createServer(() => {}));
    const { code, stderr, record, elapsedMs } = await pass(endpoint, 'hanging', ['--connect-timeout-ms', '1500']);
    expect(code).toBe(1);
    expect(elapsedMs).toBeLessThan(10_000);
    expect(record.outcome.reason).toBe('webdriver: WebDriver POST /session took longer than 1500 ms');
    expect(stderr).toContain(`error: public pass failed: ${record.outcome.reason} (record: `);
  });
});

describe('drb public-pass lane options', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'drb-pp-opts-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const run = async (args: string[]) => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const code = await main(['public-pass', '--url', 'http://127.0.0.1:9/', '--out', join(dir, 'never'), ...args]);
      return { code, stderr: err.mock.calls.map((c) => String(c[0])).join('') };
    } finally {
      err.mockRestore();
    }
  };

  it('refuses a WebDriver URL with credentials (never echoing them), a query, and mixed lanes, with one line', async () => {
    const withCredentials = await run(['--webdriver', 'https://alice:hunter2@hub.example/wd/hub']);
    expect(withCredentials.code).toBe(2);
    expect(withCredentials.stderr).toMatch(/^error: --webdriver: a URL with credentials is refused .*\n$/);
    expect(withCredentials.stderr).not.toMatch(/alice|hunter2/);
    expect((await run(['--cdp', 'http://127.0.0.1:9222/?token=x'])).stderr).toBe(
      'error: --cdp: a query or fragment is refused (it may carry a token)\n',
    );
    expect((await run(['--cdp', 'ws://127.0.0.1:9222/'])).stderr).toBe(
      "error: --cdp: expected http or https, got 'ws:'\n",
    );
    expect((await run(['--browser', 'webkit', '--webdriver', 'http://127.0.0.1:4444'])).stderr).toBe(
      'error: --browser, --webdriver: give one of them\n',
    );
    expect((await run(['--capabilities', join(dir, 'c.json')])).stderr).toBe(
      'error: --capabilities: only with --webdriver\n',
    );
    expect((await run(['--window', '390x'])).stderr).toBe(
      "error: --window: expected WIDTHxHEIGHT in CSS pixels (e.g. 390x844), got '390x'\n",
    );
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });

  it('validates the capabilities file: one line naming the file and the field; nothing written', async () => {
    const cases: Array<[unknown, string]> = [
      [{ browserName: 7 }, 'browserName: Invalid input: expected string, received number'],
      [{ pageLoadStrategy: 'fast' }, 'pageLoadStrategy: Invalid option: expected one of "none"|"eager"|"normal"'],
      [{ userName: 'x' }, 'userName: is not a W3C capability; a vendor capability needs its prefix'],
      [{ timeouts: { script: 1 } }, 'timeouts: drb sets the W3C timeouts itself (from --timeout-ms); leave them out'],
      [['safari'], '(root): expected one JSON object of W3C capabilities'],
    ];
    for (const [value, line] of cases) {
      const file = join(dir, 'caps.json');
      await writeFile(file, JSON.stringify(value));
      const { code, stderr } = await run(['--webdriver', 'http://127.0.0.1:4444', '--capabilities', file]);
      expect(code).toBe(2);
      expect(stderr).toMatch(new RegExp(`^error: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
      expect(stderr).toContain(line);
      expect(stderr.trim().split('\n')).toHaveLength(1);
    }
    await writeFile(join(dir, 'bad.json'), '{"browserName": ');
    expect(
      (await run(['--webdriver', 'http://127.0.0.1:4444', '--capabilities', join(dir, 'bad.json')])).stderr,
    ).toMatch(/bad\.json: not valid JSON/);
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });
});

describe('the driver statement and the capabilities a record keeps', () => {
  it('an attached lane cannot state a new process or an empty profile', () => {
    const issues = DriverStatement.safeParse({
      stated_by: 'drb',
      how: 'attached',
      browser_process: 'attached',
      process_new: true,
      profile_empty: null,
      site_data_cleared: null,
    }).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues).toEqual(['process_new: a lane attached to a browser it did not start cannot state this (null)']);
  });

  it('a v2 record of a remote lane must say which endpoint and that it attached', () => {
    const ok = buildPublicPassRecord(findings());
    const issues = (value: unknown) =>
      PublicPassRecord.safeParse(value).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ ...ok, lane: 'cdp' })).toEqual([
      'endpoint: is set exactly for the webdriver and cdp lanes',
      'driver_statement.browser_process: the cdp lane attaches to its browser',
    ]);
  });

  it('keeps describing values only, and scrubs every other string of the file from messages', () => {
    const caps = WebDriverCapabilities.parse({
      browserName: 'safari',
      'appium:options': { deviceName: 'iPhone 15', udid: 'SECRET-UDID-1' },
      proxy: { httpProxy: 'user:pw@proxy:8080' },
    });
    expect(
      recordCapabilities(caps, { browserName: 'Safari', browserVersion: '18.1', platformName: 'iOS SECRET-UDID-1' }),
    ).toEqual({
      requested: { browserName: 'safari' },
      not_recorded: ['appium:options', 'proxy'],
      matched: { browserName: 'Safari', browserVersion: '18.1', platformName: 'iOS [redacted]' },
    });
    expect(scrubSecrets('no device SECRET-UDID-1 via user:pw@proxy:8080', capabilitySecrets(caps))).toBe(
      'no device [redacted] via [redacted]',
    );
  });
});
