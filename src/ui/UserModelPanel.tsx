/**
 * Bring your own model: a developer picks (or drops) one `.onnx` graph, with its external data files if it has any,
 * or a transformers.js model folder, and runs it on this device from those files. The files are recognised by
 * src/core/user-model/ (roles, never names), read and hashed in the worker, and run through the engines and
 * controllers the catalog's models use:
 *
 * - a bare graph: cold and warm on the ORT engine (RunController), on inputs built from the graph's own input
 *   metadata (a graph whose inputs this page cannot build is refused with a line per input);
 * - a transformers.js folder (config.json, tokenizer files, onnx/model*.onnx), in the dtype chosen from those it has:
 *   a sequence classifier reranks the page's built-in probe pairs through the folder's own tokenizer, cold and warm
 *   (RunController); a causal LM generates the built-in prompt set, greedily (GenerationController). Files of no
 *   known role, and the other dtypes' graphs, are neither read nor hashed.
 *
 * The receipts say `source: user-supplied`, `kind: user`, `integrity: unpinned`, and list every file read by its
 * bytes and SHA-256 only: no file or folder name reaches a receipt, a download name or what the page stores.
 */
import { useMemo, useState } from 'preact/hooks';
import { routeChoiceNote } from '../core/automation/route-choice.ts';
import type { Capabilities } from '../core/receipt/receipt.ts';
import { GenerationController } from '../page/generation-controller.ts';
import { livePageFacts } from '../page/page-facts.ts';
import { RunController } from '../page/run-controller.ts';
import type { ControllerJournal } from '../page/run-journal.ts';
import { RunSideButtons } from './page-runs.tsx';
import { RouteNote } from './RouteNote.tsx';
import { usePanelRun } from './panel-run.ts';
import { UserModelControls, type UserModelChoice } from './UserModelControls.tsx';
import { UserModelResults, type UserModelResult } from './UserModelResults.tsx';
import { pickDescription, useUserModelPick } from './user-model-pick.ts';
import { runUserModel } from './user-model-run.ts';

/**
 * The bring-your-own-model panel.
 * @param props.stageTimeoutMs the URL's stage time limit (null = the page's defaults)
 * @param props.journal the page's run journal
 * @param props.paramErrors the URL's bad parameters (the panel runs nothing while there are any, as every panel)
 * @param props.capabilities the capability probe (null while it runs): the route choice is checked against it
 */
export function UserModelPanel(props: {
  stageTimeoutMs: number | null;
  journal?: ControllerJournal;
  paramErrors?: readonly string[];
  capabilities?: Capabilities | null;
}) {
  const paramErrors = props.paramErrors ?? [];
  const facts = useMemo(() => livePageFacts(props.stageTimeoutMs, props.journal), []);
  const controller = useMemo(() => new RunController(facts), []);
  const generator = useMemo(() => new GenerationController(facts), []);
  const [choice, setChoice] = useState<UserModelChoice>({
    ep: 'wasm',
    threads: null,
    warmRuns: 10,
    maxNewTokens: null,
  });
  const [status, setStatus] = useState<string | null>(null);
  const run = usePanelRun<UserModelResult>({ paramErrors });
  // A new pick forgets the last pick's receipts and error.
  const pick = useUserModelPick(run.clear);
  const picked = pick.picked !== null && !('problem' in pick.picked) ? pick.picked : null;
  const generate = picked?.task === 'generate';

  const start = async () => {
    if (picked === null) return;
    const name = generate ? 'your model: generation' : 'your model: cold + warm';
    const controllers = { coldWarm: controller, generation: generator };
    await run.start(name, (scope) => runUserModel(controllers, picked, pick.dtype, choice, setStatus, scope));
    setStatus(null);
  };

  return (
    <section class="panel" data-testid="user-model-panel">
      <h2>Your own model</h2>
      <p class="note">
        Pick one <code>.onnx</code> graph (with its external data files, if it has any) to run it cold and warm here, on
        inputs built from the graph's own input metadata; or a transformers.js model folder (<code>config.json</code>,
        tokenizer files, <code>onnx/model*.onnx</code>): a reranker reranks the page's built-in probe pairs cold and
        warm, a causal LM generates the built-in prompt set greedily. The files are read and hashed on this device and
        never uploaded; the receipts list them by size and SHA-256 only, never by name.
      </p>
      <UserModelControls pick={pick} choice={choice} generate={generate} busy={run.busy} onChange={setChoice} />
      {pick.picked !== null && 'problem' in pick.picked && (
        <p class="error" data-testid="user-model-problem">
          These files cannot be run: {pick.picked.problem}.
        </p>
      )}
      <RouteNote
        note={routeChoiceNote({ model: null, ep: choice.ep, allowFallback: null }, [], props.capabilities ?? null)}
        testId="user-model-route-note"
      />
      {picked && (
        <p class="note" data-testid="user-model-recognised">
          {pickDescription(picked)}
        </p>
      )}
      <div class="buttons">
        <button
          type="button"
          disabled={!run.canStart || picked === null}
          data-testid="user-model-run"
          onClick={() => void start()}
        >
          {generate ? 'Run generation' : 'Run cold + warm'}
        </button>
        <RunSideButtons run={run} prefix="user-model" paramErrors={paramErrors} />
        {run.busy && <span role="status">{status}</span>}
      </div>
      {run.error && <p class="error">{run.error}</p>}
      {run.result && <UserModelResults result={run.result} model={picked?.model ?? null} />}
    </section>
  );
}
