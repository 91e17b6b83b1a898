/**
 * Temporary folders for tests that are gone when the test ends: a run leaves nothing in the system's temp folder
 * (each `npm test` used to leave about a hundred behind).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/**
 * A fresh folder in the system's temp folder, named `<prefix><random>`, removed with everything in it when the current
 * test finishes, passed or failed. Only inside a test (vitest's `onTestFinished` refuses a call outside one).
 * @param prefix the start of its name (`drb-report-`)
 */
export function testTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return dir;
}
