/**
 * Protocol mode's steps: the progress with the cold receipts' measured and attested counts side by side, the two
 * taps only the tester can make before a cold run, the cold steps when the page has run already (hand off, clear the
 * site's data, quit and reopen, take back), the memory question, and the one-tap hand-off of every receipt not yet
 * handed off.
 */
import { useState } from 'preact/hooks';
import { coldEvidenceLine, progressLine, type ProtocolProgress } from '../core/field/field-progress.ts';
import type { Protocol } from '../core/field/field-protocol.ts';
import { notHandedOff } from '../core/field/hand-off.ts';
import type { ColdStartClaim } from '../core/receipt/attestation.ts';
import { SESSION_DB } from '../page/session-db.ts';
import { canShareFiles } from '../page/share.ts';
import { CANNOT_CLEAR, clearSiteModels, type ClearReport } from '../page/site-storage.ts';
import { storedSession } from '../page/stored-session.ts';
import { handOver } from './hand-over.ts';
import { MemoryQuestion } from './MemoryQuestion.tsx';

/** The progress line (its counts as data attributes, for tests), and the measured and attested counts. */
export function ProgressLines(props: { counts: ProtocolProgress }) {
  const c = props.counts;
  const data = {
    'data-cold': c.cold,
    'data-cold-network-only': c.coldNetworkOnly,
    'data-cold-cache': c.coldFromCache,
    'data-cold-unknown': c.coldUnknown,
    'data-warm': c.warm,
    'data-failed': c.failed,
    'data-overlapped': c.overlapped,
    'data-noisy': c.noisy,
    'data-measured-network': c.measured.networkCold,
    'data-measured-fresh': c.measured.freshStart,
    'data-attested': c.attested,
  };
  return (
    <>
      <p class="progress-line" data-testid="protocol-progress" aria-live="polite" {...data}>
        {progressLine(c)}
      </p>
      <p class="small" data-testid="cold-evidence">
        {coldEvidenceLine(c)}
      </p>
    </>
  );
}

/** The tester's taps before a cold run: when each was tapped (absent: not tapped). */
export type Said = Partial<Record<ColdStartClaim, string>>;

/** The two statements only the tester can make about a cold start, each one explicit tap (again: taken back). */
export function AttestTaps(props: {
  said: Said;
  onToggle(claim: ColdStartClaim): void;
  disabled: boolean;
  minCold: number;
}) {
  const tap = (claim: ColdStartClaim, words: string) => (
    <button
      type="button"
      class="attest"
      aria-pressed={props.said[claim] !== undefined}
      data-testid={`attest-${claim}`}
      disabled={props.disabled}
      onClick={() => props.onToggle(claim)}
    >
      {props.said[claim] ? '✓ ' : ''}
      {words}
    </button>
  );
  const both = props.said['browser-restarted'] !== undefined && props.said['site-data-cleared'] !== undefined;
  return (
    <div data-testid="cold-steps">
      <h2>Next: a cold run</h2>
      <p class="small">
        This page has not run yet, so a cold run now starts fresh. Only you can confirm (no page can see it):
      </p>
      <div class="buttons">
        {tap('browser-restarted', 'I quit the browser and opened it again')}
        {tap('site-data-cleared', "I cleared this site's website data")}
      </div>
      {!both && (
        <p class="small" data-testid="attest-missing">
          Without both taps this cold run is network-cold only: it does not count toward the {props.minCold} cold runs.
        </p>
      )}
    </div>
  );
}

/** Hands off every receipt not yet in a file the tester has, in one tap (or says there is none). */
function HandOffButton(props: { receipts: unknown[]; protocol: Protocol; onNote(line: string): void }) {
  const [handing, setHanding] = useState(false);
  const pending = notHandedOff(props.receipts, storedSession.handOffLog).length;
  if (pending === 0) return <span data-testid="hand-off-done">Every receipt is in a file you have.</span>;
  const go = async () => {
    setHanding(true);
    try {
      props.onNote(
        await handOver(notHandedOff(await storedSession.allReceipts(), storedSession.handOffLog), props.protocol),
      );
    } finally {
      setHanding(false);
    }
  };
  return (
    <button type="button" class="big" data-testid="hand-off" disabled={handing} onClick={() => void go()}>
      {canShareFiles() ? 'Share' : 'Save'} {pending} receipt{pending === 1 ? '' : 's'} not yet handed off
    </button>
  );
}

/** The cold steps when this page has run already: hand off, clear the site's data, quit and reopen, take back. */
export function RestartSteps(props: {
  receipts: unknown[];
  protocol: Protocol;
  counts: ProtocolProgress;
  onNote(line: string): void;
}) {
  const [clearing, setClearing] = useState(false);
  const [cleared, setCleared] = useState<ClearReport | null>(null);
  const clear = async () => {
    setClearing(true);
    setCleared(await clearSiteModels([SESSION_DB]));
    setClearing(false);
  };
  return (
    <div data-testid="restart-steps">
      <h2>
        Next: the cold steps, then cold run {props.counts.cold + 1} of {props.protocol.min_cold}
      </h2>
      <p class="small">
        The next cold run must start fresh: a new browser, this site's data cleared. This page has run already.
      </p>
      <ol class="steps">
        <li>
          Hand off the receipts clearing will delete:{' '}
          <HandOffButton receipts={props.receipts} protocol={props.protocol} onNote={props.onNote} />
        </li>
        <li>
          Clear this site's website data in the browser's settings (Safari: Settings, Apps, Safari, Advanced, Website
          Data; Chrome: the site's settings, Delete data). What the page can clear itself:{' '}
          <button
            type="button"
            class="secondary"
            data-testid="clear-models"
            disabled={clearing}
            onClick={() => void clear()}
          >
            Clear this site's stored models
          </button>
          ; what no page can clear: {CANNOT_CLEAR.join('; ')}.
        </li>
        <li>Quit the browser completely and open this page again.</li>
        <li>If the page then shows no receipts, tap "Take back saved files" and pick the files from step 1.</li>
      </ol>
      {cleared && (
        <p role="status" data-testid="clear-report">
          Cleared: {cleared.cleared.join('; ') || 'nothing'}.
          {cleared.failed.length > 0 ? ` Not cleared: ${cleared.failed.join('; ')}.` : ''}
        </p>
      )}
    </div>
  );
}

/** Both minimums met: the memory question, then the last hand-off. */
export function DoneStep(props: {
  receipts: unknown[];
  protocol: Protocol;
  disabled: boolean;
  onNote(line: string): void;
}) {
  return (
    <div data-testid="done-steps">
      <h2>Done: both minimums are met</h2>
      <p class="small">Answer the memory question, check the sheet below, then hand off what is not in a file yet.</p>
      <MemoryQuestion disabled={props.disabled} />
      <p>
        <HandOffButton receipts={props.receipts} protocol={props.protocol} onNote={props.onNote} />
      </p>
    </div>
  );
}
