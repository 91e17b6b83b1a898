/**
 * Receipts made by the page, for the receipts unit tests. test/fixtures/receipts/ holds receipts captured from the
 * real page in headless Chromium by scripts/capture-receipts.ts (see test/fixtures/receipts/README.md).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DeviceReceipt } from '../../src/core/receipt.ts';

/** Folder of the captured page receipts. */
export const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/receipts/', import.meta.url));

/** True when captured page receipts are present. */
export function hasPageReceipts(): boolean {
  return existsSync(FIXTURE_DIR) && readdirSync(FIXTURE_DIR).some((n) => n.endsWith('.json'));
}

/** Every captured page receipt, as fresh copies, in file-name order. */
export function pageReceipts(): DeviceReceipt[] {
  if (!hasPageReceipts()) throw new Error(`no captured receipts in ${FIXTURE_DIR}: run node --import tsx scripts/capture-receipts.ts`);
  return readdirSync(FIXTURE_DIR)
    .filter((n) => n.endsWith('.json'))
    .sort()
    .map((n) => JSON.parse(readFileSync(join(FIXTURE_DIR, n), 'utf8')) as DeviceReceipt);
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
