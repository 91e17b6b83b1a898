/**
 * A strip chart of samples in run order (plain SVG, drawn in its container's own pixels so its text stays 12 px on a
 * phone): a value axis with ticks and its unit (a log axis says so; src/core/stats/chart-scale.ts), a run axis with
 * the first and last run numbered, one dot per sample, and dashed lines with their labels (median, p95). Charts that
 * sit side by side are handed one scale, so their heights compare. The warm and generation charts are made of it.
 */
import { type ChartScale, chartScale, scaleFraction } from '../core/stats/chart-scale.ts';
import { threeSignificant } from '../core/text/format-number.ts';
import { useChartWidth } from './chart-width.ts';

/** Axis, tick and label colour: #4a4a4a on white is 8.9:1. */
const AXIS_COLOUR = '#4a4a4a';
/** The chart's text size in CSS pixels (the page's smallest). */
const TEXT_PX = 12;

/** A dashed line across the chart at a value, with its label at the right. */
export interface ChartLine {
  label: string;
  value: number;
  colour: string;
}

/**
 * @param props.values one value per sample, in run order
 * @param props.unit the values' unit, shown on the value axis ("ms", "tokens/s")
 * @param props.runLabel what one sample is, for the run axis ("warm run", "prompt")
 * @param props.lines the dashed lines (median, p95)
 * @param props.scale the value axis shared with the charts beside it; absent: the chart's own
 * @param props.ariaLabel the chart's accessible name (its numbers in words)
 */
export function StripChart(props: {
  values: number[];
  unit: string;
  runLabel: string;
  lines: ChartLine[];
  scale?: ChartScale;
  ariaLabel: string;
}) {
  const { values, lines } = props;
  const [ref, width] = useChartWidth<HTMLDivElement>(620);
  const scale = props.scale ?? chartScale(values);
  const lineText = (l: ChartLine) => `${l.label} ${threeSignificant(l.value)} ${props.unit}`;
  // About 7 px a character at 12 px.
  const textPx = (text: string) => text.length * 7;
  // Line labels sit in a right margin, so they never cover a sample; where that margin would take more than a third
  // of the width (a phone), they sit in a legend under the chart instead, one row each when they do not fit side by
  // side.
  const margin = Math.max(...lines.map((l) => textPx(lineText(l)) + 12));
  const legend = margin > width / 3;
  const right = legend ? 12 : margin;
  const left = 52;
  const plotTop = 22;
  const plotHeight = 92;
  const plotBottom = plotTop + plotHeight;
  const legendTop = plotBottom + 54;
  const legendRows: Array<{ x: number; row: number }> = [];
  let x0 = left;
  let row = 0;
  for (const l of lines) {
    const w = 24 + textPx(lineText(l));
    if (x0 > left && x0 + w > width) {
      row++;
      x0 = left;
    }
    legendRows.push({ x: x0, row });
    x0 += w + 14;
  }
  const height = legend ? legendTop + (row + 1) * 18 : plotBottom + 36;
  const plotRight = width - right;
  const x = (i: number) => left + 8 + (values.length === 1 ? 0 : (i * (plotRight - left - 16)) / (values.length - 1));
  const y = (v: number) => plotBottom - scaleFraction(scale, v) * plotHeight;
  // Two labels beside the chart closer than a line of text are pushed apart, the higher value upwards.
  const labelYs = lines.map((l) => y(l.value) + 4);
  if (labelYs.length === 2 && Math.abs(labelYs[0] - labelYs[1]) < TEXT_PX + 1) {
    const [low, high] = lines[0].value <= lines[1].value ? [0, 1] : [1, 0];
    labelYs[low] = Math.max(labelYs[low], labelYs[high] + TEXT_PX + 1);
  }
  const axisTitle = `${props.unit}${scale.kind === 'log' ? ' (log scale)' : ''}`;
  const runs = values.length;
  return (
    <div ref={ref} class="strip-chart">
      <svg
        width={width}
        height={height}
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`${props.ariaLabel}; value axis ${axisTitle} from ${threeSignificant(scale.min)} to ${threeSignificant(scale.max)}`}
        data-scale={scale.kind}
        data-scale-max={scale.max}
      >
        <text x={4} y={TEXT_PX} font-size={TEXT_PX} fill={AXIS_COLOUR} data-axis="value-title">
          {axisTitle}
        </text>
        {scale.ticks.map((tick) => (
          <g key={tick}>
            <line x1={left} x2={plotRight} y1={y(tick)} y2={y(tick)} stroke="#e2e2e2" />
            <line x1={left - 4} x2={left} y1={y(tick)} y2={y(tick)} stroke={AXIS_COLOUR} />
            <text
              x={left - 6}
              y={y(tick) + 4}
              font-size={TEXT_PX}
              fill={AXIS_COLOUR}
              text-anchor="end"
              data-axis="value-tick"
            >
              {threeSignificant(tick)}
            </text>
          </g>
        ))}
        <line x1={left} x2={left} y1={plotTop} y2={plotBottom} stroke={AXIS_COLOUR} />
        <line x1={left} x2={plotRight} y1={plotBottom} y2={plotBottom} stroke={AXIS_COLOUR} />
        {[...new Set([0, runs - 1])].map((i) => (
          <text
            key={i}
            x={x(i)}
            y={plotBottom + 15}
            font-size={TEXT_PX}
            fill={AXIS_COLOUR}
            text-anchor="middle"
            data-axis="run-tick"
          >
            {i + 1}
          </text>
        ))}
        <text
          x={(left + plotRight) / 2}
          y={plotBottom + 31}
          font-size={TEXT_PX}
          fill={AXIS_COLOUR}
          text-anchor="middle"
          data-axis="run-title"
        >
          {props.runLabel}, in run order
        </text>
        {lines.map((l, i) => (
          <g key={l.label}>
            <line x1={left} x2={plotRight} y1={y(l.value)} y2={y(l.value)} stroke={l.colour} stroke-dasharray="4 3" />
            {legend ? (
              <>
                <line
                  x1={legendRows[i].x}
                  x2={legendRows[i].x + 18}
                  y1={legendTop + legendRows[i].row * 18 - 4}
                  y2={legendTop + legendRows[i].row * 18 - 4}
                  stroke={l.colour}
                  stroke-dasharray="4 3"
                />
                <text
                  x={legendRows[i].x + 24}
                  y={legendTop + legendRows[i].row * 18}
                  font-size={TEXT_PX}
                  fill={l.colour}
                  data-line={l.label}
                >
                  {lineText(l)}
                </text>
              </>
            ) : (
              <text x={plotRight + 6} y={labelYs[i]} font-size={TEXT_PX} fill={l.colour} data-line={l.label}>
                {lineText(l)}
              </text>
            )}
          </g>
        ))}
        {values.map((v, i) => (
          <circle key={i} cx={x(i)} cy={y(v)} r={3} fill="#333" />
        ))}
      </svg>
    </div>
  );
}
