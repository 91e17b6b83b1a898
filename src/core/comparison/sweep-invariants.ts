/**
 * The rules a sweep receipt keeps beyond its schema (`checkSweepReceipt`): two distinct routes with the baseline
 * among them; sizes that grow; at every point the schedule rebuilt from its seed, the stopping trace recomputed from
 * the samples, statistics that match, the agreement gate and validity, and the ratio, interval and verdict the
 * samples give; the crossover recomputed from the points; the software-adapter flags; the device state's own rules;
 * an honest outcome. The page runs it before offering a sweep receipt and `drb receipts validate` runs it on every
 * sweep receipt it reads.
 */
import { summarize } from '../stats/stats.ts';
import { sameWithin } from '../stats/same-within.ts';
import { checkDeviceState } from '../device/device-state.ts';
import { comparisonTolerance } from './dtype-tolerance.ts';
import { interleavedSchedule } from './interleaved-schedule.ts';
import { checkStopping } from './stopping-rule.ts';
import type { SweepReceipt } from './sweep-receipt.ts';
import { sweepCrossover, sweepPoint } from './sweep-statistics.ts';

/** One broken rule of a sweep receipt. */
export interface SweepProblem {
  path: string;
  message: string;
}

// Exact equality for orders, ids and rules (no arithmetic in them); numbers go through sameWithin.
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Rules beyond the schema.
 * @param receipt a receipt that already passed `SweepReceipt.safeParse`
 */
export function checkSweepReceipt(receipt: SweepReceipt): SweepProblem[] {
  const problems: SweepProblem[] = [];
  const ids = receipt.routes.map((r) => r.id);
  if (ids[0] === ids[1]) problems.push({ path: 'routes', message: 'route ids must be unique' });
  if (!ids.includes(receipt.baseline_route_id)) {
    problems.push({ path: 'baseline_route_id', message: 'names no route' });
    return problems;
  }
  const otherId = ids.find((id) => id !== receipt.baseline_route_id)!;
  const cancelled = receipt.outcome.status === 'failed' && receipt.outcome.reason === 'cancelled';
  receipt.points.forEach((point, i) => {
    const at = `points[${i}]`;
    if (i > 0 && point.size <= receipt.points[i - 1].size)
      problems.push({ path: `${at}.size`, message: 'sizes must grow along the ladder' });
    if (point.schedule.seed !== receipt.seed + i)
      problems.push({
        path: `${at}.schedule.seed`,
        message: `is ${point.schedule.seed}, the sweep's seed gives ${receipt.seed + i}`,
      });
    const expectedOrder =
      point.schedule.rounds === 0
        ? []
        : interleavedSchedule(ids, point.schedule.rounds, point.schedule.seed).map((s) => s.route_id);
    if (!same(expectedOrder, point.schedule.order))
      problems.push({ path: `${at}.schedule.order`, message: 'is not the interleaved order its seed gives' });
    if (
      !same(
        point.routes.map((r) => r.route_id),
        ids,
      )
    )
      problems.push({ path: `${at}.routes`, message: "must hold both routes in the receipt's route order" });
    if (!same(point.stopping.rule, receipt.rule))
      problems.push({ path: `${at}.stopping.rule`, message: "is not the sweep's declared rule" });
    point.routes.forEach((route, j) => {
      const stats = summarize(route.samples_ms);
      if (!sameWithin(stats, route.stats))
        problems.push({ path: `${at}.routes[${j}].stats`, message: 'does not match the samples' });
    });
    problems.push(
      ...checkStopping(
        point.stopping,
        point.routes.map((r) => ({ id: r.route_id, samples_ms: r.samples_ms })),
        receipt.baseline_route_id,
        point.schedule.rounds,
        point.routes.some((r) => r.error !== null)
          ? 'route-failed'
          : cancelled && i === receipt.points.length - 1
            ? 'cancelled'
            : null,
        `${at}.stopping`,
      ),
    );
    // Validity, ratio and interval, recomputed from what the point recorded. The scores themselves are not in the
    // receipt (only a head and a digest), so the agreement is taken as recorded and held to the rules.
    if (point.valid) {
      if (point.invalid_reason !== null)
        problems.push({ path: `${at}.invalid_reason`, message: 'a valid point has no invalid reason' });
      if (
        point.routes.some(
          (r) =>
            r.error !== null ||
            r.samples_ms.length !== point.schedule.rounds ||
            r.samples_ms.length === 0 ||
            r.output === null,
        )
      ) {
        problems.push({
          path: `${at}.valid`,
          message: 'is true although a route failed, missed a round or gave no scores',
        });
      }
      if (point.agreement === null)
        problems.push({ path: `${at}.agreement`, message: 'a valid point was checked for agreement' });
      else if (point.agreement.max_abs_diff > receipt.tolerance.max_abs_diff || !point.agreement.same_order) {
        problems.push({ path: `${at}.valid`, message: 'is true although the routes disagree' });
      }
      const base = point.routes.find((r) => r.route_id === receipt.baseline_route_id)!.samples_ms;
      const other = point.routes.find((r) => r.route_id === otherId)!.samples_ms;
      const expected = sweepPoint(
        {
          size: point.size,
          input: point.input,
          schedule: point.schedule,
          stopping: point.stopping,
          routes: [
            {
              route_id: receipt.baseline_route_id,
              samples_ms: base,
              scores: [0],
              scores_sha256: '0'.repeat(64),
              error: null,
            },
            { route_id: otherId, samples_ms: other, scores: [0], scores_sha256: '0'.repeat(64), error: null },
          ],
        },
        receipt.baseline_route_id,
        receipt.tolerance.max_abs_diff,
      );
      if (
        !sameWithin(
          [expected.ratio_to_baseline, expected.interval, expected.verdict],
          [point.ratio_to_baseline, point.interval, point.verdict],
        )
      ) {
        problems.push({
          path: `${at}.interval`,
          message: 'does not match the ratio and bootstrap interval recomputed from the samples',
        });
      }
    } else {
      if (point.invalid_reason === null)
        problems.push({ path: `${at}.invalid_reason`, message: 'an invalid point must say why' });
      if (point.ratio_to_baseline !== null || point.interval !== null || point.verdict !== null) {
        problems.push({ path: `${at}.ratio_to_baseline`, message: 'an invalid point gets no ratio' });
      }
    }
  });
  if (!sameWithin(receipt.crossover, sweepCrossover(receipt.points, receipt.baseline_route_id, otherId))) {
    problems.push({ path: 'crossover', message: 'does not match the crossover recomputed from the points' });
  }
  receipt.routes.forEach((route, i) => {
    const expected = route.completed_ep === 'webgpu' ? receipt.capabilities.webgpu.is_fallback_adapter : null;
    if (route.software_adapter !== expected) {
      problems.push({
        path: `routes[${i}].software_adapter`,
        message: `is ${route.software_adapter}, the route ran on ${route.completed_ep ?? 'no EP'} with capabilities.webgpu.is_fallback_adapter ${receipt.capabilities.webgpu.is_fallback_adapter}`,
      });
    }
    if ((route.error === null) !== (route.completed_ep !== null)) {
      problems.push({
        path: `routes[${i}].error`,
        message: 'a route either loaded (completed_ep) or says why it did not (error)',
      });
    }
    if (route.completed_ep !== null && route.completed_ep !== route.requested_ep) {
      problems.push({
        path: `routes[${i}].completed_ep`,
        message: 'a sweep never falls back: a route runs on its requested EP or fails',
      });
    }
  });
  const basis = receipt.tolerance.basis;
  if (basis) {
    const expected = comparisonTolerance(
      receipt.model.task,
      receipt.model.dtype,
      basis.source === 'setting' ? receipt.tolerance.max_abs_diff : null,
    );
    if (
      basis.source === 'default' &&
      (receipt.tolerance.max_abs_diff !== expected.max_abs_diff || basis.reason !== expected.basis.reason)
    ) {
      problems.push({
        path: 'tolerance',
        message: `is not the default for ${expected.basis.score_kind} in ${receipt.model.dtype ?? 'fp32'} (${expected.max_abs_diff})`,
      });
    }
  }
  problems.push(...checkDeviceState(receipt.device_state, 'device_state'));
  if (receipt.outcome.status === 'ok') {
    if (receipt.outcome.reason !== null)
      problems.push({ path: 'outcome.reason', message: 'an ok outcome carries no reason' });
    if (!receipt.points.some((p) => p.valid))
      problems.push({ path: 'outcome.status', message: 'is "ok" but no point is valid' });
  } else if (receipt.outcome.reason === null || receipt.outcome.reason.trim() === '') {
    problems.push({ path: 'outcome.reason', message: 'a failed sweep must say why' });
  }
  return problems;
}
