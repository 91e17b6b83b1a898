/**
 * Gathers what `drb receipts report` shows, one input document at a time: every receipt goes through the same
 * validation and the same ReceiptsSummarizer as `drb receipts summarize` (so the report's numbers are summary.json's,
 * and a receipt id counts once here too), and the per-receipt details a summary pools away are kept beside it,
 * keyed by the same target keys. Score reports are kept for the quality-beside-speed table. Pure: the CLI reads the
 * files (src/cli/receipt-files.ts `readInputDocuments`) and hands over each parsed document.
 */
import { coldStartEvidence } from '../receipt/cold-start.ts';
import type { ComparisonReceipt } from '../comparison/comparison-receipt.ts';
import type { GenerationReceipt } from '../generation/generation-receipt.ts';
import { median } from '../stats/stats.ts';
import type { DeviceReceipt } from '../receipt/receipt.ts';
import { ReceiptsSummarizer, type SummaryOptions } from '../evidence/receipts-summarizer.ts';
import { suiteTargetIdentity } from '../evidence/suite-accumulator.ts';
import { canonicalJson, generationTargetIdentity, identityKey, targetIdentity } from '../evidence/target-identity.ts';
import { validateReceipt, type ReceiptProblem } from '../validation/validate-receipt.ts';
import { RECEIPT_BUNDLE_SCHEMA, type ReceiptBundle } from '../field/receipt-bundle.ts';
import { lastFifthRatio, theilSenSlope } from '../stats/sample-order.ts';
import { ScoreReport } from '../scoring/score-report.ts';
import { issuePath } from '../text/zod-issues.ts';
import { ANSWER_SCORE_SCHEMA, type AnswerScoreReport } from '../answers/answer-score.ts';
import type {
  ColdRun,
  ComparisonDetail,
  GenerationRun,
  QualityEntry,
  ReportData,
  ReportInput,
  WarmRun,
} from './report-data.ts';

/** The schema string of the score reports the report reads (`drb score`'s output). */
const SCORE_REPORT_SCHEMA = 'drb.score-report.v2';

/** A parsed input document, as `readInputDocuments` gives it. */
export type ParsedDocument = { ok: true; value: unknown } | { ok: false; message: string };

/** Where a document came from: the file as shown, and the SHA-256 and size of its bytes. */
export interface DocumentSource {
  file: string;
  sha256: string;
  bytes: number;
  /** The bundle file (as shown) a receipt was read out of, when it came in a receipt bundle. */
  bundle?: string;
}

/**
 * Whether a cold run's bytes came from the network or from a cache, as its receipt records it (`run.cold_from_cache`),
 * and whether it is a full protocol cold (src/core/receipt/cold-start.ts): anything less is left out of the cold
 * minimum and statistics, as the summary does.
 * @param receipt the cold device receipt
 */
export function coldCacheState(receipt: DeviceReceipt): string {
  const v = receipt.run.cold_from_cache;
  if (v !== false) return v === true ? 'served from a cache (left out)' : 'unknown (left out)';
  const evidence = coldStartEvidence(receipt);
  return evidence.full
    ? 'network, full protocol cold (counted)'
    : `network, not a protocol cold: ${evidence.missing.join('; ')} (left out)`;
}

/**
 * The stage a failed run stopped in, as its receipt records it: `outcome.failed_stage`, else the stage its reason
 * names when the page's stage time limit ended it (`stage setup did not finish within its time limit ...`).
 * @param outcome the receipt's outcome
 * @returns the stage, or null when the receipt names none
 */
export function recordedFailedStage(outcome: DeviceReceipt['outcome']): string | null {
  if (outcome.failed_stage !== null) return outcome.failed_stage;
  const match = /^stage ([a-z_]+) did not finish within its time limit\b/.exec(outcome.reason ?? '');
  return match ? match[1] : null;
}

/** A record waiting for its target key (computed once, in `finish`, from the canonical identity). */
type Keyed<T> = { canonical: string; prefix: 't' | 'g' | 's'; record: T };
type Detail<T> = Omit<T, 'target_key'>;

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function firstProblem(problems: readonly ReceiptProblem[]): string {
  const first = problems[0];
  return first ? `${first.path || '(document)'}: ${first.message}` : 'invalid';
}

/** Folds input documents into a receipts summary plus the details the report draws. */
export class ReportCollector {
  private readonly summarizer = new ReceiptsSummarizer();
  private readonly inputs: ReportInput[] = [];

  /**
   * @param fingerprint a receipt's content fingerprint (the CLI hashes its canonical JSON; by default the canonical
   *   JSON itself): copies are told apart by content, whatever their formatting (src/core/evidence/receipt-ids.ts)
   */
  constructor(private readonly fingerprint: (value: unknown) => string = canonicalJson) {}
  private readonly cold: Array<Keyed<Detail<ColdRun>>> = [];
  private readonly warm: Array<Keyed<Detail<WarmRun>>> = [];
  private readonly generation: Array<Keyed<Detail<GenerationRun>>> = [];
  private readonly comparisons: ComparisonDetail[] = [];
  private readonly scoreReports: Array<{ source: DocumentSource; report: ScoreReport }> = [];
  /** Suite receipts' predictions and items hashes, with their target's canonical identity. */
  private readonly suitePredictions: Array<{ predictions: string; items: string; canonical: string }> = [];

  /** Valid receipts counted so far (any kind); a report needs at least one. */
  get validCount(): number {
    return this.summarizer.validCount;
  }

  /**
   * Notes a file that was not read (a symbolic link inside a folder): listed as invalid, as summarize does.
   * @param file the file as shown
   * @param problem why it was not read
   */
  addUnread(file: string, problem: string): ReportInput {
    this.summarizer.addInvalid(file, [{ path: '', message: problem }]);
    return this.note({ file, sha256: '', bytes: 0 }, 'invalid', `(document): ${problem}`);
  }

  /**
   * Folds one input document.
   * @param source the file as shown, and its bytes' SHA-256 and size
   * @param parsed its JSON, or why it is not JSON
   * @returns how the document was taken (its kind, and the problem when it was not used)
   */
  addDocument(source: DocumentSource, parsed: ParsedDocument): ReportInput {
    if (!parsed.ok) {
      this.summarizer.addInvalid(source.file, [{ path: '', message: parsed.message }]);
      return this.note(source, 'invalid', `(document): ${parsed.message}`);
    }
    const result = validateReceipt(parsed.value);
    if (result.kind === 'artifact' && result.schema === RECEIPT_BUNDLE_SCHEMA && result.problems.length === 0) {
      // As summarize takes a bundle: its sheet, protocol and session statements; its receipts follow one by one.
      this.summarizer.addBundle(source.file, parsed.value as ReceiptBundle);
      return this.note(source, 'not-used', 'a receipt bundle: its receipts are read one by one');
    }
    if (result.kind === 'not-a-receipt' || result.kind === 'artifact') {
      // Counted as summarize counts it (not a receipt), so the summary here is summary.json's.
      this.summarizer.addNotReceipt(source.file, result.schema);
      if (result.kind === 'artifact' && result.problems.length > 0)
        return this.note(source, 'invalid', firstProblem(result.problems));
      if (result.schema === SCORE_REPORT_SCHEMA) return this.addScoreReport(source, parsed.value);
      if (result.schema === ANSWER_SCORE_SCHEMA) {
        // Ranks the generation target whose runs made its answers, exactly as drb receipts summarize does.
        this.summarizer.addAnswerScore(parsed.value as AnswerScoreReport, source.file, source.sha256);
        return this.note(source, 'answer-score', null);
      }
      return this.note(source, 'not-used', `not a receipt (schema ${result.schema ?? 'none'})`);
    }
    if (result.receipt === null) {
      this.summarizer.addInvalid(source.file, result.problems);
      return this.note(source, 'invalid', firstProblem(result.problems));
    }
    const fingerprint = { file: source.file, fingerprint: this.fingerprint(parsed.value), bundle: source.bundle };
    let counted: boolean;
    if (result.kind === 'receipt') {
      counted = this.summarizer.addReceipt(result.receipt, fingerprint);
      if (counted) this.addDevice(result.receipt);
    } else if (result.kind === 'generation-receipt') {
      counted = this.summarizer.addGenerationReceipt(result.receipt, fingerprint);
      if (counted) this.addGeneration(result.receipt);
    } else if (result.kind === 'suite-receipt') {
      counted = this.summarizer.addSuiteReceipt(result.receipt, fingerprint);
      const { predictions } = result.receipt;
      if (counted && predictions !== null) {
        this.suitePredictions.push({
          predictions: predictions.sha256,
          items: result.receipt.suite.items.sha256,
          canonical: canonicalJson(suiteTargetIdentity(result.receipt)),
        });
      }
    } else if (result.kind === 'sweep-receipt') {
      // Everything the report draws of a sweep is in its summary entry.
      counted = this.summarizer.addSweepReceipt(result.receipt, fingerprint);
    } else {
      counted = this.summarizer.addComparisonReceipt(result.receipt, fingerprint);
      if (counted) this.addComparison(result.receipt);
    }
    if (!counted)
      return this.note(
        source,
        'duplicate',
        `receipt_id ${result.receipt.receipt_id} (or its run) was counted already (a receipt counts once)`,
      );
    return this.note(source, result.kind === 'receipt' ? 'device-receipt' : result.kind, null);
  }

  private note(source: DocumentSource, kind: ReportInput['kind'], note: string | null): ReportInput {
    const input = { file: source.file, sha256: source.sha256, bytes: source.bytes, kind, note };
    this.inputs.push(input);
    return input;
  }

  private addScoreReport(source: DocumentSource, value: unknown): ReportInput {
    const parsed = ScoreReport.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return this.note(source, 'invalid', `${issuePath(issue.path)}: ${issue.message}`);
    }
    this.scoreReports.push({ source, report: parsed.data });
    return this.note(source, 'score-report', null);
  }

  private addDevice(receipt: DeviceReceipt): void {
    const canonical = canonicalJson(targetIdentity(receipt));
    const noisy = receipt.lifecycle.hidden_during_run || receipt.lifecycle.frozen_during_run;
    const base = {
      receipt_id: receipt.receipt_id,
      created_at: receipt.created_at,
      outcome: receipt.outcome.status,
      noisy,
    };
    const t = receipt.timings;
    if (receipt.run.kind === 'cold') {
      this.cold.push({
        canonical,
        prefix: 't',
        record: {
          ...base,
          failed_stage: receipt.outcome.status === 'failed' ? recordedFailedStage(receipt.outcome) : null,
          failure_reason: receipt.outcome.status === 'failed' ? receipt.outcome.reason : null,
          fetch_ms: t.model_fetch_ms,
          session_ms: t.session_create_ms,
          first_inference_ms: t.first_inference_ms,
          total_ms: t.total_ms,
          cache_state: coldCacheState(receipt),
          from_cache: receipt.run.cold_from_cache,
          protocol_cold: receipt.run.cold_from_cache === false && coldStartEvidence(receipt).full,
        },
      });
      return;
    }
    const samples = [...t.warm_samples_ms];
    const fifth = Math.floor(samples.length / 5);
    this.warm.push({
      canonical,
      prefix: 't',
      record: {
        ...base,
        samples_ms: samples,
        thermal_slope: lastFifthRatio(samples),
        first_fifth_median_ms: fifth > 0 ? median(samples.slice(0, fifth)) : null,
        last_fifth_median_ms: fifth > 0 ? median(samples.slice(samples.length - fifth)) : null,
        drift_ms_per_run: theilSenSlope(samples),
      },
    });
  }

  private addGeneration(receipt: GenerationReceipt): void {
    const ok = receipt.samples.filter((s) => s.outcome === 'ok');
    const decode = ok.flatMap((s) => (s.decode_tokens_per_s === null ? [] : [s.decode_tokens_per_s]));
    this.generation.push({
      canonical: canonicalJson(generationTargetIdentity(receipt)),
      prefix: 'g',
      record: {
        receipt_id: receipt.receipt_id,
        created_at: receipt.created_at,
        outcome: receipt.outcome.status,
        noisy: receipt.lifecycle.hidden_during_run || receipt.lifecycle.frozen_during_run,
        ttft_ms: ok.flatMap((s) => (s.ttft_ms === null ? [] : [s.ttft_ms])),
        decode_tokens_per_s: decode,
        sustained_ratio: lastFifthRatio(decode),
      },
    });
  }

  private addComparison(receipt: ComparisonReceipt): void {
    const headline = new Map((receipt.headline?.routes ?? []).map((h) => [h.route_id, h]));
    this.comparisons.push({
      receipt_id: receipt.receipt_id,
      created_at: receipt.created_at,
      baseline_route_id: receipt.baseline_route_id,
      rounds: receipt.schedule.rounds,
      seed: receipt.schedule.seed,
      software_adapter: receipt.capabilities.webgpu.is_fallback_adapter === true,
      routes: receipt.routes.map((r) => {
        const h = headline.get(r.id);
        return {
          route_id: r.id,
          requested_ep: r.requested_ep,
          completed_ep: r.completed_ep,
          threads_effective: r.threads_effective,
          valid: r.valid,
          invalid_reason: r.invalid_reason,
          rank: r.rank,
          median_ms: r.stats?.median ?? null,
          p95_ms: r.stats?.p95 ?? null,
          samples_ms: [...r.samples_ms],
          max_abs_diff: r.agreement?.max_abs_diff ?? null,
          same_order: r.agreement?.same_order ?? null,
          ratio_to_baseline: r.ratio_to_baseline,
          interval_low: h?.interval?.low ?? null,
          interval_high: h?.interval?.high ?? null,
          verdict: h?.verdict ?? null,
        };
      }),
    });
  }

  /**
   * The report's data: the summary (as `drb receipts summarize` would write it for the same inputs) and the details,
   * in a stable order (by target key, then time, then receipt id), so the same inputs give the same page.
   * @param options stored reviews, profiles and LLM configs, as for the summary
   */
  async finish(options: SummaryOptions = {}): Promise<ReportData> {
    const summary = await this.summarizer.finish(options);
    const keys = new Map<string, string>();
    const keyOf = async (canonical: string, prefix: 't' | 'g' | 's') => {
      const mapKey = `${prefix}\u0000${canonical}`;
      if (!keys.has(mapKey)) keys.set(mapKey, await identityKey(canonical, prefix));
      return keys.get(mapKey)!;
    };
    const resolve = async <T extends { receipt_id: string; created_at: string }>(list: ReadonlyArray<Keyed<T>>) => {
      const out: Array<T & { target_key: string }> = [];
      for (const { canonical, prefix, record } of list)
        out.push({ ...record, target_key: await keyOf(canonical, prefix) });
      return out.sort(
        (a, b) =>
          byString(a.target_key, b.target_key) ||
          byString(a.created_at, b.created_at) ||
          byString(a.receipt_id, b.receipt_id),
      );
    };
    const quality: QualityEntry[] = [];
    for (const { source, report } of this.scoreReports) {
      const matched = new Set<string>();
      for (const s of this.suitePredictions) {
        if (s.predictions === report.inputs.predictions.sha256 && s.items === report.inputs.items.sha256)
          matched.add(await keyOf(s.canonical, 's'));
      }
      const m = report.metrics;
      quality.push({
        file: source.file,
        sha256: source.sha256,
        dataset: report.dataset.name ?? report.inputs.items.file,
        items_sha256: report.inputs.items.sha256,
        predictions_sha256: report.inputs.predictions.sha256,
        rows: m.rows,
        candidate_limit: report.candidate_limit,
        effective_acc_at_1: m.effective_acc_at_1,
        candidate_recall_at_k: m.candidate_recall_at_k,
        mean_effective_min_cer: m.mean_effective_min_cer,
        abstention_rate: m.abstention_rate,
        suite_target_keys: [...matched].sort(byString),
      });
    }
    return {
      summary,
      inputs: [...this.inputs].sort((a, b) => byString(a.file, b.file) || byString(a.sha256, b.sha256)),
      cold: await resolve(this.cold),
      warm: await resolve(this.warm),
      generation: await resolve(this.generation),
      comparisons: [...this.comparisons].sort(
        (a, b) => byString(a.created_at, b.created_at) || byString(a.receipt_id, b.receipt_id),
      ),
      quality: quality.sort((a, b) => byString(a.file, b.file)),
    };
  }
}
