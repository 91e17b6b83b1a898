/**
 * One small interface over the browsers the project drives, so the same end-to-end checks and the same public pass
 * run in all of them: Chromium through playwright-core (CDP) and WebKitGTK through W3C WebDriver (webkit-driver.ts),
 * both started here with a fresh profile, and the two lanes that attach to a browser started elsewhere: any W3C
 * WebDriver endpoint (safaridriver, Appium, a hub: `openWebDriverLane`) and a Chromium-family browser's DevTools
 * endpoint (`openCdpLane`, e.g. Chrome on Android through adb).
 *
 * Scripts are passed as function BODIES (strings) because that is the only form WebDriver accepts; both lanes run
 * them as `async (...args) => { body }` and await a returned promise. Results must be JSON-serialisable.
 * The lanes that start their browser open each page in a fresh profile: no cookies, no storage, no cache from an
 * earlier page. Each page says what its lane can state about it (`statement`, see driver-statement.ts).
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import type { ClearedSiteData, DriverStatement } from '../core/automation/driver-statement.ts';
import { CHROMIUM_BASE_ARGS, CHROMIUM_EXECUTABLE } from './chromium.ts';
import { WebKitDriver } from './webkit-driver.ts';
import { newWebDriverSession, WebDriverError, type WebDriverSession } from './webdriver-protocol.ts';

/** The browsers a lane can start. */
export type LaneName = 'chromium' | 'webkit';

/** Every lane: one that starts its browser, or one that attaches to an endpoint. */
export type AnyLaneName = LaneName | 'webdriver' | 'cdp';

/** What a lane states about a page's browser (the statement's `stated_by` is the caller's: the tool and command). */
export type LaneStatement = Omit<DriverStatement, 'stated_by'>;

/** How a viewport was set: the means, or why it could not be. */
export interface ViewportResult {
  setBy: string;
  problem: string | null;
}

/** Options for a lane. */
export interface LaneOptions {
  /** Chromium only: add --enable-unsafe-webgpu (SwiftShader adapter). Default false. */
  webgpu?: boolean;
  /** WebKit only: expose SharedArrayBuffer (JSC_useSharedArrayBuffer=1). Default true. */
  sharedArrayBuffer?: boolean;
  /** WebKit only: WebKit's accelerated compositing (see WebKitDriverOptions.compositing). Default true. */
  webkitCompositing?: boolean;
  /** Longest a single script or page load may take, in ms. Default 120 000. */
  scriptTimeoutMs?: number;
  /** Chromium only: flags added to CHROMIUM_BASE_ARGS (the e2e tests' E2E_CHROMIUM_ARGS). Default none. */
  chromiumArgs?: readonly string[];
  /** Chromium only: every page in a new context of one browser the lane keeps (a new profile still: its own
   *  storage and HTTP cache), instead of a browser of its own per page. For tests, where a launch per page costs
   *  CPU and nothing is measured across processes; public-pass and the benchmarks keep a browser per page.
   *  Default false. */
  shareBrowser?: boolean;
}

/** A page in a lane. */
export interface LanePage {
  /** Navigates and waits for the load event. */
  goto(url: string): Promise<void>;
  /** Reloads the page (what a user's reload, or a killed tab reopened, does to a run in progress). */
  reload(): Promise<void>;
  /**
   * Runs `body` in the page as the body of `async (...args) => { body }` and returns its JSON result.
   * @param body function body, e.g. `return document.title`; the arguments are `args[0]`, `args[1]`, ...
   * @param args JSON-serialisable values
   */
  evaluate<T>(body: string, ...args: unknown[]): Promise<T>;
  /**
   * Evaluates `body` every `pollMs` until it returns a truthy value, and returns that value; survives a navigation
   * in between. Throws after `timeoutMs` with `description` in the message.
   */
  waitFor<T>(body: string, options: { timeoutMs: number; pollMs?: number; description: string }): Promise<T>;
  /** Clicks the first element matching a CSS selector. */
  click(selector: string): Promise<void>;
  /**
   * Picks files in the first `<input type="file">` matching a CSS selector, as a person picking them in the browser's
   * file picker does (the page gets a `change` event with those files).
   * @param selector the file input
   * @param paths absolute paths of the files to pick
   */
  setInputFiles(selector: string, paths: readonly string[]): Promise<void>;
  /**
   * Chromium only (WebKit throws): kills the tab's renderer process, as a phone does to a tab under memory pressure.
   * The profile (and its storage) stays: afterwards this LanePage is a new blank tab in the same profile, and
   * `goto` opens the page again, as a user reopening the site does.
   */
  crash(): Promise<void>;
  /**
   * Makes the page's viewport `width` x `height` CSS pixels where the lane can (before `goto`); says how, or why not.
   */
  setViewport(width: number, height: number): Promise<ViewportResult>;
  /**
   * Clears what the browser stores for `origin` through the protocol, before `goto`, where the lane attaches to a
   * browser it did not start (cdp); null where there is nothing to clear (a fresh profile) or no command for it.
   */
  clearSiteData(origin: string): Promise<ClearedSiteData | null>;
  /** What the lane states about this page's browser (updated by clearSiteData). */
  readonly statement: LaneStatement;
  /** Closes the page and its profile. */
  close(): Promise<void>;
}

/** A running browser. */
export interface BrowserLane {
  readonly name: AnyLaneName;
  /** The version the browser reports (Chromium's version, or WebKitGTK's for MiniBrowser). */
  readonly version: string | null;
  /** Opens a page in a NEW profile (a new browser context / WebDriver session). */
  newPage(): Promise<LanePage>;
  /** Closes everything the lane started. */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The expression both lanes run: the body wrapped in an async arrow, called with the JSON arguments. */
function wrap(body: string, args: unknown[]): string {
  return `(async (...args) => { ${body}\n})(...${JSON.stringify(args)})`;
}

/** A Chromium page, context or browser that is gone: no later poll can succeed. */
function chromiumGone(error: unknown): boolean {
  return /has been closed|Target closed|Browser closed|browser has disconnected/i.test(
    String((error as Error)?.message),
  );
}

/** A WebDriver endpoint that is gone (the connection failed) or lost the session: no later poll can succeed. */
function webDriverGone(error: unknown): boolean {
  return error instanceof WebDriverError && (error.code === 'http' || error.code === 'invalid session id');
}

async function pollUntil<T>(
  evaluate: () => Promise<T>,
  options: { timeoutMs: number; pollMs?: number; description: string },
  gone: (error: unknown) => boolean = () => false,
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await evaluate();
      if (value) return value;
      lastError = null;
    } catch (error) {
      // A browser or endpoint that died fails at once, not at the time limit.
      if (gone(error)) throw error;
      // A navigation (reload) destroys the script context mid-call; the next poll runs in the new page.
      lastError = error;
    }
    await sleep(options.pollMs ?? 200);
  }
  const cause = lastError ? ` (last error: ${(lastError as Error).message})` : '';
  throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.description}${cause}`);
}

/** What the cdp lane clears for an origin, and how (see ChromiumPage.clearSiteData). */
const CDP_CLEARED: ClearedSiteData = {
  via: 'CDP Storage.clearDataForOrigin (storageTypes all) and Network.clearBrowserCache',
  cleared: ['cookies', 'local_storage', 'indexeddb', 'cache_storage', 'service_workers', 'file_systems', 'http_cache'],
  // The browser process keeps running: whatever it holds in memory (compiled code, a renderer's memory cache) stays.
  not_cleared: ['in_memory_caches'],
};

class ChromiumPage implements LanePage {
  /**
   * @param closeProfile closes what the page's profile lives in (its own browser, or its context in a shared one)
   * @param page the page
   * @param timeoutMs longest a load or script may take
   * @param statement what the lane states about the page's browser
   * @param canClear whether clearSiteData clears through CDP (the cdp lane: a profile the lane did not make)
   */
  constructor(
    private readonly closeProfile: () => Promise<void>,
    private page: Page,
    private readonly timeoutMs: number,
    public statement: LaneStatement,
    private readonly canClear = false,
  ) {}

  async goto(url: string) {
    await this.page.goto(url, { waitUntil: 'load', timeout: this.timeoutMs });
  }

  async reload() {
    await this.page.reload({ waitUntil: 'load', timeout: this.timeoutMs });
  }

  async evaluate<T>(body: string, ...args: unknown[]): Promise<T> {
    // A string is evaluated as an expression over CDP, which the page's Content-Security-Policy does not block.
    return (await this.page.evaluate(wrap(body, args))) as T;
  }

  waitFor<T>(body: string, options: { timeoutMs: number; pollMs?: number; description: string }) {
    return pollUntil(() => this.evaluate<T>(body), options, chromiumGone);
  }

  async click(selector: string) {
    await this.page.click(selector, { timeout: this.timeoutMs });
  }

  async setViewport(width: number, height: number): Promise<ViewportResult> {
    const setBy = 'playwright setViewportSize (CDP Emulation.setDeviceMetricsOverride)';
    try {
      await this.page.setViewportSize({ width, height });
      return { setBy, problem: null };
    } catch (error) {
      return { setBy, problem: (error as Error).message.split('\n')[0] };
    }
  }

  async clearSiteData(origin: string): Promise<ClearedSiteData | null> {
    if (!this.canClear) return null;
    const cdp = await this.page.context().newCDPSession(this.page);
    try {
      await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
      await cdp.send('Network.clearBrowserCache');
    } finally {
      await cdp.detach().catch(() => {});
    }
    this.statement = { ...this.statement, site_data_cleared: CDP_CLEARED };
    return CDP_CLEARED;
  }

  async setInputFiles(selector: string, paths: readonly string[]) {
    await this.page.setInputFiles(selector, [...paths], { timeout: this.timeoutMs });
  }

  async crash() {
    const cdp = await this.page.context().newCDPSession(this.page);
    // Page.crash kills the renderer; the call itself never gets an answer from the dead renderer.
    await Promise.race([
      cdp.send('Page.crash').catch(() => {}),
      new Promise<void>((resolve) => this.page.once('crash', () => resolve())),
    ]);
    // playwright refuses to navigate a crashed page: continue in a new tab of the same context (same storage).
    const crashed = this.page;
    this.page = await crashed.context().newPage();
    this.page.setDefaultTimeout(this.timeoutMs);
    await crashed.close().catch(() => {});
  }

  async close() {
    // Closing the browser also deletes the temporary profile playwright created for it; a context in a shared
    // browser takes its storage with it.
    await this.closeProfile();
  }
}

/** Chromium: one browser process per page (or one shared browser, a context per page: `shareBrowser`); playwright
 *  gives each launch a fresh temporary user-data-dir. */
class ChromiumLane implements BrowserLane {
  readonly name = 'chromium' as const;
  version: string | null = null;
  private readonly pages = new Set<LanePage>();
  private shared: Promise<Browser> | null = null;

  constructor(private readonly options: LaneOptions) {}

  private launch(): Promise<Browser> {
    const args = [
      ...CHROMIUM_BASE_ARGS,
      ...(this.options.webgpu ? ['--enable-unsafe-webgpu'] : []),
      ...(this.options.chromiumArgs ?? []),
    ];
    // chromium.launch (not chromium.ts's persistent context) so browser.version() is known for public-pass records;
    // playwright still gives every launch a fresh temporary user-data-dir and deletes it on close.
    return chromium.launch({ executablePath: CHROMIUM_EXECUTABLE, args, headless: true });
  }

  async newPage(): Promise<LanePage> {
    let browser: Browser;
    if (this.options.shareBrowser) {
      this.shared ??= this.launch();
      browser = await this.shared;
    } else {
      browser = await this.launch();
    }
    this.version = browser.version();
    const context = await browser.newContext();
    const page = await context.newPage();
    const timeoutMs = this.options.scriptTimeoutMs ?? 120_000;
    page.setDefaultTimeout(timeoutMs);
    const statement: LaneStatement = this.options.shareBrowser
      ? {
          how: 'a new playwright browser context (its own storage and HTTP cache, nothing in them) in a Chromium process this lane started earlier',
          browser_process: 'started',
          process_new: null,
          profile_empty: true,
          site_data_cleared: null,
        }
      : {
          how: `playwright-core launched a new ${CHROMIUM_EXECUTABLE} process for this page, with a new temporary user-data-dir (deleted when it closed)`,
          browser_process: 'started',
          process_new: true,
          profile_empty: true,
          site_data_cleared: null,
        };
    const lanePage = new ChromiumPage(
      this.options.shareBrowser ? () => context.close() : () => browser.close(),
      page,
      timeoutMs,
      statement,
    );
    this.pages.add(lanePage);
    const close = lanePage.close.bind(lanePage);
    lanePage.close = async () => {
      this.pages.delete(lanePage);
      await close();
    };
    return lanePage;
  }

  async close() {
    for (const page of [...this.pages]) await page.close();
    const shared = this.shared;
    this.shared = null;
    if (shared) await (await shared).close();
  }
}

/**
 * Clears what a page of the origin can reach of the site's storage, and says what it cleared and what it could not
 * (an API the browser lacks here, a database another page holds open).
 */
const CLEAR_SITE_DATA_SCRIPT = `
  const cleared = [];
  const notCleared = [];
  try { localStorage.clear(); sessionStorage.clear(); cleared.push('local_storage'); } catch { notCleared.push('local_storage'); }
  try {
    let blocked = false;
    for (const db of await indexedDB.databases()) {
      await new Promise((resolve) => {
        const request = indexedDB.deleteDatabase(db.name);
        request.onsuccess = () => resolve();
        request.onerror = () => { blocked = true; resolve(); };
        request.onblocked = () => { blocked = true; resolve(); };
      });
    }
    (blocked ? notCleared : cleared).push('indexeddb');
  } catch { notCleared.push('indexeddb'); }
  try {
    for (const key of await caches.keys()) await caches.delete(key);
    cleared.push('cache_storage');
  } catch { notCleared.push('cache_storage'); }
  try {
    const root = await navigator.storage.getDirectory();
    for await (const name of root.keys()) await root.removeEntry(name, { recursive: true });
    cleared.push('opfs');
  } catch { notCleared.push('opfs'); }
  try {
    for (const registration of await navigator.serviceWorker.getRegistrations()) await registration.unregister();
    cleared.push('service_workers');
  } catch { notCleared.push('service_workers'); }
  return { cleared, notCleared };
`;

class WebDriverPage implements LanePage {
  /**
   * @param session the page's WebDriver session
   * @param closeDriver ends what the lane started for the page after the session (its own driver and X server),
   *   or nothing (a remote endpoint)
   * @param statement what the lane states about the page's browser
   * @param clearsSiteData whether clearSiteData clears (a remote endpoint: a profile the lane did not make)
   */
  constructor(
    private readonly session: WebDriverSession,
    private readonly closeDriver: () => Promise<void>,
    public statement: LaneStatement,
    private readonly clearsSiteData = false,
  ) {}

  goto(url: string) {
    return this.session.navigate(url);
  }

  reload() {
    return this.session.refresh();
  }

  evaluate<T>(body: string, ...args: unknown[]): Promise<T> {
    // W3C execute/sync awaits a returned promise; the wrapper gives the same `args` view as in Chromium.
    return this.session.execute<T>(`return ${wrap(body, args)};`);
  }

  waitFor<T>(body: string, options: { timeoutMs: number; pollMs?: number; description: string }) {
    return pollUntil(() => this.evaluate<T>(body), options, webDriverGone);
  }

  async click(selector: string) {
    await this.session.click(await this.session.findElement(selector));
  }

  async setViewport(width: number, height: number): Promise<ViewportResult> {
    const setBy = 'W3C Set Window Rect (the outer size, then corrected by the frame the page measured)';
    const inner = () => this.evaluate<[number, number]>('return [window.innerWidth, window.innerHeight];');
    try {
      await this.session.setWindowSize(width, height);
      // The window's frame (title bar, toolbars) takes part of the outer size: ask again for the difference.
      const [w, h] = await inner();
      if (w !== width || h !== height) await this.session.setWindowSize(width + width - w, height + height - h);
      const [w2, h2] = await inner();
      return {
        setBy,
        problem:
          w2 === width && h2 === height ? null : `asked for ${width} x ${height}, the page measures ${w2} x ${h2}`,
      };
    } catch (error) {
      // safaridriver on iOS and some hubs refuse to resize: the run goes on at the size the device has.
      return { setBy, problem: (error as Error).message };
    }
  }

  async clearSiteData(origin: string): Promise<ClearedSiteData | null> {
    if (!this.clearsSiteData) return null;
    // W3C WebDriver has a command for cookies only. The rest is cleared by a script on a page of the origin that is
    // not the app (so no open database of the app blocks a deletion); the HTTP cache no command or script reaches.
    await this.session.navigate(new URL('/.well-known/drb-clear-site-data', origin).href);
    await this.session.deleteAllCookies();
    const found = await this.evaluate<{ cleared: string[]; notCleared: string[] }>(CLEAR_SITE_DATA_SCRIPT);
    const cleared: ClearedSiteData = {
      via: 'W3C Delete All Cookies, then a script in a page of the origin (W3C Execute Script)',
      cleared: ['cookies', ...found.cleared],
      not_cleared: [...found.notCleared, 'http_cache', 'in_memory_caches'],
    };
    this.statement = { ...this.statement, site_data_cleared: cleared };
    return cleared;
  }

  async setInputFiles(selector: string, paths: readonly string[]) {
    // W3C "element send keys" on a file input: the absolute paths, one per line.
    await this.session.sendKeys(await this.session.findElement(selector), paths.join('\n'));
  }

  async crash(): Promise<void> {
    // Tried: killing the page's WebKitWebProcess ends the whole WebDriver session ("session deleted because of page
    // crash or hang") and the ephemeral profile with it, so nothing could reopen the page over the same storage.
    throw new Error(
      'webkit lane: a killed tab cannot be reopened over WebDriver (the session dies with its web process); use reload()',
    );
  }

  async close() {
    try {
      await this.session.delete();
    } catch (error) {
      // The driver may already be gone (it was closed, or it crashed): nothing left to close.
      if (!(error instanceof WebDriverError)) throw error;
    } finally {
      await this.closeDriver();
    }
  }
}

/**
 * WebKitGTK: every page gets its own WebKitWebDriver (under its own xvfb-run) and session, so nothing a page leaves
 * behind (a wedged driver, a browser still closing) can reach the next one; each session is an ephemeral profile.
 */
class WebKitLane implements BrowserLane {
  readonly name = 'webkit' as const;
  version: string | null = null;
  private readonly drivers = new Set<WebKitDriver>();

  constructor(private readonly options: LaneOptions) {}

  async newPage(): Promise<LanePage> {
    const timeoutMs = this.options.scriptTimeoutMs ?? 120_000;
    for (let attempt = 1; ; attempt++) {
      const driver = await WebKitDriver.start({
        sharedArrayBuffer: this.options.sharedArrayBuffer ?? true,
        compositing: this.options.webkitCompositing,
      });
      this.drivers.add(driver);
      const closeDriver = async () => {
        this.drivers.delete(driver);
        await driver.close();
      };
      try {
        const session = await driver.newSession({ scriptMs: timeoutMs, pageLoadMs: timeoutMs });
        this.version = session.browserVersion;
        return new WebDriverPage(session, closeDriver, {
          how: 'a new WebKitWebDriver started a new MiniBrowser process for this page (--automation: an ephemeral data store, nothing from an earlier session)',
          browser_process: 'started',
          process_new: true,
          profile_empty: true,
          site_data_cleared: null,
        });
      } catch (error) {
        await closeDriver();
        // Session creation (starting MiniBrowser) hung once on a loaded machine: one retry with a new driver.
        if (attempt >= 2 || !(error instanceof WebDriverError && error.code === 'timeout')) throw error;
      }
    }
  }

  async close() {
    for (const driver of [...this.drivers]) await driver.close();
    this.drivers.clear();
  }
}

/**
 * Starts a lane.
 * @param name which browser
 * @param options see LaneOptions
 */
export async function openLane(name: LaneName, options: LaneOptions = {}): Promise<BrowserLane> {
  return name === 'chromium' ? new ChromiumLane(options) : new WebKitLane(options);
}

/** Options of a lane that attaches to an endpoint. */
export interface RemoteLaneOptions {
  /** Longest a script or page load may take, in ms. */
  scriptTimeoutMs: number;
  /** Longest creating the session (webdriver) or connecting (cdp) may take, in ms. */
  connectTimeoutMs: number;
  /** Longest any other call may take, in ms. Default 30 000. */
  callTimeoutMs?: number;
}

/** The webdriver lane: a browser behind any W3C WebDriver endpoint, one new session per page. */
export class WebDriverLane implements BrowserLane {
  readonly name = 'webdriver' as const;
  version: string | null = null;
  /** What the endpoint answered for the last session's capabilities. */
  matched: Record<string, unknown> = {};
  private readonly pages = new Set<LanePage>();

  /**
   * @param endpoint the endpoint's URL (no credentials; no trailing slash)
   * @param capabilities what to ask the endpoint for (validated: webdriver-capabilities.ts)
   * @param options time limits
   */
  constructor(
    private readonly endpoint: string,
    private readonly capabilities: Record<string, unknown>,
    private readonly options: RemoteLaneOptions,
  ) {}

  async newPage(): Promise<LanePage> {
    const { session, matched } = await newWebDriverSession(this.endpoint, this.capabilities, {
      sessionMs: this.options.connectTimeoutMs,
      callMs: this.options.callTimeoutMs ?? 30_000,
      scriptMs: this.options.scriptTimeoutMs,
      pageLoadMs: this.options.scriptTimeoutMs,
    });
    this.version = session.browserVersion;
    this.matched = matched;
    const page: LanePage = new WebDriverPage(
      session,
      async () => {
        this.pages.delete(page);
      },
      {
        how: "a new W3C WebDriver session on an endpoint this lane did not start: whether the endpoint started a new browser process or gave the session an empty profile is the endpoint's to say, not drb's",
        browser_process: 'attached',
        process_new: null,
        profile_empty: null,
        site_data_cleared: null,
      },
      true,
    );
    this.pages.add(page);
    return page;
  }

  async close() {
    for (const page of [...this.pages]) await page.close().catch(() => {});
  }
}

/**
 * Opens the webdriver lane (no call is made until `newPage`).
 * @param endpoint the endpoint's URL, without credentials
 * @param capabilities the validated capabilities to ask for
 * @param options time limits
 */
export function openWebDriverLane(
  endpoint: string,
  capabilities: Record<string, unknown>,
  options: RemoteLaneOptions,
): WebDriverLane {
  return new WebDriverLane(endpoint.replace(/\/+$/, ''), capabilities, options);
}

/** The cdp lane: a running Chromium-family browser reached over its DevTools endpoint, a new tab per page. */
class CdpLane implements BrowserLane {
  readonly name = 'cdp' as const;
  version: string | null;
  private readonly pages = new Set<Page>();

  constructor(
    private readonly browser: Browser,
    private readonly options: RemoteLaneOptions,
  ) {
    this.version = browser.version();
  }

  async newPage(): Promise<LanePage> {
    // The browser's own profile (Chrome on a phone has no other): its default context, a new tab.
    const context = this.browser.contexts()[0] ?? (await this.browser.newContext());
    const page = await context.newPage();
    page.setDefaultTimeout(this.options.scriptTimeoutMs);
    this.pages.add(page);
    return new ChromiumPage(
      async () => {
        this.pages.delete(page);
        await page.close().catch(() => {});
      },
      page,
      this.options.scriptTimeoutMs,
      {
        how: 'attached over the DevTools protocol to a browser this lane did not start, and opened a new tab in its profile',
        browser_process: 'attached',
        process_new: null,
        profile_empty: null,
        site_data_cleared: null,
      },
      true,
    );
  }

  async close() {
    for (const page of [...this.pages]) await page.close().catch(() => {});
    // Disconnects (the browser is not ours to close: playwright's close() on a connected browser only detaches).
    await this.browser.close().catch(() => {});
  }
}

/**
 * Attaches to a Chromium-family browser's DevTools endpoint (`http://127.0.0.1:9222`, or its `ws://` URL).
 * @param endpoint the endpoint
 * @param options time limits
 */
export async function openCdpLane(endpoint: string, options: RemoteLaneOptions): Promise<BrowserLane> {
  const browser = await chromium.connectOverCDP(endpoint, { timeout: options.connectTimeoutMs });
  return new CdpLane(browser, options);
}
