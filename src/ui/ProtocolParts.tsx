/**
 * Protocol mode's parts: the short capability summary, the cold procedure's steps, the stored session's list, and
 * what the last run came to.
 */
import { useState } from 'preact/hooks';
import type { Capabilities, DeviceReceipt } from '../core/receipt/receipt.ts';
import { SESSION_DB } from '../page/session-db.ts';
import { CANNOT_CLEAR, clearSiteModels, type ClearReport } from '../page/site-storage.ts';
import { CapabilityPanel } from './CapabilityPanel.tsx';
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

/** The cold procedure: what the page does itself and what only the tester can do. */
export function ColdSteps() {
  const [clearing, setClearing] = useState(false);
  const [cleared, setCleared] = useState<ClearReport | null>(null);
  const clear = async () => {
    setClearing(true);
    setCleared(await clearSiteModels([SESSION_DB]));
    setClearing(false);
  };
  return (
    <div data-testid="cold-steps">
      <p>Before a cold run (the page must start as if for the first time):</p>
      <ol class="steps">
        <li>Close every other tab of this site.</li>
        <li>
          Clear what the page can clear:{' '}
          <button
            type="button"
            class="secondary"
            data-testid="clear-models"
            disabled={clearing}
            onClick={() => void clear()}
          >
            Clear this site's stored models
          </button>{' '}
          (Cache API, IndexedDB and the private file system of this site; your receipts are kept).
        </li>
        <li>
          What no page can clear: {CANNOT_CLEAR.join('; ')}. Clearing website data in the browser's settings also
          deletes the receipts stored here: export them first.
        </li>
        <li>Quit the browser and open this page again, then tap Cold run.</li>
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

/** The stored session: counts per target, and each receipt with its time and outcome. */
export function SessionList(props: { receipts: unknown[] }) {
  const device = props.receipts.filter(
    (r): r is DeviceReceipt => (r as DeviceReceipt).schema === 'drb.device-receipt.v2',
  );
  const targets = new Map<string, number>();
  for (const r of device) {
    const key = `${r.model.id} · ${r.route.requested_ep}${r.route.threads_requested === null ? '' : ` ${r.route.threads_requested}t`}`;
    targets.set(key, (targets.get(key) ?? 0) + 1);
  }
  const others = props.receipts.length - device.length;
  return (
    <div data-testid="stored-session">
      <p>
        Stored on this device: {props.receipts.length} receipt(s)
        {targets.size > 0
          ? ` (${[...targets].map(([k, n]) => `${k}: ${n}`).join('; ')}${others > 0 ? `; ${others} of other kinds` : ''})`
          : ''}
        .
      </p>
      {device.length > 0 && (
        <details>
          <summary>Every stored receipt</summary>
          <ol class="stored" reversed>
            {[...device].reverse().map((r) => (
              <li
                key={r.receipt_id}
                data-testid="stored-receipt"
                data-kind={r.run.kind}
                data-outcome={r.outcome.status}
              >
                {shortTime(r.created_at)} · {r.run.kind} ·{' '}
                <strong>{r.outcome.status === 'ok' ? 'ok' : '✗ failed'}</strong>
                {r.run.kind === 'cold' &&
                  r.outcome.status === 'ok' &&
                  (r.run.cold_from_cache === false
                    ? ' · truly cold'
                    : r.run.cold_from_cache
                      ? ' · served from a cache: not counted'
                      : ' · cache state unknown: not counted')}
                {r.run.previous_run_interrupted ? ' · after an interrupted run' : ''}
              </li>
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}

/** What the last cold run's cache state means for the count. */
function coldNote(receipt: DeviceReceipt): string {
  if (receipt.run.kind !== 'cold' || receipt.outcome.status !== 'ok') return '';
  if (receipt.run.cold_from_cache === false) return ' (truly cold: every file came over the network)';
  return receipt.run.cold_from_cache
    ? ' (served from a cache: not counted as cold; do the cold steps first)'
    : ' (the cache state of a file is unknown: not counted as cold)';
}

/**
 * What the last run came to: its kind and outcome, whether a cold run counts as cold, the wake lock, and the advice
 * for a failure.
 * @param props.receipt the last run's receipt
 */
export function LastOutcome(props: { receipt: DeviceReceipt }) {
  const last = props.receipt;
  const ok = last.outcome.status === 'ok';
  return (
    <>
      <p class={ok ? 'ok' : 'error'} role="status" data-testid="last-outcome">
        Last run: {last.run.kind}, {ok ? 'ok' : `failed: ${last.outcome.reason ?? ''}`}
        {coldNote(last)}
        {last.run.wake_lock !== 'held' ? ` · screen wake lock: ${last.run.wake_lock}` : ''}
      </p>
      <FailureAdvice reason={last.outcome.reason} panel="protocol" testId="protocol-advice" />
    </>
  );
}
