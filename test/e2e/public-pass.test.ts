/**
 * `drb public-pass` end to end against a locally served build, in both browsers: a passing run (receipts saved,
 * validated by `drb receipts validate`, summarised, a PUBLIC_PASS record with their hashes), and failing pages
 * (a bad automation parameter; a server that answers 404 for the model) that write a failed record and exit 1.
 */
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { PublicPassRecord } from '../../src/core/automation/public-pass.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { sha256Hex } from '../../src/core/bytes/sha256.ts';
import type { LaneName } from '../../src/node/browser-lane.ts';
import type { StaticServer } from '../../src/node/static-server.ts';
import { LANES, serveBuild, validationProblems } from './lane-checks.ts';

/** Runs the CLI in-process and captures what it prints. */
async function drb(args: string[]) {
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const code = await main(args);
    return {
      code,
      stdout: out.mock.calls.map((c) => String(c[0])).join(''),
      stderr: err.mock.calls.map((c) => String(c[0])).join(''),
    };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

async function readRecord(dir: string): Promise<PublicPassRecord> {
  return PublicPassRecord.parse(JSON.parse(await readFile(join(dir, 'public-pass.json'), 'utf8')));
}

let server: StaticServer;
let brokenServer: StaticServer;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'drb-public-pass-e2e-'));
  server = await serveBuild();
  // The same build, with the model file missing: the server answers 404 for it.
  const broken = join(work, 'broken-dist');
  await cp(inject('distDir'), broken, { recursive: true });
  await rm(join(broken, 'models', 'ort-tiny-xenc', 'model.onnx'));
  brokenServer = await serveBuild(broken);
});
afterAll(async () => {
  await server?.close();
  await brokenServer?.close();
  await rm(work, { recursive: true, force: true });
});

describe.each(LANES)('drb public-pass --browser %s', (browser: LaneName) => {
  it('passes: receipts saved, validated and summarised; a PUBLIC_PASS record with their hashes; the URL query dropped', async () => {
    const out = join(work, `${browser}-ok`);
    const { code, stdout, stderr } = await drb([
      'public-pass',
      '--url',
      `${server.url}?token=SECRET-TOKEN#frag`,
      '--browser',
      browser,
      '--out',
      out,
      '--model',
      'ort-tiny-xenc',
      '--warm-runs',
      '5',
      '--timeout-ms',
      '120000',
    ]);
    expect(stderr).toContain('query, fragment and credentials are dropped');
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(new RegExp(`^PUBLIC_PASS ${server.url} ${browser} `));

    const record = await readRecord(out);
    expect(record).toMatchObject({
      evidence_state: 'PUBLIC_PASS',
      device_pass_implied: false,
      url: server.url,
      page_state: 'done',
      outcome: { status: 'ok', reason: null },
      lane: browser,
      endpoint: null,
      browser: { name: browser },
      // v1's `browser.fresh_profile: true`: now the driver's statement, beside what the page measured.
      driver_statement: { browser_process: 'started', process_new: true, profile_empty: true, site_data_cleared: null },
      run_params: {
        autorun: 'cold,warm',
        model: 'ort-tiny-xenc',
        warm_runs: '5',
        allow_fallback: '0',
        driver_fresh: browser,
      },
    });
    expect(record.browser.version).toMatch(browser === 'webkit' ? /^2\.\d+\.\d+$/ : /^\d+\.\d+\.\d+\.\d+$/);
    expect(record.revision.app_version).toMatch(/^\d+\.\d+\.\d+/);
    expect(record.revision.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(JSON.stringify(record)).not.toContain('SECRET-TOKEN');

    // The receipt files: what the record says (hash, bytes), valid, ok, made by the reported commit, no secret.
    expect(record.receipts.map((r) => [r.run_kind, r.outcome, r.problems])).toEqual([
      ['cold', 'ok', []],
      ['warm', 'ok', []],
    ]);
    for (const entry of record.receipts) {
      const bytes = await readFile(join(out, entry.file));
      expect(await sha256Hex(bytes)).toBe(entry.sha256);
      expect(bytes.byteLength).toBe(entry.bytes);
      const text = bytes.toString('utf8');
      expect(text).not.toContain('SECRET-TOKEN');
      const receipt = JSON.parse(text);
      expect(validationProblems(receipt)).toEqual([]);
      expect(receipt.app.commit).toBe(record.revision.commit);
      expect(receipt.capabilities.user_agent).toBe(record.browser.user_agent);
      // A fresh profile has no journal from an earlier visit.
      expect(receipt.run.previous_run_interrupted).toBeNull();
      // The lane started the browser with an empty profile: the cold receipt carries its statement as attested by the
      // driver (beside the page's own measurement), the warm one nothing.
      expect(receipt.run.attestations ?? []).toEqual(
        entry.run_kind === 'cold'
          ? [
              expect.objectContaining({
                claim: 'browser-restarted',
                source: 'driver',
                by: `drb public-pass (${browser} lane)`,
              }),
              expect.objectContaining({
                claim: 'site-data-cleared',
                source: 'driver',
                by: `drb public-pass (${browser} lane)`,
              }),
            ]
          : [],
      );
    }
    const validate = await drb(['receipts', 'validate', ...record.receipts.map((r) => join(out, r.file))]);
    expect(validate.code, validate.stderr).toBe(0);

    // The summary beside them: one target with one cold and one warm receipt.
    expect(record.summary?.file).toBe(join('summary', 'summary.json'));
    const summaryBytes = await readFile(join(out, record.summary!.file));
    expect(await sha256Hex(summaryBytes)).toBe(record.summary!.sha256);
    const summary = ReceiptsSummary.parse(JSON.parse(summaryBytes.toString('utf8')));
    expect(summary.targets).toHaveLength(1);
    expect(summary.targets[0].counts).toMatchObject({ cold: 1, warm: 1 });
    // The page measured a network-cold fresh start and the driver attested the rest: a full protocol cold, no tap.
    expect(summary.targets[0].counts).toMatchObject({ measured_fresh_start: 1, attested_cold: 1, full_cold: 1 });
    expect((await readdir(join(out, 'summary'))).sort()).toEqual(['summary.json', 'summary.md']);
  });

  it("a bad automation parameter: failed record with the page's message, exit 1", async () => {
    const out = join(work, `${browser}-bad-param`);
    const { code, stderr } = await drb([
      'public-pass',
      '--url',
      server.url,
      '--browser',
      browser,
      '--out',
      out,
      '--model',
      'no-such-model',
      '--timeout-ms',
      '60000',
    ]);
    expect(code).toBe(1);
    const record = await readRecord(out);
    expect(record).toMatchObject({
      evidence_state: null,
      page_state: 'failed',
      receipts: [],
      summary: null,
      outcome: { status: 'failed' },
    });
    expect(record.outcome.reason).toMatch(
      /^the page failed before any receipt: Invalid model param: 'no-such-model', expected a catalog model id/,
    );
    expect(stderr).toContain(
      `error: public pass failed: ${record.outcome.reason} (record: ${join(out, 'public-pass.json')})`,
    );
    // The page still reported its revision: the failure belongs to a known build.
    expect(record.revision.commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it('the server answers 404 for the model: the failed receipts are kept and validated, the record says why, exit 1', async () => {
    const out = join(work, `${browser}-404`);
    const { code } = await drb([
      'public-pass',
      '--url',
      brokenServer.url,
      '--browser',
      browser,
      '--out',
      out,
      '--model',
      'ort-tiny-xenc',
      '--timeout-ms',
      '60000',
    ]);
    expect(code).toBe(1);
    const record = await readRecord(out);
    expect(record.page_state).toBe('failed');
    expect(record.evidence_state).toBeNull();
    expect(record.receipts.length).toBeGreaterThan(0);
    for (const entry of record.receipts) {
      // A failed run still makes a VALID receipt (it says honestly that it failed).
      expect(entry.problems).toEqual([]);
      expect(entry.outcome).toBe('failed');
      expect(entry.reason).toMatch(/404/);
    }
    expect(record.outcome.reason).toMatch(new RegExp(`^${record.receipts[0].file} records a failed run: .*404`));
    expect(record.outcome.reason).toContain('the page ended "failed", not "done"');
  });
});
