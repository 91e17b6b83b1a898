import { threeSignificant } from '../core/text/format-number.ts';
import { summarize } from '../core/stats/stats.ts';

/** Median line and label colour: #2f5d8a on white is 6.9:1 (WCAG AA for small text). */
const MEDIAN_COLOUR = '#2f5d8a';
/** p95 line and label colour: #b3261e on white is 6.5:1 (the earlier #e15759 was 3.68:1 at 11 px). */
const P95_COLOUR = '#b3261e';

/**
 * Warm samples as a strip chart (one dot per sample, in order) with median and p95 lines (plain SVG that scales to its
 * container), and the numbers in text beside it: median, p95, min and max.
 */
export function WarmChart(props: { samplesMs: number[] }) {
  const { samplesMs } = props;
  const stats = summarize(samplesMs);
  if (!stats) return null;
  const width = 560;
  const height = 120;
  const pad = 24;
  // Dots and lines end here; the labels sit in the margin to the right so they never cover a sample.
  const plotRight = width - 130;
  const top = stats.max * 1.1 || 1;
  const x = (i: number) => pad + (samplesMs.length === 1 ? 0 : (i * (plotRight - pad)) / (samplesMs.length - 1));
  const y = (ms: number) => height - pad - (ms / top) * (height - 2 * pad);
  const ms = (v: number) => `${threeSignificant(v)} ms`;
  const numbers = `${stats.count} samples: median ${ms(stats.median)}, p95 ${ms(stats.p95)}, min ${ms(stats.min)}, max ${ms(stats.max)}`;
  return (
    <figure class="chart" data-testid="warm-chart">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        style={{ maxWidth: `${width}px` }}
        role="img"
        aria-label={`Warm samples in run order, ${numbers}`}
      >
        <line x1={pad} x2={plotRight} y1={y(0)} y2={y(0)} stroke="#767676" />
        <line
          x1={pad}
          x2={plotRight}
          y1={y(stats.median)}
          y2={y(stats.median)}
          stroke={MEDIAN_COLOUR}
          stroke-dasharray="4 3"
        />
        <line x1={pad} x2={plotRight} y1={y(stats.p95)} y2={y(stats.p95)} stroke={P95_COLOUR} stroke-dasharray="4 3" />
        <text
          x={plotRight + 6}
          y={y(stats.median) + (stats.p95 - stats.median < top * 0.1 ? 10 : 4)}
          font-size="11"
          fill={MEDIAN_COLOUR}
        >
          median {ms(stats.median)}
        </text>
        <text
          x={plotRight + 6}
          y={y(stats.p95) - (stats.p95 - stats.median < top * 0.1 ? 2 : -4)}
          font-size="11"
          fill={P95_COLOUR}
        >
          p95 {ms(stats.p95)}
        </text>
        {samplesMs.map((v, i) => (
          <circle key={i} cx={x(i)} cy={y(v)} r={3} fill="#333" />
        ))}
      </svg>
      <figcaption data-testid="warm-stats">{numbers}</figcaption>
    </figure>
  );
}
