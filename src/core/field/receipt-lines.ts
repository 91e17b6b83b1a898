/**
 * What protocol mode says about one receipt, in words a tester reads at a glance: the numbers (a cold run's total
 * and its stages; a warm receipt's median and p95 over its timed runs) and whether and why it counts toward the
 * protocol (src/core/receipt/cold-start.ts decides). Shown after every run and in the stored list. Pure.
 */
import { coldStartEvidence, countClass } from '../receipt/cold-start.ts';
import type { DeviceReceipt } from '../receipt/receipt.ts';

/** A duration for a phone's screen: whole ms from 100 ms up, else two significant decimals. */
export function msText(ms: number): string {
  if (ms >= 100) return `${Math.round(ms).toLocaleString('en-US')} ms`;
  return `${ms >= 10 ? ms.toFixed(1) : ms.toFixed(2)} ms`;
}

/**
 * The receipt's numbers: `total 1,234 ms (fetch 12.0 ms, runtime 310 ms, session 812 ms, first inference 3.10 ms)`
 * for a cold run; `median 3.21 ms, p95 4.10 ms over 20 timed runs` for a warm receipt; the failure for a failed run.
 * @param receipt a device receipt
 */
export function receiptNumbers(receipt: DeviceReceipt): string {
  const t = receipt.timings;
  if (receipt.run.kind === 'warm') {
    if (t.warm_stats === null) return `no timed run finished (${msText(t.total_ms)} in all)`;
    return `median ${msText(t.warm_stats.median)}, p95 ${msText(t.warm_stats.p95)} over ${t.warm_stats.count} timed runs`;
  }
  const stages = [
    t.model_fetch_ms === null ? null : `fetch ${msText(t.model_fetch_ms)}`,
    t.runtime_fetch_ms === null || t.runtime_fetch_ms === undefined ? null : `runtime ${msText(t.runtime_fetch_ms)}`,
    t.session_create_ms === null ? null : `session ${msText(t.session_create_ms)}`,
    t.first_inference_ms === null ? null : `first inference ${msText(t.first_inference_ms)}`,
  ].filter((s): s is string => s !== null);
  return `total ${msText(t.total_ms)}${stages.length > 0 ? ` (${stages.join(', ')})` : ''}`;
}

/** Whether a receipt counts toward the protocol's minimums, and the words that say so (or why not). */
export interface CountVerdict {
  counted: boolean;
  words: string;
}

/**
 * Whether `receipt` counts, as protocol mode and `drb receipts summarize` count it.
 * @param receipt a device receipt of the protocol's target
 */
export function countVerdict(receipt: DeviceReceipt): CountVerdict {
  const kind = countClass(receipt);
  switch (kind) {
    case 'failed':
      return { counted: false, words: `failed: ${receipt.outcome.reason ?? 'no reason given'}` };
    case 'overlapped':
      return {
        counted: false,
        words: 'not counted: another run (another tab of this site, or this page) ran at the same time',
      };
    case 'noisy':
      return { counted: false, words: 'not counted: the page was hidden or frozen during the run' };
    case 'warm':
      return { counted: true, words: 'counts as a warm receipt' };
    case 'cold-full':
      return {
        counted: true,
        words: 'counts: a full protocol cold (every file over the network, a fresh start, restart and clear attested)',
      };
    case 'cold-cache':
      return { counted: false, words: 'not counted: some files came from a cache' };
    case 'cold-unknown':
      return { counted: false, words: 'not counted: where a file came from could not be told' };
    default:
      return {
        counted: false,
        words: `network-cold, but not counted as a protocol cold: ${coldStartEvidence(receipt).missing.join('; ')}`,
      };
  }
}
