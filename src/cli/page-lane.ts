/**
 * Running the page through the automation contract in a fresh browser profile, for the commands that drive it
 * (`drb compare --url`, and the preflight `drb public-pass` shares): fetch the page once from Node so an unreachable
 * page fails with its reason, open it with the run's parameters in a lane (Chromium or WebKitGTK), wait for
 * `data-drb-state` to be `done` or `failed`, and read back what the page offers (`window.drbArtifacts`) and the
 * one-line errors it shows.
 */
import { toSearchParams, type AutomationSettings } from '../core/automation/automation.ts';
import type { LaneName } from '../node/browser-lane.ts';

/**
 * Fetches the page once from Node (anonymous, no cookies) so an unreachable page or a 404 fails with a clear reason.
 * @param url the page URL (origin + path)
 * @param timeoutMs the longest the fetch may take (at most 30 s)
 * @returns null when the page answered, else the reason
 */
export async function preflight(url: string, timeoutMs: number): Promise<string | null> {
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

/** What the page reported when its run ended. */
export interface PageRunResult {
  /** `done`, `failed`, or `timeout` when it never ended. */
  state: 'done' | 'failed' | 'timeout';
  /** The browser's version. */
  browserVersion: string | null;
  /** Every artifact the page offered, as `{kind, data}`. */
  artifacts: Array<{ kind: string; data: unknown }>;
  /** The one-line errors the page showed (a refused parameter), joined; null when none. */
  errorText: string | null;
}

// Reads what the automation contract exposes; the error text is what the page shows for a refused parameter.
const READ_PAGE = `
  const errorNodes = [...document.querySelectorAll('[data-testid="param-error"]')];
  return {
    state: document.documentElement.dataset.drbState ?? null,
    artifacts: Array.isArray(window.drbArtifacts) ? window.drbArtifacts : [],
    errorText: errorNodes.length > 0 ? errorNodes.map((n) => n.textContent.trim()).join('; ').slice(0, 500) : null,
  };
`;

/**
 * Opens `url` with `settings` as its query in a fresh profile of `browser` and waits for the run to end.
 * @param options the page (origin + path), the automation settings, the browser, WebGPU in Chromium, the time limit
 *   and a progress line callback
 */
export async function runPage(options: {
  url: string;
  settings: Partial<AutomationSettings>;
  browser: LaneName;
  webgpu: boolean;
  timeoutMs: number;
  log: (line: string) => void;
}): Promise<PageRunResult> {
  // Imported here, not at the top: playwright-core takes ~0.8 s to load, and no other command should pay it.
  const { openLane } = await import('../node/browser-lane.ts');
  const lane = await openLane(options.browser, { webgpu: options.webgpu, scriptTimeoutMs: options.timeoutMs });
  try {
    const page = await lane.newPage();
    options.log(`opening ${options.url} in a fresh ${options.browser} profile`);
    await page.goto(`${options.url}?${toSearchParams(options.settings)}`);
    let state: PageRunResult['state'] = 'timeout';
    try {
      state = await page.waitFor<'done' | 'failed'>(
        `const s = document.documentElement.dataset.drbState; return s === 'done' || s === 'failed' ? s : null;`,
        {
          timeoutMs: options.timeoutMs,
          pollMs: 250,
          description: 'the page to finish (data-drb-state done or failed)',
        },
      );
    } catch {
      state = 'timeout';
    }
    const read = await page.evaluate<{ artifacts: PageRunResult['artifacts']; errorText: string | null }>(READ_PAGE);
    return { state, browserVersion: lane.version, artifacts: read.artifacts, errorText: read.errorText };
  } finally {
    await lane.close().catch(() => {});
  }
}
