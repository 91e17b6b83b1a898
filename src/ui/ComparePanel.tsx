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
import { engineLabel } from '../core/receipt/receipt-envelope.ts';
import { storedSession } from '../page/stored-session.ts';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { initialPanelModel, type CatalogModel } from '../core/catalog/catalog.ts';
import { runtimeBuildNote, type ComparisonReceipt } from '../core/comparison/comparison-receipt.ts';
import { parseRouteSpec, ROUTE_SPEC_EXPECTED } from '../core/comparison/route-spec.ts';
import { comparisonRows } from '../core/comparison/candidate-rows.ts';
import { canRun, ENGINE_CAPABILITIES, scoresCandidates } from '../core/engines/engine-capabilities.ts';
import { DEMO_SUITE_ID } from '../core/suite/suite-manifest.ts';
import { planSuite } from '../core/suite/suite-plan.ts';
import { setDrbState } from '../page/drb-state.ts';
import { ComparisonController, type ComparisonInput } from '../page/comparison-controller.ts';
import { loadShippedSuite } from '../page/suite-controller.ts';
import { copyJson, downloadReceipt } from '../page/download.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { CancelButton } from './CancelButton.tsx';
import { ModelSelect } from './ModelSelect.tsx';
import { comparisonVerdicts, SOFTWARE_ADAPTER_MARK, standingText, type RouteVerdict } from '../core/comparison/comparison-verdict.ts';
import { threeSignificant } from '../core/text/format-number.ts';
import { OverlapNote } from './OverlapNote.tsx';
import { FailureAdvice } from './FailureAdvice.tsx';
import { ResultRegion } from './ResultRegion.tsx';
import { BadParamsNote, PageBusyNote, runAsPageRun, usePageRun, type RunPanelProps } from './page-runs.tsx';

/** A number for people: 3 significant digits, or a dash when there is none. */
function fmt(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : threeSignificant(value);
}

/** Says so when the routes ran different runtime builds (plain for wasm, JSPI or asyncify for webgpu): ratios include it. */
function RuntimeBuildNote(props: { receipt: ComparisonReceipt }) {
  const note = runtimeBuildNote(props.receipt.routes);
  return note === null ? null : (
    <p class="note" data-testid="cmp-runtime-note">
      Runtime: {note}.
    </p>
  );
}

/**
 * The per-route table, one ratio column (time against the baseline, with its 95% interval) and the verdict that
 * interval supports: "no clear difference" is a tie, never a rank. An invalid route is greyed as a whole row with its
 * reason first and no numbers to compare. On a narrow screen each row becomes a card, labels above values.
 */
function CompareTable(props: { receipt: ComparisonReceipt; verdicts: RouteVerdict[] }) {
  const { receipt } = props;
  const byId = new Map(props.verdicts.map((v) => [v.route_id, v]));
  const columns = ['Route', 'Ran on (threads)', 'Median ms', 'p95 ms', 'Time vs baseline [95% interval]', 'Verdict', 'Max |Δ score|', 'Same order'];
  return (
    <table class="kv cards" data-testid="compare-table">
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {receipt.routes.map((r) => {
          const v = byId.get(r.id)!;
          const name = (
            <td data-label={columns[0]}>
              <strong>{r.id}</strong>
              {r.id === receipt.baseline_route_id ? ' (baseline)' : ''}
              {v.software_adapter && (
                <span class="mark" data-testid={`software-adapter-${r.id}`}>
                  {' '}
                  ⚠ {SOFTWARE_ADAPTER_MARK}
                </span>
              )}
            </td>
          );
          if (!r.valid) {
            return (
              <tr key={r.id} class="invalid" data-testid={`route-${r.id}`} data-valid="false">
                {name}
                <td colSpan={columns.length - 1} data-label="Invalid" data-testid={`route-reason-${r.id}`}>
                  ✗ Invalid, not compared: {r.invalid_reason}
                  {r.completed_ep ? ` (ran on ${r.completed_ep}${r.threads_effective !== null ? `, ${r.threads_effective} threads` : ''})` : ''}
                </td>
              </tr>
            );
          }
          return (
            <tr key={r.id} data-testid={`route-${r.id}`} data-valid="true" data-standing={v.standing}>
              {name}
              <td data-label={columns[1]}>
                {r.completed_ep}
                {r.threads_effective !== null ? ` (${r.threads_effective})` : ''}
              </td>
              <td data-label={columns[2]}>{fmt(r.stats?.median)}</td>
              <td data-label={columns[3]}>{fmt(r.stats?.p95)}</td>
              <td data-label={columns[4]}>
                {v.standing === 'baseline' ? '1 (reference)' : `${fmt(v.ratio)}x`}
                {v.interval ? ` [${fmt(v.interval.low)} to ${fmt(v.interval.high)}]` : ''}
              </td>
              <td data-label={columns[5]}>{standingText(v.standing)}</td>
              <td data-label={columns[6]}>{r.agreement ? fmt(r.agreement.max_abs_diff) : '–'}</td>
              <td data-label={columns[7]}>
                {r.agreement ? (r.agreement.same_order ? 'yes' : 'no') : '–'}
                {r.agreement?.rows_in_other_order?.length ? ` (rows ${r.agreement.rows_in_other_order.join(', ')})` : ''}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/**
 * The comparison panel: models with a fixed input, rerankers and candidate scorers; the URL's engine, model, routes,
 * baseline, rounds, seed, tolerance, suite, rows, dtype and stage timeouts.
 */
export function ComparePanel(props: RunPanelProps) {
  const paramErrors = props.paramErrors ?? [];
  const { catalog, automation: a } = props;
  const models: CatalogModel[] = catalog.models.filter((m) => canRun(m, 'compare'));
  // The heavier fixture is the natural default: thread counts make a difference on it.
  const initialModel = initialPanelModel(models, a.model, props.autorun, (m) => m.id === 'ort-heavy-xenc');
  const [modelId, setModelId] = useState(initialModel);
  const [routesText, setRoutesText] = useState(a.compareRoutes.map((r) => r.id).join(','));
  const [baseline, setBaseline] = useState(a.baseline ?? a.compareRoutes[0].id);
  const [rounds, setRounds] = useState(a.rounds);
  const [rowCount, setRowCount] = useState(a.compareRows);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<string | null>(null);
  const [result, setResult] = useState<{ receipt: ComparisonReceipt; problems: string[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const [cancel, setCancel] = useState<AbortController | null>(null);

  const pageRun = usePageRun();
  const controller = useMemo(() => new ComparisonController(livePageFacts(a.stageTimeoutMs, props.journal)), []);

  const run = async (settings: { modelId: string; routesText: string; baseline: string; rounds: number; rowCount: number }): Promise<boolean> => {
    setError(null);
    setResult(null);
    setCopied(null); // a "Copied." note belongs to the previous receipt
    const model = models.find((m) => m.id === settings.modelId);
    const fixed = catalog.inputs.find((i) => i.id === model?.default_input);
    const routes = parseRouteSpec(settings.routesText);
    if (!model || (!scoresCandidates(model) && !fixed)) {
      setError(`Model ${settings.modelId || '(none)'} has no fixed input or candidate rows to compare routes on`);
      return false;
    }
    // An explicit engine parameter must match the model's engine (the model decides; a mismatch is not silently ignored).
    if (props.autorun && a.engine !== null && a.engine !== model.engine) {
      setError(`Invalid engine param: '${a.engine}', model ${model.id} runs on engine ${model.engine}`);
      return false;
    }
    if (routes === null) {
      setError(`Routes '${settings.routesText}': expected ${ROUTE_SPEC_EXPECTED}`);
      return false;
    }
    const baselineId = routes.some((r) => r.id === settings.baseline) ? settings.baseline : routes[0].id;
    return runAsPageRun('comparison', { setBusy, setCancel, setError }, async (signal) => {
      let input: ComparisonInput;
      if (scoresCandidates(model)) {
        // The suite is checked (manifest pins, schemas, ids) before any worker starts, exactly as a suite run checks it.
        setProgress('loading the suite');
        const suiteId = a.suite ?? DEMO_SUITE_ID;
        const shipped = await loadShippedSuite(new URL(import.meta.env.BASE_URL, location.href).href, suiteId);
        const plan = await planSuite(shipped.items, shipped.candidates, shipped.format);
        const rows = comparisonRows(suiteId, plan.rows, model.task, settings.rowCount);
        input = { kind: 'rows', suiteId, itemsSha256: plan.items.sha256, candidatesSha256: plan.candidates.sha256, rows };
      } else {
        input = { kind: 'fixed', input: fixed! };
      }
      const out = await controller.run(
        // The dtype parameter picks the ONNX file where the engine can (the ORT fixtures have one file each).
        { model, input, routes, baselineId, rounds: settings.rounds, seed: a.seed, toleranceAbs: a.tolerance, dtype: ENGINE_CAPABILITIES[model.engine].dtypeChoice ? a.dtype : null },
        {
          onPhase: (phase, routeId) => setProgress(`${phase}${routeId ? ` ${routeId}` : ''}`),
          onSlot: (done, total, routeId) => setProgress(`timed run ${done} / ${total} (${routeId})`),
        },
        signal,
      );
      // Stored on the device before it is shown: a tab killed afterwards loses nothing.
      if (out.problems.length === 0) await storedSession.offerArtifact('comparison-receipt', out.receipt);
      setResult(out);
      if (out.problems.length > 0) return false;
      return out.receipt.outcome.status === 'ok';
    });
  };

  useEffect(() => {
    if (!props.autorun) return;
    setDrbState('running');
    void run({ modelId: initialModel, routesText: a.compareRoutes.map((r) => r.id).join(','), baseline: a.baseline ?? a.compareRoutes[0].id, rounds: a.rounds, rowCount: a.compareRows }).then((ok) =>
      setDrbState(ok ? 'done' : 'failed'),
    );
  }, []);

  const receipt = result?.receipt ?? null;
  const verdicts = receipt ? comparisonVerdicts(receipt) : null;
  const invalidCount = receipt ? receipt.routes.filter((r) => !r.valid).length : 0;
  const parsedRoutes = parseRouteSpec(routesText);
  const selected = models.find((m) => m.id === modelId);
  return (
    <section class="panel" data-testid="compare-panel">
      <h2>Compare execution routes</h2>
      <p class="note">
        The same model and input on each route (a reranker or candidate scorer scores the first candidate rows of the suite{' '}
        {a.suite ?? DEMO_SUITE_ID}, and every row's candidate order must agree), one worker per route, timed in a shuffled interleaved order (seed {a.seed}) so drift hits every
        route alike. A route whose scores differ from the baseline by more than{' '}
        {a.tolerance === null ? 'the tolerance for its kind of scores and its dtype (the receipt says which, and why)' : threeSignificant(a.tolerance)} or
        order them differently is invalid and never ranked. A route whose 95% interval of the time ratio contains 1 is no
        clear difference: a tie, not a win.
      </p>
      <div class="controls">
        <ModelSelect models={models} value={modelId} busy={busy} testId="cmp-model" onChange={setModelId} />
        <label>
          Routes
          <input type="text" value={routesText} disabled={busy} data-testid="cmp-routes" onInput={(e) => setRoutesText(e.currentTarget.value)} />
        </label>
        <label>
          Baseline
          <select value={baseline} disabled={busy} data-testid="cmp-baseline" onChange={(e) => setBaseline(e.currentTarget.value)}>
            {(parsedRoutes ?? []).map((r) => (
              <option key={r.id} value={r.id}>
                {r.id}
              </option>
            ))}
          </select>
        </label>
        <label>
          Rounds
          <input type="number" min={1} max={200} value={rounds} disabled={busy} data-testid="cmp-rounds" onChange={(e) => setRounds(Math.max(1, Math.min(200, Math.round(Number(e.currentTarget.value)) || 1)))} />
        </label>
        {selected && scoresCandidates(selected) && (
          <label>
            Candidate rows
            <input type="number" min={1} max={64} value={rowCount} disabled={busy} data-testid="cmp-rows" onChange={(e) => setRowCount(Math.max(1, Math.min(64, Math.round(Number(e.currentTarget.value)) || 1)))} />
          </label>
        )}
      </div>
      <div class="buttons">
        <button type="button" disabled={busy || pageRun !== null || paramErrors.length > 0 || parsedRoutes === null} data-testid="cmp-run" onClick={() => void run({ modelId, routesText, baseline, rounds, rowCount })}>
          Run comparison
        </button>
        <CancelButton onCancel={cancel ? () => cancel.abort() : null} testId="cmp-cancel" />
        <PageBusyNote owner={pageRun} ownBusy={busy} testId="cmp-page-busy" />
        <BadParamsNote errors={paramErrors} testId="cmp-bad-params" />
        {busy && <span role="status">{progress ?? 'starting'}</span>}
        {parsedRoutes === null && <span class="error">Routes: expected {ROUTE_SPEC_EXPECTED}</span>}
      </div>
      {error && <p class="error">{error}</p>}
      {result && result.problems.length > 0 && (
        <p class="error" data-testid="cmp-problems">
          The receipt failed its own checks and is not offered: {result.problems.join('; ')}
        </p>
      )}
      {receipt && (
        <ResultRegion resultKey={receipt.receipt_id} class={`receipt ${receipt.outcome.status}`} testId="comparison-receipt" outcome={receipt.outcome.status}>
          <h3>
            {engineLabel(receipt.engine)} · {receipt.model.id} · {receipt.input.id} · {receipt.schedule.rounds} rounds ·{' '}
            <strong data-testid="cmp-outcome">{receipt.outcome.status === 'ok' ? '✓ ok' : '✗ failed'}</strong>
            {invalidCount > 0 && (
              <span data-testid="cmp-invalid-count">
                {' '}
                · {invalidCount} of {receipt.routes.length} routes invalid
              </span>
            )}
          </h3>
          {receipt.outcome.reason && <p class="error">Failed: {receipt.outcome.reason}</p>}
          <FailureAdvice reason={receipt.outcome.reason ?? receipt.routes.find((r) => !r.valid)?.invalid_reason ?? null} panel="comparison" testId="cmp-advice" />
          <OverlapNote overlap={receipt.overlap} />
          <p class="note" data-testid="cmp-tolerance">
            Tolerance {threeSignificant(receipt.tolerance.max_abs_diff)} ({receipt.model.dtype ?? 'fp32'}
            {receipt.tolerance.basis?.source === 'default' ? `, the default for ${receipt.tolerance.basis.score_kind}: ${receipt.tolerance.basis.reason}` : ', as set'})
          </p>
          <div data-testid="cmp-verdict">
            {verdicts!.lead.map((line) => (
              <p key={line} class="verdict">
                {line}.
              </p>
            ))}
          </div>
          <CompareTable receipt={receipt} verdicts={verdicts!.routes} />
          <RuntimeBuildNote receipt={receipt} />
          {result!.problems.length === 0 && (
            <div class="buttons">
              <button type="button" data-testid="cmp-download" onClick={() => setCopied(`Saved as ${downloadReceipt(receipt)}.`)}>
                Download comparison receipt
              </button>
              <button type="button" onClick={async () => setCopied((await copyJson(receipt)) ? 'Copied.' : 'Copy failed: use Download.')}>
                Copy receipt
              </button>
              {copied && (
                <span role="status" data-testid="cmp-saved-note">
                  {copied}
                </span>
              )}
            </div>
          )}
        </ResultRegion>
      )}
    </section>
  );
}
