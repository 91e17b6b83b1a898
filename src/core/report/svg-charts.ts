/**
 * The report's charts, as plain SVG strings: horizontal stacked bars (cold stages), a strip plot over a box plot
 * (warm samples), samples in run order (drift), a forest plot of ratios with their intervals (comparisons), and a
 * ratio-over-size curve with intervals and the crossover (sweeps).
 * Plain SVG rather than a charting library: the page must be one self-contained, script-free file that renders the
 * same bytes for the same inputs, and these four shapes are a few scales and rectangles each.
 *
 * Every chart has a fixed viewBox width and scales to its container (width 100%, height from the aspect ratio), a
 * <title> and a <desc> (referenced by aria-labelledby), labelled axes, and its numbers in a table next to it (the
 * caller renders that). Every string passed in must already be HTML-escaped; numbers are formatted here.
 */
import { threeSignificant } from '../text/format-number.ts';

/** viewBox width of every chart (the leaderboard's scatter is laid out on it too). */
export const CHART_WIDTH = 360;
/**
 * Font size of the report's charts in viewBox units: a chart is at least 343 px wide on a 375 px phone (the page's
 * padding taken off), where 13 units render at 12.4 px; no chart text is smaller (notes included).
 */
const FONT = 13;
/** Line height of chart text, in viewBox units. */
const LINE = 16;
/** The widest a character of FONT is taken to be (bold digits and capitals of system-ui), for wrapping. */
const CHAR_WIDTH = FONT * 0.6;
/** The span (largest over smallest) above which a chart's axis is logarithmic: more than a decade. */
export const LOG_SPAN = 10;
/** Left edge of a plot whose rows are labelled above (bars, distributions: full width on a phone). */
const PLOT_LEFT = 10;
const RIGHT = 16;

/** Colours with at least 3:1 contrast on white (WCAG 1.4.11), told apart by hue and by the legend's words. */
export const COLORS = {
  fetch: '#0072b2',
  session: '#c2410c',
  first: '#6b4c9a',
  sample: '#0072b2',
  median: '#1b1b1b',
  p95: '#b42318',
  interval: '#0f766e',
  grid: '#d0d0d0',
  muted: '#4a4a4a',
} as const;

/** The largest coordinate drawn: far outside every viewBox, and finite whatever a scale gave. */
const MAX_COORDINATE = 1e6;

/**
 * A coordinate with one decimal. SVG gets finite numbers only: a value a scale could not place (an extreme finite
 * timing pushed through an overflowing sum or ratio) is clamped, never written as NaN or Infinity.
 */
const f1 = (v: number) => {
  const finite = Number.isNaN(v) ? 0 : Math.max(-MAX_COORDINATE, Math.min(MAX_COORDINATE, v));
  return (Math.round(finite * 10) / 10).toFixed(1);
};

/** A sum that stays finite (extreme finite timings can overflow a plain sum to Infinity). */
const finiteSum = (values: readonly number[]) =>
  Math.min(
    Number.MAX_VALUE,
    values.reduce((s, v) => s + v, 0),
  );

/** Round tick values covering [min, max] (1, 2 or 5 times a power of ten apart), at most about `count` of them. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  let raw = (max - min) / count;
  if (!Number.isFinite(raw)) raw = max / count - min / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  // A range no nice step can cover in finite numbers (extreme timings): its two ends are the ticks.
  if (step === undefined || !Number.isFinite(step) || step <= 0) return [min, max];
  const ticks: number[] = [];
  // Integer multiples of the step, so 0.1 + 0.2 style sums never creep in.
  for (let k = Math.ceil(min / step - 1e-9); k * step <= max + step * 1e-9 && ticks.length <= 4 * count; k++)
    ticks.push(Number((k * step).toPrecision(12)));
  return ticks.filter((t) => Number.isFinite(t));
}

/** A linear scale from [d0, d1] onto [r0, r1], with nice ticks; the domain's top is raised to the next tick. */
export function linearScale(
  d0: number,
  d1: number,
  r0: number,
  r1: number,
): { at: (v: number) => number; ticks: number[] } {
  const upper = Math.min(d1, Number.MAX_VALUE);
  const hi = upper > d0 ? upper : d0 + Math.max(1, Math.abs(d0) * 1e-9);
  const ticks = niceTicks(d0, hi);
  if (ticks.length === 0) ticks.push(d0, hi);
  const step = ticks.length > 1 ? ticks[1] - ticks[0] : hi - d0;
  const next = Number((ticks[ticks.length - 1] + step).toPrecision(12));
  if (ticks[ticks.length - 1] < hi) ticks.push(Number.isFinite(next) ? next : hi);
  const top = ticks[ticks.length - 1];
  const span = top - d0;
  if (Number.isFinite(span) && span > 0) return { at: (v) => r0 + ((v - d0) / span) * (r1 - r0), ticks };
  // Two extreme finite ends whose difference overflows: halves keep it finite; no span places all at the start.
  const half = top / 2 - d0 / 2;
  return { at: (v) => (half > 0 ? r0 + ((v / 2 - d0 / 2) / half) * (r1 - r0) : r0), ticks };
}

/** A log10 scale from [d0, d1] (both above 0) onto [r0, r1], ticks at 1, 2 and 5 times powers of ten. */
export function logScale(
  d0: number,
  d1: number,
  r0: number,
  r1: number,
): { at: (v: number) => number; ticks: number[] } {
  const a = Math.log10(d0);
  const b = Math.log10(d1 > d0 ? d1 : d0 * 10);
  const pad = (b - a) * 0.05 || 0.1;
  const start = a - pad;
  const end = b + pad;
  const ticks: number[] = [];
  for (let e = Math.floor(start); e <= Math.ceil(end); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      const lv = Math.log10(v);
      if (lv >= start && lv <= end) ticks.push(Number(v.toPrecision(6)));
    }
  }
  // Many decades: keep the powers of ten only, so labels do not collide.
  const shown = ticks.length > 7 ? ticks.filter((t) => Number.isInteger(Math.log10(t))) : ticks;
  return { at: (v) => r0 + ((Math.log10(v) - start) / (end - start)) * (r1 - r0), ticks: shown };
}

/**
 * Splits already-escaped text into lines of at most `width` viewBox units, a newline forcing a break: whole
 * clauses (split after "; ") where
 * they fit, else at spaces (an entity such as `&amp;` holds no space, so it is never split; it counts as one
 * character). A word longer than a line stays whole.
 */
export function wrapText(text: string, width = CHART_WIDTH - PLOT_LEFT - 4): string[] {
  // A newline is a forced break: each part is wrapped on its own.
  if (text.includes('\n')) return text.split('\n').flatMap((part) => wrapText(part, width));
  const max = Math.max(8, Math.floor(width / CHAR_WIDTH));
  const visible = (t: string) => t.replace(/&[a-z#0-9]+;/gi, '_').length;
  const lines: string[] = [];
  let line = '';
  const add = (piece: string) => {
    const next = line === '' ? piece : `${line} ${piece}`;
    if (line !== '' && visible(next) > max) {
      lines.push(line);
      line = piece;
    } else line = next;
  };
  for (const clause of text.split(/(?<=;) /)) {
    if (visible(clause) <= max) add(clause);
    else for (const word of clause.split(' ')) add(word);
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** Lines of text at x, the first baseline at y, LINE apart (attributes such as font-weight or fill in `attrs`). */
function textLines(lines: readonly string[], x: number, y: number, attrs = ''): string {
  return lines.map((l, i) => `<text x="${x}" y="${f1(y + i * LINE)}"${attrs}>${l}</text>`).join('');
}

/** Opens a chart: the svg element with its accessible name and description. */
function open(id: string, height: number, title: string, desc: string): string {
  return (
    `<svg viewBox="0 0 ${CHART_WIDTH} ${f1(height)}" role="img" aria-labelledby="${id}-t ${id}-d" font-size="${FONT}" font-family="system-ui, sans-serif">` +
    `<title id="${id}-t">${title}</title><desc id="${id}-d">${desc}</desc>`
  );
}

/** A horizontal axis with ticks, grid lines from `top` to `bottom`, and its label under it. */
function xAxis(
  scale: { at: (v: number) => number; ticks: number[] },
  top: number,
  bottom: number,
  label: string,
  left: number,
  format = threeSignificant,
): string {
  let out = `<g class="axis" fill="${COLORS.muted}">`;
  for (const t of scale.ticks) {
    const at = scale.at(t);
    const x = f1(at);
    // Labels at the edges are aligned inwards so they stay inside the chart.
    const anchor = at > CHART_WIDTH - RIGHT - 14 ? 'end' : at < left + 12 ? 'start' : 'middle';
    const tx =
      anchor === 'end' ? f1(Math.min(at + 4, CHART_WIDTH - 2)) : anchor === 'start' ? f1(Math.max(at - 4, 2)) : x;
    out += `<line x1="${x}" x2="${x}" y1="${f1(top)}" y2="${f1(bottom)}" stroke="${COLORS.grid}" stroke-width="1"/>`;
    out += `<text x="${tx}" y="${f1(bottom + 14)}" text-anchor="${anchor}">${format(t)}</text>`;
  }
  out += `<text x="${f1((left + CHART_WIDTH - RIGHT) / 2)}" y="${f1(bottom + 30)}" text-anchor="middle" fill="#1b1b1b">${label}</text></g>`;
  return out;
}

/** One bar of a stacked bar chart: its label and its segments (null values are not drawn). */
export interface StackedRow {
  label: string;
  segments: Array<{ value: number | null; color: string; name: string }>;
  /** Text after the bar (e.g. "failed at session", "cache: not recorded"); already escaped. */
  note: string;
}

/**
 * Horizontal stacked bars, one per row (cold runs: fetch, session creation, first inference). The axis is linear
 * from 0, or logarithmic when the bars' totals span more than a decade (a 726 ms run beside a 40 s run stays
 * visible); on a log axis each segment ends at its cumulative time, and the axis label says "log scale".
 * @param id a unique id for the chart's title and description
 * @param rows the bars
 * @param title the accessible name; desc the accessible description; axisLabel the x-axis label (escaped)
 * @returns the svg, and whether the axis is logarithmic (the caller says so in the caption too)
 */
export function stackedBarsSvg(
  id: string,
  rows: readonly StackedRow[],
  title: string,
  desc: string,
  axisLabel: string,
): { svg: string; log: boolean } {
  // The legend: the segment names in their colours, as words, on as many lines as they need (a name is taken to be
  // FONT * 0.7 units a character wide: system-ui falls back to wide faces on some systems).
  const legend: Array<{ x: number; line: number; color: string; name: string }> = [];
  let lx = 4;
  let lines = 1;
  for (const seg of rows[0]?.segments ?? []) {
    const width = 14 + seg.name.length * FONT * 0.7;
    if (lx > 4 && lx + width > CHART_WIDTH) {
      lx = 4;
      lines++;
    }
    legend.push({ x: lx, line: lines - 1, color: seg.color, name: seg.name });
    lx += width + 10;
  }
  // Each row: its label on lines of its own, the bar under it across the whole width, then its note's lines.
  const top = 26 + (lines - 1) * LINE;
  const plotRight = CHART_WIDTH - RIGHT;
  const totals = rows.map((r) => finiteSum(r.segments.map((g) => g.value ?? 0)));
  const positive = totals.filter((t) => t > 0);
  // Each bar's cumulative ends, for the log axis's lower end (the smallest drawn boundary).
  const ends: number[] = [];
  for (const r of rows) {
    let at = 0;
    for (const g of r.segments) {
      if ((g.value ?? 0) <= 0) continue;
      at = finiteSum([at, g.value!]);
      ends.push(at);
    }
  }
  const lo = Math.min(...positive);
  const hi = Math.max(...positive);
  const log = positive.length > 1 && hi / lo > LOG_SPAN;
  // A chart of failed runs only has nothing to scale by: 1 ms keeps the axis readable.
  const scale = log
    ? logScale(Math.min(...ends), hi, PLOT_LEFT, plotRight)
    : linearScale(0, Math.max(1, ...totals), PLOT_LEFT, plotRight);
  const laid = rows.map((row) => ({ row, label: wrapText(row.label), note: row.note ? wrapText(row.note) : [] }));
  const heights = laid.map((l) => (l.label.length + l.note.length) * LINE + 22);
  const bottom = top + heights.reduce((sum, h) => sum + h, 0);
  let out = open(id, bottom + 40, title, desc);
  for (const l of legend) {
    const y = 6 + l.line * LINE;
    out += `<rect x="${f1(l.x)}" y="${y}" width="10" height="10" fill="${l.color}"/><text x="${f1(l.x + 14)}" y="${y + 10}">${l.name}</text>`;
  }
  out += xAxis(scale, top, bottom, `${axisLabel}${log ? ' (log scale)' : ''}`, PLOT_LEFT);
  let y = top;
  laid.forEach(({ row, label, note }, i) => {
    out += textLines(label, PLOT_LEFT, y + 13, ' font-weight="600"');
    const barY = y + label.length * LINE + 3;
    let sum = 0;
    // On the log axis a bar starts at the axis's left end (0 has no place on it).
    let x = log ? PLOT_LEFT : scale.at(0);
    for (const seg of row.segments) {
      if (seg.value === null || seg.value <= 0) continue;
      sum = finiteSum([sum, seg.value]);
      const end = scale.at(sum);
      out += `<rect x="${f1(x)}" y="${f1(barY)}" width="${f1(Math.max(end - x, 0.5))}" height="13" fill="${seg.color}" stroke="#fff" stroke-width="0.5"><title>${seg.name}: ${threeSignificant(seg.value)}</title></rect>`;
      x = end;
    }
    // The note (failed and why, noisy, cache state) on its own lines under the bar, never over it.
    out += textLines(note, PLOT_LEFT, barY + 13 + LINE, ` fill="${COLORS.muted}"`);
    y += heights[i];
  });
  return { svg: `${out}</svg>`, log };
}

/** Statistics drawn over one row of a distribution chart: box, whiskers, median, p95 and the median's interval. */
export interface DistributionMarks {
  median: number;
  p95: number;
  p25: number;
  p75: number;
  min: number;
  max: number;
  interval: { low: number; high: number } | null;
}

/** One row of a distribution chart: a label, the dots to draw and the statistics. */
export interface DistributionRow {
  label: string;
  /** At most a few thousand: callers thin larger sets and say so. */
  samples: readonly number[];
  marks: DistributionMarks;
}

/**
 * One row per target on a shared axis (log when the values span more than a decade, so a 0.3 ms route and a 20 ms
 * route are both readable; linear from 0 otherwise): every sample as a dot (spread vertically by a fixed
 * sequence: the same samples give the same picture), a box from p25 to p75 with whiskers to min and max, the
 * median as a thick black line, p95 as a dashed red line, and the median's 95% interval as a green band.
 * @param id unique id; rows the targets; title, desc, axisLabel escaped text
 * @returns the svg and whether the axis is logarithmic (say so in the caption)
 */
export function distributionRowsSvg(
  id: string,
  rows: readonly DistributionRow[],
  title: string,
  desc: string,
  axisLabel: string,
): { svg: string; log: boolean } {
  // Each row: its label on a line of its own, then the dots, the box and the interval across the whole width.
  const top = 24;
  const labels = rows.map((r) => wrapText(r.label));
  // A row is its label's lines, then 46 units of dots, box and interval.
  const starts = labels.map((_, r) => top + labels.slice(0, r).reduce((sum, l) => sum + (l.length - 1) * LINE + 60, 0));
  const bottom = top + labels.reduce((sum, l) => sum + (l.length - 1) * LINE + 60, 0);
  const values = rows.flatMap((r) => [
    r.marks.min,
    r.marks.max,
    r.marks.interval?.low ?? r.marks.min,
    r.marks.interval?.high ?? r.marks.max,
  ]);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const log = lo > 0 && hi / lo > LOG_SPAN;
  const scale = log
    ? logScale(lo, hi, PLOT_LEFT, CHART_WIDTH - RIGHT)
    : linearScale(0, hi, PLOT_LEFT, CHART_WIDTH - RIGHT);
  let out = open(id, bottom + 40, title, desc);
  out +=
    `<g><line x1="4" x2="18" y1="10" y2="10" stroke="${COLORS.median}" stroke-width="2.5"/><text x="22" y="14">median</text>` +
    `<line x1="74" x2="88" y1="10" y2="10" stroke="${COLORS.p95}" stroke-width="2" stroke-dasharray="4 2"/><text x="92" y="14">p95</text>` +
    `<rect x="126" y="8" width="14" height="5" fill="${COLORS.interval}"/><text x="144" y="14">median 95% interval</text></g>`;
  out += xAxis(scale, top, bottom, `${axisLabel}${log ? ' (log scale)' : ''}`, PLOT_LEFT);
  rows.forEach((row, r) => {
    const m = row.marks;
    out += textLines(labels[r], PLOT_LEFT, starts[r] + 13, ' font-weight="600"');
    // Everything under the label moves down by its extra lines (and 2 units for the larger font).
    const y0 = starts[r] + (labels[r].length - 1) * LINE + 2;
    row.samples.forEach((v, i) => {
      // Golden-ratio spread in [0, 1): deterministic, even, no clumps.
      const jitter = (i * 0.6180339887) % 1;
      out += `<circle cx="${f1(scale.at(v))}" cy="${f1(y0 + 18 + jitter * 12)}" r="1.8" fill="${COLORS.sample}" fill-opacity="0.5"/>`;
    });
    const boxY = y0 + 33;
    out += `<line x1="${f1(scale.at(m.min))}" x2="${f1(scale.at(m.max))}" y1="${f1(boxY + 6)}" y2="${f1(boxY + 6)}" stroke="${COLORS.median}" stroke-width="1"/>`;
    out += `<rect x="${f1(scale.at(m.p25))}" y="${f1(boxY)}" width="${f1(Math.max(1, scale.at(m.p75) - scale.at(m.p25)))}" height="12" fill="#fff" stroke="${COLORS.median}" stroke-width="1"/>`;
    if (m.interval !== null) {
      out += `<rect x="${f1(scale.at(m.interval.low))}" y="${f1(boxY + 14)}" width="${f1(Math.max(1, scale.at(m.interval.high) - scale.at(m.interval.low)))}" height="5" fill="${COLORS.interval}"><title>95% interval of the median: ${threeSignificant(m.interval.low)} to ${threeSignificant(m.interval.high)}</title></rect>`;
    }
    out += `<line x1="${f1(scale.at(m.median))}" x2="${f1(scale.at(m.median))}" y1="${f1(y0 + 15)}" y2="${f1(boxY + 12)}" stroke="${COLORS.median}" stroke-width="2.5"><title>median ${threeSignificant(m.median)}</title></line>`;
    out += `<line x1="${f1(scale.at(m.p95))}" x2="${f1(scale.at(m.p95))}" y1="${f1(y0 + 15)}" y2="${f1(boxY + 12)}" stroke="${COLORS.p95}" stroke-width="2" stroke-dasharray="4 2"><title>p95 ${threeSignificant(m.p95)}</title></line>`;
  });
  return { svg: `${out}</svg>`, log };
}

/** One run's samples in the order they ran, with the medians of its first and last fifth. */
export interface OrderedRun {
  label: string;
  samples: readonly number[];
  firstFifth: number | null;
  lastFifth: number | null;
}

/**
 * Samples in run order, runs side by side along the x axis (a gap between runs), each run's first-fifth and
 * last-fifth medians as short green lines: a rising run (heat, throttling) or a jump is visible at a glance. The
 * y axis is linear from 0, or logarithmic (its label says so) when the samples span more than a decade.
 * @param id unique id; runs the runs in order; title, desc, axisLabel escaped text
 */
export function runOrderSvg(
  id: string,
  runs: readonly OrderedRun[],
  title: string,
  desc: string,
  axisLabel: string,
): string {
  const top = 12;
  const height = 150;
  const left = 44;
  const right = CHART_WIDTH - RIGHT;
  const total = runs.reduce((n, r) => n + r.samples.length, 0) + Math.max(0, runs.length - 1) * 2;
  const all = runs.flatMap((r) => [...r.samples]);
  const max = Math.max(1e-9, ...all);
  // Log when every sample is above 0 and they span more than a decade (a 1000 ms first run beside 20 ms ones).
  const lo = Math.min(...all);
  const log = all.length > 1 && lo > 0 && max / lo > LOG_SPAN;
  const y = log ? logScale(lo, max, top + height, top) : linearScale(0, max, top + height, top);
  const x = (i: number) => left + ((i + 0.5) / Math.max(total, 1)) * (right - left);
  let out = open(id, top + height + 40, title, desc);
  out += `<g class="axis" fill="${COLORS.muted}">`;
  for (const t of y.ticks) {
    out += `<line x1="${left}" x2="${right}" y1="${f1(y.at(t))}" y2="${f1(y.at(t))}" stroke="${COLORS.grid}"/><text x="${left - 4}" y="${f1(y.at(t) + 4)}" text-anchor="end">${threeSignificant(t)}</text>`;
  }
  out += `<text transform="rotate(-90)" x="${f1(-(top + height / 2))}" y="11" text-anchor="middle" fill="#1b1b1b">${axisLabel}${log ? ' (log scale)' : ''}</text>`;
  out += `<text x="${f1((left + right) / 2)}" y="${f1(top + height + 30)}" text-anchor="middle" fill="#1b1b1b">samples in the order they ran, run by run</text></g>`;
  let at = 0;
  runs.forEach((run) => {
    const start = at;
    const points = run.samples.map((v, i) => `${f1(x(start + i))},${f1(y.at(v))}`);
    if (points.length > 1)
      out += `<polyline points="${points.join(' ')}" fill="none" stroke="${COLORS.sample}" stroke-width="1" stroke-opacity="0.6"/>`;
    for (const p of points) {
      const [cx, cy] = p.split(',');
      out += `<circle cx="${cx}" cy="${cy}" r="1.8" fill="${COLORS.sample}"/>`;
    }
    const fifth = Math.floor(run.samples.length / 5);
    if (run.firstFifth !== null && fifth > 0) {
      out += `<line x1="${f1(x(start))}" x2="${f1(x(start + fifth - 1) + 2)}" y1="${f1(y.at(run.firstFifth))}" y2="${f1(y.at(run.firstFifth))}" stroke="${COLORS.interval}" stroke-width="3"/>`;
    }
    if (run.lastFifth !== null && fifth > 0) {
      const end = start + run.samples.length - 1;
      out += `<line x1="${f1(x(end - fifth + 1) - 2)}" x2="${f1(x(end))}" y1="${f1(y.at(run.lastFifth))}" y2="${f1(y.at(run.lastFifth))}" stroke="${COLORS.interval}" stroke-width="3"/>`;
    }
    out += `<text x="${f1(x(start))}" y="${f1(top + height + 14)}" fill="${COLORS.muted}">${run.label}</text>`;
    at += run.samples.length + 2;
  });
  return `${out}</svg>`;
}

/** One row of a forest plot: a ratio with its interval, or a text in place of it (baseline, invalid, no interval). */
export interface ForestRow {
  label: string;
  ratio: number | null;
  low: number | null;
  high: number | null;
  /** Shown at the right (the verdict, or why there is no point); already escaped. */
  note: string;
}

/**
 * Ratios against the baseline on a log scale with their 95% intervals as whiskers and a line at 1 (no difference):
 * an interval crossing the line is no clear difference. Rows without a ratio show their note only.
 * @param id unique id; rows the routes in order; title, desc, axisLabel escaped text
 */
export function forestSvg(
  id: string,
  rows: readonly ForestRow[],
  title: string,
  desc: string,
  axisLabel: string,
): string {
  const top = 8;
  // The route and its note on one line when they fit, else the note's lines under the route.
  const laid = rows.map((r) => ({
    fits: wrapText(`${r.label} ${r.note}`).length === 1,
    note: wrapText(r.note),
  }));
  const lineCount = (l: (typeof laid)[number]) => (l.fits ? 1 : 1 + l.note.length);
  const starts = laid.map((_, i) => top + laid.slice(0, i).reduce((sum, l) => sum + lineCount(l) * LINE + 22, 0));
  const bottom = top + laid.reduce((sum, l) => sum + lineCount(l) * LINE + 22, 0);
  const values = rows.flatMap((r) => [r.ratio, r.low, r.high].filter((v): v is number => v !== null && v > 0));
  const lo = Math.min(1, ...values);
  const hi = Math.max(1, ...values);
  const scale = logScale(lo, hi, PLOT_LEFT, CHART_WIDTH - RIGHT);
  let out = open(id, bottom + 40, title, desc);
  out += xAxis(scale, top, bottom, axisLabel, PLOT_LEFT);
  out += `<line x1="${f1(scale.at(1))}" x2="${f1(scale.at(1))}" y1="${top}" y2="${f1(bottom)}" stroke="${COLORS.median}" stroke-width="1.5"/>`;
  rows.forEach((row, i) => {
    const l = laid[i];
    const y = starts[i];
    out += l.fits
      ? `<text x="${PLOT_LEFT}" y="${f1(y + 13)}"><tspan font-weight="600">${row.label}</tspan><tspan fill="${COLORS.muted}"> ${row.note}</tspan></text>`
      : `<text x="${PLOT_LEFT}" y="${f1(y + 13)}" font-weight="600">${row.label}</text>` +
        textLines(l.note, PLOT_LEFT, y + 13 + LINE, ` fill="${COLORS.muted}"`);
    const cy = y + lineCount(l) * LINE + 11;
    if (row.low !== null && row.high !== null && row.low > 0) {
      out += `<line x1="${f1(scale.at(row.low))}" x2="${f1(scale.at(row.high))}" y1="${f1(cy)}" y2="${f1(cy)}" stroke="${COLORS.interval}" stroke-width="3"/>`;
      for (const end of [row.low, row.high])
        out += `<line x1="${f1(scale.at(end))}" x2="${f1(scale.at(end))}" y1="${f1(cy - 5)}" y2="${f1(cy + 5)}" stroke="${COLORS.interval}" stroke-width="2"/>`;
    }
    if (row.ratio !== null && row.ratio > 0)
      out += `<circle cx="${f1(scale.at(row.ratio))}" cy="${f1(cy)}" r="4" fill="${COLORS.median}"/>`;
  });
  return `${out}</svg>`;
}

/** One size of a sweep curve: its ratio and interval (null for an invalid size, drawn as a cross on the line at 1). */
export interface SweepCurvePoint {
  size: number;
  ratio: number | null;
  low: number | null;
  high: number | null;
}

/**
 * A sweep's curve: the time ratio (other route / baseline) at each size on a log-log plot, each with its interval as
 * a vertical whisker, a line at 1 (no difference), and, when there is a crossover, a dashed line at its estimate
 * with its interval shaded (an end beyond the range is drawn to the plot's edge).
 * @param id a unique id for the chart's title and description
 * @param points the sizes, smallest first
 * @param crossover the crossover's estimate and interval ends (numbers, or the edge they lie beyond), or null
 * @param title the accessible name; desc the accessible description; axisLabel the x-axis label (escaped)
 */
export function sweepCurveSvg(
  id: string,
  points: readonly SweepCurvePoint[],
  crossover: {
    estimate: number | 'below-range' | 'beyond-range';
    low: number | 'below-range' | 'beyond-range';
    high: number | 'below-range' | 'beyond-range';
  } | null,
  title: string,
  desc: string,
  axisLabel: string,
): string {
  const top = 10;
  const bottom = 190;
  const left = 44;
  const sizes = points.map((p) => p.size);
  const x = logScale(Math.min(...sizes), Math.max(...sizes), left, CHART_WIDTH - RIGHT);
  const values = points.flatMap((p) => [p.ratio, p.low, p.high].filter((v): v is number => v !== null && v > 0));
  const y = logScale(Math.min(1, ...values), Math.max(1, ...values), bottom, top);
  let out = open(id, bottom + 40, title, desc);
  // Size ticks are the ladder's own sizes (powers of two read better than 1-2-5 ticks here).
  out += xAxis({ at: x.at, ticks: sizes }, top, bottom, axisLabel, left, (v) => String(v));
  out += `<g class="axis" fill="${COLORS.muted}">`;
  for (const t of y.ticks)
    out += `<text x="${left - 4}" y="${f1(y.at(t) + 4)}" text-anchor="end">${threeSignificant(t)}</text>`;
  out += `<text x="10" y="${f1(top + 4)}" fill="#1b1b1b" font-size="11">ratio</text></g>`;
  out += `<line x1="${left}" x2="${CHART_WIDTH - RIGHT}" y1="${f1(y.at(1))}" y2="${f1(y.at(1))}" stroke="${COLORS.median}" stroke-width="1.5"/>`;
  if (crossover !== null) {
    const edge = (v: number | 'below-range' | 'beyond-range') =>
      v === 'below-range' ? left : v === 'beyond-range' ? CHART_WIDTH - RIGHT : x.at(v);
    const a = edge(crossover.low);
    const b = edge(crossover.high);
    out += `<rect x="${f1(Math.min(a, b))}" y="${top}" width="${f1(Math.abs(b - a))}" height="${bottom - top}" fill="${COLORS.interval}" fill-opacity="0.15"/>`;
    const e = edge(crossover.estimate);
    out += `<line x1="${f1(e)}" x2="${f1(e)}" y1="${top}" y2="${bottom}" stroke="${COLORS.interval}" stroke-width="2" stroke-dasharray="5 3"/>`;
  }
  let path = '';
  for (const p of points) {
    const cx = x.at(p.size);
    if (p.ratio === null) {
      const cy = y.at(1);
      out += `<path d="M${f1(cx - 4)} ${f1(cy - 4)}L${f1(cx + 4)} ${f1(cy + 4)}M${f1(cx - 4)} ${f1(cy + 4)}L${f1(cx + 4)} ${f1(cy - 4)}" stroke="${COLORS.p95}" stroke-width="2"/>`;
      continue;
    }
    if (p.low !== null && p.high !== null && p.low > 0) {
      out += `<line x1="${f1(cx)}" x2="${f1(cx)}" y1="${f1(y.at(p.low))}" y2="${f1(y.at(p.high))}" stroke="${COLORS.interval}" stroke-width="3"/>`;
    }
    path += `${path === '' ? 'M' : 'L'}${f1(cx)} ${f1(y.at(p.ratio))}`;
  }
  if (path !== '') out += `<path d="${path}" fill="none" stroke="${COLORS.sample}" stroke-width="1.5"/>`;
  for (const p of points)
    if (p.ratio !== null)
      out += `<circle cx="${f1(x.at(p.size))}" cy="${f1(y.at(p.ratio))}" r="4" fill="${COLORS.median}"/>`;
  return `${out}</svg>`;
}

/** One point of a scatter chart: a short label (a number the table beside it explains) and how to mark it. */
export interface ScatterPoint {
  label: string;
  x: number;
  y: number;
  /** On the Pareto front: filled and joined by the front line; off it: hollow. */
  front: boolean;
  /** `square` for maintainer-verified rows, `circle` for community rows (told apart by shape, not colour alone). */
  shape: 'square' | 'circle';
}

/**
 * A scatter of quality (y, 0 to 100%) against latency (x, log scale when the values span more than 20x), with the
 * Pareto front as a step line through its points (each point on the front: no other point is both faster and
 * better). Points carry their label beside them; the caller lists every point's numbers in a table.
 * @param id unique id; points the points; title, desc, xLabel, yLabel escaped text
 * @returns the svg and whether the x axis is logarithmic
 */
export function scatterSvg(
  id: string,
  points: readonly ScatterPoint[],
  title: string,
  desc: string,
  xLabel: string,
  yLabel: string,
): { svg: string; log: boolean } {
  const left = 44;
  const top = 26;
  const height = 200;
  const right = CHART_WIDTH - RIGHT;
  const xs = points.map((p) => p.x);
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const log = lo > 0 && hi / lo > 20;
  const x = log ? logScale(lo, hi, left + 6, right - 6) : linearScale(0, hi, left, right - 6);
  const y = linearScale(0, 100, top + height, top);
  let out = open(id, top + height + 44, title, desc);
  out +=
    `<g><rect x="4" y="6" width="8" height="8" fill="${COLORS.median}"/><text x="16" y="14">verified</text>` +
    `<circle cx="78" cy="10" r="4" fill="${COLORS.sample}"/><text x="86" y="14">community</text>` +
    `<line x1="160" x2="176" y1="10" y2="10" stroke="${COLORS.interval}" stroke-width="2"/><text x="180" y="14">Pareto front</text>` +
    `<circle cx="268" cy="10" r="4" fill="#fff" stroke="${COLORS.muted}" stroke-width="1.5"/><text x="276" y="14">off the front</text></g>`;
  out += `<g class="axis" fill="${COLORS.muted}">`;
  for (const t of y.ticks) {
    out += `<line x1="${left}" x2="${right}" y1="${f1(y.at(t))}" y2="${f1(y.at(t))}" stroke="${COLORS.grid}"/><text x="${left - 4}" y="${f1(y.at(t) + 4)}" text-anchor="end">${threeSignificant(t)}</text>`;
  }
  out += `<text transform="rotate(-90)" x="${f1(-(top + height / 2))}" y="11" text-anchor="middle" fill="#1b1b1b">${yLabel}</text></g>`;
  out += xAxis(x, top, top + height, `${xLabel}${log ? ' (log scale)' : ''}`, left);
  const front = points.filter((p) => p.front).sort((a, b) => a.x - b.x || b.y - a.y);
  if (front.length > 1) {
    // The front as a staircase: from each point across to the next point's latency, then down to its quality.
    let path = `M${f1(x.at(front[0].x))},${f1(y.at(front[0].y))}`;
    for (const p of front.slice(1)) path += ` H${f1(x.at(p.x))} V${f1(y.at(p.y))}`;
    out += `<path d="${path}" fill="none" stroke="${COLORS.interval}" stroke-width="2"/>`;
  }
  for (const p of points) {
    const cx = x.at(p.x);
    const cy = y.at(p.y);
    const fill = p.front ? (p.shape === 'square' ? COLORS.median : COLORS.sample) : '#fff';
    const stroke = p.shape === 'square' ? COLORS.median : p.front ? COLORS.sample : COLORS.muted;
    out +=
      p.shape === 'square'
        ? `<rect x="${f1(cx - 4)}" y="${f1(cy - 4)}" width="8" height="8" fill="${fill}" stroke="${stroke}" stroke-width="1.5"/>`
        : `<circle cx="${f1(cx)}" cy="${f1(cy)}" r="4.5" fill="${fill}" stroke="${stroke}" stroke-width="1.5"/>`;
    out += `<text x="${f1(Math.min(cx + 6, CHART_WIDTH - 14))}" y="${f1(cy - 6)}" font-size="11">${p.label}</text>`;
  }
  return { svg: `${out}</svg>`, log };
}
