/**
 * The page root: parses the URL, picks the view (protocol mode or the developer panels), owns what every view shares
 * (the capability probe, the device-details choice, the run journal, the test hooks) and decides once, at load, which
 * panel the URL's `autorun` belongs to. Each panel is its own component; a new run kind adds a panel here.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { parseAutomation, type PageMode } from '../core/automation/automation.ts';
import { autorunPlan, PROTOCOL_VIEW_BELOW_PX } from '../core/automation/autorun-plan.ts';
import type { ModelCatalog } from '../core/catalog/catalog.ts';
import type { InterruptedRun } from '../core/field/journal.ts';
import { DEFAULT_PROTOCOL_ID } from '../core/field/field-protocol.ts';
import type { Capabilities, DeviceDetails } from '../core/receipt/receipt.ts';
import { chooseDeviceDetails, probeCapabilities } from '../page/capability-probe.ts';
import { setDrbState } from '../page/drb-state.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { installTestHooks, LazyRunController, loadRunController } from '../page/lazy-run-controller.ts';
import { journalHooks, RunJournalStore, type ControllerJournal } from '../page/run-journal.ts';
import { CapabilityPanel } from './CapabilityPanel.tsx';
import { DeviceDetailsChoice } from './DeviceDetailsChoice.tsx';
import { afterPaint, DeferredView, loadDeveloperPanels, loadProtocolView, useDeferred } from './deferred.tsx';
import { InterruptedBanner } from './InterruptedBanner.tsx';
import { PageFooter } from './PageFooter.tsx';
import { RunAnnouncer, usePageRun } from './page-runs.tsx';
import { RunPanel } from './RunPanel.tsx';
import { useViewInUrl } from './view-url.ts';

/** The page. `catalog` is the parsed, validated catalog bundled into the build. */
export function App(props: { catalog: ModelCatalog }) {
  const { catalog } = props;
  const automation = useMemo(
    () => parseAutomation(location.search, { modelIds: catalog.models.map((m) => m.id) }),
    [catalog],
  );
  const a = automation.settings;
  const [capabilities, setCapabilities] = useState<Capabilities | null>(null);
  // Receipts record a reduced device identity unless the tester ticks the box (or the URL says device_details=full);
  // set before the first render's effects, so an autorun records the choice too.
  const [deviceDetails, setDeviceDetails] = useState<DeviceDetails>(() => {
    chooseDeviceDetails(a.deviceDetails);
    return a.deviceDetails;
  });
  const onDeviceDetails = (details: DeviceDetails) => {
    chooseDeviceDetails(details);
    setDeviceDetails(details);
    void probeCapabilities(details).then(setCapabilities);
  };
  // Run journal: read once at load, before any run (a run awaits `ready`); a run whose page is gone was interrupted
  // (tab killed or reloaded) and the banner shows it. One journal for every kind of run.
  const [interrupted, setInterrupted] = useState<InterruptedRun | null>(null);
  const [journal] = useState<ControllerJournal>(() => {
    const store = new RunJournalStore();
    return { ready: store.load().then(setInterrupted, () => undefined), ...journalHooks(store) };
  });
  const controller = useMemo(() => new LazyRunController(livePageFacts(a.stageTimeoutMs, journal)), []);
  const pageRun = usePageRun();
  // Protocol mode (the tester's field kit) when the URL asks for it, or on a narrow screen when it names no mode.
  const opened = useMemo<PageMode>(
    () => a.mode ?? (window.innerWidth < PROTOCOL_VIEW_BELOW_PX ? 'protocol' : 'panels'),
    [],
  );
  // The view is part of the address both ways (src/ui/view-url.ts).
  const [view, switchView] = useViewInUrl(opened);
  // What the URL's autorun runs (or the line refusing it), decided once for the view the page opened in.
  const [plan] = useState(() => autorunPlan({ mode: view, byUrl: a.mode !== null }, automation));
  // Each view's own code arrives after the first paint (deferred.tsx); the view not shown is never fetched.
  const protocolView = useDeferred(view === 'protocol' ? loadProtocolView : null);
  const developerPanels = useDeferred(view === 'panels' ? loadDeveloperPanels : null);

  useEffect(() => {
    void probeCapabilities().then(setCapabilities);
    // The Run panel's run code (the controller, the worker bridge, the receipt builder), fetched after the first paint
    // so a run seldom waits for it; a run awaits it before its clock starts, and says so if it could not be fetched.
    if (view === 'panels')
      void afterPaint()
        .then(loadRunController)
        .catch(() => undefined);
    if (automation.errors.length > 0) {
      setDrbState('failed');
      return;
    }
    if (a.testHooks) installTestHooks(controller);
  }, []);
  // Part of the page's own code could not be fetched: the page says so where it would be, and a script waiting on the
  // automation state (an autorun of the missing panel included) learns it now instead of at its time limit.
  useEffect(() => {
    if (protocolView.state === 'failed' || developerPanels.state === 'failed') setDrbState('failed');
  }, [protocolView.state, developerPanels.state]);

  if (view === 'protocol') {
    return (
      <DeferredView deferred={protocolView} what="protocol mode">
        {({ ProtocolView }) => (
          <ProtocolView
            catalog={catalog}
            automation={automation}
            autorun={plan}
            protocolId={a.protocol ?? DEFAULT_PROTOCOL_ID}
            capabilities={capabilities}
            journal={journal}
            onPanels={() => switchView('panels')}
          />
        )}
      </DeferredView>
    );
  }
  const errors = automation.errors;
  return (
    <main>
      <header>
        <h1>Device Receipts Bench</h1>
        <p class="sub">
          In-browser model runs with a receipt of exactly what happened on this device. Nothing leaves this page: no
          analytics, no third-party scripts; receipts hold no text you typed.{' '}
          <button
            type="button"
            class="link"
            data-testid="to-protocol"
            disabled={pageRun !== null}
            onClick={() => switchView('protocol')}
          >
            Protocol mode (testers on a phone)
          </button>
        </p>
      </header>
      <RunAnnouncer />
      <InterruptedBanner run={interrupted} />
      <RunPanel
        catalog={catalog}
        automation={automation}
        controller={controller}
        capabilities={capabilities}
        journalReady={journal.ready}
        codeReady={loadDeveloperPanels}
        onLoad={plan.runPanel}
        // Idle means every panel is there to be driven (a chunk that could not be fetched: the effect above).
        onReady={() =>
          void loadDeveloperPanels().then(
            () => setDrbState('idle'),
            () => undefined,
          )
        }
      />
      <DeferredView
        deferred={developerPanels}
        what="the developer panels (your own model, generation, comparison, suite, sweep)"
      >
        {({ UserModelPanel, GenerationPanel, ComparePanel, SuitePanel, SweepPanel }) => (
          <>
            <UserModelPanel
              stageTimeoutMs={a.stageTimeoutMs}
              journal={journal}
              paramErrors={errors}
              capabilities={capabilities}
            />
            <GenerationPanel
              catalog={catalog}
              automation={a}
              paramErrors={errors}
              autorun={plan.generate}
              journal={journal}
              capabilities={capabilities}
            />
            <ComparePanel
              catalog={catalog}
              automation={a}
              paramErrors={errors}
              autorun={plan.compare}
              journal={journal}
            />
            <SuitePanel
              catalog={catalog}
              automation={a}
              paramErrors={errors}
              autorun={plan.suite}
              journal={journal}
              capabilities={capabilities}
            />
            <SweepPanel catalog={catalog} automation={a} paramErrors={errors} autorun={plan.sweep} journal={journal} />
          </>
        )}
      </DeferredView>
      <DeviceDetailsChoice value={deviceDetails} disabled={pageRun !== null} onChange={onDeviceDetails} />
      <CapabilityPanel capabilities={capabilities} />
      <PageFooter />
    </main>
  );
}
