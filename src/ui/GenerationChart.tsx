/**
 * A generation run's samples in execution order as a plain-SVG strip chart: one dot per measured prompt, with the
 * median as a dashed line. Used twice: TTFT (ms) and decode speed (tokens/s), the latter showing at a glance whether
 * the device slowed down over the run (what the sustained-speed ratio summarises).
 */
import { median } from '../core/stats.ts';

/**
 * @param props.values one value per ok sample, in the order the prompts ran
 * @param props.label what the values are, with unit (shown in the caption and the accessible name)
 * @param props.testId data-testid of the figure
 */
export function GenerationChart(props: { values: number[]; label: string; testId: string }) {
  const { values, label } = props;
  const mid = median(values);
  if (mid === null) return null;
  const width = 560;
  const height = 100;
  const pad = 20;
  const plotRight = width - 120;
  const top = Math.max(...values) * 1.1 || 1;
  const x = (i: number) => pad + (values.length === 1 ? 0 : (i * (plotRight - pad)) / (values.length - 1));
  const y = (v: number) => height - pad - (v / top) * (height - 2 * pad);
  return (
    <figure class="chart" data-testid={props.testId}>
      <svg width={width} height={height} role="img" aria-label={`${label}, one dot per prompt in run order`}>
        <line x1={pad} x2={plotRight} y1={y(0)} y2={y(0)} stroke="#999" />
        <line x1={pad} x2={plotRight} y1={y(mid)} y2={y(mid)} stroke="#4e79a7" stroke-dasharray="4 3" />
        <text x={plotRight + 6} y={y(mid) + 4} font-size="11" fill="#4e79a7">
          median {mid.toFixed(1)}
        </text>
        {values.map((v, i) => (
          <circle key={i} cx={x(i)} cy={y(v)} r={3} fill="#333" />
        ))}
      </svg>
      <figcaption>{label} per prompt, in run order</figcaption>
    </figure>
  );
}
