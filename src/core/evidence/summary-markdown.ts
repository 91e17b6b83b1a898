/**
 * Markdown rendering of a receipts summary: one overview table with every target's evidence state and why it
 * is not higher, then one section per target (stages, warm spread, gates, memory fit, failures). Rendered from
 * the summary JSON alone, so `drb receipts review` can re-render it after storing a review.
 */
import { threeSignificant } from '../text/format-number.ts';
import { engineLabel } from '../receipt/receipt-envelope.ts';
import type { ConfidenceInterval, RatioVerdict } from '../stats/intervals.ts';
import { mdText } from '../text/markdown-escape.ts';
import type { ProfileVerdict } from './profiles.ts';
import type { GenerationTargetSummary, ReceiptsSummary, TargetSummary } from './receipts-summary.ts';

type Stats = { count: number; median: number; p95: number; min: number; max: number } | null;

/** An interval as `[low, high]` (3 significant digits), or `[no interval]`. */
function intervalText(interval: ConfidenceInterval | null): string {
  return interval === null
    ? '[no interval]'
    : `[${threeSignificant(interval.low)}, ${threeSignificant(interval.high)}]`;
}

/** "95% interval [a, b] ms (bootstrap, 3 receipts resampled)": the interval of a median, with what was resampled. */
function medianIntervalText(interval: ConfidenceInterval, unit: string): string {
  const what =
    interval.resampled === 'receipts'
      ? 'whole receipts resampled'
      : 'one receipt: its samples resampled, noise within that run only';
  return `${Math.round(interval.level * 100)}% interval ${intervalText(interval)} ${unit} (bootstrap, ${what})`;
}

function verdictText(verdict: RatioVerdict | null): string {
  return verdict === null ? 'no verdict' : verdict === 'no-clear-difference' ? 'no clear difference' : verdict;
}

function ms(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

function bytes(value: number | null): string {
  if (value === null) return 'not measured';
  if (value >= 1e9) return `${(value / 1e9).toFixed(2)} GB`;
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)} MB`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)} kB`;
  return `${value} B`;
}

// Every string below comes from a receipt or a summary file (hostile input): it goes through mdText, which keeps it
// on one line and renders it literally (no table cell, heading, emphasis, link or HTML of its own).
const cell = mdText;

/** A list of strings from the input, escaped and joined. */
function cells(values: readonly string[], separator = ', '): string {
  return values.map(mdText).join(separator);
}

/** The route as a table cell: the requested EP, or `requested->completed` (`none` when no EP completed). */
function routeCell(route: TargetSummary['identity']['route']): string {
  return route.completed_ep === route.requested_ep
    ? cell(route.requested_ep)
    : `${cell(route.requested_ep)}->${route.completed_ep === null ? 'none' : cell(route.completed_ep)}`;
}

/** Where a target's work ran, in a few words for the route cell ('' when no receipt said, or nothing ran on the CPU). */
function placementCell(placement: TargetSummary['placement']): string {
  if (placement?.source !== 'ort-profiler' || placement.cpu_nodes === 0) return '';
  const ops = placement.cpu_ops.map((o) => `${cell(o.op)} x${o.count}`).join(', ');
  return ` (${placement.cpu_nodes}/${placement.total_nodes} nodes on CPU${ops ? `: ${ops}` : ''})`;
}

/** The target's placement line for its section. */
function placementLine(placement: NonNullable<TargetSummary['placement']>): string {
  if (placement.source === 'webgpu-by-construction')
    return '- Where the work ran: all on WebGPU by construction (WebLLM compiles the model into WebGPU shaders; nothing is counted)';
  const ops = placement.cpu_ops.map((o) => `${cell(o.op)} x${o.count}`).join(', ');
  const share = placement.kernel_time_share.map((k) => `${cell(k.provider)} ${(k.share * 100).toFixed(1)}%`).join(', ');
  return (
    `- Where the work ran (ORT profiler, first run): ${placement.total_nodes} nodes, ${placement.cpu_nodes} on the CPU${ops ? ` (${ops})` : ''}; ` +
    `partial fallback to the CPU in ${placement.partial_fallback_receipts} of ${placement.receipts} receipt(s)${share ? `; kernel time ${share}` : ''}`
  );
}

/** The target's measured-memory line. */
function memoryLine(memory: NonNullable<TargetSummary['memory']>): string {
  const missing = memory.not_available.map((m) => `${m.count}x ${cell(m.reason)}`).join('; ');
  if (memory.measured_bytes === null) return `- Memory the model took: not measured${missing ? ` (${missing})` : ''}`;
  return (
    `- Memory the model took (largest in one receipt): ${bytes(memory.measured_bytes)} = WebAssembly ${bytes(memory.wasm_peak_bytes)} + GPU buffers ${bytes(memory.gpu_peak_live_bytes)}, ` +
    `measured in ${memory.receipts_measured} receipt(s)${missing ? `; not measured in others: ${missing}` : ''}`
  );
}

function statsRow(name: string, stats: Stats): string {
  if (stats === null) return `| ${name} | 0 | – | – | – | – |`;
  return `| ${name} | ${stats.count} | ${ms(stats.median)} | ${ms(stats.p95)} | ${ms(stats.min)} | ${ms(stats.max)} |`;
}

function gateValue(gate: string, value: number | null): string {
  if (value === null) return 'not measured';
  return gate.endsWith('_bytes') ? bytes(value) : `${ms(value)} ms`;
}

function profileLines(verdicts: ProfileVerdict[]): string[] {
  const gates = verdicts[0]?.gates.map((g) => g.gate) ?? [];
  const lines = [
    `| profile | verdict | ${cells(gates, ' | ')} |`,
    `| --- | --- | ${gates.map(() => '---').join(' | ')} |`,
  ];
  for (const v of verdicts) {
    const gateCells = v.gates.map((g) =>
      g.status === 'not-measured'
        ? 'not measured'
        : `${cell(g.status)} (${gateValue(g.gate, g.measured)} / ${gateValue(g.gate, g.limit)})`,
    );
    lines.push(`| ${cell(v.profile)} | ${cell(v.verdict)} | ${gateCells.join(' | ')} |`);
  }
  return lines;
}

function targetSection(t: TargetSummary): string[] {
  const id = t.identity;
  const lines: string[] = [];
  lines.push(`### ${t.key}: ${cell(t.label)}`, '');
  lines.push(`- Evidence: **${cell(t.evidence.state)}**`);
  for (const reason of t.evidence.not_higher_because) lines.push(`  - not higher: ${cell(reason)}`);
  if (t.evidence.state === 'DEVICE_PASS')
    lines.push('  - HUMAN_GO stays a separate human decision; this tool never sets it.');
  lines.push(`- Device: ${cell(id.device.user_agent)}`);
  const adapter = id.device.webgpu_adapter;
  lines.push(
    `  platform ${cell(id.device.platform ?? 'unknown')}${id.device.model ? `, model ${cell(id.device.model)}` : ''}, ` +
      `${id.device.hardware_concurrency ?? '?'} logical cores, device memory ${id.device.device_memory_gb ?? 'not exposed'}, ` +
      `WebGPU adapter ${adapter ? `${cell(adapter.vendor)}/${cell(adapter.architecture)}${adapter.device ? `/${cell(adapter.device)}` : ''}` : 'none'}`,
  );
  lines.push(
    `- App ${cell(id.app.version)} at commit ${cell(id.app.commit ?? 'unknown')}; engine ${cell(engineLabel(id.engine))}`,
  );
  lines.push(
    `- Model ${cell(id.model.id)} (${cell(id.model.kind)}, dtype ${cell(id.model.dtype ?? 'n/a')}), files ${cells(id.model.file_sha256.map((h) => h.slice(0, 12))) || 'none loaded'}; ` +
      `input ${cell(id.input.id)}`,
  );
  lines.push(
    `- Route requested ${cell(id.route.requested_ep)}, completed ${cell(id.route.completed_ep ?? 'none')}, fallback ${id.route.allow_fallback ? 'allowed' : 'not allowed'}, ` +
      `threads ${id.route.threads_requested ?? '–'} requested / ${id.route.threads_effective ?? '–'} effective`,
  );
  const c = t.counts;
  lines.push(
    `- Receipts ${c.receipts}: cold ${c.cold} (ok ${c.ok_cold}, clean ${c.clean_cold}/${c.min_cold}, set aside ${c.cold_set_aside}), warm ${c.warm} (ok ${c.ok_warm}, clean ${c.clean_warm}/${c.min_warm}, ` +
      `${c.warm_samples} samples), failed ${c.failed}, noisy ${c.noisy}, overlapping set aside ${c.overlap_set_aside}, interrupted ${c.interrupted}`,
  );
  lines.push(
    `- Cold runs, measured and attested side by side: measured network-cold ${c.measured_network_cold} (from a fresh start ${c.measured_fresh_start}); ` +
      `attested browser restart and site data clear ${c.attested_cold}; both (full protocol colds, counted) ${c.full_cold}/${c.min_cold}`,
  );
  lines.push('', '| stage (ms) | n | median | p95 | min | max |', '| --- | ---: | ---: | ---: | ---: | ---: |');
  lines.push(statsRow('cold fetch', t.cold.fetch_ms), statsRow('cold session', t.cold.session_ms));
  lines.push(statsRow('cold first inference', t.cold.first_inference_ms), statsRow('cold total', t.cold.total_ms));
  lines.push(statsRow('cold navigation start to first result', t.cold.navigation_to_result_ms));
  lines.push(
    statsRow('warm (all samples)', t.warm.pooled_ms),
    statsRow('warm per-receipt medians', t.warm.receipt_medians_ms),
  );
  lines.push('');
  if (t.warm.median_interval !== null) lines.push(`- Warm median ${medianIntervalText(t.warm.median_interval, 'ms')}`);
  if (t.warm.receipt_median_ratio !== null)
    lines.push(
      `- Warm spread between receipts: slowest median / fastest median = ${t.warm.receipt_median_ratio.toFixed(2)}`,
    );
  if (t.warm.thermal_slope !== null) {
    const drift = t.warm.drift_ms_per_run;
    lines.push(
      `- Warm order: thermal slope (last fifth / first fifth, above 1 = slowed down) median ${threeSignificant(t.warm.thermal_slope.median)}, ` +
        `max ${threeSignificant(t.warm.thermal_slope.max)} over ${t.warm.thermal_slope.count} receipt(s)` +
        (drift === null ? '' : `; drift (Theil-Sen) median ${threeSignificant(drift.median)} ms per run`),
    );
  }
  lines.push(
    `- Fallbacks: ${t.fallbacks.count}${t.fallbacks.reasons.length ? ` (${t.fallbacks.reasons.map((r) => `${r.count}x ${cell(r.reason)}`).join('; ')})` : ''}`,
  );
  lines.push(
    `- Integrity: ${
      Object.entries(t.integrity)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${cell(k)} ${n}`)
        .join(', ') || 'none'
    }`,
  );
  if (t.noisy.receipt_ids.length)
    lines.push(
      `- Noisy (hidden ${t.noisy.hidden}, frozen ${t.noisy.frozen}), kept out of statistics: ${cells(t.noisy.receipt_ids)}`,
    );
  if (t.cold_set_aside.served_from_cache.length) {
    lines.push(
      `- Cold runs set aside, served from a cache (not truly cold): ${cells(t.cold_set_aside.served_from_cache)}`,
    );
  }
  if (t.cold_set_aside.cache_state_unknown.length) {
    lines.push(
      `- Cold runs set aside, a file's cache state unknown (not proven cold): ${cells(t.cold_set_aside.cache_state_unknown)}`,
    );
  }
  if (t.cold_set_aside.not_fresh_start.length) {
    lines.push(
      `- Network-cold runs not counted, the start was not fresh (reload, earlier run, not the tab's first page): ${cells(t.cold_set_aside.not_fresh_start)}`,
    );
  }
  if (t.cold_set_aside.not_attested.length) {
    lines.push(
      `- Network-cold runs not counted, browser restart or site data clear not attested: ${cells(t.cold_set_aside.not_attested)}`,
    );
  }
  const out = t.outputs;
  if (out.digests.length > 0) {
    const expected =
      out.matching_expected === null
        ? ''
        : `; ${out.matching_expected} match the protocol's expected ${cells(out.expected_sha256.map((d) => d.slice(0, 12)))}`;
    lines.push(
      `- Output digests of the ok runs: ${out.digests.map((d) => `${d.sha256.slice(0, 12)} x${d.receipts}`).join(', ')}${expected}`,
    );
  }
  const said = t.tester_attested;
  if (said.memory_pressure_seen + said.no_memory_pressure_seen > 0) {
    lines.push(
      `- Tester attested (protocol mode): memory pressure seen ${said.memory_pressure_seen}, none seen ${said.no_memory_pressure_seen}`,
    );
  }
  if (t.overlap_set_aside.length) {
    lines.push(
      `- Runs set aside, another run overlapped them (timings not representative): ${cells(t.overlap_set_aside)}`,
    );
  }
  if (t.device_state) {
    const d = t.device_state;
    lines.push(
      `- Device state recorded by ${d.recorded} receipt(s), CPU pressure observable in ${d.pressure_observed} (elsewhere: not available)`,
    );
    if (d.started_under_pressure.length)
      lines.push(
        `- ⚠ Started under serious or critical CPU pressure (flagged, not set aside): ${cells(d.started_under_pressure)}`,
      );
    if (d.drift_beyond_bound.length)
      lines.push(
        `- ⚠ Drift probe slowed beyond its declared bound (flagged, not set aside): ${cells(d.drift_beyond_bound)}`,
      );
  }
  for (const f of t.failures.by_reason)
    lines.push(`- Failed ${f.count}x at ${cell(f.stage ?? 'unknown stage')}: ${cell(f.reason)}`);
  if (t.duplicate_receipt_ids.length)
    lines.push(`- Receipts repeated by other files (copies not counted): ${cells(t.duplicate_receipt_ids)}`);
  lines.push(...interruptedLines(t.interrupted));
  if (t.related.failed_receipt_ids.length) {
    lines.push(
      `- Related failures (same request, targets ${cells(t.related.target_keys)}): failed ${t.related.failed_receipt_ids.length}`,
    );
  }
  if (t.placement) lines.push(placementLine(t.placement));
  lines.push(`- Model bytes ${bytes(t.model_bytes)}; JS heap (max used) ${bytes(t.js_heap_max_used_bytes)}`);
  if (t.memory) lines.push(memoryLine(t.memory));
  if (t.memory_fit) lines.push(memoryFitLine(t.memory_fit));
  if (t.review)
    lines.push(`- Review: ${cell(t.review.file)} by ${cell(t.review.reviewer)} at ${cell(t.review.reviewed_at)}`);
  lines.push('', ...profileLines(t.profiles), '');
  return lines;
}

function interruptedLines(i: TargetSummary['interrupted']): string[] {
  if (i.group_key === null) return [];
  const stages = i.by_stage.map((s) => `${s.count}x at ${cell(s.stage)}`).join(', ');
  return [
    `- Interrupted runs of this model and requested route on this device (${i.group_key}): ${stages}; recorded by ${cells(i.receipt_ids)}`,
  ];
}

function memoryFitLine(m: NonNullable<TargetSummary['memory_fit']>): string {
  return (
    `- Memory fit (estimate, not a measurement): weights ${bytes(m.estimate.weights_bytes)} + KV cache at ${m.estimate.context_tokens} tokens ` +
    `${bytes(m.estimate.kv_cache_bytes)} = ${bytes(m.estimate.total_bytes)} vs budget ${bytes(m.estimate.budget_bytes)}: **${cell(m.status)}**`
  );
}

function rateRow(name: string, stats: Stats): string {
  if (stats === null) return `| ${name} | 0 | – | – | – | – |`;
  return `| ${name} | ${stats.count} | ${stats.median.toFixed(1)} | ${stats.p95.toFixed(1)} | ${stats.min.toFixed(1)} | ${stats.max.toFixed(1)} |`;
}

function generationSection(g: GenerationTargetSummary): string[] {
  const id = g.identity;
  const c = g.counts;
  const lines = [`### ${g.key}: ${cell(g.label)}`, ''];
  lines.push(`- Evidence: **${cell(g.evidence.state)}**`);
  for (const reason of g.evidence.not_higher_because) lines.push(`  - not higher: ${cell(reason)}`);
  lines.push(`- Device: ${cell(id.device.user_agent)}`);
  lines.push(
    `- App ${cell(id.app.version)} at commit ${cell(id.app.commit ?? 'unknown')}; engine ${cell(engineLabel(id.engine))}; ` +
      `model ${cell(id.model.id)} (${cell(id.model.kind)}, dtype ${cell(id.model.dtype ?? 'n/a')})`,
  );
  lines.push(
    `- Prompts ${cell(id.input.id)}; route requested ${cell(id.route.requested_ep)}, completed ${cell(id.route.completed_ep ?? 'none')}`,
  );
  lines.push(
    `- Runs ${c.receipts}: ok ${c.ok}, failed ${c.failed}, noisy ${c.noisy}, overlapping set aside ${c.overlap_set_aside}; samples ok ${c.ok_samples}, failed ${c.failed_samples}, truncated ${c.truncations}`,
  );
  lines.push('', '| measure | n | median | p95 | min | max |', '| --- | ---: | ---: | ---: | ---: | ---: |');
  lines.push(
    statsRow('cold load (ms)', g.load_ms),
    statsRow('TTFT (ms)', g.ttft_ms),
    statsRow('end to end (ms)', g.e2e_ms),
  );
  lines.push(rateRow('decode (tokens/s)', g.decode_tokens_per_s), '');
  if (g.ttft_median_interval !== null) lines.push(`- TTFT median ${medianIntervalText(g.ttft_median_interval, 'ms')}`);
  if (g.decode_sustained_ratio !== null) {
    lines.push(
      `- Sustained decode speed (last fifth / first fifth of tokens/s, below 1 = slowed down): median ${threeSignificant(g.decode_sustained_ratio.median)}, ` +
        `min ${threeSignificant(g.decode_sustained_ratio.min)} over ${g.decode_sustained_ratio.count} run(s)`,
    );
  }
  for (const f of g.failures.by_reason)
    lines.push(`- Failed ${f.count}x at ${cell(f.stage ?? 'unknown stage')}: ${cell(f.reason)}`);
  lines.push(...interruptedLines(g.interrupted));
  lines.push(`- Model bytes ${bytes(g.model_bytes)}; JS heap (max used) ${bytes(g.js_heap_max_used_bytes)}`);
  if (g.memory_fit) lines.push(memoryFitLine(g.memory_fit));
  lines.push('', ...profileLines(g.profiles), '');
  lines.push(...rankingLines(g), '');
  return lines;
}

function pct(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : `${(value * 100).toFixed(1)}%`;
}

function pts(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : value.toFixed(1);
}

/** The ranking of one generation row: its class, its answer quality, then per profile ranked or not with every reason. */
function rankingLines(g: GenerationTargetSummary): string[] {
  const ranking = g.ranking;
  if (ranking === undefined) return [];
  const lines = [
    `- Row class: **${ranking.row_class.class}**${ranking.row_class.because.length ? ` (${cells(ranking.row_class.because, '; ')})` : ''}`,
  ];
  const q = g.quality ?? null;
  if (q === null)
    lines.push(
      `- Answer quality: ${ranking.quality_reports > 1 ? `${ranking.quality_reports} answer-score reports match (ambiguous)` : 'no answer-score report given'}`,
    );
  else {
    lines.push(
      `- Answer quality (${cell(q.file)}, mean of ${q.repetitions} repetition(s)): quality ${pts(q.quality_score)} (worst ${pts(q.worst_quality_score)}), ` +
        `claim recall ${pct(q.claim_recall)}, critical-claim recall ${pct(q.critical_claim_recall)}, safety ${pct(q.safety_rate)}, ` +
        `citation validity ${pct(q.citation_validity)}, pass rate ${pct(q.pass_rate)} (worst ${pct(q.worst_pass_rate)})${q.complete ? '' : '; not complete'}`,
    );
  }
  for (const p of ranking.profiles) {
    if (p.ranked)
      lines.push(
        `- ${p.profile}: **ranked**, fit ${p.fit!.score.toFixed(1)} (a secondary ordering within one device and profile)`,
      );
    else lines.push(`- ${p.profile}: not ranked: ${cells(p.not_ranked_because, '; ')}`);
  }
  return lines;
}

/**
 * Renders `summary` as Markdown.
 * @param summary a `drb.receipts-summary.v3` document
 */
export function renderSummaryMarkdown(summary: ReceiptsSummary): string {
  const lines: string[] = ['# Device receipts summary', ''];
  const inputs = summary.inputs;
  lines.push(
    `${inputs.files} file(s): ${inputs.receipts_valid} valid device receipt(s), ${inputs.generation_receipts_valid} valid generation receipt(s), ` +
      `${inputs.suite_receipts_valid} valid suite receipt(s), ${inputs.comparison_receipts_valid} valid comparison receipt(s), ` +
      (inputs.sweep_receipts_valid === undefined ? '' : `${inputs.sweep_receipts_valid} valid sweep receipt(s), `) +
      `${inputs.receipts_invalid} invalid (excluded), ${inputs.not_receipts} not a receipt, ` +
      `${inputs.duplicates_identical + inputs.duplicates_conflicting} duplicate(s) (${inputs.duplicates_conflicting} with different content); ` +
      `${inputs.interruptions} interrupted run(s) recorded. ` +
      `Protocol minimums per target: ${summary.protocol.min_cold} cold and ${summary.protocol.min_warm} warm clean ok runs. ` +
      `Budget profiles ${cell(summary.profiles_version)}; LLM configs ${cell(summary.llm_configs_version)}.`,
    '',
    'Evidence states: DEVICE_RECEIPT (receipts exist; not a pass), DEVICE_PASS (reviewed device procedure, minimums, thresholds). ' +
      'PUBLIC_PASS is recorded separately by `drb public-pass`; HUMAN_GO is never set by this tool.',
    '',
    '| target | model | engine | route | threads | cold full (measured / attested) | warm clean | cold total p95 ms | warm median / p95 ms | failed | interrupted | noisy | state | why not higher |',
    '| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
  );
  for (const t of summary.targets) {
    const r = t.identity.route;
    const route = `${routeCell(r)}${placementCell(t.placement)}`;
    const warm = t.warm.pooled_ms;
    lines.push(
      `| ${t.key} | ${cell(t.identity.model.id)} | ${cell(t.identity.engine.name)} | ${route} | ${r.threads_effective ?? r.threads_requested ?? '–'} | ` +
        `${t.counts.full_cold}/${t.counts.min_cold} (${t.counts.measured_fresh_start} / ${t.counts.attested_cold}) | ${t.counts.clean_warm}/${t.counts.min_warm} | ${ms(t.cold.total_ms?.p95)} | ` +
        `${warm ? `${ms(warm.median)} / ${ms(warm.p95)}` : '–'} | ${t.counts.failed + t.related.failed_receipt_ids.length} | ` +
        `${t.counts.interrupted} | ${t.counts.noisy} | ${cell(t.evidence.state)} | ` +
        `${cells(t.evidence.not_higher_because, '; ') || '–'} |`,
    );
  }
  lines.push('');
  const unmeasured = summary.targets.filter(
    (t) => t.memory !== undefined && t.memory.measured_bytes === null && t.counts.ok_cold + t.counts.ok_warm > 0,
  );
  if (unmeasured.length)
    lines.push(
      `Targets with no measured memory figure (the memory budget gate is not measured for them): ${cells(unmeasured.map((t) => t.key))}`,
      '',
    );
  if (summary.invalid.length) {
    lines.push('## Invalid receipts (excluded)', '');
    for (const i of summary.invalid)
      lines.push(`- ${cell(i.file)}: ${i.problems} problem(s), first: ${cell(i.first_problem)}`);
    lines.push('');
  }
  if (summary.duplicates.length) {
    lines.push(
      '## Duplicate receipt files (counted once)',
      '',
      'A receipt counts once: these files repeat a receipt id (in any letter case) or a device run already counted and were ' +
        'left out. A copy with different content, or another receipt of the same run, is an edited or forged receipt; a ' +
        'target with any copy cannot reach DEVICE_PASS until the copies are removed.',
      '',
    );
    for (const d of summary.duplicates) {
      const copies = d.copies
        .map(
          (c) =>
            `${cell(c.file)} (${c.matched_by === 'run_id' ? '**another receipt of the same run**' : c.identical ? 'the same content' : '**different content**'})`,
        )
        .join(', ');
      lines.push(`- ${cell(d.receipt_id)}: counted ${cell(d.counted_file)}; copies ${copies}`);
    }
    lines.push('');
  }
  if (summary.not_receipts.length) {
    lines.push('## Other JSON files (not device receipts)', '');
    for (const n of summary.not_receipts) lines.push(`- ${cell(n.file)}: schema ${cell(n.schema ?? 'none')}`);
    lines.push('');
  }
  if (summary.suite_targets.length) {
    lines.push(
      '## Suite targets',
      '',
      'Suite runs (`drb.suite-receipt.v2`): per-row latency pooled over the ok receipts; model load kept apart. Evidence beside the device procedure, never DEVICE_PASS.',
      '',
      '| target | model | engine | route | suite | receipts ok / all | rows done | row latency median / p95 ms | load median ms | failed | interrupted |',
      '| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const s of summary.suite_targets) {
      const r = s.identity.route;
      const route = routeCell(r);
      const threads = r.threads_effective ?? r.threads_requested;
      lines.push(
        `| ${s.key} | ${cell(s.identity.model.id)} | ${cell(s.identity.engine.name)} | ${route}${threads === null ? '' : ` x${threads}`} | ` +
          `${cell(s.suite.id ?? '(picked files)')} (${cell(s.suite.format)}, ${cell(s.suite.task)}, min margin ${s.suite.min_margin ?? 'none'}) | ` +
          `${s.counts.ok} / ${s.counts.receipts} | ${s.counts.rows_done} | ` +
          `${s.row_latency_ms ? `${ms(s.row_latency_ms.median)} / ${ms(s.row_latency_ms.p95)}` : '–'} | ${ms(s.model_load_ms?.median)} | ` +
          `${s.counts.failed} | ${s.counts.interrupted} |`,
      );
    }
    lines.push('');
    for (const s of summary.suite_targets) {
      for (const f of s.failures.by_reason)
        lines.push(`- ${s.key}: failed ${f.count}x at ${cell(f.stage ?? 'unknown stage')}: ${cell(f.reason)}`);
      for (const line of interruptedLines(s.interrupted)) lines.push(`- ${s.key}: ${line.slice(2)}`);
      if (s.counts.overlap_set_aside > 0)
        lines.push(`- ${s.key}: ${s.counts.overlap_set_aside} ok run(s) set aside, another run overlapped them`);
    }
    if (
      summary.suite_targets.some(
        (s) => s.failures.by_reason.length || s.interrupted.group_key || s.counts.overlap_set_aside,
      )
    )
      lines.push('');
  }
  if (summary.comparisons.length) {
    lines.push(
      '## Comparisons',
      '',
      'One row per comparison receipt (`drb.comparison-receipt.v2`): valid routes ranked by median; a route that failed or disagreed with the baseline is never ranked. ' +
        "Each route's time ratio to the baseline comes with its bootstrap 95% interval over the interleaved rounds; an interval that contains 1 is no clear difference (a tie), whatever the rank.",
      '',
      '| receipt | model | engine | outcome | baseline | ranked valid routes (median / p95 ms, speed-up vs baseline) | time ratio vs baseline [95% interval]: verdict | invalid routes |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const c of summary.comparisons) {
      const ranked = c.ranked
        .map(
          (r) =>
            `${r.rank}. ${cell(r.route_id)} ${ms(r.median_ms)} / ${ms(r.p95_ms)}${r.speedup_vs_baseline === null ? '' : ` x${r.speedup_vs_baseline.toFixed(2)}`}`,
        )
        .join('; ');
      const ratios = c.ranked
        .filter((r) => r.route_id !== c.baseline_route_id && r.ratio_to_baseline !== null)
        .map(
          (r) =>
            `${cell(r.route_id)} ${threeSignificant(r.ratio_to_baseline!)}x ${intervalText(r.ratio_interval)}: ${verdictText(r.verdict)}`,
        )
        .join('; ');
      const invalid = c.invalid.map((r) => `${cell(r.route_id)}: ${cell(r.reason)}`).join('; ');
      lines.push(
        `| ${cell(c.receipt_id)} | ${cell(c.model_id)} | ${cell(c.engine.name)} | ${cell(c.outcome)}${c.reason ? `: ${cell(c.reason)}` : ''}${c.overlapped ? ' (another run overlapped it: timings not representative)' : ''} | ${cell(c.baseline_route_id)} | ` +
          `${ranked || '–'} | ${ratios || '–'} | ${invalid || '–'} |`,
      );
    }
    lines.push('');
    for (const c of summary.comparisons.filter((x) => x.runtime_note !== null))
      lines.push(`- ${cell(c.receipt_id)}: ${cell(c.runtime_note!)}.`);
    for (const c of summary.comparisons.filter((x) => (x.placement_note ?? null) !== null))
      lines.push(`- ${cell(c.receipt_id)}: ${cell(c.placement_note!)}.`);
    for (const c of summary.comparisons.filter((x) => x.stopping !== undefined))
      lines.push(`- ${cell(c.receipt_id)}: ${cell(c.stopping!.sentence)}.`);
    for (const c of summary.comparisons.filter((x) => x.device_state !== undefined)) {
      lines.push(
        `- ${cell(c.receipt_id)}: ${c.device_state!.flagged ? '⚠ device state flagged: ' : 'device state: '}${cell(c.device_state!.line)}.`,
      );
    }
    if (
      summary.comparisons.some(
        (x) =>
          x.runtime_note !== null ||
          (x.placement_note ?? null) !== null ||
          x.stopping !== undefined ||
          x.device_state !== undefined,
      )
    )
      lines.push('');
  }
  if (summary.sweeps?.length) {
    lines.push(
      '## Sweeps',
      '',
      'One block per sweep receipt (`drb.sweep-receipt.v1`): two routes over a ladder of work sizes, the time ratio (other / baseline) at each size with its bootstrap 95% interval, why each size stopped, and the crossover.',
      '',
    );
    for (const w of summary.sweeps) {
      lines.push(
        `### ${cell(w.label)}`,
        '',
        `Receipt ${cell(w.receipt_id)}; outcome ${cell(w.outcome)}${w.reason ? `: ${cell(w.reason)}` : ''}${w.overlapped ? ' (another run overlapped it: timings not representative)' : ''}${w.software_adapter ? '; a WebGPU route ran on a software adapter: timings not representative' : ''}.`,
        '',
        `**${cell(w.sentence)}**`,
        '',
        `- ${w.device_state.flagged ? '⚠ device state flagged: ' : 'device state: '}${cell(w.device_state.line)}`,
        '',
        `| size | valid | rounds | stopped | ${cell(w.baseline_route_id)} median ms | ${cell(w.other_route_id)} median ms | time ratio [95% interval]: verdict |`,
        '| ---: | --- | ---: | --- | ---: | ---: | --- |',
      );
      for (const p of w.points) {
        const ratio =
          p.ratio_to_baseline === null
            ? '–'
            : `${threeSignificant(p.ratio_to_baseline)}x ${intervalText(p.interval)}: ${verdictText(p.verdict)}`;
        lines.push(
          `| ${p.size} | ${p.valid ? 'valid' : `invalid: ${cell(p.invalid_reason ?? 'no reason')}`} | ${p.rounds} | ${cell(p.stop_reason)} | ${ms(p.baseline_median_ms)} | ${ms(p.other_median_ms)} | ${ratio} |`,
        );
      }
      lines.push('');
    }
  }
  if (summary.interruptions.length) {
    lines.push(
      '## Interrupted runs',
      '',
      'Counted under the device (as the recording receipt saw it), model and requested route of the run that died, not the target ' +
        'of the receipt that recorded it. A group with 0 receipts is a model and route that never finished a run on that device.',
      '',
      '| group | model | requested route | device | interrupted | stages | run modes | recorded by | receipts | targets |',
      '| --- | --- | --- | --- | ---: | --- | --- | --- | ---: | --- |',
    );
    for (const g of summary.interruptions) {
      const device = [g.device.model, g.device.platform].filter(Boolean).join(' ') || 'unknown device';
      lines.push(
        `| ${g.key} | ${cell(g.model_id)} | ${cell(g.requested_ep)} | ${cell(device)} | ${g.interrupted} | ` +
          `${g.by_stage.map((s) => `${s.count}x ${cell(s.stage)}`).join(', ')} | ${g.by_run_mode.map((m) => `${m.count}x ${cell(m.run_mode)}`).join(', ')} | ` +
          `${cells(g.receipt_ids)} | ${g.receipts} | ${cells(g.target_keys) || 'none (no receipt of its own)'} |`,
      );
    }
    lines.push('');
  }
  if (summary.orphan_reviews.length) {
    lines.push('## Reviews for targets not in these receipts', '');
    for (const f of summary.orphan_reviews) lines.push(`- ${cell(f)}`);
    lines.push('');
  }
  if (summary.generation_targets.length) {
    lines.push(
      '## Generation targets',
      '',
      '| target | model | engine | route | runs ok / all | load p95 ms | TTFT median / p95 ms | decode tok/s median | memory fit | state |',
      '| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- |',
    );
    for (const g of summary.generation_targets) {
      const r = g.identity.route;
      const route = routeCell(r);
      lines.push(
        `| ${g.key} | ${cell(g.identity.model.id)} | ${cell(g.identity.engine.name)} | ${route} | ${g.counts.ok} / ${g.counts.receipts} | ${ms(g.load_ms?.p95)} | ` +
          `${g.ttft_ms ? `${ms(g.ttft_ms.median)} / ${ms(g.ttft_ms.p95)}` : '–'} | ${g.decode_tokens_per_s ? g.decode_tokens_per_s.median.toFixed(1) : '–'} | ` +
          `${g.memory_fit ? cell(g.memory_fit.status) : 'no config'} | ${cell(g.evidence.state)} |`,
      );
    }
    lines.push('');
    lines.push(
      '### Generation rows: answer quality and ranking',
      '',
      'The individual metrics lead; the fit score is only a secondary ordering of ranked rows within one device and profile.',
      '',
      '| target | class | quality mean / worst | critical-claim recall | claim recall | safety | citation validity | pass rate mean / worst | TTFT p95 ms | decode tok/s | ranked under (fit) |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    );
    for (const g of summary.generation_targets) {
      const q = g.quality ?? null;
      const ranked = (g.ranking?.profiles ?? [])
        .filter((p) => p.ranked)
        .map((p) => `${p.profile} (${p.fit!.score.toFixed(1)})`);
      lines.push(
        `| ${g.key} | ${g.ranking ? g.ranking.row_class.class : '–'} | ${q ? `${pts(q.quality_score)} / ${pts(q.worst_quality_score)}` : '–'} | ${pct(q?.critical_claim_recall)} | ` +
          `${pct(q?.claim_recall)} | ${pct(q?.safety_rate)} | ${pct(q?.citation_validity)} | ${q ? `${pct(q.pass_rate)} / ${pct(q.worst_pass_rate)}` : '–'} | ` +
          `${ms(g.ttft_ms?.p95)} | ${g.decode_tokens_per_s ? g.decode_tokens_per_s.median.toFixed(1) : '–'} | ${ranked.length ? ranked.join(', ') : 'not ranked'} |`,
      );
    }
    lines.push('');
  }
  const unmatched = (summary.answer_scores ?? []).filter((a) => a.target_keys.length === 0);
  if (unmatched.length) {
    lines.push('## Answer-score reports that match no generation target', '');
    lines.push(
      'A report matches the target whose receipts made every answers file it scored and whose prompt set is its case file.',
      '',
    );
    for (const a of unmatched) lines.push(`- ${cell(a.file)} (model ${cell(a.model_id)})`);
    lines.push('');
  }
  lines.push('## Targets', '');
  for (const t of summary.targets) lines.push(...targetSection(t));
  for (const g of summary.generation_targets) lines.push(...generationSection(g));
  return `${lines.join('\n').trimEnd()}\n`;
}
