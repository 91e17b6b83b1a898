import type { ModelStatus } from '../core/receipt/receipt.ts';
import type { FetchProgress } from '../worker-api/worker-messages.ts';

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The latest progress of each download a load makes: the model's files and the runtime's `.wasm`, apart. */
export interface Downloads {
  model: FetchProgress | null;
  runtime: FetchProgress | null;
}

export const NO_DOWNLOADS: Downloads = { model: null, runtime: null };

/** `downloads` with `progress` as the latest of its kind (for a state setter). */
export function withProgress(downloads: Downloads, progress: FetchProgress): Downloads {
  return { ...downloads, [progress.kind]: progress };
}

function DownloadLine(props: { label: string; testId: string; progress: FetchProgress }) {
  const { progress } = props;
  return (
    <p data-testid={`${props.testId}-download`}>
      {props.label}:{' '}
      <span data-testid={props.testId}>
        {formatBytes(progress.bytesDone)} /{' '}
        {progress.bytesTotal === null ? 'unknown' : formatBytes(progress.bytesTotal)}
      </span>{' '}
      {progress.kind === 'runtime'
        ? `(${progress.path})`
        : `(file ${progress.fileIndex + 1} of ${progress.fileCount}: ${progress.path})`}
      {progress.bytesTotal !== null && <progress max={progress.bytesTotal} value={progress.bytesDone} />}
    </p>
  );
}

/** The model status and download progress (bytes done / total), the model's and the runtime's side by side. */
export function RunProgress(props: {
  status: ModelStatus;
  downloads: Downloads;
  samplesDone: number;
  samplesTotal: number | null;
}) {
  const { model, runtime } = props.downloads;
  return (
    <section class="panel" data-testid="progress">
      <h2>
        Status:{' '}
        <span data-testid="status" aria-live="polite">
          {props.status}
        </span>
      </h2>
      {model && <DownloadLine label="Model download" testId="bytes" progress={model} />}
      {runtime && <DownloadLine label="Runtime download" testId="runtime-bytes" progress={runtime} />}
      {props.samplesTotal !== null && (
        <p data-testid="warm-samples">
          Warm samples: {props.samplesDone} / {props.samplesTotal}
        </p>
      )}
    </section>
  );
}
