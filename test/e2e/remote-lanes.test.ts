/**
 * The lanes that attach to a browser started elsewhere, end to end: `drb public-pass` and `drb field-run` over
 * `--webdriver` against a WebKitWebDriver started separately on its own port (the W3C protocol safaridriver and Appium
 * speak), and over `--cdp` against a Chromium started separately with `--remote-debugging-port=0` (one driver and one
 * browser serve both commands). All at phone size (390 x 844 asked for); the broken endpoints are
 * test/unit/public-pass.test.ts's and test/unit/field-run.test.ts's (no browser needed).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { PublicPassRecord } from '../../src/core/automation/public-pass.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { ReceiptBundle } from '../../src/core/field/receipt-bundle.ts';
import { CHROMIUM_BASE_ARGS, CHROMIUM_EXECUTABLE } from '../../src/node/chromium.ts';
import type { StaticServer } from '../../src/node/static-server.ts';
import { MINIBROWSER_PATH, WebKitDriver } from '../../src/node/webkit-driver.ts';
import { serveBuild, validationProblems } from './lane-checks.ts';

/** Runs the CLI in-process and captures what it prints. */
async function drb(args: string[]) {
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const code = await main(args);
    return {
      code,
      stdout: out.mock.calls.map((c) => String(c[0])).join(''),
      stderr: err.mock.calls.map((c) => String(c[0])).join(''),
    };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** Every file under `dir`, read as text (to look for what must never be written). */
async function allText(dir: string): Promise<string> {
  const texts: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) texts.push(await readFile(join(entry.parentPath, entry.name), 'utf8'));
  }
  return texts.join('\n');
}

/** The checks both lanes share: a PUBLIC_PASS at (about) phone size, valid network-cold receipts. */
async function expectPass(out: string, stdout: string, lane: 'webdriver' | 'cdp'): Promise<PublicPassRecord> {
  const record = PublicPassRecord.parse(JSON.parse(await readFile(join(out, 'public-pass.json'), 'utf8')));
  expect(stdout).toMatch(new RegExp(`^PUBLIC_PASS ${record.url} ${lane} `));
  expect(record).toMatchObject({ lane, evidence_state: 'PUBLIC_PASS', page_state: 'done', device_pass_implied: false });
  expect(record.window.requested).toEqual({ width: 390, height: 844 });
  // What the page measured, whatever the lane managed to set: a phone-sized page opens protocol mode.
  expect(record.window.measured?.inner_height).toBe(844);
  expect(record.window.measured?.inner_width).toBeLessThan(600);
  expect(record.receipts.map((r) => [r.run_kind, r.outcome, r.problems, r.cold_from_cache])).toEqual([
    ['cold', 'ok', [], false],
    ['warm', 'ok', [], null],
  ]);
  for (const entry of record.receipts) {
    const receipt = JSON.parse(await readFile(join(out, entry.file), 'utf8'));
    expect(validationProblems(receipt)).toEqual([]);
    // An attached lane cannot know the process was new: no driver attestation reaches the receipt.
    expect(receipt.run.attestations ?? []).toEqual([]);
  }
  expect(record.run_params.driver_fresh).toBeUndefined();
  // Attached: the driver states what it did, never a new process or an empty profile it cannot know.
  expect(record.driver_statement).toMatchObject({
    stated_by: expect.stringMatching(new RegExp(`^drb \\S+ public-pass, ${lane} lane$`)),
    browser_process: 'attached',
    process_new: null,
    profile_empty: null,
  });
  return record;
}

/**
 * `drb field-run` with the shipped fixture protocol over an attached lane: every cold and warm receipt made and
 * valid, each cold measured network-cold but attested by nobody (the lane did not start the browser), one bundle
 * `drb receipts validate` accepts, a summary of 0 full protocol colds, and stderr's note saying so.
 */
async function fieldRunAttached(lane: 'webdriver' | 'cdp', laneArgs: string[]) {
  const out = join(work, `field-run-${lane}`);
  const run = await drb([
    'field-run',
    '--protocol',
    'ort-tiny-xenc-wasm',
    '--url',
    server.url,
    ...laneArgs,
    '--window',
    '390x844',
    '--out',
    out,
    '--timeout-ms',
    '120000',
    // The command's default (120 s) for each new session: in the suite's loaded lane WebKitWebDriver once took over
    // 60 s to start the second cold's browser after the first session's twenty warm runs.
  ]);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toContain('cold 3 of 5');
  expect(run.stderr).toContain('warm 12 of 20');
  // Every cold in a new session, the site's data cleared through the protocol first.
  expect(run.stderr.match(/^cleared the site's data: /gm)).toHaveLength(5);
  expect(run.stderr).toMatch(
    new RegExp(
      `^note: the ${lane} lane attached to a browser it did not start: its cold receipts are measured network-cold but not attested .* count as 0 full protocol colds and this bundle cannot reach DEVICE_PASS`,
      'm',
    ),
  );
  expect(run.stderr).not.toMatch(/^error: /m);
  expect(run.stdout).toMatch(new RegExp(`^FIELD_RUN ort-tiny-xenc-wasm ${lane} \\(25 receipts\\) -> `));
  const bundles = (await readdir(out)).filter((f) => f.includes('-bundle-'));
  expect(bundles).toHaveLength(1);
  const bundleFile = join(out, bundles[0]);
  const bundle = ReceiptBundle.parse(JSON.parse(await readFile(bundleFile, 'utf8')));
  expect(await readdir(join(out, 'receipts'))).toHaveLength(25);
  const receipts = bundle.receipts as Array<{
    run: { kind: string; cold_from_cache?: boolean; attestations?: unknown[] };
    outcome: { status: string };
  }>;
  expect(receipts.map((r) => r.run.kind).sort()).toEqual([...Array(5).fill('cold'), ...Array(20).fill('warm')]);
  for (const r of receipts) {
    expect(validationProblems(r)).toEqual([]);
    expect(r.outcome.status).toBe('ok');
  }
  for (const cold of receipts.filter((r) => r.run.kind === 'cold')) {
    expect(cold.run.cold_from_cache).toBe(false);
    // Attached: no driver statement of a new process or an empty profile reaches the receipt.
    expect(cold.run.attestations ?? []).toEqual([]);
  }
  // What the endpoint reports goes into the sheet; what no driver can read stays empty for a person.
  expect(bundle.sheet.browser_version).not.toBe('');
  expect(bundle.sheet).toMatchObject({ device_model: '', ram_gb: null, os_build: '', network: '', notes: '' });
  expect((await drb(['receipts', 'validate', bundleFile])).code).toBe(0);
  const summary = ReceiptsSummary.parse(JSON.parse(await readFile(join(out, 'summary', 'summary.json'), 'utf8')));
  expect(summary.targets).toHaveLength(1);
  expect(summary.targets[0].counts).toMatchObject({
    full_cold: 0,
    measured_network_cold: 5,
    attested_cold: 0,
    clean_warm: 20,
    warm_minimum_met: true,
  });
  const template = JSON.parse(await readFile(join(out, 'review-template.json'), 'utf8'));
  expect(template.device).toMatchObject({ hardware_model: '', ram_gb: null, os_build: '' });
  return { out, stderr: run.stderr, stdout: run.stdout, bundle };
}

let server: StaticServer;
let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'drb-remote-lanes-'));
  server = await serveBuild();
});
afterAll(async () => {
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

describe('drb public-pass --webdriver', () => {
  let driver: WebKitDriver;
  beforeAll(async () => {
    driver = await WebKitDriver.start({ compositing: false });
  });
  afterAll(async () => {
    await driver?.close();
  });

  it('drives a separately started WebKitWebDriver: capabilities recorded without secrets, window measured', async () => {
    const caps = join(work, 'caps.json');
    await writeFile(
      caps,
      JSON.stringify({
        browserName: 'MiniBrowser',
        'webkitgtk:browserOptions': { binary: MINIBROWSER_PATH, args: ['--automation'] },
      }),
    );
    const out = join(work, 'webdriver');
    const { code, stdout, stderr } = await drb([
      'public-pass',
      '--url',
      server.url,
      '--webdriver',
      driver.baseUrl,
      '--capabilities',
      caps,
      '--window',
      '390x844',
      '--out',
      out,
      '--timeout-ms',
      '120000',
      '--connect-timeout-ms',
      '60000',
    ]);
    expect(code, stderr).toBe(0);
    const record = await expectPass(out, stdout, 'webdriver');
    expect(record.endpoint).toBe(`${driver.baseUrl}/`);
    expect(record.browser).toMatchObject({ name: 'MiniBrowser', version: expect.stringMatching(/^2\.\d+\.\d+$/) });
    expect(record.capabilities).toEqual({
      requested: { browserName: 'MiniBrowser' },
      not_recorded: ['webkitgtk:browserOptions'],
      matched: expect.objectContaining({ browserName: 'MiniBrowser', platformName: 'linux' }),
    });
    expect(record.window.set_by).toMatch(/^W3C Set Window Rect/);
    // MiniBrowser's toolbar keeps its window wider than 390 px: the record says so instead of claiming the size.
    if (record.window.measured?.inner_width !== 390) expect(record.window.problem).toMatch(/^asked for 390 x 844/);
    // What WebDriver and a page of the origin can clear, and what they cannot (the HTTP cache, the process's memory).
    expect(record.driver_statement.site_data_cleared).toEqual({
      via: expect.stringMatching(/^W3C Delete All Cookies, then a script/),
      cleared: ['cookies', 'local_storage', 'indexeddb', 'cache_storage', 'service_workers'],
      // WebKitGTK's ephemeral automation profile gives a page no origin private file system to clear.
      not_cleared: ['opfs', 'http_cache', 'in_memory_caches'],
    });
    // The binary's path stands for what a hub's options hold: no record, receipt, summary or log line has it.
    const written = `${await allText(out)}${stdout}${stderr}`;
    expect(written).not.toContain(MINIBROWSER_PATH);
  });

  it("drb field-run over it: the protocol's 5 colds and 20 warms in one valid bundle, the colds unattested", async () => {
    const caps = join(work, 'caps-field-run.json');
    await writeFile(
      caps,
      JSON.stringify({
        browserName: 'MiniBrowser',
        'webkitgtk:browserOptions': { binary: MINIBROWSER_PATH, args: ['--automation'] },
      }),
    );
    const { out, stderr, stdout, bundle } = await fieldRunAttached('webdriver', [
      '--webdriver',
      driver.baseUrl,
      '--capabilities',
      caps,
    ]);
    expect(bundle.sheet).toMatchObject({
      browser: 'MiniBrowser',
      browser_version: expect.stringMatching(/^2\.\d+\.\d+$/),
    });
    // MiniBrowser's toolbar keeps its window wider than 390 px: stderr says what the page measured, once
    // (no receipt records the viewport, so field-run's stderr is where a size it could not set is said).
    const window = stderr.match(/^window: asked for 390 x 844, the page measures (\d+) x 844 \(W3C Set Window Rect/gm);
    expect(window, stderr).toHaveLength(1);
    expect(Number(/measures (\d+)/.exec(window![0])![1])).toBeGreaterThan(390);
    const written = `${await allText(out)}${stdout}${stderr}`;
    expect(written).not.toContain(MINIBROWSER_PATH);
  }, 600_000);
});

describe('drb public-pass --cdp', () => {
  let chromium: ChildProcess;
  let profile: string;
  let endpoint: string;
  beforeAll(async () => {
    profile = await mkdtemp(join(tmpdir(), 'drb-cdp-profile-'));
    chromium = spawn(
      CHROMIUM_EXECUTABLE,
      [...CHROMIUM_BASE_ARGS, `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank'],
      { stdio: 'ignore' },
    );
    // Chromium writes the port it took into DevToolsActivePort (first line) once it listens.
    const portFile = join(profile, 'DevToolsActivePort');
    const until = Date.now() + 30_000;
    while (!existsSync(portFile) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
    const port = (await readFile(portFile, 'utf8')).split('\n')[0];
    endpoint = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    if (chromium?.exitCode === null) {
      const exited = new Promise((resolve) => chromium.once('exit', resolve));
      chromium.kill('SIGTERM');
      await exited;
    }
    await rm(profile, { recursive: true, force: true });
  });

  it("attaches to a running Chromium, clears the site's data through CDP and says so, and leaves it running", async () => {
    const out = join(work, 'cdp');
    const { code, stdout, stderr } = await drb([
      'public-pass',
      '--url',
      server.url,
      '--cdp',
      endpoint,
      '--window',
      '390x844',
      '--out',
      out,
      '--timeout-ms',
      '120000',
    ]);
    expect(code, stderr).toBe(0);
    const record = await expectPass(out, stdout, 'cdp');
    expect(record.endpoint).toBe(`${endpoint}/`);
    // What the endpoint's /json/version says (Debian's Chromium answers `Chrome/<version>`).
    expect(record.browser.name).toMatch(/Chrom/);
    expect(record.window).toMatchObject({
      problem: null,
      measured: { inner_width: 390, inner_height: 844 },
      set_by: expect.stringMatching(/^playwright setViewportSize/),
    });
    expect(record.driver_statement.site_data_cleared).toMatchObject({
      via: expect.stringMatching(/Storage\.clearDataForOrigin/),
      cleared: expect.arrayContaining(['indexeddb', 'cache_storage', 'http_cache']),
    });
    // The browser was not the pass's to close: it still answers.
    expect((await fetch(`${endpoint}/json/version`)).ok).toBe(true);
    expect(chromium.exitCode).toBeNull();
  });

  it("drb field-run over it: the protocol's 5 colds and 20 warms in one valid bundle, the colds unattested", async () => {
    const { stderr, bundle } = await fieldRunAttached('cdp', ['--cdp', endpoint]);
    expect(bundle.sheet.browser).toMatch(/Chrom/);
    // CDP sets the viewport exactly: nothing to say about the window.
    expect(stderr).not.toMatch(/^window: /m);
    expect(stderr).toContain("cleared the site's data: CDP Storage.clearDataForOrigin");
    expect((await fetch(`${endpoint}/json/version`)).ok).toBe(true);
    expect(chromium.exitCode).toBeNull();
  }, 600_000);
});
