/**
 * Helpers shared by the lane tests (webkit-lane, journal, public-pass): serve the e2e build, open it in a lane
 * (Chromium or WebKitGTK, see src/node/browser-lane.ts), wait for the automation contract's end signal, and check
 * receipts exactly as `drb receipts validate` does.
 */
import { inject } from 'vitest';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import {
  openLane,
  type BrowserLane,
  type LaneName,
  type LaneOptions,
  type LanePage,
} from '../../src/node/browser-lane.ts';
import { startStaticServer, type StaticServer } from '../../src/node/static-server.ts';
import { E2E_CHROMIUM_ARGS } from './page-harness.ts';

/** Both lanes, for describe.each. */
export const LANES = ['chromium', 'webkit'] as const;

/**
 * Opens a lane for an e2e test: Chromium gets the e2e flags (E2E_CHROMIUM_ARGS, page-harness.ts), WebKit paints
 * without accelerated compositing (no test looks at pixels; WebKitDriverOptions.compositing says what it saves).
 */
export function openTestLane(name: LaneName, options: LaneOptions = {}): Promise<BrowserLane> {
  // One Chromium per lane, a new context (profile) per page: a launch per page only costs the tests CPU.
  return openLane(name, { webkitCompositing: false, ...options, chromiumArgs: E2E_CHROMIUM_ARGS, shareBrowser: true });
}

/** Serves the build that global-setup made. */
export function serveBuild(dir: string = inject('distDir')): Promise<StaticServer> {
  return startStaticServer({ dir });
}

/** Waits until the page's `data-drb-state` is done or failed and returns it. */
export function waitForEnd(page: LanePage, timeoutMs = 150_000): Promise<string> {
  return page.waitFor<string>(
    `const s = document.documentElement.dataset.drbState; return s === 'done' || s === 'failed' ? s : null;`,
    {
      timeoutMs,
      description: 'data-drb-state done or failed',
    },
  );
}

/** `window.drbReceipts`. */
export function pageReceipts(page: LanePage): Promise<DeviceReceipt[]> {
  return page.evaluate<DeviceReceipt[]>('return window.drbReceipts;');
}

/** What `drb receipts validate` reports for a receipt, one `<path>: <problem>` line each (empty = valid). */
export function validationProblems(receipt: unknown): string[] {
  return validateReceipt(receipt).problems.map((p) => `${p.path}: ${p.message}`);
}

/** The run journal the page keeps in localStorage (null when none). */
export function readStoredJournal(
  page: LanePage,
): Promise<{ active: Array<{ stage: string; run_id: string }>; interrupted: unknown } | null> {
  return page.evaluate(`return JSON.parse(localStorage.getItem('drb.run-journal') ?? 'null');`);
}
