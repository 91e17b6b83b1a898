/**
 * Validation of one parsed JSON value as a device receipt: the schema string, the zod schema (one problem per
 * issue, with its field path), the "no text" scan and every receipt invariant. Pure: the CLI reads files and
 * prints; the page and public-pass can call the same function on an in-memory receipt.
 */
import type { z } from 'zod';
import { DEVICE_RECEIPT_SCHEMA, DeviceReceipt } from '../receipt.ts';
import { checkReceiptInvariants } from '../receipt-invariants.ts';
import { findTextFields } from './text-fields.ts';

/** One thing wrong with a receipt: the field path ('' for the whole document) and what is wrong. */
export interface ReceiptProblem {
  path: string;
  message: string;
}

/**
 * The verdict on one JSON value:
 * - `receipt`: it claims to be a device receipt; `receipt` is set only when it passed every check;
 * - `not-a-receipt`: its `schema` string is something else (or missing), so it is not judged as a receipt.
 */
export type ReceiptValidation =
  | { kind: 'receipt'; receipt: DeviceReceipt | null; problems: ReceiptProblem[] }
  | { kind: 'not-a-receipt'; schema: string | null; problems: ReceiptProblem[] };

/** Dot/bracket notation for a zod issue path (`route.attempts[0].ep`). */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

function zodProblems(error: z.ZodError): ReceiptProblem[] {
  const problems: ReceiptProblem[] = [];
  for (const issue of error.issues) {
    const base = formatIssuePath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      // One line per unknown key, so each names its own field path.
      for (const key of issue.keys) {
        problems.push({ path: base ? `${base}.${key}` : key, message: 'is not a receipt field (receipts are strict)' });
      }
    } else {
      problems.push({ path: base, message: issue.message });
    }
  }
  return problems;
}

/**
 * Checks `value` (parsed JSON) as a device receipt.
 * @param value the parsed JSON document
 * @returns the verdict; for a receipt, `problems` is empty exactly when `receipt` is set
 */
export function validateReceipt(value: unknown): ReceiptValidation {
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  const schema = isObject ? (value as Record<string, unknown>).schema : undefined;
  if (schema !== DEVICE_RECEIPT_SCHEMA) {
    const named = typeof schema === 'string' ? schema : null;
    return {
      kind: 'not-a-receipt',
      schema: named,
      problems: [
        {
          path: 'schema',
          message: named === null ? `not a device receipt (no "schema" string; expected "${DEVICE_RECEIPT_SCHEMA}")` : `not a device receipt (schema "${named}")`,
        },
      ],
    };
  }
  const problems: ReceiptProblem[] = findTextFields(value).map((hit) => ({
    path: hit.path,
    message: 'looks like a text field: receipts never hold input, output or typed text',
  }));
  const parsed = DeviceReceipt.safeParse(value);
  if (!parsed.success) {
    const textPaths = new Set(problems.map((p) => p.path));
    // The text scan already explained these unknown keys; do not report them twice.
    for (const problem of zodProblems(parsed.error)) if (!textPaths.has(problem.path)) problems.push(problem);
    return { kind: 'receipt', receipt: null, problems };
  }
  problems.push(...checkReceiptInvariants(parsed.data));
  return { kind: 'receipt', receipt: problems.length === 0 ? parsed.data : null, problems };
}
