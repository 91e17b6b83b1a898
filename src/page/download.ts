/**
 * Offering a receipt to the user: a Blob download with a readable file name, and a clipboard copy as the fallback for
 * browsers where downloads are awkward (iOS).
 */

/**
 * Starts a download of `data` as pretty JSON.
 * @param data the object to save
 * @param fileName the suggested file name
 */
export function downloadJson(data: unknown, fileName: string): void {
  const blob = new Blob([`${JSON.stringify(data, null, 2)}\n`], { type: 'application/json' });
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
 * Copies `data` as pretty JSON to the clipboard; falls back to a selected textarea + execCommand where the async
 * clipboard API is missing or refused. Resolves to whether it worked.
 * @param data the object to copy
 */
export async function copyJson(data: unknown): Promise<boolean> {
  const text = `${JSON.stringify(data, null, 2)}\n`;
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
