/**
 * What the page can measure about its own start, for a cold run's `run.cold_start` (src/core/receipt/attestation.ts):
 * how the document was navigated to, whether it came back from the back/forward cache, whether it is the first page
 * of this site in its tab, and how many runs it started before. Read once when the page starts (main.tsx imports this
 * module first), so nothing the page does later (the run journal writes a tab id into session storage) can change
 * what the start looked like. None of it sees the browser's process or settings: those are attested, not measured.
 */

/** The session-storage key counting the documents of this site the tab has shown (a reload keeps session storage). */
export const TAB_DOCUMENTS_KEY = 'drb.tab-documents';

function readStart(): { navigationType: string | null; firstNavigationOfTab: boolean | null } {
  const nav = (performance.getEntriesByType?.('navigation')[0] as PerformanceNavigationTiming | undefined) ?? null;
  const navigationType = nav !== null && /^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}$/.test(nav.type) ? nav.type : null;
  let firstNavigationOfTab: boolean | null = null;
  try {
    const earlier = Number(sessionStorage.getItem(TAB_DOCUMENTS_KEY) ?? '0');
    sessionStorage.setItem(TAB_DOCUMENTS_KEY, String((Number.isFinite(earlier) ? earlier : 0) + 1));
    // The tab's history length is no help: a new tab's own start page (a browser's new-tab page) is an entry too.
    firstNavigationOfTab = earlier === 0;
  } catch {
    // No session storage (a private mode that refuses it): the first page of the tab cannot be told.
    firstNavigationOfTab = null;
  }
  return { navigationType, firstNavigationOfTab };
}

const start = readStart();
let restoredFromBfcache = false;
let runsStarted = 0;
addEventListener('pageshow', (event) => {
  if ((event as PageTransitionEvent).persisted) restoredFromBfcache = true;
});

/** Counts a run of any kind starting on this page (run-gate.ts calls it for every run it watches). */
export function noteRunStarted(): void {
  runsStarted++;
}

/**
 * The page's start facts as a cold run records them (`run.cold_start` without the time to the first result).
 * @param runsBefore runs this page started before the run being recorded
 */
export function pageStartFacts(runsBefore: number): {
  navigation_type: string | null;
  restored_from_bfcache: boolean;
  first_navigation_of_tab: boolean | null;
  runs_before_in_page: number;
} {
  return {
    navigation_type: start.navigationType,
    restored_from_bfcache: restoredFromBfcache,
    first_navigation_of_tab: start.firstNavigationOfTab,
    runs_before_in_page: runsBefore,
  };
}

/** Runs of any kind this page has started so far. */
export function runsStartedInPage(): number {
  return runsStarted;
}
