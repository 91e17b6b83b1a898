/**
 * The page's response headers (cross-origin isolation and the Content-Security-Policy), built in one pure place for
 * the static server, Vite's dev and preview servers, and the index.html meta tag. The policy allows only the page's
 * own origin, plus the model hosts the catalog is configured for; no third-party scripts at all.
 */
import type { ModelCatalog } from './catalog.ts';
import { ENGINE_CAPABILITIES } from '../engines/engine-capabilities.ts';

/** Hosts a Hugging Face download touches: the API host, then the CDN hosts its `resolve` URLs redirect to. */
export const HUGGINGFACE_HOSTS: readonly string[] = [
  'https://huggingface.co',
  'https://cdn-lfs.huggingface.co',
  'https://cdn-lfs.hf.co',
  'https://cdn-lfs-us-1.hf.co',
  'https://cas-bridge.xethub.hf.co',
];

/**
 * The `connect-src` hosts the catalog needs (page origin excluded).
 * @param catalog the parsed catalog
 */
export function modelHosts(catalog: ModelCatalog): string[] {
  const hosts = new Set<string>();
  if (catalog.models.some((m) => m.source.type === 'huggingface'))
    for (const host of HUGGINGFACE_HOSTS) hosts.add(host);
  // Hosts an engine's runtime fetches from (the capability table), for the engines the catalog uses.
  for (const model of catalog.models)
    for (const host of ENGINE_CAPABILITIES[model.engine].runtimeHosts) hosts.add(host);
  return [...hosts].sort();
}

/**
 * The policy text.
 * @param hosts extra connect-src origins (model hosts)
 * @param forMeta true for the <meta> form, which must leave out directives browsers ignore there (frame-ancestors)
 */
export function contentSecurityPolicy(hosts: readonly string[], forMeta = false): string {
  const directives = [
    "default-src 'self'",
    // 'wasm-unsafe-eval' lets WebAssembly compile; no 'unsafe-eval', no inline scripts.
    "script-src 'self' 'wasm-unsafe-eval'",
    // ORT's and the bundler's worker bootstrap may use blob: URLs.
    "worker-src 'self' blob:",
    `connect-src 'self'${hosts.map((h) => ` ${h}`).join('')}`,
    "img-src 'self' data: blob:",
    "style-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'none'",
  ];
  if (!forMeta) directives.push("frame-ancestors 'none'");
  return directives.join('; ');
}

/**
 * The headers every response of the page carries: cross-origin isolation (COOP/COEP/CORP, without which there is no
 * SharedArrayBuffer and no WASM threads), the CSP, no MIME sniffing and no referrer.
 * @param modelHosts extra connect-src origins for the CSP (the catalog's model hosts)
 */
export function crossOriginHeaders(modelHosts: readonly string[]): Record<string, string> {
  return {
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Content-Security-Policy': contentSecurityPolicy(modelHosts),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
}
