/**
 * Checks of a `drb receipts report` page against summary.json, shared by the unit test (on the HTML text) and the
 * end-to-end test (on the DOM Chromium built): every number marked `data-summary` must be the number at that path
 * of the summary.
 */

/**
 * The value at `path` in the summary: dot-separated steps; a step into an array picks the entry whose `key`,
 * `receipt_id` or `route_id` is the step (targets, comparisons, ranked routes, interruption groups), or whose `size`
 * is (a sweep's points).
 * @param summary the parsed summary.json
 * @param path e.g. `targets.t-0123456789ab.warm.pooled_ms.median`
 * @returns the value, or undefined when the path leads nowhere
 */
export function summaryValue(summary: unknown, path: string): unknown {
  let at: unknown = summary;
  for (const step of path.split('.')) {
    if (Array.isArray(at)) {
      at = at.find(
        (e: Record<string, unknown>) =>
          e !== null &&
          typeof e === 'object' &&
          (e.key === step ||
            e.receipt_id === step ||
            e.route_id === step ||
            (typeof e.size === 'number' && String(e.size) === step)),
      );
    } else if (at !== null && typeof at === 'object') {
      at = (at as Record<string, unknown>)[step];
    } else return undefined;
  }
  return at;
}

/** Every `data-summary` / `data-value` pair in a page's HTML text. */
export function summaryCells(html: string): Array<{ path: string; value: string }> {
  const cells: Array<{ path: string; value: string }> = [];
  for (const match of html.matchAll(/<[a-z]+ [^>]*data-value="([^"]*)" data-summary="([^"]*)"/g))
    cells.push({ path: match[2], value: match[1] });
  return cells;
}
