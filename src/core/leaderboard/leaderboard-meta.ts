/**
 * The leaderboard's governance file (`drb.leaderboard-meta.v1`), shown at the top of `drb leaderboard`'s page, as
 * the benchmark methodology asks: who funds the work, which devices were donated and by whom, who gave engineering
 * support, which models were seen before release, and why any target was run again. It also names the maintainers
 * whose stored DEVICE_PASS reviews make a row "maintainer-verified": every other row is a community row.
 */
import { z } from 'zod';
import { textLine } from '../text/bounded-text.ts';

/** The governance file's schema id. */
export const LEADERBOARD_META_SCHEMA = 'drb.leaderboard-meta.v1';

const Line = textLine(512).pipe(z.string().trim().min(1));

export const LeaderboardMeta = z.strictObject({
  schema: z.literal(LEADERBOARD_META_SCHEMA),
  /** The page's title, e.g. "Device Receipts Bench leaderboard, December 2026". */
  title: textLine(200).pipe(z.string().trim().min(1)),
  /** The benchmark and protocol version, frozen before any result was seen (e.g. "drb 0.1.0, profiles 2026-11-29.1"). */
  benchmark_version: Line,
  /** Reviewers (the `reviewer` of a drb.device-review.v1) who are maintainers: their DEVICE_PASS verifies a row. */
  maintainers: z.array(z.strictObject({ reviewer: Line, name: Line })).max(100),
  /** Who pays for the work and for what; an empty list declares that nobody does. */
  funding: z.array(z.strictObject({ funder: Line, what: Line })).max(100),
  /** Devices given to the project, and by whom. */
  donated_devices: z.array(z.strictObject({ device: Line, donor: Line })).max(500),
  /** Engineering help from model or runtime makers. */
  engineering_support: z.array(z.strictObject({ who: Line, what: Line })).max(100),
  /** Models the maintainers ran before their public release. */
  pre_release_access: z.array(z.strictObject({ model: Line, provider: Line, note: Line.nullable() })).max(100),
  /** Every rerun: which target (a key or a description), why, and when. */
  rerun_reasons: z.array(z.strictObject({ target: Line, reason: Line, date: textLine(64).nullable() })).max(1000),
  notes: textLine(2000).nullable(),
});
export type LeaderboardMeta = z.infer<typeof LeaderboardMeta>;
