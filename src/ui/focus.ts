import { useEffect, useRef } from 'preact/hooks';

/**
 * Moves keyboard and screen-reader focus to the element when it first appears (a run's new result), so focus does not
 * drop to the page's body when the Run button that had it disables itself. The element needs `tabIndex={-1}`.
 */
export function useFocusOnMount<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    ref.current?.focus({ preventScroll: false });
  }, []);
  return ref;
}
