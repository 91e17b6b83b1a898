/**
 * Protocol mode's card, the first thing on the screen: the target, the progress (counted as `drb receipts summarize`
 * counts), another tab's run while it goes, and the next action: while a run goes, that run and its Cancel (never the
 * next step); otherwise the next step (a cold run with the tester's two taps, a warm receipt, the cold steps, or done)
 * with its large button and the other kind of run one tap away; the numbers of the run that just ended come first.
 */
import type { ComponentChildren } from 'preact';
import type { ModelCatalog } from '../core/catalog/catalog.ts';
import type { ProtocolProgress } from '../core/field/field-progress.ts';
import type { Protocol } from '../core/field/field-protocol.ts';
import type { ColdStartClaim } from '../core/receipt/attestation.ts';
import type { DeviceReceipt } from '../core/receipt/receipt.ts';
import { LastOutcome } from './ProtocolParts.tsx';
import { DeviceStateNote } from './DeviceStateNote.tsx';
import { AttestTaps, DoneStep, ProgressLines, RestartSteps, type Said } from './ProtocolSteps.tsx';

/** The next step (src/core/field/field-progress.ts `nextStep`). */
export type ProtocolStep = 'cold' | 'warm' | 'restart' | 'done';

/**
 * @param props.protocol the field protocol followed
 * @param props.catalog the page's catalog (the target's model)
 * @param props.counts the stored session's receipts counted against the protocol
 * @param props.receipts every receipt of the stored session (the hand-off offers those not in a file yet)
 * @param props.step the next step
 * @param props.running the run in progress, as the card shows it (its name, stage, progress and Cancel); null: none
 * @param props.otherTabs runs other tabs of the site hold now (null: this browser cannot tell)
 * @param props.said the tester's taps for the next cold run
 * @param props.onSay toggles a tap
 * @param props.disabled the Run buttons cannot start a run now
 * @param props.onRun starts a cold or a warm run
 * @param props.last the last run's receipt (null: none this page load)
 * @param props.error the run's error line
 * @param props.onNote shows a line about a hand-off
 */
export function ProtocolTarget(props: {
  protocol: Protocol;
  catalog: ModelCatalog;
  counts: ProtocolProgress;
  receipts: unknown[];
  step: ProtocolStep;
  running: ComponentChildren | null;
  otherTabs: number | null;
  said: Said;
  onSay(claim: ColdStartClaim): void;
  disabled: boolean;
  onRun(kind: 'cold' | 'warm'): void;
  last: DeviceReceipt | null;
  error: string | null;
  onNote(line: string): void;
}) {
  const { protocol, counts, step } = props;
  const fixture = props.catalog.models.find((m) => m.id === protocol.model)?.kind === 'fixture';
  return (
    <section class="panel" data-testid="protocol-card">
      <p class="facts-line" data-testid="protocol-target">
        <strong>{protocol.title}</strong>
        {fixture ? ' (a fixture: checks the procedure, not a real model)' : ''}
      </p>
      <ProgressLines counts={counts} />
      {props.last && !props.running && <LastOutcome receipt={props.last} />}
      {props.otherTabs !== null && props.otherTabs > 0 && (
        <p class="warn" role="status" data-testid="other-tabs">
          Another tab of this site is running {props.otherTabs === 1 ? 'a run' : `${props.otherTabs} runs`} now: runs at
          the same time share the phone's cores and are never counted. Let it end, or close that tab.
        </p>
      )}
      {props.running ?? (
        <>
          {step === 'cold' && (
            <AttestTaps
              said={props.said}
              onToggle={props.onSay}
              disabled={props.disabled}
              minCold={protocol.min_cold}
            />
          )}
          {step === 'warm' && (
            <div data-testid="warm-steps">
              <h2>
                Next: warm receipt {counts.warm + 1} of {protocol.min_warm}
              </h2>
              <p class="small">
                Each warm receipt is {protocol.warm_runs} timed runs on this same page. Keep the screen on and the page
                in front.
              </p>
            </div>
          )}
          {step === 'restart' && (
            <RestartSteps receipts={props.receipts} protocol={protocol} counts={counts} onNote={props.onNote} />
          )}
          {step === 'done' && (
            <DoneStep receipts={props.receipts} protocol={protocol} disabled={props.disabled} onNote={props.onNote} />
          )}
          {(step === 'cold' || step === 'warm') && (
            <button
              type="button"
              class="big"
              data-testid="protocol-next"
              disabled={props.disabled}
              onClick={() => props.onRun(step)}
            >
              {step === 'cold' ? 'Cold run' : `Warm receipt (${protocol.warm_runs} timed runs)`}
            </button>
          )}
          {step !== 'done' && (
            <p class="small">
              Or:{' '}
              <button
                type="button"
                class="link"
                data-testid="protocol-other"
                disabled={props.disabled}
                onClick={() => props.onRun(step === 'cold' ? 'warm' : 'cold')}
              >
                {step === 'cold'
                  ? 'a warm receipt instead'
                  : 'a cold run now (it will not count as a protocol cold: this page has run already)'}
              </button>
            </p>
          )}
        </>
      )}
      {/* The last run's device state goes under the next action, which stays above the fold on a small phone. */}
      {props.last && !props.running && (
        <DeviceStateNote state={props.last.device_state} testId="protocol-device-state" />
      )}
      {props.error && (
        <p class="error" role="alert" data-testid="protocol-run-error">
          {props.error}
        </p>
      )}
    </section>
  );
}
