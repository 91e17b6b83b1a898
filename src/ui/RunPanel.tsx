/**
 * The Run panel: cold and warm runs of a catalog model (model, EP, threads, warm runs, fallback), their progress and
 * live warm chart, and this page's latest receipts. It runs `autorun=cold`, `warm` and `cold,warm` in the panels view.
 */
import { useRef, useState } from 'preact/hooks';
import type { ParsedAutomation } from '../core/automation/automation.ts';
import { engineParamProblem, type ColdOrWarm } from '../core/automation/autorun-plan.ts';
import { driverColdAttestations } from '../core/automation/driver-statement.ts';
import type { ModelCatalog } from '../core/catalog/catalog.ts';
import { routeChoiceNote } from '../core/automation/route-choice.ts';
import { canRun } from '../core/engines/engine-capabilities.ts';
import type { Capabilities, DeviceReceipt, ModelStatus } from '../core/receipt/receipt.ts';
import type { LazyRunController } from '../page/lazy-run-controller.ts';
import { storeThenShow } from '../page/stored-session.ts';
import { Banners } from './Banners.tsx';
import { DeferredView, loadReceiptList, useDeferred } from './deferred.tsx';
import { usePanelRun } from './panel-run.ts';
import { RunControls, type RunSettings } from './RunControls.tsx';
import { NO_DOWNLOADS, RunProgress, withProgress, type Downloads } from './RunProgress.tsx';

/** How many of this page's latest receipts the list shows (a long session would otherwise grow the page). */
export const RECEIPTS_LISTED = 20;

/**
 * @param props.catalog the page's catalog (the panel offers its cold/warm models)
 * @param props.automation the parsed URL
 * @param props.controller the page's cold/warm controller (the test hooks reach its worker)
 * @param props.capabilities the capability probe (null while it runs)
 * @param props.journalReady settles once the run journal was read (a run waits for it)
 * @param props.codeReady settles once the view's chunks fetched after the first paint arrived or failed (a run waits
 *   for it and for the receipt list's chunk: none is fetched inside a timed run)
 * @param props.onLoad what the URL asks of this panel when the page loads: the runs to start (none: check the URL's
 *   engine, then `onReady`), or null when the load is not this panel's (another panel's autorun, another view)
 * @param props.onReady nothing was asked and the URL fits: the page may say it is ready to be driven
 */
export function RunPanel(props: {
  catalog: ModelCatalog;
  automation: ParsedAutomation;
  controller: LazyRunController;
  capabilities: Capabilities | null;
  journalReady: Promise<unknown>;
  codeReady(): Promise<unknown>;
  onLoad: readonly ColdOrWarm[] | null;
  onReady(): void;
}) {
  const { catalog, automation, controller } = props;
  const a = automation.settings;
  const models = catalog.models.filter((m) => canRun(m, 'cold-warm'));
  const [settings, setSettings] = useState<RunSettings>({
    modelId: a.model ?? catalog.default_model,
    ep: a.ep,
    threads: a.threads,
    warmRuns: a.warmRuns,
    allowFallback: a.allowFallback,
  });
  // A sequence reads the settings of its own time, not of the render that started it.
  const settingsRef = useRef(settings);
  const driverUsed = useRef(false);
  settingsRef.current = settings;
  const [status, setStatus] = useState<ModelStatus>('idle');
  const [downloads, setDownloads] = useState<Downloads>(NO_DOWNLOADS);
  // The running warm run's samples so far and how many it takes (null: a cold run).
  const [live, setLive] = useState<{ samples: number[]; total: number | null }>({ samples: [], total: null });
  // The latest receipts of this page (the list shows at most RECEIPTS_LISTED; the session keeps every one).
  const [listed, setListed] = useState<{ receipts: DeviceReceipt[]; made: number }>({ receipts: [], made: 0 });
  const [problems, setProblems] = useState<string[]>([]);
  const receiptList = useDeferred(loadReceiptList);

  const modelOf = (s: RunSettings) => catalog.models.find((m) => m.id === s.modelId);

  const runOne = async (kind: ColdOrWarm, signal: AbortSignal): Promise<DeviceReceipt | null> => {
    const s = settingsRef.current;
    const model = modelOf(s);
    const input = catalog.inputs.find((i) => i.id === model?.default_input);
    if (!model || !input || !canRun(model, 'cold-warm')) {
      run.refuse(`Model ${s.modelId} cannot be run from these controls (engine ${model?.engine ?? 'unknown'})`);
      return null;
    }
    setDownloads(NO_DOWNLOADS);
    setLive({ samples: [], total: kind === 'warm' ? s.warmRuns : null });
    // A driver's statement (driver_fresh) holds for the page load's first cold run only.
    const attestations =
      kind === 'cold' && a.driverFresh !== null && !driverUsed.current
        ? driverColdAttestations(a.driverFresh, new Date().toISOString())
        : [];
    if (kind === 'cold') driverUsed.current = true;
    const { receipt, problems: found } = await controller.run(
      {
        kind,
        model,
        input,
        ep: s.ep,
        threads: s.threads,
        allowFallback: s.allowFallback,
        warmRuns: s.warmRuns,
        attestations,
      },
      {
        onStatus: setStatus,
        onProgress: (p) => setDownloads((prev) => withProgress(prev, p)),
        onSample: (_i, ms) => setLive((prev) => ({ ...prev, samples: [...prev.samples, ms] })),
      },
      signal,
    );
    setProblems(found);
    if (found.length > 0) return null;
    await storeThenShow([{ kind: 'device-receipt', data: receipt }], () =>
      setListed((prev) => ({
        receipts: [...prev.receipts.slice(-(RECEIPTS_LISTED - 1)), receipt],
        made: prev.made + 1,
      })),
    );
    return receipt;
  };

  const runSequence = (kinds: readonly ColdOrWarm[]): Promise<boolean> =>
    run.start(kinds.length === 1 ? `${kinds[0]} run` : `${kinds.join(' + ')} runs`, async ({ signal }) => {
      await Promise.all([props.journalReady, Promise.allSettled([props.codeReady(), loadReceiptList()])]);
      let allOk = true;
      for (const kind of kinds) {
        // A cancelled sequence starts nothing more: the cancelled run's receipt says so.
        if (signal.aborted) break;
        const receipt = await runOne(kind, signal);
        if (receipt?.outcome.status !== 'ok') allOk = false;
      }
      return allOk;
    });

  const onLoad = props.onLoad;
  const run = usePanelRun<never>({
    paramErrors: automation.errors,
    tapsSetState: true,
    // Only the panel whose load it is checks the URL's engine, starts the autorun, or says the page is ready.
    check: onLoad === null ? undefined : () => engineParamProblem('cold-warm', a.engine, modelOf(settingsRef.current)),
    autorun: onLoad !== null && onLoad.length > 0 ? () => runSequence(onLoad) : null,
    onReady: onLoad === null ? undefined : props.onReady,
  });

  const model = modelOf(settings);
  const input = catalog.inputs.find((i) => i.id === model?.default_input);
  const loaded = model && input ? controller.hasLoadedModel({ kind: 'warm', model, input, ...settings }) : false;
  return (
    <>
      <Banners
        crossOriginIsolated={props.capabilities ? props.capabilities.cross_origin_isolated : null}
        paramErrors={[...automation.errors, ...(run.error === null ? [] : [run.error])]}
        problems={problems}
      />
      <RunControls
        models={models}
        settings={settings}
        busy={!run.canStart}
        pageRun={run.busy ? null : run.owner}
        paramErrors={automation.errors}
        hasLoadedModel={loaded}
        routeNote={routeChoiceNote(
          { model: model ?? null, ep: settings.ep, allowFallback: settings.allowFallback },
          models,
          props.capabilities,
        )}
        onChange={setSettings}
        onRun={(kind) => void runSequence([kind])}
        onCancel={run.cancel}
      />
      <RunProgress status={status} downloads={downloads} samplesDone={live.samples.length} samplesTotal={live.total} />
      {/* The live chart comes with the receipt list's chunk, which every run awaits before its clock starts. */}
      {run.busy && live.samples.length > 0 && receiptList.state === 'ready' && (
        <receiptList.module.WarmChart samplesMs={live.samples} />
      )}
      {listed.receipts.length > 0 && (
        <DeferredView deferred={receiptList} what="the receipt list">
          {({ ReceiptList }) => <ReceiptList receipts={listed.receipts} made={listed.made} />}
        </DeferredView>
      )}
    </>
  );
}
