/**
 * Offering a receipt to the user: a Blob download with a readable file name, and a clipboard copy as the fallback for
 * browsers where downloads are awkward (iOS).
 */
import { receiptFileText } from '../core/field/receipt-bundle.ts';
import { receiptFileName } from '../core/receipt/receipt-envelope.ts';

/** Starts a download of `blob` under `fileName` (a temporary link, clicked once). */
function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // Revoke later: revoking at once can cancel the download in some browsers.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Starts a download of `data` as pretty JSON.
 * @param data the object to save
 * @param fileName the suggested file name
 */
export function downloadJson(data: unknown, fileName: string): void {
  downloadBlob(new Blob([receiptFileText(data)], { type: 'application/json' }), fileName);
}

/**
 * Starts a download of a receipt (device, suite, generation or comparison) under its artifact file name.
 * @param receipt the receipt to save
 * @returns the file name it was offered under (for the panel's "Saved as" note)
 */
export function downloadReceipt(receipt: unknown): string {
  const name = receiptFileName(receipt);
  downloadJson(receipt, name);
  return name;
}

/**
 * Starts a download of exact bytes as a JSON file (for files whose SHA-256 a receipt records, which must match the
 * downloaded file byte for byte).
 * @param bytes the file's bytes, saved as they are
 * @param fileName the suggested file name
 */
export function downloadJsonBytes(bytes: Uint8Array, fileName: string): void {
  downloadBlob(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/json' }), fileName);
}

/**
 * Copies `data` as pretty JSON to the clipboard; falls back to a selected textarea + execCommand where the async
 * clipboard API is missing or refused. Resolves to whether it worked.
 * @param data the object to copy
 */
export async function copyJson(data: unknown): Promise<boolean> {
  const text = receiptFileText(data);
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}
