/**
 * Launches Debian's Chromium headless through playwright-core, with the flags this machine needs and a fresh
 * profile every time (nothing is ever downloaded: `npx playwright install` is not used).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type JSHandle, type Page } from 'playwright-core';

/** Where Debian installs Chromium. */
export const CHROMIUM_EXECUTABLE = '/usr/bin/chromium';

/** Flags every headless launch uses here. */
export const CHROMIUM_BASE_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--headless',
];

/** A launched browser with its own profile; `close()` removes the profile. */
export interface LaunchedChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Launches Chromium with a fresh `--user-data-dir`, or with one the caller keeps (a browser quit and started again on
 * the same profile, as a tester quits and reopens a phone's browser).
 * @param options.webgpu add `--enable-unsafe-webgpu` (SwiftShader adapter on a CPU-only machine)
 * @param options.extraArgs flags added to CHROMIUM_BASE_ARGS
 * @param options.profileDir an existing profile folder to use; `close()` then leaves it for the caller to remove
 */
export async function launchChromium(
  options: { webgpu?: boolean; extraArgs?: string[]; profileDir?: string } = {},
): Promise<LaunchedChromium> {
  const profile = options.profileDir ?? (await mkdtemp(join(tmpdir(), 'drb-chromium-')));
  const args = [
    ...CHROMIUM_BASE_ARGS,
    ...(options.webgpu ? ['--enable-unsafe-webgpu'] : []),
    ...(options.extraArgs ?? []),
  ];
  // launchPersistentContext is the playwright form of `--user-data-dir`: a fresh profile per launch.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_EXECUTABLE,
    headless: true,
    args,
    acceptDownloads: true,
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      if (options.profileDir === undefined) await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * How often `waitForPage` checks its condition, in ms. Playwright's `waitForFunction` checks on every animation frame
 * unless told otherwise, and the page then produces a frame 60 times a second for the whole wait: measured here on an
 * idle page, 10 s of such waiting took 0.7 to 0.8 CPU s of the renderer, 0.2 to 0.5 of the GPU process and 0.1 of the
 * browser process, against 0.05 to 0.14 in all with a 100 ms interval. That is CPU a run under way competes with.
 */
export const PAGE_POLL_MS = 50;

/**
 * `page.waitForFunction(predicate, arg, { timeout })`, checking every PAGE_POLL_MS instead of on every animation
 * frame; resolves to the handle of the first truthy value.
 * @param page the page
 * @param predicate evaluated in the page (with `arg`) until it returns a truthy value
 * @param arg the predicate's argument
 * @param options.timeout ms before it rejects (playwright's default when absent)
 */
export function waitForPage<R, Arg = undefined>(
  page: Page,
  predicate: string | ((arg: Arg) => R | Promise<R>),
  arg?: Arg,
  options: { timeout?: number } = {},
): Promise<JSHandle<R>> {
  return page.waitForFunction(predicate as never, arg, { ...options, polling: PAGE_POLL_MS }) as Promise<JSHandle<R>>;
}
