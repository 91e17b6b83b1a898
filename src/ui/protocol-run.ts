/**
 * Protocol mode's runs: the protocol's cold and warm steps on the panel skeleton (a tap runs one, the URL's
 * `autorun=cold,warm` runs them in order), the tester's attested taps that go into the next cold run's receipt, and
 * what the running card shows. ProtocolView.tsx renders it.
 */
import { useMemo, useRef, useState } from 'preact/hooks';
import type { ParsedAutomation } from '../core/automation/automation.ts';
import { driverColdAttestations } from '../core/automation/driver-statement.ts';
import { protocolRunProblem, type AutorunPlan, type ColdOrWarm } from '../core/automation/autorun-plan.ts';
import type { ModelCatalog } from '../core/catalog/catalog.ts';
import type { Protocol } from '../core/field/field-protocol.ts';
import { testerAttestation, type ColdStartClaim } from '../core/receipt/attestation.ts';
import type { DeviceReceipt, ModelStatus, Stage } from '../core/receipt/receipt.ts';
import { DEFAULT_DRIFT_MAX_SLOWDOWN } from '../core/device/drift-probe.ts';
import { setDrbState } from '../page/drb-state.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { RunController } from '../page/run-controller.ts';
import type { ControllerJournal } from '../page/run-journal.ts';
import { usePanelRun, type PanelRun } from './panel-run.ts';
import type { Said } from './ProtocolSteps.tsx';
import type { StoredReceipts } from './protocol-state.ts';
import { NO_DOWNLOADS, withProgress, type Downloads } from './RunProgress.tsx';

/** What the page says while it waits out the protocol's cooldown. */
function cooldownText(what: 'pause' | 'nominal', ms: number): string {
  return what === 'pause'
    ? `Cooling down: a pause of ${Math.ceil(ms / 1000)} s before the run`
    : `Cooling down: waiting up to ${Math.ceil(ms / 1000)} s for nominal CPU pressure`;
}

/** What protocol mode's runs need from the view. */
export interface ProtocolRunOptions {
  catalog: ModelCatalog;
  /** The protocol followed; null while it loads (or when it cannot be read). */
  protocol: Protocol | null;
  stored: StoredReceipts;
  /** The parsed URL (its stage time limits; its run settings held to the protocol's when it asks for a run). */
  automation: ParsedAutomation;
  /** What the URL's `autorun` runs here: the protocol's steps, or the line refusing it. */
  autorun: Pick<AutorunPlan, 'protocolRuns' | 'refusal'>;
  journal: ControllerJournal;
  /** Every URL parameter protocol mode refuses: while any is there, nothing runs. */
  paramProblems: readonly string[];
}

/** Protocol mode's run state and actions. */
export interface ProtocolRun {
  run: PanelRun<DeviceReceipt>;
  /** Starts one step (a tap). */
  start(kind: ColdOrWarm): void;
  /** The tester's taps not yet used by a cold run. */
  said: Said;
  toggleSaid(claim: ColdStartClaim): void;
  /** The step running now, its stage, status, downloads and timed runs done; null when none runs. */
  running: ColdOrWarm | null;
  stage: Stage | null;
  status: ModelStatus;
  downloads: Downloads;
  samples: number;
  /** What the protocol's cooldown before the running step waits for, while it waits; null otherwise. */
  cooling: string | null;
}

/**
 * Protocol mode's runs (see the module comment).
 * @param options the view's protocol, stored session, URL and journal
 */
export function useProtocolRun(options: ProtocolRunOptions): ProtocolRun {
  const { catalog, protocol, stored, automation, autorun } = options;
  const [status, setStatus] = useState<ModelStatus>('idle');
  const [stage, setStage] = useState<Stage | null>(null);
  const [downloads, setDownloads] = useState<Downloads>(NO_DOWNLOADS);
  const [samples, setSamples] = useState(0);
  const [cooling, setCooling] = useState<string | null>(null);
  const [running, setRunning] = useState<ColdOrWarm | null>(null);
  const [said, setSaid] = useState<Said>({});
  const driverUsed = useRef(false);
  const controller = useMemo(
    () => new RunController(livePageFacts(automation.settings.stageTimeoutMs, options.journal)),
    [],
  );

  /** Runs the protocol's steps in order, each stored as it is made. */
  const steps = (kinds: readonly ColdOrWarm[]): Promise<boolean> => {
    if (!protocol) return Promise.resolve(false);
    const model = catalog.models.find((m) => m.id === protocol.model)!;
    const input = catalog.inputs.find((i) => i.id === protocol.input)!;
    // The tester's taps go into the next cold run's receipt as attested, and are used up by it.
    const tapped = (Object.entries(said) as Array<[ColdStartClaim, string]>).map(([claim, at]) =>
      testerAttestation(claim, at),
    );
    const name = kinds.length === 1 ? `${kinds[0]} run` : `${kinds.join(' + ')} runs`;
    return run.start(name, async ({ signal, keep }) => {
      let allOk = true;
      let attested = false;
      for (const kind of kinds) {
        if (signal.aborted) break;
        setDownloads(NO_DOWNLOADS);
        setSamples(0);
        setStage(null);
        setRunning(kind);
        // A driver's statement (driver_fresh) holds for the page load's first cold run only.
        const driver = automation.settings.driverFresh;
        const stated =
          kind === 'cold' && driver !== null && !driverUsed.current
            ? driverColdAttestations(driver, new Date().toISOString())
            : [];
        if (kind === 'cold') driverUsed.current = true;
        const attestations = kind === 'cold' && !attested ? [...tapped, ...stated] : [];
        if (kind === 'cold') {
          attested = true;
          setSaid({});
        }
        try {
          const { ep, threads, warm_runs: warmRuns } = protocol;
          // The device's state, and the protocol's cooldown before each run (docs/field-kit.md).
          const deviceState = {
            cooldown: protocol.cooldown ?? null,
            driftMaxSlowdown: protocol.drift_max_slowdown ?? DEFAULT_DRIFT_MAX_SLOWDOWN,
          };
          const { receipt, problems } = await controller.run(
            { kind, model, input, ep, threads, allowFallback: false, warmRuns, attestations, deviceState },
            {
              onStatus: (next) => {
                setCooling(null);
                setStatus(next);
              },
              onStage: (s, phase) => phase === 'start' && setStage(s),
              onProgress: (p) => setDownloads((prev) => withProgress(prev, p)),
              onSample: (i) => setSamples(i + 1),
              onCooldown: (what, ms) => setCooling(cooldownText(what, ms)),
            },
            signal,
          );
          if (problems.length > 0) throw new Error(problems[0]);
          await keep(receipt, [{ kind: 'device-receipt', data: receipt }]);
          stored.add(receipt);
          if (receipt.outcome.status !== 'ok') allOk = false;
        } finally {
          setRunning(null);
          setCooling(null);
        }
      }
      return allOk;
    });
  };

  // The last run's receipt is the run's result; a tapped run sets the automation state, as an automated one does.
  // The URL's autorun waits for the protocol and the stored session (a refusal needs neither); `idle` once both are
  // there and nothing was asked.
  const requested = autorun.protocolRuns.length > 0 || autorun.refusal !== null;
  const run = usePanelRun<DeviceReceipt>({
    paramErrors: options.paramProblems,
    tapsSetState: true,
    ready: autorun.refusal !== null || (protocol !== null && stored.ready),
    check: () => autorun.refusal ?? (requested && protocol ? protocolRunProblem(protocol, automation) : null),
    autorun: requested ? () => steps(autorun.protocolRuns) : null,
    onReady: () => setDrbState('idle'),
  });
  const toggleSaid = (claim: ColdStartClaim) =>
    setSaid((prev) => {
      const { [claim]: tapped, ...rest } = prev;
      return tapped === undefined ? { ...prev, [claim]: new Date().toISOString() } : rest;
    });
  const start = (kind: ColdOrWarm) => void steps([kind]);
  return { run, start, said, toggleSaid, running, stage, status, downloads, samples, cooling };
}
