/**
 * The page's view (protocol mode or the developer panels) as part of its address, both ways: switching pushes an
 * entry naming it (`mode=`; `autorun` dropped, so a reload shows the view again without running again), and back and
 * forward show the view their entry names (the entry the page opened on: the view it opened in).
 */
import { useEffect, useState } from 'preact/hooks';
import type { PageMode } from '../core/automation/automation.ts';
import { pageRuns } from '../page/run-gate.ts';

/** This page's address showing `view`: `mode` set to it, `autorun` removed, every other parameter and the fragment
 *  kept. */
function viewHref(view: PageMode): string {
  const url = new URL(location.href);
  url.searchParams.set('mode', view);
  url.searchParams.delete('autorun');
  return url.href;
}

/** The view the address names (`mode`), or null when it names none or a bad one. */
function viewOfHref(): PageMode | null {
  const mode = new URLSearchParams(location.search).get('mode');
  return mode === 'protocol' || mode === 'panels' ? mode : null;
}

/**
 * The view shown and the switch to another.
 * @param opened the view the page opened in
 * @returns the view, and the function that switches to a view (pushing its address)
 */
export function useViewInUrl(opened: PageMode): [PageMode, (next: PageMode) => void] {
  const [view, setView] = useState<PageMode>(opened);
  useEffect(() => {
    const onPop = () => {
      const wanted = viewOfHref() ?? opened;
      // A run holds the page: its view stays, and the address is put back to name it.
      if (pageRuns.owner !== null) {
        setView((shown) => {
          if (shown !== wanted) history.pushState(null, '', viewHref(shown));
          return shown;
        });
        return;
      }
      setView(wanted);
    };
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const switchView = (next: PageMode) => {
    history.pushState(null, '', viewHref(next));
    setView(next);
  };
  return [view, switchView];
}
