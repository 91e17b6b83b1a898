/**
 * The capability facts a browser reports (user agent, client hints, WebGPU adapter details), cut to the receipt
 * schema's bounds before they enter a receipt: a browser or an extension can report strings of any length or
 * content, and a receipt the page makes must always pass its own schema.
 */
import { boundDetail, boundLine } from '../text/bounded-text.ts';
import type { Capabilities } from './receipt.ts';

/**
 * A user agent with every dotted or underscored version cut to its major (`Chrome/156.0.7390.54` ->
 * `Chrome/156.0.0.0`, `iPhone OS 18_1_1` -> `iPhone OS 18_0_0`, `Version/18.1` -> `Version/18.0`), the form Chromium
 * already sends: enough to tell browsers and major versions apart, not the build a fingerprint would key on.
 * @param userAgent navigator.userAgent
 */
export function reduceUserAgent(userAgent: string): string {
  // A version starts after '/', a space, '(' or ';' (never inside a token such as x86_64).
  return userAgent.replace(
    /(^|[/ (;])(\d+)((?:[._]\d+)+)/g,
    (_all, before: string, major: string, rest: string) => `${before}${major}${rest.replace(/\d+/g, '0')}`,
  );
}

const FEATURE = /^[a-z0-9][a-z0-9-]{0,79}$/;

type BrandVersion = { brand: string; version: string };
const brands = (list: readonly BrandVersion[]): BrandVersion[] =>
  list.slice(0, 16).map(({ brand, version }) => ({ brand: boundLine(brand, 128), version: boundLine(version, 64) }));
const line = (value: string | null, max: number) => (value === null ? null : boundLine(value, max));

/**
 * `capabilities` with every browser-reported string bounded as the receipt schema requires: long values cut, control
 * characters replaced, WebGPU feature names that are not feature names dropped.
 * @param capabilities what the probe found
 */
export function boundCapabilities(capabilities: Capabilities): Capabilities {
  const hints = capabilities.ua_client_hints;
  const gpu = capabilities.webgpu;
  return {
    ...capabilities,
    user_agent: boundLine(capabilities.user_agent, 1024),
    ua_client_hints:
      hints === null
        ? null
        : {
            ...hints,
            brands: brands(hints.brands),
            platform: boundLine(hints.platform, 128),
            platform_version: line(hints.platform_version, 64),
            architecture: line(hints.architecture, 64),
            model: line(hints.model, 128),
            full_version_list: hints.full_version_list === null ? null : brands(hints.full_version_list),
          },
    platform: line(capabilities.platform, 128),
    webgpu: {
      ...gpu,
      adapter_error: gpu.adapter_error === null ? null : boundDetail(gpu.adapter_error),
      adapter_info:
        gpu.adapter_info === null
          ? null
          : {
              vendor: boundLine(gpu.adapter_info.vendor, 256),
              architecture: boundLine(gpu.adapter_info.architecture, 256),
              device: boundLine(gpu.adapter_info.device, 256),
              description: boundLine(gpu.adapter_info.description, 256),
            },
      features: gpu.features.filter((name) => FEATURE.test(name)).slice(0, 256),
    },
  };
}
