/**
 * The W3C WebDriver protocol over plain `fetch()`: one command with a time limit, errors as `WebDriverError` with
 * the protocol's code, and a session's commands. Spoken to WebKitWebDriver by webkit-driver.ts and to any remote
 * endpoint (safaridriver, Appium, a device-farm hub) by the WebDriver lane (browser-lane.ts).
 *
 * Written by hand instead of using a WebDriver library (selenium-webdriver, webdriverio): the project needs a dozen
 * endpoints, and those libraries pull in dozens of packages and download drivers on install. Every HTTP call has a
 * time limit, so a hung endpoint fails the caller instead of hanging it.
 */

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

/** Sends one WebDriver command to `baseUrl` + `path` and returns its `value`, or throws WebDriverError. */
export async function webDriverCommand(
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

/** One W3C WebDriver session on any endpoint (WebKitWebDriver, safaridriver, Appium, a hub): one browser window. */
export class WebDriverSession {
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
    return webDriverCommand(this.baseUrl, method, `/session/${encodeURIComponent(this.id)}${path}`, body, timeoutMs);
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

  /** Deletes every cookie the current page's origin can see (W3C Delete All Cookies). */
  async deleteAllCookies(): Promise<void> {
    await this.call('DELETE', '/cookie');
  }

  /** The browser window's outer position and size in CSS pixels (W3C Get Window Rect). */
  async windowRect(): Promise<{ x: number; y: number; width: number; height: number }> {
    return (await this.call('GET', '/window/rect')) as { x: number; y: number; width: number; height: number };
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

  /**
   * Ends the session and closes its browser, given as long as a page load: a driver that serves one session at a time
   * (WebKitWebDriver) refuses or queues the next one until this returns, and a browser that ran a long page can take
   * well over a plain call's limit to quit on a loaded machine.
   */
  async delete(): Promise<void> {
    await this.call('DELETE', '', undefined, Math.max(this.limits.callMs, this.limits.pageLoadMs + 5_000));
  }
}

/** The time limits of a session, in ms. */
export interface SessionLimits {
  /** Creating the session (the endpoint starts or reserves a browser: the slow call, and the one a hub queues). */
  sessionMs: number;
  /** Every plain call. */
  callMs: number;
  /** A script (the W3C `script` timeout; our own limit is 5 s longer). */
  scriptMs: number;
  /** A navigation (the W3C `pageLoad` timeout; our own limit is 5 s longer). */
  pageLoadMs: number;
}

/**
 * Asks an endpoint for a new session (W3C New Session) with `capabilities` as `alwaysMatch`, plus the W3C timeouts
 * from `limits` (a capabilities file never sets those).
 * @param baseUrl the endpoint, e.g. http://127.0.0.1:4444 (no credentials; no trailing slash)
 * @param capabilities the capabilities to match
 * @param limits see SessionLimits
 * @returns the session and the capabilities the endpoint answered with
 */
export async function newWebDriverSession(
  baseUrl: string,
  capabilities: Record<string, unknown>,
  limits: SessionLimits,
): Promise<{ session: WebDriverSession; matched: Record<string, unknown> }> {
  const value = (await webDriverCommand(
    baseUrl,
    'POST',
    '/session',
    {
      capabilities: {
        alwaysMatch: {
          ...capabilities,
          timeouts: { script: limits.scriptMs, pageLoad: limits.pageLoadMs, implicit: 0 },
        },
      },
    },
    limits.sessionMs,
  )) as { sessionId?: unknown; capabilities?: unknown } | null;
  if (typeof value?.sessionId !== 'string' || value.sessionId === '') {
    throw new WebDriverError('WebDriver POST /session: the answer has no sessionId', 'http');
  }
  const matched =
    value.capabilities && typeof value.capabilities === 'object' ? (value.capabilities as Record<string, unknown>) : {};
  const version = typeof matched.browserVersion === 'string' ? matched.browserVersion : null;
  return {
    session: new WebDriverSession(baseUrl, value.sessionId, version, {
      callMs: limits.callMs,
      scriptMs: limits.scriptMs,
      pageLoadMs: limits.pageLoadMs,
    }),
    matched,
  };
}
