/**
 * What a run of your own model made: its cold and warm device receipts, or its generation receipt, each listing the
 * files it read by their role (never their names), bytes and SHA-256, with its Download button.
 */
import type { GenerationReceipt } from '../core/generation/generation-receipt.ts';
import type { DeviceReceipt } from '../core/receipt/receipt.ts';
import type { UserModel } from '../core/user-model/user-model-files.ts';
import { GenerationSummaryTable } from './GenerationResult.tsx';
import { ResultRegion } from './ResultRegion.tsx';
import { SaveButtons } from './SaveButtons.tsx';
import { fileLabels } from './user-model-pick.ts';

/** A run's receipts: the cold and warm ones so far, or the generation receipt. */
export interface UserModelResult {
  receipts: DeviceReceipt[];
  generation: GenerationReceipt | null;
}

/** The files a receipt lists, each by its label. */
function FileList(props: { files: DeviceReceipt['model']['files']; labels: string[] }) {
  return (
    <ul>
      {props.files.map((f, i) => (
        <li key={i}>
          {props.labels[i] ?? `file ${i + 1}`}: {f.bytes} bytes, SHA-256 <code>{f.sha256}</code>
        </li>
      ))}
    </ul>
  );
}

/**
 * @param props.result the receipts the run made
 * @param props.model the recognised model they ran (null when the pick changed since: files are listed by number)
 */
export function UserModelResults(props: { result: UserModelResult; model: UserModel | null }) {
  const { model } = props;
  const labels = (task: string, dtype: string | null) => (model ? fileLabels(model, task, dtype) : []);
  const generation = props.result.generation;
  return (
    <>
      {props.result.receipts.map((r) => (
        <div
          key={r.receipt_id}
          class={`receipt ${r.outcome.status}`}
          data-testid={`user-model-receipt-${r.run.kind}`}
          data-outcome={r.outcome.status}
        >
          <h3>
            {r.run.kind} · {r.route.completed_ep ?? 'failed'}
            {r.model.dtype ? ` · ${r.model.dtype}` : ''} · <strong>{r.outcome.status}</strong>
          </h3>
          {r.outcome.reason && <p class="error">Failed: {r.outcome.reason}</p>}
          <FileList files={r.model.files} labels={labels(r.model.task, r.model.dtype)} />
          <SaveButtons
            receipt={r}
            label="Download receipt"
            ids={{ download: `user-model-download-${r.run.kind}`, copy: null }}
          />
        </div>
      ))}
      {generation && (
        <ResultRegion
          resultKey={generation.receipt_id}
          class={`receipt ${generation.outcome.status}`}
          testId="user-model-generation"
          outcome={generation.outcome.status}
        >
          <h3>
            generation · {generation.route.completed_ep ?? 'failed'} · {generation.model.dtype} ·{' '}
            <strong>{generation.outcome.status}</strong>
          </h3>
          {generation.outcome.reason && <p class="error">Failed: {generation.outcome.reason}</p>}
          <GenerationSummaryTable receipt={generation} />
          <FileList files={generation.model.files} labels={labels('generate', generation.model.dtype)} />
          <SaveButtons
            receipt={generation}
            label="Download generation receipt"
            ids={{ download: 'user-model-download-generation', copy: null }}
          />
        </ResultRegion>
      )}
    </>
  );
}
