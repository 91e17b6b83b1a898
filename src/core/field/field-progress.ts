/**
 * Protocol mode's progress: the session's receipts for the protocol's target counted with the very rule
 * `drb receipts summarize` applies (src/core/receipt/cold-start.ts `countClass`): a cold receipt counts only as a full
 * protocol cold (network-cold from a fresh start, and the browser restart and site data clear attested); a run that
 * failed, that another run overlapped (another tab's too) or whose page was hidden is not counted. So "cold 2 of 5" on
 * the phone means what the summary will say.
 */
import type { Protocol } from './field-protocol.ts';
import { coldStartEvidence, countClass } from '../receipt/cold-start.ts';
import { DEVICE_RECEIPT_SCHEMA, type DeviceReceipt } from '../receipt/receipt.ts';

/** Counts against a protocol's minimums, as `drb receipts summarize` counts them. */
export interface ProtocolProgress {
  /** Full protocol colds (counted toward the cold minimum). */
  cold: number;
  /** Network-cold receipts that are not full protocol colds (a start not measured fresh, or not attested). */
  coldNetworkOnly: number;
  /** Cold receipts set aside: some byte from a cache; a file's source unknown. */
  coldFromCache: number;
  coldUnknown: number;
  /** Side by side, over the clean ok cold receipts: measured network-cold, measured fresh start (and network-cold),
   *  attested restart and site data clear (by a tester or a driver). */
  measured: { networkCold: number; freshStart: number };
  attested: number;
  /** Clean ok warm receipts. */
  warm: number;
  /** Failed runs; runs another run overlapped (of this page or of another tab); runs whose page was hidden or frozen. */
  failed: number;
  overlapped: number;
  noisy: number;
  minCold: number;
  minWarm: number;
}

/**
 * Whether a stored receipt is a device receipt of the protocol's target (model, input, requested route and threads).
 * @param value a stored receipt of any kind
 * @param protocol the protocol
 */
export function isProtocolReceipt(value: unknown, protocol: Protocol): value is DeviceReceipt {
  const r = value as Partial<DeviceReceipt> | null;
  return (
    r?.schema === DEVICE_RECEIPT_SCHEMA &&
    r.model?.id === protocol.model &&
    r.input?.id === protocol.input &&
    r.route?.requested_ep === protocol.ep &&
    r.route?.threads_requested === protocol.threads
  );
}

/**
 * Counts the session's receipts for `protocol`.
 * @param receipts the stored receipts (any kind; others are skipped)
 * @param protocol the protocol
 */
export function protocolProgress(receipts: readonly unknown[], protocol: Protocol): ProtocolProgress {
  const p: ProtocolProgress = {
    cold: 0,
    coldNetworkOnly: 0,
    coldFromCache: 0,
    coldUnknown: 0,
    measured: { networkCold: 0, freshStart: 0 },
    attested: 0,
    warm: 0,
    failed: 0,
    overlapped: 0,
    noisy: 0,
    minCold: protocol.min_cold,
    minWarm: protocol.min_warm,
  };
  const seen = new Set<string>();
  for (const r of receipts) {
    if (!isProtocolReceipt(r, protocol)) continue;
    // A receipt counts once (a restored file may hold one the session has).
    if (seen.has(r.receipt_id)) continue;
    seen.add(r.receipt_id);
    const kind = countClass(r);
    if (kind === 'failed') p.failed++;
    else if (kind === 'overlapped') p.overlapped++;
    else if (kind === 'noisy') p.noisy++;
    else if (kind === 'warm') p.warm++;
    else if (kind === 'cold-cache') p.coldFromCache++;
    else if (kind === 'cold-unknown') p.coldUnknown++;
    else if (kind === 'cold-full') p.cold++;
    else p.coldNetworkOnly++;
    if (kind.startsWith('cold-')) {
      const evidence = coldStartEvidence(r);
      if (evidence.networkCold) p.measured.networkCold++;
      if (evidence.networkCold && evidence.freshStart) p.measured.freshStart++;
      if (evidence.attestedRestart && evidence.attestedClear) p.attested++;
    }
  }
  return p;
}

/** The progress in one line, receipts named as such, e.g.
 *  `cold 2 of 5 receipts, warm 11 of 20 receipts; not counted: 1 cold without a fresh start or attested restart`. */
export function progressLine(p: ProtocolProgress): string {
  const aside = [
    p.coldNetworkOnly > 0 ? `${p.coldNetworkOnly} cold not a full protocol cold` : '',
    p.coldFromCache > 0 ? `${p.coldFromCache} cold from a cache` : '',
    p.coldUnknown > 0 ? `${p.coldUnknown} cold of unknown cache state` : '',
    p.overlapped > 0 ? `${p.overlapped} overlapped by another run` : '',
    p.noisy > 0 ? `${p.noisy} page hidden` : '',
    p.failed > 0 ? `${p.failed} failed` : '',
  ].filter(Boolean);
  return `cold ${p.cold} of ${p.minCold} receipts, warm ${p.warm} of ${p.minWarm} receipts${aside.length > 0 ? `; not counted: ${aside.join(', ')}` : ''}`;
}

/** The cold receipts' measured and attested counts side by side, e.g.
 *  `cold receipts: 3 network-cold (2 from a fresh start) measured, 2 restart and clear attested, 2 both`. */
export function coldEvidenceLine(p: ProtocolProgress): string {
  return `cold receipts: ${p.measured.networkCold} network-cold (${p.measured.freshStart} from a fresh start) measured, ${p.attested} restart and clear attested, ${p.cold} both`;
}

/**
 * The next step: a cold run first (only the first run of a page load can be a protocol cold), warm receipts on the
 * same page after it, the cold steps (hand the receipts off, clear the site's data, quit and reopen the browser) when
 * warm receipts are enough or none is needed, and `done` when both minimums are met.
 * @param p the progress
 * @param ranThisLoad whether this page load already started a run (a cold run now would not start fresh)
 * @returns `cold` (a cold run can start now), `warm`, `restart` (the next cold run needs the cold steps first), `done`
 */
export function nextStep(p: ProtocolProgress, ranThisLoad: boolean): 'cold' | 'warm' | 'restart' | 'done' {
  const needCold = p.cold < p.minCold;
  const needWarm = p.warm < p.minWarm;
  if (needCold && !ranThisLoad) return 'cold';
  if (needWarm) return 'warm';
  if (needCold) return 'restart';
  return 'done';
}
