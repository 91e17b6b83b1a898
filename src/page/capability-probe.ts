/**
 * The capability probe: what this browser can do, recorded in every receipt. Only what the browser really exposes:
 * a missing API is null, never estimated. navigator.gpu's presence is a diagnostic, not a claim that WebGPU works.
 */
import { boundCapabilities } from '../core/capability-bounds.ts';
import type { Capabilities } from '../core/receipt.ts';

// The smallest valid module using SIMD (v128) / shared memory + atomics: WebAssembly.validate tells whether the
// engine supports the feature without running anything (same technique as the wasm-feature-detect package).
const WASM_SIMD = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);
const WASM_THREADS = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 5, 4, 1, 3, 1, 1, 10, 11, 1, 9, 0, 65, 0, 254, 16, 2, 0, 26, 11]);

const LIMIT_NAMES = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxUniformBufferBindingSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
  'maxBindGroups',
] as const;

type Nav = Navigator & {
  gpu?: { requestAdapter(): Promise<GpuAdapterLike | null> };
  deviceMemory?: number;
  userAgentData?: {
    brands: Array<{ brand: string; version: string }>;
    mobile: boolean;
    platform: string;
    getHighEntropyValues?(hints: string[]): Promise<Record<string, unknown>>;
  };
};
interface GpuAdapterLike {
  info?: { vendor: string; architecture: string; device: string; description: string; isFallbackAdapter?: boolean };
  isFallbackAdapter?: boolean;
  features: Iterable<string>;
  limits: Record<string, number>;
}

function validates(bytes: Uint8Array): boolean {
  try {
    return WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>);
  } catch {
    return false;
  }
}

async function probeWebGpu(nav: Nav): Promise<Capabilities['webgpu']> {
  const none = { adapter_granted: false, adapter_error: null, adapter_info: null, is_fallback_adapter: null, features: [], limits: null };
  if (!nav.gpu) return { navigator_gpu: false, ...none };
  try {
    const adapter = await nav.gpu.requestAdapter();
    if (!adapter) return { navigator_gpu: true, ...none };
    const limits: Record<string, number> = {};
    for (const name of LIMIT_NAMES) if (typeof adapter.limits[name] === 'number') limits[name] = adapter.limits[name];
    const info = adapter.info;
    return {
      navigator_gpu: true,
      adapter_granted: true,
      adapter_error: null,
      adapter_info: info ? { vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description } : null,
      is_fallback_adapter: info?.isFallbackAdapter ?? adapter.isFallbackAdapter ?? null,
      features: [...adapter.features].sort(),
      limits,
    };
  } catch (error) {
    return { navigator_gpu: true, ...none, adapter_error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

async function probeClientHints(nav: Nav): Promise<Capabilities['ua_client_hints']> {
  const data = nav.userAgentData;
  if (!data) return null;
  let high: Record<string, unknown> = {};
  try {
    high = (await data.getHighEntropyValues?.(['platformVersion', 'architecture', 'model', 'fullVersionList'])) ?? {};
  } catch {
    high = {};
  }
  const str = (value: unknown) => (typeof value === 'string' ? value : null);
  const list = Array.isArray(high.fullVersionList) ? (high.fullVersionList as Array<{ brand: string; version: string }>) : null;
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
function syncFacts(nav: Nav): Pick<Capabilities, 'platform' | 'cross_origin_isolated' | 'shared_array_buffer' | 'wasm' | 'hardware_concurrency' | 'device_memory_gb'> {
  const wasmSupported = typeof WebAssembly === 'object';
  return {
    platform: typeof navigator.platform === 'string' && navigator.platform !== '' ? navigator.platform : null,
    cross_origin_isolated: self.crossOriginIsolated === true,
    shared_array_buffer: typeof SharedArrayBuffer === 'function',
    wasm: { supported: wasmSupported, simd: wasmSupported && validates(WASM_SIMD), threads: wasmSupported && validates(WASM_THREADS) },
    hardware_concurrency: Number.isInteger(navigator.hardwareConcurrency) && navigator.hardwareConcurrency > 0 ? navigator.hardwareConcurrency : null,
    device_memory_gb: typeof nav.deviceMemory === 'number' && nav.deviceMemory > 0 ? nav.deviceMemory : null,
  };
}

/**
 * The synchronous part of the probe only (no storage estimate, no WebGPU adapter request), for a receipt whose
 * full probe did not finish in time.
 * @param why recorded as the WebGPU adapter error, since the adapter was never asked
 */
export function basicCapabilities(why: string): Capabilities {
  const nav = navigator as Nav;
  return boundCapabilities({
    user_agent: navigator.userAgent,
    ua_client_hints: null,
    ...syncFacts(nav),
    js_heap: null,
    storage: { quota_bytes: null, usage_bytes: null, persisted: null },
    webgpu: { navigator_gpu: Boolean(nav.gpu), adapter_granted: false, adapter_error: why, adapter_info: null, is_fallback_adapter: null, features: [], limits: null },
  });
}

/** Probes this browser (page context). Never throws: every failing sub-probe records null / false. */
export async function probeCapabilities(): Promise<Capabilities> {
  const nav = navigator as Nav;
  const memory = (performance as Performance & { memory?: { jsHeapSizeLimit: number; totalJSHeapSize: number; usedJSHeapSize: number } })
    .memory;
  let storage: Capabilities['storage'] = { quota_bytes: null, usage_bytes: null, persisted: null };
  try {
    const estimate = await navigator.storage?.estimate?.();
    const persisted = await navigator.storage?.persisted?.();
    storage = { quota_bytes: estimate?.quota ?? null, usage_bytes: estimate?.usage ?? null, persisted: persisted ?? null };
  } catch {
    // Storage API refused (private mode, opaque origin): leave nulls.
  }
  // Bounded as the receipt schema requires: the browser may report strings of any length.
  return boundCapabilities({
    user_agent: navigator.userAgent,
    ua_client_hints: await probeClientHints(nav),
    ...syncFacts(nav),
    js_heap: memory
      ? { js_heap_size_limit: memory.jsHeapSizeLimit, total_js_heap_size: memory.totalJSHeapSize, used_js_heap_size: memory.usedJSHeapSize }
      : null,
    storage,
    webgpu: await probeWebGpu(nav),
  });
}
