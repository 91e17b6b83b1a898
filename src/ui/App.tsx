/**
 * The page root: composes panels and owns page state. Panels are separate components so later features (suite runs,
 * comparisons, generation) add a panel here without touching the others.
 */
import { storedSession } from '../page/stored-session.ts';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { DEFAULT_ENGINE, parseAutomation, type PageMode } from '../core/automation/automation.ts';
import { DEFAULT_PROTOCOL_ID } from '../core/field/field-protocol.ts';
import type { CatalogModel, ModelCatalog } from '../core/catalog/catalog.ts';
import { canRun, ENGINE_CAPABILITIES } from '../core/engines/engine-capabilities.ts';
import type { Capabilities, DeviceDetails, DeviceReceipt, ModelStatus, Stage } from '../core/receipt/receipt.ts';
import { setDrbState } from '../page/drb-state.ts';
import { RunAnnouncer, runAsPageRun, usePageRun } from './page-runs.tsx';
import { chooseDeviceDetails, probeCapabilities } from '../page/capability-probe.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { RunController } from '../page/run-controller.ts';
import { WorkerBridge } from '../page/worker-bridge.ts';
import type { InterruptedRun } from '../core/field/journal.ts';
import { journalHooks, RunJournalStore, type ControllerJournal } from '../page/run-journal.ts';
import { Banners } from './Banners.tsx';
import { CapabilityPanel } from './CapabilityPanel.tsx';
import { InterruptedBanner } from './InterruptedBanner.tsx';
import { RECEIPTS_LISTED, ReceiptList } from './ReceiptList.tsx';
import { RunControls, type RunSettings } from './RunControls.tsx';
import { NO_DOWNLOADS, RunProgress, withProgress, type Downloads } from './RunProgress.tsx';
import { WarmChart } from './WarmChart.tsx';
import { DeferredView, loadDeveloperPanels, loadProtocolView, useDeferred } from './deferred.tsx';

/** Below this width the page opens in protocol mode unless the URL names a mode (phones are where testers are). */
const PROTOCOL_VIEW_BELOW_PX = 600;

/** The page. `catalog` is the parsed, validated catalog bundled into the build. */
export function App(props: { catalog: ModelCatalog }) {
  const { catalog } = props;
  const automation = useMemo(() => parseAutomation(location.search, { modelIds: catalog.models.map((m) => m.id) }), [catalog]);
  const runnable: CatalogModel[] = catalog.models.filter((m) => canRun(m, 'cold-warm'));
  const a = automation.settings;
  const [settings, setSettings] = useState<RunSettings>({
    modelId: a.model ?? catalog.default_model,
    ep: a.ep,
    threads: a.threads,
    warmRuns: a.warmRuns,
    allowFallback: a.allowFallback,
  });
  const [capabilities, setCapabilities] = useState<Capabilities | null>(null);
  // Receipts record a reduced device identity unless the tester ticks the box (or the URL says device_details=full);
  // set before the first render's effects, so an autorun records the choice too.
  const [deviceDetails, setDeviceDetails] = useState<DeviceDetails>(() => {
    chooseDeviceDetails(a.deviceDetails);
    return a.deviceDetails;
  });
  const onDeviceDetails = (full: boolean) => {
    const details: DeviceDetails = full ? 'full' : 'reduced';
    chooseDeviceDetails(details);
    setDeviceDetails(details);
    void probeCapabilities(details).then(setCapabilities);
  };
  const [status, setStatus] = useState<ModelStatus>('idle');
  const [progress, setProgress] = useState<Downloads>(NO_DOWNLOADS);
  const [liveSamples, setLiveSamples] = useState<number[]>([]);
  const [samplesTotal, setSamplesTotal] = useState<number | null>(null);
  // The latest receipts of this page (the list shows at most RECEIPTS_LISTED; the session keeps every one).
  const [receipts, setReceipts] = useState<DeviceReceipt[]>([]);
  const [receiptsMade, setReceiptsMade] = useState(0);
  const [problems, setProblems] = useState<string[]>([]);
  const [runErrors, setRunErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  // The running sequence's cancel (the Cancel button); null when nothing runs.
  const [cancel, setCancel] = useState<AbortController | null>(null);

  // Run journal: read once at load, before any run (runSequence awaits it); a run whose page is gone was
  // interrupted (tab killed or reloaded) and the banner shows it.
  const [store] = useState(() => new RunJournalStore());
  const [interrupted, setInterrupted] = useState<InterruptedRun | null>(null);
  const [journalLoaded] = useState(() => store.load().then(setInterrupted, () => undefined));
  // One journal for every kind of run (one pending interruption, claimed by whichever run starts first).
  const [journal] = useState<ControllerJournal>(() => ({ ready: journalLoaded, ...journalHooks(store) }));
  const controller = useMemo(() => new RunController(livePageFacts(a.stageTimeoutMs, journal)), []);
  const pageRun = usePageRun();
  const settingsRef = useRef(settings);
  settingsRef.current = settings;
  // Protocol mode (the tester's field kit) when the URL asks for it, or on a narrow screen when it names no mode.
  const [view, setView] = useState<PageMode>(() => a.mode ?? (window.innerWidth < PROTOCOL_VIEW_BELOW_PX ? 'protocol' : 'panels'));
  // Each view's own code arrives after the first paint (deferred.tsx); the view not shown is never fetched.
  const protocolView = useDeferred(view === 'protocol' ? loadProtocolView : null);
  const developerPanels = useDeferred(view === 'panels' ? loadDeveloperPanels : null);

  const runOne = async (kind: 'cold' | 'warm', signal: AbortSignal): Promise<DeviceReceipt | null> => {
    const s = settingsRef.current;
    const model = catalog.models.find((m) => m.id === s.modelId);
    const input = catalog.inputs.find((i) => i.id === model?.default_input);
    if (!model || !input || !canRun(model, 'cold-warm')) {
      setRunErrors([`Model ${s.modelId} cannot be run from these controls (engine ${model?.engine ?? 'unknown'})`]);
      return null;
    }
    setProgress(NO_DOWNLOADS);
    setLiveSamples([]);
    setSamplesTotal(kind === 'warm' ? s.warmRuns : null);
    const { receipt, problems: found } = await controller.run(
      { kind, model, input, ep: s.ep, threads: s.threads, allowFallback: s.allowFallback, warmRuns: s.warmRuns },
      {
        onStatus: setStatus,
        onProgress: (p) => setProgress((prev) => withProgress(prev, p)),
        onSample: (_i, ms) => setLiveSamples((prev) => [...prev, ms]),
      },
      signal,
    );
    setProblems(found);
    if (found.length > 0) return null;
    // Stored on the device before it is shown: a tab killed afterwards loses nothing.
    await storedSession.offerReceipt(receipt);
    setReceipts((prev) => [...prev.slice(-(RECEIPTS_LISTED - 1)), receipt]);
    setReceiptsMade((n) => n + 1);
    return receipt;
  };

  const runSequence = async (kinds: readonly string[]) => {
    // A refused sequence (another run holds the page) leaves the page's state as it was.
    let started = false;
    const ok = await runAsPageRun(kinds.length === 1 ? `${kinds[0]} run` : `${kinds.join(' + ')} runs`, { setBusy, setCancel, setError: (line) => setRunErrors([line]) }, async (signal) => {
      started = true;
      setRunErrors([]);
      setDrbState('running');
      await journalLoaded;
      let allOk = true;
      for (const kind of kinds) {
        // A cancelled sequence starts nothing more: the cancelled run's receipt says so.
        if (signal.aborted) break;
        const receipt = await runOne(kind as 'cold' | 'warm', signal);
        if (!receipt || receipt.outcome.status !== 'ok') allOk = false;
      }
      return allOk;
    });
    if (started) setDrbState(ok ? 'done' : 'failed');
  };

  useEffect(() => {
    void probeCapabilities().then(setCapabilities);
    if (automation.errors.length > 0) {
      setDrbState('failed');
      return;
    }
    if (a.testHooks) {
      window.drbTest = {
        crashWorker: async (afterMs: number) => controller.worker?.api.crashSoon(afterMs),
        killWorker: () => controller.worker?.killSilently(),
        killWorkerAt: (stage: Stage | null) => {
          WorkerBridge.killAtStage = stage;
        },
        pingWorker: async () => controller.worker?.api.ping(),
      };
    }
    // Protocol mode runs step by step from its own button; the developer panels' autorun is theirs.
    if (view === 'protocol') return;
    const s = settingsRef.current;
    // autorun=generate / autorun=compare belong to their panels, which start them and set done/failed themselves.
    if (a.autorun.some((k) => k === 'generate' || k === 'compare')) return;
    // autorun=suite belongs to the suite panel, which starts it and sets the done/failed state itself.
    if (a.autorun.includes('suite')) return;
    const engine = a.engine ?? DEFAULT_ENGINE;
    if (!ENGINE_CAPABILITIES[engine].coldWarm) {
      setRunErrors([`engine=${engine} has no cold/warm runs on this page yet`]);
      if (a.autorun.length > 0) setDrbState('failed');
      return;
    }
    const model = catalog.models.find((m) => m.id === s.modelId);
    if (model && model.engine !== engine) {
      setRunErrors([`Invalid model param: '${model.id}' runs on engine ${model.engine}, not ${engine}`]);
      if (a.autorun.length > 0) setDrbState('failed');
      return;
    }
    if (a.autorun.length > 0) void runSequence(a.autorun);
    // Idle means every panel is there to be driven (a chunk that could not be fetched: the effect below).
    else void loadDeveloperPanels().then(() => setDrbState('idle'), () => undefined);
  }, []);
  // Part of the page's own code could not be fetched: the page says so where it would be, and a script waiting on the
  // automation state (an autorun of the missing panel included) learns it now instead of at its time limit.
  useEffect(() => {
    if (protocolView.state === 'failed' || developerPanels.state === 'failed') setDrbState('failed');
  }, [protocolView.state, developerPanels.state]);

  const model = catalog.models.find((m) => m.id === settings.modelId);
  const input = catalog.inputs.find((i) => i.id === model?.default_input);
  if (view === 'protocol') {
    return (
      <DeferredView deferred={protocolView} what="protocol mode">
        {({ ProtocolView }) => (
          <ProtocolView
            catalog={catalog}
            automation={a}
            protocolId={a.protocol ?? DEFAULT_PROTOCOL_ID}
            capabilities={capabilities}
            journal={journal}
            onPanels={() => setView('panels')}
          />
        )}
      </DeferredView>
    );
  }
  return (
    <main>
      <header>
        <h1>Device Receipts Bench</h1>
        <p class="sub">
          In-browser model runs with a receipt of exactly what happened on this device. Nothing leaves this page: no
          analytics, no third-party scripts; receipts hold no text you typed.{' '}
          <button type="button" class="link" data-testid="to-protocol" disabled={pageRun !== null} onClick={() => setView('protocol')}>
            Protocol mode (testers on a phone)
          </button>
        </p>
      </header>
      <RunAnnouncer />
      <InterruptedBanner run={interrupted} />
      <Banners crossOriginIsolated={capabilities ? capabilities.cross_origin_isolated : null} paramErrors={[...automation.errors, ...runErrors]} problems={problems} />
      <RunControls
        models={runnable}
        settings={settings}
        busy={busy || pageRun !== null || automation.errors.length > 0}
        pageRun={busy ? null : pageRun}
        paramErrors={automation.errors}
        hasLoadedModel={model && input ? controller.hasLoadedModel({ kind: 'warm', model, input, ...settings }) : false}
        onChange={setSettings}
        onRun={(kind) => void runSequence([kind])}
        onCancel={cancel ? () => cancel.abort() : null}
      />
      <RunProgress status={status} downloads={progress} samplesDone={liveSamples.length} samplesTotal={samplesTotal} />
      {busy && liveSamples.length > 0 && <WarmChart samplesMs={liveSamples} />}
      <ReceiptList receipts={receipts} made={receiptsMade} />
      <DeferredView deferred={developerPanels} what="the developer panels (your own model, generation, comparison, suite)">
        {({ UserModelPanel, GenerationPanel, ComparePanel, SuitePanel }) => (
          <>
            <UserModelPanel stageTimeoutMs={a.stageTimeoutMs} journal={journal} paramErrors={automation.errors} />
            <GenerationPanel catalog={catalog} automation={a} paramErrors={automation.errors} autorun={automation.errors.length === 0 && a.autorun.includes('generate')} journal={journal} />
            <ComparePanel catalog={catalog} automation={a} paramErrors={automation.errors} autorun={automation.errors.length === 0 && a.autorun.includes('compare')} journal={journal} />
            <SuitePanel catalog={catalog} automation={automation} journal={journal} />
          </>
        )}
      </DeferredView>
      <label class="device-details">
        <input type="checkbox" data-testid="device-details" checked={deviceDetails === 'full'} disabled={pageRun !== null} onChange={(e) => onDeviceDetails(e.currentTarget.checked)} />{' '}
        Record full device details in receipts: the full user agent, OS version, CPU architecture, device model and full
        browser versions. Unticked, a receipt keeps the browser with its major version, the platform and the mobile flag
        only, and records which you chose.
      </label>
      <CapabilityPanel capabilities={capabilities} />
      <footer>
        <small>
          device-receipts-bench {__DRB_VERSION__} · commit {__DRB_COMMIT__ ?? 'unknown'}
        </small>
      </footer>
    </main>
  );
}
