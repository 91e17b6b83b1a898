/**
 * Side-by-side comparison of execution routes on one model and one input: routes (wasm-1, wasm-2, webgpu ...),
 * baseline, rounds, schedule seed and agreement tolerance; a table of per-route medians, ratios, agreement and
 * validity; the comparison receipt to download. ORT fixtures run on their fixed token input; rerankers and candidate
 * scorers (transformers.js) run on the first candidate rows of a shipped suite (`suite`, default the demo suite;
 * `rows`), so "same order" is about real candidates.
 *
 * With `autorun=compare` the panel starts by itself and sets `drbState` and `window.drbArtifacts`
 * (`comparison-receipt`).
 */
import { useMemo, useState } from 'preact/hooks';
import { engineParamProblem } from '../core/automation/autorun-plan.ts';
import { stoppingRuleOf } from '../core/automation/automation.ts';
import { initialPanelModel } from '../core/catalog/catalog.ts';
import { comparisonRows } from '../core/comparison/candidate-rows.ts';
import { parseRouteSpec, ROUTE_SPEC_EXPECTED } from '../core/comparison/route-spec.ts';
import { canRun, ENGINE_CAPABILITIES, scoresCandidates } from '../core/engines/engine-capabilities.ts';
import { DEMO_SUITE_ID } from '../core/suite/suite-manifest.ts';
import { planSuite } from '../core/suite/suite-plan.ts';
import { ComparisonController, type ComparisonInput } from '../page/comparison-controller.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { loadShippedSuite } from '../page/suite-controller.ts';
import { CompareIntro, CompareResult, type ComparisonResult } from './CompareResult.tsx';
import { CompareControls, type CompareChoice } from './CompareControls.tsx';
import { RunSideButtons } from './page-runs.tsx';
import { usePanelRun, type RunPanelProps } from './panel-run.ts';

/**
 * A comparison's phase for its progress line: which route of how many is loading or warming up, and the rounds ahead.
 * @param phase the controller's phase
 * @param routeId the route the phase is at (load, warm-up)
 * @param routes the compared routes
 * @param rounds the timed rounds per route
 */
function comparePhaseText(
  phase: string,
  routeId: string | undefined,
  routes: readonly { id: string }[],
  rounds: number,
) {
  const at = routeId === undefined ? -1 : routes.findIndex((r) => r.id === routeId);
  const of = at >= 0 ? ` (route ${at + 1} of ${routes.length})` : '';
  switch (phase) {
    case 'probe':
      return 'probing the device';
    case 'load':
      return `loading ${routeId}${of}`;
    case 'warmup':
      return `untimed warm-up of ${routeId}${of}`;
    case 'timed':
      return `timed · round 1 of ${rounds}`;
    default:
      return phase;
  }
}

/**
 * The comparison panel: models with a fixed input, rerankers and candidate scorers; the URL's engine, model, routes,
 * baseline, rounds, seed, tolerance, suite, rows, dtype and stage timeouts.
 */
export function ComparePanel(props: RunPanelProps) {
  const paramErrors = props.paramErrors ?? [];
  const { catalog, automation: a } = props;
  const models = catalog.models.filter((m) => canRun(m, 'compare'));
  // The heavier fixture is the natural default: thread counts make a difference on it.
  const initialModel = initialPanelModel(models, a.model, props.autorun, (m) => m.id === 'ort-heavy-xenc');
  const initial: CompareChoice = {
    modelId: initialModel,
    routesText: a.compareRoutes.map((r) => r.id).join(','),
    baseline: a.baseline ?? a.compareRoutes[0].id,
    stop: a.stop,
    rounds: a.rounds,
    rowCount: a.compareRows,
  };
  const [choice, setChoice] = useState(initial);
  const [progress, setProgress] = useState<string | null>(null);
  const controller = useMemo(() => new ComparisonController(livePageFacts(a.stageTimeoutMs, props.journal)), []);
  const suiteId = a.suite ?? DEMO_SUITE_ID;

  const compare = async (c: CompareChoice): Promise<boolean> => {
    const model = models.find((m) => m.id === c.modelId);
    const fixed = catalog.inputs.find((i) => i.id === model?.default_input);
    const routes = parseRouteSpec(c.routesText);
    if (!model || (!scoresCandidates(model) && !fixed)) {
      return run.refuse(`Model ${c.modelId || '(none)'} has no fixed input or candidate rows to compare routes on`);
    }
    if (routes === null) return run.refuse(`Routes '${c.routesText}': expected ${ROUTE_SPEC_EXPECTED}`);
    const baselineId = routes.some((r) => r.id === c.baseline) ? c.baseline : routes[0].id;
    return run.start('comparison', async ({ signal, keep, show }) => {
      let input: ComparisonInput = { kind: 'fixed', input: fixed! };
      if (scoresCandidates(model)) {
        // The suite is checked (manifest pins, schemas, ids) before any worker starts, exactly as a suite run checks it.
        setProgress('loading the suite');
        const shipped = await loadShippedSuite(new URL(import.meta.env.BASE_URL, location.href).href, suiteId);
        const plan = await planSuite(shipped.items, shipped.candidates, shipped.format);
        const rows = comparisonRows(suiteId, plan.rows, model.task, c.rowCount);
        input = {
          kind: 'rows',
          suiteId,
          itemsSha256: plan.items.sha256,
          candidatesSha256: plan.candidates.sha256,
          rows,
        };
      }
      // The dtype parameter picks the ONNX file where the engine can (the ORT fixtures have one file each).
      const dtype = ENGINE_CAPABILITIES[model.engine].dtypeChoice ? a.dtype : null;
      const out = await controller.run(
        {
          model,
          input,
          routes,
          baselineId,
          rounds: c.rounds,
          rule: stoppingRuleOf({ ...a, stop: c.stop, rounds: c.rounds }),
          seed: a.seed,
          toleranceAbs: a.tolerance,
          dtype,
        },
        {
          onPhase: (phase, routeId) => setProgress(comparePhaseText(phase, routeId, routes, c.rounds)),
          // A fixed rule runs exactly its rounds; until-clear runs at most its max_rounds and may stop sooner.
          onSlot: (done, total, routeId, _ms, round) => {
            const most = c.stop === 'fixed' ? '' : 'at most ';
            const rounds = Math.round(total / Math.max(1, routes.length));
            setProgress(`timed · round ${round} of ${most}${rounds} · run ${done} of ${most}${total} (${routeId})`);
          },
          onRound: (r) =>
            setProgress(
              `round ${r.round}: ${r.routes.map((x) => `${x.route_id} ${x.decision}`).join(', ') || 'nothing to compare'}`,
            ),
        },
        signal,
      );
      if (out.problems.length > 0) {
        show(out);
        return false;
      }
      await keep(out, [{ kind: 'comparison-receipt', data: out.receipt }]);
      return out.receipt.outcome.status === 'ok';
    });
  };

  const run = usePanelRun<ComparisonResult>({
    paramErrors,
    check: props.autorun
      ? () =>
          engineParamProblem(
            'compare',
            a.engine,
            models.find((m) => m.id === initialModel),
          )
      : undefined,
    autorun: props.autorun ? () => compare(initial) : null,
  });
  const parsedRoutes = parseRouteSpec(choice.routesText);
  return (
    <section class="panel" data-testid="compare-panel">
      <h2>Compare execution routes</h2>
      <CompareIntro suiteId={suiteId} seed={a.seed} tolerance={a.tolerance} />
      <CompareControls models={models} choice={choice} busy={run.busy} onChange={setChoice} />
      <div class="buttons">
        <button
          type="button"
          disabled={!run.canStart || parsedRoutes === null}
          data-testid="cmp-run"
          onClick={() => void compare(choice)}
        >
          Run comparison
        </button>
        <RunSideButtons run={run} prefix="cmp" paramErrors={paramErrors} />
        {run.busy && (
          <span role="status" data-testid="cmp-progress">
            {progress ?? 'starting'}
          </span>
        )}
        {parsedRoutes === null && <span class="error">Routes: expected {ROUTE_SPEC_EXPECTED}</span>}
      </div>
      {run.error && <p class="error">{run.error}</p>}
      {run.result && run.result.problems.length > 0 && (
        <p class="error" data-testid="cmp-problems">
          The receipt failed its own checks and is not offered: {run.result.problems.join('; ')}
        </p>
      )}
      {run.result && <CompareResult result={run.result} />}
    </section>
  );
}
