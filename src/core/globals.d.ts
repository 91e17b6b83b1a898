// The only ambient global that src/core/ may use: Web Crypto's `crypto.subtle.digest`, which browsers,
// workers and Node share. tsconfig.core.json has no DOM or Node types, so any other global is a type error.
declare const crypto: {
  subtle: { digest(algorithm: 'SHA-256', data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer> };
};
