/**
 * The rules a comparison receipt keeps beyond its schema (`checkComparisonReceipt`): the schedule, statistics that
 * match the samples, validity and ranks, the candidate rows, the tolerance's basis, the software-adapter flag, the
 * headline recomputed from the samples, the stopping trace recomputed from the samples (the rounds stopped where the
 * declared rule says), the device state's own rules, and an honest outcome. The page runs it before offering a receipt and
 * `drb receipts validate` runs it on every comparison receipt it reads.
 */
import { summarize } from '../stats/stats.ts';
import type { ComparisonHeadline, ComparisonReceipt } from './comparison-receipt.ts';
import { comparisonHeadline } from './comparison-statistics.ts';
import { comparisonTolerance } from './dtype-tolerance.ts';
import { checkStopping } from './stopping-rule.ts';
import { checkDeviceState } from '../device/device-state.ts';

/** True when two headlines hold the same routes and numbers (equal to 1e-9 relative: JSON keeps every bit anyway). */
function sameHeadline(a: ComparisonHeadline | null, b: ComparisonHeadline | null): boolean {
  if (a === null || b === null) return a === b;
  const close = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
  return (
    a.baseline_route_id === b.baseline_route_id &&
    a.routes.length === b.routes.length &&
    a.routes.every((r, i) => {
      const o = b.routes[i];
      const ri = r.interval;
      const oi = o.interval;
      return (
        r.route_id === o.route_id &&
        close(r.ratio_to_baseline, o.ratio_to_baseline) &&
        r.verdict === o.verdict &&
        (ri === null || oi === null
          ? ri === oi
          : close(ri.low, oi.low) &&
            close(ri.high, oi.high) &&
            ri.level === oi.level &&
            ri.resampled === oi.resampled &&
            ri.resamples === oi.resamples &&
            ri.seed === oi.seed)
      );
    })
  );
}

/** One broken rule of a comparison receipt. */
export interface ComparisonProblem {
  path: string;
  message: string;
}

/**
 * Rules beyond the schema: the schedule is a permutation of all routes per round, every route's samples and
 * statistics match (every statistic, one sample per round at most, all rounds for a valid route), a valid route's
 * ratio and speed-up are its median over the baseline's, invalid routes have no rank or ratio, ranks follow the medians, the headline is the one the
 * samples give (ratios, intervals, verdicts), and ok means the baseline is valid.
 * @param receipt a receipt that already passed `ComparisonReceipt.safeParse`
 */
export function checkComparisonReceipt(receipt: ComparisonReceipt): ComparisonProblem[] {
  const problems: ComparisonProblem[] = [];
  const ids = receipt.routes.map((r) => r.id);
  if (new Set(ids).size !== ids.length) problems.push({ path: 'routes', message: 'route ids must be unique' });
  const { order, rounds } = receipt.schedule;
  if (order.length !== rounds * ids.length) {
    problems.push({
      path: 'schedule.order',
      message: `holds ${order.length} slots, expected ${rounds} x ${ids.length}`,
    });
  } else {
    for (let r = 0; r < rounds; r++) {
      const slice = order.slice(r * ids.length, (r + 1) * ids.length);
      if ([...slice].sort().join('\n') !== [...ids].sort().join('\n')) {
        problems.push({ path: `schedule.order`, message: `round ${r + 1} is not one run of every route` });
      }
    }
  }
  const baseline = receipt.routes.find((r) => r.id === receipt.baseline_route_id);
  if (!baseline) problems.push({ path: 'baseline_route_id', message: 'names no route' });
  const near = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  const baselineMedian = baseline === undefined ? null : (summarize(baseline.samples_ms)?.median ?? null);
  receipt.routes.forEach((route, i) => {
    const at = `routes[${i}]`;
    const stats = summarize(route.samples_ms);
    // Every statistic, not only the median: count, p95, min, max and mean are what the samples give.
    const fields = ['count', 'median', 'p95', 'min', 'max', 'mean'] as const;
    const differs = stats && route.stats ? fields.find((field) => !near(stats[field], route.stats![field])) : undefined;
    if ((stats === null) !== (route.stats === null) || differs !== undefined) {
      problems.push({
        path: differs === undefined ? `${at}.stats` : `${at}.stats.${differs}`,
        message: 'does not match the samples',
      });
    }
    // One timed run per round: never more samples than rounds, and a valid route ran every round.
    if (route.samples_ms.length > rounds)
      problems.push({
        path: `${at}.samples_ms`,
        message: `holds ${route.samples_ms.length} samples for ${rounds} rounds (one timed run per round)`,
      });
    else if (route.valid && route.samples_ms.length !== rounds)
      problems.push({
        path: `${at}.samples_ms`,
        message: `holds ${route.samples_ms.length} samples, but a valid route ran all ${rounds} rounds`,
      });
    // The ratio a valid route states is its median over the baseline's, and the speed-up its inverse.
    if (route.valid) {
      const ratio =
        baselineMedian !== null && baselineMedian > 0 && stats !== null && stats.median > 0
          ? stats.median / baselineMedian
          : null;
      if (ratio === null ? route.ratio_to_baseline !== null : !near(route.ratio_to_baseline ?? Number.NaN, ratio))
        problems.push({
          path: `${at}.ratio_to_baseline`,
          message: `is ${route.ratio_to_baseline}, but the medians give ${ratio}`,
        });
      const speedup = ratio === null ? null : 1 / ratio;
      if (
        speedup === null ? route.speedup_vs_baseline !== null : !near(route.speedup_vs_baseline ?? Number.NaN, speedup)
      )
        problems.push({
          path: `${at}.speedup_vs_baseline`,
          message: `is ${route.speedup_vs_baseline}, but the medians give ${speedup}`,
        });
    }
    if (route.valid) {
      if (route.invalid_reason !== null)
        problems.push({ path: `${at}.invalid_reason`, message: 'a valid route has no invalid reason' });
      if (route.agreement === null)
        problems.push({ path: `${at}.agreement`, message: 'a valid route was checked for agreement' });
      else if (route.agreement.max_abs_diff > receipt.tolerance.max_abs_diff || !route.agreement.same_order) {
        problems.push({ path: `${at}.valid`, message: 'is true although the route disagrees with the baseline' });
      }
      if (route.completed_ep !== route.requested_ep)
        problems.push({ path: `${at}.completed_ep`, message: 'a valid route ran on its requested EP' });
      if (route.rank === null) problems.push({ path: `${at}.rank`, message: 'a valid route is ranked' });
    } else {
      if (route.invalid_reason === null)
        problems.push({ path: `${at}.invalid_reason`, message: 'an invalid route must say why' });
      if (route.rank !== null) problems.push({ path: `${at}.rank`, message: 'an invalid route is never ranked' });
      if (route.ratio_to_baseline !== null || route.speedup_vs_baseline !== null) {
        problems.push({ path: `${at}.ratio_to_baseline`, message: 'an invalid route gets no ratio' });
      }
    }
  });
  const valid = receipt.routes
    .filter((r) => r.valid && r.rank !== null && r.stats !== null)
    .sort((a, b) => a.rank! - b.rank!);
  valid.forEach((r, i) => {
    if (r.rank !== i + 1) problems.push({ path: `routes.${r.id}.rank`, message: 'ranks must be 1..n without gaps' });
    if (i > 0 && r.stats!.median < valid[i - 1].stats!.median) {
      problems.push({ path: `routes.${r.id}.rank`, message: 'is ranked behind a slower route' });
    }
  });
  const rows = receipt.candidate_rows;
  const rowIds = new Set(rows?.rows.map((r) => r.id) ?? []);
  const candidateTotal = rows?.rows.reduce((sum, r) => sum + r.candidates, 0) ?? null;
  if (rows && rowIds.size !== rows.rows.length)
    problems.push({ path: 'candidate_rows.rows', message: 'row ids must be unique' });
  if (rows && rows.task !== receipt.model.task)
    problems.push({
      path: 'candidate_rows.task',
      message: `is ${rows.task}, the model's task is ${receipt.model.task}`,
    });
  receipt.routes.forEach((route, i) => {
    const at = `routes[${i}]`;
    if (candidateTotal !== null && route.output !== null && route.output.count !== candidateTotal) {
      problems.push({
        path: `${at}.output.count`,
        message: `is ${route.output.count}, the candidate rows hold ${candidateTotal} candidates`,
      });
    }
    if (route.agreement === null) return;
    const other = route.agreement.rows_in_other_order;
    if (rows === null && other !== null)
      problems.push({ path: `${at}.agreement.rows_in_other_order`, message: 'is only set for candidate rows' });
    if (rows !== null && other === null)
      problems.push({
        path: `${at}.agreement.rows_in_other_order`,
        message: 'must list the rows in another order (or be empty)',
      });
    if (other !== null && rows !== null) {
      if (route.agreement.same_order !== (other.length === 0))
        problems.push({
          path: `${at}.agreement.same_order`,
          message: 'must be true exactly when no row is in another order',
        });
      for (const id of other)
        if (!rowIds.has(id))
          problems.push({ path: `${at}.agreement.rows_in_other_order`, message: `names no compared row "${id}"` });
    }
  });
  const basis = receipt.tolerance.basis;
  if (basis) {
    const expected = comparisonTolerance(
      receipt.model.task,
      receipt.model.dtype,
      basis.source === 'setting' ? receipt.tolerance.max_abs_diff : null,
    );
    if (basis.score_kind !== expected.basis.score_kind) {
      problems.push({
        path: 'tolerance.basis.score_kind',
        message: `is ${basis.score_kind}, but a ${receipt.model.task} model's scores are ${expected.basis.score_kind}`,
      });
    }
    if (
      basis.source === 'default' &&
      (receipt.tolerance.max_abs_diff !== expected.max_abs_diff || basis.reason !== expected.basis.reason)
    ) {
      problems.push({
        path: 'tolerance',
        message: `is not the default for ${expected.basis.score_kind} in ${receipt.model.dtype ?? 'fp32'} (${expected.max_abs_diff})`,
      });
    }
    if (basis.source === 'setting' && basis.reason !== null)
      problems.push({ path: 'tolerance.basis.reason', message: 'a tolerance someone set has no default reason' });
  }
  receipt.routes.forEach((route, i) => {
    if (route.software_adapter === undefined) return;
    const expected = route.completed_ep === 'webgpu' ? receipt.capabilities.webgpu.is_fallback_adapter : null;
    if (route.software_adapter !== expected) {
      problems.push({
        path: `routes[${i}].software_adapter`,
        message: `is ${route.software_adapter}, the route ran on ${route.completed_ep ?? 'no EP'} with capabilities.webgpu.is_fallback_adapter ${receipt.capabilities.webgpu.is_fallback_adapter}`,
      });
    }
  });
  receipt.routes.forEach((route, i) => {
    const placement = route.placement;
    if (!placement) return;
    if (placement.partial_fallback !== (route.completed_ep === 'webgpu' && placement.cpu_nodes > 0)) {
      problems.push({
        path: `routes[${i}].placement.partial_fallback`,
        message: `is ${placement.partial_fallback} but the route completed on ${route.completed_ep ?? 'no EP'} with ${placement.cpu_nodes} CPU node(s)`,
      });
    }
    if (placement.cpu_nodes > placement.total_nodes)
      problems.push({ path: `routes[${i}].placement.cpu_nodes`, message: 'is more than total_nodes' });
  });
  receipt.routes.forEach((route, i) => {
    const check = route.check;
    if (check && check.passed !== (check.cases_passed === check.cases))
      problems.push({
        path: `routes[${i}].check.passed`,
        message: `is ${check.passed} but ${check.cases_passed} of ${check.cases} cases passed`,
      });
  });
  if (!sameHeadline(receipt.headline, comparisonHeadline(receipt.routes, receipt.baseline_route_id))) {
    problems.push({
      path: 'headline',
      message: "does not match the ratios and bootstrap intervals recomputed from the routes' samples",
    });
  }
  if (receipt.stopping !== undefined) {
    const cancelled = receipt.outcome.status === 'failed' && receipt.outcome.reason === 'cancelled';
    problems.push(
      ...checkStopping(
        receipt.stopping,
        receipt.routes,
        receipt.baseline_route_id,
        rounds,
        cancelled ? 'cancelled' : null,
        'stopping',
      ),
    );
  }
  if (receipt.device_state !== undefined) problems.push(...checkDeviceState(receipt.device_state, 'device_state'));
  if (receipt.outcome.status === 'ok') {
    if (!baseline?.valid)
      problems.push({ path: 'outcome.status', message: 'is "ok" but the baseline route is not valid' });
    if (receipt.outcome.reason !== null)
      problems.push({ path: 'outcome.reason', message: 'an ok outcome carries no reason' });
  } else if (receipt.outcome.reason === null || receipt.outcome.reason.trim() === '') {
    problems.push({ path: 'outcome.reason', message: 'a failed comparison must say why' });
  }
  return problems;
}
