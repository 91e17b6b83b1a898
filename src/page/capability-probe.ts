/**
 * The capability probe: what this browser can do, recorded in every receipt. Only what the browser really exposes:
 * a missing API is null, never estimated. WebGPU is probed by the one WebGPU probe (src/browser/webgpu-probe.ts).
 */
import { boundCapabilities, reduceUserAgent } from '../core/receipt/capability-bounds.ts';
import type { Capabilities, DeviceDetails } from '../core/receipt/receipt.ts';
import { answerWithin } from '../browser/answer-within.ts';
import { probeWebGpu, type GpuLike } from '../browser/webgpu-probe.ts';

/** How long the probe waits for one browser call (client hints, storage): one that never answers is left null, so
 *  the probe, a run's first stage in every panel, always finishes. */
const PROBE_CALL_LIMIT_MS = 5_000;

// The smallest valid module using SIMD (v128) / shared memory + atomics: WebAssembly.validate tells whether the
// engine supports the feature without running anything (same technique as the wasm-feature-detect package).
const WASM_SIMD = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);
const WASM_THREADS = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 5, 4, 1, 3, 1, 1, 10, 11, 1, 9, 0, 65, 0, 254, 16, 2, 0,
  26, 11,
]);

type Nav = Navigator & {
  gpu?: GpuLike;
  deviceMemory?: number;
  userAgentData?: {
    brands: Array<{ brand: string; version: string }>;
    mobile: boolean;
    platform: string;
    getHighEntropyValues?(hints: string[]): Promise<Record<string, unknown>>;
  };
};

function validates(bytes: Uint8Array): boolean {
  try {
    return WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>);
  } catch {
    return false;
  }
}

// The tester's choice, shared by every panel and every probe: reduced until they choose full device details on the
// page (or the URL says device_details=full). A probe reads it when it runs, so a receipt records the choice then.
let chosenDeviceDetails: DeviceDetails = 'reduced';

/**
 * Sets the device-details choice every later probe records.
 * @param details `full` only after the tester chose to share full device details
 */
export function chooseDeviceDetails(details: DeviceDetails): void {
  chosenDeviceDetails = details;
}

async function probeClientHints(nav: Nav, details: DeviceDetails): Promise<Capabilities['ua_client_hints']> {
  const data = nav.userAgentData;
  if (!data) return null;
  let high: Record<string, unknown> = {};
  // The high-entropy hints are asked for only when the tester chose to share full device details.
  if (details === 'full') {
    try {
      const asked = data.getHighEntropyValues?.(['platformVersion', 'architecture', 'model', 'fullVersionList']);
      high = (asked ? await answerWithin(asked, PROBE_CALL_LIMIT_MS, 'getHighEntropyValues') : null) ?? {};
    } catch {
      high = {};
    }
  }
  const str = (value: unknown) => (typeof value === 'string' ? value : null);
  const list = Array.isArray(high.fullVersionList)
    ? (high.fullVersionList as Array<{ brand: string; version: string }>)
    : null;
  return {
    brands: data.brands.map(({ brand, version }) => ({ brand, version })),
    mobile: data.mobile,
    platform: data.platform,
    platform_version: str(high.platformVersion),
    architecture: str(high.architecture),
    model: str(high.model),
    full_version_list: list ? list.map(({ brand, version }) => ({ brand, version })) : null,
  };
}

/**
 * The facts the browser answers at once, in the receipt's field order (platform to device memory); the full probe
 * and the fallback `basicCapabilities` both record them.
 * @param nav the navigator, typed with the fields not every browser has
 */
function syncFacts(
  nav: Nav,
): Pick<
  Capabilities,
  'platform' | 'cross_origin_isolated' | 'shared_array_buffer' | 'wasm' | 'hardware_concurrency' | 'device_memory_gb'
> {
  const wasmSupported = typeof WebAssembly === 'object';
  return {
    platform: typeof navigator.platform === 'string' && navigator.platform !== '' ? navigator.platform : null,
    cross_origin_isolated: self.crossOriginIsolated === true,
    shared_array_buffer: typeof SharedArrayBuffer === 'function',
    wasm: {
      supported: wasmSupported,
      simd: wasmSupported && validates(WASM_SIMD),
      threads: wasmSupported && validates(WASM_THREADS),
    },
    hardware_concurrency:
      Number.isInteger(navigator.hardwareConcurrency) && navigator.hardwareConcurrency > 0
        ? navigator.hardwareConcurrency
        : null,
    device_memory_gb: typeof nav.deviceMemory === 'number' && nav.deviceMemory > 0 ? nav.deviceMemory : null,
  };
}

/**
 * The synchronous part of the probe only (no storage estimate, no WebGPU adapter request), for a receipt whose
 * full probe did not finish in time.
 * @param why recorded as the WebGPU adapter error, since the adapter was never asked
 * @param details the device-details choice (default: the tester's current choice)
 */
export function basicCapabilities(why: string, details: DeviceDetails = chosenDeviceDetails): Capabilities {
  const nav = navigator as Nav;
  return boundCapabilities({
    device_details: details,
    user_agent: details === 'full' ? navigator.userAgent : reduceUserAgent(navigator.userAgent),
    ua_client_hints: null,
    ...syncFacts(nav),
    js_heap: null,
    storage: { quota_bytes: null, usage_bytes: null, persisted: null },
    webgpu: {
      navigator_gpu: Boolean(nav.gpu),
      adapter_granted: false,
      adapter_error: why,
      adapter_info: null,
      is_fallback_adapter: null,
      features: [],
      limits: null,
    },
  });
}

/**
 * Probes this browser (page context). Never throws: every failing sub-probe records null / false.
 * @param details `reduced`: major versions only and no high-entropy client hints; `full`: the full user agent and
 *   the high-entropy hints (default: the tester's current choice, reduced until they choose full)
 */
export async function probeCapabilities(details: DeviceDetails = chosenDeviceDetails): Promise<Capabilities> {
  const nav = navigator as Nav;
  const memory = (
    performance as Performance & {
      memory?: { jsHeapSizeLimit: number; totalJSHeapSize: number; usedJSHeapSize: number };
    }
  ).memory;
  let storage: Capabilities['storage'] = { quota_bytes: null, usage_bytes: null, persisted: null };
  try {
    const estimating = navigator.storage?.estimate?.();
    const estimate = estimating ? await answerWithin(estimating, PROBE_CALL_LIMIT_MS, 'storage.estimate') : undefined;
    const asking = navigator.storage?.persisted?.();
    const persisted = asking ? await answerWithin(asking, PROBE_CALL_LIMIT_MS, 'storage.persisted') : undefined;
    storage = {
      quota_bytes: estimate?.quota ?? null,
      usage_bytes: estimate?.usage ?? null,
      persisted: persisted ?? null,
    };
  } catch {
    // Storage API refused or silent (private mode, opaque origin): leave nulls.
  }
  // Bounded as the receipt schema requires: the browser may report strings of any length.
  return boundCapabilities({
    device_details: details,
    user_agent: details === 'full' ? navigator.userAgent : reduceUserAgent(navigator.userAgent),
    ua_client_hints: await probeClientHints(nav, details),
    ...syncFacts(nav),
    js_heap: memory
      ? {
          js_heap_size_limit: memory.jsHeapSizeLimit,
          total_js_heap_size: memory.totalJSHeapSize,
          used_js_heap_size: memory.usedJSHeapSize,
        }
      : null,
    storage,
    webgpu: await probeWebGpu(nav.gpu),
  });
}
