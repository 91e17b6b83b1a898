/**
 * `drb leaderboard` in real browsers: the page of the phones in test/unit/leaderboard-fixtures.ts (verified, community,
 * failed, crashed, functional_only and hostile rows) opened from file:// in Chromium with every request blocked and in
 * WebKitGTK (WebKitWebDriver under Xvfb): no console error and no request, a table at 1366 px and cards at 375 px with
 * nothing overflowing, columns sorted from the keyboard (Tab to a header button, Enter, Space), the track and profile
 * filters, the failed rows' pattern and the hostile strings shown as text; screenshots at both widths in both
 * browsers (kept in a temp folder, named in the test output).
 */
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedChromium } from '../../src/node/chromium.ts';
import { WebKitDriver, type WebKitSession } from '../../src/node/webkit-driver.ts';
import { runCli } from '../unit/cli-harness.ts';
import { writeLeaderboardInputs, type LeaderboardInputs } from '../unit/leaderboard-fixtures.ts';
import { launchTestChromium } from './page-harness.ts';

const work = mkdtempSync(join(tmpdir(), 'drb-leaderboard-e2e-'));
const shots = join(work, 'screenshots');
let inputs: LeaderboardInputs;
let pageUrl: string;

beforeAll(async () => {
  mkdirSync(join(work, 'in'));
  mkdirSync(shots);
  inputs = await writeLeaderboardInputs(join(work, 'in'));
  const run = await runCli([
    'leaderboard',
    inputs.receipts,
    inputs.scores,
    '--meta',
    inputs.meta,
    '--reviews',
    inputs.summaryDir,
    '--out',
    join(work, 'lb'),
  ]);
  expect(run.code, run.stderr).toBe(0);
  pageUrl = pathToFileURL(join(work, 'lb', 'index.html')).href;
}, 180_000);

/** What a test reads off the page, the same script in both browsers (returned as JSON). */
const READ_PAGE = `
  const rows = [...document.querySelectorAll('#board tbody[data-key]')];
  const visible = rows.filter((r) => getComputedStyle(r).display !== 'none');
  const profile = document.body.getAttribute('data-profile');
  return {
    innerWidth: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    rowDisplay: visible.length ? getComputedStyle(visible[0].querySelector('tr.main')).display : null,
    widest: Math.max(...[...document.querySelectorAll('body *')].filter((el) => el.closest('table.cards thead') === null).map((el) => el.getBoundingClientRect().right)),
    keys: visible.map((r) => r.getAttribute('data-key')),
    warm: visible.map((r) => r.getAttribute('data-s-warm')),
    shown: document.getElementById('shown').textContent,
    profile,
    sort: [...document.querySelectorAll('#board thead th')].map((th) => th.getAttribute('aria-sort')).filter(Boolean),
    focused: document.activeElement ? document.activeElement.getAttribute('data-sort') : null,
    failedBackground: (() => { const td = document.querySelector('tbody.failed td'); return td ? getComputedStyle(td).backgroundImage : null; })(),
    rankShown: visible.map((r) => [...r.querySelectorAll('td[data-label="rank and fit"] [data-p]')].filter((d) => getComputedStyle(d).display !== 'none').map((d) => d.getAttribute('data-p'))),
    verifiedBadges: document.querySelectorAll('#board .badge.verified').length,
    hostileText: [...document.querySelectorAll('#board td')].some((td) => td.textContent.includes('<script>alert(1)</script>')),
    markupElements: document.querySelectorAll('#board script, #board img, #board svg, #board a[href^="javascript"]').length,
  };
`;

interface PageState {
  innerWidth: number;
  scrollWidth: number;
  rowDisplay: string | null;
  widest: number;
  keys: string[];
  warm: Array<string | null>;
  shown: string;
  profile: string;
  sort: string[];
  focused: string | null;
  failedBackground: string | null;
  rankShown: string[][];
  verifiedBadges: number;
  hostileText: boolean;
  markupElements: number;
}

/** Rows with a value in ascending (or descending) order, then the rows without one. */
function expectSorted(values: Array<string | null>, direction: 1 | -1): void {
  const present = values.filter((v): v is string => v !== null).map(Number);
  expect(
    values.slice(present.length).every((v) => v === null),
    'rows without a value last',
  ).toBe(true);
  for (let i = 1; i < present.length; i++) expect((present[i] - present[i - 1]) * direction).toBeGreaterThanOrEqual(0);
}

/** The checks both browsers must pass on the opened page; `keys` presses keys, `select` changes a select. */
async function checkInteractions(
  read: () => Promise<PageState>,
  keys: (k: string[]) => Promise<void>,
  focus: (sortKey: string) => Promise<void>,
  select: (id: string, value: string) => Promise<void>,
): Promise<void> {
  const initial = await read();
  expect(initial.profile).toBe('mainstream');
  expect(initial.keys.length).toBeGreaterThan(10);
  expect(initial.shown).toBe(`${initial.keys.length} of ${initial.keys.length} rows shown`);
  expect(initial.failedBackground).toContain('repeating-linear-gradient');
  expect(initial.verifiedBadges).toBe(2);
  expect(initial.hostileText).toBe(true);
  expect(initial.markupElements).toBe(0);
  // Keyboard: from the cold p95 button, Tab moves to the warm median button; Enter sorts ascending, Space descending.
  await focus('cold');
  await keys(['\uE004']);
  expect((await read()).focused).toBe('warm');
  await keys(['\uE007']);
  const ascending = await read();
  expect(ascending.sort).toEqual(['ascending']);
  expectSorted(ascending.warm, 1);
  expect(ascending.warm[0]).not.toBeNull();
  await keys([' ']);
  const descending = await read();
  expect(descending.sort).toEqual(['descending']);
  expectSorted(descending.warm, -1);
  // Profile filter: only the selected profile's rank cells show.
  await select('f-profile', 'performance');
  const performance = await read();
  expect(performance.profile).toBe('performance');
  expect(performance.rankShown.every((shown) => shown.length === 1 && shown[0] === 'performance')).toBe(true);
  // Track filter: only that track's rows; the count says so.
  await select('f-track', trackValue);
  const filtered = await read();
  expect(filtered.keys.length).toBeLessThan(initial.keys.length);
  expect(filtered.keys.length).toBeGreaterThan(0);
  expect(filtered.shown).toBe(`${filtered.keys.length} of ${initial.keys.length} rows shown`);
  await select('f-track', '');
  await select('f-profile', 'mainstream');
  expect((await read()).keys.length).toBe(initial.keys.length);
}

/** The value of the track filter's first track (read off the page before the interactions). */
let trackValue = '';

describe('drb leaderboard in Chromium from file://', () => {
  let browser: LaunchedChromium;
  beforeAll(async () => {
    browser = await launchTestChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function open(width: number, height: number): Promise<{ page: Page; requests: string[]; errors: string[] }> {
    const page = await browser.context.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    await page.route('**/*', (route) => {
      if (route.request().url() === pageUrl) return route.continue();
      requests.push(route.request().url());
      return route.abort();
    });
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await page.setViewportSize({ width, height });
    await page.goto(pageUrl, { waitUntil: 'load' });
    return { page, requests, errors };
  }

  it('is a table at 1366 px, sorts from the keyboard, filters by track and profile, with no error or request', async () => {
    const { page, requests, errors } = await open(1366, 900);
    trackValue = await page.evaluate(
      () => (document.querySelector('#f-track option:nth-child(2)') as HTMLOptionElement).value,
    );
    const read = () => page.evaluate(`(() => { ${READ_PAGE} })()`) as Promise<PageState>;
    const layout = await read();
    expect(layout.rowDisplay).toBe('table-row');
    expect(layout.scrollWidth).toBeLessThanOrEqual(1366);
    expect(layout.widest).toBeLessThanOrEqual(1366.5);
    await page.screenshot({ path: join(shots, 'chromium-1366-top.png') });
    await page.screenshot({ path: join(shots, 'chromium-1366-full.png'), fullPage: true });
    await checkInteractions(
      read,
      async (keys) => {
        for (const key of keys)
          await page.keyboard.press(key === '\uE004' ? 'Tab' : key === '\uE007' ? 'Enter' : 'Space');
      },
      async (key) => page.focus(`button[data-sort="${key}"]`),
      async (id, value) => {
        await page.selectOption(`#${id}`, value);
      },
    );
    await page
      .locator('#pareto figure')
      .first()
      .screenshot({ path: join(shots, 'chromium-1366-pareto.png') });
    await page.close();
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
  });

  it('is cards at 375 px with nothing overflowing', async () => {
    const { page, requests, errors } = await open(375, 812);
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => d.setAttribute('open', '')));
    const layout = (await page.evaluate(`(() => { ${READ_PAGE} })()`)) as PageState;
    await page.screenshot({ path: join(shots, 'chromium-375-top.png') });
    await page
      .locator(`#row-${inputs.keys['galaxy-tiny-webgpu']}`)
      .screenshot({ path: join(shots, 'chromium-375-failed-card.png') });
    await page
      .locator(`#row-${inputs.keys['pixel-tiny-wasm']}`)
      .screenshot({ path: join(shots, 'chromium-375-verified-card.png') });
    await page.close();
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    expect(layout.rowDisplay).toBe('block');
    expect(layout.scrollWidth).toBeLessThanOrEqual(375);
    expect(layout.widest).toBeLessThanOrEqual(375.5);
    for (const file of [
      'chromium-1366-top',
      'chromium-1366-full',
      'chromium-1366-pareto',
      'chromium-375-top',
      'chromium-375-failed-card',
      'chromium-375-verified-card',
    ]) {
      expect(statSync(join(shots, `${file}.png`)).size, file).toBeGreaterThan(5_000);
    }
    console.log(`leaderboard screenshots: ${shots}`);
  });
});

describe('drb leaderboard in WebKitGTK from file://', () => {
  let driver: WebKitDriver;
  let session: WebKitSession;
  beforeAll(async () => {
    driver = await WebKitDriver.start({ compositing: false });
    session = await driver.newSession();
  }, 60_000);
  afterAll(async () => {
    await session?.delete().catch(() => undefined);
    await driver?.close();
  });

  /** Sizes the window so that the page's viewport is `width` CSS pixels wide, then loads the page. */
  async function openAt(width: number, height: number): Promise<number> {
    await session.setWindowSize(width, height);
    await session.navigate(pageUrl);
    const inner = await session.execute<number>('return window.innerWidth;');
    if (inner !== width) {
      await session.setWindowSize(width + (width - inner), height);
      await session.navigate(pageUrl);
    }
    return session.execute<number>('return window.innerWidth;');
  }

  it('is a table at 1366 px, sorts from the keyboard and filters, scripts and styles allowed by the CSP', async () => {
    const inner = await openAt(1366, 900);
    expect(inner).toBe(1366);
    // Errors the page's own code would raise from here on, and CSP violations, are collected.
    await session.execute(
      `window.__errors = []; addEventListener('error', (e) => __errors.push(String(e.message))); document.addEventListener('securitypolicyviolation', (e) => __errors.push(e.violatedDirective));`,
    );
    trackValue = await session.execute<string>(`return document.querySelector('#f-track option:nth-child(2)').value;`);
    const read = () => session.execute<PageState>(READ_PAGE);
    const layout = await read();
    expect(layout.rowDisplay).toBe('table-row');
    expect(layout.scrollWidth).toBeLessThanOrEqual(1366);
    expect(layout.widest).toBeLessThanOrEqual(1366.5);
    writeFileSync(join(shots, 'webkit-1366-top.png'), await session.screenshot());
    await checkInteractions(
      read,
      (keys) => session.pressKeys(keys),
      async (key) => {
        await session.execute(`document.querySelector('button[data-sort="${key}"]').focus();`);
      },
      async (id, value) => {
        await session.execute(
          `const s = document.getElementById(arguments[0]); s.value = arguments[1]; s.dispatchEvent(new Event('change'));`,
          [id, value],
        );
      },
    );
    await session.execute(`document.getElementById('pareto').scrollIntoView();`);
    writeFileSync(join(shots, 'webkit-1366-pareto.png'), await session.screenshot());
    expect(await session.execute<string[]>('return window.__errors;')).toEqual([]);
  });

  it('is cards at 375 px with nothing overflowing (in a 375 px frame: MiniBrowser windows are wider)', async () => {
    // The page in an iframe 375 CSS pixels wide: its media queries see a 375 px viewport, as on a phone.
    writeFileSync(
      join(work, 'lb', 'phone.html'),
      '<!doctype html><body style="margin:0"><iframe id="phone" src="index.html" style="width:375px;height:2400px;border:0"></iframe></body>',
    );
    await openAt(1366, 900);
    await session.navigate(pathToFileURL(join(work, 'lb', 'phone.html')).href);
    await session.switchToFrame(await session.findElement('#phone'));
    const layout = await session.execute<PageState>(READ_PAGE);
    expect(layout.innerWidth).toBe(375);
    expect(layout.rowDisplay).toBe('block');
    expect(layout.scrollWidth).toBeLessThanOrEqual(375);
    expect(layout.widest).toBeLessThanOrEqual(375.5);
    await session.switchToFrame(null);
    writeFileSync(join(shots, 'webkit-375-top.png'), await session.screenshot());
    await session.switchToFrame(await session.findElement('#phone'));
    await session.execute(`document.getElementById(arguments[0]).scrollIntoView();`, [
      `row-${inputs.keys['galaxy-tiny-webgpu']}`,
    ]);
    await session.switchToFrame(null);
    writeFileSync(join(shots, 'webkit-375-failed-card.png'), await session.screenshot());
    for (const file of ['webkit-1366-top', 'webkit-1366-pareto', 'webkit-375-top', 'webkit-375-failed-card']) {
      const bytes = readFileSync(join(shots, `${file}.png`));
      expect(bytes.subarray(1, 4).toString(), file).toBe('PNG');
      expect(bytes.length, file).toBeGreaterThan(5_000);
    }
    console.log(`leaderboard screenshots: ${shots}`);
  });
});
