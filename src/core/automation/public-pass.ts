/**
 * The public-pass record (`drb.public-pass.v2`): what `drb public-pass` saw when it opened a deployed page
 * anonymously and ran cold and warm through the automation contract, in a browser it started with a fresh profile
 * (the chromium and webkit lanes) or one it drove through an endpoint (the webdriver and cdp lanes).
 *
 * Three kinds of fact are kept apart: what the page measured (its receipts, the viewport it saw: `window.measured`),
 * what the driver states because it did it (`driver_statement`: a new process and an empty profile only when the
 * lane started the browser itself), and what a person attests (nothing: a public pass has no person in it).
 * `drb.public-pass.v1` records (written before the remote lanes) still validate as `PublicPassRecordV1`.
 *
 * PUBLIC_PASS means "this revision, fetched anonymously, ran the public flow and produced valid receipts in this
 * browser". It never implies DEVICE_PASS (and a WebKitGTK pass is not a Safari pass): `device_pass_implied` is
 * always false so no reader can mistake one for the other.
 */
import { z } from 'zod';
import { boundDetail, boundLine, Detail, FileLabel, OriginPathUrl, textLine, Token } from '../text/bounded-text.ts';
import { firstIssueLine } from '../text/zod-issues.ts';
import { SHA256_PATTERN } from '../bytes/sha256.ts';
import { DriverStatement } from './driver-statement.ts';
import { RecordedCapabilities } from './webdriver-capabilities.ts';

/** The schema id of the records `drb public-pass` writes. */
export const PUBLIC_PASS_SCHEMA = 'drb.public-pass.v2';
/** The schema id of records written before the remote lanes (still read and validated). */
export const PUBLIC_PASS_V1_SCHEMA = 'drb.public-pass.v1';

const Sha256 = z.string().regex(SHA256_PATTERN, 'expected a lowercase hex SHA-256');
const IsoTime = z.string().datetime({ offset: true });

/** The browsers a public pass can start itself. */
export const PassBrowser = z.enum(['chromium', 'webkit']);
export type PassBrowser = z.infer<typeof PassBrowser>;

/** How a pass reaches its browser: one it starts (`chromium`, `webkit`) or an endpoint (`webdriver`, `cdp`). */
export const PassLane = z.enum(['chromium', 'webkit', 'webdriver', 'cdp']);
export type PassLane = z.infer<typeof PassLane>;

/** A width and height in CSS pixels. */
const CssSize = z.strictObject({ width: z.number().int().positive(), height: z.number().int().positive() });

/** The window: the viewport asked for, how the lane set it, and what the page measured. */
export const PassWindow = z.strictObject({
  /** The viewport `--window` asked for (null: the lane's default). */
  requested: CssSize.nullable(),
  /** How the lane set it (`playwright viewport`, `W3C Set Window Rect`, ...), null when not asked. */
  set_by: textLine(256).nullable(),
  /** Why the size could not be set (the endpoint refused Set Window Rect, ...); null when it was or was not asked. */
  problem: Detail.nullable(),
  /** The page's own measurement (`innerWidth`, `innerHeight`, `devicePixelRatio`), null when the page never
   *  answered. */
  measured: z
    .strictObject({
      inner_width: z.number().int().nonnegative(),
      inner_height: z.number().int().nonnegative(),
      device_pixel_ratio: z.number().positive().finite(),
    })
    .nullable(),
});
export type PassWindow = z.infer<typeof PassWindow>;

/** One receipt the pass saved: its file name in the output folder, hash, and what it says about itself. */
const PassReceiptFileV1 = z.strictObject({
  file: FileLabel.pipe(z.string().min(1)),
  sha256: Sha256,
  bytes: z.number().int().positive(),
  run_kind: z.enum(['cold', 'warm']).nullable(),
  outcome: z.enum(['ok', 'failed']).nullable(),
  /** The receipt's own failure reason (null for an ok run). */
  reason: Detail.nullable(),
  /** The app commit the receipt records (must match the revision the page reports). */
  app_commit: textLine(256).nullable(),
  /** Schema and invariant problems (`<field path>: <problem>`); empty when the receipt is valid. */
  problems: z.array(Detail),
});

/** One receipt of a v2 record: as in v1, plus the page's own cold measurement beside the driver's statement. */
export const PassReceiptFile = PassReceiptFileV1.extend({
  /** The receipt's `run.cold_from_cache` (what the page measured: false when every file crossed the network). */
  cold_from_cache: z.boolean().nullable(),
});
export type PassReceiptFile = z.infer<typeof PassReceiptFile>;

/** The rules both versions share: PUBLIC_PASS exactly when ok, a reason exactly when failed, an ok pass's evidence. */
function outcomeRules(
  record: PassEvidence & Pick<PublicPassRecord, 'evidence_state' | 'outcome'>,
  ctx: z.RefinementCtx,
) {
  const ok = record.outcome.status === 'ok';
  if (ok !== (record.evidence_state === 'PUBLIC_PASS')) {
    ctx.addIssue({
      code: 'custom',
      path: ['evidence_state'],
      message: 'is PUBLIC_PASS exactly when the outcome is ok',
    });
  }
  if (ok && record.outcome.reason !== null) {
    ctx.addIssue({ code: 'custom', path: ['outcome', 'reason'], message: 'an ok pass carries no failure reason' });
  }
  if (!ok && (record.outcome.reason === null || record.outcome.reason.trim() === '')) {
    ctx.addIssue({ code: 'custom', path: ['outcome', 'reason'], message: 'a failed pass must say why' });
  }
  if (ok) {
    for (const problem of passProblems(record))
      ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
  }
}

/** The fields every version of the public-pass record begins with, after its `schema`. */
const PASS_HEAD = {
  /** `PUBLIC_PASS` only when `outcome.status` is ok; null otherwise. */
  evidence_state: z.literal('PUBLIC_PASS').nullable(),
  device_pass_implied: z.literal(false),
  /** The page URL as origin + path (no query, fragment or credentials). */
  url: OriginPathUrl,
  /** The revision the page reports about itself (null when the page never reported one). */
  revision: z.strictObject({ app_version: textLine(256).nullable(), commit: textLine(256).nullable() }),
  started_at: IsoTime,
  finished_at: IsoTime,
  duration_ms: z.number().finite().nonnegative(),
};

/** A record written before the remote lanes (`drb.public-pass.v1`). */
export const PublicPassRecordV1 = z
  .strictObject({
    schema: z.literal(PUBLIC_PASS_V1_SCHEMA),
    ...PASS_HEAD,
    browser: z.strictObject({
      name: PassBrowser,
      /** The version the browser reports (playwright's version() or the WebDriver session's browserVersion). */
      version: textLine(256).nullable(),
      user_agent: textLine(1024).nullable(),
      /** Always true: every pass starts a new profile / WebDriver session with no cookies or storage. */
      fresh_profile: z.literal(true),
    }),
    /** The automation contract parameters the pass used (not the user's URL query, which is dropped). */
    run_params: z.record(Token, textLine(1024)),
    /** What the page ended in: the automation contract's `drbState`, or `timeout` when it never ended. */
    page_state: z.enum(['done', 'failed', 'timeout', 'not-loaded']),
    receipts: z.array(PassReceiptFileV1),
    /** The receipts summary the pass wrote beside the receipts, when it could (null otherwise). */
    summary: z.strictObject({ file: FileLabel, sha256: Sha256 }).nullable(),
    outcome: z.strictObject({ status: z.enum(['ok', 'failed']), reason: Detail.nullable() }),
  })
  .superRefine((record, ctx) => outcomeRules(record, ctx));
export type PublicPassRecordV1 = z.infer<typeof PublicPassRecordV1>;

/** The record `drb public-pass` writes (`drb.public-pass.v2`). */
export const PublicPassRecord = z
  .strictObject({
    schema: z.literal(PUBLIC_PASS_SCHEMA),
    ...PASS_HEAD,
    /** How the pass reached its browser. */
    lane: PassLane,
    /** The endpoint of a webdriver or cdp lane, origin + path (a URL with credentials is refused); null otherwise. */
    endpoint: OriginPathUrl.nullable(),
    browser: z.strictObject({
      /** `chromium` or `webkit` for a browser the pass started; what the endpoint reports (`browserName`, or the
       *  CDP product) for the remote lanes. */
      name: textLine(128).nullable(),
      /** The version the browser reports (playwright's version() or the WebDriver session's browserVersion). */
      version: textLine(256).nullable(),
      user_agent: textLine(1024).nullable(),
    }),
    /** The webdriver lane's capabilities as recorded (describing values only; see webdriver-capabilities.ts). */
    capabilities: RecordedCapabilities.nullable(),
    window: PassWindow,
    /** What the driver states about the browser (see driver-statement.ts), kept apart from what the page measured. */
    driver_statement: DriverStatement,
    /** The automation contract parameters the pass used (not the user's URL query, which is dropped). */
    run_params: z.record(Token, textLine(1024)),
    /** What the page ended in: the automation contract's `drbState`, `timeout` when it never ended, `lost` when the
     *  browser or its endpoint went away before it did. */
    page_state: z.enum(['done', 'failed', 'timeout', 'not-loaded', 'lost']),
    receipts: z.array(PassReceiptFile),
    /** The receipts summary the pass wrote beside the receipts, when it could (null otherwise). */
    summary: z.strictObject({ file: FileLabel, sha256: Sha256 }).nullable(),
    outcome: z.strictObject({ status: z.enum(['ok', 'failed']), reason: Detail.nullable() }),
  })
  .superRefine((record, ctx) => {
    outcomeRules(record, ctx);
    const remote = record.lane === 'webdriver' || record.lane === 'cdp';
    if (remote !== (record.endpoint !== null)) {
      ctx.addIssue({ code: 'custom', path: ['endpoint'], message: 'is set exactly for the webdriver and cdp lanes' });
    }
    if (record.capabilities !== null && record.lane !== 'webdriver') {
      ctx.addIssue({ code: 'custom', path: ['capabilities'], message: 'only the webdriver lane has capabilities' });
    }
    if (remote !== (record.driver_statement.browser_process === 'attached')) {
      ctx.addIssue({
        code: 'custom',
        path: ['driver_statement', 'browser_process'],
        message: `the ${record.lane} lane ${remote ? 'attaches to' : 'starts'} its browser`,
      });
    }
  });
export type PublicPassRecord = z.infer<typeof PublicPassRecord>;

/** The parts of a record that decide whether it may be a pass. */
export type PassEvidence = Pick<PublicPassRecord, 'revision' | 'page_state'> & {
  receipts: Array<z.infer<typeof PassReceiptFileV1>>;
};

/**
 * Why the evidence is not a public pass (empty = it is one). A pass needs: the page reported its revision
 * (version and commit), the page ended `done`, at least one cold and one warm receipt, every receipt valid, ok and
 * made by that commit.
 *
 * @param evidence what the pass collected
 */
export function passProblems(evidence: PassEvidence): Array<{ path: Array<string | number>; message: string }> {
  const problems: Array<{ path: Array<string | number>; message: string }> = [];
  if (evidence.revision.app_version === null || evidence.revision.commit === null) {
    problems.push({ path: ['revision'], message: 'the page did not report its app version and commit' });
  }
  if (evidence.page_state !== 'done')
    problems.push({ path: ['page_state'], message: `the page ended "${evidence.page_state}", not "done"` });
  for (const kind of ['cold', 'warm'] as const) {
    if (!evidence.receipts.some((r) => r.run_kind === kind))
      problems.push({ path: ['receipts'], message: `no ${kind} receipt` });
  }
  evidence.receipts.forEach((receipt, index) => {
    if (receipt.problems.length > 0) {
      problems.push({
        path: ['receipts', index, 'problems'],
        message: `${receipt.file} is invalid: ${receipt.problems[0]}`,
      });
    } else if (receipt.outcome !== 'ok') {
      problems.push({
        path: ['receipts', index, 'outcome'],
        message: `${receipt.file} records a failed run: ${receipt.reason ?? 'no reason given'}`,
      });
    } else if (evidence.revision.commit !== null && receipt.app_commit !== evidence.revision.commit) {
      problems.push({
        path: ['receipts', index, 'app_commit'],
        message: `${receipt.file} was made by commit ${receipt.app_commit ?? 'null'}, not the page's ${evidence.revision.commit}`,
      });
    }
  });
  return problems;
}

/** Everything a pass collected; `buildPublicPassRecord` decides the outcome from it. */
export interface PassFindings extends PassEvidence {
  receipts: PassReceiptFile[];
  url: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  lane: PassLane;
  /** The webdriver or cdp endpoint, origin + path; null for a lane that starts its browser. */
  endpoint: string | null;
  browser: { name: string | null; version: string | null; userAgent: string | null };
  capabilities: RecordedCapabilities | null;
  window: PassWindow;
  driverStatement: DriverStatement;
  runParams: Record<string, string>;
  summary: { file: string; sha256: string } | null;
  /** A failure found before the evidence could be judged (page not reachable, browser did not start, ...). */
  fatalReason: string | null;
}

/**
 * The record for a pass: ok (PUBLIC_PASS) exactly when there is no fatal reason and `passProblems` finds nothing;
 * otherwise failed, with every problem in the reason (most specific first: failed receipts before page state).
 *
 * @param findings what the pass collected
 * @throws Error when the findings cannot form a valid record (a bug in the caller, e.g. a URL with a query)
 */
export function buildPublicPassRecord(findings: PassFindings): PublicPassRecord {
  const problems = passProblems(findings).map((p) => p.message);
  // A failed receipt says why the run failed; that is the most useful line, so it goes first.
  problems.sort((a, b) => Number(!a.includes(' records a failed run')) - Number(!b.includes(' records a failed run')));
  // The page under test reports some of these strings itself (its revision, its error text): bounded here, so a
  // long or hostile value is cut rather than making the record invalid.
  const joined = findings.fatalReason ?? (problems.length > 0 ? problems.join('; ') : null);
  const reason = joined === null ? null : boundDetail(joined);
  const record = {
    schema: PUBLIC_PASS_SCHEMA,
    evidence_state: reason === null ? 'PUBLIC_PASS' : null,
    device_pass_implied: false,
    url: findings.url,
    revision: {
      app_version: findings.revision.app_version === null ? null : boundLine(findings.revision.app_version, 256),
      commit: findings.revision.commit === null ? null : boundLine(findings.revision.commit, 256),
    },
    started_at: findings.startedAt,
    finished_at: findings.finishedAt,
    duration_ms: findings.durationMs,
    lane: findings.lane,
    endpoint: findings.endpoint,
    browser: {
      name: findings.browser.name === null ? null : boundLine(findings.browser.name, 128),
      version: findings.browser.version === null ? null : boundLine(findings.browser.version, 256),
      user_agent: findings.browser.userAgent === null ? null : boundLine(findings.browser.userAgent, 1024),
    },
    capabilities: findings.capabilities,
    window: {
      ...findings.window,
      problem: findings.window.problem === null ? null : boundDetail(findings.window.problem),
    },
    driver_statement: findings.driverStatement,
    run_params: findings.runParams,
    page_state: findings.page_state,
    receipts: findings.receipts.map((r) => ({
      ...r,
      reason: r.reason === null ? null : boundDetail(r.reason),
      app_commit: r.app_commit === null ? null : boundLine(r.app_commit, 256),
      problems: r.problems.map(boundDetail),
    })),
    summary: findings.summary,
    outcome: { status: reason === null ? 'ok' : 'failed', reason },
  };
  const parsed = PublicPassRecord.safeParse(record);
  if (!parsed.success) {
    throw new Error(`public-pass record: ${firstIssueLine(parsed.error)}`);
  }
  return parsed.data;
}
