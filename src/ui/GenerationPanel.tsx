/**
 * Generation runs: pick a generate model (transformers.js or WebLLM), route, prompt set and repetitions; run one
 * untimed warm-up and the measured prompts; show TTFT / decode speed / end-to-end numbers; offer the generation
 * receipt and, as a separate explicit download, the answers.
 *
 * With `autorun=generate` the panel starts by itself and sets the automation contract's `drbState` and
 * `window.drbArtifacts` (`generation-receipt`, `answers`).
 */
import { pageSession } from '../page/session.ts';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { initialPanelModel, type CatalogModel } from '../core/catalog/catalog.ts';
import { canRun, ENGINE_CAPABILITIES } from '../core/engines/engine-capabilities.ts';
import type { GenerationAnswers } from '../core/generation/generation-answers.ts';
import type { GenerationReceipt, GenerationSample } from '../core/generation/generation-receipt.ts';
import { setDrbState } from '../page/drb-state.ts';
import { BadParamsNote, PageBusyNote, runAsPageRun, usePageRun, type RunPanelProps } from './page-runs.tsx';
import { OverlapNote } from './OverlapNote.tsx';
import { FailureAdvice } from './FailureAdvice.tsx';
import { ResultRegion } from './ResultRegion.tsx';
import { ThreadsSelect } from './ThreadsSelect.tsx';
import { copyJson, downloadJson, downloadReceipt } from '../page/download.ts';
import { artifactFileName, engineLabel, receiptNameParts } from '../core/receipt/receipt-envelope.ts';
import { GenerationController, loadPromptSet } from '../page/generation-controller.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { CancelButton } from './CancelButton.tsx';
import { GenerationChart } from './GenerationChart.tsx';
import { EpSelect } from './EpSelect.tsx';
import { ModelSelect } from './ModelSelect.tsx';

/** The prompt sets this build ships (public/prompts/<id>.json). */
const PROMPT_SETS = ['drb-gen-ja-en-v1', 'drb-answer-cases-ja-en-v1'];

function fmt(value: number | null, digits = 1): string {
  return value === null ? '–' : value.toFixed(digits);
}

/** TTFT and decode-speed strips of the ok samples, in run order. */
function GenerationCharts(props: { samples: GenerationSample[] }) {
  const ok = props.samples.filter((s) => s.outcome === 'ok');
  const ttft = ok.map((s) => s.ttft_ms).filter((v): v is number => v !== null);
  const decode = ok.map((s) => s.decode_tokens_per_s).filter((v): v is number => v !== null);
  return (
    <>
      <GenerationChart values={ttft} label="Time to first token (ms)" unit="ms" testId="gen-ttft-chart" />
      <GenerationChart values={decode} label="Decode speed (tokens/s)" unit="tokens/s" testId="gen-decode-chart" />
    </>
  );
}

/** The summary numbers of a generation receipt (page clock, with the engine's own report beside it when given). */
export function GenerationSummaryTable(props: { receipt: GenerationReceipt }) {
  const { summary, cold, plan } = props.receipt;
  const er = summary.engine_reported;
  return (
    <table class="kv cards" data-testid="generation-summary">
      <tbody>
        <tr><th>TTFT median / p95 (ms)</th><td>{fmt(summary.ttft_ms_median)} / {fmt(summary.ttft_ms_p95)}</td></tr>
        <tr><th>Decode median (tokens/s)</th><td>{fmt(summary.decode_tokens_per_s_median)}</td></tr>
        <tr><th>Prefill median (tokens/s)</th><td>{fmt(summary.prefill_tokens_per_s_median)}</td></tr>
        <tr><th>End-to-end median (ms)</th><td>{fmt(summary.e2e_ms_median)}</td></tr>
        <tr><th>Cold load · cold TTFT (ms, not in warm stats)</th><td>{fmt(cold.load_ms)} · {fmt(cold.warmup_ttft_ms)}</td></tr>
        <tr><th>Prompts ok / planned</th><td>{summary.ok_samples} / {summary.measured_planned}</td></tr>
        <tr><th>Failures · truncated at {plan.max_new_tokens} tokens{plan.max_new_tokens_overridden ? ' (limit overridden)' : ''}</th><td>{summary.failures} · {summary.truncations}</td></tr>
        <tr><th>Sustained speed (last 5 / first 5)</th><td>{fmt(summary.sustained_speed_ratio, 3)}</td></tr>
        <tr><th>Seeds</th><td>{plan.seed_control === 'seeded' ? plan.seeds!.join(', ') : 'no seed control'}</td></tr>
        {er && (
          <tr>
            <th>Engine's own report: TTFT · decode · e2e (max |clock − engine| TTFT, e2e)</th>
            <td>
              {fmt(er.ttft_ms_median)} ms · {fmt(er.decode_tokens_per_s_median)} tok/s · {fmt(er.e2e_ms_median)} ms ({fmt(er.max_abs_ttft_diff_ms)}, {fmt(er.max_abs_e2e_diff_ms)} ms)
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

/**
 * The generation panel: generate models; the URL's model, ep, threads, prompts, reps and stage timeouts.
 */
export function GenerationPanel(props: RunPanelProps) {
  const paramErrors = props.paramErrors ?? [];
  const { catalog, automation: a } = props;
  const models: CatalogModel[] = catalog.models.filter((m) => canRun(m, 'generate'));
  const initialModel = initialPanelModel(models, a.model, props.autorun, (m) => m.kind === 'fixture');
  const [modelId, setModelId] = useState(initialModel);
  const [ep, setEp] = useState<'wasm' | 'webgpu'>(a.ep);
  const [threads, setThreads] = useState<number | null>(a.threads);
  const [reps, setReps] = useState(a.reps);
  const [promptSetId, setPromptSetId] = useState(a.prompts);
  const [busy, setBusy] = useState(false);
  const [phase, setPhase] = useState<string | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [tokens, setTokens] = useState(0);
  const [liveSamples, setLiveSamples] = useState<GenerationSample[]>([]);
  const [result, setResult] = useState<{ receipt: GenerationReceipt; answers: GenerationAnswers; problems: string[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const [cancel, setCancel] = useState<AbortController | null>(null);

  const pageRun = usePageRun();
  const controller = useMemo(() => new GenerationController(livePageFacts(a.stageTimeoutMs, props.journal)), []);

  const run = async (settings: { modelId: string; ep: 'wasm' | 'webgpu'; threads: number | null; reps: number; promptSetId: string }): Promise<boolean> => {
    const model = models.find((m) => m.id === settings.modelId);
    setError(null);
    setResult(null);
    setCopied(null); // a "Copied." note belongs to the previous receipt
    if (!model) {
      setError(`Model ${settings.modelId || '(none)'} is not a generate model in the catalog`);
      return false;
    }
    // An explicit engine parameter must match the model's engine (the model decides; a mismatch is not silently ignored).
    if (props.autorun && a.engine !== null && a.engine !== model.engine) {
      setError(`Invalid engine param: '${a.engine}', model ${model.id} runs on engine ${model.engine}`);
      return false;
    }
    return runAsPageRun('generation run', { setBusy, setCancel, setError }, async (signal) => {
      setProgress(null);
      setLiveSamples([]);
      const prompts = await loadPromptSet(new URL(import.meta.env.BASE_URL, location.href).href, settings.promptSetId);
      const out = await controller.run(
        { model, ep: settings.ep, threads: settings.threads, allowFallback: a.allowFallback, prompts, repetitions: settings.reps, maxNewTokens: a.maxNewTokens },
        {
          onPhase: setPhase,
          onSample: (done: number, total: number, sample: GenerationSample) => {
            setProgress({ done, total });
            setLiveSamples((prev) => [...prev, sample]);
            setTokens(0);
          },
          onToken: (i: number) => setTokens(i + 1),
        },
        signal,
      );
      // Stored on the device before they are shown: a tab killed afterwards loses nothing.
      if (out.problems.length === 0) {
        await pageSession.offerArtifact('generation-receipt', out.receipt);
        await pageSession.offerArtifact('answers', out.answers);
      }
      setResult(out);
      if (out.problems.length > 0) return false;
      return out.receipt.outcome.status === 'ok';
    });
  };

  useEffect(() => {
    if (!props.autorun) return;
    setDrbState('running');
    void run({ modelId: initialModel, ep: a.ep, threads: a.threads, reps: a.reps, promptSetId: a.prompts }).then((ok) => setDrbState(ok ? 'done' : 'failed'));
  }, []);

  const model = models.find((m) => m.id === modelId);
  const receipt = result?.receipt ?? null;
  return (
    <section class="panel" data-testid="generation-panel">
      <h2>Generation run</h2>
      <p class="note">
        One untimed warm-up, then every prompt of the versioned prompt set in order, once per repetition (seeds 17, 29,
        41 where the engine takes a seed). The receipt holds timings only; the answers are a separate download.
        {model?.kind === 'fixture' ? ' This model is a fixture with random weights: its text is noise, its timings exercise the pipeline.' : ''}
        {model && !ENGINE_CAPABILITIES[model.engine].devices.includes('wasm')
          ? ` ${model.label} runs on WebGPU only (WebLLM also needs shader-f16 for q4f16 models); it is checked before anything is downloaded.`
          : ''}
      </p>
      <div class="controls">
        <ModelSelect models={models} value={modelId} busy={busy} testId="gen-model" onChange={setModelId} />
        <EpSelect value={ep} busy={busy} testId="gen-ep" onChange={setEp} />
        <ThreadsSelect value={threads} busy={busy} testId="gen-threads" onChange={setThreads} />
        <label>
          Prompt set
          <select value={promptSetId} disabled={busy} onChange={(e) => setPromptSetId(e.currentTarget.value)}>
            {[...new Set([...PROMPT_SETS, promptSetId])].map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
        </label>
        <label>
          Repetitions
          <select value={String(reps)} disabled={busy} data-testid="gen-reps" onChange={(e) => setReps(Number(e.currentTarget.value))}>
            {[1, 2, 3].map((n) => (
              <option key={n} value={String(n)}>
                {n}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div class="buttons">
        <button type="button" disabled={busy || pageRun !== null || paramErrors.length > 0 || !model} data-testid="gen-run" onClick={() => void run({ modelId, ep, threads, reps, promptSetId })}>
          Run generation
        </button>
        <CancelButton onCancel={cancel ? () => cancel.abort() : null} testId="gen-cancel" />
        <PageBusyNote owner={pageRun} ownBusy={busy} testId="gen-page-busy" />
        <BadParamsNote errors={paramErrors} testId="gen-bad-params" />
        {busy && (
          <span role="status" data-testid="gen-progress">
            {phase ?? 'starting'}
            {progress ? ` · prompt ${progress.done} / ${progress.total}` : ''}
            {tokens > 0 ? ` · ${tokens} tokens` : ''}
          </span>
        )}
      </div>
      {busy && liveSamples.length > 0 && <GenerationCharts samples={liveSamples} />}
      {error && <p class="error">{error}</p>}
      {result && result.problems.length > 0 && (
        <p class="error" data-testid="gen-problems">
          The receipt failed its own checks and is not offered: {result.problems.join('; ')}
        </p>
      )}
      {receipt && (
        <ResultRegion resultKey={receipt.receipt_id} class={`receipt ${receipt.outcome.status}`} testId="generation-receipt" outcome={receipt.outcome.status}>
          <h3>
            {engineLabel(receipt.engine)} · {receipt.model.id} · {receipt.route.completed_ep ?? `requested ${receipt.route.requested_ep}`} ·{' '}
            <strong data-testid="gen-outcome">{receipt.outcome.status === 'ok' ? '✓ ok' : '✗ failed'}</strong>
          </h3>
          {receipt.outcome.reason && (
            <p class="error" data-testid="gen-failure-reason">
              Failed: {receipt.outcome.reason}
            </p>
          )}
          <FailureAdvice reason={receipt.outcome.reason} panel="generation" testId="gen-advice" />
          <OverlapNote overlap={receipt.overlap} />
          <GenerationSummaryTable receipt={receipt} />
          <GenerationCharts samples={receipt.samples} />
          {result!.problems.length === 0 && (
            <div class="buttons">
              <button type="button" data-testid="gen-download" onClick={() => setCopied(`Saved as ${downloadReceipt(receipt)}.`)}>
                Download generation receipt
              </button>
              <button type="button" data-testid="gen-copy" onClick={async () => setCopied((await copyJson(receipt)) ? 'Copied.' : 'Copy failed: use Download.')}>
                Copy receipt
              </button>
              <button
                type="button"
                data-testid="gen-download-answers"
                title="The model's answers, for scoring on your own machine. Not part of the receipt."
                onClick={() => {
                  const name = artifactFileName(receiptNameParts(receipt, 'answers'));
                  downloadJson(result!.answers, name);
                  setCopied(`Saved as ${name}.`);
                }}
              >
                Download answers (separate, holds the generated text)
              </button>
              {copied && <span role="status">{copied}</span>}
            </div>
          )}
        </ResultRegion>
      )}
    </section>
  );
}
