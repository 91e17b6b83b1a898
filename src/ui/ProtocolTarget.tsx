/**
 * Protocol mode's target: what the protocol runs on, progress against its minimums, what to do before the next step,
 * and one large button for that step (with the other kind of run one tap away).
 */
import type { CatalogModel, ModelCatalog } from '../core/catalog/catalog.ts';
import { nextStep, progressLine, type ProtocolProgress } from '../core/field/field-progress.ts';
import type { Protocol } from '../core/field/field-protocol.ts';
import { ColdSteps } from './ProtocolParts.tsx';

/**
 * @param props.protocol the field protocol followed
 * @param props.catalog the page's catalog (the target's model)
 * @param props.counts the stored session's receipts counted against the protocol
 * @param props.coldRanThisLoad a cold run was made since the page loaded (the next step is then a warm one)
 * @param props.busy a run of this view is in progress
 * @param props.disabled the Run buttons cannot start a run now
 * @param props.onRun starts a cold or a warm run
 */
export function ProtocolTarget(props: {
  protocol: Protocol;
  catalog: ModelCatalog;
  counts: ProtocolProgress;
  coldRanThisLoad: boolean;
  busy: boolean;
  disabled: boolean;
  onRun(kind: 'cold' | 'warm'): void;
}) {
  const { protocol, counts, busy } = props;
  const target: CatalogModel | undefined = props.catalog.models.find((m) => m.id === protocol.model);
  const step = nextStep(counts, props.coldRanThisLoad);
  return (
    <section class="panel" data-testid="protocol-target">
      <h2>{protocol.title}</h2>
      <p class="facts-line">
        {protocol.model} · {protocol.engine} · {protocol.ep}
        {protocol.threads === null
          ? ' (default threads)'
          : ` · ${protocol.threads} thread${protocol.threads === 1 ? '' : 's'}`}{' '}
        · input {protocol.input} · {protocol.warm_runs} timed runs per warm receipt
      </p>
      {target?.kind === 'fixture' && (
        <p class="note">A fixture with random weights: it checks the procedure and the device, not a real model.</p>
      )}
      <p class="progress-line" data-testid="protocol-progress" aria-live="polite">
        {progressLine(counts)}
      </p>
      {step === 'cold' && <ColdSteps />}
      {step === 'warm' && (
        <p data-testid="warm-steps">
          Next: a warm receipt on this same page (keep the screen on and the page in front).
        </p>
      )}
      {step === 'done' && (
        <p data-testid="done-steps">Both minimums are met. Fill in the session sheet and share the bundle below.</p>
      )}
      {step !== 'done' && (
        <button
          type="button"
          class="big"
          data-testid="protocol-next"
          disabled={props.disabled}
          onClick={() => props.onRun(step === 'cold' ? 'cold' : 'warm')}
        >
          {busy ? 'Running…' : step === 'cold' ? 'Cold run' : `Warm run (${protocol.warm_runs} timed runs)`}
        </button>
      )}
      {step !== 'done' && !busy && (
        <p class="small">
          Or:{' '}
          <button
            type="button"
            class="link"
            data-testid="protocol-other"
            disabled={props.disabled}
            onClick={() => props.onRun(step === 'cold' ? 'warm' : 'cold')}
          >
            {step === 'cold' ? 'a warm run instead' : 'a cold run now (after the cold steps)'}
          </button>
        </p>
      )}
    </section>
  );
}
