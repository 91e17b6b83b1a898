/**
 * `npm run bench -- score`: scorer throughput on 100,000 generated rows with 8 candidates each and Japanese-length
 * strings (deterministic PRNG; lengths modelled on the AJIMEE items: inputs ~29 code points, references ~24).
 *
 * 1. The real CLI (`node bin/drb.mjs score`) runs as a child process under /usr/bin/time: wall time includes Node
 *    start-up (and the check that the CLI bundle in node_modules/.cache/drb-cli matches the sources), reading both
 *    files (UTF-8 and JSON checked, rows validated and hashed as they are read), scoring and writing both reports. Rows per second, CPU time
 *    and peak RSS are printed (median of 5 runs, alternating with the Python runs, after one untimed warm-up run of
 *    each, which also builds the CLI bundle when a source changed and fills the page cache for both).
 * 2. The same path minus process start-up runs in this process (readArtifact for the items, openArtifact for the
 *    predictions, then buildScoreReport, as the CLI does).
 *    Where the time goes: the same path in stages, each run RUNS times in this process after the first, cold run
 *    (reading and hashing both files; plus parsing and checking them; plus scoring and building the report; plus
 *    rendering and writing both reports), a stage's share being the median over the rounds of its time minus the
 *    time of the stage before it in the same round; and `drb --version`, timed as a whole process alternating with
 *    the `drb score` runs, for the start-up.
 * 3. If a Python with the C `Levenshtein` extension is found (Debian: `apt-get install python3-levenshtein`), an
 *    equivalent minimal Python scorer (what a user would reach for, as AJIMEE's own utilities do) runs on the same
 *    files, side by side, and its metrics are checked against ours. Otherwise a reference figure for such a scorer
 *    (about 2 s for 100,000 rows, start-up and JSON parsing included, on these machines) is printed, clearly labelled
 *    as not measured here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isJsonWithSchema, openArtifact, readArtifact, writeReportFiles } from '../src/cli/report-output.ts';
import { ByteWindow } from '../src/core/artifacts/byte-window.ts';
import { readPredictionRows } from '../src/core/artifacts/prediction-table.ts';
import { renderScoreMarkdown } from '../src/core/scoring/render-markdown.ts';
import type { ScoreReport } from '../src/core/scoring/score-report.ts';
import { buildScoreReport, loadItems, type ArtifactStream, type ScoreOptions } from '../src/core/scoring/score-run.ts';
import { median, timed, type TimedRun } from './process-timing.ts';

const ROWS = Number(process.env.DRB_BENCH_SCORE_ROWS ?? 100_000);
const CANDIDATES = 8;
const RUNS = Number(process.env.DRB_BENCH_SCORE_RUNS ?? 5);
// A Python scorer with the C Levenshtein extension took about 2 s for 100,000 such rows on these machines.
const PYTHON_REFERENCE_SECONDS = 2;

const random = mulberry32(20261129);
const pick = (from: number, to: number) => from + Math.floor(random() * (to - from + 1));
const katakana = () => String.fromCodePoint(pick(0x30a1, 0x30f6));
const hiragana = () => String.fromCodePoint(pick(0x3041, 0x3093));
const kanji = () => (random() < 0.01 ? '𠮷' : String.fromCodePoint(pick(0x4e00, 0x6fff))); // some astral characters

function japanese(length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += random() < 0.4 ? kanji() : hiragana();
  return text;
}

function mutate(text: string): string {
  const chars = Array.from(text);
  const edits = pick(1, 3);
  for (let e = 0; e < edits; e++) {
    const at = pick(0, Math.max(0, chars.length - 1));
    const kind = random();
    if (kind < 0.5 && chars.length > 0) chars[at] = kanji();
    else if (kind < 0.75) chars.splice(at, 0, hiragana());
    else if (chars.length > 1) chars.splice(at, 1);
  }
  return chars.join('');
}

function generate(): { items: unknown[]; predictions: unknown[] } {
  const items: unknown[] = [];
  const predictions: unknown[] = [];
  for (let r = 0; r < ROWS; r++) {
    const id = `row-${r}`;
    const first = japanese(pick(8, 40));
    const referenceCount = random() < 0.6 ? 1 : random() < 0.6 ? 2 : pick(3, 4);
    const references = [first];
    for (let i = 1; i < referenceCount; i++) references.push(mutate(first));
    let input = '';
    const inputLength = Math.round(Array.from(first).length * 1.2);
    for (let i = 0; i < inputLength; i++) input += katakana();
    items.push({ id, input, references, label: random() < 0.1 ? 'unspecified' : 'typo' });
    const roll = random();
    if (roll < 0.02) continue; // no prediction row
    if (roll < 0.05) {
      predictions.push({ id, candidates: [], provenance: 'deberta', reason: 'low_margin', margin: random() });
      continue;
    }
    const candidates: string[] = [];
    for (let i = 0; i < CANDIDATES; i++) candidates.push(mutate(first));
    if (random() < 0.55) candidates[pick(0, CANDIDATES - 1)] = references[pick(0, referenceCount - 1)];
    predictions.push({ id, candidates, provenance: 'deberta', reason: 'accepted', margin: random() * 3 });
  }
  return { items, predictions };
}

/** Minimal Python scorer with the C Levenshtein extension: Acc@1, Recall@8, both mean MinCERs. */
const PYTHON_SCORER = `
import json, sys
import Levenshtein
items = json.load(open(sys.argv[1], encoding='utf-8'))
preds = {p['id']: p for p in json.load(open(sys.argv[2], encoding='utf-8'))}
k = 8
def min_cer(hyp, refs):
    return min(Levenshtein.distance(ref, hyp) / len(ref) for ref in refs)
correct = hits = 0
input_cer = effective_cer = 0.0
for item in items:
    cands = (preds.get(item['id']) or {}).get('candidates') or []
    refs = item['references']
    effective = cands[0] if cands else item['input']
    correct += effective in refs
    hits += any(c in refs for c in cands[:k])
    i = min_cer(item['input'], refs)
    input_cer += i
    effective_cer += i if not cands else min_cer(effective, refs)
n = len(items)
print(json.dumps({'effective_acc_at_1': correct / n, 'candidate_recall_at_k': hits / n,
                  'mean_input_min_cer': input_cer / n, 'mean_effective_min_cer': effective_cer / n}))
`;
import { mulberry32 } from '../src/core/stats/mulberry32.ts';

function findPython(): string | null {
  for (const candidate of ['python3', '/usr/bin/python3']) {
    const probe = spawnSync(candidate, ['-c', 'import Levenshtein'], { encoding: 'utf8' });
    if (probe.status === 0) return candidate;
  }
  return null;
}

const dir = mkdtempSync(join(tmpdir(), 'drb-score-bench-'));
try {
  const [loadAtStart] = loadavg();
  const started = performance.now();
  const { items, predictions } = generate();
  const itemsPath = join(dir, 'items.json');
  const predictionsPath = join(dir, 'predictions.json');
  writeFileSync(itemsPath, JSON.stringify(items));
  writeFileSync(predictionsPath, JSON.stringify(predictions));
  const itemsBytes = readFileSync(itemsPath).byteLength;
  const predictionsBytes = readFileSync(predictionsPath).byteLength;
  console.log(
    `generated ${ROWS} rows x ${CANDIDATES} candidates in ${((performance.now() - started) / 1000).toFixed(1)} s: items ${(itemsBytes / 1e6).toFixed(1)} MB, predictions ${(predictionsBytes / 1e6).toFixed(1)} MB`,
  );

  const bin = fileURLToPath(new URL('../bin/drb.mjs', import.meta.url));
  const python = findPython();
  if (python === null)
    console.log(
      'Python with the C Levenshtein extension: NOT FOUND (apt-get install python3-levenshtein); no side-by-side run.',
    );
  const script = join(dir, 'score.py');
  writeFileSync(script, PYTHON_SCORER);
  const cliArgs = [
    bin,
    'score',
    '--items',
    itemsPath,
    '--predictions',
    predictionsPath,
    '--output-dir',
    join(dir, 'out'),
    '--stem',
    'bench',
  ];
  // One untimed run of each first: it builds the CLI bundle if a source changed since the last run (a one-off cost,
  // like Python compiling its .pyc files) and puts both input files in the page cache.
  timed(process.execPath, cliArgs);
  if (python !== null) timed(python, [script, itemsPath, predictionsPath]);
  // drb and Python runs alternate, so a change in the machine's load hits both alike; `drb --version` (start-up
  // alone) runs beside them.
  const cliRuns: TimedRun[] = [];
  const pyRuns: TimedRun[] = [];
  const versionRuns: TimedRun[] = [];
  for (let i = 0; i < RUNS; i++) {
    cliRuns.push(timed(process.execPath, cliArgs));
    if (python !== null) pyRuns.push(timed(python, [script, itemsPath, predictionsPath]));
    versionRuns.push(timed(process.execPath, [bin, '--version']));
  }
  const cliSeconds = median(cliRuns.map((r) => r.seconds));
  const cliCpu = median(cliRuns.map((r) => r.cpuSeconds));
  const cliRss = Math.max(...cliRuns.map((r) => r.peakRssKiB));
  const ours = JSON.parse(readFileSync(join(dir, 'out', 'bench.json'), 'utf8')).metrics;

  // The same path without process start-up, in stages: each stage runs the ones before it too, so its time minus the
  // previous stage's in the same round is its share. The first run of the whole path comes first, while the code is
  // cold as in a process of its own; the medians are of warm runs.
  const options: ScoreOptions = {
    format: 'generic',
    candidateLimit: CANDIDATES,
    declared: {},
    toolVersion: 'bench',
    perRow: false,
  };
  const readBoth = () => {
    const predictionsFile = openArtifact(predictionsPath) as ArtifactStream & { close(): void };
    const reader = predictionsFile.open();
    return { items: readArtifact(itemsPath), window: ByteWindow.reading(reader.read), close: predictionsFile.close };
  };
  const whole = async (): Promise<ScoreReport> => {
    const predictionsFile = openArtifact(predictionsPath);
    try {
      return await buildScoreReport(readArtifact(itemsPath), predictionsFile, options);
    } finally {
      predictionsFile.close();
    }
  };
  const stages: { label: string; run: () => Promise<unknown> }[] = [
    {
      label: 'read and hash both files',
      run: async () => {
        const { window, close } = readBoth();
        while (window.advance(window.limit));
        close();
      },
    },
    {
      label: 'parse and check both files (byte readers: UTF-8, JSON, every row, ids)',
      run: async () => {
        const { items, window, close } = readBoth();
        const loaded = await loadItems(items, 'generic');
        readPredictionRows(window, (row) => loaded.table.index.find(row.bytes, row.idStart, row.idEnd) >= 0);
        close();
      },
    },
    { label: 'score every row, sum up the metrics, build the report', run: whole },
    {
      label: 'render and write the JSON and Markdown reports',
      run: async () => {
        const report = await whole();
        const json = `${JSON.stringify(report, null, 2)}\n`;
        writeReportFiles(
          join(dir, 'stages'),
          'bench',
          [
            { extension: '.json', text: json, isOurs: (text) => isJsonWithSchema(text, report.schema) },
            {
              extension: '.md',
              text: renderScoreMarkdown(report),
              isOurs: (text) => text.startsWith('# Score report'),
            },
          ],
          [itemsPath, predictionsPath],
        );
      },
    },
  ];
  const t0 = performance.now();
  await whole();
  const coldSeconds = (performance.now() - t0) / 1000;
  const inProcess: number[] = [];
  const inProcessCpu: number[] = [];
  const stageSeconds: number[][] = stages.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    for (const [k, stage] of stages.entries()) {
      const start = performance.now();
      const c0 = process.cpuUsage();
      await stage.run();
      stageSeconds[k].push((performance.now() - start) / 1000);
      if (stage.run === whole) {
        inProcess.push((performance.now() - start) / 1000);
        const cpu = process.cpuUsage(c0);
        inProcessCpu.push((cpu.user + cpu.system) / 1e6);
      }
    }
  }
  const inSeconds = median(inProcess);
  const inCpu = median(inProcessCpu);
  const memory = process.memoryUsage();
  const versionSeconds = median(versionRuns.map((r) => r.seconds));

  const lines: string[] = [];
  const rate = (seconds: number) => Math.round(ROWS / seconds).toLocaleString('en-US');
  lines.push(`| Path | Median wall time (${RUNS} runs) | Rows/s (wall) | Median CPU time (user + sys) | Peak RSS |`);
  lines.push('| --- | ---: | ---: | ---: | ---: |');
  lines.push(
    `| \`drb score\` CLI, child process (Node start-up, read and check, validate, hash, score, write) | ${cliSeconds.toFixed(2)} s | ${rate(cliSeconds)} | ${cliCpu.toFixed(2)} s | ${(cliRss / 1024).toFixed(0)} MiB |`,
  );
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  const heap = `bench process heap after the runs: ${mib(memory.heapUsed)} used / ${mib(memory.heapTotal)} total`;
  lines.push(
    `| same path in-process (no start-up; the first, cold run took ${coldSeconds.toFixed(2)} s) | ` +
      `${inSeconds.toFixed(2)} s | ${rate(inSeconds)} | ${inCpu.toFixed(2)} s | (${heap}) |`,
  );

  if (python !== null) {
    const pySeconds = median(pyRuns.map((r) => r.seconds));
    const pyCpu = median(pyRuns.map((r) => r.cpuSeconds));
    const pyRss = Math.max(...pyRuns.map((r) => r.peakRssKiB));
    const version = spawnSync(
      python,
      [
        '-c',
        'import sys; from importlib.metadata import version; print(sys.version.split()[0], version("python-Levenshtein"))',
      ],
      { encoding: 'utf8' },
    ).stdout.trim();
    lines.push(
      `| Python ${version.split(' ')[0]} + C \`Levenshtein\` ${version.split(' ')[1]} (measured here, same files; start-up and JSON parsing included) | ${pySeconds.toFixed(2)} s | ${rate(pySeconds)} | ${pyCpu.toFixed(2)} s | ${(pyRss / 1024).toFixed(0)} MiB |`,
    );
    console.log(lines.join('\n'));
    // Each drb run against the Python run right after it, so a change in the machine's load hits both sides of a ratio.
    const paired = median(cliRuns.map((run, i) => run.seconds / pyRuns[i].seconds));
    const wallRatio = cliSeconds / pySeconds;
    console.log(
      `\nratio drb CLI / Python: wall ${wallRatio.toFixed(2)} (median of the paired runs' ratios ${paired.toFixed(2)}), CPU ${(cliCpu / pyCpu).toFixed(2)}, peak RSS ${(cliRss / pyRss).toFixed(2)} (< 1 means drb is faster or smaller). The Python scorer computes 4 metrics and validates nothing; drb computes all of them, validates every row, hashes both files and writes two reports.`,
    );
    console.log(
      `target: drb wall time at most 0.5 of Python's: ${wallRatio <= 0.5 && paired <= 0.5 ? 'met' : 'NOT met'}`,
    );
    const theirs = JSON.parse(pyRuns[0].stdout) as Record<string, number>;
    for (const [key, value] of Object.entries(theirs)) {
      const same = value === ours[key]; // identical doubles: both sides print the shortest round-trip form
      console.log(`cross-check ${key}: drb ${ours[key]} python ${value} ${same ? 'agree' : 'DISAGREE'}`);
      if (!same) process.exitCode = 1;
    }
  } else {
    console.log(lines.join('\n'));
    console.log(
      `\nNo Python with the C Levenshtein extension here (apt-get install python3-levenshtein to measure it).`,
    );
    console.log(
      `Reference figure for a Python scorer (NOT measured here): about ${PYTHON_REFERENCE_SECONDS} s for 100,000 rows; drb CLI / reference = ${(cliSeconds / PYTHON_REFERENCE_SECONDS).toFixed(2)}.`,
    );
  }
  // Where the process time goes: start-up from `drb --version`, each in-process stage's share (the median over the
  // rounds of the difference with the stage before it, which the noise of a shared machine can make negative), and
  // what is left of the process's wall time (the cold code of a fresh process, and exiting).
  const ms = (seconds: number) => `${(seconds * 1000).toFixed(0)} ms`;
  console.log(`\nWhere \`drb score\`'s ${ms(cliSeconds)} go (medians; in-process stages warm, ${RUNS} runs each):`);
  console.log('| Part | Time |\n| --- | ---: |');
  console.log(`| start-up (\`drb --version\`, a whole process) | ${ms(versionSeconds)} |`);
  stages.forEach((stage, k) => {
    const share = median(stageSeconds[k].map((seconds, i) => seconds - (k === 0 ? 0 : stageSeconds[k - 1][i])));
    console.log(`| ${stage.label} | ${ms(share)} |`);
  });
  const rest = cliSeconds - versionSeconds - median(stageSeconds[stages.length - 1]);
  console.log(`| the rest: the score command's modules, code running cold in a fresh process, exiting | ${ms(rest)} |`);

  const [load1] = loadavg();
  console.log(
    `\nmachine: ${cpus().length} logical CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${loadAtStart.toFixed(1)} at the start and ${load1.toFixed(1)} at the end (wall times mean little when it is far above the CPU count)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
