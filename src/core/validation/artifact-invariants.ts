/**
 * The cross-field rules of every artifact kind beyond the device receipt (whose own live in
 * src/core/receipt/receipt-invariants.ts with the section checks all kinds share): generation, suite and comparison
 * receipts run the shared section checks on their sections; a receipt bundle's receipts are receipts (a bundle inside
 * a bundle is refused, not opened), made before the bundle, and its session sheet holds no URL with a query, fragment
 * or credentials; summaries and score reports have their own (summary-invariants.ts, score-report-invariants.ts).
 * Each function takes a schema-valid value and returns one problem per contradiction, with its field path.
 */
import type { ComparisonReceipt } from '../comparison/comparison-receipt.ts';
import type { GenerationReceipt } from '../generation/generation-receipt.ts';
import type { SuiteReceipt } from '../suite/suite-receipt.ts';
import { RECEIPT_BUNDLE_SCHEMA, sheetUrlProblems, type ReceiptBundle } from '../field/receipt-bundle.ts';
import {
  checkIntegrity,
  checkLifecycle,
  checkRouteAgainstPage,
  checkRuntimeFiles,
  type InvariantProblem,
} from '../receipt/receipt-invariants.ts';

/** An ok run ran a model: it loaded it. */
function loadedIfOk(status: 'ok' | 'failed', integrity: string): InvariantProblem[] {
  return status === 'ok' && integrity === 'not-loaded'
    ? [{ path: 'model.integrity', message: 'is "not-loaded" for an ok run (it ran a model it never loaded)' }]
    : [];
}

/**
 * A generation receipt's sections against each other (route and page, integrity, runtime files, lifecycle).
 * @param receipt a schema-valid generation receipt
 */
export function checkGenerationFacts(receipt: GenerationReceipt): InvariantProblem[] {
  return [
    ...checkRouteAgainstPage(receipt.route, receipt.capabilities, ''),
    ...checkIntegrity(receipt.model),
    ...checkRuntimeFiles(receipt.runtime),
    ...checkLifecycle(receipt.lifecycle),
    ...loadedIfOk(receipt.outcome.status, receipt.model.integrity),
  ];
}

/**
 * A suite receipt's sections against each other (route and page, integrity, runtime files), and its total against
 * its stages (the model load and every row's inference).
 * @param receipt a schema-valid suite receipt
 */
export function checkSuiteFacts(receipt: SuiteReceipt): InvariantProblem[] {
  const problems = [
    ...checkRouteAgainstPage(receipt.route, receipt.capabilities, ''),
    ...checkIntegrity(receipt.model),
    ...checkRuntimeFiles(receipt.runtime),
    ...loadedIfOk(receipt.outcome.status, receipt.model.integrity),
  ];
  const { timings } = receipt;
  let stages = timings.model_load_ms ?? 0;
  for (const sample of timings.row_latency_samples_ms) stages += sample;
  if (timings.total_ms + 2 < stages) {
    const shown = Number.isFinite(stages) ? `${stages} ms` : 'more than any finite number of ms';
    problems.push({
      path: 'timings.total_ms',
      message: `is ${timings.total_ms} ms, shorter than its stages (model_load_ms + row_latency_samples_ms = ${shown})`,
    });
  }
  if (receipt.outcome.status === 'ok' && timings.total_ms === 0)
    problems.push({ path: 'timings.total_ms', message: 'is 0 ms for an ok run (all-zero timings)' });
  return problems;
}

/**
 * A comparison receipt's sections against each other: each route against the page (WebGPU, threads) and against
 * its runtime files, the model's integrity, the lifecycle.
 * @param receipt a schema-valid comparison receipt
 */
export function checkComparisonFacts(receipt: ComparisonReceipt): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  receipt.routes.forEach((route, i) => {
    problems.push(...checkRouteAgainstPage(route, receipt.capabilities, `routes[${i}]`, ''));
    problems.push(...checkRuntimeFiles(route.runtime, `routes[${i}]`));
    if (route.valid && route.completed_ep === null)
      problems.push({
        path: `routes[${i}].completed_ep`,
        message: 'is null for a valid route (a valid route completed)',
      });
  });
  problems.push(
    ...checkIntegrity(receipt.model),
    ...checkLifecycle(receipt.lifecycle),
    ...loadedIfOk(receipt.outcome.status, receipt.model.integrity),
  );
  return problems;
}

/** Schema strings a bundled document may carry: the receipt kinds (current and retired, refused one by one later). */
const RECEIPT_SCHEMA = /^drb\.(device|generation|suite|comparison)-receipt\.v\d+$/;

/**
 * A receipt bundle against its contents, on the value exactly as parsed (its `receipts` are not zod's copies, which
 * drop keys): each item is a receipt (a bundle inside a bundle is refused with one line, never opened, and so is any
 * other artifact), none was made after the bundle, and no session-sheet text holds a URL with a query, fragment or
 * credentials, typed with or without a scheme (`sheetUrlProblems`: the sheet reaches summary.json and the review
 * template, so it is refused, not redacted).
 * @param bundle a schema-valid bundle
 * @param raw the same value as parsed (its receipts as the file holds them)
 */
export function checkBundleFacts(bundle: ReceiptBundle, raw: unknown): InvariantProblem[] {
  const problems: InvariantProblem[] = [];
  const receipts = ((raw as { receipts?: unknown } | null)?.receipts ?? []) as unknown[];
  const created = Date.parse(bundle.created_at);
  receipts.forEach((item, i) => {
    const schema = item !== null && typeof item === 'object' ? (item as { schema?: unknown }).schema : undefined;
    if (schema === RECEIPT_BUNDLE_SCHEMA) {
      problems.push({
        path: `receipts[${i}]`,
        message:
          'is a receipt bundle inside a bundle: not opened (a bundle holds receipts only; hand each bundle over as its own file)',
      });
      return;
    }
    if (typeof schema !== 'string' || !RECEIPT_SCHEMA.test(schema)) {
      problems.push({
        path: `receipts[${i}].schema`,
        message: 'is not a drb receipt schema (a bundle holds receipts only)',
      });
      return;
    }
    const at = Date.parse(String((item as { created_at?: unknown }).created_at));
    if (Number.isFinite(created) && Number.isFinite(at) && at > created + 1000) {
      problems.push({
        path: `receipts[${i}].created_at`,
        message: `is after the bundle's created_at (${bundle.created_at}): a bundle holds receipts made before it`,
      });
    }
  });
  problems.push(...sheetUrlProblems(bundle.sheet, 'sheet'));
  return problems;
}
