/**
 * The width a chart is drawn at: its container's width in CSS pixels (up to a largest width), followed as the
 * container resizes. A chart drawn in its own pixels keeps its text at the size it was set (12 px and more) on a
 * phone, where a fixed viewBox scaled down would shrink it below legibility.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

/**
 * @param maxPx the largest width the chart is drawn at
 * @returns the ref for the chart's container and its width now
 */
export function useChartWidth<T extends HTMLElement>(maxPx: number): [{ current: T | null }, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(() =>
    Math.min(maxPx, Math.max(240, (typeof window === 'undefined' ? maxPx : window.innerWidth) - 64)),
  );
  useLayoutEffect(() => {
    const element = ref.current;
    if (element === null) return;
    const measure = () => {
      const px = Math.floor(element.clientWidth);
      if (px > 0) setWidth(Math.min(maxPx, px));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [maxPx]);
  return [ref, width];
}
