/**
 * The bookkeeping every comparison-mode run shares, whether it compares routes at one size (comparison-controller.ts)
 * or over a ladder of sizes (sweep-controller.ts): a run id, the journal entry that says a run is open (so a page
 * that dies mid-run is found on reload), the watch for runs overlapping in other tabs, and on every ending (a
 * receipt, a failure or a throw) the journal closed, the watch finished and the controller's own clean-up run.
 */
import type { ExecutionProvider } from '../core/engines/engine-capabilities.ts';
import type { PageFacts } from './page-facts.ts';
import { openRunJournal, type RunJournalWriter } from './run-journal.ts';
import { watchOverlap, type OverlapWatch } from './run-gate.ts';

/** What a comparison-mode run's body is given. */
export interface ComparisonRunContext {
  journal: RunJournalWriter;
  overlap: OverlapWatch;
}

/**
 * Runs `body` as one comparison-mode run.
 * @param env page facts (the journal's store)
 * @param run the model and the baseline's EP, as the journal records them
 * @param body the run itself
 * @param cleanUp the controller's own ending (closing its routes' workers), after the journal and the watch
 */
export async function comparisonRun<T>(
  env: PageFacts,
  run: { modelId: string; baselineEp: ExecutionProvider },
  body: (context: ComparisonRunContext) => Promise<T>,
  cleanUp: () => void,
): Promise<T> {
  const runId = crypto.randomUUID();
  const overlap = watchOverlap(runId);
  let journal: RunJournalWriter | null = null;
  try {
    journal = await openRunJournal(env.journal, {
      runId,
      mode: 'comparison',
      kind: null,
      modelId: run.modelId,
      requestedEp: run.baselineEp,
    });
    return await body({ journal, overlap });
  } finally {
    // Ended (ok, failed or thrown, even by the journal): only a page that is gone leaves the run open in the journal.
    journal?.end();
    void overlap.finish();
    cleanUp();
  }
}
