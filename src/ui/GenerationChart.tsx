/**
 * A generation run's samples in execution order as a plain-SVG strip chart that scales to its container: one dot per
 * measured prompt, with the median as a dashed line, and the numbers in text beside it. Used twice: TTFT (ms) and
 * decode speed (tokens/s), the latter showing at a glance whether the device slowed down over the run (what the
 * sustained-speed ratio summarises).
 */
import { threeSignificant } from '../core/text/format-number.ts';
import { summarize } from '../core/stats/stats.ts';

/** Median line and label colour: #2f5d8a on white is 6.9:1 (WCAG AA for small text). */
const MEDIAN_COLOUR = '#2f5d8a';

/**
 * @param props.values one value per ok sample, in the order the prompts ran
 * @param props.label what the values are, with unit (shown in the caption and the accessible name)
 * @param props.unit the values' unit for the numbers in text ("ms", "tokens/s")
 * @param props.testId data-testid of the figure
 */
export function GenerationChart(props: { values: number[]; label: string; unit: string; testId: string }) {
  const { values, label, unit } = props;
  const stats = summarize(values);
  if (stats === null) return null;
  const mid = stats.median;
  const width = 560;
  const height = 100;
  const pad = 20;
  const plotRight = width - 120;
  const top = stats.max * 1.1 || 1;
  const x = (i: number) => pad + (values.length === 1 ? 0 : (i * (plotRight - pad)) / (values.length - 1));
  const y = (v: number) => height - pad - (v / top) * (height - 2 * pad);
  const n = (v: number) => `${threeSignificant(v)} ${unit}`;
  const numbers = `${stats.count} prompts: median ${n(stats.median)}, p95 ${n(stats.p95)}, min ${n(stats.min)}, max ${n(stats.max)}`;
  return (
    <figure class="chart" data-testid={props.testId}>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        style={{ maxWidth: `${width}px` }}
        role="img"
        aria-label={`${label}, one dot per prompt in run order; ${numbers}`}
      >
        <line x1={pad} x2={plotRight} y1={y(0)} y2={y(0)} stroke="#767676" />
        <line x1={pad} x2={plotRight} y1={y(mid)} y2={y(mid)} stroke={MEDIAN_COLOUR} stroke-dasharray="4 3" />
        <text x={plotRight + 6} y={y(mid) + 4} font-size="11" fill={MEDIAN_COLOUR}>
          median {threeSignificant(mid)}
        </text>
        {values.map((v, i) => (
          <circle key={i} cx={x(i)} cy={y(v)} r={3} fill="#333" />
        ))}
      </svg>
      <figcaption>
        {label} per prompt, in run order. <span data-testid={`${props.testId}-numbers`}>{numbers}</span>
      </figcaption>
    </figure>
  );
}
