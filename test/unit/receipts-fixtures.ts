/**
 * Receipts made by the page, for the receipts unit tests. test/fixtures/receipts/ holds receipts captured from the
 * real page in headless Chromium by scripts/capture-receipts.ts (see test/fixtures/receipts/README.md). Until
 * that capture exists, the schema-true builder stands in so the tests can run.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DeviceReceipt } from '../../src/core/receipt.ts';
import { buildReceipt } from './receipts-builder.ts';

/** Folder of the captured page receipts. */
export const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/receipts/', import.meta.url));

/** True once captured page receipts are committed. */
export function hasPageReceipts(): boolean {
  return existsSync(FIXTURE_DIR) && readdirSync(FIXTURE_DIR).some((n) => n.endsWith('.json'));
}

/** Every captured page receipt (fresh copies), or builder receipts when none are captured yet. */
export function pageReceipts(): DeviceReceipt[] {
  if (!hasPageReceipts()) {
    return [
      buildReceipt({ kind: 'cold' }),
      buildReceipt({ kind: 'warm' }),
      buildReceipt({ kind: 'cold', ep: 'webgpu', completedEp: 'wasm' }),
      buildReceipt({ kind: 'cold', failed: { stage: 'fetch', reason: 'HTTP 404' } }),
    ];
  }
  return readdirSync(FIXTURE_DIR)
    .filter((n) => n.endsWith('.json'))
    .sort()
    .map((n) => JSON.parse(readFileSync(join(FIXTURE_DIR, n), 'utf8')) as DeviceReceipt);
}
