/**
 * `drb receipts report`'s page: one self-contained HTML file (inline CSS and SVG, no script, no request: a
 * Content-Security-Policy of `default-src 'none'` says so to the browser too) rendered from ReportData alone, so the
 * same inputs give the same bytes. Every string from an input goes through `htmlText`.
 *
 * Sections: targets with evidence state, counts against the protocol minimums and interruptions by stage; cold runs
 * as stacked stage bars; warm samples as a strip and box plot with the median's interval, and in run order (thermal
 * slope, drift); comparisons as ratios with intervals and verdicts (invalid routes shown, never ranked);
 * generation; suites with the quality of their predictions beside their speed; interruptions; the inputs with
 * their SHA-256; how the numbers were made.
 *
 * Every chart is a <figure> whose numbers are also in a table (in a <details> below it). Every number in those
 * tables that summary.json holds carries `data-summary` (its path in summary.json, array entries named by their
 * key, receipt id or route id) and `data-value` (the exact number), so a test can check the page against the summary.
 * On screens narrower than 600 px tables turn into one card per row. On a wide screen the page takes the width: a
 * section's charts sit side by side in a grid, and a chart whose table is opened takes the whole row, so the table
 * has the page's width.
 */
import { threeSignificant } from '../text/format-number.ts';
import { ratioSentence, type CrossoverEnd } from '../stats/intervals.ts';
import { htmlText } from '../text/markdown-escape.ts';
import type { ComparisonEntry, SweepEntry, TargetSummary } from '../evidence/receipts-summary.ts';
import { percentile } from '../stats/stats.ts';
import { browserLabel } from './browser-label.ts';
import { distinguishingLabels, routeText } from './target-labels.ts';
import type { ComparisonDetail, ReportData, ReportInput } from './report-data.ts';
import {
  COLORS,
  distributionRowsSvg,
  forestSvg,
  runOrderSvg,
  stackedBarsSvg,
  sweepCurveSvg,
  type DistributionRow,
  type ForestRow,
  type StackedRow,
} from './svg-charts.ts';

/** What the page says about the tool that made it (no time: the page holds only the inputs' own timestamps). */
export interface ReportHtmlOptions {
  /** device-receipts-bench's version. */
  toolVersion: string;
}

/** The marker `drb receipts report` looks for before it replaces an existing index.html. */
export const REPORT_GENERATOR = 'drb receipts report';

/** Most dots one strip plot draws; beyond it every k-th sample in sorted order is drawn, and the caption says so. */
const MAX_STRIP_POINTS = 2000;
/** Most runs one run-order chart draws (the table lists every run). */
const MAX_ORDER_RUNS = 40;

const esc = htmlText;

/** A number for a table cell or a caption: 3 significant digits, or an en dash for no value. */
export function num(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : threeSignificant(value);
}

function pct(value: number): string {
  return `${threeSignificant(value * 100)}%`;
}

/** A table cell holding a number: the exact value and, when summary.json holds it, its path there. */
function numCell(label: string, value: number | null | undefined, summaryPath?: string, text?: string): string {
  const attrs =
    value === null || value === undefined
      ? ''
      : ` data-value="${String(value)}"${summaryPath ? ` data-summary="${esc(summaryPath)}"` : ''}`;
  return `<td class="num" data-label="${esc(label)}"${attrs}><span class="v">${text ?? num(value)}</span></td>`;
}

/** A number inside a sentence, marked with its path in summary.json like a table cell. */
function numSpan(value: number, summaryPath: string): string {
  return `<span data-value="${String(value)}" data-summary="${esc(summaryPath)}">${num(value)}</span>`;
}

/** A table cell holding (already escaped) HTML. */
function cell(label: string, html: string): string {
  return `<td data-label="${esc(label)}"><span class="v">${html}</span></td>`;
}

/** A table: caption, column headers, rows of cells; cards on a narrow screen. */
function table(
  caption: string,
  headers: readonly string[],
  rows: readonly string[],
  numeric: readonly boolean[] = [],
): string {
  const head = headers.map((h, i) => `<th scope="col"${numeric[i] ? ' class="num"' : ''}>${esc(h)}</th>`).join('');
  const body = rows.length > 0 ? rows.join('') : `<tr><td colspan="${headers.length}">none</td></tr>`;
  return `<div class="table-wrap"><table class="cards"><caption>${caption}</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/**
 * One chart with its heading: a cell of a section's grid (side by side on a wide screen; the whole row once its
 * table is open, so the table has the width). `wide`: a block whose table is shown open takes the whole row.
 */
function block(html: string, wide = false): string {
  return `<div class="block${wide ? ' wide' : ''}">${html}</div>`;
}

/** A section's chart blocks, laid out side by side where the screen is wide (one column on a phone). */
function grid(blocks: readonly string[]): string {
  return blocks.length === 0 ? '' : `<div class="grid">${blocks.join('')}</div>`;
}

/** A chart with a caption (its key numbers in words) and its numbers as a table. */
export function figure(id: string, kind: string, svg: string, caption: string, numbers: string): string {
  return (
    `<figure class="chart" id="${id}" data-chart="${kind}">${svg}<figcaption>${caption}</figcaption>` +
    `<details class="numbers"><summary>The numbers behind this chart (table)</summary>${numbers}</details></figure>`
  );
}

const code = (text: string) => `<code>${esc(text)}</code>`;

/** A route in a few characters (`wasm ×2`, `webgpu→wasm ×1`): see target-labels.ts. */
export { routeText };

/** A device as recorded, with its browser: `Pixel 8 Android, Chrome 131`. */
export function deviceText(device: TargetSummary['identity']['device']): string {
  const where = [device.model, device.platform].filter(Boolean).join(' ') || 'unknown device';
  return `${where}, ${browserLabel(device.user_agent)}`;
}

/** Whether a target met a minimum, in words (not colour alone). */
function met(ok: boolean): string {
  return ok ? '<span class="ok">✓ met</span>' : '<span class="bad">✗ not met</span>';
}

function stagesText(stages: ReadonlyArray<{ stage: string; count: number }>): string {
  return stages.length === 0 ? 'none' : stages.map((s) => `${s.count} at ${esc(s.stage)}`).join(', ');
}

// ---------------------------------------------------------------------------------------------------- sections

function header(data: ReportData): string {
  const i = data.summary.inputs;
  return (
    `<header><h1>Device receipts report</h1>` +
    `<p>${i.files} file(s): ${i.receipts_valid} device, ${i.generation_receipts_valid} generation, ${i.suite_receipts_valid} suite and ` +
    `${i.comparison_receipts_valid} comparison and ${i.sweep_receipts_valid ?? 0} sweep receipt(s) valid; ${i.receipts_invalid} invalid (left out); ${i.not_receipts} other file(s); ` +
    `${i.duplicates_identical + i.duplicates_conflicting} copied receipt id(s) counted once; ${i.interruptions} interrupted run(s) recorded. ` +
    `Protocol minimums per target: ${data.summary.protocol.min_cold} cold and ${data.summary.protocol.min_warm} warm clean ok receipts.</p>` +
    `<p class="muted">Evidence states: DEVICE_RECEIPT (receipts exist; not a pass) and DEVICE_PASS (a reviewed device procedure that met the ` +
    `minimums and thresholds). PUBLIC_PASS is recorded apart by <code>drb public-pass</code>; HUMAN_GO is a person's decision, never set by this tool.</p>` +
    `<nav aria-label="Sections"><ul>` +
    [
      ['targets', 'Targets'],
      ['cold', 'Cold runs'],
      ['warm', 'Warm runs'],
      ['memory', 'Memory beside time'],
      ['comparisons', 'Comparisons'],
      ['sweeps', 'Sweeps'],
      ['generation', 'Generation'],
      ['quality', 'Suites and quality'],
      ['interruptions', 'Interruptions'],
      ['inputs', 'Inputs'],
      ['method', 'How the numbers are made'],
    ]
      .map(([id, name]) => `<li><a href="#${id}">${name}</a></li>`)
      .join('') +
    `</ul></nav></header>`
  );
}

function targetsSection(data: ReportData): string {
  // Each target's route plus what tells it apart from every other target of the table (the model first).
  const labels = new Map([...distinguishingLabels(data.summary.targets)].map(([key, l]) => [key, l.label]));
  const rows = data.summary.targets.map((t) => {
    const p = `targets.${t.key}.counts`;
    const c = t.counts;
    const reasons = t.evidence.not_higher_because.length
      ? `<details><summary>why not higher (${t.evidence.not_higher_because.length})</summary><ul>${t.evidence.not_higher_because.map((r) => `<li>${esc(r)}</li>`).join('')}</ul></details>`
      : '';
    return (
      '<tr>' +
      cell('target', code(t.key)) +
      cell('model', esc(t.identity.model.id)) +
      cell('engine', esc(t.identity.engine.name)) +
      cell('route and what sets it apart', esc(labels.get(t.key) ?? routeText(t.identity.route))) +
      cell('device and browser', esc(deviceText(t.identity.device))) +
      cell('evidence', `<strong>${esc(t.evidence.state)}</strong>${reasons}`) +
      numCell(
        'full cold',
        c.full_cold,
        `${p}.full_cold`,
        `${c.full_cold} of ${c.min_cold} ${met(c.cold_minimum_met)}`,
      ) +
      numCell(
        'measured cold',
        c.measured_fresh_start,
        `${p}.measured_fresh_start`,
        `${c.measured_network_cold} network-cold, ${c.measured_fresh_start} from a fresh start`,
      ) +
      numCell('attested cold', c.attested_cold, `${p}.attested_cold`) +
      numCell(
        'clean warm',
        c.clean_warm,
        `${p}.clean_warm`,
        `${c.clean_warm} of ${c.min_warm} ${met(c.warm_minimum_met)}`,
      ) +
      numCell('failed', c.failed, `${p}.failed`) +
      numCell('noisy', c.noisy, `${p}.noisy`) +
      cell(
        'interrupted',
        `<span data-value="${c.interrupted}" data-summary="${esc(`${p}.interrupted`)}">${c.interrupted}</span>${c.interrupted ? ` (${stagesText(t.interrupted.by_stage)})` : ''}`,
      ) +
      '</tr>'
    );
  });
  const headers = [
    'target',
    'model',
    'engine',
    'route and what sets it apart',
    'device and browser',
    'evidence',
    'full protocol cold',
    'measured (network-cold, fresh start)',
    'attested (restart and clear)',
    'clean warm ok',
    'failed',
    'noisy',
    'interrupted (by stage)',
  ];
  return (
    `<section id="targets" aria-labelledby="targets-h"><h2 id="targets-h">Targets</h2>` +
    `<p>A target is one device, browser, build, engine, model, input and route. Clean runs are ok runs whose page stayed visible and unfrozen; only they count toward the minimums and the statistics. ` +
    `A cold run counts only as a full protocol cold: what the page measured (every byte over the network, from a fresh start: the tab's first page, navigated to, no earlier run) and what a tester or driver attested (browser quit and reopened, website data cleared), side by side here.</p>` +
    table('Device targets: evidence state, counts against the protocol minimums, interruptions', headers, rows, [
      false,
      false,
      false,
      false,
      false,
      false,
      true,
      true,
      true,
      true,
      true,
      true,
      false,
    ]) +
    `</section>`
  );
}

/** Targets grouped by model id (in summary order), so routes and devices of one model share an axis. */
function byModel<T extends { identity: { model: { id: string } } }>(
  targets: readonly T[],
): Array<{ model: string; targets: T[] }> {
  const groups: Array<{ model: string; targets: T[] }> = [];
  for (const t of targets) {
    const group = groups.find((g) => g.model === t.identity.model.id);
    if (group) group.targets.push(t);
    else groups.push({ model: t.identity.model.id, targets: [t] });
  }
  return groups;
}

/**
 * Chart labels for the targets shown together (one model's): each target's route plus only what tells it apart from
 * the others (distinguishingLabels), escaped; `legend` names the device(s), for the caption.
 */
function targetLabels(targets: ReadonlyArray<{ key: string; identity: TargetSummary['identity'] }>): {
  label: (key: string) => string;
  legend: string;
} {
  const labels = distinguishingLabels(targets);
  const devices = [...new Set(targets.map((t) => deviceText(t.identity.device)))];
  return {
    label: (key) => esc(labels.get(key)?.label ?? key),
    legend:
      devices.length > 1
        ? `Devices: ${devices.map((d) => esc(d)).join('; ')}.`
        : `Device: ${esc(devices[0] ?? 'unknown')}.`,
  };
}

/** Most bars one cold chart draws (the table lists every run). */
const MAX_COLD_BARS = 60;

/** A failed run in words, as its receipt recorded it: the stage (when it names one) and the reason. */
export function failureText(run: { failed_stage: string | null; failure_reason: string | null }): string {
  const stage = run.failed_stage === null ? 'failed' : `failed at ${run.failed_stage}`;
  return run.failure_reason ? `${stage}: ${run.failure_reason}` : `${stage} (no reason recorded)`;
}

/**
 * What the cold runs' receipts say about where their bytes came from (`run.cold_from_cache`) and how many are full
 * protocol colds (src/core/receipt/cold-start.ts), counted: the caption says it from the receipts' own fields, never
 * that it is not recorded when they carry it.
 */
export function cacheSentence(runs: ReadonlyArray<{ from_cache: boolean | null; protocol_cold: boolean }>): string {
  const network = runs.filter((r) => r.from_cache === false).length;
  const full = runs.filter((r) => r.from_cache === false && r.protocol_cold).length;
  const cached = runs.filter((r) => r.from_cache === true).length;
  const unknown = runs.length - network - cached;
  if (network + cached === 0)
    return ' None of these receipts records whether the bytes came from the network or a cache (run.cold_from_cache is null): every run is left out of the statistics.';
  const parts = [
    `${network} from the network (${full} of them full protocol colds, counted; the others left out)`,
    `${cached} served from a cache (left out)`,
  ];
  if (unknown > 0) parts.push(`${unknown} not recorded (left out)`);
  return ` Where the bytes came from, as each receipt records it (run.cold_from_cache): ${parts.join(', ')}.`;
}

/**
 * A cold run's cache state as a chart note: short, so the chart stays readable on a phone; why a run is not a protocol
 * cold (and that it is left out) is left to the table row under the chart, which shows it in full.
 * @param state the run's `cache_state` (report-collector.ts coldCacheState)
 */
function chartCacheState(state: string): string {
  return state.replace(/^network, not a protocol cold: .* \(left out\)$/, 'network; not a protocol cold');
}

function coldSection(data: ReportData): string {
  const parts: string[] = [];
  byModel(data.summary.targets).forEach(({ model, targets }, m) => {
    const runs = targets.flatMap((t) =>
      data.cold.filter((r) => r.target_key === t.key).map((r, i) => ({ t, r, n: i + 1 })),
    );
    if (runs.length === 0) return;
    const id = `cold-${m + 1}`;
    const names = targetLabels(targets);
    const bars: StackedRow[] = runs.slice(0, MAX_COLD_BARS).map(({ t, r, n }) => ({
      label: `${names.label(t.key)} #${n}`,
      segments: [
        { value: r.fetch_ms, color: COLORS.fetch, name: 'fetch' },
        { value: r.session_ms, color: COLORS.session, name: 'session' },
        { value: r.first_inference_ms, color: COLORS.first, name: 'first inference' },
      ],
      note:
        r.outcome === 'failed'
          ? `✗ ${esc(failureText(r))}`
          : // The cache state on a line of its own (a forced break: wrapText).
            `${r.noisy ? 'noisy (page hidden or frozen): left out; ' : ''}total ${num(r.total_ms)} ms;\ncache: ${esc(chartCacheState(r.cache_state))}`,
    }));
    const { svg, log } = stackedBarsSvg(
      id,
      bars,
      `Cold runs of ${esc(model)}`,
      `One bar per cold receipt of ${esc(model)}: model fetch, session creation and first inference, in milliseconds.`,
      'milliseconds',
    );
    const rows: string[] = [];
    const said: string[] = [];
    for (const t of targets) {
      const own = runs.filter((x) => x.t === t);
      if (own.length === 0) continue;
      const who = `${code(t.key)} ${names.label(t.key)}`;
      for (const { r, n } of own) {
        rows.push(
          '<tr>' +
            cell('target', who) +
            cell('run', `#${n} ${code(r.receipt_id)}`) +
            cell('time', esc(r.created_at)) +
            cell(
              'outcome',
              r.outcome === 'ok'
                ? r.noisy
                  ? 'ok, noisy (left out)'
                  : 'ok'
                : `<span class="bad">✗ ${esc(failureText(r))}</span>`,
            ) +
            numCell('fetch ms', r.fetch_ms) +
            numCell('session ms', r.session_ms) +
            numCell('first inference ms', r.first_inference_ms) +
            numCell('total ms', r.total_ms) +
            cell('cache', esc(r.cache_state)) +
            '</tr>',
        );
      }
      const s = `targets.${t.key}.cold`;
      if ((t.cold.total_ms?.count ?? 0) === 0) {
        // No clean ok run: no statistic to show, said once in words rather than as empty median and p95 cards.
        rows.push(`<tr class="stat"><td colspan="9">${who}: no clean ok cold run, so no median or p95.</td></tr>`);
      } else {
        for (const stat of ['median', 'p95'] as const) {
          rows.push(
            `<tr class="stat">` +
              cell('target', who) +
              cell('run', `${stat} of the clean ok runs`) +
              cell('time', '') +
              cell('outcome', `n = ${t.cold.total_ms?.count ?? 0}`) +
              numCell('fetch ms', t.cold.fetch_ms?.[stat], `${s}.fetch_ms.${stat}`) +
              numCell('session ms', t.cold.session_ms?.[stat], `${s}.session_ms.${stat}`) +
              numCell('first inference ms', t.cold.first_inference_ms?.[stat], `${s}.first_inference_ms.${stat}`) +
              numCell('total ms', t.cold.total_ms?.[stat], `${s}.total_ms.${stat}`) +
              cell('cache', '') +
              '</tr>',
          );
        }
      }
      said.push(
        t.cold.total_ms
          ? `${names.label(t.key)}: total median ${num(t.cold.total_ms.median)} ms (fetch ${num(t.cold.fetch_ms?.median)}, session ${num(t.cold.session_ms?.median)}, first inference ${num(t.cold.first_inference_ms?.median)}), p95 ${num(t.cold.total_ms.p95)} ms`
          : `${names.label(t.key)}: no clean ok cold run`,
      );
    }
    const caption =
      `Cold runs of ${esc(model)}${log ? ' (log scale)' : ''}, ${runs.length} receipt(s). ${names.legend}` +
      (runs.length > MAX_COLD_BARS ? ` The chart shows the first ${MAX_COLD_BARS}; the table lists all.` : '') +
      cacheSentence(runs.map((x) => x.r)) +
      `<ul>${said.map((x) => `<li>${x}</li>`).join('')}</ul>`;
    parts.push(
      block(
        `<h3>${esc(model)}</h3>` +
          figure(
            id,
            'cold-stages',
            svg,
            caption,
            table(
              `Cold runs of ${esc(model)}, in ms`,
              ['target', 'run', 'time', 'outcome', 'fetch ms', 'session ms', 'first inference ms', 'total ms', 'cache'],
              rows,
              [false, false, false, false, true, true, true, true, false],
            ),
          ),
      ),
    );
  });
  return `<section id="cold" aria-labelledby="cold-h"><h2 id="cold-h">Cold runs: where the first load goes</h2>${grid(parts) || '<p>No cold receipts.</p>'}</section>`;
}

/** Every k-th value of the sorted samples, so at most MAX_STRIP_POINTS dots are drawn. */
function thin(samples: readonly number[]): { shown: number[]; note: string } {
  if (samples.length <= MAX_STRIP_POINTS) return { shown: [...samples], note: '' };
  const sorted = [...samples].sort((a, b) => a - b);
  const k = Math.ceil(sorted.length / MAX_STRIP_POINTS);
  return {
    shown: sorted.filter((_, i) => i % k === 0),
    note: ` The dots show every ${k}th of the ${samples.length} samples in sorted order; the statistics use all of them.`,
  };
}

function intervalText(interval: { low: number; high: number; resampled: string } | null, unit: string): string {
  if (interval === null) return 'no interval';
  const how =
    interval.resampled === 'receipts'
      ? 'whole receipts resampled'
      : 'one receipt: its samples resampled, noise within that run only';
  return `95% interval of the median ${num(interval.low)} to ${num(interval.high)} ${unit} (${how})`;
}

function warmSection(data: ReportData): string {
  const parts: string[] = [];
  byModel(data.summary.targets).forEach(({ model, targets }, m) => {
    const withWarm = targets.filter((t) => t.warm.pooled_ms !== null);
    if (withWarm.length === 0) return;
    const rows: DistributionRow[] = [];
    const tableRows: string[] = [];
    const said: string[] = [];
    const notes: string[] = [];
    const names = targetLabels(withWarm);
    for (const t of withWarm) {
      const pooled = t.warm.pooled_ms!;
      const runs = data.warm.filter((r) => r.target_key === t.key && r.outcome === 'ok' && !r.noisy);
      const samples = runs.flatMap((r) => r.samples_ms);
      const p25 = percentile(samples, 25)!;
      const p75 = percentile(samples, 75)!;
      const interval = t.warm.median_interval;
      const { shown, note } = thin(samples);
      if (note) notes.push(`${names.label(t.key)}:${note}`);
      rows.push({
        label: names.label(t.key),
        samples: shown,
        marks: { median: pooled.median, p95: pooled.p95, p25, p75, min: pooled.min, max: pooled.max, interval },
      });
      const s = `targets.${t.key}.warm`;
      tableRows.push(
        '<tr>' +
          cell('target', `${code(t.key)} ${names.label(t.key)}, ${esc(deviceText(t.identity.device))}`) +
          numCell('receipts', runs.length) +
          numCell('samples', pooled.count, `${s}.pooled_ms.count`) +
          numCell('median', pooled.median, `${s}.pooled_ms.median`) +
          numCell('p95', pooled.p95, `${s}.pooled_ms.p95`) +
          numCell('min', pooled.min, `${s}.pooled_ms.min`) +
          numCell('max', pooled.max, `${s}.pooled_ms.max`) +
          numCell('25th pct', p25) +
          numCell('75th pct', p75) +
          numCell('median 95% interval low', interval?.low, `${s}.median_interval.low`) +
          numCell('median 95% interval high', interval?.high, `${s}.median_interval.high`) +
          cell('resampled', esc(interval?.resampled ?? '–')) +
          '</tr>',
      );
      said.push(
        `${names.label(t.key)}: median ${num(pooled.median)} ms, p95 ${num(pooled.p95)} ms over ${pooled.count} samples, ${intervalText(interval, 'ms')}`,
      );
    }
    const { svg, log } = distributionRowsSvg(
      `warm-${m + 1}`,
      rows,
      `Warm samples of ${esc(model)}`,
      `One row per target: every clean warm sample as a dot, box from the 25th to the 75th percentile, whiskers to min and max, median, p95, and the median's 95% interval.`,
      'milliseconds per run',
    );
    const caption =
      `Warm samples of ${esc(model)}${log ? ' (log scale)' : ''}. ${names.legend}${notes.length ? ` ${notes.join(' ')}` : ''}` +
      `<ul>${said.map((x) => `<li>${x}</li>`).join('')}</ul>`;
    parts.push(
      `<h3>${esc(model)}</h3>` +
        figure(
          `warm-fig-${m + 1}`,
          'warm-distribution',
          svg,
          caption,
          table(
            `Warm samples of ${esc(model)} by target (clean receipts pooled), in ms`,
            [
              'target',
              'receipts',
              'samples',
              'median',
              'p95',
              'min',
              'max',
              '25th pct',
              '75th pct',
              'median 95% interval low',
              'median 95% interval high',
              'resampled',
            ],
            tableRows,
            [false, true, true, true, true, true, true, true, true, true, true, false],
          ),
        ),
    );
    for (const t of withWarm) parts.push(orderFigure(t, data, model, names.label(t.key)));
  });
  return `<section id="warm" aria-labelledby="warm-h"><h2 id="warm-h">Warm runs: spread, drift and jumps</h2>${grid(parts.map((p) => block(p))) || '<p>No clean warm samples.</p>'}</section>`;
}

/** One target's warm receipts in run order, with each one's thermal slope and drift (`label`: its escaped label). */
function orderFigure(t: TargetSummary, data: ReportData, model: string, label: string): string {
  const runs = data.warm.filter((r) => r.target_key === t.key && r.outcome === 'ok' && !r.noisy);
  const left = data.warm.filter((r) => r.target_key === t.key && !(r.outcome === 'ok' && !r.noisy)).length;
  const s = `targets.${t.key}.warm`;
  const order = runs.slice(0, MAX_ORDER_RUNS).map((r, i) => ({
    label: String(i + 1),
    samples: r.samples_ms,
    firstFifth: r.first_fifth_median_ms,
    lastFifth: r.last_fifth_median_ms,
  }));
  const svg = runOrderSvg(
    `order-${t.key}`,
    order,
    `Warm samples of ${esc(t.label)} in run order`,
    `Each clean warm receipt's samples in the order they ran, receipts side by side; green lines are the medians of each receipt's first and last fifth.`,
    'ms',
  );
  const rows = runs.map(
    (r, i) =>
      '<tr>' +
      cell('run', `${i + 1}. ${code(r.receipt_id)}`) +
      cell('time', esc(r.created_at)) +
      numCell('samples', r.samples_ms.length) +
      numCell('first fifth median ms', r.first_fifth_median_ms) +
      numCell('last fifth median ms', r.last_fifth_median_ms) +
      numCell('thermal slope', r.thermal_slope) +
      numCell('drift ms per run', r.drift_ms_per_run) +
      '</tr>',
  );
  rows.push(
    `<tr class="stat">` +
      cell('run', 'median over the receipts') +
      cell('time', '') +
      numCell('samples', null) +
      numCell('first fifth median ms', null) +
      numCell('last fifth median ms', null) +
      numCell('thermal slope', t.warm.thermal_slope?.median, `${s}.thermal_slope.median`) +
      numCell('drift ms per run', t.warm.drift_ms_per_run?.median, `${s}.drift_ms_per_run.median`) +
      '</tr>',
  );
  const slope = t.warm.thermal_slope;
  const caption =
    `${code(t.key)}: ` +
    (slope
      ? `thermal slope (last fifth over first fifth; above 1 = the run slowed down) median ${num(slope.median)}, max ${num(slope.max)} over ${slope.count} receipt(s)`
      : 'no receipt with the 5 samples a thermal slope needs') +
    (t.warm.drift_ms_per_run ? `; drift (Theil-Sen) median ${num(t.warm.drift_ms_per_run.median)} ms per run.` : '.') +
    (runs.length > MAX_ORDER_RUNS
      ? ` The chart shows the first ${MAX_ORDER_RUNS} of ${runs.length} receipts; the table lists all.`
      : '') +
    (left ? ` ${left} warm receipt(s) left out (failed, or page hidden or frozen).` : '');
  return (
    `<h4>${esc(model)} · ${label} on ${esc(deviceText(t.identity.device))}: samples in run order</h4>` +
    figure(
      `order-fig-${t.key}`,
      'warm-order',
      svg,
      caption,
      table(
        `Warm receipts of ${code(t.key)} in run order`,
        [
          'run',
          'time',
          'samples',
          'first fifth median ms',
          'last fifth median ms',
          'thermal slope',
          'drift ms per run',
        ],
        rows,
        [false, false, true, true, true, true, true],
      ),
    )
  );
}

function verdictWords(verdict: string | null): string {
  if (verdict === null) return 'no verdict';
  return verdict === 'no-clear-difference' ? 'no clear difference (a tie)' : verdict;
}

const MIB = 1024 * 1024;

/**
 * The memory each target's model took, as its receipts measured it (the runtime's WebAssembly memory at its peak and
 * the GPU buffers it kept live), drawn beside its times: one bar per target, its note the cold p95 and warm median,
 * and where the work ran. Targets whose receipts measured nothing are named, never drawn as zero.
 */
function memorySection(data: ReportData): string {
  const parts: string[] = [];
  byModel(data.summary.targets).forEach(({ model, targets }, m) => {
    const id = `memory-${m + 1}`;
    const names = targetLabels(targets);
    const measured = targets.filter((t) => t.memory?.measured_bytes !== null && t.memory?.measured_bytes !== undefined);
    const none = targets.filter((t) => !measured.includes(t));
    const whereText = (t: TargetSummary) => {
      const p = t.placement;
      if (!p) return '';
      if (p.source === 'webgpu-by-construction') return '; all on WebGPU by construction';
      return `; ${p.cpu_nodes} of ${p.total_nodes} nodes on the CPU${p.partial_fallback_receipts > 0 ? ' (partial fallback)' : ''}`;
    };
    const timeText = (t: TargetSummary) =>
      `cold p95 ${num(t.cold.total_ms?.p95)} ms, warm median ${num(t.warm.pooled_ms?.median)} ms`;
    const bars: StackedRow[] = measured.map((t) => ({
      label: names.label(t.key),
      segments: [
        { value: (t.memory!.wasm_peak_bytes ?? 0) / MIB, color: COLORS.fetch, name: 'WebAssembly memory' },
        { value: (t.memory!.gpu_peak_live_bytes ?? 0) / MIB, color: COLORS.session, name: 'GPU buffers (peak live)' },
      ],
      note: `${num(t.memory!.measured_bytes! / MIB)} MiB; ${timeText(t)}${esc(whereText(t))}`,
    }));
    const rows = targets.map((t) => {
      const s = `targets.${t.key}.memory`;
      return (
        '<tr>' +
        cell('target', `${code(t.key)} ${names.label(t.key)}`) +
        numCell('WebAssembly bytes', t.memory?.wasm_peak_bytes ?? null, `${s}.wasm_peak_bytes`) +
        numCell('GPU buffer bytes', t.memory?.gpu_peak_live_bytes ?? null, `${s}.gpu_peak_live_bytes`) +
        numCell(
          'measured bytes',
          t.memory?.measured_bytes ?? null,
          `${s}.measured_bytes`,
          t.memory?.measured_bytes == null ? 'not measured' : undefined,
        ) +
        numCell('cold total p95 ms', t.cold.total_ms?.p95, `targets.${t.key}.cold.total_ms.p95`) +
        numCell('warm median ms', t.warm.pooled_ms?.median, `targets.${t.key}.warm.pooled_ms.median`) +
        numCell(
          'CPU nodes',
          t.placement?.cpu_nodes ?? null,
          t.placement ? `targets.${t.key}.placement.cpu_nodes` : undefined,
        ) +
        numCell(
          'nodes',
          t.placement?.total_nodes ?? null,
          t.placement ? `targets.${t.key}.placement.total_nodes` : undefined,
        ) +
        '</tr>'
      );
    });
    const numbers = table(
      `Memory and time of ${esc(model)}`,
      [
        'target',
        'WebAssembly bytes',
        'GPU buffer bytes',
        'measured bytes',
        'cold total p95 ms',
        'warm median ms',
        'CPU nodes',
        'nodes',
      ],
      rows,
      [false, true, true, true, true, true, true, true],
    );
    if (bars.length === 0) {
      parts.push(
        block(
          `<h3>${esc(model)}</h3><p>No receipt of ${esc(model)} measured the memory its model took (receipts from before the page recorded memory): nothing is drawn.</p>${numbers}`,
          true,
        ),
      );
      return;
    }
    const { svg, log } = stackedBarsSvg(
      id,
      bars,
      `Memory of ${esc(model)}`,
      `One bar per target of ${esc(model)}: the most memory one receipt measured the model taking, in MiB, with its times in the note.`,
      'MiB',
    );
    const caption =
      `The memory ${esc(model)} took, as its receipts measured it (largest in one receipt: WebAssembly memory at its peak plus the peak of live GPU buffers), beside its times. ${names.legend}` +
      (none.length > 0
        ? ` No measured memory figure for ${none.map((t) => code(t.key)).join(', ')} (receipts from before the page recorded memory, or a browser that gives none): not drawn.`
        : '');
    parts.push(
      block(
        `<h3>${esc(model)}</h3>${figure(id, 'memory-time', svg, `${log ? '(Log scale.) ' : ''}${caption}`, numbers)}`,
      ),
    );
  });
  return `<section id="memory" aria-labelledby="memory-h"><h2 id="memory-h">Memory beside time: what the model took</h2>${grid(parts) || '<p>No device targets.</p>'}</section>`;
}

function comparisonBlock(entry: ComparisonEntry, detail: ComparisonDetail | undefined): string {
  const id = `cmp-${entry.receipt_id}`;
  const safeId = `cmp-${entry.receipt_id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const base = `comparisons.${entry.receipt_id}.ranked`;
  const ranked = new Map(entry.ranked.map((r) => [r.route_id, r]));
  const routes = detail?.routes ?? [];
  const sentences = routes
    .filter((r) => r.route_id !== entry.baseline_route_id && r.valid && r.ratio_to_baseline !== null)
    .sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0))
    .map((r) => {
      const h = ranked.get(r.route_id);
      return `<li>${esc(ratioSentence(r.route_id, entry.baseline_route_id, r.ratio_to_baseline!, h?.ratio_interval ?? null))}</li>`;
    });
  for (const r of routes.filter((x) => !x.valid))
    sentences.push(
      `<li><span class="bad">✗ ${esc(r.route_id)} is invalid</span>: ${esc(r.invalid_reason ?? 'no reason')} (never ranked)</li>`,
    );
  const forestRows: ForestRow[] = routes.map((r) => {
    if (!r.valid) return { label: esc(r.route_id), ratio: null, low: null, high: null, note: 'invalid: not compared' };
    if (r.route_id === entry.baseline_route_id)
      return { label: esc(r.route_id), ratio: 1, low: null, high: null, note: 'baseline' };
    return {
      label: esc(r.route_id),
      ratio: r.ratio_to_baseline,
      low: r.interval_low,
      high: r.interval_high,
      note: `${num(r.ratio_to_baseline)}x, ${esc(verdictWords(r.verdict))}`,
    };
  });
  const svg = forestSvg(
    safeId,
    forestRows,
    `Time ratios against ${esc(entry.baseline_route_id)}`,
    `Each valid route's median time over the baseline's, with its bootstrap 95% interval; an interval crossing 1 is no clear difference.`,
    `time ratio to ${esc(entry.baseline_route_id)} (log scale)`,
  );
  const rows = routes.map((r) => {
    const h = ranked.get(r.route_id);
    const p = `${base}.${r.route_id}`;
    const summaryPath = (field: string) => (h ? `${p}.${field}` : undefined);
    return (
      `<tr${r.valid ? '' : ' class="invalid"'}>` +
      cell('route', `${esc(r.route_id)}${r.route_id === entry.baseline_route_id ? ' (baseline)' : ''}`) +
      cell(
        'ran on',
        esc(
          r.completed_ep === null
            ? `${r.requested_ep} (did not run)`
            : `${r.requested_ep} → ${r.completed_ep}${r.threads_effective === null ? '' : ` ×${r.threads_effective}`}`,
        ),
      ) +
      cell('valid', r.valid ? 'valid' : `<span class="bad">✗ invalid: ${esc(r.invalid_reason ?? 'no reason')}</span>`) +
      numCell('rank by median', h?.rank ?? null, summaryPath('rank'), h ? String(h.rank) : 'not ranked') +
      numCell('median ms', h?.median_ms ?? r.median_ms, summaryPath('median_ms')) +
      numCell('p95 ms', h?.p95_ms ?? r.p95_ms, summaryPath('p95_ms')) +
      numCell('time ratio', h?.ratio_to_baseline ?? null, summaryPath('ratio_to_baseline')) +
      numCell('95% interval low', h?.ratio_interval?.low ?? null, summaryPath('ratio_interval.low')) +
      numCell('95% interval high', h?.ratio_interval?.high ?? null, summaryPath('ratio_interval.high')) +
      cell(
        'verdict',
        r.route_id === entry.baseline_route_id
          ? 'baseline'
          : r.valid
            ? esc(verdictWords(h?.verdict ?? null))
            : 'not compared',
      ) +
      numCell('largest score difference', r.max_abs_diff) +
      cell('same order', r.same_order === null ? '–' : r.same_order ? 'yes' : '<span class="bad">✗ no</span>') +
      '</tr>'
    );
  });
  const software =
    detail?.software_adapter && routes.some((r) => r.requested_ep === 'webgpu')
      ? `<p class="warn">⚠ The WebGPU adapter was a software (fallback) adapter: WebGPU timings here are not representative of a GPU.</p>`
      : '';
  const meta = detail ? `${detail.rounds} interleaved round(s), schedule seed ${detail.seed}; ` : '';
  return (
    `<article class="comparison" id="${esc(id)}"><h3>${esc(entry.label)}</h3>` +
    `<p>${meta}baseline ${esc(entry.baseline_route_id)}; outcome ${esc(entry.outcome)}${entry.reason ? `: ${esc(entry.reason)}` : ''}; receipt ${code(entry.receipt_id)}.</p>${software}` +
    (entry.placement_note ? `<p class="warn">⚠ Where the work ran: ${esc(entry.placement_note)}.</p>` : '') +
    `<ul class="verdicts">${sentences.join('')}</ul>` +
    (entry.stopping ? `<p>Stopping: ${esc(entry.stopping.sentence)}.</p>` : '') +
    (entry.device_state
      ? `<p class="${entry.device_state.flagged ? 'warn' : 'muted'}">${entry.device_state.flagged ? '⚠ Device state flagged: ' : 'Device state: '}${esc(entry.device_state.line)}</p>`
      : '') +
    figure(
      `${safeId}-fig`,
      'comparison-ratios',
      svg,
      `Time ratio of each route to ${esc(entry.baseline_route_id)} (below 1 = faster) with its 95% interval (paired bootstrap over the rounds). An interval that contains 1 is no clear difference, whatever the rank.`,
      table(
        `Routes of comparison ${code(entry.receipt_id)}`,
        [
          'route',
          'ran on',
          'valid',
          'rank by median',
          'median ms',
          'p95 ms',
          'time ratio',
          '95% interval low',
          '95% interval high',
          'verdict',
          'largest score difference',
          'same order',
        ],
        rows,
        [false, false, false, true, true, true, true, true, true, false, true, false],
      ),
    ) +
    `</article>`
  );
}

function comparisonsSection(data: ReportData): string {
  const blocks = data.summary.comparisons.map((entry) =>
    comparisonBlock(
      entry,
      data.comparisons.find((d) => d.receipt_id === entry.receipt_id),
    ),
  );
  return (
    `<section id="comparisons" aria-labelledby="comparisons-h"><h2 id="comparisons-h">Comparisons: which route is faster, and how sure</h2>` +
    `<p>Routes run interleaved on one device. A route that failed, fell back or disagreed with the baseline's scores is invalid: shown, never ranked or compared.</p>` +
    `${blocks.join('') || '<p>No comparison receipts.</p>'}</section>`
  );
}

function endText(end: CrossoverEnd): string {
  return end === 'below-range' ? 'below the range' : end === 'beyond-range' ? 'beyond the range' : num(end);
}

function sweepBlock(entry: SweepEntry): string {
  const safeId = `sweep-${entry.receipt_id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const base = `sweeps.${entry.receipt_id}`;
  const units = entry.dimension === 'sequence-length' ? 'tokens' : esc(entry.dimension);
  const c = entry.crossover;
  const svg = sweepCurveSvg(
    safeId,
    entry.points.map((p) => ({
      size: p.size,
      ratio: p.ratio_to_baseline,
      low: p.interval?.low ?? null,
      high: p.interval?.high ?? null,
    })),
    c.status === 'crossover' && c.estimate !== null && c.interval !== null
      ? { estimate: c.estimate, low: c.interval.low, high: c.interval.high }
      : null,
    `Time ratio of ${esc(entry.other_route_id)} to ${esc(entry.baseline_route_id)} by size`,
    `At each size, the median time of ${esc(entry.other_route_id)} over ${esc(entry.baseline_route_id)}'s with its bootstrap 95% interval; below 1, ${esc(entry.other_route_id)} is faster.`,
    `${units} (log scale)`,
  );
  const rows = entry.points.map((p) => {
    const at = `${base}.points.${p.size}`;
    return (
      `<tr${p.valid ? '' : ' class="invalid"'}>` +
      numCell('size', p.size, `${at}.size`) +
      cell('valid', p.valid ? 'valid' : `<span class="bad">✗ invalid: ${esc(p.invalid_reason ?? 'no reason')}</span>`) +
      numCell('rounds', p.rounds, `${at}.rounds`) +
      cell('stopped', esc(p.stop_reason)) +
      numCell(`${entry.baseline_route_id} median ms`, p.baseline_median_ms, `${at}.baseline_median_ms`) +
      numCell(`${entry.other_route_id} median ms`, p.other_median_ms, `${at}.other_median_ms`) +
      numCell('time ratio', p.ratio_to_baseline, `${at}.ratio_to_baseline`) +
      numCell('95% interval low', p.interval?.low ?? null, `${at}.interval.low`) +
      numCell('95% interval high', p.interval?.high ?? null, `${at}.interval.high`) +
      cell('verdict', p.valid ? esc(verdictWords(p.verdict)) : 'not compared') +
      '</tr>'
    );
  });
  const crossoverNumbers =
    c.status === 'crossover'
      ? `<p>Crossover: ${esc(c.winner ?? '')} from ${numSpan(c.first_clear_size!, `${base}.crossover.first_clear_size`)} ${units}; ` +
        `the median ratios cross at ${typeof c.estimate === 'number' ? numSpan(c.estimate, `${base}.crossover.estimate`) : endText(c.estimate!)} ${units}` +
        (c.interval === null ? '' : `, 95% interval ${endText(c.interval.low)} to ${endText(c.interval.high)}`) +
        '.</p>'
      : '';
  const software = entry.software_adapter
    ? `<p class="warn">⚠ A WebGPU route ran on a software (fallback) adapter: its timings are not representative of a GPU.</p>`
    : '';
  const flagged = entry.device_state.flagged
    ? `<p class="warn">⚠ Device state flagged: ${esc(entry.device_state.line)}</p>`
    : `<p class="muted">Device state: ${esc(entry.device_state.line)}</p>`;
  return (
    `<article class="sweep" id="${esc(safeId)}"><h3>${esc(entry.label)}</h3>` +
    `<p>Baseline ${esc(entry.baseline_route_id)}; outcome ${esc(entry.outcome)}${entry.reason ? `: ${esc(entry.reason)}` : ''}; receipt ${code(entry.receipt_id)}.</p>${software}` +
    `<p><strong>${esc(entry.sentence)}</strong></p>${crossoverNumbers}${flagged}` +
    figure(
      `${safeId}-fig`,
      'sweep-curve',
      svg,
      `Time ratio of ${esc(entry.other_route_id)} to ${esc(entry.baseline_route_id)} at each size (below 1 = ${esc(entry.other_route_id)} faster) with its 95% interval (paired bootstrap over that size's rounds); an invalid size is a cross on the line at 1. ` +
        (c.status === 'crossover'
          ? 'The dashed line is the crossover estimate, the shaded band its 95% interval.'
          : esc(entry.sentence)),
      table(
        `Sizes of sweep ${code(entry.receipt_id)}`,
        [
          'size',
          'valid',
          'rounds',
          'stopped',
          `${entry.baseline_route_id} median ms`,
          `${entry.other_route_id} median ms`,
          'time ratio',
          '95% interval low',
          '95% interval high',
          'verdict',
        ],
        rows,
        [true, false, true, false, true, true, true, true, true, false],
      ),
    ) +
    `</article>`
  );
}

function sweepsSection(data: ReportData): string {
  const sweeps = data.summary.sweeps ?? [];
  return (
    `<section id="sweeps" aria-labelledby="sweeps-h"><h2 id="sweeps-h">Sweeps: where one route starts to win</h2>` +
    `<p>Two routes, interleaved and paired, over a ladder of work sizes. A size whose routes disagree is invalid and takes no part in the crossover: the size where the ratio's interval first lies clear of 1 in the other route's favour.</p>` +
    `${sweeps.map(sweepBlock).join('') || '<p>No sweep receipts.</p>'}</section>`
  );
}

/**
 * Answer quality and ranking of one model's generation targets: the individual metrics first (from the answer-score
 * report summarised with the receipts), then whether the row is ranked under each budget profile, with every reason
 * when it is not; the fit score comes last, a secondary ordering within one device and profile.
 */
function qualityTable(
  model: string,
  targets: readonly ReportData['summary']['generation_targets'][number][],
  label: (key: string) => string,
): string {
  if (!targets.some((g) => g.ranking !== undefined)) return '';
  const pctCell = (name: string, value: number | null | undefined, path: string) =>
    numCell(name, value, path, value === null || value === undefined ? '–' : `${num(value * 100)}%`);
  const rows = targets.map((g) => {
    const q = g.quality ?? null;
    const s = `generation_targets.${g.key}.quality`;
    const ranking = g.ranking;
    const verdicts = (ranking?.profiles ?? []).map((p) =>
      p.ranked
        ? `<li>${esc(p.profile)}: ranked, fit ${num(p.fit!.score)}</li>`
        : `<li>${esc(p.profile)}: <span class="bad">✗ not ranked</span>: ${esc(p.not_ranked_because.join('; '))}</li>`,
    );
    return (
      '<tr>' +
      cell('target', `${code(g.key)} ${label(g.key)}`) +
      cell(
        'class',
        ranking
          ? `${esc(ranking.row_class.class)}${ranking.row_class.because.length ? `: ${esc(ranking.row_class.because.join('; '))}` : ''}`
          : '–',
      ) +
      numCell(
        'quality mean',
        q?.quality_score,
        `${s}.quality_score`,
        q?.quality_score === null || q === null ? '–' : undefined,
      ) +
      numCell(
        'quality worst',
        q?.worst_quality_score,
        `${s}.worst_quality_score`,
        q?.worst_quality_score === null || q === null ? '–' : undefined,
      ) +
      pctCell('critical-claim recall', q?.critical_claim_recall, `${s}.critical_claim_recall`) +
      pctCell('claim recall', q?.claim_recall, `${s}.claim_recall`) +
      pctCell('safety', q?.safety_rate, `${s}.safety_rate`) +
      pctCell('citation validity', q?.citation_validity, `${s}.citation_validity`) +
      pctCell('pass rate mean', q?.pass_rate, `${s}.pass_rate`) +
      pctCell('pass rate worst', q?.worst_pass_rate, `${s}.worst_pass_rate`) +
      cell('ranked (fit, secondary)', verdicts.length ? `<ul>${verdicts.join('')}</ul>` : '–') +
      '</tr>'
    );
  });
  return (
    `<p>Answer quality leads; a row is ranked only when every case was answered in every repetition on a physical device with no fallback, crash or interruption, ` +
    `quality at least 70 and critical-claim recall at least 90%, every performance number measured and the profile's budgets met. The fit score orders ranked rows within one device and profile only.</p>` +
    table(
      `Answer quality and ranking of ${esc(model)}`,
      [
        'target',
        'class',
        'quality mean',
        'quality worst',
        'critical-claim recall',
        'claim recall',
        'safety',
        'citation validity',
        'pass rate mean',
        'pass rate worst',
        'ranked (fit, secondary)',
      ],
      rows,
      [false, false, true, true, true, true, true, true, true, true, false],
    )
  );
}

function generationSection(data: ReportData): string {
  const parts: string[] = [];
  byModel(data.summary.generation_targets).forEach(({ model, targets }, m) => {
    const ttftRows: DistributionRow[] = [];
    const decodeRows: DistributionRow[] = [];
    const ttftTable: string[] = [];
    const decodeTable: string[] = [];
    const counts: string[] = [];
    const names = targetLabels(targets);
    for (const g of targets) {
      const runs = data.generation.filter((r) => r.target_key === g.key && !r.noisy);
      const ttft = runs.flatMap((r) => r.ttft_ms);
      const decode = runs.flatMap((r) => r.decode_tokens_per_s);
      const s = `generation_targets.${g.key}`;
      const label = names.label(g.key);
      const c = g.counts;
      counts.push(
        `${code(g.key)} ${label} on ${esc(deviceText(g.identity.device))}: runs ${c.ok} ok of ${c.receipts} (failed ${c.failed}, noisy ${c.noisy}); samples ok ${c.ok_samples}, failed ${c.failed_samples}, truncated ${c.truncations}; ` +
          `cold load median ${num(g.load_ms?.median)} ms (kept out of every warm figure); interrupted ${c.interrupted}${c.interrupted ? ` (${stagesText(g.interrupted.by_stage)})` : ''}; evidence ${esc(g.evidence.state)}`,
      );
      if (g.ttft_ms !== null && ttft.length > 0) {
        ttftRows.push({
          label,
          samples: thin(ttft).shown,
          marks: {
            median: g.ttft_ms.median,
            p95: g.ttft_ms.p95,
            p25: percentile(ttft, 25)!,
            p75: percentile(ttft, 75)!,
            min: g.ttft_ms.min,
            max: g.ttft_ms.max,
            interval: g.ttft_median_interval,
          },
        });
        ttftTable.push(
          '<tr>' +
            cell('target', `${code(g.key)} ${label}`) +
            numCell('samples', g.ttft_ms.count, `${s}.ttft_ms.count`) +
            numCell('median', g.ttft_ms.median, `${s}.ttft_ms.median`) +
            numCell('p95', g.ttft_ms.p95, `${s}.ttft_ms.p95`) +
            numCell('min', g.ttft_ms.min, `${s}.ttft_ms.min`) +
            numCell('max', g.ttft_ms.max, `${s}.ttft_ms.max`) +
            numCell('median 95% interval low', g.ttft_median_interval?.low, `${s}.ttft_median_interval.low`) +
            numCell('median 95% interval high', g.ttft_median_interval?.high, `${s}.ttft_median_interval.high`) +
            '</tr>',
        );
      }
      const d = g.decode_tokens_per_s;
      if (d !== null && decode.length > 0) {
        decodeRows.push({
          label,
          samples: thin(decode).shown,
          marks: {
            median: d.median,
            p95: d.p95,
            p25: percentile(decode, 25)!,
            p75: percentile(decode, 75)!,
            min: d.min,
            max: d.max,
            interval: null,
          },
        });
        decodeTable.push(
          '<tr>' +
            cell('target', `${code(g.key)} ${label}`) +
            numCell('samples', d.count, `${s}.decode_tokens_per_s.count`) +
            numCell('median', d.median, `${s}.decode_tokens_per_s.median`) +
            numCell('p95', d.p95, `${s}.decode_tokens_per_s.p95`) +
            numCell('min', d.min, `${s}.decode_tokens_per_s.min`) +
            numCell('max', d.max, `${s}.decode_tokens_per_s.max`) +
            numCell('sustained ratio median', g.decode_sustained_ratio?.median, `${s}.decode_sustained_ratio.median`) +
            numCell('sustained ratio min', g.decode_sustained_ratio?.min, `${s}.decode_sustained_ratio.min`) +
            '</tr>',
        );
      }
    }
    const intro = `<h3>${esc(model)}</h3><p>${names.legend}</p><ul>${counts.map((c) => `<li>${c}</li>`).join('')}</ul>`;
    // The quality table at the page's width, then the TTFT and decode charts side by side.
    const charts: string[] = [];
    if (ttftRows.length) {
      const { svg, log } = distributionRowsSvg(
        `gen-ttft-${m + 1}`,
        ttftRows,
        `Time to first token of ${esc(model)}`,
        'One row per target: every ok sample of the clean runs, time to first token in milliseconds.',
        'time to first token, ms',
      );
      charts.push(
        figure(
          `gen-ttft-fig-${m + 1}`,
          'generation-ttft',
          svg,
          `Time to first token of ${esc(model)}${log ? ' (log scale)' : ''}: ${targets
            .filter((g) => g.ttft_ms)
            .map(
              (g) =>
                `${names.label(g.key)} median ${num(g.ttft_ms!.median)} ms, p95 ${num(g.ttft_ms!.p95)} ms, ${intervalText(g.ttft_median_interval, 'ms')}`,
            )
            .join('; ')}.`,
          table(
            `Time to first token of ${esc(model)}, ms`,
            ['target', 'samples', 'median', 'p95', 'min', 'max', 'median 95% interval low', 'median 95% interval high'],
            ttftTable,
            [false, true, true, true, true, true, true, true],
          ),
        ),
      );
    }
    if (decodeRows.length) {
      const { svg, log } = distributionRowsSvg(
        `gen-decode-${m + 1}`,
        decodeRows,
        `Decode speed of ${esc(model)}`,
        'One row per target: every ok sample of the clean runs, decode tokens per second (higher is faster).',
        'decode tokens per second',
      );
      charts.push(
        figure(
          `gen-decode-fig-${m + 1}`,
          'generation-decode',
          svg,
          `Decode speed of ${esc(model)}${log ? ' (log scale)' : ''}: ${targets
            .filter((g) => g.decode_tokens_per_s)
            .map(
              (g) =>
                `${names.label(g.key)} median ${num(g.decode_tokens_per_s!.median)} tokens/s; sustained speed (last fifth over first fifth, below 1 = slowed down) ` +
                (g.decode_sustained_ratio
                  ? `median ${num(g.decode_sustained_ratio.median)}, min ${num(g.decode_sustained_ratio.min)}`
                  : 'not computed (fewer than 5 ok samples per run)'),
            )
            .join('; ')}.`,
          table(
            `Decode speed of ${esc(model)}, tokens/s`,
            ['target', 'samples', 'median', 'p95', 'min', 'max', 'sustained ratio median', 'sustained ratio min'],
            decodeTable,
            [false, true, true, true, true, true, true, true],
          ),
        ),
      );
    }
    parts.push(intro + qualityTable(model, targets, names.label) + grid(charts.map((c) => block(c))));
  });
  return `<section id="generation" aria-labelledby="generation-h"><h2 id="generation-h">Generation: time to first token and decode speed</h2>${parts.join('') || '<p>No generation receipts.</p>'}</section>`;
}

function qualitySection(data: ReportData): string {
  const rows: string[] = [];
  for (const st of data.summary.suite_targets) {
    const p = `suite_targets.${st.key}`;
    const scores = data.quality.filter((q) => q.suite_target_keys.includes(st.key));
    const speed = (i: number) =>
      numCell('row latency median ms', st.row_latency_ms?.median, `${p}.row_latency_ms.median`) +
      numCell('row latency p95 ms', st.row_latency_ms?.p95, `${p}.row_latency_ms.p95`) +
      numCell('model load median ms', st.model_load_ms?.median, `${p}.model_load_ms.median`) +
      numCell('receipts ok', st.counts.ok, `${p}.counts.ok`) +
      (i >= 0 ? cell('score report', esc(scores[i].file)) : cell('score report', 'none among the inputs'));
    const who =
      cell('suite target', code(st.key)) +
      cell('model', esc(st.identity.model.id)) +
      cell('route', esc(routeText(st.identity.route))) +
      cell('suite', esc(`${st.suite.id ?? '(picked files)'} (${st.suite.task})`));
    if (scores.length === 0) {
      rows.push(
        '<tr>' +
          who +
          cell('Acc@1', 'not scored') +
          cell('Recall@k', '–') +
          cell('MinCER', '–') +
          cell('abstained', '–') +
          speed(-1) +
          '</tr>',
      );
      continue;
    }
    scores.forEach((q, i) => {
      rows.push(
        '<tr>' +
          who +
          numCell('Acc@1', q.effective_acc_at_1, undefined, `<strong>${pct(q.effective_acc_at_1)}</strong>`) +
          numCell(
            `Recall@${q.candidate_limit}`,
            q.candidate_recall_at_k,
            undefined,
            `${pct(q.candidate_recall_at_k)} (k = ${q.candidate_limit})`,
          ) +
          numCell('MinCER', q.mean_effective_min_cer) +
          numCell('abstained', q.abstention_rate, undefined, pct(q.abstention_rate)) +
          speed(i) +
          '</tr>',
      );
    });
  }
  const unmatched = data.quality.filter((q) => q.suite_target_keys.length === 0);
  const unmatchedList = unmatched.length
    ? `<p>Score reports whose predictions no suite receipt here made (quality without speed):</p><ul>${unmatched
        .map(
          (q) =>
            `<li>${esc(q.file)}: Acc@1 ${pct(q.effective_acc_at_1)}, Recall@${q.candidate_limit} ${pct(q.candidate_recall_at_k)}, MinCER ${num(q.mean_effective_min_cer)} over ${q.rows} rows (predictions ${code(q.predictions_sha256)})</li>`,
        )
        .join('')}</ul>`
    : '';
  return (
    `<section id="quality" aria-labelledby="quality-h"><h2 id="quality-h">Suites: speed with quality beside it</h2>` +
    `<p>A fast model that is wrong is not better. A score report (<code>drb score</code>, LOCAL_EVALUATION) is shown beside a suite run when the run's receipt names the very predictions file it scored (same SHA-256) and the same items file. Its figures are as the report states them; its SHA-256 is listed under Inputs.</p>` +
    table(
      'Suite targets: the quality of the predictions they made, and their speed',
      [
        'suite target',
        'model',
        'route',
        'suite',
        'Acc@1',
        'Recall@k',
        'MinCER',
        'abstained',
        'row latency median ms',
        'row latency p95 ms',
        'model load median ms',
        'receipts ok',
        'score report',
      ],
      rows,
      [false, false, false, false, true, true, true, true, true, true, true, true, false],
    ) +
    `${unmatchedList}</section>`
  );
}

function interruptionsSection(data: ReportData): string {
  const rows = data.summary.interruptions.map(
    (g) =>
      '<tr>' +
      cell('group', code(g.key)) +
      cell('model', esc(g.model_id)) +
      cell('requested route', esc(g.requested_ep)) +
      cell('device', esc(deviceText(g.device))) +
      numCell('interrupted', g.interrupted, `interruptions.${g.key}.interrupted`) +
      cell('by stage', stagesText(g.by_stage)) +
      cell('by run mode', g.by_run_mode.map((m) => `${m.count} ${esc(m.run_mode)}`).join(', ')) +
      numCell('receipts of its own', g.receipts, `interruptions.${g.key}.receipts`) +
      '</tr>',
  );
  return (
    `<section id="interruptions" aria-labelledby="interruptions-h"><h2 id="interruptions-h">Interrupted runs</h2>` +
    `<p>Counted under the device, model and requested route of the run that died (recorded by the next run's receipt). A group with 0 receipts of its own is a model and route that never finished a run on that device: on phones, the out-of-memory signal.</p>` +
    table(
      'Interrupted runs by device, model and requested route',
      ['group', 'model', 'requested route', 'device', 'interrupted', 'by stage', 'by run mode', 'receipts of its own'],
      rows,
      [false, false, false, false, true, false, false, true],
    ) +
    `</section>`
  );
}

const KIND_WORDS: Record<ReportInput['kind'], string> = {
  'device-receipt': 'device receipt',
  'generation-receipt': 'generation receipt',
  'suite-receipt': 'suite receipt',
  'comparison-receipt': 'comparison receipt',
  'sweep-receipt': 'sweep receipt',
  'score-report': 'score report',
  'answer-score': 'answer score report',
  duplicate: 'copy (not counted)',
  invalid: 'invalid (left out)',
  'not-used': 'not used',
};

function inputsSection(data: ReportData): string {
  const rows = data.inputs.map(
    (i) =>
      `<tr${i.kind === 'invalid' ? ' class="invalid"' : ''}>` +
      cell('file', esc(i.file)) +
      cell('taken as', i.kind === 'invalid' ? `<span class="bad">✗ ${KIND_WORDS[i.kind]}</span>` : KIND_WORDS[i.kind]) +
      numCell('bytes', i.bytes) +
      cell('SHA-256', i.sha256 ? `<code class="hash">${esc(i.sha256)}</code>` : 'not read') +
      cell('note', esc(i.note ?? '')) +
      '</tr>',
  );
  return (
    `<section id="inputs" aria-labelledby="inputs-h"><h2 id="inputs-h">Inputs</h2><p>Every file this report was made from, with the SHA-256 of its bytes.</p>` +
    table('Input files', ['file', 'taken as', 'bytes', 'SHA-256', 'note'], rows, [false, false, true, false, false]) +
    `</section>`
  );
}

function methodSection(): string {
  return (
    `<section id="method" aria-labelledby="method-h"><h2 id="method-h">How the numbers are made</h2><ul>` +
    `<li>The statistics are those of <code>drb receipts summarize</code> on the same inputs (the same code): medians, nearest-rank p95 (an observed sample), clean runs only. Every number beside a chart that summary.json holds is marked with its place there.</li>` +
    `<li>Intervals are percentile-bootstrap 95% intervals (Efron &amp; Tibshirani, <cite>An Introduction to the Bootstrap</cite>, 1993, ch. 13.3): 2,000 resamples from a seeded generator (mulberry32, seed recorded), the 50th and 1,950th of the sorted replications. Comparisons resample the interleaved rounds as pairs; a target's warm median resamples whole receipts (one receipt: its samples). Same samples, same interval.</li>` +
    `<li>A time ratio's verdict: faster when the whole interval is below 1, slower when above 1, otherwise no clear difference, which is a tie whatever the ranks say.</li>` +
    `<li>Thermal slope: the median of a run's last fifth of samples over the median of its first fifth (above 1: it slowed down as it ran). Drift: the Theil-Sen slope (median of the slopes between every pair of samples; Sen 1968), in ms per run. Sustained decode speed: decode tokens/s of the last fifth over the first fifth (below 1: slowed down).</li>` +
    `<li>Cold cache state: as each receipt records it (<code>run.cold_from_cache</code>: false when every model and runtime byte came over the network, true when any came from a cache, null when the page could not tell). Only truly cold runs count toward the cold statistics; the others are shown and left out.</li>` +
    `<li>Axes: linear from 0, or logarithmic when the values drawn together span more than a decade (the axis label and the caption say "log scale"); on a logarithmic cold chart each stage ends at its cumulative time.</li>` +
    `</ul></section>`
  );
}

/** The report's style sheet (tables that become cards below 600 px); the leaderboard page builds on it. */
export const CSS = `
:root{color-scheme:light;--fg:#1b1b1b;--muted:#4a4a4a;--line:#d0d0d0;--ok:#1a7f37;--bad:#b42318;--warn:#8a5a00}
*{box-sizing:border-box}
body{margin:0;color:var(--fg);background:#fff;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header,main,footer{max-width:120rem;margin:0 auto;padding:0 1rem}
header>p,section>p,figcaption,section>ul{max-width:75rem}
h4{font-size:1rem;margin:1rem 0 .25rem;overflow-wrap:anywhere}
h1{font-size:1.6rem;margin:1rem 0 .5rem}h2{font-size:1.3rem;margin:2rem 0 .5rem;border-bottom:2px solid var(--line)}h3{font-size:1.05rem;margin:1.5rem 0 .25rem;overflow-wrap:anywhere}
p,li{overflow-wrap:anywhere}
.muted{color:var(--muted)}.ok{color:var(--ok)}.bad{color:var(--bad);font-weight:600}.warn{color:var(--warn);font-weight:600}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;padding:0;list-style:none}
a{color:#0b5cad}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85em;overflow-wrap:anywhere;word-break:break-all}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,26rem),1fr));gap:0 2rem;align-items:start}
.block{min-width:0}
.block.wide,.block:has(details[open]){grid-column:1/-1}
@media (min-width:900px){
 .block:has(details[open]) figure.chart{display:grid;grid-template-columns:minmax(0,32rem) minmax(0,1fr);gap:0 2rem;align-items:start}
 .block:has(details[open]) details.numbers{grid-column:1/-1}
}
figure.chart{margin:1rem 0 1.5rem}
figure.chart svg{display:block;width:100%;height:auto;max-width:30rem}
figcaption{font-size:.95rem;margin:.25rem 0}
figcaption ul{margin:.25rem 0;padding-left:1.25rem}
details.numbers{margin:.25rem 0}
summary{cursor:pointer;color:#0b5cad}
.table-wrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:.9rem;margin:.5rem 0}
caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{border-bottom:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top;overflow-wrap:break-word}
td:not(.num){overflow-wrap:anywhere}
td strong{overflow-wrap:normal}
th.num,td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.stat td{font-weight:600;background:#f4f4f4}
tr.invalid td{background:#fdf0ef}
ul.verdicts li{margin:.2rem 0}
footer{color:var(--muted);font-size:.9rem;padding:2rem 1rem}
@media (max-width:600px){
 table.cards thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
 table.cards,table.cards tbody,table.cards tr,table.cards td{display:block;width:100%}
 table.cards tr{border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:.25rem .5rem}
 table.cards td,table.cards td.num{border:0;display:flex;justify-content:space-between;gap:1rem;text-align:right;white-space:normal;padding:.15rem 0}
 table.cards caption{display:block}
 table.cards td::before{content:attr(data-label);font-weight:600;text-align:left;flex:0 0 40%}
 table.cards td>span.v{flex:1 1 auto;min-width:0;overflow-wrap:anywhere}
 table.cards td[colspan]::before{content:none}
}
`;

/**
 * The whole page.
 * @param data what the collector gathered
 * @param options the tool version to name in the footer
 */
export function renderReportHtml(data: ReportData, options: ReportHtmlOptions): string {
  const body = [
    header(data),
    '<main>',
    targetsSection(data),
    coldSection(data),
    warmSection(data),
    memorySection(data),
    comparisonsSection(data),
    sweepsSection(data),
    generationSection(data),
    qualitySection(data),
    interruptionsSection(data),
    inputsSection(data),
    methodSection(),
    '</main>',
    `<footer>Made by ${REPORT_GENERATOR} (device-receipts-bench ${esc(options.toolVersion)}) from the inputs listed above. ` +
      `The page holds no time of its own: the same inputs give the same bytes. It loads nothing and runs no script.</footer>`,
  ].join('\n');
  return (
    `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">\n` +
    `<meta name="generator" content="${REPORT_GENERATOR}">\n<title>Device receipts report</title>\n<style>${CSS}</style>\n</head>\n<body>\n${body}\n</body>\n</html>\n`
  );
}
