/**
 * `drb compare --url URL ...`: runs an execution-route comparison, or with `--sweep` a crossover sweep, on a page
 * (a deployed one, or `drb serve`'s) in a fresh browser profile through the automation contract, validates the
 * receipt the page offers with the same checks as `drb receipts validate`, saves it, and prints what it says: each
 * route's ratio with its interval and why the rounds stopped, or each size's ratio and the crossover, and the
 * device's state. The same comparison in two lanes (Chromium and WebKitGTK) is two runs with `--browser`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AutomationSettings } from '../core/automation/automation.ts';
import type { ComparisonReceipt } from '../core/comparison/comparison-receipt.ts';
import { comparisonVerdicts } from '../core/comparison/comparison-verdict.ts';
import { stoppingSentence } from '../core/comparison/stopping-rule.ts';
import type { SweepReceipt } from '../core/comparison/sweep-receipt.ts';
import { crossoverSentence } from '../core/comparison/sweep-statistics.ts';
import { deviceStateLine } from '../core/device/device-state.ts';
import { artifactFileName, receiptNameParts } from '../core/receipt/receipt-envelope.ts';
import { threeSignificant } from '../core/text/format-number.ts';
import { validateReceipt } from '../core/validation/validate-receipt.ts';
import type { LaneName } from '../node/browser-lane.ts';
import { CliError } from './cli-error.ts';
import { fsProblem, makeOutputDir } from './output-files.ts';
import { preflight, runPage } from './page-lane.ts';

/** What a page comparison needs. */
export interface PageCompareOptions {
  url: string;
  browser: LaneName;
  webgpu: boolean;
  timeoutMs: number;
  /** `compare` or `sweep`, with its settings (routes, baseline, rule, sizes ...). */
  kind: 'compare' | 'sweep';
  settings: Partial<AutomationSettings>;
  outputDir: string;
  log: (line: string) => void;
}

/** What the run gave: the lines to print, the file written, and whether it counts as a success. */
export interface PageCompareResult {
  lines: string[];
  file: string | null;
  ok: boolean;
}

/** The comparison receipt in lines: the verdict per route, why the rounds stopped, the device's state. */
export function comparisonLines(receipt: ComparisonReceipt): string[] {
  const lines = comparisonVerdicts(receipt).lead.map((line) => `  ${line}`);
  for (const route of receipt.routes.filter((r) => !r.valid))
    lines.push(`  ${route.id} is invalid: ${route.invalid_reason ?? 'no reason'}`);
  if (receipt.stopping) lines.push(`  stopping: ${stoppingSentence(receipt.stopping)}`);
  if (receipt.device_state) lines.push(`  device: ${deviceStateLine(receipt.device_state)}`);
  return lines;
}

/** The sweep receipt in lines: each size's ratio and why it stopped, the crossover, the device's state. */
export function sweepLines(receipt: SweepReceipt): string[] {
  const lines = receipt.points.map((p) => {
    const ratio =
      p.ratio_to_baseline === null || p.interval === null
        ? `invalid: ${p.invalid_reason ?? 'no ratio'}`
        : `${threeSignificant(p.ratio_to_baseline)}x [${threeSignificant(p.interval.low)}, ${threeSignificant(p.interval.high)}] ${p.verdict === 'no-clear-difference' ? 'no clear difference' : p.verdict}`;
    return `  ${p.size}: ${ratio} (${stoppingSentence(p.stopping)})`;
  });
  lines.push(`  crossover: ${crossoverSentence(receipt)}`);
  lines.push(`  device: ${deviceStateLine(receipt.device_state)}`);
  return lines;
}

/**
 * Runs the comparison or sweep on the page and saves its receipt.
 * @param options see PageCompareOptions
 */
export async function runPageCompare(options: PageCompareOptions): Promise<PageCompareResult> {
  const unreachable = await preflight(options.url, options.timeoutMs);
  if (unreachable !== null) throw new CliError(`--url: ${unreachable}`, 1);
  const wanted = options.kind === 'sweep' ? 'sweep-receipt' : 'comparison-receipt';
  const run = await runPage({
    url: options.url,
    settings: { ...options.settings, autorun: [options.kind] },
    browser: options.browser,
    webgpu: options.webgpu,
    timeoutMs: options.timeoutMs,
    log: options.log,
  });
  const found = run.artifacts.filter((a) => a.kind === wanted).at(-1);
  if (found === undefined) {
    const why =
      run.state === 'timeout'
        ? `the page did not finish within ${options.timeoutMs} ms`
        : (run.errorText ?? `the page ended "${run.state}" without a ${wanted}`);
    return { lines: [`${options.kind} in ${options.browser}: no receipt: ${why}`], file: null, ok: false };
  }
  const validation = validateReceipt(found.data);
  if (validation.kind !== wanted || validation.problems.length > 0) {
    const problems = validation.problems.map((p) => `  ${p.path || '(document)'}: ${p.message}`);
    return {
      lines: [
        `${options.kind} in ${options.browser}: the page's ${wanted} does not validate (not saved):`,
        ...problems,
      ],
      file: null,
      ok: false,
    };
  }
  makeOutputDir(options.outputDir, '--output-dir');
  const file = join(options.outputDir, artifactFileName(receiptNameParts(found.data)));
  try {
    writeFileSync(file, `${JSON.stringify(found.data, null, 2)}\n`, { flag: 'wx' });
  } catch (error) {
    throw new CliError(`--output-dir: cannot write ${file}: ${fsProblem(error)}`, 1);
  }
  const receipt = validation.receipt as ComparisonReceipt | SweepReceipt;
  const head = `${options.kind} ${receipt.model.id} in ${options.browser}${run.browserVersion ? ` ${run.browserVersion}` : ''}: outcome ${receipt.outcome.status}${receipt.outcome.reason ? ` (${receipt.outcome.reason})` : ''}`;
  const body =
    options.kind === 'sweep' ? sweepLines(receipt as SweepReceipt) : comparisonLines(receipt as ComparisonReceipt);
  return { lines: [head, ...body], file, ok: receipt.outcome.status === 'ok' };
}
