/**
 * A comparison's per-route table: each route's medians, its time against the baseline with the 95% interval, the
 * verdict that interval supports, and how its scores agree with the baseline's.
 */
import type { ComparisonReceipt } from '../core/comparison/comparison-receipt.ts';
import { SOFTWARE_ADAPTER_MARK, standingText, type RouteVerdict } from '../core/comparison/comparison-verdict.ts';
import { threeSignificant } from '../core/text/format-number.ts';

/** A number for people: 3 significant digits, or a dash when there is none. */
function fmt(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : threeSignificant(value);
}

const COLUMNS = [
  'Route',
  'Ran on (threads)',
  'Median ms',
  'p95 ms',
  'Time vs baseline [95% interval]',
  'Verdict',
  'Max |Δ score|',
  'Same order',
];

/** One route's row: greyed as a whole with its reason first and no numbers when invalid. */
function RouteRow(props: { route: ComparisonReceipt['routes'][number]; verdict: RouteVerdict; baseline: boolean }) {
  const { route: r, verdict: v } = props;
  const name = (
    <td data-label={COLUMNS[0]}>
      <strong>{r.id}</strong>
      {props.baseline ? ' (baseline)' : ''}
      {v.software_adapter && (
        <span class="mark" data-testid={`software-adapter-${r.id}`}>
          {' '}
          ⚠ {SOFTWARE_ADAPTER_MARK}
        </span>
      )}
    </td>
  );
  const threads = r.threads_effective !== null ? `, ${r.threads_effective} threads` : '';
  if (!r.valid) {
    return (
      <tr class="invalid" data-testid={`route-${r.id}`} data-valid="false">
        {name}
        <td colSpan={COLUMNS.length - 1} data-label="Invalid" data-testid={`route-reason-${r.id}`}>
          ✗ Invalid, not compared: {r.invalid_reason}
          {r.completed_ep ? ` (ran on ${r.completed_ep}${threads})` : ''}
        </td>
      </tr>
    );
  }
  const order = r.agreement?.rows_in_other_order?.length ? ` (rows ${r.agreement.rows_in_other_order.join(', ')})` : '';
  return (
    <tr data-testid={`route-${r.id}`} data-valid="true" data-standing={v.standing}>
      {name}
      <td data-label={COLUMNS[1]}>
        {r.completed_ep}
        {r.threads_effective !== null ? ` (${r.threads_effective})` : ''}
        {r.placement?.partial_fallback ? ` (${r.placement.cpu_nodes} of ${r.placement.total_nodes} nodes on CPU)` : ''}
      </td>
      <td data-label={COLUMNS[2]}>{fmt(r.stats?.median)}</td>
      <td data-label={COLUMNS[3]}>{fmt(r.stats?.p95)}</td>
      <td data-label={COLUMNS[4]}>
        {v.standing === 'baseline' ? '1 (reference)' : `${fmt(v.ratio)}x`}
        {v.interval ? ` [${fmt(v.interval.low)} to ${fmt(v.interval.high)}]` : ''}
      </td>
      <td data-label={COLUMNS[5]}>{standingText(v.standing)}</td>
      <td data-label={COLUMNS[6]}>{r.agreement ? fmt(r.agreement.max_abs_diff) : '–'}</td>
      <td data-label={COLUMNS[7]}>
        {r.agreement ? (r.agreement.same_order ? 'yes' : 'no') : '–'}
        {order}
      </td>
    </tr>
  );
}

/**
 * The per-route table, one ratio column (time against the baseline, with its 95% interval) and the verdict that
 * interval supports: "no clear difference" is a tie, never a rank. On a narrow screen each row becomes a card.
 */
export function CompareTable(props: { receipt: ComparisonReceipt; verdicts: RouteVerdict[] }) {
  const { receipt } = props;
  const byId = new Map(props.verdicts.map((v) => [v.route_id, v]));
  return (
    <table class="kv cards" data-testid="compare-table">
      <thead>
        <tr>
          {COLUMNS.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {receipt.routes.map((r) => (
          <RouteRow key={r.id} route={r} verdict={byId.get(r.id)!} baseline={r.id === receipt.baseline_route_id} />
        ))}
      </tbody>
    </table>
  );
}
