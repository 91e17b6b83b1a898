/**
 * URLs that carry a secret (a query, a fragment, credentials) typed into the session sheet, with or without a scheme:
 * the detector both ways (what it must catch, and ordinary notes it must leave alone), then through the real CLI: a
 * bundle whose sheet holds one is refused by `drb receipts validate` and `summarize` with one line, and the secret
 * never reaches summary.json, summary.md or the review template; an edited summary.json carrying one is refused by
 * validate and review-template; a sheet of ordinary notes still fills the template.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { containsTypedUrlSecret, containsUnredactedUrl } from '../../src/core/text/redact.ts';
import {
  EMPTY_TESTER_SHEET,
  RECEIPT_BUNDLE_SCHEMA,
  sheetUrlProblems,
  type ReceiptBundle,
  type TesterSheet,
} from '../../src/core/field/receipt-bundle.ts';
import { checkReceiptsSummary } from '../../src/core/evidence/summary-invariants.ts';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import type { DeviceReceipt } from '../../src/core/receipt/receipt.ts';
import { buildReceipt } from './receipts-builder.ts';
import { runCli, tempDirWith } from './cli-harness.ts';

describe('containsTypedUrlSecret: URLs carrying a secret, with or without a scheme', () => {
  it.each([
    ['www.example.com/?token=abc', 'query, no scheme'],
    ['example.com/path#frag', 'fragment, no scheme'],
    ['user:pass@host.example/x', 'credentials, no scheme'],
    ['reloaded, page was www.example.com/?token=abc then ok', 'inside prose'],
    ['see example.com?token=1', 'query straight after the host'],
    ['EXAMPLE.COM/#top', 'upper case'],
    ['(example.com/a#b)', 'in parentheses'],
    ['url=www.example.com/?token=abc', 'after an equals sign'],
    ['example.com:443?x=1', 'a port, then a query'],
    ['localhost:8080/?t=1', 'localhost'],
    ['192.168.1.10:8080/admin?pw=x', 'an IPv4 address'],
    ['[::1]:8080/?x=1', 'an IPv6 address'],
    ['xn--bcher-kva.example/?q=1', 'a punycode label'],
    ['tester@example.com/inbox', 'a user name, then a path'],
    ['user:pw@router/', 'a password before a one-label host'],
    ['https:user:pw@host/', 'a scheme without slashes (WHATWG reads https://user:pw@host/)'],
    ['https:\\\\user:pw@host/', 'a scheme with backslashes'],
    ['https:/host.example/?x=1', 'a scheme with one slash'],
    ['https://example.com/app?access_token=x', 'a full URL (what the scan caught before)'],
    ['ftp://example.com/file', 'another scheme (only its scheme would be kept)'],
  ])('catches %s (%s)', (text) => {
    expect(containsTypedUrlSecret(text)).toBe(true);
  });

  it.each([
    ['iOS 17.4.1', 'a version'],
    ['iOS 26.1 (23B85)', 'a version and a build'],
    ['A/B test', 'a slash between letters'],
    ['v1.2.3', 'a version with a v'],
    ['3.5 GHz', 'a frequency'],
    ['Wi-Fi, 5 GHz', 'a network'],
    ['Safari 17.4.1 (19618.1.15.11.14)', 'a dotted build number'],
    ['build UQ1A.240205.004', 'an Android build id'],
    ['TP1A.220624.021#x', 'a build id, then a hash'],
    ['iPhone15,2 @ 80%', 'a model id and a percentage'],
    ['Pixel 8 (GKWS6)', 'a model'],
    ['reload #2, then ok', 'a number sign'],
    ['C# and F# notes', 'language names'],
    ['Was it example.com? Yes.', 'a host at the end of a question'],
    ['is it ok? what? #1', 'questions'],
    ['tester@example.com', 'an e-mail address'],
    ['mail qa@example.org please', 'an e-mail address in prose'],
    ['meeting 10:30@office', 'a time before an at sign'],
    ['example.com/docs', 'a host and path without query or fragment'],
    ['https://example.com/app', 'a full URL without query or fragment'],
    ['example.com/#', 'an empty fragment'],
    ['www.example.com', 'a bare host'],
    ['e.g. slow, i.e. throttled', 'abbreviations'],
    ['', 'nothing'],
  ])('leaves %s alone (%s)', (text) => {
    expect(containsTypedUrlSecret(text)).toBe(false);
  });

  it('is stricter than the scan of receipts: the scheme-less forms were missed by containsUnredactedUrl', () => {
    for (const text of ['www.example.com/?token=abc', 'example.com/path#frag', 'user:pass@host.example/x'])
      expect(containsUnredactedUrl(text)).toBe(false);
  });

  it('stays fast on long hostile text (no catastrophic backtracking)', () => {
    const started = performance.now();
    for (const text of [
      `${'a'.repeat(1000)}@`,
      `${'a.'.repeat(500)}?`,
      `${`${'a'.repeat(30)}.`.repeat(30)}1?x`,
      `@${'a:'.repeat(500)}`,
      `${'ab.'.repeat(333)}@?#`,
    ])
      expect(containsTypedUrlSecret(text)).toBe(false);
    // Generous: a backtracking blow-up would take seconds, not tens of milliseconds.
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('sheetUrlProblems', () => {
  it('names each sheet field holding a secret-carrying URL, under the given path', () => {
    const sheet: TesterSheet = {
      ...EMPTY_TESTER_SHEET,
      os_build: 'iOS 17.4.1',
      network: 'user:pass@wifi.example/portal',
      notes: 'page www.example.com/?token=abc',
    };
    expect(sheetUrlProblems(sheet, 'targets[0].session_sheets[0].sheet').map((p) => p.path)).toEqual([
      'targets[0].session_sheets[0].sheet.network',
      'targets[0].session_sheets[0].sheet.notes',
    ]);
    expect(sheetUrlProblems({ ...EMPTY_TESTER_SHEET, notes: 'A/B test, 3.5 GHz' }, 'sheet')).toEqual([]);
  });
});

const SECRET = 'sheet-secret-value';

function bundleOf(receipts: DeviceReceipt[], sheet: TesterSheet): ReceiptBundle {
  return {
    schema: RECEIPT_BUNDLE_SCHEMA,
    created_at: '2026-12-01T08:00:00Z',
    app: receipts[0].app,
    protocol: null,
    sheet,
    receipts: receipts as unknown as ReceiptBundle['receipts'],
  };
}

function session(): DeviceReceipt[] {
  return [
    ...Array.from({ length: 5 }, () => buildReceipt({ kind: 'cold', coldMs: { fetch: 100, session: 200, first: 5 } })),
    ...Array.from({ length: 20 }, () => buildReceipt({ kind: 'warm', warmSamples: [2, 3, 4] })),
  ];
}

const ORDINARY: TesterSheet = {
  ...EMPTY_TESTER_SHEET,
  device_model: 'iPhone15,2 (A2848)',
  os_build: 'iOS 17.4.1 (21E236)',
  browser: 'Safari',
  browser_version: '17.4.1',
  network: 'Wi-Fi, 3.5 GHz / 5 GHz',
  notes: 'A/B test #2, reload once? yes. Mail qa@example.org',
};

describe('a scheme-less secret in the sheet through drb receipts validate, summarize and review-template', () => {
  it.each([
    ['notes', `reloaded, page was www.example.com/?token=${SECRET}`],
    ['os_build', `example.com/path#${SECRET}`],
    ['network', `user:${SECRET}@host.example/x`],
  ] as const)('refuses a bundle whose %s holds it, and it reaches no output', async (field, text) => {
    const dir = tempDirWith({});
    mkdirSync(join(dir, 'in'));
    const bundleFile = join(dir, 'in', 'session.json');
    writeFileSync(bundleFile, JSON.stringify(bundleOf(session(), { ...ORDINARY, [field]: text })));
    const problem = `sheet.${field}: holds a URL with a query, fragment or credentials, with or without https:// (the sheet reaches summary.json and the review template; remove it and export again)`;
    const validated = await runCli(['receipts', 'validate', bundleFile]);
    expect(validated.code).toBe(1);
    expect(validated.stdout.trim().split('\n')).toEqual([`${bundleFile}: ${problem}`]);
    // The bundle alone: nothing valid to summarise, so nothing is written.
    const alone = await runCli(['receipts', 'summarize', bundleFile, '--out', join(dir, 'alone')]);
    expect(alone.code).not.toBe(0);
    expect(existsSync(join(dir, 'alone', 'summary.json'))).toBe(false);
    // Beside a valid receipt: the summary lists the bundle as invalid (its contract), and counts none of its receipts.
    const loose = buildReceipt({ kind: 'cold', coldMs: { fetch: 100, session: 200, first: 5 } });
    writeFileSync(join(dir, 'in', 'loose.json'), JSON.stringify(loose));
    const out = join(dir, 'summary');
    const summarized = await runCli(['receipts', 'summarize', join(dir, 'in'), '--out', out]);
    expect(summarized.code, summarized.stderr).toBe(0);
    expect(summarized.stderr).toContain('invalid receipt(s) excluded (listed in the summary)');
    const json = readFileSync(join(out, 'summary.json'), 'utf8');
    const md = readFileSync(join(out, 'summary.md'), 'utf8');
    const summary = ReceiptsSummary.parse(JSON.parse(json));
    expect(summary.invalid.map((i) => [i.file, i.first_problem])).toEqual([[bundleFile, problem]]);
    expect(summary.targets).toHaveLength(1);
    expect(summary.targets[0].counts.receipts).toBe(1);
    expect(summary.targets[0].session_sheets).toEqual([]);
    const template = await runCli([
      'receipts',
      'review-template',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      summary.targets[0].key,
    ]);
    expect(template.code, template.stderr).toBe(0);
    for (const written of [json, md, template.stdout, validated.stdout, validated.stderr, summarized.stderr])
      expect(written).not.toContain(SECRET);
  });

  it('accepts a sheet of ordinary notes: it fills the review template', async () => {
    const dir = tempDirWith({});
    const bundleFile = join(dir, 'session.json');
    writeFileSync(bundleFile, JSON.stringify(bundleOf(session(), ORDINARY)));
    expect((await runCli(['receipts', 'validate', bundleFile])).code).toBe(0);
    const out = join(dir, 'summary');
    expect((await runCli(['receipts', 'summarize', bundleFile, '--out', out])).code).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
    const [target] = summary.targets;
    expect(target.session_sheets.map((s) => s.sheet)).toEqual([ORDINARY]);
    const template = await runCli([
      'receipts',
      'review-template',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      target.key,
    ]);
    expect(template.code, template.stderr).toBe(0);
    const answers = JSON.parse(template.stdout) as { device: { os_build: string }; notes: string };
    expect(answers.device.os_build).toBe('iOS 17.4.1 (21E236)');
    expect(answers.notes).toContain(`tester's note: ${ORDINARY.notes}`);
  });

  it('refuses a summary.json edited to carry a scheme-less secret in a session sheet: validate and review-template', async () => {
    const dir = tempDirWith({});
    const bundleFile = join(dir, 'session.json');
    writeFileSync(bundleFile, JSON.stringify(bundleOf(session(), ORDINARY)));
    const out = join(dir, 'summary');
    expect((await runCli(['receipts', 'summarize', bundleFile, '--out', out])).code).toBe(0);
    const summaryFile = join(out, 'summary.json');
    const edited = JSON.parse(readFileSync(summaryFile, 'utf8')) as ReceiptsSummary;
    edited.targets[0].session_sheets[0].sheet.notes = `see www.example.com/?token=${SECRET}`;
    expect(checkReceiptsSummary(ReceiptsSummary.parse(edited)).map((p) => p.path)).toEqual([
      'targets[0].session_sheets[0].sheet.notes',
    ]);
    writeFileSync(summaryFile, JSON.stringify(edited, null, 2));
    const validated = await runCli(['receipts', 'validate', summaryFile]);
    expect(validated.code).toBe(1);
    expect(validated.stdout).toContain(`${summaryFile}: targets[0].session_sheets[0].sheet.notes: holds a URL`);
    const template = await runCli([
      'receipts',
      'review-template',
      '--summary',
      summaryFile,
      '--target',
      edited.targets[0].key,
    ]);
    expect(template.code).not.toBe(0);
    expect(template.stdout).toBe('');
    expect(template.stderr).toContain('targets[0].session_sheets[0].sheet.notes: holds a URL');
    expect(template.stderr).not.toContain(SECRET);
  });
});
