// Build-time constants injected by vite.config.ts `define`, and the automation contract's window fields.
import type { DeviceReceipt, Stage } from '../core/receipt/receipt.ts';
import type { ReceiptBundle } from '../core/field/receipt-bundle.ts';

declare global {
  /** `git rev-parse HEAD` at build time; null when the build had no git. */
  const __DRB_COMMIT__: string | null;
  /** package.json version at build time. */
  const __DRB_VERSION__: string;
  interface Window {
    /**
     * The latest device receipts this page produced (at most 50, src/page/stored-session.ts `SESSION_ITEMS_IN_MEMORY`),
     * oldest first, exactly as the download buttons give them; every one is in the stored session.
     */
    drbReceipts: DeviceReceipt[];
    /** How many device receipts this page produced (`drbReceipts` holds the latest of them). */
    drbReceiptCount: number;
    /** The latest other artifacts (suite, comparison, generation runs): `{kind, data}`, at most 50, oldest first. */
    drbArtifacts: Array<{ kind: string; data: unknown }>;
    /** How many other artifacts this page produced. */
    drbArtifactCount: number;
    /** What this page build is (for public-pass records). */
    drbApp: { name: 'device-receipts-bench'; version: string; commit: string | null };
    /**
     * The stored session once loaded (`data-drb-session` is `ready`): its latest receipts and artifacts as stored on
     * the device (at most 50 of each while storage works), and how many the session holds.
     */
    drbSession?: {
      receipts: unknown[];
      artifacts: Array<{ kind: string; data: unknown }>;
      receiptCount: number;
      artifactCount: number;
    };
    /** The bundle the export button would give now, with every receipt of the session (set once it is loaded). */
    drbExportBundle?: () => Promise<ReceiptBundle>;
    /** Test hooks, only with `test_hooks=1`. */
    drbTest?: {
      crashWorker(afterMs: number): Promise<void>;
      killWorker(): void;
      /** Kills every run's worker silently as it enters `stage` (null: no longer). */
      killWorkerAt(stage: Stage | null): Promise<void>;
      pingWorker(): Promise<void>;
    };
  }
}
