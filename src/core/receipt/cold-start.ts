/**
 * How a device receipt counts toward the protocol's minimums: the one rule protocol mode's progress
 * (src/core/field/field-progress.ts) and `drb receipts summarize` (src/core/evidence/receipts-summarizer.ts) both apply,
 * so the page and the summary can never disagree on a count.
 *
 * A cold receipt counts as a full protocol cold only when the measured part and the attested part both hold:
 * - measured (the page): every model and runtime byte crossed the network (`run.cold_from_cache: false`), and the run
 *   started fresh: the document was navigated to (not reloaded, not back/forward), not shown again from the
 *   back/forward cache, is the first document of its tab, and made no run before this one;
 * - attested (a tester's tap or a driver's statement): the browser was quit and reopened, and the site's website data
 *   was cleared.
 * A network-cold run without the rest (a second cold run in one browser process, a cold run after a plain reload) is
 * counted as network-cold, never as a protocol cold. Pure.
 */
import type { ColdStartClaim } from './attestation.ts';
import { coldSetAsideReason } from './cache-state.ts';
import { overlapped, type DeviceReceipt } from './receipt.ts';

/** What a cold receipt shows about its start, measured and attested, kept apart. */
export interface ColdStartEvidence {
  /** Measured: every model and runtime byte crossed the network. */
  networkCold: boolean;
  /** Measured: the page started fresh (see the module comment); false when the receipt recorded no start facts. */
  freshStart: boolean;
  /** Attested (by a tester or a driver): the browser was quit and reopened; the site's data was cleared. */
  attestedRestart: boolean;
  attestedClear: boolean;
  /** Both parts hold: a full protocol cold. */
  full: boolean;
  /** What is missing for a full protocol cold, in words (empty when full). */
  missing: string[];
}

/**
 * Why a cold run's measured start is not fresh, in words (empty when it is).
 * @param start the receipt's `run.cold_start` (null or absent: not recorded)
 */
export function notFreshReasons(start: DeviceReceipt['run']['cold_start']): string[] {
  if (start === null || start === undefined) return ['no start facts recorded (a receipt of an earlier page)'];
  const reasons: string[] = [];
  if (start.navigation_type !== 'navigate') {
    reasons.push(
      start.navigation_type === null
        ? 'no navigation entry'
        : `the page was opened by ${start.navigation_type === 'reload' ? 'a reload' : start.navigation_type === 'back_forward' ? 'back/forward' : `"${start.navigation_type}"`}`,
    );
  }
  if (start.restored_from_bfcache) reasons.push('the page came back from the back/forward cache');
  if (start.first_navigation_of_tab !== true)
    reasons.push(
      start.first_navigation_of_tab === null
        ? 'the first document of the tab could not be told'
        : 'not the first page of its tab',
    );
  if (start.runs_before_in_page > 0) reasons.push(`${start.runs_before_in_page} earlier run(s) on the same page`);
  return reasons;
}

/** Whether `receipt` carries an attestation of `claim` (by a tester or a driver). */
function attested(receipt: DeviceReceipt, claim: ColdStartClaim): boolean {
  return (receipt.run.attestations ?? []).some((a) => a.claim === claim);
}

/**
 * A cold receipt's start, measured and attested.
 * @param receipt a device receipt (a warm one gives all false)
 */
export function coldStartEvidence(receipt: DeviceReceipt): ColdStartEvidence {
  const cold = receipt.run.kind === 'cold';
  const networkCold = cold && receipt.run.cold_from_cache === false;
  const notFresh = cold ? notFreshReasons(receipt.run.cold_start) : ['not a cold run'];
  const freshStart = cold && notFresh.length === 0;
  const attestedRestart = cold && attested(receipt, 'browser-restarted');
  const attestedClear = cold && attested(receipt, 'site-data-cleared');
  const missing = [
    ...(networkCold
      ? []
      : [receipt.run.cold_from_cache === true ? 'some bytes came from a cache' : 'a file of unknown cache state']),
    ...notFresh,
    ...(attestedRestart ? [] : ['browser restart not attested']),
    ...(attestedClear ? [] : ['website data clear not attested']),
  ];
  const full = networkCold && freshStart && attestedRestart && attestedClear;
  return { networkCold, freshStart, attestedRestart, attestedClear, full, missing: full ? [] : missing };
}

/**
 * How one device receipt counts, in the order the rules apply:
 * - `failed`: the run failed;
 * - `overlapped`: another run (of the page or of another tab) shared the device during it: set aside;
 * - `noisy`: the page was hidden or frozen during it: set aside;
 * - `warm`: a clean ok warm receipt (counts toward the warm minimum);
 * - `cold-full`: a clean ok cold receipt that is a full protocol cold (counts toward the cold minimum);
 * - `cold-network`: network-cold but not a full protocol cold (a start not measured fresh, or not attested);
 * - `cold-cache`: some byte came from a cache; `cold-unknown`: a file's source could not be told.
 */
export type CountClass =
  | 'failed'
  | 'overlapped'
  | 'noisy'
  | 'warm'
  | 'cold-full'
  | 'cold-network'
  | 'cold-cache'
  | 'cold-unknown';

/**
 * The count class of one device receipt (see CountClass).
 * @param receipt a valid device receipt
 */
export function countClass(receipt: DeviceReceipt): CountClass {
  if (receipt.outcome.status !== 'ok') return 'failed';
  if (overlapped(receipt.run.overlap)) return 'overlapped';
  if (receipt.lifecycle.hidden_during_run || receipt.lifecycle.frozen_during_run) return 'noisy';
  if (receipt.run.kind === 'warm') return 'warm';
  const aside = coldSetAsideReason(receipt.run.cold_from_cache);
  if (aside === 'served-from-cache') return 'cold-cache';
  if (aside === 'cache-state-unknown') return 'cold-unknown';
  return coldStartEvidence(receipt).full ? 'cold-full' : 'cold-network';
}
