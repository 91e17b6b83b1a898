/**
 * What every run controller is told about the page it runs in (injected, so the controllers hold no UI), and the
 * one place the page's panels build it from the live page.
 */
import type { PageBuild } from '../core/receipt/receipt-envelope.ts';
import type { Capabilities } from '../core/receipt/receipt.ts';
import { probeCapabilities } from './capability-probe.ts';
import type { ControllerJournal } from './run-journal.ts';
import { stageLimits, type StageLimits } from './stage-limits.ts';

/** Page facts every controller needs. */
export interface PageFacts {
  /** The page's base URL (origin + Vite base path, ends in "/"): model files, inputs, prompts and suites resolve here. */
  pageBaseUrl: string;
  /** The page's current URL (redacted to origin + path when it enters a receipt). */
  pageUrl: () => string;
  /** The capability probe (recorded in every receipt). */
  probe: () => Promise<Capabilities>;
  limits: StageLimits;
  build: PageBuild;
  /** The page's run journal: every run journals its stages and records a pending interruption; absent in tests. */
  journal?: ControllerJournal;
}

/**
 * The live page's facts: its base URL, current URL, the capability probe, the stage limits, the build's version and
 * the run journal.
 * @param stageTimeoutMs the automation's `stage_timeout_ms` (replaces every stage's limit); null = the defaults
 * @param journal the page's run journal
 */
export function livePageFacts(stageTimeoutMs: number | null, journal?: ControllerJournal): PageFacts {
  return {
    pageBaseUrl: new URL(import.meta.env.BASE_URL, location.href).href,
    pageUrl: () => location.href,
    probe: probeCapabilities,
    limits: stageLimits(stageTimeoutMs),
    build: { version: __DRB_VERSION__, commit: __DRB_COMMIT__ },
    journal,
  };
}
