/**
 * A run of your own model, through the controllers the catalog's models use: a bare graph cold and warm on inputs
 * built from its own input metadata, a transformers.js reranker cold and warm on the page's built-in probe pairs
 * (RunController), a causal LM generating the built-in prompt set greedily (GenerationController).
 */
import type { UserModelChoice } from './UserModelControls.tsx';
import type { UserModelResult } from './UserModelResults.tsx';
import type { Picked } from './user-model-pick.ts';
import type { RunScope } from './panel-run.ts';
import { runnableFiles, synthesizedInput, USER_RERANK_PROBE, userCatalogModel } from '../core/user-model/user-run.ts';
import { loadPromptSet, type GenerationController } from '../page/generation-controller.ts';
import type { RunController } from '../page/run-controller.ts';

/** What symbolic dimensions become, and the seed of float inputs, for every user graph. */
const SIZES = { batch: 1, sequence: 16 };
const SEED = 42;

/** The prompt set a user's causal LM generates (the generation panel's own, fetched from the page's origin). */
const PROMPT_SET_ID = 'drb-gen-ja-en-v1';

/**
 * Runs a recognised pick and keeps each receipt it makes (stored on the device, then shown). A receipt that fails its
 * own checks ends the run with that line (thrown) and is never offered.
 * @param controllers the panel's cold/warm and generation controllers
 * @param picked the recognised pick
 * @param dtype the dtype chosen for a transformers.js folder (null: its first)
 * @param choice the route, warm runs and token limit
 * @param onStatus what the run is doing now, for the panel's status line
 * @param scope the panel run's signal and `keep`
 * @returns whether every run ended ok
 */
export async function runUserModel(
  controllers: { coldWarm: RunController; generation: GenerationController },
  picked: Exclude<Picked, { problem: string }>,
  dtype: string | null,
  choice: UserModelChoice,
  onStatus: (status: string) => void,
  scope: RunScope<UserModelResult>,
): Promise<boolean> {
  const { signal, keep } = scope;
  const folder =
    picked.task !== null && picked.model.kind === 'transformers'
      ? { task: picked.task, dtype: dtype ?? picked.model.dtypes[0] }
      : null;
  const model = userCatalogModel(picked.model, folder);
  const files = runnableFiles(picked.model).map((f) => ({ path: f.path, blob: picked.files[f.index] }));
  const { ep, threads } = choice;
  if (folder?.task === 'generate') {
    // The generation panel's path: the built-in prompt set, one warm-up, every prompt once, greedily.
    onStatus('loading the prompt set');
    const prompts = await loadPromptSet(new URL(import.meta.env.BASE_URL, location.href).href, PROMPT_SET_ID);
    const request = { model, ep, threads, allowFallback: false, prompts, repetitions: 1, temperature: 0 };
    const out = await controllers.generation.run(
      { ...request, maxNewTokens: choice.maxNewTokens, userFiles: files },
      {
        onPhase: (phase) => onStatus(phase),
        onSample: (done, total) => onStatus(`measured · prompt ${done} / ${total}`),
      },
      signal,
    );
    const problems = out.problems.join('; ');
    if (problems) throw new Error(`The generation receipt failed its own checks and is not offered: ${problems}`);
    // The answers (the generated text) are not kept: the receipt is what this panel offers.
    await keep({ receipts: [], generation: out.receipt }, [{ kind: 'generation-receipt', data: out.receipt }]);
    return true;
  }
  const input = folder === null ? synthesizedInput(SIZES, SEED) : USER_RERANK_PROBE;
  const user = { files, pick: String(picked.pick) };
  const made: UserModelResult['receipts'] = [];
  for (const kind of ['cold', 'warm'] as const) {
    if (signal.aborted) return false;
    onStatus(`${kind} run`);
    const request = { kind, model, input, ep, threads, allowFallback: false, warmRuns: choice.warmRuns, user };
    const { receipt, problems } = await controllers.coldWarm.run(request, {}, signal);
    if (problems.length > 0) {
      throw new Error(`The ${kind} receipt failed its own checks and is not offered: ${problems.join('; ')}`);
    }
    made.push(receipt);
    await keep({ receipts: [...made], generation: null }, [{ kind: 'device-receipt', data: receipt }]);
    if (receipt.outcome.status !== 'ok') return false;
  }
  return true;
}
