// `drb field-run`'s option checks (one line each, nothing written) and what it says is missing when a run stops
// short (src/cli/field-run.ts). The procedure itself runs in real browsers in test/e2e/field-run.test.ts.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingReceiptLines } from '../../src/cli/field-run.ts';
import { runCli } from './cli-harness.ts';
import { testTempDir } from '../temp-dir.ts';

const PROTOCOL = { min_cold: 5, min_warm: 20 };
const PROTOCOL_FILE = readFileSync(new URL('../../public/protocols/ort-tiny-xenc-wasm.json', import.meta.url));

describe('missingReceiptLines', () => {
  it('says nothing when the protocol is complete', () => {
    expect(missingReceiptLines({ cold: 5, warm: 20, coldFromCache: 0 }, PROTOCOL)).toEqual([]);
    expect(missingReceiptLines({ cold: 6, warm: 21, coldFromCache: 2 }, PROTOCOL)).toEqual([]);
  });

  it('names what is missing of each kind, and the colds set aside as served from a cache', () => {
    expect(missingReceiptLines({ cold: 2, warm: 20, coldFromCache: 0 }, PROTOCOL)).toEqual([
      'missing 3 of 5 cold receipts',
    ]);
    expect(missingReceiptLines({ cold: 1, warm: 7, coldFromCache: 2 }, PROTOCOL)).toEqual([
      'missing 4 of 5 cold receipts (2 more set aside: served from a cache)',
      'missing 13 of 20 warm receipts',
    ]);
    expect(missingReceiptLines({ cold: 0, warm: 0, coldFromCache: 0 }, PROTOCOL)).toEqual([
      'missing 5 of 5 cold receipts',
      'missing 20 of 20 warm receipts',
    ]);
  });
});

describe('drb field-run option checks', () => {
  const base = ['field-run', '--protocol', 'ort-tiny-xenc-wasm'];
  const cases: Array<[string, string[], RegExp]> = [
    [
      'two lanes',
      ['--browser', 'webkit', '--cdp', 'http://127.0.0.1:9222'],
      /^error: --browser, --cdp: give one of them$/,
    ],
    ['an unknown browser', ['--browser', 'firefox'], /^error: --browser: expected chromium or webkit, got 'firefox'$/],
    [
      'capabilities without webdriver',
      ['--capabilities', 'caps.json'],
      /^error: --capabilities: only with --webdriver$/,
    ],
    ['a bad window', ['--window', '390by844'], /^error: --window: expected WIDTHxHEIGHT/],
    [
      'an endpoint with credentials',
      ['--webdriver', 'http://u:p@hub.example/wd'],
      /^error: --webdriver: a URL with credentials is refused/,
    ],
    [
      'a page with a query',
      ['--url', 'https://example.com/?token=x'],
      /^error: --url: a query, fragment or credentials are refused/,
    ],
    ['a page that is not http', ['--url', 'file:///etc/passwd'], /^error: --url: expected http or https, got 'file:'$/],
    [
      'a missing build',
      ['--dir', '/nonexistent-drb-dist'],
      /^error: \/nonexistent-drb-dist: no index.html: build the page first/,
    ],
    ['a bad timeout', ['--timeout-ms', '0'], /^error: --timeout-ms: expected a positive integer, got '0'$/],
  ];
  for (const [what, args, line] of cases) {
    it(`refuses ${what} with one line and writes nothing`, async () => {
      const out = join(testTempDir('drb-field-run-opts-'), 'out');
      const run = await runCli([...base, ...args, '--out', out]);
      expect(run.code).toBe(2);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr.trimEnd()).toMatch(line);
      expect(existsSync(out)).toBe(false);
    });
  }

  it('refuses a protocol id that is not one, and one the page has no file for', async () => {
    const out = join(testTempDir('drb-field-run-opts-'), 'out');
    const bad = await runCli(['field-run', '--protocol', '../secrets', '--url', 'http://127.0.0.1:1/', '--out', out]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trimEnd()).toBe("error: --protocol: expected a protocol id (a-z, 0-9, . _ -), got '../secrets'");
    expect(existsSync(out)).toBe(false);
  });
});

describe('drb field-run before it opens a browser', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/protocols/ort-tiny-xenc-wasm.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(PROTOCOL_FILE);
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('says the page has no such protocol, opens no browser and writes nothing', async () => {
    const out = join(testTempDir('drb-field-run-opts-'), 'out');
    const run = await runCli(['field-run', '--protocol', 'nope', '--url', url, '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd()).toBe('error: --protocol: the page has no protocols/nope.json (HTTP 404)');
    expect(existsSync(out)).toBe(false);
  });

  it('refuses an --out folder that already holds files', async () => {
    const dir = testTempDir('drb-field-run-opts-');
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'out', 'earlier.json'), '{}');
    const run = await runCli([
      'field-run',
      '--protocol',
      'ort-tiny-xenc-wasm',
      '--url',
      url,
      '--out',
      join(dir, 'out'),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd()).toBe(
      `error: ${join(dir, 'out')}: --out: folder is not empty (a field run never overwrites earlier files)`,
    );
    expect(readdirSync(join(dir, 'out'))).toEqual(['earlier.json']);
  });

  it('a WebDriver endpoint that refuses the session: one line, the secrets it echoes scrubbed, --out untouched', async () => {
    const secrets = ['hub-user-SECRET', 'KEY-SECRET-123'];
    const refusing = createServer((req, res) => {
      res.writeHead(req.method === 'POST' && req.url === '/wd/hub/session' ? 500 : 404, {
        'content-type': 'application/json',
      });
      res.end(
        JSON.stringify({
          value: {
            error: req.url === '/wd/hub/session' ? 'session not created' : 'unknown command',
            message: `Authorization failed for ${secrets[0]} (key ${secrets[1]})`,
            stacktrace: '',
          },
        }),
      );
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/wd/hub`;
      const dir = testTempDir('drb-field-run-refused-');
      const caps = join(dir, 'caps.json');
      writeFileSync(
        caps,
        JSON.stringify({ browserName: 'safari', 'bstack:options': { userName: secrets[0], accessKey: secrets[1] } }),
      );
      const out = join(dir, 'out');
      const run = await runCli([
        'field-run',
        '--protocol',
        'ort-tiny-xenc-wasm',
        '--url',
        url,
        '--webdriver',
        endpoint,
        '--capabilities',
        caps,
        '--out',
        out,
      ]);
      expect(run.code).toBe(1);
      const errors = run.stderr.split('\n').filter((line) => line.startsWith('error: '));
      expect(errors).toEqual([
        'error: webdriver: WebDriver POST /session: session not created: Authorization failed for [redacted] ' +
          '(key [redacted]) (no receipt made; nothing written to --out)',
      ]);
      expect(run.stderr.trimEnd().split('\n').at(-1)).toBe(errors[0]);
      for (const secret of secrets) expect(run.stderr).not.toContain(secret);
      expect(run.stdout).toBe('');
      expect(existsSync(out)).toBe(false);
    } finally {
      refusing.closeAllConnections();
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  });

  it('a CDP endpoint nothing listens on: one line naming the refused connection, an empty --out left empty', async () => {
    // A port that was just free: bound, then closed.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const out = testTempDir('drb-field-run-cdp-gone-');
    const run = await runCli([
      'field-run',
      '--protocol',
      'ort-tiny-xenc-wasm',
      '--url',
      url,
      '--cdp',
      `http://127.0.0.1:${port}`,
      '--out',
      out,
      '--connect-timeout-ms',
      '10000',
    ]);
    expect(run.code).toBe(1);
    const errors = run.stderr.split('\n').filter((line) => line.startsWith('error: '));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^error: cdp: .*ECONNREFUSED.* \(no receipt made; nothing written to --out\)$/);
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe(errors[0]);
    expect(run.stdout).toBe('');
    // The folder was there and empty before: it stays so.
    expect(readdirSync(out)).toEqual([]);
  });
});
