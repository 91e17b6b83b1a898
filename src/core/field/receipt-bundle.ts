/**
 * The receipt bundle (`drb.receipt-bundle.v1`): one file a tester hands back after the device procedure. It holds the
 * session's receipts exactly as the page made them, and the session sheet the protocol asks to keep outside every
 * receipt (device model, RAM, OS build, browser and version, network, battery and thermal state, the public page's
 * revision), each a short field the tester fills in and sees in full before export.
 *
 * The receipt tools read a bundle as the receipts it holds (src/cli/receipt-files.ts): each receipt is checked as if
 * it were its own file, under the name `<bundle file>#receipts[<n>]`, and its bytes for the duplicate rule are those
 * the page's Download button gives for it (`receiptFileText`), so a receipt present both loose and in a bundle is the
 * same receipt and counts once.
 */
import { z } from 'zod';
import { textLine } from '../text/bounded-text.ts';
import { containsTypedUrlSecret } from '../text/redact.ts';
import { Protocol } from './field-protocol.ts';
import { AppInfo, IsoTime } from '../receipt/receipt.ts';
import { SessionAttestation } from '../receipt/attestation.ts';
import { artifactFileName } from '../receipt/receipt-envelope.ts';

export const RECEIPT_BUNDLE_SCHEMA = 'drb.receipt-bundle.v1';

/** The most receipts one bundle holds (the procedure needs 25 per target; a long session stays far below this). */
export const MAX_BUNDLE_RECEIPTS = 5000;

/** What the tester fills in: each a short structured field with a length limit (empty = not filled in). */
export const TesterSheet = z.strictObject({
  /** e.g. "iPhone 15 Pro (A3102)". */
  device_model: textLine(128),
  ram_gb: z.number().positive().max(1024).nullable(),
  /** e.g. "iOS 26.1 (23B85)". */
  os_build: textLine(64),
  browser: textLine(64),
  browser_version: textLine(64),
  /** e.g. "Wi-Fi, 5 GHz" or "5G". */
  network: textLine(128),
  battery_percent: z.number().int().min(0).max(100).nullable(),
  charging: z.boolean().nullable(),
  thermal_state: z.enum(['nominal', 'fair', 'serious', 'critical', 'unknown']),
  /** The exact revision of the public page the device opened (commit or hosting platform revision). */
  public_revision: textLine(64),
  /** Anything else the tester noticed (a reload, a warning), briefly. */
  notes: textLine(1000),
});
export type TesterSheet = z.infer<typeof TesterSheet>;

/** The session sheet's free-text fields: what a tester types, each checked for URLs that carry secrets. */
export const SHEET_TEXT_FIELDS = [
  'device_model',
  'os_build',
  'browser',
  'browser_version',
  'network',
  'public_revision',
  'notes',
] as const;

/**
 * The sheet's free-text fields that hold a URL with a query, a fragment or credentials, typed with a scheme or
 * without one (`www.example.com/?token=abc`, `user:pass@host.example/x`): one problem per field. The sheet reaches
 * summary.json and the review template, so it is refused, never redacted; a bundle and a summary holding sheets are
 * both checked with it.
 * @param sheet a schema-valid sheet
 * @param path the sheet's own field path (`sheet`, `targets[0].session_sheets[1].sheet`)
 */
export function sheetUrlProblems(sheet: TesterSheet, path: string): Array<{ path: string; message: string }> {
  return SHEET_TEXT_FIELDS.filter((field) => containsTypedUrlSecret(sheet[field])).map((field) => ({
    path: `${path}.${field}`,
    message:
      'holds a URL with a query, fragment or credentials, with or without https:// (the sheet reaches summary.json and the review template; remove it and export again)',
  }));
}

/** A sheet with nothing filled in. */
export const EMPTY_TESTER_SHEET: TesterSheet = Object.freeze({
  device_model: '',
  ram_gb: null,
  os_build: '',
  browser: '',
  browser_version: '',
  network: '',
  battery_percent: null,
  charging: null,
  thermal_state: 'unknown',
  public_revision: '',
  notes: '',
});

export const ReceiptBundle = z.strictObject({
  schema: z.literal(RECEIPT_BUNDLE_SCHEMA),
  created_at: IsoTime,
  /** The page build that exported the bundle. */
  app: AppInfo,
  /** The protocol the session followed, as the page read it; null when the session followed none. */
  protocol: Protocol.nullable(),
  sheet: TesterSheet,
  /** What the tester stated about the whole session (whether they saw memory pressure), each an explicit tap in
   *  protocol mode, kept apart from everything measured; absent in bundles made before the page asked. */
  attestations: z.array(SessionAttestation).max(64).optional(),
  /** The receipts as the page made them (any receipt kind), oldest first; each is validated as its own file. */
  receipts: z.array(z.record(z.string().max(128), z.unknown())).max(MAX_BUNDLE_RECEIPTS),
});
export type ReceiptBundle = z.infer<typeof ReceiptBundle>;

/**
 * The file name a bundle is offered under: named for the protocol's target in protocol mode, else `session-any`.
 * @param protocol the field protocol followed (null: none, as in the developer panels)
 * @param createdAt when the bundle was made (ISO)
 */
export function bundleFileName(protocol: Pick<Protocol, 'model' | 'ep' | 'threads'> | null, createdAt: string): string {
  const route = protocol ? `${protocol.ep}${protocol.threads === null ? '' : `-${protocol.threads}`}` : 'any';
  return artifactFileName({ model: protocol?.model ?? 'session', route, kind: 'bundle', createdAt });
}

/**
 * The text of a receipt's own file, exactly as the page's Download button writes it (2-space JSON and a newline):
 * the bytes a bundled receipt is fingerprinted by, so a loose copy of the same download is recognised as a copy.
 * @param receipt the receipt object
 */
export function receiptFileText(receipt: unknown): string {
  return `${JSON.stringify(receipt, null, 2)}\n`;
}

/**
 * The name a bundled receipt is shown under in problem lines and summaries.
 * @param bundleFile the bundle's file as shown
 * @param index the receipt's index in `receipts`
 */
export function bundledReceiptName(bundleFile: string, index: number): string {
  return `${bundleFile}#receipts[${index}]`;
}
