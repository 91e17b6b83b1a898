/**
 * Launches Debian's Chromium headless through playwright-core, with the flags this machine needs and a fresh
 * profile every time (nothing is ever downloaded: `npx playwright install` is not used).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

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
 * Launches Chromium with a fresh `--user-data-dir`.
 * @param options.webgpu add `--enable-unsafe-webgpu` (SwiftShader adapter on a CPU-only machine)
 * @param options.downloadsPath where downloads are kept (playwright's download event works either way)
 */
export async function launchChromium(options: { webgpu?: boolean; extraArgs?: string[] } = {}): Promise<LaunchedChromium> {
  const profile = await mkdtemp(join(tmpdir(), 'drb-chromium-'));
  const args = [...CHROMIUM_BASE_ARGS, ...(options.webgpu ? ['--enable-unsafe-webgpu'] : []), ...(options.extraArgs ?? [])];
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
      await rm(profile, { recursive: true, force: true });
    },
  };
}
