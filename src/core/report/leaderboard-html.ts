/**
 * `drb leaderboard`'s page: one self-contained HTML file rendered from LeaderboardData alone (same data, same bytes).
 * It leads with individual metrics (cold p95, warm median and p95 with the median's 95% interval, TTFT and decode for
 * generation, quality where scored, model bytes, memory where measured); the fit score appears only where a row is
 * ranked, with the rank among the ranked rows of its track and device. Rows that are not ranked keep their place with
 * every reason; rows that failed on their device carry a hatched pattern, a mark and their failure class;
 * maintainer-verified rows carry a solid badge with a check mark, community rows a dashed one with the word
 * "community": told apart by shape and words, not colour alone. The governance file is shown first.
 *
 * Offline and strict: inline CSS and SVG and one small inline script, each allowed by its SHA-256 in the
 * Content-Security-Policy (`default-src 'none'`), nothing fetched. Every string from an input goes through `htmlText`.
 * The script only filters (track, profile) and sorts rows (buttons in the column headers, so the keyboard sorts too);
 * without it the page shows every row in its default order under the mainstream profile.
 */
import { sha256Hex } from '../bytes/sha256.ts';
import type { ProfileName } from '../evidence/profiles.ts';
import type { LeaderboardData, LeaderboardRow } from '../leaderboard/leaderboard-rows.ts';
import { FIT_WEIGHTS, QUALITY_GATE, type FailureClass } from '../leaderboard/ranking.ts';
import { threeSignificant } from '../text/format-number.ts';
import { htmlText } from '../text/markdown-escape.ts';
import { browserLabel } from './browser-label.ts';
import { CSS, deviceText, figure, num, routeText } from './report-html.ts';
import { scatterSvg, type ScatterPoint } from './svg-charts.ts';

/** The marker `drb leaderboard` looks for before it replaces an existing index.html. */
export const LEADERBOARD_GENERATOR = 'drb leaderboard';

/** The profile the page shows first (and the only one without its script). */
export const DEFAULT_PROFILE: ProfileName = 'mainstream';

const esc = htmlText;

const FAILURE_WORDS: Record<FailureClass, string> = {
  functional_only: 'functional_only: not a physical-device measurement',
  'refused-route': 'refused route: the requested route never ran',
  'crash-or-oom': 'crash or out of memory: a run died',
  failed: 'failed: no run completed ok',
  'integrity-mismatch': 'integrity mismatch: files differed from their pins',
};

const mb = (bytes: number | null) => (bytes === null ? null : bytes / 1e6);

function pct(value: number): string {
  return `${threeSignificant(value * 100)}%`;
}

/** SHA-256 of `text` (ASCII only: the page's own script and style) as base64, for a CSP hash source. */
async function cspHash(text: string): Promise<string> {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) throw new Error('the page script and style must be ASCII for their CSP hashes');
    bytes[i] = code;
  }
  const hex = await sha256Hex(bytes);
  const raw = hex.match(/../g)!.map((h) => Number.parseInt(h, 16));
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let out = '';
  for (let i = 0; i < raw.length; i += 3) {
    const [a, b = 0, c = 0] = raw.slice(i, i + 3);
    const n = (a << 16) | (b << 8) | c;
    out +=
      alphabet[(n >> 18) & 63] +
      alphabet[(n >> 12) & 63] +
      (i + 1 < raw.length ? alphabet[(n >> 6) & 63] : '=') +
      (i + 2 < raw.length ? alphabet[n & 63] : '=');
  }
  return `'sha256-${out}'`;
}

// ------------------------------------------------------------------------------------------------- governance

function list<T>(items: readonly T[], empty: string, line: (item: T) => string): string {
  return items.length === 0 ? `<p>${empty}</p>` : `<ul>${items.map((i) => `<li>${line(i)}</li>`).join('')}</ul>`;
}

function governance(data: LeaderboardData): string {
  const m = data.meta;
  if (m === null) {
    return (
      `<section id="governance" class="governance missing" aria-labelledby="gov-h"><h2 id="gov-h">Governance</h2>` +
      `<p class="warn">⚠ No governance file (drb.leaderboard-meta.v1) was given: funding, donated devices, engineering support, pre-release access and rerun reasons are undeclared, and no maintainer is named, so no row is shown as maintainer-verified.</p></section>`
    );
  }
  return (
    `<section id="governance" class="governance" aria-labelledby="gov-h"><h2 id="gov-h">Governance</h2>` +
    `<p>Benchmark version, frozen before any result: <strong>${esc(m.benchmark_version)}</strong>. Ranking rules ${esc(data.rulesVersion)}; budget profiles ${esc(data.profiles.version)}.</p>` +
    `<div class="gov-grid">` +
    `<div><h3>Funding</h3>${list(m.funding, 'None: nobody funds this work.', (f) => `${esc(f.funder)}: ${esc(f.what)}`)}</div>` +
    `<div><h3>Donated devices</h3>${list(m.donated_devices, 'None.', (d) => `${esc(d.device)}, from ${esc(d.donor)}`)}</div>` +
    `<div><h3>Engineering support</h3>${list(m.engineering_support, 'None.', (e) => `${esc(e.who)}: ${esc(e.what)}`)}</div>` +
    `<div><h3>Pre-release access</h3>${list(m.pre_release_access, 'None.', (p) => `${esc(p.model)} from ${esc(p.provider)}${p.note ? ` (${esc(p.note)})` : ''}`)}</div>` +
    `<div><h3>Rerun reasons</h3>${list(m.rerun_reasons, 'No target was run again.', (r) => `${esc(r.target)}: ${esc(r.reason)}${r.date ? ` (${esc(r.date)})` : ''}`)}</div>` +
    `<div><h3>Maintainers</h3>${list(m.maintainers, 'None named: no row is maintainer-verified.', (x) => `${esc(x.name)} (reviewer id ${esc(x.reviewer)})`)}</div>` +
    `</div>${m.notes ? `<p>${esc(m.notes)}</p>` : ''}</section>`
  );
}

// ------------------------------------------------------------------------------------------------------ board

/** A numeric cell: the value in words and the exact value for sorting and tests. */
function numCell(label: string, value: number | null, text?: string): string {
  const attrs = value === null ? '' : ` data-value="${String(value)}"`;
  return `<td class="num" data-label="${esc(label)}"${attrs}><span class="v">${text ?? num(value)}</span></td>`;
}

function cell(label: string, html: string, cls = ''): string {
  return `<td data-label="${esc(label)}"${cls ? ` class="${cls}"` : ''}><span class="v">${html}</span></td>`;
}

function intervalText(interval: { low: number; high: number } | null): string {
  return interval === null ? '' : `<br><span class="ci">95% CI ${num(interval.low)}–${num(interval.high)}</span>`;
}

function statusCell(row: LeaderboardRow): string {
  const badge = row.verification.verified
    ? `<span class="badge verified">✓ Maintainer-verified</span>`
    : `<span class="badge community">Community</span>`;
  const failure = row.failure
    ? `<span class="failure-mark">✗ Failed on this device: <strong>${esc(row.failure)}</strong></span>`
    : '';
  return cell('status', `${badge}${failure}`, 'status');
}

/** The row under a target's metrics: who verified it, how it failed, and why it is not ranked (per profile). */
function detailRow(row: LeaderboardRow, profiles: readonly ProfileName[]): string {
  const failure = row.failure
    ? `<p class="failure-mark">✗ ${esc(FAILURE_WORDS[row.failure])}${row.failureDetail.length ? `: ${row.failureDetail.map((d) => esc(d)).join('; ')}` : ''}</p>`
    : '';
  const why = profiles
    .map((p) => {
      const s = row.profiles[p];
      const body = s.ranked
        ? '<span class="ok">✓ ranked: every rule met</span>'
        : `<span class="small">Not ranked under ${p}, ${s.reasons.length} reason(s):</span><ul class="why">${s.reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`;
      return `<div data-p="${p}">${body}</div>`;
    })
    .join('');
  return (
    `<tr class="detail"><td colspan="${HEADERS.length}" data-label="status and reasons"><span class="v"><span class="muted small">${esc(row.verification.why)}</span>` +
    `${failure}<div class="reasons">${why}</div></span></td></tr>`
  );
}

function standingCell(row: LeaderboardRow, profiles: readonly ProfileName[]): string {
  const fit = profiles
    .map((p) => {
      const s = row.profiles[p];
      const body =
        s.ranked && s.fit
          ? `<strong>#${s.rank}</strong> of ${s.of}<br>fit ${s.fit.score.toFixed(1)}${s.fit.weight_used < 100 ? ` <span class="small">(over ${s.fit.weight_used}% of the weight)</span>` : ''}`
          : '<span class="unranked">not ranked</span>';
      return `<div data-p="${p}">${body}</div>`;
    })
    .join('');
  return `<td class="num" data-label="rank and fit">${fit}</td>`;
}

/** Sort keys on a row (`data-s-<key>`): numbers, or text for the target and device columns. */
function sortAttrs(row: LeaderboardRow, index: number, profiles: readonly ProfileName[]): string {
  const m = row.metrics;
  const keys: Record<string, number | string | null> = {
    default: index,
    target: `${row.model.id} ${row.model.dtype ?? ''} ${routeText(row.route)}`,
    device: deviceText(row.device),
    cold: m.coldP95Ms,
    warm: m.warmMedianMs,
    warmp95: m.warmP95Ms,
    ttft: m.ttftMedianMs,
    decode: m.decodeMedian,
    quality: m.quality?.acc1 ?? null,
    bytes: m.modelBytes,
    heap: m.jsHeapBytes,
  };
  for (const p of profiles) keys[`fit-${p}`] = row.profiles[p].fit?.score ?? null;
  return Object.entries(keys)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => ` data-s-${k}="${esc(String(v))}"`)
    .join('');
}

function boardRow(row: LeaderboardRow, index: number, profiles: readonly ProfileName[]): string {
  const m = row.metrics;
  const classes = [row.failure ? 'failed' : '', row.verification.verified ? 'verified' : 'community']
    .filter(Boolean)
    .join(' ');
  const device = row.device;
  const q = m.quality;
  return (
    `<tbody id="row-${esc(row.key)}" class="${classes}" data-key="${esc(row.key)}" data-track="${esc(row.track.key)}"${row.failure ? ` data-failure="${esc(row.failure)}"` : ''}${sortAttrs(row, index, profiles)}>` +
    '<tr class="main">' +
    cell(
      'target',
      `<strong>${esc(row.model.id)}</strong>${row.model.dtype ? ` ${esc(row.model.dtype)}` : ''} · ${esc(routeText(row.route))} · ${esc(row.engine.name)} ${esc(row.engine.version)}` +
        `<br><span class="small muted">${esc(row.track.label)} · <code>${esc(row.key)}</code> · model ${esc(row.model.kind)} · app ${esc(row.app.version)}${row.app.commit ? ` ${esc(row.app.commit.slice(0, 12))}` : ''}</span>`,
    ) +
    cell(
      'device and browser',
      `${esc(deviceText(device))}<br><span class="small muted">device <code>${esc(row.deviceKey)}</code>; ${esc(browserLabel(device.user_agent))}</span>`,
    ) +
    statusCell(row) +
    numCell('cold p95 ms', m.coldP95Ms) +
    numCell(
      'warm median ms',
      m.warmMedianMs,
      m.warmMedianMs === null ? undefined : `${num(m.warmMedianMs)}${intervalText(m.warmInterval)}`,
    ) +
    numCell('warm p95 ms', m.warmP95Ms) +
    numCell(
      'TTFT median ms',
      m.ttftMedianMs,
      m.ttftMedianMs === null
        ? undefined
        : `${num(m.ttftMedianMs)} (p95 ${num(m.ttftP95Ms)})${intervalText(m.ttftInterval)}`,
    ) +
    numCell('decode tokens/s', m.decodeMedian) +
    numCell(
      'quality Acc@1',
      q?.acc1 ?? null,
      q ? `${pct(q.acc1)}<br><span class="small">Recall@${q.k} ${pct(q.recallAtK)}</span>` : 'not scored',
    ) +
    numCell('model MB', mb(m.modelBytes)) +
    numCell('JS heap MB', mb(m.jsHeapBytes), m.jsHeapBytes === null ? 'not measured' : undefined) +
    standingCell(row, profiles) +
    `</tr>${detailRow(row, profiles)}</tbody>`
  );
}

const HEADERS: Array<{ label: string; sort: string | null; dir?: 'desc'; numeric: boolean }> = [
  { label: 'Target (model, dtype, route, engine)', sort: 'target', numeric: false },
  { label: 'Device and browser', sort: 'device', numeric: false },
  { label: 'Status', sort: null, numeric: false },
  { label: 'Cold p95 ms', sort: 'cold', numeric: true },
  { label: 'Warm median ms', sort: 'warm', numeric: true },
  { label: 'Warm p95 ms', sort: 'warmp95', numeric: true },
  { label: 'TTFT median ms', sort: 'ttft', numeric: true },
  { label: 'Decode tokens/s', sort: 'decode', dir: 'desc', numeric: true },
  { label: 'Quality (Acc@1)', sort: 'quality', dir: 'desc', numeric: true },
  { label: 'Model MB', sort: 'bytes', numeric: true },
  { label: 'JS heap MB', sort: 'heap', numeric: true },
  { label: 'Rank and fit', sort: 'fit', dir: 'desc', numeric: true },
];

function board(data: LeaderboardData): string {
  const profiles = data.profiles.profiles.map((p) => p.name);
  const tracks = [...new Map(data.rows.map((r) => [r.track.key, r.track.label])).entries()];
  const head = HEADERS.map(
    (h) =>
      `<th scope="col"${h.numeric ? ' class="num"' : ''}>${
        h.sort === null
          ? esc(h.label)
          : `<button type="button" data-sort="${h.sort}"${h.dir ? ` data-dir="${h.dir}"` : ''}>${esc(h.label)}<span class="arrow" aria-hidden="true"></span></button>`
      }</th>`,
  ).join('');
  const failed = data.rows.filter((r) => r.failure !== null).length;
  const verified = data.rows.filter((r) => r.verification.verified).length;
  return (
    `<section id="board-section" aria-labelledby="board-h"><h2 id="board-h">Targets</h2>` +
    `<p>${data.rows.length} target(s): ${verified} maintainer-verified, ${data.rows.length - verified} community; ${failed} failed on their device. ` +
    `One row per target (device × browser × model × route × dtype, within one build and input). Individual metrics come first; the fit score is a secondary ordering, shown only where a row is ranked, and ranks count only the ranked rows of one track, device and profile. Rows that are not ranked keep their place and say every reason.</p>` +
    `<div class="legend"><span class="badge verified">✓ Maintainer-verified</span> a stored DEVICE_PASS review by a maintainer the governance file names · ` +
    `<span class="badge community">Community</span> anything else · <span class="failed-sample">✗ Failed on this device</span> hatched rows: crash, out of memory, refused route, failed, or functional_only</div>` +
    `<form class="controls" id="controls" aria-label="Filters"><label>Track <select id="f-track"><option value="">every track</option>${tracks
      .map(([key, label]) => `<option value="${esc(key)}">${esc(label)}</option>`)
      .join('')}</select></label> <label>Profile <select id="f-profile">${profiles
      .map((p) => `<option value="${p}"${p === DEFAULT_PROFILE ? ' selected' : ''}>${p}</option>`)
      .join(
        '',
      )}</select></label> <output id="shown" aria-live="polite">${data.rows.length} of ${data.rows.length} rows shown</output></form>` +
    `<noscript><p class="muted">Filters and sorting need the page's own script; without it every row is shown in its default order under the ${DEFAULT_PROFILE} profile.</p></noscript>` +
    `<div class="table-wrap"><table class="cards board" id="board"><caption>Targets: individual metrics, status, rank and fit under the selected profile, and why a row is not ranked. Sort with the column buttons (click, Enter or Space).</caption>` +
    `<thead><tr>${head}</tr></thead>${data.rows.length ? data.rows.map((r, i) => boardRow(r, i, profiles)).join('') : `<tbody><tr><td colspan="${HEADERS.length}">none</td></tr></tbody>`}</table></div></section>`
  );
}

// ------------------------------------------------------------------------------------------------------ pareto

function paretoSection(data: LeaderboardData): string {
  const byKey = new Map(data.rows.map((r) => [r.key, r]));
  const parts = data.pareto.map((view, v) => {
    const front = new Set(view.front);
    const ordered = [...view.points].sort((a, b) => a.latencyMs - b.latencyMs || b.quality - a.quality);
    const points: ScatterPoint[] = ordered.map((p, i) => ({
      label: String(i + 1),
      x: p.latencyMs,
      y: p.quality * 100,
      front: front.has(p.key),
      shape: byKey.get(p.key)?.verification.verified ? 'square' : 'circle',
    }));
    const { svg, log } = scatterSvg(
      `pareto-${v + 1}`,
      points,
      `Quality against warm latency: ${esc(view.track.label)}`,
      'Each target with a quality score: Effective Acc@1 against warm median latency; the line joins the Pareto front (no other target is both faster and better).',
      'warm median ms',
      'Effective Acc@1, %',
    );
    const rows = ordered.map((p, i) => {
      const row = byKey.get(p.key)!;
      return (
        `<tr${front.has(p.key) ? ' class="front"' : ''}>` +
        cell('point', String(i + 1)) +
        cell(
          'target',
          `${esc(row.model.id)} ${esc(routeText(row.route))} on ${esc(deviceText(row.device))} <code>${esc(row.key)}</code>`,
        ) +
        numCell('warm median ms', p.latencyMs) +
        numCell('Effective Acc@1', p.quality, pct(p.quality)) +
        cell(
          'on the front',
          front.has(p.key) ? '<strong>yes</strong>' : 'no, another target is both faster and better',
        ) +
        cell('status', row.verification.verified ? '✓ verified' : 'community') +
        '</tr>'
      );
    });
    const said = view.front.map((key) => {
      const p = view.points.find((x) => x.key === key)!;
      const row = byKey.get(key)!;
      return `<li>${esc(row.model.id)} ${esc(routeText(row.route))} on ${esc(deviceText(row.device))}: ${pct(p.quality)} Effective Acc@1 at ${num(p.latencyMs)} ms warm median</li>`;
    });
    return (
      `<h3>${esc(view.track.label)}</h3>` +
      figure(
        `pareto-fig-${v + 1}`,
        'pareto',
        svg,
        `Pareto front of ${esc(view.track.label)}${log ? ' (latency on a log scale)' : ''}: ${view.front.length} of ${view.points.length} target(s) on it.<ul>${said.join('')}</ul>`,
        `<div class="table-wrap"><table class="cards"><caption>Every point of the chart</caption><thead><tr><th scope="col">point</th><th scope="col">target</th><th scope="col" class="num">warm median ms</th><th scope="col" class="num">Effective Acc@1</th><th scope="col">on the front</th><th scope="col">status</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`,
      )
    );
  });
  return (
    `<section id="pareto" aria-labelledby="pareto-h"><h2 id="pareto-h">Pareto view: quality against warm latency</h2>` +
    `<p>Only targets with a quality score (a scored suite run of the same model on the same device and route) and a warm latency appear; targets that failed on their device, crashed or are functional_only stay off it.</p>` +
    `${parts.join('') || '<p>No target has both a quality score and a warm latency.</p>'}</section>`
  );
}

// ------------------------------------------------------------------------------------------------------ rules

function rulesSection(data: LeaderboardData): string {
  const w = FIT_WEIGHTS;
  const budgets = data.profiles.profiles
    .map(
      (p) =>
        `<tr>${cell('profile', esc(p.name))}${numCell('cold load p95 ms', p.cold_load_p95_ms)}${numCell('warm p95 ms', p.warm_p95_ms)}${numCell('model MB', p.model_bytes / 1e6)}${numCell('JS heap MB', p.js_heap_bytes / 1e6)}</tr>`,
    )
    .join('');
  return (
    `<section id="rules" aria-labelledby="rules-h"><h2 id="rules-h">How rows are ranked (${esc(data.rulesVersion)})</h2><ul>` +
    `<li>A row is ranked only when it is a physical-device measurement (not functional_only) of a real catalog model whose files matched their pinned SHA-256; no run crashed, ran out of memory or failed unexplained; it did not fall back; it met the protocol minimums (5 clean cold and 20 clean warm receipts for cold/warm targets; every prompt answered for generation); the selected profile's budgets hold; and it has a quality score of at least ${pct(QUALITY_GATE)} Effective Acc@1.</li>` +
    `<li>Fit score (0 to 100), only for ranked rows: quality ${w.quality}%, warm-latency attainment ${w.latency}% (budget warm p95 over measured, capped at 1), memory ${w.memory}% (where the browser measures it), model size ${w.size}%, stability ${w.stability}% (1 over the thermal slope). A component that cannot be measured is left out and the score is taken over the weight that was, which the row says.</li>` +
    `<li>Ranks order the ranked rows of one track, one device and one profile by fit; the board's default order is by warm median within each track, so the fit never hides an individual metric.</li>` +
    `<li>Intervals are the summaries' percentile-bootstrap 95% intervals of the median; p95 is nearest-rank.</li></ul>` +
    `<div class="table-wrap"><table class="cards"><caption>Budget profiles ${esc(data.profiles.version)}</caption><thead><tr><th scope="col">profile</th><th scope="col" class="num">cold load p95 ms</th><th scope="col" class="num">warm p95 ms</th><th scope="col" class="num">model MB</th><th scope="col" class="num">JS heap MB</th></tr></thead><tbody>${budgets}</tbody></table></div></section>`
  );
}

function inputsSection(data: LeaderboardData): string {
  const dup = data.duplicateTargets.length
    ? `<p class="warn">⚠ ${data.duplicateTargets.length} target(s) appear in more than one summary; the first is shown: ${data.duplicateTargets.map((d) => `<code>${esc(d.key)}</code> (kept from ${esc(d.kept)}, left out of ${esc(d.dropped)})`).join('; ')}.</p>`
    : '';
  return (
    `<section id="inputs" aria-labelledby="inputs-h"><h2 id="inputs-h">Inputs</h2><ul>${data.summaries.map((s) => `<li>${esc(s.file)}: ${s.targets} target(s)</li>`).join('')}</ul>${dup}` +
    `<p>${data.comparisons} comparison receipt(s) among the inputs: comparisons are controlled measurements of routes on one device and are shown by <code>drb receipts report</code>, not ranked here.</p></section>`
  );
}

// The page's only script: filters and keyboard-operable sorting. ASCII only (its CSP hash is computed over it).
const SCRIPT = `(function () {
  var body = document.body;
  var table = document.getElementById('board');
  var rows = Array.prototype.slice.call(table.tBodies).filter(function (r) { return r.hasAttribute('data-key'); });
  var track = document.getElementById('f-track');
  var profile = document.getElementById('f-profile');
  var shown = document.getElementById('shown');
  var sortKey = null;
  var direction = 1;
  function value(row) {
    var key = sortKey === 'fit' ? 'fit-' + profile.value : sortKey;
    var v = row.getAttribute('data-s-' + key);
    return v === null ? null : v;
  }
  function resort() {
    var numeric = sortKey !== 'target' && sortKey !== 'device';
    var ordered = rows.slice().sort(function (a, b) {
      if (sortKey === null) return Number(a.getAttribute('data-s-default')) - Number(b.getAttribute('data-s-default'));
      var x = value(a);
      var y = value(b);
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
      var c = numeric ? Number(x) - Number(y) : x < y ? -1 : x > y ? 1 : 0;
      return c * direction || Number(a.getAttribute('data-s-default')) - Number(b.getAttribute('data-s-default'));
    });
    ordered.forEach(function (r) { table.appendChild(r); });
  }
  function apply() {
    body.setAttribute('data-profile', profile.value);
    var n = 0;
    rows.forEach(function (r) {
      var on = track.value === '' || r.getAttribute('data-track') === track.value;
      r.hidden = !on;
      if (on) n++;
    });
    shown.textContent = n + ' of ' + rows.length + ' rows shown';
  }
  track.addEventListener('change', apply);
  profile.addEventListener('change', function () { apply(); resort(); });
  Array.prototype.forEach.call(table.querySelectorAll('th button[data-sort]'), function (button) {
    button.addEventListener('click', function () {
      var key = button.getAttribute('data-sort');
      if (sortKey === key) direction = -direction;
      else {
        sortKey = key;
        direction = button.getAttribute('data-dir') === 'desc' ? -1 : 1;
      }
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) { th.removeAttribute('aria-sort'); });
      button.parentNode.setAttribute('aria-sort', direction === 1 ? 'ascending' : 'descending');
      resort();
    });
  });
  apply();
})();
`;

const PROFILE_CSS = (profiles: readonly ProfileName[]) =>
  `.board [data-p]{display:none}\n${profiles.map((p) => `body[data-profile="${p}"] .board [data-p="${p}"]{display:block}`).join('\n')}\n`;

const BOARD_CSS = `
header,main,footer{max-width:100rem}
.governance{border:2px solid var(--line);border-radius:8px;padding:.25rem 1rem 1rem;margin:1rem 0}
.governance.missing{border-color:var(--warn)}
.gov-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:0 1.5rem}
.gov-grid h3{font-size:1rem;margin:.75rem 0 .25rem}
.gov-grid ul{margin:0;padding-left:1.1rem}
.legend{margin:.5rem 0;font-size:.9rem;line-height:2}
.controls{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;margin:.75rem 0}
.controls select{font:inherit;padding:.2rem}
table.board{font-size:.85rem}
table.board th,table.board td{padding:.3rem .3rem}
table.board tr.main td:nth-child(-n+2),table.board tr.detail td{overflow-wrap:anywhere}
table.board th{vertical-align:bottom}
table.board th button{font:inherit;font-weight:600;background:none;border:1px solid transparent;border-radius:4px;padding:.15rem .25rem;cursor:pointer;text-align:inherit;color:#0b5cad}
table.board th button:focus-visible{outline:3px solid #0b5cad;outline-offset:1px}
th[aria-sort=ascending] .arrow::after{content:" \\25B2"}
th[aria-sort=descending] .arrow::after{content:" \\25BC"}
.badge{display:inline-block;border-radius:4px;padding:0 .4rem;font-weight:600;font-size:.85rem}
.badge.verified{border:2px solid #1b1b1b;background:#1b1b1b;color:#fff}
.badge.community{border:2px dashed var(--muted);color:var(--fg);background:#fff}
.small{font-size:.8rem}
.failure-mark{display:block;color:var(--bad);font-weight:600;margin-top:.25rem}
tbody.failed td{background-color:#fff;background-image:repeating-linear-gradient(135deg,rgba(180,35,24,.13) 0 6px,transparent 6px 12px)}
table.board tbody{border-top:2px solid var(--line)}
table.board tr.main td{border-bottom:0}
table.board tr.detail td{padding-top:0}
.reasons ul.why{display:flex;flex-wrap:wrap;gap:0 1.5rem;padding-left:1rem}
.failed-sample{display:inline-block;padding:0 .4rem;background-image:repeating-linear-gradient(135deg,rgba(180,35,24,.13) 0 6px,transparent 6px 12px);color:var(--bad);font-weight:600}
tbody.verified tr.main td:first-child{border-left:4px solid #1b1b1b}
tbody.community tr.main td:first-child{border-left:4px dashed var(--muted)}
ul.why{margin:.15rem 0 0;padding-left:1rem;font-size:.8rem}
.unranked{color:var(--muted)}
.ci{font-size:.8rem;color:var(--muted)}
tbody[hidden]{display:none!important}
.controls select{max-width:100%}
.controls label{max-width:100%}
tr.front td{font-weight:600}
figure.chart{max-width:40rem}
@media (max-width:600px){
 table.board tbody{display:block;border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:.25rem .5rem}
 table.board tbody tr{border:0;margin:0;padding:0;border-radius:0}
 table.board tbody.verified{border-left:4px solid #1b1b1b}
 table.board tbody.community{border-left:4px dashed var(--muted)}
 table.board td,table.board td.num{padding:.15rem 0}
 tbody.verified tr.main td:first-child,tbody.community tr.main td:first-child{border-left:0}
 table.board tr.detail td{display:block;text-align:left}
 table.board tr.detail td::before{display:block}
 .reasons ul.why{display:block}
}
`;

/**
 * The whole page.
 * @param data the leaderboard's rows, Pareto views, governance and rules
 * @param options the tool version to name in the footer
 */
export async function renderLeaderboardHtml(data: LeaderboardData, options: { toolVersion: string }): Promise<string> {
  const profiles = data.profiles.profiles.map((p) => p.name);
  const style = `${CSS}${BOARD_CSS}${PROFILE_CSS(profiles)}`;
  const title = data.meta?.title ?? 'Device Receipts Bench leaderboard';
  const body = [
    `<header><h1>${esc(title)}</h1>`,
    governance(data),
    `<nav aria-label="Sections"><ul><li><a href="#board-section">Targets</a></li><li><a href="#pareto">Pareto view</a></li><li><a href="#rules">How rows are ranked</a></li><li><a href="#inputs">Inputs</a></li></ul></nav></header>`,
    '<main>',
    board(data),
    paretoSection(data),
    rulesSection(data),
    inputsSection(data),
    '</main>',
    `<footer>Made by ${LEADERBOARD_GENERATOR} (device-receipts-bench ${esc(options.toolVersion)}) from the inputs listed above. It holds no time of its own and loads nothing; its one script filters and sorts.</footer>`,
  ].join('\n');
  const csp = `default-src 'none'; style-src ${await cspHash(style)}; script-src ${await cspHash(SCRIPT)}; base-uri 'none'; form-action 'none'`;
  return (
    `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<meta http-equiv="Content-Security-Policy" content="${csp}">\n<meta name="generator" content="${LEADERBOARD_GENERATOR}">\n<title>${esc(title)}</title>\n<style>${style}</style>\n</head>\n` +
    `<body data-profile="${DEFAULT_PROFILE}">\n${body}\n<script>${SCRIPT}</script>\n</body>\n</html>\n`
  );
}
