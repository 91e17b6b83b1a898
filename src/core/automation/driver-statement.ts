/**
 * The driver's statement: what the program that drove a browser (a lane of `drb public-pass` or `drb field-run`)
 * states about that browser, because it did it itself. It stands beside what the page measured (a receipt's own
 * facts, the viewport the page saw) and what a person attested (a tester's tap), and is never mixed with either:
 *
 * - a lane that started the browser itself with a new profile states that the process was new and the profile
 *   empty, and how it knows (it launched it, with a new temporary profile or an ephemeral WebDriver session);
 * - a lane attached to a browser it did not start (a WebDriver endpoint on a device, a Chromium over CDP) states
 *   only what it did, for example the site data it cleared through the protocol, and nothing it cannot know: its
 *   `process_new` and `profile_empty` are null, never true.
 */
import { z } from 'zod';
import { Detail, textLine, Token } from '../text/bounded-text.ts';
import type { ColdStartAttestation } from '../receipt/attestation.ts';

/** Site data the driver cleared through the protocol before a run, and what it could not clear. */
export const ClearedSiteData = z.strictObject({
  /** The protocol commands used, e.g. `CDP Storage.clearDataForOrigin(all) + Network.clearBrowserCache`. */
  via: textLine(256),
  /** The stores cleared (`cookies`, `local_storage`, `indexeddb`, `cache_storage`, `service_workers`, `opfs`,
   *  `http_cache`, ...). */
  cleared: z.array(Token).max(16),
  /** The stores the driver could not clear through this protocol (a person, or the page, must). */
  not_cleared: z.array(Token).max(16),
});
export type ClearedSiteData = z.infer<typeof ClearedSiteData>;

/** What the driver states about the browser it drove. */
export const DriverStatement = z
  .strictObject({
    /** Who states it: the tool and version, and the lane (`drb 0.1.0 public-pass, chromium lane (playwright-core)`). */
    stated_by: textLine(256),
    /** How the driver knows what it states: what it did, in one line. */
    how: Detail,
    /** `started`: the lane started this browser; `attached`: it drove a browser it did not start. */
    browser_process: z.enum(['started', 'attached']),
    /** True when the lane started a new browser process for this run; null when it cannot say (attached, or a
     *  browser it started earlier for other pages). */
    process_new: z.literal(true).nullable(),
    /** True when the lane gave the run a profile with nothing in it; null when it cannot say. */
    profile_empty: z.literal(true).nullable(),
    /** What it cleared through the protocol before the run; null when it cleared nothing. */
    site_data_cleared: ClearedSiteData.nullable(),
  })
  .superRefine((statement, ctx) => {
    if (statement.browser_process !== 'attached') return;
    for (const field of ['process_new', 'profile_empty'] as const) {
      if (statement[field] !== null) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: 'a lane attached to a browser it did not start cannot state this (null)',
        });
      }
    }
  });
export type DriverStatement = z.infer<typeof DriverStatement>;

/**
 * The cold-start attestations a driver states for the first cold run of a page load in a browser it started with a
 * new, empty profile (the `driver_fresh` URL parameter): a new browser process, and no site data. Source `driver`,
 * kept apart from the page's own measurement and from a tester's taps.
 * @param lane the lane that started the browser
 * @param at when (ISO time)
 */
export function driverColdAttestations(lane: 'chromium' | 'webkit', at: string): ColdStartAttestation[] {
  const by = `drb public-pass (${lane} lane)`;
  return [
    {
      claim: 'browser-restarted',
      source: 'driver',
      by,
      how: `started a new ${lane === 'chromium' ? 'Chromium' : 'MiniBrowser'} process for this page (driver_fresh URL parameter)`,
      at,
    },
    {
      claim: 'site-data-cleared',
      source: 'driver',
      by,
      how: 'gave that process a new, empty profile: no site data existed to clear (driver_fresh URL parameter)',
      at,
    },
  ];
}
