/**
 * The predictions artifact a suite run offers for download: the rows `drb score` reads, serialized the same way every
 * time, and checked with the scorer's own parser before it leaves the page (so a download always scores).
 */
import { parsePredictions, type PredictionRow } from '../artifacts/predictions.ts';

/**
 * Serializes prediction rows (2-space JSON with a trailing newline) and re-parses them with `parsePredictions`.
 * @param rows the rows in items-file order
 * @param fileName the name the download will carry (for the message if the check fails)
 * @returns the UTF-8 bytes to download
 * @throws ArtifactError if the rows do not satisfy the scorer's schema (an internal bug)
 */
export function encodePredictions(rows: readonly PredictionRow[], fileName: string): Uint8Array {
  const bytes = new TextEncoder().encode(`${JSON.stringify(rows, null, 2)}\n`);
  parsePredictions(bytes, fileName);
  return bytes;
}
