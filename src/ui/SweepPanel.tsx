/**
 * The crossover sweep: two routes of one model over its catalog ladder of work sizes (the growing fixture family's
 * sequence lengths), each size under the URL's stopping rule (`stop=until-clear`: until its answer is clear), then
 * the ratio per size with its interval and the size from which one route starts to win, with its bootstrap
 * interval, or "no crossover in the range". The sweep receipt is offered as `sweep-receipt`.
 *
 * With `autorun=sweep` the panel starts by itself (the panel skeleton sets `drbState`).
 */
import { useMemo, useState } from 'preact/hooks';
import { stoppingRuleOf } from '../core/automation/automation.ts';
import { parseRouteSpec } from '../core/comparison/route-spec.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { SweepController } from '../page/sweep-controller.ts';
import { Field } from './Field.tsx';
import { usePanelRun, type RunPanelProps } from './panel-run.ts';
import { RunSideButtons } from './page-runs.tsx';
import { SweepResult, type SweepResultData } from './SweepResult.tsx';

/** The sweep panel: models with a catalog ladder; the URL's model, two routes, baseline, sizes, rule and seed. */
export function SweepPanel(props: RunPanelProps) {
  const paramErrors = props.paramErrors ?? [];
  const { catalog, automation: a } = props;
  const models = catalog.models.filter((m) => m.sweep !== undefined);
  const modelId = a.model ?? models[0]?.id ?? '';
  const twoRoutes = a.compareRoutes.length === 2 ? a.compareRoutes : parseRouteSpec('wasm-1,wasm-2')!;
  const initialRoutes = twoRoutes.map((r) => r.id).join(',');
  const [routesText, setRoutesText] = useState(initialRoutes);
  const [progress, setProgress] = useState<string | null>(null);
  const controller = useMemo(() => new SweepController(livePageFacts(a.stageTimeoutMs, props.journal)), []);

  const sweep = async (text: string): Promise<boolean> => {
    const model = models.find((m) => m.id === modelId);
    const routes = parseRouteSpec(text);
    if (!model)
      return run.refuse(
        `Model ${modelId || '(none)'} has no sweep ladder in the catalog (${models.map((m) => m.id).join(', ') || 'none has'})`,
      );
    if (routes === null || routes.length !== 2)
      return run.refuse(`Routes '${text}': expected exactly 2 routes, e.g. wasm-1,wasm-2`);
    const ladder = model.sweep!.sizes;
    const wanted = a.sweepSizes ?? ladder.map((s) => s.size);
    const missing = wanted.filter((size) => !ladder.some((s) => s.size === size));
    if (missing.length > 0) {
      return run.refuse(
        `Invalid sizes param: ${missing.join(', ')} not on ${model.id}'s ladder (${ladder.map((s) => s.size).join(', ')})`,
      );
    }
    const steps = wanted.map((size) => ({
      size,
      input: catalog.inputs.find((i) => i.id === ladder.find((s) => s.size === size)!.input)!,
    }));
    const baselineId = routes.some((r) => r.id === a.baseline) ? a.baseline! : routes[0].id;
    return run.start('sweep', async ({ signal, keep, show }) => {
      const out = await controller.run(
        {
          model,
          steps,
          routes: [routes[0], routes[1]],
          baselineId,
          rule: stoppingRuleOf(a),
          seed: a.seed,
          toleranceAbs: a.tolerance,
        },
        {
          onPhase: (phase, detail) => setProgress(`${phase}${detail ? ` ${detail}` : ''}`),
          onRound: (size, r) =>
            setProgress(
              `size ${size}, round ${r.round}: ${r.routes.map((x) => x.decision).join(', ') || 'nothing to compare'}`,
            ),
        },
        signal,
      );
      if (out.problems.length > 0) {
        show(out);
        return false;
      }
      await keep(out, [{ kind: 'sweep-receipt', data: out.receipt }]);
      return out.receipt.outcome.status === 'ok';
    });
  };

  const run = usePanelRun<SweepResultData>({ paramErrors, autorun: props.autorun ? () => sweep(initialRoutes) : null });
  return (
    <section class="panel" data-testid="sweep-panel">
      <h2>Crossover sweep</h2>
      <p class="note">
        Two routes of {modelId || 'a model with a ladder'} over its ladder of input sizes, interleaved and paired at
        every size, each size {a.stop === 'until-clear' ? 'until its answer is clear' : `for ${a.rounds} rounds`}: the
        time ratio per size with its 95% interval, and the size from which one route starts to win, or "no crossover in
        the range". On a software WebGPU adapter (SwiftShader, no GPU) a sweep checks the code path, not a GPU's speed.
      </p>
      <div class="controls">
        <Field
          label="Routes"
          type="text"
          value={routesText}
          busy={run.busy}
          testId="sweep-routes"
          onText={setRoutesText}
        />
      </div>
      <div class="buttons">
        <button
          type="button"
          disabled={!run.canStart || models.length === 0}
          data-testid="sweep-run"
          onClick={() => void sweep(routesText)}
        >
          Run sweep
        </button>
        <RunSideButtons run={run} prefix="sweep" paramErrors={paramErrors} />
        {run.busy && <span role="status">{progress ?? 'starting'}</span>}
      </div>
      {run.error && <p class="error">{run.error}</p>}
      {run.result && <SweepResult result={run.result} />}
    </section>
  );
}
