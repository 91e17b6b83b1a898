/**
 * What a comparison receipt lets a person conclude, in words: one sentence per compared route from the receipt's
 * headline ("wasm-2 took 0.92x the time of wasm-1; 95% interval 0.81 to 1.05: no clear difference"), and each
 * route's standing. A route whose interval contains 1 is a tie with the baseline (`tie`), never a winner, whatever
 * its rank; an invalid route has no standing but its reason; a WebGPU route on a software (fallback) adapter carries
 * the mark that its timings are not representative. Pure: the page and reports print these strings.
 */
import { ratioSentence, type ConfidenceInterval } from '../stats/intervals.ts';
import type { Capabilities } from '../receipt/receipt.ts';
import { ranOnSoftwareAdapter, SOFTWARE_ADAPTER_MARK } from '../receipt/software-adapter.ts';
import { placementNote, type ComparisonReceipt, type ComparisonRoute } from './comparison-receipt.ts';

export { SOFTWARE_ADAPTER_MARK };

/** A route's standing against the baseline. */
export type RouteStanding = 'baseline' | 'faster' | 'slower' | 'tie' | 'no-interval' | 'invalid';

/** One route in words. */
export interface RouteVerdict {
  route_id: string;
  standing: RouteStanding;
  /** The route's ratio to the baseline (null for an invalid route). */
  ratio: number | null;
  interval: ConfidenceInterval | null;
  /** The sentence (null for the baseline and invalid routes; an invalid route's `reason` says why). */
  sentence: string | null;
  /** Why the route is invalid (null for a valid one). */
  reason: string | null;
  /** True when the route ran on a software (fallback) WebGPU adapter. */
  software_adapter: boolean;
}

/**
 * Whether `route` ran on a software (fallback) WebGPU adapter, from the route's own flag or, for receipts without
 * it, from the probe's `is_fallback_adapter` (null: the browser did not say).
 * @param route the compared route
 * @param capabilities the receipt's capabilities
 */
export function routeOnSoftwareAdapter(
  route: Pick<ComparisonRoute, 'completed_ep' | 'software_adapter'>,
  capabilities: Capabilities,
): boolean | null {
  if (route.software_adapter !== undefined) return route.software_adapter;
  return ranOnSoftwareAdapter(route.completed_ep, capabilities);
}

/**
 * Each route in words (in the receipt's route order), and the lead: the sentences of the compared routes.
 * @param receipt a comparison receipt
 */
export function comparisonVerdicts(receipt: ComparisonReceipt): { lead: string[]; routes: RouteVerdict[] } {
  const heads = new Map((receipt.headline?.routes ?? []).map((h) => [h.route_id, h]));
  const routes = receipt.routes.map((route): RouteVerdict => {
    const software_adapter = routeOnSoftwareAdapter(route, receipt.capabilities) === true;
    const base = { route_id: route.id, software_adapter, interval: null, sentence: null, reason: null };
    if (!route.valid) return { ...base, standing: 'invalid', ratio: null, reason: route.invalid_reason ?? 'invalid' };
    if (route.id === receipt.baseline_route_id) return { ...base, standing: 'baseline', ratio: 1 };
    // No headline: the baseline is invalid, and no route is compared with it.
    if (receipt.headline === null) return { ...base, standing: 'no-interval', ratio: null };
    const head = heads.get(route.id);
    const ratio = head?.ratio_to_baseline ?? route.ratio_to_baseline;
    if (ratio === null)
      return {
        ...base,
        standing: 'no-interval',
        ratio: null,
        sentence: `${route.id}: no ratio to ${receipt.baseline_route_id} (a zero or missing sample)`,
      };
    const interval = head?.interval ?? null;
    const verdict = head?.verdict ?? null;
    const standing: RouteStanding =
      verdict === null ? 'no-interval' : verdict === 'no-clear-difference' ? 'tie' : verdict;
    let sentence = ratioSentence(route.id, receipt.baseline_route_id, ratio, interval);
    const baseline = receipt.routes.find((r) => r.id === receipt.baseline_route_id);
    const softwareBaseline = baseline !== undefined && routeOnSoftwareAdapter(baseline, receipt.capabilities) === true;
    if (software_adapter || softwareBaseline)
      sentence += ` (${software_adapter ? route.id : receipt.baseline_route_id}: ${SOFTWARE_ADAPTER_MARK})`;
    return { ...base, standing, ratio, interval, sentence };
  });
  const lead = routes.flatMap((r) => (r.sentence === null ? [] : [r.sentence]));
  // Two routes that differ in where their work ran (a webgpu route with CPU nodes) compare more than their EPs.
  const placed = placementNote(receipt.routes);
  if (placed !== null) lead.push(`Where the work ran: ${placed}`);
  // A trained model's routes each carry their correctness check: one that failed is named.
  for (const route of receipt.routes) {
    if (route.check && !route.check.passed)
      lead.push(
        `${route.id}: its output failed the model's correctness check (${route.check.cases_passed} of ${route.check.cases} cases passed)`,
      );
  }
  if (receipt.headline === null) {
    const baseline = routes.find((r) => r.route_id === receipt.baseline_route_id);
    lead.unshift(
      `No verdict: the baseline ${receipt.baseline_route_id} is not valid (${baseline?.reason ?? 'no reason'}), so nothing is compared with it`,
    );
  }
  return { lead, routes };
}

/** The words for a standing, as the page's verdict column shows them. */
export function standingText(standing: RouteStanding): string {
  switch (standing) {
    case 'baseline':
      return 'baseline';
    case 'faster':
      return 'faster';
    case 'slower':
      return 'slower';
    case 'tie':
      return 'no clear difference (tie)';
    case 'no-interval':
      return 'no interval';
    case 'invalid':
      return 'invalid';
  }
}
