import type { Command } from 'commander';
import { ArtifactError } from '../core/artifacts/artifact-error.ts';
import { ItemFormat } from '../core/artifacts/items.ts';
import { buildCompareReport } from '../core/scoring/compare-report.ts';
import { renderCompareHeadline, renderCompareMarkdown } from '../core/scoring/render-markdown.ts';
import { CliError } from './cli-error.ts';
import { isJsonWithSchema, parseCandidateLimit, readArtifact, writeReportFiles } from './report-output.ts';
import { toolVersion } from './tool-version.ts';
import { parseAutomation, PARAMS, type AutomationSettings } from '../core/automation/automation.ts';
import { redactUrl } from '../core/text/redact.ts';
import { setExitCode } from './exit-code.ts';
import { quotedText } from '../core/text/terminal-text.ts';

interface CompareFlags {
  items?: string;
  baseline?: string;
  candidate?: string;
  format: string;
  candidateLimit: string;
  outputDir: string;
  stem: string;
  url?: string;
  sweep?: boolean;
  browser: string;
  webgpu?: boolean;
  timeoutMs: string;
  model?: string;
  routes?: string;
  baselineRoute?: string;
  rounds?: string;
  seed?: string;
  tolerance?: string;
  stop?: string;
  minRounds?: string;
  maxRounds?: string;
  maxTimeMs?: string;
  tieZone?: string;
  maxWidth?: string;
  sizes?: string;
}

/** The page flags as automation URL parameters: the page's own parser checks them (one line per bad value). */
const PAGE_PARAMS: Array<[keyof CompareFlags, string]> = [
  ['model', 'model'],
  ['routes', 'routes'],
  ['baselineRoute', 'baseline'],
  ['rounds', 'rounds'],
  ['seed', 'seed'],
  ['tolerance', 'tolerance'],
  ['stop', 'stop'],
  ['minRounds', 'min_rounds'],
  ['maxRounds', 'max_rounds'],
  ['maxTimeMs', 'max_time_ms'],
  ['tieZone', 'tie_zone'],
  ['maxWidth', 'max_width'],
  ['sizes', 'sizes'],
];

/**
 * Registers `drb compare`: a paired, row-by-row comparison of two prediction runs over the same item bytes, with
 * exact sign tests (writes DIR/STEM.json + DIR/STEM.md and prints the headline); or, with `--url`, an execution-route
 * comparison (or with `--sweep` a crossover sweep) run on the page in a fresh browser (src/cli/compare-page.ts).
 * @param command `drb compare`, named and described in main.ts
 */
export function register(command: Command): void {
  command
    .option('--items <file>', 'items artifact both runs are scored against')
    .option('--baseline <file>', 'baseline run: predictions artifact, or a drb.score-report.v2 written with --per-row')
    .option('--candidate <file>', 'candidate run, likewise')
    .option('--format <format>', 'items format: generic or ajimee', 'generic')
    .option('--candidate-limit <k>', 'only the first K candidates count', '8')
    .option('--output-dir <dir>', 'where to write the reports (with --url: the receipt)', 'outputs')
    .option('--stem <name>', 'report file name without extension', 'comparison')
    .option('--url <url>', 'run an execution-route comparison on this page (http or https) in a fresh browser instead')
    .option('--sweep', "with --url: a crossover sweep of two routes over the model's ladder of sizes")
    .option('--browser <name>', 'with --url: chromium or webkit', 'chromium')
    .option('--webgpu', 'with --url, chromium only: start it with --enable-unsafe-webgpu')
    .option('--timeout-ms <n>', 'with --url: longest the page may take', '600000')
    .option('--model <id>', 'with --url: the catalog model')
    .option('--routes <list>', 'with --url: routes, e.g. wasm-1,wasm-2 (a sweep takes exactly two)')
    .option('--baseline-route <id>', 'with --url: the baseline route (default the first)')
    .option('--rounds <n>', 'with --url and --stop fixed: rounds per route')
    .option('--seed <n>', 'with --url: the schedule seed')
    .option('--tolerance <x>', 'with --url: the agreement bound')
    .option('--stop <rule>', 'with --url: fixed or until-clear')
    .option('--min-rounds <n>', 'with --stop until-clear: no early stop before this many rounds')
    .option('--max-rounds <n>', 'with --stop until-clear: the rounds budget')
    .option('--max-time-ms <n>', 'with --stop until-clear: the time budget')
    .option('--tie-zone <x>', 'with --stop until-clear: half-width of the tie zone, e.g. 0.05')
    .option('--max-width <x>', 'with --stop until-clear: an interval narrower than this is precise enough')
    .option('--sizes <list>', "with --sweep: sizes of the model's ladder, e.g. 16,64,256 (default every size)")
    .action(async (flags: CompareFlags) => {
      if (flags.url !== undefined) return comparePage(command, flags);
      if (flags.sweep) throw new CliError('--sweep: runs on a page; give --url');
      for (const [flag, value] of [
        ['--items <file>', flags.items],
        ['--baseline <file>', flags.baseline],
        ['--candidate <file>', flags.candidate],
      ] as const) {
        if (value === undefined)
          throw new CliError(`required option '${flag}' not specified (or give --url to compare routes on a page)`);
      }
      const format = ItemFormat.safeParse(flags.format);
      if (!format.success)
        throw new CliError(`--format: unknown format ${quotedText(flags.format)} (expected generic or ajimee)`);
      const candidateLimit = parseCandidateLimit(flags.candidateLimit);
      const items = readArtifact(flags.items!);
      const baseline = readArtifact(flags.baseline!);
      const candidate = readArtifact(flags.candidate!);
      let report;
      try {
        report = await buildCompareReport(items, baseline, candidate, {
          format: format.data,
          candidateLimit,
          toolVersion: toolVersion(),
        });
      } catch (error) {
        if (error instanceof ArtifactError) throw new CliError(error.message);
        throw error;
      }
      const written = writeReportFiles(
        flags.outputDir,
        flags.stem,
        [
          {
            extension: '.json',
            text: `${JSON.stringify(report, null, 2)}\n`,
            isOurs: (text) => isJsonWithSchema(text, report.schema),
          },
          {
            extension: '.md',
            text: renderCompareMarkdown(report),
            isOurs: (text) => text.startsWith('# Paired comparison\n'),
          },
        ],
        [flags.items!, flags.baseline!, flags.candidate!],
      );
      process.stdout.write(`${renderCompareHeadline(report)}\n\n`);
      process.stdout.write(
        `broke ${report.broken.length} rows, fixed ${report.fixed.length}; wrote ${written.join(' and ')}\n`,
      );
    });
}

/** `drb compare --url`: the options checked here (one line and exit 2 each), the run on the page, its lines. */
async function comparePage(command: Command, flags: CompareFlags): Promise<void> {
  if (flags.items !== undefined || flags.candidate !== undefined || flags.baseline !== undefined) {
    throw new CliError(
      '--url: compares routes on a page; --items, --baseline and --candidate are for predictions (use --baseline-route for a route)',
    );
  }
  if (flags.browser !== 'chromium' && flags.browser !== 'webkit')
    throw new CliError(`--browser: expected chromium or webkit, got '${flags.browser}'`);
  if (flags.webgpu && flags.browser !== 'chromium')
    throw new CliError('--webgpu: only for --browser chromium (WebKitGTK has no WebGPU here)');
  if (!/^[1-9]\d{0,8}$/.test(flags.timeoutMs))
    throw new CliError(`--timeout-ms: expected a positive integer, got '${flags.timeoutMs}'`);
  let url: URL;
  try {
    url = new URL(flags.url!);
  } catch {
    throw new CliError(`--url: not a URL: '${redactUrl(flags.url!)}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`--url: expected http or https, got '${url.protocol}'`);
  // The page's own parser checks every value, with the catalog of the page that runs it: built from the flags'
  // text, refused here with the page's own one-line message.
  const query = new URLSearchParams();
  for (const [flag, param] of PAGE_PARAMS) {
    const value = flags[flag];
    if (typeof value === 'string') query.set(param, value);
  }
  const parsed = parseAutomation(`?${query}`, { modelIds: flags.model === undefined ? [] : [flags.model] });
  if (parsed.errors.length > 0) {
    const flag = (name: string) => (name === 'baseline' ? '--baseline-route' : `--${name.replace(/_/g, '-')}`);
    throw new CliError(parsed.errors[0].replace(/^Invalid (\S+) param/, (_, name: string) => flag(name)));
  }
  const settings = Object.fromEntries(
    PAGE_PARAMS.filter(([flag]) => flags[flag] !== undefined).map(([, param]) => {
      const field = PARAMS[param].field;
      return [field, parsed.settings[field]];
    }),
  ) as Partial<AutomationSettings>;
  if (flags.sweep && parsed.settings.compareRoutes.length !== 2)
    throw new CliError('--routes: a sweep compares exactly 2 routes, e.g. wasm-1,wasm-2');
  // Imported here: the browser lane and the receipt checks are this mode's alone.
  const { runPageCompare } = await import('./compare-page.ts');
  const result = await runPageCompare({
    url: redactUrl(url.href),
    browser: flags.browser,
    webgpu: Boolean(flags.webgpu),
    timeoutMs: Number(flags.timeoutMs),
    kind: flags.sweep ? 'sweep' : 'compare',
    settings,
    outputDir: flags.outputDir,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${result.lines.join('\n')}\n`);
  if (result.file !== null) process.stdout.write(`wrote ${result.file}\n`);
  if (!result.ok) setExitCode(command, 1);
}
