import { threeSignificant } from '../core/text/format-number.ts';
import type { DeviceReceipt } from '../core/receipt/receipt.ts';
import { useChartWidth } from './chart-width.ts';

/** Each bar: the timing's field, its label, its colour, and the stage a failed receipt names (`outcome.failed_stage`). */
const STAGES = [
  ['model_fetch_ms', 'fetch', '#4e79a7', 'fetch'],
  ['runtime_fetch_ms', 'runtime fetch', '#76b7b2', 'runtime_fetch'],
  ['session_create_ms', 'session', '#f28e2b', 'session'],
  ['first_inference_ms', 'first inference', '#59a14f', 'first_inference'],
] as const;

/**
 * A stage time for people (3 significant digits), or why there is none: the stage the run failed at was reached and
 * failed there (its time is not recorded), the stages after it were not reached.
 */
function stageText(ms: number | null, failedHere: boolean): string {
  if (ms !== null) return `${threeSignificant(ms)} ms`;
  return failedHere ? 'failed here' : 'not reached';
}

/**
 * A cold receipt's stages as one horizontal bar per stage on a shared time axis (plain SVG drawn in its container's
 * pixels), with every stage's time in text beside it: the chart is the picture, the list is the numbers (and what a
 * screen reader reads). A failed receipt's stages are listed once, as text.
 */
export function ColdTimeline(props: { receipt: DeviceReceipt }) {
  const t = props.receipt.timings;
  const failedAt = props.receipt.outcome.failed_stage;
  // Drawn in the container's own pixels: 12 px text stays 12 px on a phone.
  const [ref, width] = useChartWidth<HTMLElement>(520);
  const labelWidth = 110;
  const total = STAGES.reduce((sum, [key]) => sum + (t[key] ?? 0), 0);
  const scale = total > 0 ? (width - labelWidth - 80) / total : 0;
  let offset = 0;
  const height = STAGES.length * 22 + 8;
  // A stage's time is absent (not null) in receipts written before the runtime fetch was its own stage.
  const summary = STAGES.map(
    ([key, label, , stage]) => `${label} ${stageText(t[key] ?? null, stage === failedAt)}`,
  ).join(', ');
  // A failed run's stages are listed once, as text (which failed, which were never reached): bars of the few stages
  // it finished, each with its time, would list them a second time.
  const failed = props.receipt.outcome.status === 'failed';
  return (
    <figure ref={ref} class="chart" data-testid="cold-timeline">
      {!failed && (
        <svg
          width={width}
          height={height}
          viewBox={`0 0 ${width} ${height}`}
          role="img"
          aria-label={`Cold run stages: ${summary}`}
        >
          {STAGES.map(([key, label, color, stage], i) => {
            // Absent (not null) in receipts written before the runtime fetch was its own stage.
            const ms = t[key] ?? null;
            const x = labelWidth + offset * scale;
            const w = ms === null ? 0 : Math.max(1, ms * scale);
            if (ms !== null) offset += ms;
            return (
              <g key={key} transform={`translate(0, ${i * 22 + 4})`}>
                <text x={0} y={14} font-size="12" fill="#1d1d1f">
                  {label}
                </text>
                <rect x={x} y={2} width={w} height={16} fill={color} />
                <text x={x + w + 4} y={14} font-size="12" fill="#1d1d1f">
                  {stageText(ms, stage === failedAt)}
                </text>
              </g>
            );
          })}
        </svg>
      )}
      <figcaption>
        {failed && <p class="chart-title">Cold run stages:</p>}
        <ul class="chart-numbers" data-testid="cold-stages">
          {STAGES.map(([key, label, , stage]) => (
            <li key={key} data-stage={key}>
              {label}: {stageText(t[key] ?? null, stage === failedAt)}
            </li>
          ))}
          <li data-stage="total_ms">total (with probe and page work): {threeSignificant(t.total_ms)} ms</li>
        </ul>
      </figcaption>
    </figure>
  );
}
