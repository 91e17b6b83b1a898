import type { ModelStatus } from '../core/receipt.ts';
import type { FetchProgress } from '../worker-api/protocol.ts';

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The model status and download progress (bytes done / total). */
export function RunProgress(props: { status: ModelStatus; progress: FetchProgress | null; samplesDone: number; samplesTotal: number | null }) {
  const { progress } = props;
  return (
    <section class="panel" data-testid="progress">
      <h2>
        Status: <span data-testid="status">{props.status}</span>
      </h2>
      {progress && (
        <p>
          Download:{' '}
          <span data-testid="bytes">
            {formatBytes(progress.bytesDone)} / {progress.bytesTotal === null ? 'unknown' : formatBytes(progress.bytesTotal)}
          </span>{' '}
          (file {progress.fileIndex + 1} of {progress.fileCount})
          {progress.bytesTotal !== null && <progress max={progress.bytesTotal} value={progress.bytesDone} />}
        </p>
      )}
      {props.samplesTotal !== null && (
        <p>
          Warm samples: {props.samplesDone} / {props.samplesTotal}
        </p>
      )}
    </section>
  );
}
