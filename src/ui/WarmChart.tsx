import { summarize } from '../core/stats.ts';

/** Warm samples as a strip chart (one dot per sample, in order) with median and p95 lines (plain SVG). */
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
  return (
    <figure class="chart" data-testid="warm-chart">
      <svg width={width} height={height} role="img" aria-label="Warm samples">
        <line x1={pad} x2={plotRight} y1={y(0)} y2={y(0)} stroke="#999" />
        <line x1={pad} x2={plotRight} y1={y(stats.median)} y2={y(stats.median)} stroke="#4e79a7" stroke-dasharray="4 3" />
        <line x1={pad} x2={plotRight} y1={y(stats.p95)} y2={y(stats.p95)} stroke="#e15759" stroke-dasharray="4 3" />
        <text x={plotRight + 6} y={y(stats.median) + (stats.p95 - stats.median < top * 0.1 ? 10 : 4)} font-size="11" fill="#4e79a7">
          median {stats.median.toFixed(2)} ms
        </text>
        <text x={plotRight + 6} y={y(stats.p95) - (stats.p95 - stats.median < top * 0.1 ? 2 : -4)} font-size="11" fill="#e15759">
          p95 {stats.p95.toFixed(2)} ms
        </text>
        {samplesMs.map((ms, i) => (
          <circle key={i} cx={x(i)} cy={y(ms)} r={3} fill="#333" />
        ))}
      </svg>
      <figcaption data-testid="warm-stats">
        {stats.count} samples: median {stats.median.toFixed(2)} ms, p95 {stats.p95.toFixed(2)} ms, min {stats.min.toFixed(2)} ms, max{' '}
        {stats.max.toFixed(2)} ms
      </figcaption>
    </figure>
  );
}
