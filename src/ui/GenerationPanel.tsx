/**
 * Generation runs: pick a generate model (transformers.js or WebLLM), route, prompt set and repetitions; run one
 * untimed warm-up and the measured prompts; show TTFT / decode speed / end-to-end numbers; offer the generation
 * receipt and, as a separate explicit download, the answers.
 *
 * With `autorun=generate` the panel starts by itself and sets the automation contract's `drbState` and
 * `window.drbArtifacts` (`generation-receipt`, `answers`).
 */
import { useMemo, useState } from 'preact/hooks';
import { engineParamProblem } from '../core/automation/autorun-plan.ts';
import { alternative, routeChoiceNote } from '../core/automation/route-choice.ts';
import { initialPanelModel } from '../core/catalog/catalog.ts';
import { canRun, ENGINE_CAPABILITIES } from '../core/engines/engine-capabilities.ts';
import type { GenerationSample } from '../core/generation/generation-receipt.ts';
import { GenerationController, loadPromptSet } from '../page/generation-controller.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { GenerationControls, type GenerationChoice } from './GenerationControls.tsx';
import { GenerationCharts, GenerationResultRegion, type GenerationResult } from './GenerationResult.tsx';
import { RunSideButtons } from './page-runs.tsx';
import { RouteNote } from './RouteNote.tsx';
import { usePanelRun, type RunPanelProps } from './panel-run.ts';

/** Where a running generation is: its phase, the prompts measured so far (of how many), the current prompt's tokens. */
interface Live {
  phase: string | null;
  samples: GenerationSample[];
  total: number | null;
  tokens: number;
}

/**
 * The generation panel: generate models; the URL's model, ep, threads, prompts, reps and stage timeouts.
 */
export function GenerationPanel(props: RunPanelProps) {
  const paramErrors = props.paramErrors ?? [];
  const { catalog, automation: a } = props;
  const models = catalog.models.filter((m) => canRun(m, 'generate'));
  const initialModel = initialPanelModel(models, a.model, props.autorun, (m) => m.kind === 'fixture');
  const initial: GenerationChoice = {
    modelId: initialModel,
    ep: a.ep,
    threads: a.threads,
    reps: a.reps,
    promptSetId: a.prompts,
  };
  const [choice, setChoice] = useState(initial);
  const [live, setLive] = useState<Live>({ phase: null, samples: [], total: null, tokens: 0 });
  const controller = useMemo(() => new GenerationController(livePageFacts(a.stageTimeoutMs, props.journal)), []);

  const generate = async (c: GenerationChoice): Promise<boolean> => {
    const model = models.find((m) => m.id === c.modelId);
    if (!model) return run.refuse(`Model ${c.modelId || '(none)'} is not a generate model in the catalog`);
    return run.start('generation run', async ({ signal, keep, show }) => {
      setLive((prev) => ({ ...prev, samples: [], total: null }));
      const prompts = await loadPromptSet(new URL(import.meta.env.BASE_URL, location.href).href, c.promptSetId);
      const out: GenerationResult = await controller.run(
        {
          model,
          ep: c.ep,
          threads: c.threads,
          allowFallback: a.allowFallback,
          prompts,
          repetitions: c.reps,
          maxNewTokens: a.maxNewTokens,
        },
        {
          onPhase: (phase) => setLive((prev) => ({ ...prev, phase })),
          onSample: (_done, total, sample) =>
            setLive((prev) => ({ ...prev, samples: [...prev.samples, sample], total, tokens: 0 })),
          onToken: (i) => setLive((prev) => ({ ...prev, tokens: i + 1 })),
        },
        signal,
      );
      if (out.problems.length > 0) {
        show(out);
        return false;
      }
      await keep(out, [
        { kind: 'generation-receipt', data: out.receipt },
        { kind: 'answers', data: out.answers },
      ]);
      return out.receipt.outcome.status === 'ok';
    });
  };

  const run = usePanelRun<GenerationResult>({
    paramErrors,
    check: props.autorun
      ? () =>
          engineParamProblem(
            'generate',
            a.engine,
            models.find((m) => m.id === initialModel),
          )
      : undefined,
    autorun: props.autorun ? () => generate(initial) : null,
  });
  const model = models.find((m) => m.id === choice.modelId);
  const busy = run.busy;
  const webgpuOnly = model && !ENGINE_CAPABILITIES[model.engine].devices.includes('wasm');
  const caps = props.capabilities ?? null;
  const routeNote = routeChoiceNote({ model: model ?? null, ep: choice.ep, allowFallback: null }, models, caps);
  return (
    <section class="panel" data-testid="generation-panel">
      <h2>Generation run</h2>
      <p class="note">
        One untimed warm-up, then every prompt of the versioned prompt set in order, once per repetition (seeds 17, 29,
        41 where the engine takes a seed). The receipt holds timings only; the answers are a separate download.
        {model?.kind === 'fixture'
          ? ' This model is a fixture with random weights: its text is noise, its timings exercise the pipeline.'
          : ''}
        {webgpuOnly
          ? ` ${model.label} runs on WebGPU only (WebLLM also needs shader-f16 for q4f16 models); it is checked before anything is downloaded.`
          : ''}
      </p>
      <GenerationControls models={models} choice={choice} busy={run.busy} onChange={setChoice} />
      <RouteNote note={routeNote} testId="gen-route-note" />
      <div class="buttons">
        <button
          type="button"
          disabled={!run.canStart || !model || routeNote?.blocks === true}
          data-testid="gen-run"
          onClick={() => void generate(choice)}
        >
          Run generation
        </button>
        <RunSideButtons run={run} prefix="gen" paramErrors={paramErrors} />
        {busy && (
          <span role="status" data-testid="gen-progress">
            {live.phase ?? 'starting'}
            {live.total !== null ? ` · prompt ${live.samples.length} / ${live.total}` : ''}
            {live.tokens > 0 ? ` · ${live.tokens} tokens` : ''}
          </span>
        )}
      </div>
      {busy && live.samples.length > 0 && <GenerationCharts samples={live.samples} />}
      {run.error && <p class="error">{run.error}</p>}
      {run.result && run.result.problems.length > 0 && (
        <p class="error" data-testid="gen-problems">
          The receipt failed its own checks and is not offered: {run.result.problems.join('; ')}
        </p>
      )}
      {run.result && (
        <GenerationResultRegion
          result={run.result}
          alternative={caps && model ? alternative(models, model, caps.webgpu) : ''}
        />
      )}
    </section>
  );
}
