/**
 * Validation of one parsed JSON value as a receipt of any kind the page makes (device, generation, suite or
 * comparison receipt): the schema string, the zod schema (one problem per issue, with its field path), the "no
 * text" scan, URLs, and every invariant of that kind (each kind's own check function, shared with the page).
 * Pure: the CLI reads files and prints; the page and public-pass can call the same function on an in-memory receipt.
 */
import type { z } from 'zod';
import { COMPARISON_RECEIPT_SCHEMA, ComparisonReceipt } from '../comparison/comparison-receipt.ts';
import { checkComparisonReceipt } from '../comparison/comparison-invariants.ts';
import { SWEEP_RECEIPT_SCHEMA, SweepReceipt } from '../comparison/sweep-receipt.ts';
import { checkSweepReceipt } from '../comparison/sweep-invariants.ts';
import {
  checkGenerationReceipt,
  GENERATION_RECEIPT_SCHEMA,
  GenerationReceipt,
} from '../generation/generation-receipt.ts';
import { checkSuiteReceipt, SUITE_RECEIPT_SCHEMA, SuiteReceipt } from '../suite/suite-receipt.ts';
import { DEVICE_RECEIPT_SCHEMA, DeviceReceipt } from '../receipt/receipt.ts';
import { checkReceiptInvariants, checkRoute } from '../receipt/receipt-invariants.ts';
import { unredactedUrlProblems } from '../text/url-scan.ts';
import { ARTIFACT_SCHEMAS, RETIRED_ARTIFACT_SCHEMAS } from './artifact-schemas.ts';
import { findTextFields } from '../evidence/text-fields.ts';
import type { FieldProblem } from '../receipt/receipt-envelope.ts';
import { issuePath } from '../text/zod-issues.ts';
import { jsonShapeProblems } from '../text/json-shape.ts';
import { RECEIPT_BUNDLE_SCHEMA } from '../field/receipt-bundle.ts';
import { checkComparisonFacts, checkGenerationFacts, checkSuiteFacts } from './artifact-invariants.ts';

/** One thing wrong with a receipt: the field path ('' for the whole document) and what is wrong. */
export type ReceiptProblem = FieldProblem;

/**
 * The verdict on one JSON value:
 * - `receipt`: it claims to be a device receipt; `receipt` is set only when it passed every check;
 * - `generation-receipt`: it claims to be a generation receipt (`drb.generation-receipt.v2`, LLM generation runs);
 * - `suite-receipt`: a suite run's receipt (`drb.suite-receipt.v2`);
 * - `comparison-receipt`: a side-by-side route comparison's receipt (`drb.comparison-receipt.v2`; a v1 receipt is
 *   refused with one line: it came from an earlier page version);
 * - `sweep-receipt`: a crossover sweep's receipt (`drb.sweep-receipt.v1`);
 * - `not-a-receipt`: its `schema` string is something else (or missing), so it is not judged as a receipt.
 */
export type ReceiptValidation =
  | { kind: 'receipt'; receipt: DeviceReceipt | null; problems: ReceiptProblem[] }
  | { kind: 'generation-receipt'; receipt: GenerationReceipt | null; problems: ReceiptProblem[] }
  | { kind: 'suite-receipt'; receipt: SuiteReceipt | null; problems: ReceiptProblem[] }
  | { kind: 'comparison-receipt'; receipt: ComparisonReceipt | null; problems: ReceiptProblem[] }
  | { kind: 'sweep-receipt'; receipt: SweepReceipt | null; problems: ReceiptProblem[] }
  | { kind: 'artifact'; schema: string; problems: ReceiptProblem[] }
  | { kind: 'not-a-receipt'; schema: string | null; problems: ReceiptProblem[] };

function textProblems(value: unknown, factPaths?: ReadonlySet<string>): ReceiptProblem[] {
  return findTextFields(value, '', factPaths).map((hit) => ({
    path: hit.path,
    message: 'looks like a text field: receipts never hold input, output or typed text',
  }));
}

function schemaProblems(error: z.ZodError, already: readonly ReceiptProblem[]): ReceiptProblem[] {
  const seen = new Set(already.map((p) => p.path));
  // The text scan already explained these unknown keys; do not report them twice.
  return zodProblems(error).filter((p) => !seen.has(p.path));
}

/**
 * Checks a generation receipt: schema, no text, the generation rules (summary recomputed from samples, plan order,
 * honest outcome), route honesty and URLs.
 */
function validateGeneration(value: unknown): ReceiptValidation {
  const problems = textProblems(value);
  const parsed = GenerationReceipt.safeParse(value);
  if (!parsed.success) {
    problems.push(...schemaProblems(parsed.error, problems));
    return { kind: 'generation-receipt', receipt: null, problems };
  }
  problems.push(...checkGenerationReceipt(parsed.data));
  // Route honesty is the device receipt's rule; a generation receipt carries the same route object.
  problems.push(...checkRoute({ route: parsed.data.route, model: parsed.data.model } as unknown as DeviceReceipt));
  problems.push(...checkGenerationFacts(parsed.data));
  // The URL scan reads the value as parsed, never zod's copy (a copy can drop keys).
  problems.push(...unredactedUrlProblems(value));
  return { kind: 'generation-receipt', receipt: problems.length === 0 ? parsed.data : null, problems };
}

/** Suite receipt fields with a text-like name that hold file facts (name, bytes, SHA-256, rows), never text. */
const SUITE_FACT_PATHS: ReadonlySet<string> = new Set(['suite.candidates']);

/**
 * Checks a suite receipt: schema, no text, the suite rules (row statistics recomputed from the samples, row counts
 * that add up, an ok run that finished every row with predictions, a failed run that says why), route honesty, URLs.
 */
function validateSuite(value: unknown): ReceiptValidation {
  const problems = textProblems(value, SUITE_FACT_PATHS);
  const parsed = SuiteReceipt.safeParse(value);
  if (!parsed.success) {
    problems.push(...schemaProblems(parsed.error, problems));
    return { kind: 'suite-receipt', receipt: null, problems };
  }
  problems.push(...checkSuiteReceipt(parsed.data));
  // Same route object and model info as a device receipt: the same route-honesty rule.
  problems.push(...checkRoute({ route: parsed.data.route, model: parsed.data.model } as unknown as DeviceReceipt));
  problems.push(...checkSuiteFacts(parsed.data));
  problems.push(...unredactedUrlProblems(value));
  return { kind: 'suite-receipt', receipt: problems.length === 0 ? parsed.data : null, problems };
}

/**
 * Checks a comparison receipt: schema, no text, the comparison rules (schedule, per-route statistics, invalid routes
 * unranked and without ratios, ranks in median order, ok only with a valid baseline), URLs.
 */
function validateComparison(value: unknown): ReceiptValidation {
  const problems = textProblems(value);
  const parsed = ComparisonReceipt.safeParse(value);
  if (!parsed.success) {
    problems.push(...schemaProblems(parsed.error, problems));
    return { kind: 'comparison-receipt', receipt: null, problems };
  }
  problems.push(...checkComparisonReceipt(parsed.data));
  problems.push(...checkComparisonFacts(parsed.data));
  problems.push(...unredactedUrlProblems(value));
  return { kind: 'comparison-receipt', receipt: problems.length === 0 ? parsed.data : null, problems };
}

/**
 * Checks a sweep receipt: schema, no text, the sweep rules (schedules, stopping traces, statistics, validity, ratios
 * and intervals, the crossover recomputed from the samples), URLs.
 */
function validateSweep(value: unknown): ReceiptValidation {
  const problems = textProblems(value);
  const parsed = SweepReceipt.safeParse(value);
  if (!parsed.success) {
    problems.push(...schemaProblems(parsed.error, problems));
    return { kind: 'sweep-receipt', receipt: null, problems };
  }
  problems.push(...checkSweepReceipt(parsed.data));
  problems.push(...unredactedUrlProblems(parsed.data));
  return { kind: 'sweep-receipt', receipt: problems.length === 0 ? parsed.data : null, problems };
}

/**
 * Schema strings of receipt versions no current page writes, with the kind they were. Such a receipt is refused with
 * one line instead of being read as something it is not (a v1 comparison receipt has no headline intervals).
 */
const RETIRED_RECEIPT_SCHEMAS: ReadonlyMap<
  string,
  { kind: 'receipt' | 'generation-receipt' | 'suite-receipt' | 'comparison-receipt'; current: string }
> = new Map([
  ['drb.comparison-receipt.v1', { kind: 'comparison-receipt', current: COMPARISON_RECEIPT_SCHEMA }],
  ['drb.device-receipt.v1', { kind: 'receipt', current: DEVICE_RECEIPT_SCHEMA }],
  ['drb.generation-receipt.v1', { kind: 'generation-receipt', current: GENERATION_RECEIPT_SCHEMA }],
  ['drb.suite-receipt.v1', { kind: 'suite-receipt', current: SUITE_RECEIPT_SCHEMA }],
]);

function zodProblems(error: z.ZodError): ReceiptProblem[] {
  const problems: ReceiptProblem[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      // One line per unknown key, so each names its own field path.
      for (const key of issue.keys) {
        problems.push({
          path: issuePath([...issue.path, key]),
          message: 'is not a receipt field (receipts are strict)',
        });
      }
    } else {
      problems.push({ path: issuePath(issue.path), message: issue.message });
    }
  }
  return problems;
}

/**
 * Checks a drb artifact that is not a receipt (a summary, review, public-pass record, report, manifest ...) against
 * its own schema: one problem per issue, with its field path.
 */
function validateArtifact(schema: string, value: unknown): ReceiptValidation {
  const kind = ARTIFACT_SCHEMAS.get(schema)!;
  const parsed = kind.schema.safeParse(value);
  const problems = parsed.success
    ? (kind.check?.(parsed.data as never, value) ?? [])
    : zodProblems(parsed.error).map((p) =>
        p.message === 'is not a receipt field (receipts are strict)'
          ? { ...p, message: `is not a field of ${schema}` }
          : p,
      );
  return { kind: 'artifact', schema, problems };
}

/**
 * Checks `value` (parsed JSON) as a device receipt.
 * @param value the parsed JSON document
 * @returns the verdict; for a receipt, `problems` is empty exactly when `receipt` is set
 */
export function validateReceipt(value: unknown): ReceiptValidation {
  const result = shapeChecked(value);
  // One line per problem: two checks that find the same thing (the raw URL scan and a kind's own) say it once.
  const seen = new Set<string>();
  const problems = result.problems
    .map((p) => ({ ...p, path: shownPath(p.path) }))
    .filter((p) => {
      const key = `${p.path}\u0000${p.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  return { ...result, problems } as ReceiptValidation;
}

/** The kind a value claims by its `schema` string, for a verdict given before it is read any further. */
function claimedKind(schema: unknown): ReceiptValidation['kind'] {
  if (schema === DEVICE_RECEIPT_SCHEMA) return 'receipt';
  if (schema === GENERATION_RECEIPT_SCHEMA) return 'generation-receipt';
  if (schema === SUITE_RECEIPT_SCHEMA) return 'suite-receipt';
  if (schema === COMPARISON_RECEIPT_SCHEMA) return 'comparison-receipt';
  if (typeof schema === 'string' && RETIRED_RECEIPT_SCHEMAS.has(schema))
    return RETIRED_RECEIPT_SCHEMAS.get(schema)!.kind;
  if (typeof schema === 'string' && (ARTIFACT_SCHEMAS.has(schema) || RETIRED_ARTIFACT_SCHEMAS.has(schema)))
    return 'artifact';
  return 'not-a-receipt';
}

// A bundle's receipts are documents of their own (read and checked one by one): its own scan leaves them out.
const BUNDLED_RECEIPT = /^receipts\[\d+\]$/;

/**
 * Refuses a value whose shape no drb artifact has before anything else reads it: a key that a copy of the object
 * would drop (`__proto__`), or nesting deeper than any artifact (a recursive reader would run out of stack).
 */
function shapeChecked(value: unknown): ReceiptValidation {
  const schema =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>).schema
      : undefined;
  const skip = schema === RECEIPT_BUNDLE_SCHEMA ? (path: string) => BUNDLED_RECEIPT.test(path) : undefined;
  const shape = jsonShapeProblems(value, skip);
  if (shape.length === 0) return validateValue(value);
  const kind = claimedKind(schema);
  if (kind === 'artifact') return { kind, schema: schema as string, problems: shape };
  if (kind === 'not-a-receipt') return { kind, schema: null, problems: shape };
  return { kind, receipt: null, problems: shape } as ReceiptValidation;
}

// A key that is not a plain identifier is the file's own content (zod quotes it as ["..."]): it is not repeated in
// a problem line or a committed summary, and a path is cut to a bounded length.
const PLAIN_KEY = /^[A-Za-z0-9_$.-]{1,64}$/;
const MAX_PATH_CHARS = 300;

function shownPath(path: string): string {
  const keys = path.replace(/\["(?:[^"\\]|\\.)*"\]/g, (segment) => {
    let key: unknown;
    try {
      key = JSON.parse(segment.slice(1, -1));
    } catch {
      key = null;
    }
    return typeof key === 'string' && PLAIN_KEY.test(key) ? segment : '[(a key not shown)]';
  });
  return keys.length <= MAX_PATH_CHARS ? keys : `${keys.slice(0, MAX_PATH_CHARS - 1)}…`;
}

function validateValue(value: unknown): ReceiptValidation {
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  const schema = isObject ? (value as Record<string, unknown>).schema : undefined;
  if (schema === GENERATION_RECEIPT_SCHEMA) return validateGeneration(value);
  if (schema === SUITE_RECEIPT_SCHEMA) return validateSuite(value);
  if (schema === COMPARISON_RECEIPT_SCHEMA) return validateComparison(value);
  if (schema === SWEEP_RECEIPT_SCHEMA) return validateSweep(value);
  const retired = typeof schema === 'string' ? RETIRED_RECEIPT_SCHEMAS.get(schema) : undefined;
  if (retired !== undefined) {
    return {
      kind: retired.kind,
      receipt: null,
      problems: [
        {
          path: 'schema',
          message: `is ${schema}, from an earlier page version (this tool reads ${retired.current}); re-run on the current page`,
        },
      ],
    };
  }
  if (typeof schema === 'string' && ARTIFACT_SCHEMAS.has(schema)) return validateArtifact(schema, value);
  const replacedBy = typeof schema === 'string' ? RETIRED_ARTIFACT_SCHEMAS.get(schema) : undefined;
  if (replacedBy !== undefined) {
    return {
      kind: 'artifact',
      schema: schema as string,
      problems: [
        {
          path: 'schema',
          message: `is ${schema}, from an earlier drb version (this tool reads ${replacedBy}); make it again`,
        },
      ],
    };
  }
  if (schema !== DEVICE_RECEIPT_SCHEMA) {
    // Named only when it looks like a schema id: the string is the file's own content.
    const named =
      typeof schema === 'string'
        ? /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/.test(schema)
          ? schema
          : '(not a schema id)'
        : null;
    return {
      kind: 'not-a-receipt',
      schema: named,
      problems: [
        {
          path: 'schema',
          message:
            named === null
              ? `not a drb artifact (no "schema" string; a device receipt has "${DEVICE_RECEIPT_SCHEMA}")`
              : `not a drb artifact this tool knows (schema "${named}")`,
        },
      ],
    };
  }
  const problems = textProblems(value);
  const parsed = DeviceReceipt.safeParse(value);
  if (!parsed.success) {
    problems.push(...schemaProblems(parsed.error, problems));
    return { kind: 'receipt', receipt: null, problems };
  }
  // The invariants walk every string for unredacted URLs already (checkReceiptInvariants): a second walk here
  // reported each such URL twice and cost a tenth of `drb receipts validate`.
  problems.push(...checkReceiptInvariants(parsed.data));
  return { kind: 'receipt', receipt: problems.length === 0 ? parsed.data : null, problems };
}
