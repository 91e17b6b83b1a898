/**
 * The leaderboard: ranking eligibility, fit score, failure class and Pareto front against hand-checked tables; then
 * `drb leaderboard` on the phones of leaderboard-fixtures.ts, from receipts and from a summary with its reviews:
 * a target that failed on one device and ran on another shows both (the failed one marked), a community row is never
 * verified (not even with a DEVICE_PASS by a non-maintainer, a tampered review or no governance file), ranked rows
 * get a fit and a rank and unranked rows every reason, hostile strings render as text, the page is strict and
 * reproducible, and bad inputs write nothing.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_PROFILES, findProfile, type ProfileVerdict } from '../../src/core/evidence/profiles.ts';
import { dominates, paretoFront } from '../../src/core/leaderboard/pareto.ts';
import { failureClass, fitScore, rankingEligibility, type RankingFacts } from '../../src/core/leaderboard/ranking.ts';
import { testTempDir } from '../temp-dir.ts';
import { runCli } from './cli-harness.ts';
import { writeLeaderboardInputs, type LeaderboardInputs } from './leaderboard-fixtures.ts';

const pass = (profile: 'entry' | 'mainstream' | 'performance'): ProfileVerdict => ({
  profile,
  verdict: 'pass',
  gates: [],
});

/** A row that meets every rule under mainstream; each test changes what it checks. */
function rankedFacts(over: Partial<RankingFacts> = {}): RankingFacts {
  return {
    kind: 'device',
    modelKind: 'real',
    functionalOnly: null,
    okRuns: 25,
    failedRuns: 0,
    relatedFailedRuns: 0,
    failuresExplained: false,
    interrupted: 0,
    requestedEp: 'wasm',
    completedEp: 'wasm',
    integrity: { verified: 25, unpinned: 0, mismatch: 0, notLoaded: 0 },
    duplicates: 0,
    minimums: { cleanCold: 5, minCold: 5, cleanWarm: 20, minWarm: 20 },
    failedSamples: null,
    profiles: [pass('entry'), pass('mainstream'), pass('performance')],
    quality: 0.85,
    warmP95Ms: 200,
    modelBytes: 4e8,
    jsHeapBytes: null,
    thermalSlope: 1.25,
    extraReasons: [],
    ...over,
  };
}

describe('ranking rules (hand-checked)', () => {
  it('ranks a row that meets every rule, and lists every reason for one that meets none', () => {
    expect(rankingEligibility(rankedFacts(), 'mainstream')).toEqual({ ranked: true, reasons: [] });
    const worst = rankedFacts({
      modelKind: 'fixture',
      functionalOnly: 'an automated headless browser',
      okRuns: 0,
      failedRuns: 2,
      relatedFailedRuns: 1,
      interrupted: 1,
      requestedEp: 'webgpu',
      completedEp: 'wasm',
      integrity: { verified: 0, unpinned: 3, mismatch: 1, notLoaded: 2 },
      duplicates: 1,
      minimums: { cleanCold: 0, minCold: 5, cleanWarm: 3, minWarm: 20 },
      failedSamples: 2,
      profiles: [
        {
          profile: 'mainstream',
          verdict: 'fail',
          gates: [
            { gate: 'warm_p95_ms', limit: 250, measured: 300, status: 'fail' },
            { gate: 'cold_load_p95_ms', limit: 10000, measured: null, status: 'not-measured' },
            { gate: 'js_heap_bytes', limit: 1, measured: null, status: 'not-measured' },
          ],
        },
      ],
      quality: 0.5,
      extraReasons: ['a reason another rule adds'],
    });
    expect(rankingEligibility(worst, 'mainstream')).toEqual({
      ranked: false,
      reasons: [
        'fixture model (random weights): a pipeline check, never ranked',
        'functional_only: an automated headless browser',
        'no run completed ok on this device',
        '1 interrupted run (tab killed or reloaded: a crash or out of memory)',
        '2 failed runs not explained by a stored review',
        '1 failed run of the same request on this device not explained by a stored review',
        'fell back: webgpu was requested, wasm ran',
        'model files not verified against pinned SHA-256 (3 unpinned, 1 with a mismatch receipt(s))',
        'the model was never loaded',
        '1 receipt id repeated in other files (a receipt counts once)',
        '0 full protocol cold run(s) of the 5 the protocol needs',
        '3 clean warm run(s) of the 20 the protocol needs',
        '2 prompts without an answer (failed samples)',
        'profile mainstream: fail (warm p95 300 ms over 250 ms; cold load p95 not measured)',
        'quality 50% Effective Acc@1 is below the gate of 70%',
        'a reason another rule adds',
      ],
    });
    // The profile is the selected one: under entry this summary has no verdict at all.
    expect(rankingEligibility(worst, 'entry').reasons).toContain('no entry budget verdict: the summary holds none');
    expect(rankingEligibility(rankedFacts({ quality: null }), 'mainstream').reasons).toEqual([
      'no quality score (Effective Acc@1 of a scored suite run of this model on this device and route): the fit score weighs quality 60%',
    ]);
    // Failed runs a stored review explained (the target reached DEVICE_PASS) do not block; a crash always does.
    expect(rankingEligibility(rankedFacts({ failedRuns: 2, failuresExplained: true }), 'mainstream').ranked).toBe(true);
    expect(rankingEligibility(rankedFacts({ interrupted: 1, failuresExplained: true }), 'mainstream').ranked).toBe(
      false,
    );
  });

  it('computes the fit score by hand, only for a ranked row, over the weight that was measured', () => {
    const mainstream = findProfile(BUILTIN_PROFILES, 'mainstream');
    // quality 0.85 x 60 = 51; warm p95 200 <= 250: 25; memory not measured: left out; 4e8 <= 5e8 bytes: 5;
    // stability 1 / 1.25 = 0.8 x 3 = 2.4. (51 + 25 + 5 + 2.4) / 93 x 100 = 89.677...
    expect(fitScore(rankedFacts(), mainstream)).toEqual({
      score: 89.68,
      weight_used: 93,
      components: [
        { component: 'quality', weight: 60, attainment: 0.85 },
        { component: 'latency', weight: 25, attainment: 1 },
        { component: 'memory', weight: 7, attainment: null },
        { component: 'size', weight: 5, attainment: 1 },
        { component: 'stability', weight: 3, attainment: 0.8 },
      ],
    });
    // Memory measured at twice the budget (2 GiB against 1 GiB): 0.5 x 7 = 3.5; (51 + 25 + 3.5 + 5 + 2.4) / 100.
    expect(fitScore(rankedFacts({ jsHeapBytes: 2 * 1073741824 }), mainstream)?.score).toBe(86.9);
    // Warm p95 over the budget means the profile failed, so the summary's verdict is not pass: not ranked, no fit.
    expect(
      fitScore(rankedFacts({ profiles: [{ profile: 'mainstream', verdict: 'fail', gates: [] }] }), mainstream),
    ).toBeNull();
    expect(fitScore(rankedFacts({ quality: 0.69 }), mainstream)).toBeNull();
  });

  it('classes failures', () => {
    const table: Array<[Partial<RankingFacts>, string | null]> = [
      [{}, null],
      [{ functionalOnly: 'software adapter' }, 'functional_only'],
      [{ okRuns: 0, requestedEp: 'webgpu', completedEp: null }, 'refused-route'],
      [{ interrupted: 1 }, 'crash-or-oom'],
      [{ okRuns: 0, interrupted: 2, requestedEp: 'webgpu', completedEp: null }, 'refused-route'],
      [{ okRuns: 0, integrity: { verified: 0, unpinned: 0, mismatch: 2, notLoaded: 0 } }, 'integrity-mismatch'],
      [{ okRuns: 0 }, 'failed'],
      [{ failedRuns: 3 }, null],
    ];
    for (const [over, expected] of table) expect(failureClass(rankedFacts(over)), JSON.stringify(over)).toBe(expected);
  });

  it('finds the Pareto front of quality against latency', () => {
    const points = [
      { key: 'A', quality: 0.9, latencyMs: 10 },
      { key: 'B', quality: 0.8, latencyMs: 5 },
      { key: 'C', quality: 0.85, latencyMs: 12 },
      { key: 'D', quality: 0.9, latencyMs: 10 },
      { key: 'E', quality: 0.95, latencyMs: 50 },
      { key: 'F', quality: 0.7, latencyMs: 6 },
    ];
    // C: A is faster and better. F: B is faster and better. A and D tie, so neither dominates the other.
    expect(paretoFront(points)).toEqual(['B', 'A', 'D', 'E']);
    expect(dominates(points[0], points[2])).toBe(true);
    expect(dominates(points[0], points[3])).toBe(false);
    expect(paretoFront([])).toEqual([]);
  });
});

/** Runs drb leaderboard and returns the page. */
async function leaderboard(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string; html: string; out: string }> {
  const out = join(testTempDir('drb-lb-out-'), 'lb');
  const run = await runCli(['leaderboard', ...args, '--out', out]);
  const file = join(out, 'index.html');
  return { ...run, out, html: existsSync(file) ? readFileSync(file, 'utf8') : '' };
}

/** The `<tbody>` of a target key in the board (its metrics row and its detail row). */
function rowHtml(html: string, key: string): string {
  const at = html.indexOf(`<tbody id="row-${key}"`);
  expect(at, key).toBeGreaterThan(0);
  return html.slice(at, html.indexOf('</tbody>', at));
}

describe('drb leaderboard', () => {
  // One set of inputs for every test here (made once: it runs drb score, summarize and review).
  let inputs: LeaderboardInputs;
  let inputDir: string;
  beforeAll(async () => {
    inputDir = mkdtempSync(join(tmpdir(), 'drb-lb-in-'));
    inputs = await writeLeaderboardInputs(inputDir);
  }, 120_000);
  afterAll(() => rmSync(inputDir, { recursive: true, force: true }));
  const setup = async () => inputs;

  it('shows a target that failed on one device and ran on another as two rows, the failed one marked', async () => {
    const { receipts, scores, meta, keys, summaryDir } = await setup();
    const run = await leaderboard([receipts, scores, '--meta', meta, '--reviews', summaryDir]);
    expect(run.code, run.stderr).toBe(0);
    const refused = rowHtml(run.html, keys['galaxy-tiny-webgpu']);
    const ran = rowHtml(run.html, keys['pixel-tiny-webgpu']);
    expect(refused).toContain('class="failed community"');
    expect(refused).toContain('data-failure="refused-route"');
    expect(refused).toContain('✗ Failed on this device: <strong>refused-route</strong>');
    expect(refused).toContain(
      'refused route: the requested route never ran: 2 failed at session: WebGPU is not available',
    );
    expect(ran).not.toContain('data-failure');
    expect(ran).toContain('data-s-warm="');
    // Same model and route on both rows.
    for (const row of [refused, ran]) expect(row).toContain('<strong>ort-tiny-xenc</strong>');
    // The Galaxy's wasm target had a run killed: marked crash-or-oom, metrics kept, not ranked.
    const killed = rowHtml(run.html, keys['galaxy-tiny-wasm']);
    expect(killed).toContain('data-failure="crash-or-oom"');
    expect(killed).toContain('1 interrupted at warm_inference');
    expect(killed).toContain('1 interrupted run (tab killed or reloaded: a crash or out of memory)');
    expect(run.stdout).toMatch(
      /^leaderboard of \d+ target\(s\) \(2 maintainer-verified, \d+ failed on their device, 3 ranked under mainstream\)/,
    );
  });

  it('never shows a community row as verified: a non-maintainer DEVICE_PASS, no governance file, a tampered review', async () => {
    const { receipts, scores, meta, summaryDir, keys } = await setup();
    // From the summary folder (its reviews beside it) and the receipts' score reports: same verdicts as from receipts.
    const fromSummary = await leaderboard([join(summaryDir, 'summary.json'), '--meta', meta]);
    expect(fromSummary.code, fromSummary.stderr).toBe(0);
    for (const key of [keys['pixel-tiny-wasm'], keys['pixel-heavy-wasm']]) {
      const row = rowHtml(fromSummary.html, key);
      expect(row).toContain('class="verified"');
      expect(row).toContain('<span class="badge verified">✓ Maintainer-verified</span>');
      expect(row).toContain('DEVICE_PASS reviewed by maintainer qa-1');
    }
    const iphone = rowHtml(fromSummary.html, keys['iphone-tiny-wasm']);
    expect(iphone).toContain('class="community"');
    expect(iphone).not.toContain('Maintainer-verified');
    expect(iphone).toContain('community: reviewed by community-tester, who is not a maintainer in the governance file');
    // Without the governance file nobody is a maintainer.
    const noMeta = await leaderboard([join(summaryDir, 'summary.json')]);
    expect(noMeta.html).toContain('No governance file (drb.leaderboard-meta.v1) was given');
    expect(noMeta.html).toMatch(/<tbody id="row-t-[0-9a-f]+" class="community/);
    expect(noMeta.html).not.toMatch(/<tbody id="row-t-[0-9a-f]+" class="(?:failed )?verified/);
    expect(noMeta.html).not.toContain('reviewed by maintainer');
    // A review whose bytes differ from what the summary names: the row stays community, with a warning.
    const copy = testTempDir('drb-lb-tamper-');
    mkdirSync(join(copy, 'reviews'));
    writeFileSync(join(copy, 'summary.json'), readFileSync(join(summaryDir, 'summary.json')));
    for (const key of [keys['pixel-tiny-wasm'], keys['pixel-heavy-wasm'], keys['iphone-tiny-wasm']]) {
      const review = JSON.parse(readFileSync(join(summaryDir, 'reviews', `${key}.json`), 'utf8'));
      if (key === keys['pixel-tiny-wasm']) review.notes = 'edited after the summary';
      writeFileSync(join(copy, 'reviews', `${key}.json`), JSON.stringify(review));
    }
    const tampered = await leaderboard([join(copy, 'summary.json'), '--meta', meta]);
    expect(tampered.code).toBe(0);
    expect(rowHtml(tampered.html, keys['pixel-tiny-wasm'])).toContain('class="community"');
    expect(tampered.stderr).toContain(
      `targets.${keys['pixel-tiny-wasm']}.review: ${join(copy, 'reviews', `${keys['pixel-tiny-wasm']}.json`)} has another SHA-256 than the summary names`,
    );
    // Receipts given directly with --reviews: the maintainer's rows verified there too.
    const direct = await leaderboard([receipts, scores, '--meta', meta, '--reviews', summaryDir]);
    expect(rowHtml(direct.html, keys['pixel-heavy-wasm'])).toContain('class="verified"');
    expect(rowHtml(direct.html, keys['iphone-tiny-wasm'])).toContain('class="community"');
  });

  it('ranks by fit within one track, device and profile, and keeps unranked rows in place with every reason', async () => {
    const { receipts, scores, meta, keys } = await setup();
    const run = await leaderboard([receipts, scores, '--meta', meta, '--reviews', join(inputs.summaryDir)]);
    const tiny = rowHtml(run.html, keys['pixel-tiny-wasm']);
    const heavy = rowHtml(run.html, keys['pixel-heavy-wasm']);
    const iphone = rowHtml(run.html, keys['iphone-tiny-wasm']);
    // Both Pixel wasm rows share a track and a device: ranked by fit (the heavy model's quality 100% against 75%
    // outweighs its latency, within budget for both); the iPhone is alone on its device.
    expect(heavy).toMatch(/<div data-p="mainstream"><strong>#1<\/strong> of 2<br>fit [\d.]+/);
    expect(tiny).toMatch(/<div data-p="mainstream"><strong>#2<\/strong> of 2<br>fit [\d.]+/);
    expect(iphone).toMatch(
      /<div data-p="mainstream"><strong>#1<\/strong> of 1<br>fit [\d.]+ <span class="small">\(over 93% of the weight\)<\/span>/,
    );
    expect(tiny).toContain('<div data-p="mainstream"><span class="ok">✓ ranked: every rule met</span></div>');
    // Under performance (warm p95 100 ms) the heavy model's 40 ms samples still pass; its cold load 1.2 s passes 5 s.
    expect(heavy).toMatch(/<div data-p="performance"><strong>#\d<\/strong>/);
    // An unranked row: every reason, and no fit.
    const webgpu = rowHtml(run.html, keys['pixel-tiny-webgpu']);
    expect(webgpu).toContain('<div data-p="mainstream"><span class="unranked">not ranked</span></div>');
    expect(webgpu).toContain(
      'no quality score (Effective Acc@1 of a scored suite run of this model on this device and route)',
    );
    const galaxy = rowHtml(run.html, keys['galaxy-tiny-wasm']);
    expect(galaxy).toContain('4 full protocol cold run(s) of the 5 the protocol needs');
    expect(galaxy).toContain('below the gate of 70%');
    // Individual metrics lead: the default order is by warm median within a track, never by fit (the faster
    // unranked webgpu row comes before the ranked wasm rows of the same input).
    expect(run.html.indexOf(`id="row-${keys['pixel-tiny-webgpu']}"`)).toBeLessThan(
      run.html.indexOf(`id="row-${keys['pixel-tiny-wasm']}"`),
    );
    expect(run.html.indexOf(`id="row-${keys['pixel-tiny-wasm']}"`)).toBeLessThan(
      run.html.indexOf(`id="row-${keys['iphone-tiny-wasm']}"`),
    );
    // The Pareto view lists every point and names its front in words.
    expect(run.html).toContain('<section id="pareto"');
    // The Pareto view: the Pixel's fast 75% model and its slow 100% one are on the front; the iPhone's 75% at a higher
    // latency than the Pixel's is not.
    expect(run.html).toMatch(/Pareto front of cold\/warm on input [^:]+: 2 of 3 target\(s\) on it\./);
    // Governance first, escaped.
    expect(run.html.indexOf('id="governance"')).toBeLessThan(run.html.indexOf('id="board-section"'));
    expect(run.html).toContain('A. Donor &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(run.html).toContain('CDN outage during the first session');
    expect(run.html).toContain('<title>Phones leaderboard &lt;b&gt;test&lt;/b&gt;</title>');
  });

  it('renders hostile strings as text, holds a strict CSP whose hashes match, and gives the same bytes twice', async () => {
    const { receipts, scores, meta } = await setup();
    const a = await leaderboard([receipts, scores, '--meta', meta]);
    const b = await leaderboard([receipts, scores, '--meta', meta]);
    expect(a.html).toBe(b.html);
    const body = a.html.slice(a.html.indexOf('<body'), a.html.indexOf('<script>'));
    for (const raw of ['<script>alert', '<img src=x', '<svg onload', '<a href=javascript', 'onerror=alert(1)>'])
      expect(body, raw).not.toContain(raw);
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;svg onload=alert(2)&gt;');
    expect(a.html.match(/<script>/g)).toHaveLength(1);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(a.html)![1];
    expect(csp).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; script-src 'sha256-[A-Za-z0-9+/]+=*'; base-uri 'none'; form-action 'none'$/,
    );
    const script = a.html.slice(a.html.indexOf('<script>') + 8, a.html.indexOf('</script>'));
    const style = a.html.slice(a.html.indexOf('<style>') + 7, a.html.indexOf('</style>'));
    expect(csp).toContain(`script-src 'sha256-${createHash('sha256').update(script).digest('base64')}'`);
    expect(csp).toContain(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(a.html).not.toMatch(/\b(?:src|href)="(?:https?:)?\/\//);
    expect(a.html).not.toContain(' style="');
    // The hostile receipts' rows exist, their device and failure shown escaped.
    expect(body).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;|**x**&amp;amp;&#39;=1+2');
    expect(body).toContain('&lt;a href=javascript:alert(3)&gt;x&lt;/a&gt;');
  });

  it('refuses a bad governance file or summary and writes nothing; never overwrites a page it did not write', async () => {
    const { receipts, summaryDir, metaValue } = await setup();
    const dir = testTempDir('drb-lb-bad-');
    writeFileSync(join(dir, 'meta.json'), JSON.stringify({ ...metaValue, funding: [{ funder: '', what: 'x' }] }));
    const badMeta = await leaderboard([receipts, '--meta', join(dir, 'meta.json')]);
    expect(badMeta.code).toBe(2);
    expect(badMeta.stderr).toBe(
      `error: ${join(dir, 'meta.json')}: funding[0].funder: Too small: expected string to have >=1 characters\n`,
    );
    expect(badMeta.html).toBe('');
    const summary = JSON.parse(readFileSync(join(summaryDir, 'summary.json'), 'utf8'));
    summary.targets[0].counts.receipts = -1;
    writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
    const badSummary = await leaderboard([join(dir, 'summary.json')]);
    expect(badSummary.code).toBe(2);
    expect(badSummary.stderr).toContain(`error: ${join(dir, 'summary.json')}: targets[0].counts.receipts: `);
    expect(badSummary.stderr).toContain('a summary is not a valid drb.receipts-summary.v3; nothing written');
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'out', 'index.html'), '<p>mine</p>');
    const clobber = await runCli(['leaderboard', receipts, '--out', join(dir, 'out')]);
    expect(clobber.code).toBe(2);
    expect(readFileSync(join(dir, 'out', 'index.html'), 'utf8')).toBe('<p>mine</p>');
    const empty = testTempDir('drb-lb-empty-');
    writeFileSync(join(empty, 'x.json'), '{}');
    expect((await runCli(['leaderboard', empty, '--out', join(dir, 'o2')])).code).toBe(2);
    expect(existsSync(join(dir, 'o2'))).toBe(false);
  });
});
