/**
 * A shipped suite's manifest (`public/suites/<id>/suite.json`, schema `drb.suite-manifest.v1`): which items and
 * candidates files it pairs, their format, their pinned SHA-256 (the page refuses a shipped suite whose bytes
 * differ), and the data licence.
 */
import { z } from 'zod';
import { detailText } from '../text/bounded-text.ts';
import { ItemFormat } from '../artifacts/items.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';

/** The schema string inside every suite manifest. */
export const SUITE_MANIFEST_SCHEMA = 'drb.suite-manifest.v1';

const PinnedFile = z.strictObject({
  /** File name inside the suite folder. */
  path: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]*\.json$/, 'expected a plain .json file name')
    .max(256),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(SHA256_PATTERN, 'expected a lowercase hex SHA-256'),
});

/** A shipped suite: its two files (pinned), their format and the data licence. */
export const SuiteManifest = z.strictObject({
  schema: z.literal(SUITE_MANIFEST_SCHEMA),
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,79}$/),
  label: detailText(4096).min(1),
  format: ItemFormat,
  items: PinnedFile,
  candidates: PinnedFile,
  /** Licence of the data in the files (the demo suite's rows are AJIMEE-Bench rows: CC BY-SA 3.0). */
  licence: detailText(4096).min(1),
  /** How the files were made, in one or two sentences (no row text). */
  notes: detailText(4096),
});
export type SuiteManifest = z.infer<typeof SuiteManifest>;

/** The suite the page runs when the `suite` parameter is absent. */
export const DEMO_SUITE_ID = 'ajimee-demo-24';
