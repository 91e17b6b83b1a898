/**
 * One escaping rule per output: the terminal (control, bare CR, escape/OSC and bidirectional characters shown as
 * visible escapes, for every name and string validate, summarize, report and models print, and the user's own --dir,
 * --dtype, --stem), JSON (summary.json valid under its own schema whatever the file names), Markdown (bare URLs
 * defused) and SVG (finite numbers only, whatever finite timings a valid receipt holds).
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReceiptsSummary } from '../../src/core/evidence/receipts-summary.ts';
import { checkReceiptsSummary } from '../../src/core/evidence/summary-invariants.ts';
import { mdText } from '../../src/core/text/markdown-escape.ts';
import { quotedText, terminalLines, terminalText } from '../../src/core/text/terminal-text.ts';
import { validateReceipt } from '../../src/core/validation/validate-receipt.ts';
import { linearScale, niceTicks } from '../../src/core/report/svg-charts.ts';
import { summarize } from '../../src/core/stats/stats.ts';
import { HOSTILE_CASES, hostileFileName, writeHostileCases } from '../fixtures/hostile/hostile-fixtures.ts';
import { buildReceipt } from './receipts-builder.ts';
import { runCli, tempDirWith } from './cli-harness.ts';
import { testTempDir } from '../temp-dir.ts';

/** Every character the terminal rule escapes (a line break between lines is the only one let through, by callers). */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const nameCases = HOSTILE_CASES.filter((c) => c.file_name !== undefined);

describe('terminalText', () => {
  it('shows every control, line-separator and bidirectional character as a visible escape', () => {
    expect(terminalText('a\u001b[2J\u001b]0;t\u0007b\r\nc\td\u009b\u202e\u2066\u200f\u2028e')).toBe(
      'a\\x1b[2J\\x1b]0;t\\x07b\\r\\nc\\td\\x9b\\u202e\\u2066\\u200f\\u2028e',
    );
    expect(terminalText('plain text, ünïcode ✓')).toBe('plain text, ünïcode ✓');
    expect(quotedText('x"\u202ey\u0000')).toBe('"x\\"\\u202ey\\u0000"');
    expect(terminalLines('one\u001b\nerror: two\r')).toBe('one\\x1b\nerror: two\\r');
  });
});

describe('names and strings printed by the receipt tools', () => {
  it('validate, summarize and report print file names with control and bidi characters escaped, on one line each', async () => {
    const dir = testTempDir('drb-names-');
    writeHostileCases(dir, (c) => c.file_name !== undefined);
    // One refused receipt under a hostile name too, so its problem line carries the name.
    const refused = join(dir, 'bad-\u001b[31m\rname\u202e.json');
    writeFileSync(refused, '{"schema":"drb.device-receipt.v2"}');
    const validate = await runCli(['receipts', 'validate', dir]);
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).not.toMatch(UNSAFE);
    const lines = validate.stdout.trim().split('\n');
    expect(lines.every((line) => line.startsWith(`${terminalText(refused)}: `))).toBe(true);
    const out = join(dir, 'summary');
    const summarize = await runCli(['receipts', 'summarize', dir, '--out', out]);
    expect(summarize.code).toBe(0);
    expect(summarize.stdout + summarize.stderr).not.toMatch(UNSAFE);
    const json = readFileSync(join(out, 'summary.json'), 'utf8');
    const summary = ReceiptsSummary.parse(JSON.parse(json));
    expect(checkReceiptsSummary(summary)).toEqual([]);
    expect(summary.invalid.map((i) => i.file)).toEqual([terminalText(refused)]);
    expect(summary.inputs.receipts_valid).toBe(nameCases.length);
    expect(JSON.stringify(summary)).not.toMatch(UNSAFE);
    expect(readFileSync(join(out, 'summary.md'), 'utf8').replace(/\n/g, '')).not.toMatch(UNSAFE);
    const report = await runCli(['receipts', 'report', dir, '--out', join(dir, 'report')]);
    expect(report.code).toBe(0);
    expect(report.stdout + report.stderr).not.toMatch(UNSAFE);
    expect(report.stderr).toContain(`warning: ${terminalText(refused)}: `);
    for (const c of nameCases) expect(existsSync(join(dir, hostileFileName(c)))).toBe(true);
  });

  it('summarize refuses a PATH it could not record in summary.json (a control character), naming it escaped; nothing written', async () => {
    const dir = testTempDir('drb-path-');
    const folder = join(dir, 'in\u001b[2J\nx');
    mkdirSync(folder);
    writeFileSync(join(folder, 'r.json'), JSON.stringify(buildReceipt({ kind: 'cold' })));
    const run = await runCli(['receipts', 'summarize', folder, '--out', join(dir, 'out')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `error: ${terminalText(folder)}: a PATH holding a control or bidirectional character (or over 4096 characters) cannot be recorded in summary.json; rename it; nothing written\n`,
    );
    expect(existsSync(join(dir, 'out'))).toBe(false);
    // validate and report, which record nothing, read it and show it escaped.
    expect((await runCli(['receipts', 'validate', folder])).stdout).toBe('ok: 1 receipt(s) valid\n');
  });

  it('review-template and review escape a hostile --target', async () => {
    const dir = tempDirWith({ 'r.json': JSON.stringify(buildReceipt({ kind: 'cold' })) });
    const out = join(dir, 'out');
    expect((await runCli(['receipts', 'summarize', join(dir, 'r.json'), '--out', out])).code).toBe(0);
    const run = await runCli([
      'receipts',
      'review-template',
      '--summary',
      join(out, 'summary.json'),
      '--target',
      't-\u001b]0;x\u0007\nforged',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr.slice(0, -1)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(run.stderr).toContain('no target t-\\x1b]0;x\\x07\\nforged');
  });
});

describe("the user's own flags", () => {
  it('--stem with a control or bidirectional character is refused (file names never hold one); nothing is written', async () => {
    const dir = tempDirWith({
      'items.json': '[{"id":"a","input":"x","references":["x"]}]',
      'p.json': '[{"id":"a","candidates":["x"]}]',
    });
    for (const stem of ['r\u001b[2J', 'r\nforged', 'r\u202eevil', 'r\rx']) {
      const run = await runCli([
        'score',
        '--items',
        join(dir, 'items.json'),
        '--predictions',
        join(dir, 'p.json'),
        '--output-dir',
        join(dir, 'out'),
        '--stem',
        stem,
      ]);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(`error: --stem: holds a control or bidirectional character, got ${quotedText(stem)}\n`);
      expect(existsSync(join(dir, 'out'))).toBe(false);
    }
  });

  it('--dataset-name with a control character is refused (the report would fail its own schema); --format is echoed escaped', async () => {
    const dir = tempDirWith({
      'items.json': '[{"id":"a","input":"x","references":["x"]}]',
      'p.json': '[{"id":"a","candidates":["x"]}]',
    });
    const base = [
      'score',
      '--items',
      join(dir, 'items.json'),
      '--predictions',
      join(dir, 'p.json'),
      '--output-dir',
      join(dir, 'out'),
    ];
    const named = await runCli([...base, '--dataset-name', 'x\u001b[2J\u202e']);
    expect(named).toMatchObject({
      code: 2,
      stderr: 'error: --dataset-name: holds a control or bidirectional character, or is over 4096 characters\n',
    });
    const format = await runCli([...base, '--format', 'x\u202e\u001b']);
    expect(format).toMatchObject({
      code: 2,
      stderr: 'error: --format: unknown format "x\\u202e\\u001b" (expected generic or ajimee)\n',
    });
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('models echoes --dir, --dtype and --id escaped, one line each', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['models', 'verify', '--dir', '/nonexistent/\u001b]0;x\u0007\nforged', '--id', 'qwen3-0.6b-q4'],
        'error: --dir /nonexistent/\\x1b]0;x\\x07\\nforged: cannot read the folder (ENOENT)\n',
      ],
      [
        ['models', 'verify', '--dir', '/tmp', '--id', 'tfjs-tiny-qwen3', '--dtype', 'q2\n# forged\u202e'],
        'error: --dtype: model tfjs-tiny-qwen3 has no q2\\n# forged\\u202e files in the catalog (it lists: fp32, fp16, q8, q4)\n',
      ],
      [
        ['models', 'verify', '--dir', '/tmp', '--id', 'evil\u202e\u009b'],
        'error: --id: no catalog model "evil\\u202e\\x9b" (see src/catalog/catalog.json for the ids)\n',
      ],
    ];
    for (const [argv, stderr] of cases) {
      const run = await runCli(argv);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(stderr);
    }
  });

  it('a pins file that is not JSON is never quoted: no escape, OSC, 8-bit CSI or bidi character reaches the terminal', async () => {
    for (const name of ['pins-osc-not-json', 'pins-not-json', 'pins-proto-key']) {
      const [path] = writeHostileCases(testTempDir('drb-pins-'), (c) => c.name === name);
      const run = await runCli(['models', 'verify', '--dir', '/tmp', '--id', 'tfjs-tiny-qwen3', '--pins', path]);
      expect(run.code).toBe(2);
      expect(run.stderr.slice(0, -1)).not.toMatch(UNSAFE);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('serve echoes --dir escaped', async () => {
    const run = await runCli(['serve', '--dir', '/nonexistent/\u001b[2J\nx']);
    expect(run).toMatchObject({
      code: 2,
      stderr:
        'error: /nonexistent/\\x1b[2J\\nx: no index.html: build the page first (npm run build, or drb serve --build)\n',
    });
  });
});

describe('Markdown: links defused', () => {
  it('turns bare URLs, www. hosts and e-mail addresses into text no renderer links', () => {
    expect(mdText('fetch https://cdn.example.com/m.onnx failed')).toBe(
      'fetch https\\[:\\]//cdn.example.com/m.onnx failed',
    );
    expect(mdText('see www.example.com or mailto:a@b.example and x@y.example')).toBe(
      'see www\\[.\\]example.com or mailto\\[:\\]a\\[@\\]b.example and x\\[@\\]y.example',
    );
    expect(mdText('q4f16_1 and 1.30.0')).toBe('q4f16_1 and 1.30.0');
  });

  it("summary.md shows a failure reason's URL as text, not a link", async () => {
    const failed = buildReceipt({
      kind: 'cold',
      failed: { stage: 'fetch', reason: 'https://cdn.example.com/model.onnx answered HTTP 503' },
    });
    expect(validateReceipt(failed).problems).toEqual([]);
    const dir = tempDirWith({
      'f.json': JSON.stringify(failed),
      'ok.json': JSON.stringify(buildReceipt({ kind: 'cold' })),
    });
    expect((await runCli(['receipts', 'summarize', dir, '--out', join(dir, 'out')])).code).toBe(0);
    const md = readFileSync(join(dir, 'out', 'summary.md'), 'utf8');
    expect(md).toContain('https\\[:\\]//cdn.example.com/model.onnx answered HTTP 503');
    expect(md).not.toContain('https://cdn.example.com');
  });
});

describe('SVG: finite numbers only', () => {
  it('draws valid receipts with extreme finite timings without NaN or Infinity', async () => {
    const cold = buildReceipt({ kind: 'cold', coldMs: { fetch: 1.7e308, session: 5e-324, first: 1e-300 } });
    cold.timings.total_ms = 1.75e308;
    const tiny = buildReceipt({ kind: 'cold', coldMs: { fetch: 5e-324, session: 5e-324, first: 5e-324 } });
    const warm = buildReceipt({ kind: 'warm', warmSamples: [5e307, 5e307, 5e-324, 1e-300, 5e307] });
    warm.timings.total_ms = 1.79e308;
    const small = buildReceipt({ kind: 'warm', warmSamples: [5e-324, 5e-324, 5e-324, 5e-324, 5e-324] });
    const dir = testTempDir('drb-extreme-');
    mkdirSync(join(dir, 'in'));
    for (const [i, r] of [cold, tiny, warm, small].entries()) {
      expect(validateReceipt(r).problems, String(i)).toEqual([]);
      writeFileSync(join(dir, 'in', `${i}.json`), JSON.stringify(r));
    }
    const run = await runCli(['receipts', 'report', join(dir, 'in'), '--out', join(dir, 'out')]);
    expect(run.code, run.stderr).toBe(0);
    const html = readFileSync(join(dir, 'out', 'index.html'), 'utf8');
    const svgs = html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
    expect(svgs.length).toBeGreaterThan(0);
    for (const svg of svgs) expect(svg).not.toMatch(/NaN|Infinity/);
    // summary.json too: valid under its own schema (no Infinity mean or ratio, which JSON would write as null).
    expect((await runCli(['receipts', 'summarize', join(dir, 'in'), '--out', join(dir, 'summary')])).code).toBe(0);
    const summary = ReceiptsSummary.parse(JSON.parse(readFileSync(join(dir, 'summary', 'summary.json'), 'utf8')));
    expect(readdirSync(join(dir, 'summary')).sort()).toEqual(['summary.json', 'summary.md']);
    expect(checkReceiptsSummary(summary)).toEqual([]);
  });

  it('scales and statistics stay finite at the ends of the number line', () => {
    for (const [lo, hi] of [
      [0, Number.MAX_VALUE],
      [-Number.MAX_VALUE, Number.MAX_VALUE],
      [1e308, 1e308],
    ]) {
      const scale = linearScale(lo, hi, 10, 350);
      expect(scale.ticks.every(Number.isFinite)).toBe(true);
      for (const v of [lo, hi, 0]) expect(Number.isFinite(scale.at(v))).toBe(true);
    }
    expect(niceTicks(0, Number.MAX_VALUE).every(Number.isFinite)).toBe(true);
    expect(summarize([Number.MAX_VALUE, Number.MAX_VALUE])).toMatchObject({
      median: Number.MAX_VALUE,
      mean: Number.MAX_VALUE,
    });
    // Ordinary values keep their bits: the overflow paths are taken only when the plain sum overflows.
    expect(summarize([0.1, 0.2, 0.3, 0.4])).toMatchObject({
      median: (0.2 + 0.3) / 2,
      mean: (0.1 + 0.2 + 0.3 + 0.4) / 4,
    });
  });
});
