/**
 * The value axis of the page's strip charts: a linear axis from 0 with round ticks, or a base-10 log axis when the
 * values span more than a decade (a 19.6 ms and a 1161 ms series on one linear axis would flatten the first to a
 * line). Charts that sit side by side are given one scale built from all their values, so their heights compare.
 * Pure: the panels draw it.
 */

/** A chart's value axis. */
export interface ChartScale {
  kind: 'linear' | 'log';
  /** The axis' lowest value (0 on a linear axis; a power of ten on a log axis). */
  min: number;
  /** The axis' highest value (a tick). */
  max: number;
  /** The values a tick is drawn at, lowest first, min and max included. */
  ticks: number[];
}

/** The values span more than this factor: the axis is logarithmic. */
export const LOG_SCALE_ABOVE_RATIO = 10;

/** A round step (1, 2 or 5 times a power of ten) that splits `span` into at most `count` parts. */
function niceStep(span: number, count: number): number {
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].find((m) => m * power >= raw) ?? 10;
  return step * power;
}

/**
 * The axis for `values` (finite values only are read; none, or all zero: a 0 to 1 axis).
 * @param values every value the chart, or the charts sharing the axis, draw
 * @param tickCount about how many intervals a linear axis is split into
 */
export function chartScale(values: readonly number[], tickCount = 4): ChartScale {
  const finite = values.filter((v) => Number.isFinite(v) && v >= 0);
  const max = finite.length > 0 ? Math.max(...finite) : 0;
  const positive = finite.filter((v) => v > 0);
  const min = positive.length > 0 ? Math.min(...positive) : 0;
  if (min > 0 && max / min > LOG_SCALE_ABOVE_RATIO && positive.length === finite.length) {
    const low = Math.floor(Math.log10(min));
    const high = Math.ceil(Math.log10(max));
    const ticks = Array.from({ length: high - low + 1 }, (_, i) => Number((10 ** (low + i)).toPrecision(12)));
    return { kind: 'log', min: ticks[0], max: ticks[ticks.length - 1], ticks };
  }
  if (max <= 0) return { kind: 'linear', min: 0, max: 1, ticks: [0, 1] };
  const step = niceStep(max, tickCount);
  const top = Math.ceil(max / step - 1e-9) * step;
  const count = Math.round(top / step);
  const ticks = Array.from({ length: count + 1 }, (_, i) => Number((i * step).toPrecision(12)));
  return { kind: 'linear', min: 0, max: ticks[ticks.length - 1], ticks };
}

/**
 * Where `value` sits on `scale`, from 0 (the axis' bottom) to 1 (its top); clamped.
 * @param scale the axis
 * @param value a value drawn on it
 */
export function scaleFraction(scale: ChartScale, value: number): number {
  const f =
    scale.kind === 'log'
      ? (Math.log10(Math.max(value, scale.min)) - Math.log10(scale.min)) /
        (Math.log10(scale.max) - Math.log10(scale.min))
      : (value - scale.min) / (scale.max - scale.min);
  return Number.isFinite(f) ? Math.min(1, Math.max(0, f)) : 0;
}
