import type { ChartScale } from '../core/stats/chart-scale.ts';
import { summarize } from '../core/stats/stats.ts';
import { threeSignificant } from '../core/text/format-number.ts';
import { StripChart } from './StripChart.tsx';

/** Median line and label colour: #2f5d8a on white is 6.9:1 (WCAG AA for small text). */
const MEDIAN_COLOUR = '#2f5d8a';
/** p95 line and label colour: #b3261e on white is 6.5:1 (the earlier #e15759 was 3.68:1 at 11 px). */
const P95_COLOUR = '#b3261e';

/**
 * Warm samples as a strip chart (one dot per sample, in order, on a value axis in ms with ticks) with median and p95
 * lines, and the numbers in text beside it: median, p95, min and max.
 * @param props.samplesMs the warm samples, in run order
 * @param props.scale the value axis shared with the warm charts listed beside this one (absent: its own)
 */
export function WarmChart(props: { samplesMs: number[]; scale?: ChartScale }) {
  const { samplesMs } = props;
  const stats = summarize(samplesMs);
  if (!stats) return null;
  const ms = (v: number) => `${threeSignificant(v)} ms`;
  const numbers = `${stats.count} samples: median ${ms(stats.median)}, p95 ${ms(stats.p95)}, min ${ms(stats.min)}, max ${ms(stats.max)}`;
  return (
    <figure class="chart" data-testid="warm-chart">
      <StripChart
        values={samplesMs}
        unit="ms"
        runLabel="warm run"
        scale={props.scale}
        lines={[
          { label: 'median', value: stats.median, colour: MEDIAN_COLOUR },
          { label: 'p95', value: stats.p95, colour: P95_COLOUR },
        ]}
        ariaLabel={`Warm samples in run order, ${numbers}`}
      />
      <figcaption data-testid="warm-stats">{numbers}</figcaption>
    </figure>
  );
}
