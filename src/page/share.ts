/**
 * Handing a file over from a phone: the Web Share API with files where the browser can share them (the iOS share
 * sheet: AirDrop, Files, Mail), else a download. Copy (download.ts `copyJson`) stays the last fallback.
 */
import { receiptFileText } from '../core/field/receipt-bundle.ts';
import { downloadJson } from './download.ts';

/** Whether this browser can share a JSON file through its share sheet. */
export function canShareFiles(): boolean {
  try {
    const probe = new File(['{}'], 'probe.json', { type: 'application/json' });
    return (
      typeof navigator.share === 'function' &&
      typeof navigator.canShare === 'function' &&
      navigator.canShare({ files: [probe] })
    );
  } catch {
    return false;
  }
}

/**
 * Shares `data` as a JSON file through the share sheet; where the browser cannot share files, downloads it.
 * @param data the object to hand over
 * @param fileName the file name
 * @returns what happened: `shared`, `downloaded`, `cancelled` (the tester closed the share sheet) or `failed`
 */
export async function shareJson(
  data: unknown,
  fileName: string,
): Promise<'shared' | 'downloaded' | 'cancelled' | 'failed'> {
  if (!canShareFiles()) {
    downloadJson(data, fileName);
    return 'downloaded';
  }
  try {
    const file = new File([receiptFileText(data)], fileName, { type: 'application/json' });
    await navigator.share({ files: [file], title: fileName });
    return 'shared';
  } catch (error) {
    return (error as Error).name === 'AbortError' ? 'cancelled' : 'failed';
  }
}
