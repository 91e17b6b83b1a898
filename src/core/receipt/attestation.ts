/**
 * What a page can measure about a cold start, and what only someone outside the page can state.
 *
 * The evaluation protocol's cold step asks for three things: site data cleared, a new browser process, and every byte
 * of the run over the network. A page sees the last one (each file's cache state), and a few facts about its own
 * start: how the document was navigated to (a plain reload is not a new start), whether it came back from the
 * back/forward cache, whether it is the first document of its tab, and how many runs this document made before. It
 * cannot see the browser process or the browser's settings: whether the browser was quit and reopened, whether
 * website data was cleared. Those are stated by a person (the tester's explicit tap in protocol mode) or by a driver
 * that started the browser itself with a fresh profile, and a receipt keeps each statement as an `Attestation` with
 * its source, never as a measurement.
 *
 * `ColdStartFacts` is the measured part (the page's, in `run.cold_start`); `Attestation` the stated part (in
 * `run.attestations`, and for what a tester saw over a whole session, in a receipt bundle's `attestations`). One
 * structure for both sources: a tester's tap and a driver's statement sit side by side, each saying who stated it
 * and how. Pure: schemas and their rules only.
 */
import { z } from 'zod';
import { textLine, Token } from '../text/bounded-text.ts';

const Ms = z.number().finite().nonnegative();

/**
 * What a cold run's page measured about its own start (`run.cold_start`; null for a warm run). None of it covers the
 * browser's own launch: the page's clock starts at navigation.
 */
export const ColdStartFacts = z.strictObject({
  /** The document's navigation type as Navigation Timing gives it (`navigate`, `reload`, `back_forward`,
   *  `prerender`); null where the browser gives no navigation entry. */
  navigation_type: Token.nullable(),
  /** The document was shown again from the back/forward cache (a `pageshow` with `persisted`) since it loaded. */
  restored_from_bfcache: z.boolean(),
  /** This document is the tab's first of this site: the tab's session storage (which a reload, and a navigation
   *  within the site, keep) held no count of the site's documents when it loaded; null where session storage does not
   *  work. */
  first_navigation_of_tab: z.boolean().nullable(),
  /** Runs of any kind this document started before this one (0: the first run of the page load). */
  runs_before_in_page: z.number().int().nonnegative(),
  /** Page-clock time (ms since navigation start) when the first result was ready: the end of the first inference.
   *  Never includes the browser's own launch, which no page can time. Null when no inference completed. */
  navigation_to_result_ms: Ms.nullable(),
});
export type ColdStartFacts = z.infer<typeof ColdStartFacts>;

/** What a tester or a driver can state about a cold run's start: the browser was quit and reopened (a new browser
 *  process), and the site's website data was cleared in the browser (the HTTP cache and every store of the site). */
export const ColdStartClaim = z.enum(['browser-restarted', 'site-data-cleared']);
export type ColdStartClaim = z.infer<typeof ColdStartClaim>;

/** What a tester states about a whole session: whether they saw the device under memory pressure (a memory warning,
 *  the browser reloading or closing the page, the device getting very slow) during the procedure. */
export const SessionClaim = z.enum(['memory-pressure-seen', 'no-memory-pressure-seen']);
export type SessionClaim = z.infer<typeof SessionClaim>;

/** Who stated an attestation: `tester` (a person's explicit tap in protocol mode) or `driver` (an automation lane
 *  that did the step itself, e.g. started the browser with a new, empty profile). */
export const AttestationSource = z.enum(['tester', 'driver']);
export type AttestationSource = z.infer<typeof AttestationSource>;

/**
 * One statement a page cannot measure.
 * @param claim the claims this kind of statement can make
 */
function attestation<T extends z.ZodType<string>>(claim: T) {
  return z.strictObject({
    claim,
    source: AttestationSource,
    /** Who stated it: `tester` for a person; a driver names itself (`drb field-run`, `drb public-pass`). */
    by: textLine(128).min(1),
    /** How it was stated, in one line: the button tapped, or what the driver did. */
    how: textLine(300).min(1),
    /** When it was stated (ISO time). */
    at: z.string().datetime({ offset: true }),
  });
}

/** A statement about one cold run's start (`run.attestations`). */
export const ColdStartAttestation = attestation(ColdStartClaim);
export type ColdStartAttestation = z.infer<typeof ColdStartAttestation>;

/** A statement about a whole session (a receipt bundle's `attestations`). */
export const SessionAttestation = attestation(SessionClaim);
export type SessionAttestation = z.infer<typeof SessionAttestation>;

/** The `how` of the tester's taps in protocol mode, one per claim. */
export const TESTER_TAP: Readonly<Record<ColdStartClaim | SessionClaim, string>> = {
  'browser-restarted': 'tapped "I quit the browser and opened it again" in protocol mode',
  'site-data-cleared': 'tapped "I cleared this site\'s website data" in protocol mode',
  'memory-pressure-seen': 'tapped "I saw memory trouble" in protocol mode',
  'no-memory-pressure-seen': 'tapped "No memory trouble seen" in protocol mode',
};

/**
 * A tester's statement, as protocol mode records a tap.
 * @param claim what the tester stated
 * @param at when (ISO time)
 */
export function testerAttestation<C extends ColdStartClaim | SessionClaim>(
  claim: C,
  at: string,
): { claim: C; source: 'tester'; by: string; how: string; at: string } {
  return { claim, source: 'tester', by: 'tester', how: TESTER_TAP[claim], at };
}
