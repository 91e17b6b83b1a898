/**
 * Code the page fetches after its first paint. The page's first script holds the shell (the header, the Run panel's
 * controls, the capability panel); the developer panels below it (your own model, generation, comparison, suite),
 * protocol mode's view and the Run panel's receipt list are each a chunk of their own, fetched when the view that
 * shows them first renders, so a tester's phone does not fetch the developer panels at all and a desktop paints
 * before it has them. (The Run panel's run controller is one too: src/page/lazy-run-controller.ts.) The automation
 * contract's `idle` waits for the developer panels (App), so a script that sees `idle` finds every panel there; a run
 * of the Run panel starts once the view's chunks have arrived (or failed), so none is fetched inside a timed run.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * Longest wait for a paint: a hidden tab runs no animation frame, and its view must still arrive (its timers run at
 * most once a second anyway). A visible page paints well before: its frame waits only for the stylesheet.
 */
const PAINT_WAIT_MS = 1000;

/** The browser reports its paints (`first-contentful-paint`) to a PerformanceObserver: Chromium, Safari, Firefox. */
function paintTimingObservable(): boolean {
  return typeof PerformanceObserver !== 'undefined' && PerformanceObserver.supportedEntryTypes?.includes('paint');
}

/**
 * Resolves once the page's first contentful paint has been reported (at once after it), or after PAINT_WAIT_MS
 * where none comes (a hidden tab). Where the browser does not report paints: once the frame after the current one
 * has been painted (an animation frame runs just before a paint, a task queued from it just after). Effects run
 * before the first paint, so a fetch started from one would be fetched before it; and a task after the painting
 * frame can still start before the paint's own time (the moment the frame was shown), which the paint entry gives.
 */
export function afterPaint(): Promise<void> {
  return new Promise((resolve) => {
    let observer: PerformanceObserver | null = null;
    const done = () => {
      clearTimeout(fallback);
      observer?.disconnect();
      resolve();
    };
    const fallback = setTimeout(done, PAINT_WAIT_MS);
    if (paintTimingObservable()) {
      observer = new PerformanceObserver((list) => {
        if (list.getEntriesByName('first-contentful-paint').length > 0) done();
      });
      observer.observe({ type: 'paint', buffered: true });
      return;
    }
    requestAnimationFrame(() => setTimeout(done, 0));
  });
}

/** A dynamic import started after the next paint and run at most once, however many renders or callers ask for it. */
export function loadAfterPaint<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => (loading ??= afterPaint().then(load));
}

/** The developer panels of the panels view, one chunk. */
export const loadDeveloperPanels = loadAfterPaint(() => import('./developer-panels.ts'));
/** Protocol mode's view, one chunk. */
export const loadProtocolView = loadAfterPaint(() => import('./ProtocolView.tsx'));
/** The Run panel's receipt list (shown once a run made a receipt), one chunk. */
export const loadReceiptList = loadAfterPaint(() => import('./ReceiptList.tsx'));

/** What `useDeferred` has so far: the module once it arrived, or why it could not be fetched. */
export type Deferred<T> = { state: 'loading' } | { state: 'ready'; module: T } | { state: 'failed'; reason: string };

/**
 * The module `load` gives, once it arrives (`load` is called after the first render; pass a `loadAfterPaint` loader).
 * @param load the loader, or null when this render needs none
 */
export function useDeferred<T>(load: (() => Promise<T>) | null): Deferred<T> {
  const [result, setResult] = useState<Deferred<T>>({ state: 'loading' });
  useEffect(() => {
    if (load === null) return;
    let live = true;
    load().then(
      (module) => live && setResult({ state: 'ready', module }),
      (error: unknown) =>
        live && setResult({ state: 'failed', reason: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      live = false;
    };
  }, [load]);
  return result;
}

/**
 * Renders `children` once the module is there; until then a line saying what is on its way, and if its code could not
 * be fetched (a dropped connection, a deploy that replaced the files) a line that says so and what to do.
 * @param what what the chunk holds, as the page names it ("the developer panels")
 */
export function DeferredView<T>(props: {
  deferred: Deferred<T>;
  what: string;
  children: (module: T) => ComponentChildren;
}) {
  const { deferred, what } = props;
  if (deferred.state === 'ready') return <>{props.children(deferred.module)}</>;
  if (deferred.state === 'failed') {
    return (
      <p class="error" role="alert" data-testid="deferred-failed">
        The page could not fetch {what}: {deferred.reason}. Reload the page to try again.
      </p>
    );
  }
  return (
    <p class="small" aria-busy="true" data-testid="deferred-loading">
      Loading {what}…
    </p>
  );
}
