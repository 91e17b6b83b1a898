/**
 * The page's first script's handle on the cold/warm run controller (run-controller.ts). The controller, with the worker
 * bridge, the receipt builder and the receipt invariants it validates with, is a chunk of its own: the shell paints
 * without it. The page starts fetching it after its first paint (App), and a run awaits it before anything of the
 * run is timed or recorded, so its fetch is never inside a run: a cold run's resource list starts at the run's start
 * (run-controller.ts) and the chunk's fetch started before.
 */
import type { Stage } from '../core/receipt/receipt.ts';
import type { FinishedReceipt } from '../core/receipt/device-receipt-builder.ts';
import type { PageFacts } from './page-facts.ts';
import type { RunController, RunRequest, RunUiHooks } from './run-controller.ts';
import type { WorkerBridge } from './worker-bridge.ts';

type RunControllerModule = typeof import('./run-controller.ts');

let loading: Promise<RunControllerModule> | null = null;

/** Fetches the run controller's chunk, once however many callers ask (its failure is kept: a reload retries). */
export function loadRunController(): Promise<RunControllerModule> {
  loading ??= import('./run-controller.ts');
  return loading;
}

/** The line a run ends with when the run controller's chunk could not be fetched. */
function unfetchedLine(error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return `The page could not fetch its run code (cold and warm runs): ${reason}. Reload the page to try again.`;
}

/** RunController's surface for the Run panel, with the controller itself fetched on first use. */
export class LazyRunController {
  private controller: RunController | null = null;

  constructor(private readonly env: PageFacts) {}

  /** The current run's worker bridge, for test hooks; null before the first run. */
  get worker(): WorkerBridge | null {
    return this.controller?.worker ?? null;
  }

  /** Whether a model is loaded for `request`'s model/route (never before the controller's first run). */
  hasLoadedModel(request: RunRequest): boolean {
    return this.controller?.hasLoadedModel(request) ?? false;
  }

  /**
   * Fetches the controller if it is not here yet, then runs `request` (RunController.run): the run and its clock
   * start once the controller is here.
   * @param request what to run
   * @param ui progress hooks
   * @param signal cancels the run
   * @throws when the controller's chunk cannot be fetched (the panel shows the line)
   */
  async run(request: RunRequest, ui: RunUiHooks = {}, signal?: AbortSignal): Promise<FinishedReceipt> {
    this.controller ??= await loadRunController().then(
      ({ RunController }) => new RunController(this.env),
      (error: unknown) => {
        throw new Error(unfetchedLine(error));
      },
    );
    return this.controller.run(request, ui, signal);
  }

  /** Terminates the worker and forgets the loaded model (nothing to do before the first run). */
  disposeWorker(reason: string): void {
    this.controller?.disposeWorker(reason);
  }
}

/**
 * Exposes `window.drbTest` (the automation contract's test hooks, only with `test_hooks=1`): crash, kill or ping the
 * worker of `controller`'s current run, or kill every run's worker as it enters a stage.
 * @param controller the page's cold/warm controller
 */
export function installTestHooks(controller: LazyRunController): void {
  window.drbTest = {
    crashWorker: async (afterMs: number) => controller.worker?.api.crashSoon(afterMs),
    killWorker: () => controller.worker?.killSilently(),
    killWorkerAt: async (stage: Stage | null) => {
      const { WorkerBridge } = await loadRunController();
      WorkerBridge.killAtStage = stage;
    },
    pingWorker: async () => controller.worker?.api.ping(),
  };
}
