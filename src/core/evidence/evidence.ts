/**
 * Evidence rules: which state a target has earned and why it is not higher.
 *
 * - DEVICE_RECEIPT: the target has downloaded receipts. This is not a pass by itself.
 * - DEVICE_PASS: a reviewer's answers are stored for the target, the protocol minimums are met by clean ok runs
 *   (at least 5 cold and 20 warm), every failed or interrupted run (the target's own and related ones) is
 *   explained, the tab survived, the output stayed correct, and every declared threshold holds.
 * - PUBLIC_PASS is a separate record (drb public-pass) and never implies DEVICE_PASS.
 * - HUMAN_GO is a human decision: no function here can return it.
 */
import type { DeviceReview } from './device-review.ts';
import type { EvidenceState, TargetSummary } from './receipts-summary.ts';
import { OPTIONAL_GATES } from './profiles.ts';

/** The evidence verdict for one target. */
export interface EvidenceVerdict {
  state: EvidenceState;
  not_higher_because: string[];
}

function formatMs(value: number): string {
  return `${Math.round(value * 100) / 100} ms`;
}

/**
 * Decides the evidence state of `target` given its stored review (or null).
 * @param target the target's summary (its `evidence` field is ignored)
 * @param review the reviewer's answers for this target, or null when none is stored
 */
export function evaluateEvidence(
  target: Omit<TargetSummary, 'evidence'>,
  review: DeviceReview | null,
): EvidenceVerdict {
  const reasons: string[] = [];
  const { counts } = target;
  if (review === null) reasons.push(`no device review stored (drb receipts review --target ${target.key})`);
  if (review !== null && review.target !== target.key)
    reasons.push(`the stored review names target ${review.target}, not ${target.key}`);
  if (counts.ok_cold + counts.ok_warm === 0) reasons.push('no run completed ok');
  if (!counts.cold_minimum_met) {
    const aside = target.cold_set_aside;
    const why = [
      aside.served_from_cache.length > 0 ? `${aside.served_from_cache.length} served from a cache` : '',
      aside.cache_state_unknown.length > 0
        ? `${aside.cache_state_unknown.length} with a file of unknown cache state`
        : '',
      aside.not_fresh_start.length > 0
        ? `${aside.not_fresh_start.length} without a fresh start (a reload, an earlier run on the page, not the tab's first page)`
        : '',
      aside.not_attested.length > 0
        ? `${aside.not_attested.length} without an attested browser restart and site data clear`
        : '',
    ].filter(Boolean);
    reasons.push(
      `${counts.full_cold} full protocol cold run(s), the protocol needs at least ${counts.min_cold}; measured: ${counts.measured_network_cold} ` +
        `network-cold, ${counts.measured_fresh_start} of them from a fresh start; attested: ${counts.attested_cold} browser restart and site data clear` +
        (why.length > 0 ? ` (cold run(s) set aside: ${why.join(', ')})` : ''),
    );
  }
  if (!counts.warm_minimum_met) {
    reasons.push(`${counts.clean_warm} clean ok warm run(s), the protocol needs at least ${counts.min_warm}`);
  }
  if (counts.overlap_set_aside > 0 && (!counts.cold_minimum_met || !counts.warm_minimum_met)) {
    reasons.push(
      `${counts.overlap_set_aside} ok run(s) set aside because another run overlapped them (run one at a time, in one tab)`,
    );
  }
  if (target.duplicate_receipt_ids.length > 0) {
    reasons.push(
      `${target.duplicate_receipt_ids.length} receipt id(s) appear in more than one file (${[...target.duplicate_receipt_ids].sort().join(', ')}): ` +
        'a receipt counts once; remove the copies and summarise again',
    );
  }
  // The output the receipts themselves recorded: every ok run gives one digest, and the protocol's where it declares one.
  const { outputs } = target;
  if (outputs.digests.length > 1) {
    reasons.push(
      `the ok runs gave ${outputs.digests.length} different outputs (output digests ${outputs.digests.map((d) => `${d.sha256.slice(0, 12)} x${d.receipts}`).join(', ')})`,
    );
  }
  if (outputs.matching_expected !== null) {
    const withOutput = outputs.digests.reduce((sum, d) => sum + d.receipts, 0);
    if (outputs.matching_expected < withOutput) {
      reasons.push(
        `${withOutput - outputs.matching_expected} ok run(s) did not give the protocol's expected output (${outputs.expected_sha256.map((d) => d.slice(0, 12)).join(', ')})`,
      );
    }
  }
  const explained = new Set(review?.failure_explanations.map((e) => e.receipt_id) ?? []);
  const failed = [...target.failures.receipt_ids, ...target.related.failed_receipt_ids].filter(
    (id) => !explained.has(id),
  );
  const interrupted = [...target.interrupted.receipt_ids].filter((id) => !explained.has(id));
  if (failed.length > 0)
    reasons.push(`${failed.length} failed run(s) not explained in a review: ${failed.sort().join(', ')}`);
  if (interrupted.length > 0) {
    reasons.push(
      `${interrupted.length} interrupted run(s) not explained in a review (recorded by ${interrupted.sort().join(', ')})`,
    );
  }
  if (review !== null) {
    const commit = target.identity.app.commit;
    const revision = review.public_revision.trim().toLowerCase();
    // A git-looking revision must name the commit the receipts recorded (either may be abbreviated); other
    // revision formats (a hosting platform's own ids) cannot be compared and are left to the reviewer.
    if (
      commit !== null &&
      /^[0-9a-f]{7,40}$/.test(revision) &&
      !commit.toLowerCase().startsWith(revision) &&
      !revision.startsWith(commit.toLowerCase())
    ) {
      reasons.push(`the reviewed public revision ${revision} is not the commit the receipts recorded (${commit})`);
    }
    if (review.tab.reloaded_or_evicted)
      reasons.push('the reviewer saw the tab reloaded or evicted during the procedure');
    if (!review.output_stayed_correct) reasons.push('the reviewer saw the output change during the procedure');
    const { thresholds } = review;
    if (thresholds.profile !== null) {
      const verdict = target.profiles.find((p) => p.profile === thresholds.profile);
      if (!verdict) reasons.push(`declared profile "${thresholds.profile}" was not evaluated`);
      else if (verdict.verdict !== 'pass') {
        const bad = verdict.gates
          .filter((g) => g.status === 'fail' || (g.status === 'not-measured' && !OPTIONAL_GATES.has(g.gate)))
          .map((g) => (g.status === 'fail' ? `${g.gate} ${g.measured} > ${g.limit}` : `${g.gate} not measured`));
        reasons.push(`declared profile "${thresholds.profile}" does not hold: ${bad.join('; ')}`);
      }
    }
    const coldP95 = target.cold.total_ms?.p95 ?? null;
    if (thresholds.cold_total_p95_ms !== null) {
      if (coldP95 === null) reasons.push('declared cold total p95 threshold, but no clean cold run measured it');
      else if (coldP95 > thresholds.cold_total_p95_ms) {
        reasons.push(
          `cold total p95 ${formatMs(coldP95)} is over the declared ${formatMs(thresholds.cold_total_p95_ms)}`,
        );
      }
    }
    const warmP95 = target.warm.pooled_ms?.p95 ?? null;
    if (thresholds.warm_p95_ms !== null) {
      if (warmP95 === null) reasons.push('declared warm p95 threshold, but no clean warm run measured it');
      else if (warmP95 > thresholds.warm_p95_ms) {
        reasons.push(`warm p95 ${formatMs(warmP95)} is over the declared ${formatMs(thresholds.warm_p95_ms)}`);
      }
    }
  }
  return { state: reasons.length === 0 ? 'DEVICE_PASS' : 'DEVICE_RECEIPT', not_higher_because: reasons };
}
