/**
 * `drb public-pass --url URL [--browser chromium|webkit | --webdriver URL [--capabilities FILE] | --cdp URL]
 * [--window WxH] [--out DIR] [--timeout-ms N] [run options]`: opens a deployed page anonymously, in a browser it
 * starts with a fresh profile or one behind a WebDriver or DevTools endpoint, runs cold and warm through the
 * automation contract, saves and validates the receipts, and writes a `drb.public-pass.v2` record (see
 * src/core/automation/public-pass.ts). A pass that fails still writes its record, with the reason, and exits 1.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { toSearchParams, type AutomationSettings } from '../core/automation/automation.ts';
import {
  buildPublicPassRecord,
  PassBrowser,
  type PassLane,
  type PassReceiptFile,
  type PassWindow,
  type PublicPassRecord,
} from '../core/automation/public-pass.ts';
import {
  capabilitySecrets,
  recordCapabilities,
  scrubSecrets,
  WebDriverCapabilities,
} from '../core/automation/webdriver-capabilities.ts';
import type { DriverStatement } from '../core/automation/driver-statement.ts';
import { firstIssueLine } from '../core/text/zod-issues.ts';
import { terminalText } from '../core/text/terminal-text.ts';
import { displayPath, parseJson, readBytes } from './receipt-files.ts';
import { toolVersion } from './tool-version.ts';
import { EngineName, ExecutionProvider } from '../core/receipt/receipt.ts';
import { artifactFileName, compactUtcTime, receiptNameParts } from '../core/receipt/receipt-envelope.ts';
import { validateReceipt } from '../core/validation/validate-receipt.ts';
import { redactUrl } from '../core/text/redact.ts';
import { sha256Hex } from '../core/bytes/sha256.ts';
import type { BrowserLane, LanePage } from '../node/browser-lane.ts';
import { CliError } from './cli-error.ts';
import { fsProblem, makeOutputDir } from './output-files.ts';
import { setExitCode } from './exit-code.ts';
import { summarizeReceipts } from './summarize-receipts.ts';
import { preflight } from './page-lane.ts';
import { reduceUserAgent } from '../core/receipt/capability-bounds.ts';

/** The record's file name inside the output folder. */
export const PUBLIC_PASS_FILE = 'public-pass.json';

/** How a pass reaches its browser: one it starts, or an endpoint (URL without credentials, query or fragment). */
export type PassLaneSpec =
  | { lane: PassBrowser; webgpu: boolean }
  | { lane: 'webdriver'; endpoint: string; capabilities: WebDriverCapabilities }
  | { lane: 'cdp'; endpoint: string };

/** What `runPublicPass` needs (the CLI options, parsed). */
export interface PublicPassOptions {
  /** The page URL; its query and fragment are dropped. */
  url: string;
  lane: PassLaneSpec;
  /** The viewport to ask for, in CSS pixels (null: the lane's default). */
  window: { width: number; height: number } | null;
  /** Longest creating a WebDriver session or connecting over CDP may take, in ms. */
  connectTimeoutMs: number;
  /** Output folder; must not exist yet or be empty. */
  outDir: string;
  /** Longest the page may take to finish cold + warm, in ms. */
  timeoutMs: number;
  /** Automation settings besides `autorun` (engine, ep, threads, model, warm runs, allow fallback). */
  settings: Partial<AutomationSettings>;
  /** Progress lines (stderr in the CLI). */
  log: (line: string) => void;
}

/** The revision and the state the page reports through the automation contract. */
interface PageReport {
  state: string | null;
  app: { version: string | null; commit: string | null } | null;
  receipts: unknown[];
  userAgent: string;
  errorText: string | null;
  viewport: { width: number; height: number; dpr: number };
}

// Reads what the automation contract exposes. `window.drbApp` is the page's revision; the error text is what the
// page shows for a refused parameter (the parameter and the value this pass set, never user text).
const READ_PAGE_REPORT = `
  const app = window.drbApp ?? null;
  const errorNodes = [...document.querySelectorAll('[data-testid="param-error"]')];
  return {
    state: document.documentElement.dataset.drbState ?? null,
    app: app ? { version: app.version ?? null, commit: app.commit ?? null } : null,
    receipts: Array.isArray(window.drbReceipts) ? window.drbReceipts : [],
    userAgent: navigator.userAgent,
    errorText: errorNodes.length > 0 ? errorNodes.map((n) => n.textContent.trim()).join('; ').slice(0, 500) : null,
    viewport: { width: window.innerWidth, height: window.innerHeight, dpr: window.devicePixelRatio },
  };
`;

/**
 * A receipt's file name: the page's own download name (`artifactFileName`), with `-<n>` before `.json` when an
 * earlier receipt of this pass took that name (two receipts made in the same second).
 * @param receipt the receipt as the page returned it (malformed parts are named `unknown`)
 * @param taken the names already used in this pass
 */
function receiptFileName(receipt: unknown, taken: Set<string>): string {
  const base = artifactFileName(receiptNameParts(receipt));
  let name = base;
  for (let n = 2; taken.has(name); n++) name = base.replace(/\.json$/, `-${n}.json`);
  taken.add(name);
  return name;
}

/** What `drb receipts validate` finds wrong with one receipt, as `<field path>: <problem>` lines. */
function receiptProblems(value: unknown): string[] {
  return validateReceipt(value).problems.map((p) => `${p.path || '(document)'}: ${p.message}`);
}

/** The summary folder inside a pass's output folder. */
export const PUBLIC_PASS_SUMMARY_DIR = 'summary';

/** Refuses an output folder that already holds files: a pass never overwrites earlier evidence. */
async function prepareOutDir(outDir: string): Promise<void> {
  let entries: string[] | null = null;
  try {
    entries = await readdir(outDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR')
      throw new CliError(`${outDir}: --out: is a file, not a folder`);
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new CliError(`${outDir}: --out: ${(error as Error).message}`);
  }
  if (entries !== null && entries.length > 0) {
    throw new CliError(
      `${outDir}: --out: folder is not empty (a public pass never overwrites earlier files; choose a new folder)`,
    );
  }
  makeOutputDir(outDir, '--out');
}

/** Writes a new file (never over an existing one), as one error line when it cannot. */
async function writeNewFile(path: string, content: string | Uint8Array): Promise<void> {
  try {
    await writeFile(path, content, { flag: 'wx' });
  } catch (error) {
    throw new CliError(`--out: cannot write ${path}: ${fsProblem(error)}`, 1);
  }
}

/** The page's viewport as the record keeps it (whole CSS pixels), or null when the values are not numbers. */
function measuredViewport(viewport: unknown): PassWindow['measured'] {
  const v = viewport as { width?: unknown; height?: unknown; dpr?: unknown } | null;
  if (!v || typeof v.width !== 'number' || typeof v.height !== 'number' || typeof v.dpr !== 'number') return null;
  if (!(v.width >= 0 && v.height >= 0 && v.dpr > 0 && Number.isFinite(v.dpr))) return null;
  return { inner_width: Math.round(v.width), inner_height: Math.round(v.height), device_pixel_ratio: v.dpr };
}

/** The product a DevTools endpoint reports (`Chrome`, `HeadlessChrome`, `Edg`...: `/json/version`'s `Browser`). */
export async function cdpProduct(endpoint: string): Promise<string | null> {
  try {
    const response = await fetch(new URL('json/version', endpoint.endsWith('/') ? endpoint : `${endpoint}/`), {
      signal: AbortSignal.timeout(5_000),
    });
    const browser = ((await response.json()) as { Browser?: unknown }).Browser;
    return typeof browser === 'string' ? browser.split('/')[0].slice(0, 128) || null : null;
  } catch {
    return null;
  }
}

/**
 * Runs one public pass and writes its receipts and record into `options.outDir`.
 * @param options see PublicPassOptions
 * @returns the record (also written to `<outDir>/public-pass.json`)
 */
export async function runPublicPass(
  options: PublicPassOptions,
): Promise<{ record: PublicPassRecord; recordPath: string }> {
  const pageUrl = redactUrl(options.url);
  await prepareOutDir(options.outDir);
  const startedAt = new Date();
  // A lane that starts its browser with a new, empty profile says so to the page, which records it in the cold
  // receipt as the driver's attestation (never as measured); an attached lane cannot know it and says nothing.
  const driverFresh = options.lane.lane === 'chromium' || options.lane.lane === 'webkit' ? options.lane.lane : null;
  const params = toSearchParams({ ...options.settings, autorun: ['cold', 'warm'], driverFresh });
  const runParams = Object.fromEntries(params);
  const query = params.toString();
  const spec = options.lane;
  const laneName: PassLane = spec.lane;
  // Strings of the capabilities file a record never keeps: scrubbed from every message an endpoint sends back.
  const secrets = spec.lane === 'webdriver' ? capabilitySecrets(spec.capabilities) : [];
  const scrub = (text: string) => scrubSecrets(text, secrets);
  const findings = {
    url: pageUrl,
    lane: laneName,
    endpoint: spec.lane === 'webdriver' || spec.lane === 'cdp' ? redactUrl(spec.endpoint) : null,
    browser: {
      name: spec.lane === 'chromium' || spec.lane === 'webkit' ? (spec.lane as string | null) : null,
      version: null as string | null,
      userAgent: null as string | null,
    },
    capabilities: spec.lane === 'webdriver' ? recordCapabilities(spec.capabilities, {}) : null,
    window: {
      requested: options.window,
      set_by: null,
      problem: null,
      measured: null,
    } as PassWindow,
    driverStatement: {
      stated_by: `drb ${toolVersion()} public-pass, ${laneName} lane`,
      how: 'the lane never opened a page',
      browser_process: spec.lane === 'webdriver' || spec.lane === 'cdp' ? 'attached' : 'started',
      process_new: null,
      profile_empty: null,
      site_data_cleared: null,
    } as DriverStatement,
    runParams,
    page_state: 'not-loaded' as PublicPassRecord['page_state'],
    revision: { app_version: null as string | null, commit: null as string | null },
    receipts: [] as PassReceiptFile[],
    summary: null as { file: string; sha256: string } | null,
    fatalReason: null as string | null,
  };

  findings.fatalReason = await preflight(pageUrl, options.timeoutMs);
  let lane: BrowserLane | null = null;
  let page: LanePage | null = null;
  if (findings.fatalReason === null) {
    try {
      // Imported here, not at the top: playwright-core takes ~0.8 s to load, and every drb command would pay it.
      const lanes = await import('../node/browser-lane.ts');
      const remote = { scriptTimeoutMs: options.timeoutMs, connectTimeoutMs: options.connectTimeoutMs };
      if (spec.lane === 'webdriver') {
        options.log(`opening ${pageUrl} in a new session of the WebDriver endpoint ${findings.endpoint}`);
        const webdriver = lanes.openWebDriverLane(spec.endpoint, spec.capabilities, remote);
        lane = webdriver;
        page = await webdriver.newPage();
        findings.capabilities = recordCapabilities(spec.capabilities, webdriver.matched);
        findings.browser.name =
          typeof webdriver.matched.browserName === 'string' ? webdriver.matched.browserName : null;
      } else if (spec.lane === 'cdp') {
        options.log(`opening ${pageUrl} in a new tab of the browser at ${findings.endpoint} (CDP)`);
        lane = await lanes.openCdpLane(spec.endpoint, remote);
        page = await lane.newPage();
        findings.browser.name = await cdpProduct(spec.endpoint);
      } else {
        options.log(`opening ${pageUrl} in a fresh ${spec.lane} profile`);
        lane = await lanes.openLane(spec.lane, { webgpu: spec.webgpu, scriptTimeoutMs: options.timeoutMs });
        page = await lane.newPage();
      }
      findings.browser.version = lane.version;
      if (options.window !== null) {
        const set = await page.setViewport(options.window.width, options.window.height);
        findings.window = { ...findings.window, set_by: set.setBy, problem: set.problem && scrub(set.problem) };
        if (set.problem) options.log(`window: ${findings.window.problem}`);
      }
      const cleared = await page.clearSiteData(new URL(pageUrl).origin);
      if (cleared) options.log(`cleared the site's data: ${cleared.via}`);
      findings.driverStatement = { stated_by: findings.driverStatement.stated_by, ...page.statement };
      await page.goto(`${pageUrl}?${query}`);
      findings.page_state = 'timeout';
      try {
        await page.waitFor<string>(
          `const s = document.documentElement.dataset.drbState; return s === 'done' || s === 'failed' ? s : null;`,
          {
            timeoutMs: options.timeoutMs,
            pollMs: 250,
            description: 'the page to finish cold and warm (data-drb-state done or failed)',
          },
        );
      } catch (error) {
        findings.fatalReason = scrub((error as Error).message);
        if (!/^timed out after/.test(findings.fatalReason)) findings.page_state = 'lost';
      }
      const report = await page.evaluate<PageReport>(READ_PAGE_REPORT);
      if (report.state === 'done' || report.state === 'failed') findings.page_state = report.state;
      // Recorded as the receipts record it by default (versions cut to their majors): the pass makes no choice to
      // share full device details, so its record says no more about the browser than its receipts do.
      findings.browser.userAgent = reduceUserAgent(report.userAgent);
      findings.revision = { app_version: report.app?.version ?? null, commit: report.app?.commit ?? null };
      findings.window.measured = measuredViewport(report.viewport);
      if (findings.page_state === 'failed' && report.receipts.length === 0) {
        findings.fatalReason = `the page failed before any receipt: ${report.errorText ?? 'it showed no error'}`;
      }
      const taken = new Set<string>();
      for (const receipt of report.receipts) {
        const file = receiptFileName(receipt, taken);
        const text = `${JSON.stringify(receipt, null, 2)}\n`;
        const bytes = new TextEncoder().encode(text);
        await writeNewFile(join(options.outDir, file), bytes);
        const r = receipt as {
          run?: { kind?: unknown };
          outcome?: { status?: unknown; reason?: unknown };
          app?: { commit?: unknown };
        };
        const run = (receipt as { run?: { cold_from_cache?: unknown } })?.run;
        findings.receipts.push({
          cold_from_cache: typeof run?.cold_from_cache === 'boolean' ? run.cold_from_cache : null,
          file,
          sha256: await sha256Hex(bytes),
          bytes: bytes.byteLength,
          run_kind: r?.run?.kind === 'cold' || r?.run?.kind === 'warm' ? r.run.kind : null,
          outcome: r?.outcome?.status === 'ok' || r?.outcome?.status === 'failed' ? r.outcome.status : null,
          reason: typeof r?.outcome?.reason === 'string' ? r.outcome.reason : null,
          app_commit: typeof r?.app?.commit === 'string' ? r.app.commit : null,
          problems: receiptProblems(receipt),
        });
      }
      options.log(`page ended "${findings.page_state}" with ${findings.receipts.length} receipt(s)`);
      // "A run that is not summarised did not happen": summarise what the pass saved, as `drb receipts summarize` does.
      if (findings.receipts.some((r) => r.problems.length === 0)) {
        try {
          const summaryDir = join(options.outDir, PUBLIC_PASS_SUMMARY_DIR);
          const { json } = await summarizeReceipts(
            findings.receipts.map((r) => join(options.outDir, r.file)),
            summaryDir,
          );
          findings.summary = { file: relative(options.outDir, json), sha256: await sha256Hex(await readFile(json)) };
        } catch (error) {
          findings.fatalReason ??= `summarising the receipts failed: ${(error as Error).message}`;
        }
      }
    } catch (error) {
      findings.fatalReason ??= scrub(`${laneName}: ${(error as Error).message}`);
    } finally {
      await page?.close().catch(() => {});
      await lane?.close().catch(() => {});
    }
  }

  const finishedAt = new Date();
  const record = buildPublicPassRecord({
    ...findings,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
  });
  const recordPath = join(options.outDir, PUBLIC_PASS_FILE);
  await writeNewFile(recordPath, `${JSON.stringify(record, null, 2)}\n`);
  return { record, recordPath };
}

/** A commander parser for a positive integer option, as one error line naming the flag. */
export function positiveInt(flag: string) {
  return (value: string) => {
    if (!/^[1-9][0-9]*$/.test(value)) throw new CliError(`${flag}: expected a positive integer, got '${value}'`);
    return Number(value);
  };
}

/** `--window WxH` as CSS pixels (each from 1 to 10000). */
export function parseWindow(value: string): { width: number; height: number } {
  const match = /^([1-9][0-9]{0,4})x([1-9][0-9]{0,4})$/.exec(value);
  if (!match || Number(match[1]) > 10_000 || Number(match[2]) > 10_000)
    throw new CliError(`--window: expected WIDTHxHEIGHT in CSS pixels (e.g. 390x844), got '${terminalText(value)}'`);
  return { width: Number(match[1]), height: Number(match[2]) };
}

/**
 * An endpoint URL (`--webdriver`, `--cdp`): http or https, with no credentials, query or fragment. A URL with
 * credentials is refused, not redacted: they would otherwise travel in every request line a proxy or hub logs, and a
 * hub takes them in the capabilities file instead (its `vendor:options`, never recorded).
 * @param flag the option's name
 * @param value what was given
 */
export function parseEndpoint(flag: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${flag}: not a URL: '${terminalText(redactUrl(value))}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`${flag}: expected http or https, got '${terminalText(url.protocol)}'`);
  if (url.username || url.password)
    throw new CliError(
      `${flag}: a URL with credentials is refused (drb never records or sends them in a URL); put a hub's user and key in the capabilities file (e.g. bstack:options, sauce:options), which no record keeps`,
    );
  if (url.search || url.hash) throw new CliError(`${flag}: a query or fragment is refused (it may carry a token)`);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/**
 * Reads and validates `--capabilities FILE` (one JSON object of W3C capabilities), as one error line naming the
 * file and the field.
 * @param file the path
 */
export function readCapabilities(file: string): WebDriverCapabilities {
  const parsed = parseJson(readBytes(file, 1024 * 1024));
  if (!parsed.ok) throw new CliError(`${displayPath(file)}: ${parsed.message}`);
  if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value))
    throw new CliError(`${displayPath(file)}: (root): expected one JSON object of W3C capabilities`);
  const caps = WebDriverCapabilities.safeParse(parsed.value);
  if (!caps.success) throw new CliError(`${displayPath(file)}: ${terminalText(firstIssueLine(caps.error))}`);
  return caps.data;
}

/** Registers `drb public-pass`'s options and action on its command (named and described in main.ts). */
export function register(command: Command): void {
  command
    .requiredOption('--url <url>', 'the page URL (http or https; query and fragment are dropped)')
    .option('--browser <name>', 'chromium or webkit, started with a fresh profile (default chromium)')
    .option(
      '--webdriver <url>',
      'drive the browser behind this W3C WebDriver endpoint instead (no credentials in the URL)',
    )
    .option('--capabilities <file>', 'with --webdriver: a JSON object of W3C capabilities to ask for')
    .option('--cdp <url>', 'drive the Chromium-family browser behind this DevTools endpoint instead (connectOverCDP)')
    .option('--window <WxH>', 'the viewport to ask for, in CSS pixels (e.g. 390x844)')
    .option(
      '--connect-timeout-ms <n>',
      'longest creating the WebDriver session or connecting over CDP may take',
      positiveInt('--connect-timeout-ms'),
      120_000,
    )
    .option('--out <dir>', 'output folder (must be new or empty; default receipts/public-pass/<time>-<browser>)')
    .option('--timeout-ms <n>', 'longest the page may take for cold + warm', positiveInt('--timeout-ms'), 300_000)
    .option('--engine <name>', 'automation param engine (default: the page default)')
    .option('--model <id>', 'automation param model (default: the page default)')
    .option('--ep <ep>', 'automation param ep: wasm or webgpu (default: the page default)')
    .option('--threads <n>', 'automation param threads', positiveInt('--threads'))
    .option('--warm-runs <n>', 'automation param warm_runs', positiveInt('--warm-runs'))
    .option('--allow-fallback', 'automation param allow_fallback=1')
    .option('--webgpu', 'chromium only: start it with --enable-unsafe-webgpu')
    .action(async function (
      this: Command,
      opts: {
        url: string;
        browser?: string;
        webdriver?: string;
        capabilities?: string;
        cdp?: string;
        window?: string;
        connectTimeoutMs: number;
        out?: string;
        timeoutMs: number;
        engine?: string;
        model?: string;
        ep?: string;
        threads?: number;
        warmRuns?: number;
        allowFallback?: boolean;
        webgpu?: boolean;
      },
    ) {
      const chosen = [opts.browser && '--browser', opts.webdriver && '--webdriver', opts.cdp && '--cdp'].filter(
        Boolean,
      );
      if (chosen.length > 1) throw new CliError(`${chosen.join(', ')}: give one of them`);
      if (opts.capabilities !== undefined && opts.webdriver === undefined)
        throw new CliError('--capabilities: only with --webdriver');
      const browser = PassBrowser.safeParse(opts.browser ?? 'chromium');
      if (!browser.success)
        throw new CliError(`--browser: expected chromium or webkit, got '${terminalText(String(opts.browser))}'`);
      if (opts.webgpu && (browser.data !== 'chromium' || chosen[0] === '--webdriver' || chosen[0] === '--cdp'))
        throw new CliError('--webgpu: only for --browser chromium (WebKitGTK has no WebGPU here)');
      const window = opts.window === undefined ? null : parseWindow(opts.window);
      let lane: PassLaneSpec;
      if (opts.webdriver !== undefined) {
        lane = {
          lane: 'webdriver',
          endpoint: parseEndpoint('--webdriver', opts.webdriver),
          capabilities: opts.capabilities === undefined ? {} : readCapabilities(opts.capabilities),
        };
      } else if (opts.cdp !== undefined) {
        lane = { lane: 'cdp', endpoint: parseEndpoint('--cdp', opts.cdp) };
      } else {
        lane = { lane: browser.data, webgpu: Boolean(opts.webgpu) };
      }
      let parsedUrl: URL;
      try {
        parsedUrl = new URL(opts.url);
      } catch {
        throw new CliError(`--url: not a URL: '${redactUrl(opts.url)}'`);
      }
      if (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:')
        throw new CliError(`--url: expected http or https, got '${parsedUrl.protocol}'`);
      if (parsedUrl.search || parsedUrl.hash || parsedUrl.username || parsedUrl.password) {
        process.stderr.write(
          'note: --url: query, fragment and credentials are dropped (the pass sets its own automation parameters)\n',
        );
      }
      const engine = opts.engine === undefined ? undefined : EngineName.safeParse(opts.engine);
      if (engine && !engine.success)
        throw new CliError(`--engine: expected one of ${EngineName.options.join(', ')}, got '${opts.engine}'`);
      const ep = opts.ep === undefined ? undefined : ExecutionProvider.safeParse(opts.ep);
      if (ep && !ep.success)
        throw new CliError(`--ep: expected one of ${ExecutionProvider.options.join(', ')}, got '${opts.ep}'`);
      const settings: Partial<AutomationSettings> = { allowFallback: Boolean(opts.allowFallback) };
      if (engine) settings.engine = engine.data;
      // The model is checked by the page against its own catalog (the deployed page's, not this checkout's).
      if (opts.model) settings.model = opts.model;
      if (ep) settings.ep = ep.data;
      if (opts.threads !== undefined) settings.threads = opts.threads;
      if (opts.warmRuns !== undefined) settings.warmRuns = opts.warmRuns;
      const outDir = resolve(
        opts.out ?? join('receipts', 'public-pass', `${compactUtcTime(new Date().toISOString())}-${lane.lane}`),
      );
      const { record, recordPath } = await runPublicPass({
        url: opts.url,
        lane,
        window,
        connectTimeoutMs: opts.connectTimeoutMs,
        outDir,
        timeoutMs: opts.timeoutMs,
        settings,
        log: (line) => process.stderr.write(`${line}\n`),
      });
      if (record.outcome.status === 'ok') {
        process.stdout.write(
          `PUBLIC_PASS ${record.url} ${record.lane === 'webdriver' || record.lane === 'cdp' ? `${record.lane} ` : ''}${terminalText(record.browser.name ?? '')} ${terminalText(record.browser.version ?? '')} commit ${record.revision.commit} (${record.receipts.length} receipts) -> ${recordPath}\n`,
        );
      } else {
        process.stderr.write(`error: public pass failed: ${record.outcome.reason} (record: ${recordPath})\n`);
        setExitCode(this, 1);
      }
    });
}
