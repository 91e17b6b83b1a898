/**
 * `drb public-pass --url URL [--browser chromium|webkit] [--out DIR] [--timeout-ms N] [run options]`: opens a
 * deployed page anonymously in a fresh browser profile, runs cold and warm through the automation contract, saves
 * and validates the receipts, and writes a `drb.public-pass.v1` record (see src/core/automation/public-pass.ts). A pass that
 * fails still writes its record, with the reason, and exits 1.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { toSearchParams, type AutomationSettings } from '../core/automation/automation.ts';
import {
  buildPublicPassRecord,
  PassBrowser,
  type PassReceiptFile,
  type PublicPassRecord,
} from '../core/automation/public-pass.ts';
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
import { reduceUserAgent } from '../core/receipt/capability-bounds.ts';

/** The record's file name inside the output folder. */
export const PUBLIC_PASS_FILE = 'public-pass.json';

/** What `runPublicPass` needs (the CLI options, parsed). */
export interface PublicPassOptions {
  /** The page URL; its query and fragment are dropped. */
  url: string;
  browser: PassBrowser;
  /** Output folder; must not exist yet or be empty. */
  outDir: string;
  /** Longest the page may take to finish cold + warm, in ms. */
  timeoutMs: number;
  /** Automation settings besides `autorun` (engine, ep, threads, model, warm runs, allow fallback). */
  settings: Partial<AutomationSettings>;
  /** Chromium only: give the page a WebGPU adapter (--enable-unsafe-webgpu). */
  webgpu: boolean;
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

/** Fetches the page once from Node (anonymous, no cookies) so an unreachable page or a 404 fails with a clear reason. */
async function preflight(url: string, timeoutMs: number): Promise<string | null> {
  try {
    const response = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(Math.min(timeoutMs, 30_000)) });
    await response.body?.cancel();
    return response.ok ? null : `GET ${url} answered HTTP ${response.status}`;
  } catch (error) {
    // undici hides the useful part (ECONNREFUSED, ENOTFOUND, ...) in `cause`.
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
    return `GET ${url} failed: ${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
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
  const params = toSearchParams({ ...options.settings, autorun: ['cold', 'warm'] });
  const runParams = Object.fromEntries(params);
  const query = params.toString();
  const findings = {
    url: pageUrl,
    browser: { name: options.browser, version: null as string | null, userAgent: null as string | null },
    runParams,
    page_state: 'not-loaded' as 'done' | 'failed' | 'timeout' | 'not-loaded',
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
      options.log(`opening ${pageUrl} in a fresh ${options.browser} profile`);
      // Imported here, not at the top: playwright-core takes ~0.8 s to load, and every drb command would pay it.
      const { openLane } = await import('../node/browser-lane.ts');
      lane = await openLane(options.browser, { webgpu: options.webgpu, scriptTimeoutMs: options.timeoutMs });
      page = await lane.newPage();
      findings.browser.version = lane.version;
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
        findings.fatalReason = (error as Error).message;
      }
      const report = await page.evaluate<PageReport>(READ_PAGE_REPORT);
      if (report.state === 'done' || report.state === 'failed') findings.page_state = report.state;
      // Recorded as the receipts record it by default (versions cut to their majors): the pass makes no choice to
      // share full device details, so its record says no more about the browser than its receipts do.
      findings.browser.userAgent = reduceUserAgent(report.userAgent);
      findings.revision = { app_version: report.app?.version ?? null, commit: report.app?.commit ?? null };
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
        findings.receipts.push({
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
      findings.fatalReason ??= `${options.browser}: ${(error as Error).message}`;
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

function positiveInt(flag: string) {
  return (value: string) => {
    if (!/^[1-9][0-9]*$/.test(value)) throw new CliError(`${flag}: expected a positive integer, got '${value}'`);
    return Number(value);
  };
}

/** Registers `drb public-pass`'s options and action on its command (named and described in main.ts). */
export function register(command: Command): void {
  command
    .requiredOption('--url <url>', 'the page URL (http or https; query and fragment are dropped)')
    .option('--browser <name>', 'chromium or webkit', 'chromium')
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
        browser: string;
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
      const browser = PassBrowser.safeParse(opts.browser);
      if (!browser.success) throw new CliError(`--browser: expected chromium or webkit, got '${opts.browser}'`);
      if (opts.webgpu && browser.data !== 'chromium')
        throw new CliError('--webgpu: only for --browser chromium (WebKitGTK has no WebGPU here)');
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
        opts.out ?? join('receipts', 'public-pass', `${compactUtcTime(new Date().toISOString())}-${browser.data}`),
      );
      const { record, recordPath } = await runPublicPass({
        url: opts.url,
        browser: browser.data,
        outDir,
        timeoutMs: opts.timeoutMs,
        settings,
        webgpu: Boolean(opts.webgpu),
        log: (line) => process.stderr.write(`${line}\n`),
      });
      if (record.outcome.status === 'ok') {
        process.stdout.write(
          `PUBLIC_PASS ${record.url} ${record.browser.name} ${record.browser.version ?? ''} commit ${record.revision.commit} (${record.receipts.length} receipts) -> ${recordPath}\n`,
        );
      } else {
        process.stderr.write(`error: public pass failed: ${record.outcome.reason} (record: ${recordPath})\n`);
        setExitCode(this, 1);
      }
    });
}
