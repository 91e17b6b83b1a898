/**
 * What a run of your own model made: its cold and warm device receipts, or its generation receipt, each listing the
 * files it read by their role (never their names), bytes and SHA-256, with its Download button.
 */
import type { GenerationReceipt } from '../core/generation/generation-receipt.ts';
import type { DeviceReceipt } from '../core/receipt/receipt.ts';
import { receiptFileName } from '../core/receipt/receipt-envelope.ts';
import type { UserModel } from '../core/user-model/user-model-files.ts';
import { ColdTimeline } from './ColdTimeline.tsx';
import { FailureAdvice } from './FailureAdvice.tsx';
import { GenerationNextStep } from './GenerationNextStep.tsx';
import { GenerationCharts, GenerationSummaryTable } from './GenerationResult.tsx';
import { NextStep } from './NextStep.tsx';
import { SoftwareAdapterNote, sharedWarmScale } from './ReceiptList.tsx';
import { ResultRegion } from './ResultRegion.tsx';
import { SaveButtons } from './SaveButtons.tsx';
import { WarmChart } from './WarmChart.tsx';
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
  // The cold and warm receipts of a run: the same stages and statistics a catalog model's show, on one warm axis.
  const warmScale = sharedWarmScale(props.result.receipts);
  const last = props.result.receipts.at(-1);
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
          {r.outcome.reason && (
            <p class="error" data-testid={`user-model-failure-${r.run.kind}`}>
              Failed{r.outcome.failed_stage ? ` at ${r.outcome.failed_stage}` : ''}: {r.outcome.reason}
            </p>
          )}
          <FailureAdvice reason={r.outcome.reason} panel="generation" testId={`user-model-advice-${r.run.kind}`} />
          <SoftwareAdapterNote
            completedEp={r.route.completed_ep}
            capabilities={r.capabilities}
            testId={`user-model-software-adapter-${r.run.kind}`}
          />
          {r.run.kind === 'cold' && <ColdTimeline receipt={r} />}
          {r.run.kind === 'warm' && <WarmChart samplesMs={r.timings.warm_samples_ms} scale={warmScale} />}
          <FileList files={r.model.files} labels={labels(r.model.task, r.model.dtype)} />
          <SaveButtons
            receipt={r}
            label="Download receipt"
            ids={{ download: `user-model-download-${r.run.kind}`, copy: null }}
          />
          {r === last && (
            <NextStep
              testId="user-model-next"
              command={`npx drb receipts summarize ${props.result.receipts.map((x) => receiptFileName(x)).join(' ')}`}
            >
              {r.outcome.status === 'ok'
                ? 'download both receipts and summarise them with the other runs of this model on this device:'
                : 'the failure is recorded; change what the lines above name, press Run cold + warm again, and summarise the receipts:'}
            </NextStep>
          )}
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
          <FailureAdvice reason={generation.outcome.reason} panel="generation" testId="user-model-advice-generation" />
          <SoftwareAdapterNote
            completedEp={generation.route.completed_ep}
            capabilities={generation.capabilities}
            testId="user-model-software-adapter-generation"
          />
          <GenerationSummaryTable receipt={generation} />
          <GenerationCharts samples={generation.samples} />
          <FileList files={generation.model.files} labels={labels('generate', generation.model.dtype)} />
          <SaveButtons
            receipt={generation}
            label="Download generation receipt"
            ids={{ download: 'user-model-download-generation', copy: null }}
          />
          <GenerationNextStep receipt={generation} answersOffered={false} />
        </ResultRegion>
      )}
    </>
  );
}
