/**
 * A receipts summary's counts against each other (the cross-field layer for `drb.receipts-summary.v3`, see
 * src/core/receipt/receipt-invariants.ts for the receipts' own): every count is the length of the list it counts,
 * the parts add up to their whole, a minimum is "met" exactly when its count reaches it (the cold one counts full
 * protocol colds, and the measured and attested cold counts nest as src/core/receipt/cold-start.ts says), the inputs
 * add up to the targets, statistics are ordered, output digests count no more receipts than ran, and DEVICE_PASS
 * stands only where a review is stored, both minimums are met, no copy is pending and nothing is left in the reasons. `drb receipts validate` refuses a summary that breaks one (an
 * edited summary.json); `drb receipts review` does not read counts from a summary at all: it summarises the receipts
 * again (src/cli/receipts.ts).
 */
import { PROTOCOL_MIN_COLD, PROTOCOL_MIN_WARM } from '../field/field-protocol.ts';
import { sheetUrlProblems } from '../field/receipt-bundle.ts';
import type { ReceiptsSummary } from './receipts-summary.ts';

/** One contradiction in a summary: the field path and what is wrong. */
export interface SummaryProblem {
  path: string;
  message: string;
}

interface StatsLike {
  count: number;
  median: number;
  p95: number;
  min: number;
  max: number;
  mean: number;
}

function statsProblems(
  stats: StatsLike | null,
  path: string,
  expectedCount: number | null,
  problems: SummaryProblem[],
): void {
  if (stats === null) {
    if (expectedCount !== null && expectedCount > 0)
      problems.push({ path, message: `is null, but ${expectedCount} value(s) are counted for it` });
    return;
  }
  if (expectedCount !== null && stats.count !== expectedCount)
    problems.push({
      path: `${path}.count`,
      message: `is ${stats.count}, but ${expectedCount} value(s) are counted for it`,
    });
  // Median and p95 are order statistics (values of the sample, exact); the mean is a sum divided, so it may sit a
  // rounding error outside [min, max] (three samples of 0.1 ms have a mean of 0.10000000000000002): that is no
  // contradiction, so the mean gets a relative tolerance of 1e-12.
  const slack = Math.max(Math.abs(stats.min), Math.abs(stats.max)) * 1e-12;
  const meanInRange = stats.min - slack <= stats.mean && stats.mean <= stats.max + slack;
  if (
    !(
      stats.min <= stats.median &&
      stats.median <= stats.max &&
      stats.min <= stats.p95 &&
      stats.p95 <= stats.max &&
      meanInRange
    )
  ) {
    problems.push({
      path,
      message: 'its min, median, p95, mean and max are not in order (min <= median, p95, mean <= max)',
    });
  }
}

function equal(problems: SummaryProblem[], path: string, actual: number, expected: number, what: string): void {
  if (actual !== expected) problems.push({ path, message: `is ${actual}, but ${what} is ${expected}` });
}

/**
 * Every contradiction inside a schema-valid summary.
 * @param summary the parsed summary
 */
export function checkReceiptsSummary(summary: ReceiptsSummary): SummaryProblem[] {
  const problems: SummaryProblem[] = [];
  equal(problems, 'protocol.min_cold', summary.protocol.min_cold, PROTOCOL_MIN_COLD, "the device procedure's minimum");
  equal(problems, 'protocol.min_warm', summary.protocol.min_warm, PROTOCOL_MIN_WARM, "the device procedure's minimum");
  summary.targets.forEach((t, i) => {
    const at = (field: string) => `targets[${i}].${field}`;
    const c = t.counts;
    equal(problems, at('counts.receipts'), c.receipts, c.cold + c.warm, 'counts.cold + counts.warm');
    equal(
      problems,
      at('counts.receipts'),
      c.receipts,
      c.ok_cold + c.ok_warm + c.failed,
      'counts.ok_cold + counts.ok_warm + counts.failed',
    );
    if (c.ok_cold > c.cold)
      problems.push({ path: at('counts.ok_cold'), message: `is ${c.ok_cold}, more than counts.cold (${c.cold})` });
    if (c.ok_warm > c.warm)
      problems.push({ path: at('counts.ok_warm'), message: `is ${c.ok_warm}, more than counts.warm (${c.warm})` });
    if (c.clean_cold + c.cold_set_aside > c.ok_cold)
      problems.push({
        path: at('counts.clean_cold'),
        message: `is ${c.clean_cold}; with ${c.cold_set_aside} set aside that is more than counts.ok_cold (${c.ok_cold})`,
      });
    if (c.clean_warm > c.ok_warm)
      problems.push({
        path: at('counts.clean_warm'),
        message: `is ${c.clean_warm}, more than counts.ok_warm (${c.ok_warm})`,
      });
    // Every ok run is exactly one of: clean, noisy, set aside (not truly cold) or overlapped.
    const sorted = c.clean_cold + c.clean_warm + c.noisy + c.cold_set_aside + c.overlap_set_aside;
    if (sorted !== c.ok_cold + c.ok_warm) {
      problems.push({
        path: at('counts'),
        message: `clean, noisy, cold_set_aside and overlap_set_aside add up to ${sorted}, but ok_cold + ok_warm is ${c.ok_cold + c.ok_warm} (each ok run is exactly one of them)`,
      });
    }
    equal(problems, at('counts.min_cold'), c.min_cold, summary.protocol.min_cold, 'protocol.min_cold');
    equal(problems, at('counts.min_warm'), c.min_warm, summary.protocol.min_warm, 'protocol.min_warm');
    // The cold minimum counts full protocol colds (measured network-cold from a fresh start, and attested): the rule
    // of src/core/receipt/cold-start.ts.
    if (c.cold_minimum_met !== c.full_cold >= c.min_cold)
      problems.push({
        path: at('counts.cold_minimum_met'),
        message: `is ${c.cold_minimum_met}, but counts.full_cold is ${c.full_cold} of ${c.min_cold}`,
      });
    // Measured and attested side by side: measured_network_cold is clean_cold; a full cold is network-cold, from a
    // fresh start and attested; the network-cold runs that are not full are the ones listed as not fresh or not attested.
    equal(problems, at('counts.measured_network_cold'), c.measured_network_cold, c.clean_cold, 'counts.clean_cold');
    if (c.measured_fresh_start > c.measured_network_cold)
      problems.push({
        path: at('counts.measured_fresh_start'),
        message: `is ${c.measured_fresh_start}, more than counts.measured_network_cold (${c.measured_network_cold})`,
      });
    if (c.full_cold > c.measured_fresh_start)
      problems.push({
        path: at('counts.full_cold'),
        message: `is ${c.full_cold}, more than counts.measured_fresh_start (${c.measured_fresh_start})`,
      });
    if (c.full_cold > c.attested_cold)
      problems.push({
        path: at('counts.full_cold'),
        message: `is ${c.full_cold}, more than counts.attested_cold (${c.attested_cold})`,
      });
    if (c.attested_cold > c.clean_cold + c.cold_set_aside) {
      problems.push({
        path: at('counts.attested_cold'),
        message: `is ${c.attested_cold}, more than the clean and set-aside cold runs (${c.clean_cold + c.cold_set_aside})`,
      });
    }
    equal(
      problems,
      at('counts.measured_fresh_start'),
      c.measured_fresh_start,
      c.measured_network_cold - t.cold_set_aside.not_fresh_start.length,
      'counts.measured_network_cold less the length of cold_set_aside.not_fresh_start',
    );
    const notFull = new Set([...t.cold_set_aside.not_fresh_start, ...t.cold_set_aside.not_attested]).size;
    equal(
      problems,
      at('counts.full_cold'),
      c.full_cold,
      c.clean_cold - notFull,
      'counts.clean_cold less the runs listed as not fresh or not attested',
    );
    if (c.warm_minimum_met !== c.clean_warm >= c.min_warm)
      problems.push({
        path: at('counts.warm_minimum_met'),
        message: `is ${c.warm_minimum_met}, but counts.clean_warm is ${c.clean_warm} of ${c.min_warm}`,
      });
    equal(problems, at('counts.failed'), c.failed, t.failures.receipt_ids.length, 'the length of failures.receipt_ids');
    equal(
      problems,
      at('counts.failed'),
      c.failed,
      t.failures.by_reason.reduce((n, r) => n + r.count, 0),
      'the sum of failures.by_reason',
    );
    equal(problems, at('counts.noisy'), c.noisy, t.noisy.receipt_ids.length, 'the length of noisy.receipt_ids');
    equal(
      problems,
      at('counts.cold_set_aside'),
      c.cold_set_aside,
      t.cold_set_aside.served_from_cache.length + t.cold_set_aside.cache_state_unknown.length,
      'the length of the cold_set_aside lists',
    );
    equal(
      problems,
      at('counts.overlap_set_aside'),
      c.overlap_set_aside,
      t.overlap_set_aside.length,
      'the length of overlap_set_aside',
    );
    equal(
      problems,
      at('counts.interrupted'),
      c.interrupted,
      t.interrupted.receipt_ids.length,
      'the length of interrupted.receipt_ids',
    );
    equal(problems, at('counts.warm_samples'), c.warm_samples, t.warm.pooled_ms?.count ?? 0, 'warm.pooled_ms.count');
    equal(
      problems,
      at('fallbacks.count'),
      t.fallbacks.count,
      t.fallbacks.reasons.reduce((n, r) => n + r.count, 0),
      'the sum of fallbacks.reasons',
    );
    const integrity = t.integrity.verified + t.integrity.unpinned + t.integrity.mismatch + t.integrity['not-loaded'];
    equal(problems, at('integrity'), integrity, c.receipts, 'counts.receipts');
    statsProblems(t.cold.total_ms, at('cold.total_ms'), c.full_cold, problems);
    statsProblems(t.cold.navigation_to_result_ms, at('cold.navigation_to_result_ms'), null, problems);
    if ((t.cold.navigation_to_result_ms?.count ?? 0) > c.full_cold) {
      problems.push({
        path: at('cold.navigation_to_result_ms.count'),
        message: `is ${t.cold.navigation_to_result_ms?.count}, more than counts.full_cold (${c.full_cold})`,
      });
    }
    const withOutput = t.outputs.digests.reduce((n, d) => n + d.receipts, 0);
    if (withOutput > c.ok_cold + c.ok_warm)
      problems.push({
        path: at('outputs.digests'),
        message: `count ${withOutput} receipts, more than the ok runs (${c.ok_cold + c.ok_warm})`,
      });
    if ((t.outputs.matching_expected === null) !== (t.outputs.expected_sha256.length === 0)) {
      problems.push({
        path: at('outputs.matching_expected'),
        message: 'is null exactly when no expected digest is declared',
      });
    } else if (t.outputs.matching_expected !== null && t.outputs.matching_expected > c.ok_cold + c.ok_warm) {
      // The digests list is capped (64), the match is over every ok receipt: compared with the ok runs.
      problems.push({
        path: at('outputs.matching_expected'),
        message: `is ${t.outputs.matching_expected}, more than the ok runs (${c.ok_cold + c.ok_warm})`,
      });
    }
    statsProblems(t.cold.fetch_ms, at('cold.fetch_ms'), null, problems);
    statsProblems(t.cold.session_ms, at('cold.session_ms'), null, problems);
    statsProblems(t.cold.first_inference_ms, at('cold.first_inference_ms'), null, problems);
    statsProblems(t.warm.receipt_medians_ms, at('warm.receipt_medians_ms'), c.clean_warm, problems);
    statsProblems(t.warm.pooled_ms, at('warm.pooled_ms'), null, problems);
    // The sheets summarize copied from bundles: an edited summary.json must not carry a secret into the template.
    t.session_sheets.forEach((s, j) => problems.push(...sheetUrlProblems(s.sheet, at(`session_sheets[${j}].sheet`))));
    if (t.evidence.state === 'DEVICE_PASS') {
      const why: string[] = [];
      if (t.review === null) why.push('no review is stored (review is null)');
      if (!c.cold_minimum_met || !c.warm_minimum_met) why.push('a protocol minimum is not met');
      if (t.duplicate_receipt_ids.length > 0) why.push('copies of its receipts are pending (duplicate_receipt_ids)');
      if (t.evidence.not_higher_because.length > 0) why.push('not_higher_because lists reasons');
      for (const reason of why) problems.push({ path: at('evidence.state'), message: `is DEVICE_PASS, but ${reason}` });
    } else if (t.evidence.not_higher_because.length === 0) {
      problems.push({
        path: at('evidence.not_higher_because'),
        message: 'is empty, but the state is not DEVICE_PASS (every reason it is not higher is listed)',
      });
    }
  });
  summary.generation_targets.forEach((t, i) => {
    const c = t.counts;
    equal(
      problems,
      `generation_targets[${i}].counts.receipts`,
      c.receipts,
      c.ok + c.failed,
      'counts.ok + counts.failed',
    );
    equal(
      problems,
      `generation_targets[${i}].counts.noisy`,
      c.noisy,
      t.noisy_receipt_ids.length,
      'the length of noisy_receipt_ids',
    );
    equal(
      problems,
      `generation_targets[${i}].counts.overlap_set_aside`,
      c.overlap_set_aside,
      t.overlap_set_aside.length,
      'the length of overlap_set_aside',
    );
  });
  summary.suite_targets.forEach((t, i) => {
    equal(
      problems,
      `suite_targets[${i}].counts.receipts`,
      t.counts.receipts,
      t.counts.ok + t.counts.failed,
      'counts.ok + counts.failed',
    );
  });
  const inputs = summary.inputs;
  equal(
    problems,
    'inputs.receipts_valid',
    inputs.receipts_valid,
    summary.targets.reduce((n, t) => n + t.counts.receipts, 0),
    "the sum of the targets' counts.receipts",
  );
  equal(
    problems,
    'inputs.generation_receipts_valid',
    inputs.generation_receipts_valid,
    summary.generation_targets.reduce((n, t) => n + t.counts.receipts, 0),
    "the sum of the generation targets' receipts",
  );
  equal(
    problems,
    'inputs.suite_receipts_valid',
    inputs.suite_receipts_valid,
    summary.suite_targets.reduce((n, t) => n + t.counts.receipts, 0),
    "the sum of the suite targets' receipts",
  );
  equal(
    problems,
    'inputs.comparison_receipts_valid',
    inputs.comparison_receipts_valid,
    summary.comparisons.length,
    'the number of comparisons',
  );
  equal(problems, 'inputs.receipts_invalid', inputs.receipts_invalid, summary.invalid.length, 'the length of invalid');
  equal(
    problems,
    'inputs.not_receipts',
    inputs.not_receipts,
    summary.not_receipts.length,
    'the length of not_receipts',
  );
  equal(
    problems,
    'inputs.interruptions',
    inputs.interruptions,
    summary.interruptions.reduce((n, g) => n + g.interrupted, 0),
    'the sum of interruptions[].interrupted',
  );
  const copies = summary.duplicates.flatMap((d) => d.copies);
  equal(
    problems,
    'inputs.duplicates_identical',
    inputs.duplicates_identical,
    copies.filter((c) => c.identical).length,
    'the identical copies listed in duplicates',
  );
  equal(
    problems,
    'inputs.duplicates_conflicting',
    inputs.duplicates_conflicting,
    copies.filter((c) => !c.identical).length,
    'the conflicting copies listed in duplicates',
  );
  return problems;
}
