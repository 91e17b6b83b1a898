/**
 * Protocol mode's parts: the short capability summary, the stored session's list with every receipt's numbers, and
 * what the last run came to.
 */
import { isProtocolReceipt } from '../core/field/field-progress.ts';
import type { Protocol } from '../core/field/field-protocol.ts';
import { countVerdict, receiptNumbers } from '../core/field/receipt-lines.ts';
import type { Capabilities, DeviceReceipt, ModelStatus, Stage } from '../core/receipt/receipt.ts';
import { CancelButton } from './CancelButton.tsx';
import { CapabilityPanel } from './CapabilityPanel.tsx';
import { RunProgress, type Downloads } from './RunProgress.tsx';
import { FailureAdvice } from './FailureAdvice.tsx';

/** The short capability summary protocol mode shows (the full lists sit behind a disclosure). */
export function CapabilitySummary(props: { capabilities: Capabilities | null }) {
  const c = props.capabilities;
  if (!c) return <p aria-busy="true">Checking this browser…</p>;
  const gpu = c.webgpu;
  const adapter = gpu.adapter_granted
    ? `yes${gpu.adapter_info ? ` (${[gpu.adapter_info.vendor, gpu.adapter_info.architecture].filter(Boolean).join(' ') || 'no details'})` : ''}${gpu.is_fallback_adapter ? ', a software adapter' : ''}`
    : 'no';
  return (
    <section class="panel" data-testid="capability-summary">
      <h2>This browser</h2>
      <ul class="facts">
        <li>WebGPU adapter: {adapter}</li>
        <li>Cross-origin isolated: {c.cross_origin_isolated ? 'yes' : 'no (one WASM thread only)'}</li>
        <li>Threads (hardware concurrency): {c.hardware_concurrency ?? 'not exposed'}</li>
        <li>
          Memory API: {c.js_heap || c.device_memory_gb !== null ? 'present' : 'none (as on Safari: never estimated)'}
        </li>
      </ul>
      <details>
        <summary>Everything the probe found</summary>
        <CapabilityPanel capabilities={c} />
      </details>
    </section>
  );
}

/** A stage of a run as the card names it while it runs. */
const STAGE_WORDS: Readonly<Record<Stage, string>> = {
  probe: 'checking this browser',
  fetch: 'downloading the model',
  runtime_fetch: 'downloading the runtime',
  session: 'starting the model',
  first_inference: 'the first inference',
  warmup: 'the warm-up run',
  warm_inference: 'the timed runs',
};

/**
 * The card while a run goes: which run and which stage, its progress, and its Cancel (in every stage). Never the next
 * step: that is shown once this run has ended.
 * @param props.kind the run's kind
 * @param props.warmRuns timed runs per warm receipt
 * @param props.stage the stage it is in (null before the first)
 * @param props.status the model status
 * @param props.downloads the model and runtime downloads
 * @param props.samples warm samples done
 * @param props.onCancel cancels the run (null: nothing to cancel)
 */
export function RunningCard(props: {
  kind: 'cold' | 'warm';
  warmRuns: number;
  stage: Stage | null;
  status: ModelStatus;
  downloads: Downloads;
  samples: number;
  /** What the protocol's cooldown waits for before the run starts; null when it does not wait. */
  cooling?: string | null;
  onCancel: (() => void) | null;
}) {
  return (
    <div data-testid="protocol-running">
      <h2>
        Running: {props.kind === 'cold' ? 'cold run' : `warm receipt (${props.warmRuns} timed runs)`}
        {props.stage ? `, ${STAGE_WORDS[props.stage]}` : ''}
      </h2>
      {props.cooling && (
        <p role="status" data-testid="protocol-cooldown">
          {props.cooling}
        </p>
      )}
      <RunProgress
        status={props.status}
        downloads={props.downloads}
        samplesDone={props.samples}
        samplesTotal={props.kind === 'warm' ? props.warmRuns : null}
      />
      <CancelButton onCancel={props.onCancel} testId="protocol-cancel" />
    </div>
  );
}

/** When a receipt was made, for the session list (local time, minutes). */
function shortTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, {
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
}

/** The stored session: how many receipts of each kind, and each receipt with its numbers and whether it counts. */
export function SessionList(props: { receipts: unknown[]; protocol: Protocol | null }) {
  const device = props.receipts.filter(
    (r): r is DeviceReceipt => (r as DeviceReceipt).schema === 'drb.device-receipt.v2',
  );
  const cold = device.filter((r) => r.run.kind === 'cold').length;
  const others = props.receipts.length - device.length;
  return (
    <div data-testid="stored-session">
      <p>
        Stored on this device: {props.receipts.length} receipt{props.receipts.length === 1 ? '' : 's'} ({cold} from cold
        runs, {device.length - cold} warm receipts{others > 0 ? `, ${others} of other kinds` : ''}).
      </p>
      {device.length > 0 && (
        <details>
          <summary>Every stored receipt, with its numbers</summary>
          <ol class="stored" reversed>
            {[...device].reverse().map((r) => {
              const ours = props.protocol !== null && isProtocolReceipt(r, props.protocol);
              const verdict = countVerdict(r);
              return (
                <li
                  key={r.receipt_id}
                  data-testid="stored-receipt"
                  data-kind={r.run.kind}
                  data-outcome={r.outcome.status}
                  data-counted={ours && verdict.counted ? 'yes' : 'no'}
                >
                  {shortTime(r.created_at)} · {r.run.kind === 'cold' ? 'cold run' : 'warm receipt'} ·{' '}
                  {receiptNumbers(r)} ·{' '}
                  <strong class={ours && verdict.counted ? 'mark-ok' : 'mark'}>
                    {ours ? verdict.words : 'another target'}
                  </strong>
                  {r.run.previous_run_interrupted ? ' · after an interrupted run' : ''}
                </li>
              );
            })}
          </ol>
        </details>
      )}
    </div>
  );
}

/**
 * What the last run came to: its numbers (a cold run's total and stages, a warm receipt's median and p95), whether it
 * counts (a cold run that does not is a warning, not ok), the wake lock, and the advice for a failure.
 * @param props.receipt the last run's receipt
 */
export function LastOutcome(props: { receipt: DeviceReceipt }) {
  const last = props.receipt;
  const verdict = countVerdict(last);
  const box = last.outcome.status !== 'ok' ? 'error' : verdict.counted ? 'ok' : 'warn';
  return (
    <>
      <div class={box} role="status" data-testid="last-outcome" data-counted={verdict.counted ? 'yes' : 'no'}>
        <strong>Last: {last.run.kind === 'cold' ? 'cold run' : 'warm receipt'}</strong> ·{' '}
        <span data-testid="last-numbers">{receiptNumbers(last)}</span>
        <br />
        {verdict.words}
        {last.run.wake_lock !== 'held' ? ` · screen wake lock: ${last.run.wake_lock}` : ''}
      </div>
      <FailureAdvice reason={last.outcome.reason} panel="protocol" testId="protocol-advice" />
    </>
  );
}
