import type { DeviceReceipt } from '../core/receipt.ts';

const STAGES = [
  ['model_fetch_ms', 'fetch', '#4e79a7'],
  ['runtime_fetch_ms', 'runtime fetch', '#76b7b2'],
  ['session_create_ms', 'session', '#f28e2b'],
  ['first_inference_ms', 'first inference', '#59a14f'],
] as const;

/** A cold receipt's stages as one horizontal bar per stage on a shared time axis (plain SVG). */
export function ColdTimeline(props: { receipt: DeviceReceipt }) {
  const t = props.receipt.timings;
  const width = 480;
  const labelWidth = 110;
  const total = STAGES.reduce((sum, [key]) => sum + (t[key] ?? 0), 0);
  const scale = total > 0 ? (width - labelWidth - 70) / total : 0;
  let offset = 0;
  return (
    <figure class="chart" data-testid="cold-timeline">
      <svg width={width} height={STAGES.length * 22 + 8} role="img" aria-label="Cold run stages">
        {STAGES.map(([key, label, color], i) => {
          // Absent (not null) in receipts written before the runtime fetch was its own stage.
          const ms = t[key] ?? null;
          const x = labelWidth + offset * scale;
          const w = ms === null ? 0 : Math.max(1, ms * scale);
          if (ms !== null) offset += ms;
          return (
            <g key={key} transform={`translate(0, ${i * 22 + 4})`}>
              <text x={0} y={14} font-size="12">
                {label}
              </text>
              <rect x={x} y={2} width={w} height={16} fill={color} />
              <text x={x + w + 4} y={14} font-size="12">
                {ms === null ? 'not reached' : `${ms.toFixed(1)} ms`}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>Cold run: stages in order, total {t.total_ms.toFixed(0)} ms including probe and page work.</figcaption>
    </figure>
  );
}
