/**
 * What every run controller is told about the page it runs in (injected, so the controllers hold no UI), and the
 * one place the page's panels build it from the live page.
 */
import type { Capabilities } from '../core/receipt.ts';
import { probeCapabilities } from './capability-probe.ts';
import { DEFAULT_STAGE_LIMITS, type StageLimits } from './run-controller.ts';

/** Page facts every controller needs. */
export interface PageFacts {
  pageBaseUrl: string;
  pageUrl: () => string;
  probe: () => Promise<Capabilities>;
  limits: StageLimits;
  app: { version: string; commit: string | null };
}

/**
 * The live page's facts: its base URL, current URL, the capability probe, the stage limits and the build's version.
 * @param stageTimeoutMs the automation's `stage_timeout_ms` (replaces every stage's limit); null = the defaults
 */
export function livePageFacts(stageTimeoutMs: number | null): PageFacts {
  const limits: StageLimits = { ...DEFAULT_STAGE_LIMITS };
  if (stageTimeoutMs !== null) for (const key of Object.keys(limits) as Array<keyof StageLimits>) limits[key] = stageTimeoutMs;
  return {
    pageBaseUrl: new URL(import.meta.env.BASE_URL, location.href).href,
    pageUrl: () => location.href,
    probe: probeCapabilities,
    limits,
    app: { version: __DRB_VERSION__, commit: __DRB_COMMIT__ },
  };
}
