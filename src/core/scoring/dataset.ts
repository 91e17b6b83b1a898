import type { ItemFormat } from '../artifacts/items.ts';
import type { DatasetInfo } from './score-report.ts';
import { hasUnsafeTerminalChar } from '../text/terminal-text.ts';

/**
 * SHA-256 of the vendored AJIMEE-Bench JWTD_v2/v1 `evaluation_items.json` (data/ajimee-jwtd-v2-v1/, 132,231 bytes,
 * upstream commit 06753ff9d9195b83bd1195bf6766c7b51a5ba60e). Only item bytes with exactly this hash get the
 * official name, revision and licence.
 */
export const AJIMEE_PINNED_SHA256 = 'e9eb668fd6aa14b1e26436f429b5550108af0a1dfd443b8cea0bcb3ab3028fca';

/** The official dataset identity attached to a pinned AJIMEE match. */
export const AJIMEE_OFFICIAL = {
  name: 'AJIMEE-Bench JWTD_v2/v1 evaluation_items.json',
  revision: 'ensan-hcl/AJIMEE-Bench@06753ff9d9195b83bd1195bf6766c7b51a5ba60e',
  license: 'CC BY-SA 3.0',
} as const;

/** A --dataset-* flag that contradicts the pinned AJIMEE identity. */
export class DatasetFlagError extends Error {
  override name = 'DatasetFlagError';
}

/** What the user declared with --dataset-name / --dataset-revision / --dataset-license (undefined = not given). */
export interface DeclaredDataset {
  name?: string;
  revision?: string;
  license?: string;
}

/**
 * Decides the report's dataset identity.
 * @param format the items format used
 * @param itemsSha256 SHA-256 of the raw item bytes
 * @param declared the --dataset-* flags
 * @throws DatasetFlagError when a flag holds a control or bidirectional character, or when the items are the pinned
 *   AJIMEE file and a flag names a different identity (we never silently drop what the user typed, and never attach
 *   the official identity to anything else)
 */
export function resolveDataset(format: ItemFormat, itemsSha256: string, declared: DeclaredDataset): DatasetInfo {
  // What the user typed goes into the report as it is: never a character the report's own schema refuses.
  for (const key of ['name', 'revision', 'license'] as const) {
    const value = declared[key];
    if (value !== undefined && (hasUnsafeTerminalChar(value) || value.length > 4096)) {
      throw new DatasetFlagError(
        `--dataset-${key}: holds a control or bidirectional character, or is over 4096 characters`,
      );
    }
  }
  if (format === 'ajimee' && itemsSha256 === AJIMEE_PINNED_SHA256) {
    for (const key of ['name', 'revision', 'license'] as const) {
      const value = declared[key];
      if (value !== undefined && value !== AJIMEE_OFFICIAL[key]) {
        throw new DatasetFlagError(
          `--dataset-${key}: ${JSON.stringify(value)} contradicts the pinned AJIMEE value ${JSON.stringify(AJIMEE_OFFICIAL[key])} (omit the flag; the official identity is attached automatically)`,
        );
      }
    }
    return { ...AJIMEE_OFFICIAL, format, verification: 'pinned-sha256-match', pinned_sha256: AJIMEE_PINNED_SHA256 };
  }
  return {
    name: declared.name ?? null,
    revision: declared.revision ?? null,
    license: declared.license ?? null,
    format,
    verification: format === 'ajimee' ? 'compatible-unverified' : 'declared',
    pinned_sha256: format === 'ajimee' ? AJIMEE_PINNED_SHA256 : null,
  };
}
