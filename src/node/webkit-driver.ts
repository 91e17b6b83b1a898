/**
 * A small W3C WebDriver client for WebKitGTK (Debian's `webkit2gtk-driver`), the closest engine to Safari on a
 * Linux machine. It starts `WebKitWebDriver` under `xvfb-run -a` (MiniBrowser needs a display: without one, session
 * creation hangs forever) on a free port and speaks the protocol over plain `fetch()`.
 *
 * Written by hand instead of using a WebDriver library (selenium-webdriver, webdriverio): the project needs six
 * endpoints, and those libraries pull in dozens of packages and download drivers on install. Every HTTP call has a
 * time limit, so a hung driver fails the caller instead of hanging it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { createServer } from 'node:net';

/** Where Debian's webkit2gtk-driver package puts MiniBrowser (the browser WebKitWebDriver launches). */
export const MINIBROWSER_PATH = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** The W3C "web element identifier" key of an element reference. */
const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';

/** A failed WebDriver call: `code` is the protocol's error code (`javascript error`, `timeout`, ...) or `http`. */
export class WebDriverError extends Error {
  override name = 'WebDriverError';
  /** @param code the W3C error code, `http` for a transport failure, `timeout` when our own time limit ran out */
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** Options for starting the driver. */
export interface WebKitDriverOptions {
  /** Expose SharedArrayBuffer to pages (JSC_useSharedArrayBuffer=1; WebKitGTK hides it otherwise). Default true. */
  sharedArrayBuffer?: boolean;
  /** Time limit for starting the driver and for each plain call, in ms. Default 30 000. */
  callTimeoutMs?: number;
  /** MiniBrowser binary. Default MINIBROWSER_PATH. */
  binary?: string;
  /**
   * JavaScriptCore options for the browser's processes, each set as the environment variable `JSC_<name>` (e.g.
   * `{ forceRAMSize: '4294967296' }`: JSC sizes its heap as on a machine with that much RAM). Default none.
   */
  jscOptions?: Record<string, string>;
  /**
   * WebKit's accelerated compositing: its layer tree drawn with OpenGL, which under Xvfb is Mesa's llvmpipe, a
   * software rasteriser, working on this CPU. Default true. `false` sets `WEBKIT_DISABLE_COMPOSITING_MODE=1`: WebKit
   * paints each page directly on the CPU, without a layer tree. Scripts, workers, storage and WebAssembly run as
   * before; only how pixels are made changes. The e2e tests turn it off: measured here (2026-12-01), a page load plus a
   * cold and warm run took the web process 5.4 and 6.3 CPU s without compositing against 8.6 and 9.3 with it
   * (docs/performance.md). The soak benchmark and `drb public-pass` keep WebKit's default.
   */
  compositing?: boolean;
}

/** A free TCP port on 127.0.0.1 (asked from the OS; WebKitWebDriver cannot listen on port 0 itself). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends one WebDriver command and returns its `value`, or throws WebDriverError. */
async function command(
  baseUrl: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body: unknown,
  timeoutMs: number,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: body === undefined ? undefined : { 'content-type': 'application/json; charset=utf-8' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new WebDriverError(`WebDriver ${method} ${path} took longer than ${timeoutMs} ms`, 'timeout');
    }
    throw new WebDriverError(`WebDriver ${method} ${path} failed: ${(error as Error).message}`, 'http');
  }
  const text = await response.text();
  let payload: { value?: unknown };
  try {
    payload = JSON.parse(text) as { value?: unknown };
  } catch {
    throw new WebDriverError(`WebDriver ${method} ${path}: HTTP ${response.status} with a non-JSON body`, 'http');
  }
  const value = payload.value as { error?: string; message?: string } | undefined;
  if (!response.ok || (value && typeof value === 'object' && typeof value.error === 'string')) {
    const code = value?.error ?? 'http';
    throw new WebDriverError(
      `WebDriver ${method} ${path}: ${code}: ${value?.message ?? `HTTP ${response.status}`}`,
      code,
    );
  }
  return payload.value;
}

/** The drivers not closed yet, by process group (each driver runs detached, in a group of its own). */
const liveDrivers = new Map<number, ChildProcess>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** A process's state letter ('Z' for a zombie) and process group, from /proc/<pid>/stat; null when it is gone. */
function procStat(pid: number | string): { state: string; group: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name: state, parent pid, process group.
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, group: Number(group) };
  } catch {
    return null;
  }
}

/** The processes in process group `group` (from /proc): pid and arguments. */
function groupProcesses(group: number): Array<{ pid: number; args: string[] }> {
  const found: Array<{ pid: number; args: string[] }> = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || procStat(pid)?.group !== group) continue;
    try {
      found.push({ pid: Number(pid), args: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0') });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The processes in process group `group` running `program` (the file name of their first argument). */
function groupRunning(group: number, program: string): Array<{ pid: number; args: string[] }> {
  return groupProcesses(group).filter(({ args }) => basename(args[0] ?? '') === program);
}

/**
 * xvfb-run's temporary folder in process group `group`: the folder of the Xauthority file its Xvfb was started with
 * (`-auth`), read from /proc. Null when there is none (Xvfb gone, or not started by xvfb-run).
 */
function xvfbRunFolder(group: number): string | null {
  for (const { args } of groupProcesses(group)) {
    const at = args.indexOf('-auth');
    const folder = at >= 0 && args[at + 1] ? dirname(args[at + 1]) : null;
    if (folder !== null && basename(folder).startsWith('xvfb-run.')) return folder;
  }
  return null;
}

/** The X servers (Xvfb) in process group `group`: pid and display number (its `:<n>` argument; null if none). */
function xvfbServers(group: number): Array<{ pid: number; display: string | null }> {
  return groupRunning(group, 'Xvfb').map(({ pid, args }) => ({
    pid,
    display: args.find((arg) => /^:\d+$/.test(arg))?.slice(1) ?? null,
  }));
}

/** Whether process `pid` has ended (gone, or a zombie nobody reaped yet). */
function ended(pid: number): boolean {
  const stat = procStat(pid);
  return stat === null || stat.state === 'Z';
}

/** Resolves once every process of `pids` has ended, or after `limitMs`. */
async function endOf(pids: number[], limitMs: number): Promise<void> {
  const until = Date.now() + limitMs;
  while (pids.some((pid) => !ended(pid)) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Kills every live driver's group: when Node exits without close() (a crashed test must not leave browsers running),
 * and on Ctrl+C or a kill, where Node exits without its 'exit' handlers and a detached group gets no signal of its
 * own (an interrupted benchmark left MiniBrowser computing for good).
 */
function killLiveDrivers(): void {
  for (const [group, child] of liveDrivers) {
    if (child.exitCode !== null) continue;
    // A killed xvfb-run never runs the trap that removes its folder (close() lets it run instead): found before the
    // kill, while Xvfb still shows it, and removed after.
    const folder = xvfbRunFolder(group);
    const servers = xvfbServers(group);
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // Already gone.
    }
    if (folder !== null) rmSync(folder, { recursive: true, force: true });
    removeDisplayFiles(servers);
  }
  forget();
}

/**
 * Removes the display files of X servers that were killed: an Xvfb removes its display's lock file (/tmp/.X<n>-lock)
 * and socket when it stops of its own accord, and a killed one leaves both behind, one display per launch, for good.
 * Only for servers that were still running when killed, so never the files of a display another Xvfb has taken since.
 */
function removeDisplayFiles(killed: ReadonlyArray<{ display: string | null }>): void {
  for (const { display } of killed) {
    if (display === null) continue;
    rmSync(`/tmp/.X${display}-lock`, { force: true });
    rmSync(`/tmp/.X11-unix/X${display}`, { force: true });
  }
}

/** After the live drivers are killed, lets the signal do what it would have done: re-raised when nothing else listens. */
function onSignal(signal: (typeof SIGNALS)[number]): void {
  killLiveDrivers();
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

/** Counts a driver as live (and listens for exit and signals while any is). */
function watch(group: number, child: ChildProcess): void {
  if (liveDrivers.size === 0) {
    process.on('exit', killLiveDrivers);
    for (const signal of SIGNALS) process.on(signal, onSignal);
  }
  liveDrivers.set(group, child);
}

/** Stops counting one driver (or, without a group, all of them) as live; stops listening when none is left. */
function forget(group?: number): void {
  if (group === undefined) liveDrivers.clear();
  else liveDrivers.delete(group);
  if (liveDrivers.size > 0) return;
  process.off('exit', killLiveDrivers);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

/** A running WebKitWebDriver (and its private X server). Start with `WebKitDriver.start()`, end with `close()`. */
export class WebKitDriver {
  private closed = false;
  private readonly logTail: string[] = [];

  private constructor(
    private readonly child: ChildProcess,
    /** The driver's base URL, e.g. http://127.0.0.1:43121 */
    readonly baseUrl: string,
    private readonly options: Required<WebKitDriverOptions>,
  ) {
    const keep = (chunk: Buffer) => {
      this.logTail.push(chunk.toString('utf8'));
      if (this.logTail.length > 50) this.logTail.shift();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    if (child.pid !== undefined) watch(child.pid, child);
  }

  /**
   * Starts WebKitWebDriver under `xvfb-run -a` on a free port and waits until it answers /status.
   * @param options see WebKitDriverOptions
   */
  static async start(options: WebKitDriverOptions = {}): Promise<WebKitDriver> {
    const resolved: Required<WebKitDriverOptions> = {
      sharedArrayBuffer: options.sharedArrayBuffer ?? true,
      callTimeoutMs: options.callTimeoutMs ?? 30_000,
      binary: options.binary ?? MINIBROWSER_PATH,
      jscOptions: options.jscOptions ?? {},
      compositing: options.compositing ?? true,
    };
    let lastError: unknown;
    // Two processes can pick the same free port or X display at once; a retry with a new port settles it.
    for (let attempt = 0; attempt < 3; attempt++) {
      const port = await freePort();
      const env = { ...process.env };
      if (resolved.sharedArrayBuffer) env.JSC_useSharedArrayBuffer = '1';
      else delete env.JSC_useSharedArrayBuffer;
      for (const [name, value] of Object.entries(resolved.jscOptions)) env[`JSC_${name}`] = value;
      if (resolved.compositing) delete env.WEBKIT_DISABLE_COMPOSITING_MODE;
      else env.WEBKIT_DISABLE_COMPOSITING_MODE = '1';
      // detached: the driver, Xvfb, MiniBrowser and WebKit's helper processes share one process group that
      // close() ends as a whole (killing xvfb-run alone would leave Xvfb and the browser running).
      const child = spawn('xvfb-run', ['-a', 'WebKitWebDriver', `--port=${port}`, '--host=local'], {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env,
      });
      const driver = new WebKitDriver(child, `http://127.0.0.1:${port}`, resolved);
      try {
        await driver.waitReady();
        return driver;
      } catch (error) {
        lastError = error;
        await driver.close();
      }
    }
    throw lastError;
  }

  private async waitReady(): Promise<void> {
    const deadline = Date.now() + this.options.callTimeoutMs;
    let exited: string | null = null;
    this.child.once('exit', (code, signal) => (exited = `exited (${signal ?? code})`));
    while (Date.now() < deadline) {
      if (exited) throw new WebDriverError(`WebKitWebDriver ${exited}: ${this.log()}`, 'http');
      try {
        const status = (await command(this.baseUrl, 'GET', '/status', undefined, 2_000)) as { ready?: boolean };
        if (status?.ready) return;
      } catch {
        // Not listening yet.
      }
      await sleep(100);
    }
    throw new WebDriverError(
      `WebKitWebDriver did not become ready within ${this.options.callTimeoutMs} ms: ${this.log()}`,
      'timeout',
    );
  }

  /**
   * The process group of the driver and everything it started (Xvfb, MiniBrowser, WebKit's web and network
   * processes): a benchmark reads their memory from /proc by it. Undefined when the driver did not start.
   */
  get processGroup(): number | undefined {
    return this.child.pid;
  }

  /** The last lines the driver printed (for error messages). */
  log(): string {
    return this.logTail.join('').trim().split('\n').slice(-5).join(' | ');
  }

  /**
   * Opens a new browser: a new MiniBrowser process with an ephemeral profile (no cookies, no storage).
   * @param timeouts WebDriver timeouts in ms: `script` for async scripts, `pageLoad` for navigation
   */
  async newSession(timeouts: { scriptMs?: number; pageLoadMs?: number } = {}): Promise<WebKitSession> {
    const scriptMs = timeouts.scriptMs ?? 120_000;
    const pageLoadMs = timeouts.pageLoadMs ?? 60_000;
    const value = (await command(
      this.baseUrl,
      'POST',
      '/session',
      {
        capabilities: {
          alwaysMatch: {
            browserName: 'MiniBrowser',
            'webkitgtk:browserOptions': { binary: this.options.binary, args: ['--automation'] },
            timeouts: { script: scriptMs, pageLoad: pageLoadMs, implicit: 0 },
          },
        },
      },
      // Session creation starts a browser: it is the slow call, and the one that hangs without a display.
      Math.max(this.options.callTimeoutMs, 60_000),
    )) as { sessionId: string; capabilities: { browserVersion?: string } };
    return new WebKitSession(this.baseUrl, value.sessionId, value.capabilities.browserVersion ?? null, {
      callMs: this.options.callTimeoutMs,
      scriptMs,
      pageLoadMs,
    });
  }

  /** Stops the driver, its X server and every browser it started. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.child.pid !== undefined) forget(this.child.pid);
    const pid = this.child.pid;
    if (pid === undefined || this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-pid, signal);
      } catch {
        // Already gone.
      }
    };
    // SIGTERM to WebKitWebDriver alone: xvfb-run then returns normally and its EXIT trap stops Xvfb and removes
    // its temporary folder (a signal to the whole group kills the shell before that trap runs).
    const driverPids = groupRunning(pid, 'WebKitWebDriver').map((driver) => driver.pid);
    const servers = xvfbServers(pid);
    if (driverPids.length > 0) for (const driverPid of driverPids) process.kill(driverPid, 'SIGTERM');
    else signalGroup('SIGTERM');
    const timer = setTimeout(() => signalGroup('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
    // xvfb-run's trap asks Xvfb to stop and returns at once; Xvfb removes its display's lock file (/tmp/.X<n>-lock) and
    // socket as it stops. One still stopping after that (a loaded machine) is killed below, and its files go with it.
    await endOf(
      servers.map((server) => server.pid),
      2_000,
    );
    const killed = servers.filter((server) => !ended(server.pid));
    // Whatever the driver left behind (a browser of a session nobody deleted) still carries the group id.
    signalGroup('SIGKILL');
    if (killed.length > 0) {
      await endOf(
        killed.map((server) => server.pid),
        2_000,
      );
      removeDisplayFiles(killed);
    }
  }
}

/** One WebDriver session: one MiniBrowser window. */
export class WebKitSession {
  /**
   * @param baseUrl the driver's base URL
   * @param id the session id
   * @param browserVersion the WebKitGTK version the session reports
   * @param limits time limits in ms for plain calls, scripts and page loads
   */
  constructor(
    private readonly baseUrl: string,
    readonly id: string,
    readonly browserVersion: string | null,
    private readonly limits: { callMs: number; scriptMs: number; pageLoadMs: number },
  ) {}

  private call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, timeoutMs = this.limits.callMs) {
    return command(this.baseUrl, method, `/session/${this.id}${path}`, body, timeoutMs);
  }

  /** Navigates to `url` and waits for its load event (same as typing it in the address bar). */
  async navigate(url: string): Promise<void> {
    await this.call('POST', '/url', { url }, this.limits.pageLoadMs + 5_000);
  }

  /** Reloads the current page (the W3C "refresh" command). */
  async refresh(): Promise<void> {
    await this.call('POST', '/refresh', {}, this.limits.pageLoadMs + 5_000);
  }

  /** The current page URL. */
  async currentUrl(): Promise<string> {
    return (await this.call('GET', '/url')) as string;
  }

  /**
   * Runs `body` as a function body in the page and returns its JSON-serialisable result; a returned promise is
   * awaited (W3C execute/sync does that).
   * @param body function body, e.g. `return document.title`; arguments are `arguments[0..]`
   * @param args JSON-serialisable arguments
   */
  async execute<T>(body: string, args: unknown[] = []): Promise<T> {
    return (await this.call('POST', '/execute/sync', { script: body, args }, this.limits.scriptMs + 5_000)) as T;
  }

  /**
   * Runs `body` as an async script: it must call `arguments[arguments.length - 1](result)` (the W3C callback).
   * @param body function body
   * @param args JSON-serialisable arguments (the callback comes after them)
   */
  async executeAsync<T>(body: string, args: unknown[] = []): Promise<T> {
    return (await this.call('POST', '/execute/async', { script: body, args }, this.limits.scriptMs + 5_000)) as T;
  }

  /** The element reference of the first element matching a CSS selector (throws `no such element`). */
  async findElement(selector: string): Promise<string> {
    const value = (await this.call('POST', '/element', { using: 'css selector', value: selector })) as Record<
      string,
      string
    >;
    return value[ELEMENT_KEY];
  }

  /** Clicks an element found with findElement. */
  async click(elementId: string): Promise<void> {
    await this.call('POST', `/element/${elementId}/click`, {});
  }

  /**
   * Types into an element (W3C "element send keys"). On an `<input type="file">` the text is the files' absolute
   * paths, one per line: the driver sets them as the picked files, as a person picking them would.
   * @param elementId an element found with findElement
   * @param text what to type
   */
  async sendKeys(elementId: string, text: string): Promise<void> {
    await this.call('POST', `/element/${elementId}/value`, { text });
  }

  /** Sets the browser window's outer size in CSS pixels (W3C Set Window Rect); the page's viewport is smaller. */
  async setWindowSize(width: number, height: number): Promise<void> {
    await this.call('POST', '/window/rect', { width, height });
  }

  /** A PNG of the page's viewport (W3C Take Screenshot). */
  async screenshot(): Promise<Buffer> {
    return Buffer.from((await this.call('GET', '/screenshot')) as string, 'base64');
  }

  /**
   * Presses keys on the keyboard, one after the other, into whatever element has the focus (W3C Perform Actions):
   * `'\uE004'` Tab, `'\uE007'` Enter, `' '` Space.
   * @param keys the keys, each a W3C key value
   */
  async pressKeys(keys: readonly string[]): Promise<void> {
    const actions = keys.flatMap((value) => [
      { type: 'keyDown', value },
      { type: 'keyUp', value },
    ]);
    await this.call('POST', '/actions', { actions: [{ type: 'key', id: 'keyboard', actions }] });
    await this.call('DELETE', '/actions');
  }

  /**
   * Runs later commands in a frame (W3C Switch To Frame): the element reference of an iframe, or null for the top
   * page again.
   * @param elementId an iframe found with findElement, or null
   */
  async switchToFrame(elementId: string | null): Promise<void> {
    await this.call('POST', '/frame', { id: elementId === null ? null : { [ELEMENT_KEY]: elementId } });
  }

  /** Ends the session and closes its browser. */
  async delete(): Promise<void> {
    await this.call('DELETE', '');
  }
}
