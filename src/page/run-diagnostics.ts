/**
 * The receipt sections a run's worker and page observed besides the timings (`placement`, `memory`), gathered once a
 * run has ended: the worker's diagnostics (where the session's nodes ran; its WebAssembly memory and GPU buffers) and
 * the page's `measureUserAgentSpecificMemory()` points (src/page/ua-memory.ts). A worker that is gone leaves the
 * figures `not available` with that reason, never guessed.
 */
import { memoryUnavailable } from '../core/receipt/memory-figures.ts';
import type { DeviceReceipt } from '../core/receipt/receipt.ts';
import type { UaMemoryProbe } from './ua-memory.ts';
import { WorkerBridge } from './worker-bridge.ts';

/**
 * The receipt's `placement` and `memory` for the run that just ended on `bridge`.
 * @param bridge the run's worker bridge (null when none was opened)
 * @param kind the receipt's run kind
 * @param probe the run's page-side memory probe
 */
export async function runDiagnostics(
  bridge: WorkerBridge | null,
  kind: 'cold' | 'warm',
  probe: UaMemoryProbe,
): Promise<Pick<DeviceReceipt, 'placement' | 'memory' | 'errors'>> {
  const diagnostics = bridge === null ? null : await bridge.diagnostics(kind);
  const ua = await probe.finish();
  const worker =
    diagnostics?.memory ??
    memoryUnavailable(
      bridge === null
        ? "the run's worker was closed before it reported its memory (the run failed or was cancelled)"
        : 'the worker was gone before it reported its memory',
    );
  // A developer's `ort_log=verbose` slowed every run of this page: its receipts say so.
  const errors: DeviceReceipt['errors'] =
    WorkerBridge.ortLog === 'verbose'
      ? [
          {
            stage: 'session',
            name: 'OrtVerboseLog',
            message:
              "ONNX Runtime's verbose session log was on (ort_log=verbose): every run printed log lines, so the timings include logging",
          },
        ]
      : [];
  return {
    placement: diagnostics?.placement ?? null,
    memory: { wasm: worker.wasm, gpu_buffers: worker.gpu_buffers, ua_specific: ua },
    errors,
  };
}
