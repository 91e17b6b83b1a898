/**
 * A generation run's samples in execution order as a strip chart (src/ui/StripChart.tsx): one dot per measured
 * prompt on a value axis with ticks and its unit, with the median as a dashed line, and the numbers in text beside it.
 * Used twice: TTFT (ms) and decode speed (tokens/s), the latter showing at a glance whether the device slowed down
 * over the run (what the sustained-speed ratio summarises).
 */
import type { ChartScale } from '../core/stats/chart-scale.ts';
import { summarize } from '../core/stats/stats.ts';
import { threeSignificant } from '../core/text/format-number.ts';
import { StripChart } from './StripChart.tsx';

/** Median line and label colour: #2f5d8a on white is 6.9:1 (WCAG AA for small text). */
const MEDIAN_COLOUR = '#2f5d8a';

/**
 * @param props.values one value per ok sample, in the order the prompts ran
 * @param props.label what the values are (shown in the caption and the accessible name)
 * @param props.unit the values' unit, on the value axis and in the numbers ("ms", "tokens/s")
 * @param props.testId data-testid of the figure
 * @param props.scale the value axis shared with a chart beside it (absent: its own)
 */
export function GenerationChart(props: {
  values: number[];
  label: string;
  unit: string;
  testId: string;
  scale?: ChartScale;
}) {
  const { values, label, unit } = props;
  const stats = summarize(values);
  if (stats === null) return null;
  const n = (v: number) => `${threeSignificant(v)} ${unit}`;
  const numbers = `${stats.count} prompts: median ${n(stats.median)}, p95 ${n(stats.p95)}, min ${n(stats.min)}, max ${n(stats.max)}`;
  return (
    <figure class="chart" data-testid={props.testId}>
      <StripChart
        values={values}
        unit={unit}
        runLabel="prompt"
        scale={props.scale}
        lines={[{ label: 'median', value: stats.median, colour: MEDIAN_COLOUR }]}
        ariaLabel={`${label}, one dot per prompt in run order; ${numbers}`}
      />
      <figcaption>
        {label} per prompt, in run order. <span data-testid={`${props.testId}-numbers`}>{numbers}</span>
      </figcaption>
    </figure>
  );
}
