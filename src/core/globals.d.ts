// The only ambient globals src/core/ may use: the few that browsers, workers and Node all provide with the same API
// (URL parsing, UTF-8 text coding, Web Crypto's SHA-256). tsconfig.core.json has no DOM or Node types, so any other
// global (window, document, navigator, process, Buffer...) is a type error there. tsconfig.json leaves this file out:
// its DOM and Node types declare these globals in full. Declare only members core really uses.

/** WHATWG URL (browsers, workers, Node). */
declare class URL {
  constructor(url: string, base?: string | URL);
  readonly href: string;
  readonly origin: string;
  readonly protocol: string;
  readonly host: string;
  readonly pathname: string;
  readonly search: string;
  readonly hash: string;
}

/** WHATWG URLSearchParams (browsers, workers, Node). */
declare class URLSearchParams {
  constructor(init?: string);
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string): boolean;
  set(name: string, value: string): void;
  toString(): string;
}

/** UTF-8 encoder (browsers, workers, Node). */
declare class TextEncoder {
  encode(input?: string): Uint8Array<ArrayBuffer>;
}

/** UTF-8 decoder (browsers, workers, Node); `fatal` refuses malformed bytes instead of inserting U+FFFD. */
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: Uint8Array): string;
}

/** Web Crypto's SHA-256 digest (browsers, workers, Node 20). */
declare const crypto: {
  subtle: { digest(algorithm: 'SHA-256', data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer> };
};
