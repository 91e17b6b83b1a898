/**
 * Receipts made by the page, for the receipts unit tests. test/fixtures/receipts/ holds receipts captured from the
 * real page in headless Chromium by scripts/capture-receipts.ts (see test/fixtures/receipts/README.md): device
 * receipts, plus one suite receipt and one comparison receipt.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPARISON_RECEIPT_SCHEMA, type ComparisonReceipt } from '../../src/core/comparison/comparison-receipt.ts';
import { DEVICE_RECEIPT_SCHEMA, type DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { SUITE_RECEIPT_SCHEMA, type SuiteReceipt } from '../../src/core/suite/suite-receipt.ts';

/** Folder of the captured page receipts. */
export const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/receipts/', import.meta.url));

/** True when captured page receipts are present. */
export function hasPageReceipts(): boolean {
  return existsSync(FIXTURE_DIR) && readdirSync(FIXTURE_DIR).some((n) => n.endsWith('.json'));
}

/** Every captured page artifact (any receipt kind), as fresh copies, in file-name order. */
function pageArtifacts(): Array<{ schema?: unknown }> {
  if (!hasPageReceipts())
    throw new Error(`no captured receipts in ${FIXTURE_DIR}: run node --import tsx scripts/capture-receipts.ts`);
  return readdirSync(FIXTURE_DIR)
    .filter((n) => n.endsWith('.json'))
    .sort()
    .map((n) => JSON.parse(readFileSync(join(FIXTURE_DIR, n), 'utf8')) as { schema?: unknown });
}

/** Every captured page DEVICE receipt, as fresh copies, in file-name order. */
export function pageReceipts(): DeviceReceipt[] {
  return pageArtifacts().filter((a) => a.schema === DEVICE_RECEIPT_SCHEMA) as DeviceReceipt[];
}

/** The captured suite receipt (a fresh copy); throws when the capture holds none. */
export function pageSuiteReceipt(): SuiteReceipt {
  const found = pageArtifacts().find((a) => a.schema === SUITE_RECEIPT_SCHEMA);
  if (!found) throw new Error(`no captured suite receipt in ${FIXTURE_DIR}: re-run scripts/capture-receipts.ts`);
  return found as SuiteReceipt;
}

/** The captured comparison receipt (a fresh copy); throws when the capture holds none. */
export function pageComparisonReceipt(): ComparisonReceipt {
  const found = pageArtifacts().find((a) => a.schema === COMPARISON_RECEIPT_SCHEMA);
  if (!found) throw new Error(`no captured comparison receipt in ${FIXTURE_DIR}: re-run scripts/capture-receipts.ts`);
  return found as ComparisonReceipt;
}

/**
 * The first captured receipt that matches `predicate` (a fresh copy).
 * @param predicate what the template must be
 * @param what a description for the error when none matches
 */
export function pageReceipt(predicate: (r: DeviceReceipt) => boolean, what: string): DeviceReceipt {
  const found = pageReceipts().find(predicate);
  if (!found) throw new Error(`no captured page receipt is ${what}: re-run scripts/capture-receipts.ts`);
  return found;
}
