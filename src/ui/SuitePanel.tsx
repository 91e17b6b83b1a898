/**
 * The suite-run panel: pick the demo suite or your own items + candidates files, a reranker or candidate scorer, the
 * route and the abstention threshold; follow rows done / total, elapsed time and time left; download the
 * predictions artifact (for `drb score`) and the suite receipt. Chosen files are only read, never written.
 * Also runs `autorun=suite` for the automation contract and puts both artifacts into `window.drbArtifacts`.
 */
import { routeChoiceNote } from '../core/automation/route-choice.ts';
import { useMemo, useState } from 'preact/hooks';
import { engineParamProblem } from '../core/automation/autorun-plan.ts';
import { canRun, enginesFor } from '../core/engines/engine-capabilities.ts';
import { marginPolicy } from '../core/suite/abstention-policy.ts';
import { DEMO_SUITE_ID } from '../core/suite/suite-manifest.ts';
import type { FetchProgress } from '../worker-api/worker-messages.ts';
import type { Offer } from '../page/stored-session.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { loadShippedSuite, runSuite, type SuiteProgress, type SuiteRequest } from '../page/suite-controller.ts';
import { RunSideButtons } from './page-runs.tsx';
import { usePanelRun, type RunPanelProps } from './panel-run.ts';
import { SuiteControls, type SuiteChoice } from './SuiteControls.tsx';
import { RouteNote } from './RouteNote.tsx';
import { SuiteProgressLines, SuiteResultRegion, type SuiteResult } from './SuiteResult.tsx';

/** The suite's inputs: a shipped suite's files, or the tester's own (read-only: the bytes are copied into memory). */
async function suiteInputs(
  pageBaseUrl: string,
  choice: SuiteChoice,
  suiteId: string | null,
): Promise<Pick<SuiteRequest, 'format' | 'items' | 'candidates' | 'suiteId'>> {
  if (suiteId !== null) return { suiteId, ...(await loadShippedSuite(pageBaseUrl, suiteId)) };
  const { itemsFile, candidatesFile } = choice;
  if (!itemsFile || !candidatesFile) throw new Error('choose both an items file and a candidates file');
  return {
    suiteId: null,
    format: choice.format,
    items: { bytes: new Uint8Array(await itemsFile.arrayBuffer()), fileName: itemsFile.name },
    candidates: { bytes: new Uint8Array(await candidatesFile.arrayBuffer()), fileName: candidatesFile.name },
  };
}

/**
 * @param props.catalog the page's catalog (the panel offers its transformers rerank / score-candidates models)
 * @param props.automation the URL's settings (`suite`, `model`, `ep`, `threads`, `min_margin`, `dtype` ...)
 * @param props.autorun whether the page asked this panel to run on load (`autorun=suite`)
 * @param props.journal the page's run journal (the run's stages are journaled; its receipt records a pending interruption)
 */
export function SuitePanel(props: RunPanelProps) {
  const paramErrors = props.paramErrors ?? [];
  const a = props.automation;
  const models = useMemo(() => props.catalog.models.filter((m) => canRun(m, 'suite')), [props.catalog]);
  const fromUrl = {
    ep: a.ep,
    threads: a.threads,
    allowFallback: a.allowFallback,
    dtype: a.dtype,
    threshold: a.minMargin === null ? '' : String(a.minMargin),
  };
  const [choice, setChoice] = useState<SuiteChoice>({
    modelId: models.find((m) => m.id === a.model)?.id ?? models[0]?.id ?? '',
    ...fromUrl,
    source: 'demo',
    format: 'generic',
    itemsFile: null,
    candidatesFile: null,
  });
  const [phase, setPhase] = useState<string>('idle');
  const [download, setDownload] = useState<FetchProgress | null>(null);
  const [rows, setRows] = useState<SuiteProgress | null>(null);

  const start = (c: SuiteChoice, suiteId: string | null): Promise<boolean> =>
    run.start('suite run', async ({ signal, keep, show }) => {
      setRows(null);
      setDownload(null);
      try {
        const model = models.find((m) => m.id === c.modelId);
        const engines = enginesFor('suite').join(' or ');
        if (!model)
          throw new Error(
            `Invalid model param: '${c.modelId}' is not a reranker or candidate scorer on the ${engines} engine`,
          );
        const minMargin = c.threshold.trim() === '' ? null : Number(c.threshold);
        if (minMargin !== null && !(Number.isFinite(minMargin) && minMargin >= 0)) {
          throw new Error(`margin threshold must be a number >= 0, got '${c.threshold}'`);
        }
        const facts = livePageFacts(a.stageTimeoutMs, props.journal);
        const inputs = await suiteInputs(facts.pageBaseUrl, c, suiteId);
        const route = { ep: c.ep, threads: c.threads, allowFallback: c.allowFallback, dtype: c.dtype };
        const hooks = { onPhase: setPhase, onProgress: setDownload, onRows: setRows };
        const outcome = await runSuite(
          facts,
          { model, ...route, policy: marginPolicy(minMargin), ...inputs },
          hooks,
          signal,
        );
        if (outcome.refused !== null) {
          setPhase('refused');
          return run.refuse(outcome.refused);
        }
        // A receipt that failed its own checks is shown as that line, never offered.
        if (outcome.problems.length > 0) {
          show(outcome);
          return false;
        }
        const offers: Offer[] = [{ kind: 'suite-receipt', data: outcome.receipt }];
        if (outcome.predictions) {
          const predictions: unknown = JSON.parse(new TextDecoder().decode(outcome.predictions));
          offers.unshift({ kind: 'predictions', data: predictions });
        }
        await keep(outcome, offers);
        return outcome.receipt.outcome.status === 'ok';
      } catch (caught) {
        setPhase('failed');
        throw caught;
      }
    });

  const run = usePanelRun<SuiteResult>({
    paramErrors,
    check: props.autorun ? () => engineParamProblem('suite', a.engine, undefined) : undefined,
    autorun: props.autorun
      ? () => start({ ...choice, modelId: a.model ?? models[0]?.id ?? '', ...fromUrl }, a.suite ?? DEMO_SUITE_ID)
      : null,
  });
  const model = models.find((m) => m.id === choice.modelId);
  const result = run.result;
  return (
    <section class="panel" data-testid="suite-panel">
      <h2>Suite run (reranking → predictions for drb score)</h2>
      <SuiteControls models={models} choice={choice} busy={run.busy} onChange={setChoice} />
      {model?.kind === 'fixture' && (
        <p class="note">Fixture with random weights: the ranking is a pipeline check, not a quality result.</p>
      )}
      <p class="note">
        Margin = top-1 score minus top-2 score (
        {model?.task === 'score-candidates' ? 'summed log-probabilities' : 'cross-encoder logits'}). A row below the
        threshold keeps its input (candidates [], reason low_margin).
      </p>
      <RouteNote
        note={routeChoiceNote(
          { model: model ?? null, ep: choice.ep, allowFallback: choice.allowFallback },
          models,
          props.capabilities ?? null,
        )}
        testId="suite-route-note"
      />
      <div class="buttons">
        <button
          type="button"
          disabled={!run.canStart || !model}
          data-testid="suite-run"
          onClick={() => void start(choice, choice.source === 'demo' ? DEMO_SUITE_ID : null)}
        >
          Run suite
        </button>
        <RunSideButtons run={run} prefix="suite" paramErrors={paramErrors} />
        <span data-testid="suite-phase" role="status">
          {phase}
        </span>
      </div>
      <SuiteProgressLines phase={phase} download={download} rows={rows} />
      {run.error && (
        <p class="banner error" data-testid="suite-error">
          {run.error}
        </p>
      )}
      {result && result.problems.length > 0 && (
        <div class="banner error" data-testid="suite-problems">
          The suite receipt failed validation and is not offered: {result.problems.join('; ')}
        </div>
      )}
      {result && result.problems.length === 0 && <SuiteResultRegion result={result} />}
    </section>
  );
}
