/**
 * Taking back files the page handed off. A tester clears the site's data before a cold run (as the protocol's cold
 * step asks), which deletes the receipts stored on the device; the files protocol mode handed off just before carry
 * them, and the page takes them back through a file picker so the tally ("cold 3 of 5") survives the clear.
 *
 * Each file is read exactly as `drb receipts validate` reads it: strict UTF-8 and JSON (src/core/text/json-bytes.ts),
 * a receipt bundle checked by its schema and then every receipt in it checked as its own file under
 * `<file>#receipts[<n>]` exactly as the bundle's bytes were parsed (never a copy that could drop a key such as
 * `__proto__`), a loose receipt file checked as a receipt (validateReceipt: the same schema, text scan, URL scan and
 * invariants), and a receipt counting once by content (src/core/evidence/receipt-ids.ts: a copy with the same
 * content, however formatted or id-cased, is noted; other content under the same id, or another receipt of the same
 * run, refused). A file or receipt with a problem is named with its first problem in one line and taken back in no part;
 * nothing else it holds is dropped silently. Pure: the page hands in bytes.
 */
import { parseJsonBytes } from '../text/json-bytes.ts';
import { bundledReceiptName, RECEIPT_BUNDLE_SCHEMA, ReceiptBundle, type TesterSheet } from '../field/receipt-bundle.ts';
import type { Protocol } from '../field/field-protocol.ts';
import type { SessionAttestation } from '../receipt/attestation.ts';
import { duplicateMessage, ReceiptIdLedger } from '../evidence/receipt-ids.ts';
import { canonicalJson } from '../evidence/target-identity.ts';
import { validateReceipt } from './validate-receipt.ts';

/** The largest file the page takes back (as the CLI's receipt tools: far beyond any bundle of one device). */
export const MAX_HAND_OFF_FILE_BYTES = 64 * 2 ** 20;

/** One picked file: its name as the picker gave it and its bytes. */
export interface PickedFile {
  name: string;
  bytes: Uint8Array;
}

/** What the picked files give back. */
export interface TakenBack {
  /** Every valid receipt (any kind) whose id was not seen before, in file order. */
  receipts: unknown[];
  /** The session sheets, protocols and session attestations of the bundles read. */
  sheets: TesterSheet[];
  protocols: Protocol[];
  attestations: SessionAttestation[];
  /** One line per file or receipt not taken back (`<file>: <field path>: <problem>`); a file counts once per problem kind. */
  problems: string[];
  /** One line per receipt already held (by the session or an earlier file), counted once. */
  notes: string[];
}

/** Keeps a picked file's name printable and short in problem lines (it is the picker's, typed by nobody here). */
function shownName(name: string): string {
  const printable = name.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '?');
  return printable.length > 120 ? `${printable.slice(0, 119)}…` : printable || '(unnamed file)';
}

/**
 * Reads the picked files (see the module comment).
 * @param files the picked files, in the order picked
 * @param held receipts the session already holds, by id with the text of their own file (`receiptFileText`): a
 *   receipt found again is a copy, counted once (the same content) or refused (other content under the same id, or
 *   another receipt of the same run)
 */
export function takeBackFiles(files: readonly PickedFile[], held: ReadonlyMap<string, string> = new Map()): TakenBack {
  const out: TakenBack = { receipts: [], sheets: [], protocols: [], attestations: [], problems: [], notes: [] };
  const ledger = new ReceiptIdLedger();
  for (const [id, text] of held) {
    // The session's own receipts (stored by this page): their content, and their run.
    const value = JSON.parse(text) as { run?: { id?: unknown } };
    ledger.claim(
      id,
      { file: 'this device', fingerprint: canonicalJson(value) },
      typeof value.run?.id === 'string' ? value.run.id : null,
    );
  }
  /** Checks one receipt document and takes it when it is valid and new (its content fingerprinted only once valid). */
  const admit = (value: unknown, shown: string): void => {
    const result = validateReceipt(value);
    if (result.kind === 'artifact' || result.kind === 'not-a-receipt') {
      out.problems.push(
        `${shown}: schema: not a receipt the page makes (${result.kind === 'artifact' ? 'another drb artifact' : 'no receipt schema'})`,
      );
      return;
    }
    if (result.problems.length > 0 || result.receipt === null) {
      const first = result.problems[0];
      out.problems.push(
        `${shown}: ${first ? `${first.path || '(document)'}: ${first.message}` : '(document): invalid'}`,
      );
      return;
    }
    const id = result.receipt.receipt_id;
    const runId = result.kind === 'receipt' ? result.receipt.run.id : null;
    const claim = ledger.claim(id, { file: shown, fingerprint: canonicalJson(value) }, runId);
    if (claim.kind === 'identical') out.notes.push(`${shown}: ${duplicateMessage(id, claim)}`);
    else if (claim.kind === 'conflict')
      out.problems.push(
        `${shown}: ${claim.matchedBy === 'run_id' ? 'run.id' : 'receipt_id'}: ${duplicateMessage(id, claim)}`,
      );
    else out.receipts.push(value);
  };
  for (const file of files) {
    const shown = shownName(file.name);
    if (file.bytes.byteLength > MAX_HAND_OFF_FILE_BYTES) {
      out.problems.push(
        `${shown}: (document): is ${file.bytes.byteLength} bytes, larger than any drb file (at most 64 MiB); not read`,
      );
      continue;
    }
    const parsed = parseJsonBytes(file.bytes);
    if (!parsed.ok) {
      out.problems.push(`${shown}: (document): ${parsed.message}`);
      continue;
    }
    if ((parsed.value as { schema?: unknown } | null)?.schema === RECEIPT_BUNDLE_SCHEMA) {
      // The bundle's own envelope first (its sheet included), as `drb receipts validate` checks it.
      const envelope = validateReceipt(parsed.value);
      const bundle = ReceiptBundle.safeParse(parsed.value);
      if (envelope.problems.length > 0 || !bundle.success) {
        const first = envelope.problems[0];
        out.problems.push(
          `${shown}: ${first ? `${first.path || '(document)'}: ${first.message}` : '(document): not a valid receipt bundle'}`,
        );
        continue;
      }
      out.sheets.push(bundle.data.sheet);
      if (bundle.data.protocol !== null) out.protocols.push(bundle.data.protocol);
      out.attestations.push(...(bundle.data.attestations ?? []));
      // The receipts exactly as the bundle's bytes were parsed: the schema's copy could drop a key from them.
      const receipts = (parsed.value as { receipts: unknown[] }).receipts;
      for (const [index, receipt] of receipts.entries()) admit(receipt, bundledReceiptName(shown, index));
      continue;
    }
    // A loose receipt file (a single receipt's download).
    admit(parsed.value, shown);
  }
  return out;
}
