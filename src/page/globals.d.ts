// Build-time constants injected by vite.config.ts `define`, and the automation contract's window fields.
import type { DeviceReceipt } from '../core/receipt.ts';
import type { ReceiptBundle } from '../core/receipt-bundle.ts';

declare global {
  /** `git rev-parse HEAD` at build time; null when the build had no git. */
  const __DRB_COMMIT__: string | null;
  /** package.json version at build time. */
  const __DRB_VERSION__: string;
  interface Window {
    /** Every receipt produced so far, exactly as the download buttons give them. */
    drbReceipts: DeviceReceipt[];
    /** Other artifacts (suite, comparison, generation runs): `{kind, data}`. */
    drbArtifacts: Array<{ kind: string; data: unknown }>;
    /** What this page build is (for public-pass records). */
    drbApp: { name: 'device-receipts-bench'; version: string; commit: string | null };
    /** The stored session once loaded (`data-drb-session` is `ready`): receipts and artifacts as stored on the device. */
    drbSession?: { receipts: unknown[]; artifacts: Array<{ kind: string; data: unknown }> };
    /** The bundle the export button would give now (set once the stored session is loaded). */
    drbExportBundle?: () => ReceiptBundle;
    /** Test hooks, only with `test_hooks=1`. */
    drbTest?: { crashWorker(afterMs: number): Promise<void>; killWorker(): void; pingWorker(): Promise<void> };
  }
}
export {};
