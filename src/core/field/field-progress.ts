/**
 * Protocol mode's progress: the session's receipts for the protocol's target counted as the evidence rules count
 * them (src/core/evidence/receipts-summarizer.ts): ok runs whose page stayed visible, cold runs only when truly cold.
 * So "cold 2 of 5" on the phone means what `drb receipts summarize` will say.
 */
import type { Protocol } from './field-protocol.ts';
import { coldSetAsideReason } from '../receipt/cache-state.ts';
import { DEVICE_RECEIPT_SCHEMA, type DeviceReceipt } from '../receipt/receipt.ts';

/** Counts against a protocol's minimums. */
export interface ProtocolProgress {
  /** Truly cold clean ok runs, and cold runs set aside (served from a cache; a file's source unknown). */
  cold: number;
  coldFromCache: number;
  coldUnknown: number;
  /** Clean ok warm receipts. */
  warm: number;
  /** Failed runs, and runs whose page was hidden or frozen (noisy: not counted). */
  failed: number;
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
    coldFromCache: 0,
    coldUnknown: 0,
    warm: 0,
    failed: 0,
    noisy: 0,
    minCold: protocol.min_cold,
    minWarm: protocol.min_warm,
  };
  for (const r of receipts) {
    if (!isProtocolReceipt(r, protocol)) continue;
    if (r.outcome.status !== 'ok') p.failed++;
    else if (r.lifecycle.hidden_during_run || r.lifecycle.frozen_during_run) p.noisy++;
    else if (r.run.kind === 'warm') p.warm++;
    else {
      const aside = coldSetAsideReason(r.run.cold_from_cache);
      if (aside === 'served-from-cache') p.coldFromCache++;
      else if (aside === 'cache-state-unknown') p.coldUnknown++;
      else p.cold++;
    }
  }
  return p;
}

/** The progress in one line, e.g. `cold 2 of 5 (1 not counted: cache), warm 11 of 20`. */
export function progressLine(p: ProtocolProgress): string {
  const aside = [
    p.coldFromCache > 0 ? `${p.coldFromCache} not counted: cache` : '',
    p.coldUnknown > 0 ? `${p.coldUnknown} not counted: cache state unknown` : '',
  ]
    .filter(Boolean)
    .join('; ');
  const other = [p.failed > 0 ? `${p.failed} failed` : '', p.noisy > 0 ? `${p.noisy} not counted: page hidden` : '']
    .filter(Boolean)
    .join(', ');
  return `cold ${p.cold} of ${p.minCold}${aside ? ` (${aside})` : ''}, warm ${p.warm} of ${p.minWarm}${other ? `; ${other}` : ''}`;
}

/**
 * The next step: a cold run first (each page load starts cold), warm runs on the same page after it, another cold
 * run (after the cold procedure) when warm runs are enough, and `done` when both minimums are met.
 * @param p the progress
 * @param coldRanThisLoad whether this page load already made a cold receipt (a second one would not be cold)
 */
export function nextStep(p: ProtocolProgress, coldRanThisLoad: boolean): 'cold' | 'warm' | 'done' {
  const needCold = p.cold < p.minCold;
  const needWarm = p.warm < p.minWarm;
  if (needCold && !coldRanThisLoad) return 'cold';
  if (needWarm) return 'warm';
  if (needCold) return 'cold';
  return 'done';
}
