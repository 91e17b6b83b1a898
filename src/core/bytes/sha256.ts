/**
 * SHA-256 as lowercase hex. Uses the Web Crypto `crypto.subtle` that browsers, workers and Node (>= 19)
 * all expose as the same standard global, so page and CLI hash identically.
 */
export async function sha256Hex(bytes: ArrayBuffer | ArrayBufferView): Promise<string> {
  const view =
    bytes instanceof ArrayBuffer
      ? new Uint8Array(bytes)
      : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const digest = await crypto.subtle.digest('SHA-256', view as Uint8Array<ArrayBuffer>);
  let hex = '';
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** A lowercase 64-hex-digit SHA-256 string. */
export const SHA256_PATTERN = /^[0-9a-f]{64}$/;
