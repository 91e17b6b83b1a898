/**
 * Page lifecycle recording during a run: visibilitychange, freeze/resume (Page Lifecycle API, Chromium) and
 * pagehide/pageshow. A run during which the page went hidden or was frozen is flagged: its timings are noisy.
 */
import type { DeviceReceipt } from '../core/receipt/receipt.ts';

type Lifecycle = DeviceReceipt['lifecycle'];
const EVENTS = ['visibilitychange', 'freeze', 'resume', 'pagehide', 'pageshow'] as const;

/** Records lifecycle events from `start()` until `stop()`. */
export class LifecycleRecorder {
  private events: Lifecycle['events'] = [];
  private hidden = false;
  private frozen = false;
  private visibilityAtStart: Lifecycle['visibility_at_start'] = 'unknown';
  private readonly listener = (event: Event) => {
    const type = event.type === 'visibilitychange' ? `visibilitychange:${document.visibilityState}` : event.type;
    this.events.push({ type, at_ms: performance.now() });
    if (document.visibilityState === 'hidden' || event.type === 'pagehide') this.hidden = true;
    if (event.type === 'freeze') this.frozen = true;
  };

  /** Starts recording (call at the start of a run). */
  start(): void {
    this.events = [];
    const state = document.visibilityState as string;
    this.visibilityAtStart = state === 'visible' || state === 'hidden' || state === 'prerender' ? state : 'unknown';
    this.hidden = state === 'hidden';
    this.frozen = false;
    for (const type of EVENTS)
      (type === 'freeze' || type === 'resume' ? document : window).addEventListener(type, this.listener);
  }

  /** Stops recording and returns the receipt's lifecycle section. */
  stop(): Lifecycle {
    for (const type of EVENTS)
      (type === 'freeze' || type === 'resume' ? document : window).removeEventListener(type, this.listener);
    return {
      visibility_at_start: this.visibilityAtStart,
      hidden_during_run: this.hidden,
      frozen_during_run: this.frozen,
      events: this.events,
    };
  }
}
