/**
 * One small interface over the two browsers the project drives, so the same end-to-end checks and the same public
 * pass run in both: Chromium through playwright-core (CDP) and WebKitGTK through W3C WebDriver (webkit-driver.ts).
 *
 * Scripts are passed as function BODIES (strings) because that is the only form WebDriver accepts; both lanes run
 * them as `async (...args) => { body }` and await a returned promise. Results must be JSON-serialisable.
 * Every lane opens each page in a fresh profile: no cookies, no storage, no cache from an earlier page.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_BASE_ARGS, CHROMIUM_EXECUTABLE } from './chromium.ts';
import { WebDriverError, WebKitDriver, type WebKitSession } from './webkit-driver.ts';

/** The browsers a lane can drive. */
export type LaneName = 'chromium' | 'webkit';

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
  /** Closes the page and its profile. */
  close(): Promise<void>;
}

/** A running browser. */
export interface BrowserLane {
  readonly name: LaneName;
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

async function pollUntil<T>(
  evaluate: () => Promise<T>,
  options: { timeoutMs: number; pollMs?: number; description: string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await evaluate();
      if (value) return value;
      lastError = null;
    } catch (error) {
      // A navigation (reload) destroys the script context mid-call; the next poll runs in the new page.
      lastError = error;
    }
    await sleep(options.pollMs ?? 200);
  }
  const cause = lastError ? ` (last error: ${(lastError as Error).message})` : '';
  throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.description}${cause}`);
}

class ChromiumPage implements LanePage {
  /**
   * @param closeProfile closes what the page's profile lives in (its own browser, or its context in a shared one)
   * @param page the page
   * @param timeoutMs longest a load or script may take
   */
  constructor(
    private readonly closeProfile: () => Promise<void>,
    private page: Page,
    private readonly timeoutMs: number,
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
    return pollUntil(() => this.evaluate<T>(body), options);
  }

  async click(selector: string) {
    await this.page.click(selector, { timeout: this.timeoutMs });
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
    const lanePage = new ChromiumPage(
      this.options.shareBrowser ? () => context.close() : () => browser.close(),
      page,
      timeoutMs,
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

class WebKitPage implements LanePage {
  /**
   * @param session the page's WebDriver session
   * @param closeDriver ends the page's own driver (and its X server) after the session
   */
  constructor(
    private readonly session: WebKitSession,
    private readonly closeDriver: () => Promise<void>,
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
    return pollUntil(() => this.evaluate<T>(body), options);
  }

  async click(selector: string) {
    await this.session.click(await this.session.findElement(selector));
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
        return new WebKitPage(session, closeDriver);
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
