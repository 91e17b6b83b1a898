/**
 * `drb field-run --protocol ID (--browser chromium|webkit | --webdriver URL [--capabilities FILE] | --cdp URL)
 * --out DIR [--url PAGE | --dir DIST] [--window WxH]`: carries out a field protocol's procedure unattended, in the
 * lanes `drb public-pass` uses (src/node/browser-lane.ts), through the page's automation contract in protocol mode:
 *
 * - each cold receipt in a new browser session: a lane that starts its browser opens a new process with a new, empty
 *   profile and says so to the page (`driver_fresh`, recorded as the driver's attestation, never as measured); an
 *   attached lane clears the site's data it can clear through its protocol and states only that;
 * - a cold receipt the page measured as served from a cache is kept, set aside as the page and the summary set it
 *   aside, and the cold is made again (at most `min_cold` extra times);
 * - the warm receipts in one page (the first cold's), each a tap on the page's own next-step button;
 * - the device identity the driver can read (browser and version, the page's revision) in the bundle's sheet, the
 *   rest left empty for a person;
 * - then one receipt bundle, validated with `drb receipts validate`'s code, summarised, and a review template
 *   (`drb receipts review-template`'s code) whose unknown device fields stay empty and are named on stderr.
 *
 * Every receipt is written to `<out>/receipts/` as soon as its session ends, so a browser that dies mid-run leaves
 * what was made; the command then says what is missing and exits 1. An endpoint that gives no session at all is one
 * line (its message's first line, the capabilities' secrets scrubbed), exit 1, --out left as it was. Without --url it serves the built page (--dir,
 * default dist) itself on 127.0.0.1, as `drb serve` does.
 */
import { existsSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { PassBrowser } from '../core/automation/public-pass.ts';
import {
  capabilitySecrets,
  scrubSecrets,
  type WebDriverCapabilities,
} from '../core/automation/webdriver-capabilities.ts';
import { bundleFileName, RECEIPT_BUNDLE_SCHEMA, type ReceiptBundle } from '../core/field/receipt-bundle.ts';
import { parseProtocol, protocolPath, type Protocol } from '../core/field/field-protocol.ts';
import { reviewTemplate } from '../core/evidence/review-answers.ts';
import { artifactFileName, receiptNameParts } from '../core/receipt/receipt-envelope.ts';
import { redactUrl } from '../core/text/redact.ts';
import { terminalText } from '../core/text/terminal-text.ts';
import { catalogModelHosts } from './serve.ts';
import type { BrowserLane, LanePage } from '../node/browser-lane.ts';
import { CliError } from './cli-error.ts';
import { setExitCode } from './exit-code.ts';
import { fsProblem, makeOutputDir } from './output-files.ts';
import {
  cdpProduct,
  parseEndpoint,
  parseWindow,
  positiveInt,
  readCapabilities,
  type PassLaneSpec,
} from './public-pass.ts';
import { collectJsonFiles } from './receipt-files.ts';
import { validateFiles } from './receipts.ts';
import { summarizeReceipts } from './summarize-receipts.ts';

/** A protocol id as a URL path segment may carry it (the page's own protocol files are named so). */
const PROTOCOL_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** What a run made so far: receipts by kind, and the cold ones set aside as served from a cache. */
export interface FieldRunTally {
  cold: number;
  warm: number;
  coldFromCache: number;
}

/**
 * What is missing from a run against its protocol, one line each (empty: nothing is missing).
 * @param tally the receipts made (a cold served from a cache does not count)
 * @param protocol the protocol's minimums
 */
export function missingReceiptLines(tally: FieldRunTally, protocol: Pick<Protocol, 'min_cold' | 'min_warm'>): string[] {
  const lines: string[] = [];
  if (tally.cold < protocol.min_cold) {
    const aside = tally.coldFromCache > 0 ? ` (${tally.coldFromCache} more set aside: served from a cache)` : '';
    lines.push(`missing ${protocol.min_cold - tally.cold} of ${protocol.min_cold} cold receipts${aside}`);
  }
  if (tally.warm < protocol.min_warm) {
    lines.push(`missing ${protocol.min_warm - tally.warm} of ${protocol.min_warm} warm receipts`);
  }
  return lines;
}

/** What `runFieldRun` needs (the CLI options, parsed). */
export interface FieldRunOptions {
  protocolId: string;
  /** The page's URL without query or fragment (ends with `/`). */
  pageUrl: string;
  lane: PassLaneSpec;
  window: { width: number; height: number } | null;
  outDir: string;
  /** Longest one page may take for its runs, in ms. */
  timeoutMs: number;
  connectTimeoutMs: number;
  log: (line: string) => void;
}

/** The end of a run: the files written and what is missing (empty when the procedure is complete). */
export interface FieldRunResult {
  receiptFiles: string[];
  bundleFile: string | null;
  templateFile: string | null;
  missing: string[];
  /** Why the run stopped early (a browser that died, a page that failed); null when it did not. */
  stoppedBy: string | null;
  /** The review template's fields a person must fill in, one line each. */
  toFill: string[];
}

const PAGE_STATE = `const s = document.documentElement.dataset.drbState; return s === 'done' || s === 'failed' ? s : null;`;

/** Reads the page's protocol file from Node, as one error line naming it when it cannot be used. */
async function readProtocol(pageUrl: string, id: string): Promise<Protocol> {
  const url = new URL(protocolPath(id), pageUrl).href;
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause;
    throw new CliError(`GET ${url} failed: ${(error as Error).message}${cause?.code ? ` (${cause.code})` : ''}`, 1);
  }
  if (response.status === 404) throw new CliError(`--protocol: the page has no ${protocolPath(id)} (HTTP 404)`);
  if (!response.ok) throw new CliError(`GET ${url} answered HTTP ${response.status}`, 1);
  let value: unknown;
  try {
    value = JSON.parse(await response.text());
  } catch {
    throw new CliError(`${url}: (document): not JSON`, 1);
  }
  const parsed = parseProtocol(value, url, id);
  if (!parsed.ok) throw new CliError(terminalText(parsed.line), 1);
  return parsed.protocol;
}

/** Opens the lane the options name (imported late: playwright-core is heavy). */
async function openLane(spec: PassLaneSpec, options: FieldRunOptions): Promise<BrowserLane> {
  const lanes = await import('../node/browser-lane.ts');
  const remote = { scriptTimeoutMs: options.timeoutMs, connectTimeoutMs: options.connectTimeoutMs };
  if (spec.lane === 'webdriver') return lanes.openWebDriverLane(spec.endpoint, spec.capabilities, remote);
  if (spec.lane === 'cdp') return lanes.openCdpLane(spec.endpoint, remote);
  return lanes.openLane(spec.lane, { webgpu: false, scriptTimeoutMs: options.timeoutMs });
}

/** One receipt as the run keeps it: its kind, whether the page measured it served from a cache, and its object. */
interface Kept {
  kind: 'cold' | 'warm' | null;
  ok: boolean;
  fromCache: boolean;
  receipt: Record<string, unknown>;
}

function kept(receipt: Record<string, unknown>): Kept {
  const run = receipt.run as { kind?: unknown; cold_from_cache?: unknown } | undefined;
  const outcome = receipt.outcome as { status?: unknown } | undefined;
  return {
    kind: run?.kind === 'cold' || run?.kind === 'warm' ? run.kind : null,
    ok: outcome?.status === 'ok',
    fromCache: run?.cold_from_cache === true,
    receipt,
  };
}

/**
 * Carries out the protocol's procedure (see the module comment).
 * @param options see FieldRunOptions
 */
export async function runFieldRun(options: FieldRunOptions): Promise<FieldRunResult> {
  const protocol = await readProtocol(options.pageUrl, options.protocolId);
  const outExisted = existsSync(options.outDir);
  makeOutputDir(options.outDir, '--out');
  if (readdirSync(options.outDir).length > 0)
    throw new CliError(`${options.outDir}: --out: folder is not empty (a field run never overwrites earlier files)`);
  const receiptsDir = join(options.outDir, 'receipts');
  makeOutputDir(receiptsDir, '--out');
  const spec = options.lane;
  const driverFresh = spec.lane === 'chromium' || spec.lane === 'webkit' ? spec.lane : null;
  const tally: FieldRunTally = { cold: 0, warm: 0, coldFromCache: 0 };
  const receipts: Kept[] = [];
  const receiptFiles: string[] = [];
  const taken = new Set<string>();
  let lastBundle: ReceiptBundle | null = null;
  let identity = { browser: '', version: '', revision: '' };
  let stoppedBy: string | null = null;
  // Strings of the capabilities file no log may show: scrubbed from every message an endpoint sends back.
  const secrets = spec.lane === 'webdriver' ? capabilitySecrets(spec.capabilities) : [];
  let windowProblem: string | null = null;
  // Receipts already kept: an attached lane's profile may still hold an earlier session's receipts.
  const seen = new Set<string>();

  const keep = (receipt: Record<string, unknown>) => {
    const base = artifactFileName(receiptNameParts(receipt));
    let name = base;
    for (let n = 2; taken.has(name); n++) name = base.replace(/\.json$/, `-${n}.json`);
    taken.add(name);
    const file = join(receiptsDir, name);
    try {
      writeFileSync(file, `${JSON.stringify(receipt, null, 2)}\n`, { flag: 'wx' });
    } catch (error) {
      throw new CliError(`--out: cannot write ${file}: ${fsProblem(error)}`, 1);
    }
    receiptFiles.push(file);
    const k = kept(receipt);
    receipts.push(k);
    if (k.kind === 'cold' && k.ok && !k.fromCache) tally.cold++;
    if (k.kind === 'cold' && k.fromCache) tally.coldFromCache++;
    if (k.kind === 'warm' && k.ok) tally.warm++;
  };

  const query = new URLSearchParams({ mode: 'protocol', protocol: protocol.id, autorun: 'cold' });
  if (driverFresh) query.set('driver_fresh', driverFresh);
  const origin = new URL(options.pageUrl).origin;
  let lane: BrowserLane | null = null;
  try {
    lane = await openLane(spec, options);
    const maxColdSessions = protocol.min_cold * 2;
    for (let session = 1; tally.cold < protocol.min_cold && session <= maxColdSessions; session++) {
      let page: LanePage | null = null;
      try {
        options.log(`cold ${tally.cold + 1} of ${protocol.min_cold}: a new browser session`);
        page = await lane.newPage();
        if (options.window) {
          // A receipt does not record the viewport: the window the lane could not set is said here (once).
          const set = await page.setViewport(options.window.width, options.window.height);
          const problem = set.problem && scrubSecrets(set.problem.split('\n')[0], secrets);
          if (problem && problem !== windowProblem) options.log(`window: ${problem} (${set.setBy})`);
          windowProblem = problem;
        }
        const cleared = await page.clearSiteData(origin);
        if (cleared)
          options.log(
            `cleared the site's data: ${cleared.via} (not cleared: ${cleared.not_cleared.join(', ') || 'none'})`,
          );
        await page.goto(`${options.pageUrl}?${query}`);
        const state = await page.waitFor<string>(PAGE_STATE, {
          timeoutMs: options.timeoutMs,
          pollMs: 250,
          description: 'the cold run to end (data-drb-state done or failed)',
        });
        const gather = async () => {
          const bundle = await page!.evaluate<ReceiptBundle | null>(
            'return window.drbExportBundle ? await window.drbExportBundle() : null;',
          );
          if (bundle === null) throw new Error('the page exposes no drbExportBundle (not a protocol-mode page?)');
          lastBundle = bundle;
          for (const r of bundle.receipts) {
            const id = String(r.receipt_id ?? '');
            if (seen.has(id)) continue;
            seen.add(id);
            keep(r);
          }
        };
        await gather();
        const cold = receipts.filter((r) => r.kind === 'cold').at(-1);
        if (state === 'failed' && !(cold?.ok ?? false)) {
          const error = await page.evaluate<string>(
            `return [...document.querySelectorAll('[data-testid="param-error"],[data-testid="param-problems"] li,[data-testid="protocol-error"]')].map((n) => n.textContent.trim()).join('; ').slice(0, 300);`,
          );
          throw new Error(`the page ended failed${error ? `: ${error}` : ''}`);
        }
        if (cold?.fromCache) options.log('cold receipt set aside: the page measured it served from a cache');
        const info = await page.evaluate<{ commit: string | null }>(
          'return { commit: window.drbApp?.commit ?? null };',
        );
        if (identity.browser === '' && spec.lane === 'webdriver') {
          const matched = (lane as { matched?: Record<string, unknown> }).matched?.browserName;
          identity.browser = typeof matched === 'string' ? matched.slice(0, 128) : '';
        } else if (identity.browser === '' && spec.lane === 'cdp') {
          identity.browser = (await cdpProduct(spec.endpoint)) ?? '';
        }
        identity = { browser: identity.browser, version: lane.version ?? '', revision: info.commit ?? '' };
        // The warm receipts in one page: the first session's, after its cold run, each the page's own next step.
        if (tally.warm === 0 && tally.cold >= 1) {
          for (let warm = 1; warm <= protocol.min_warm; warm++) {
            options.log(`warm ${warm} of ${protocol.min_warm}`);
            const before = await page.evaluate<number>('return window.drbSession?.receipts.length ?? 0;');
            await page.click('[data-testid="protocol-next"]');
            await page.waitFor<boolean>(
              `return (window.drbSession?.receipts.length ?? 0) > ${Number(before)} && document.documentElement.dataset.drbState !== 'running';`,
              { timeoutMs: options.timeoutMs, pollMs: 250, description: `warm receipt ${warm} to be stored` },
            );
            // Written at once: a browser that dies at the next warm leaves this one in --out.
            await gather();
          }
        }
      } finally {
        // A session that did not end holds the endpoint: say so, as the next session may then wait on it.
        await page?.close().catch((error: unknown) => {
          options.log(
            `warning: ending the browser session failed: ${scrubSecrets(String((error as Error).message).split('\n')[0], secrets)}`,
          );
        });
      }
    }
  } catch (error) {
    // The first line of the cause (playwright adds a call log below it), with no secret an endpoint echoed.
    const cause = scrubSecrets(String((error as Error).message).split('\n')[0], secrets);
    stoppedBy = terminalText(`${spec.lane}: ${cause}`.slice(0, 500));
  } finally {
    await lane?.close().catch(() => {});
  }

  const missing = missingReceiptLines(tally, protocol);
  if (stoppedBy !== null && receiptFiles.length === 0) {
    // Nothing was made (an endpoint that refused the session, one that never answered): --out is left as it was.
    rmdirSync(receiptsDir);
    if (!outExisted) rmdirSync(options.outDir);
    return { receiptFiles, bundleFile: null, templateFile: null, missing: [], stoppedBy, toFill: [] };
  }
  if (stoppedBy !== null || missing.length > 0 || lastBundle === null) {
    return { receiptFiles, bundleFile: null, templateFile: null, missing, stoppedBy, toFill: [] };
  }
  // ONE bundle: the page's own export, with every receipt the sessions made (oldest first) and the identity the
  // driver can read (browser, version, the page's revision); what it cannot read (device model, RAM, OS build,
  // network, battery, thermal state, the tester's notes) stays empty, and the review template names it for a person.
  const base = lastBundle as ReceiptBundle;
  const createdAt = new Date().toISOString();
  const browserName =
    spec.lane === 'chromium' ? 'Chromium' : spec.lane === 'webkit' ? 'MiniBrowser (WebKitGTK)' : identity.browser;
  const bundle: ReceiptBundle = {
    ...base,
    schema: RECEIPT_BUNDLE_SCHEMA,
    created_at: createdAt,
    sheet: {
      ...base.sheet,
      browser: base.sheet.browser || browserName,
      browser_version: base.sheet.browser_version || (browserName ? identity.version : ''),
      public_revision: base.sheet.public_revision || identity.revision,
    },
    receipts: receipts.map((r) => r.receipt),
  };
  const bundleFile = join(options.outDir, bundleFileName(protocol, createdAt));
  writeFileSync(bundleFile, `${JSON.stringify(bundle, null, 2)}\n`, { flag: 'wx' });
  const checked = validateFiles(collectJsonFiles([bundleFile]));
  if (checked.lines.length > 0) {
    return {
      receiptFiles,
      bundleFile,
      templateFile: null,
      missing,
      stoppedBy: `the bundle failed validation: ${checked.lines[0]}`,
      toFill: [],
    };
  }
  const summaryDir = join(options.outDir, 'summary');
  const { summary } = await summarizeReceipts([bundleFile], summaryDir);
  const target = summary.targets.find((t) => t.identity.model.id === protocol.model);
  if (!target) {
    return {
      receiptFiles,
      bundleFile,
      templateFile: null,
      missing,
      stoppedBy: 'the summary has no target',
      toFill: [],
    };
  }
  const { answers, toFill } = reviewTemplate(target, { profile: null, cold_total_p95_ms: null, warm_p95_ms: null });
  const templateFile = join(options.outDir, 'review-template.json');
  writeFileSync(templateFile, `${JSON.stringify(answers, null, 2)}\n`, { flag: 'wx' });
  return { receiptFiles, bundleFile, templateFile, missing, stoppedBy: null, toFill };
}

/** Registers `drb field-run`'s options and action on its command (named and described in main.ts). */
export function register(command: Command): void {
  command
    .requiredOption('--protocol <id>', 'the field protocol to carry out (the page serves protocols/<id>.json)')
    .requiredOption('--out <dir>', 'output folder (must be new or empty)')
    .option('--browser <name>', 'chromium or webkit, a new process with a fresh profile per cold (default chromium)')
    .option('--webdriver <url>', 'drive the browser behind this W3C WebDriver endpoint instead')
    .option('--capabilities <file>', 'with --webdriver: a JSON object of W3C capabilities to ask for')
    .option('--cdp <url>', 'drive the Chromium-family browser behind this DevTools endpoint instead')
    .option('--url <page>', 'the page URL (http or https); without it the built page (--dir) is served here')
    .option('--dir <dir>', 'without --url: the built page to serve', 'dist')
    .option('--window <WxH>', 'the viewport to ask for, in CSS pixels (e.g. 390x844)')
    .option('--timeout-ms <n>', 'longest one page may take for its runs', positiveInt('--timeout-ms'), 600_000)
    .option(
      '--connect-timeout-ms <n>',
      'longest creating the WebDriver session or connecting over CDP may take',
      positiveInt('--connect-timeout-ms'),
      120_000,
    )
    .action(async function (
      this: Command,
      opts: {
        protocol: string;
        out: string;
        browser?: string;
        webdriver?: string;
        capabilities?: string;
        cdp?: string;
        url?: string;
        dir: string;
        window?: string;
        timeoutMs: number;
        connectTimeoutMs: number;
      },
    ) {
      const chosen = [opts.browser && '--browser', opts.webdriver && '--webdriver', opts.cdp && '--cdp'].filter(
        Boolean,
      );
      if (chosen.length > 1) throw new CliError(`${chosen.join(', ')}: give one of them`);
      if (opts.capabilities !== undefined && opts.webdriver === undefined)
        throw new CliError('--capabilities: only with --webdriver');
      if (!PROTOCOL_ID.test(opts.protocol))
        throw new CliError(
          `--protocol: expected a protocol id (a-z, 0-9, . _ -), got '${terminalText(opts.protocol.slice(0, 64))}'`,
        );
      const browser = PassBrowser.safeParse(opts.browser ?? 'chromium');
      if (!browser.success)
        throw new CliError(`--browser: expected chromium or webkit, got '${terminalText(String(opts.browser))}'`);
      const window = opts.window === undefined ? null : parseWindow(opts.window);
      let lane: PassLaneSpec;
      if (opts.webdriver !== undefined) {
        const capabilities: WebDriverCapabilities =
          opts.capabilities === undefined ? {} : readCapabilities(opts.capabilities);
        lane = { lane: 'webdriver', endpoint: parseEndpoint('--webdriver', opts.webdriver), capabilities };
      } else if (opts.cdp !== undefined) {
        lane = { lane: 'cdp', endpoint: parseEndpoint('--cdp', opts.cdp) };
      } else {
        lane = { lane: browser.data, webgpu: false };
      }
      let pageUrl: string;
      let server: { url: string; close(): Promise<void> } | null = null;
      if (opts.url !== undefined) {
        let parsed: URL;
        try {
          parsed = new URL(opts.url);
        } catch {
          throw new CliError(`--url: not a URL: '${terminalText(redactUrl(opts.url))}'`);
        }
        if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
          throw new CliError(`--url: expected http or https, got '${terminalText(parsed.protocol)}'`);
        if (parsed.search || parsed.hash || parsed.username || parsed.password)
          throw new CliError('--url: a query, fragment or credentials are refused (field-run sets its own parameters)');
        pageUrl = parsed.href.endsWith('/') ? parsed.href : `${parsed.href}/`;
      } else {
        const dir = resolve(opts.dir);
        if (!existsSync(join(dir, 'index.html')))
          throw new CliError(`${terminalText(opts.dir)}: no index.html: build the page first (npm run build)`);
        const hosts = catalogModelHosts();
        const { startStaticServer } = await import('../node/static-server.ts');
        server = await startStaticServer({ dir, port: 0, host: '127.0.0.1', modelHosts: hosts });
        pageUrl = server.url.endsWith('/') ? server.url : `${server.url}/`;
        process.stderr.write(`serving ${terminalText(opts.dir)} at ${server.url}\n`);
      }
      try {
        const result = await runFieldRun({
          protocolId: opts.protocol,
          pageUrl,
          lane,
          window,
          outDir: resolve(opts.out),
          timeoutMs: opts.timeoutMs,
          connectTimeoutMs: opts.connectTimeoutMs,
          log: (line) => process.stderr.write(`${terminalText(line)}\n`),
        });
        if (result.stoppedBy !== null && result.receiptFiles.length === 0) {
          // One line: what stopped it; nothing was made, so nothing is missing but everything, and --out is untouched.
          process.stderr.write(`error: ${result.stoppedBy} (no receipt made; nothing written to --out)\n`);
          setExitCode(this, 1);
          return;
        }
        if (result.stoppedBy !== null) process.stderr.write(`error: ${result.stoppedBy}\n`);
        for (const line of result.missing) process.stderr.write(`error: ${line}\n`);
        if (result.stoppedBy !== null || result.missing.length > 0 || result.bundleFile === null) {
          process.stderr.write(
            `kept ${result.receiptFiles.length} receipt(s) in ${terminalText(join(opts.out, 'receipts'))}\n`,
          );
          setExitCode(this, 1);
          return;
        }
        for (const line of result.toFill) process.stderr.write(`to fill: ${terminalText(line)}\n`);
        // A lane attached to a browser it did not start cannot say the process was new or the profile empty, and
        // nothing adds a person's attestation to this bundle later: its colds never count as full protocol colds.
        if (lane.lane === 'webdriver' || lane.lane === 'cdp')
          process.stderr.write(
            `note: the ${lane.lane} lane attached to a browser it did not start: its cold receipts are measured network-cold but not attested (no new browser process or cleared website data stated), so they count as 0 full protocol colds and this bundle cannot reach DEVICE_PASS; run the protocol on the device itself for that\n`,
          );
        process.stdout.write(
          `FIELD_RUN ${terminalText(opts.protocol)} ${lane.lane} (${result.receiptFiles.length} receipts) -> ${terminalText(result.bundleFile)}; review template: ${terminalText(result.templateFile ?? '')}\n`,
        );
      } finally {
        await server?.close();
      }
    });
}
